"""Shared fixtures: a seeded generator, and a guard against leaked mpmath precision."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh, fixed-seed generator per test (reproducible across runs and workers)."""
    return np.random.default_rng(20261123)


@pytest.fixture(autouse=True)
def _no_precision_leak() -> Iterator[None]:
    """mpmath's global precision must be what it was: tests use ``mpmath.workdps``, never ``mp.dps = …``."""
    import mpmath

    before = mpmath.mp.dps
    yield
    assert mpmath.mp.dps == before, f"mpmath.mp.dps leaked: {before} -> {mpmath.mp.dps}"
