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


# Tests over ~5 s on an idle 2-core machine (measured with --durations in a full run). They carry the `slow`
# marker so `-m "not slow"` gives a quick loop; the README command (python -m pytest -n 2) still runs them.
SLOW = (
    "tests/families/test_gauss.py::test_sympy_determinants[5]",
    "tests/families/test_gauss.py::test_sympy_determinants[6]",
    "tests/families/test_gauss.py::test_engine_n2000_accuracy_and_no_overflow",
    "tests/accounting/test_sweep_rdp.py::test_subsampled_gaussian_fractional_sweep",
    "tests/accounting/test_rdp.py::test_tiny_sigma_fractional_orders_use_a_valid_upper_bound",
    "tests/cli/test_conventions.py::test_documented_example_runs_and_cites_real_formulas[calibrate-",
    "tests/verify/test_verify.py::test_any_registered_check_can_fail",
    "tests/verify/test_verify.py::test_cli_all_covers_every_entry",
    "tests/verify/test_verify.py::test_false_alarm_rate_is_controlled",
    "tests/verify/test_verify.py::test_published_rows_for_every_catalog_erratum",
    "tests/catalog/test_catalog.py::test_implementation_matches_sympy_at_50_digits[gauss.case1_u_max]",
    "tests/catalog/test_catalog.py::test_implementation_matches_sympy_at_50_digits[midp.baseline_client_sigma]",
    "tests/catalog/test_catalog.py::test_implementation_matches_sympy_at_50_digits[rdp.subsampled_gaussian]",
    "tests/catalog/test_catalog.py::test_entry_is_complete[accountant.eps_rdp]",
    "tests/catalog/test_catalog.py::test_entry_is_complete[calibrate.sigma_rdp]",
    "tests/catalog/test_catalog.py::test_implementation_matches_sympy_at_50_digits[calibrate.sigma_zcdp]",
    "tests/catalog/test_catalog.py::test_implementation_matches_sympy_at_50_digits[accountant.eps_zcdp]",
    "tests/catalog/test_catalog.py::test_implementation_matches_sympy_at_50_digits[secagg.renyi_gaussian_codiagonal]",
    "tests/families/test_midp.py::test_theorem3_against_slsqp[8]",
    "tests/accounting/test_calibrate.py::test_pld_calibration_matches_anchor",
    "tests/accounting/test_calibrate.py::test_calibration_always_conservative_and_tight",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
