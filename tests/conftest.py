"""Shared fixtures: a seeded generator, and a guard against leaked mpmath precision."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

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


# The `slow` marker is given by a rule, not a hand-kept list: a test is slow when it took SLOW_SECONDS or more
# (setup + call + teardown) in the stored timing run, tests/data/durations.json. `-m "not slow"` gives a quick loop;
# the README command (python -m pytest -n 2) runs everything. Refresh the timings after adding or changing tests:
#     python -m pytest -n 2 --store-durations
DURATIONS = Path(__file__).resolve().parent / "data" / "durations.json"
SLOW_SECONDS = 2.0
_measured: dict[str, float] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-durations", action="store_true",
                     help=f"write every test's duration to {DURATIONS.name} (the `slow` marker's timings)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    stored = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.exists() else {}
    for item in items:
        if stored.get(item.nodeid, 0.0) >= SLOW_SECONDS:
            item.add_marker(pytest.mark.slow)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _measured[report.nodeid] = _measured.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.config.getoption("--store-durations") and not hasattr(session.config, "workerinput"):
        DURATIONS.write_text(json.dumps({k: round(v, 3) for k, v in sorted(_measured.items())}, indent=0) + "\n",
                             encoding="utf-8")
