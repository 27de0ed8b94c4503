"""Shared fixtures: seeded generators and the catalog."""

from __future__ import annotations

import numpy as np
import pytest

from dpcalc import catalog


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh, fixed-seed generator per test (reproducible across runs and workers)."""
    return np.random.default_rng(20261123)


@pytest.fixture(scope="session")
def formulas() -> dict[str, catalog.Formula]:
    return catalog.load()
