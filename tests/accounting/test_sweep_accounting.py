"""Domain sweeps of every accounting catalog entry (dong2022, balle2018, dwork2014, bun2016, mironov2019,
balle2020) over its sample specs against its SymPy form in mpmath at 40 digits, at the entry's documented ``rtol``;
inverse entries (SolveFor forms) also on the safe side. ``DPCALC_SWEEP_POINTS`` sets the deep budget."""

from __future__ import annotations

import warnings

import pytest

from dpcalc import catalog
from tests.support.backward_terms import backward, zcdp_eps
from tests.support.sweep import sweep_catalog

PAPERS = ("dong2022", "balle2018", "dwork2014", "bun2016", "mironov2019", "balle2020")
IDS = sorted(fid for fid, f in catalog.load().items() if f.paper.id in PAPERS)
#: the documented backward term of the two GDP inverses (their catalog notes): rtol plus LOG_DELTA_ERR over the slope
ATOL = {"gdp.eps_from_mu": lambda p, want: backward(p["mu"], p["delta"], want),
        "gaussian.eps_analytic": lambda p, want: backward(p["sensitivity"] / p["sigma"], p["delta"], want),
        "zcdp.eps_from_rho": lambda p, want: zcdp_eps(p["rho"], p["delta"], want)}
SAFE = {"gdp.eps_from_mu": "above", "gaussian.eps_analytic": "above", "gaussian.sigma_analytic": "above",
        "gdp.mu_from_eps": "below", "zcdp.eps_from_rho": "above"}


@pytest.mark.parametrize("fid", IDS)
def test_entry_sweep(fid: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # CLT EstimateWarning / OutOfDomainWarning are asserted in the unit tests
        sweep_catalog(fid, n=4 if fid in SAFE else 8, safe=SAFE.get(fid), atol=ATOL.get(fid))  # type: ignore[arg-type]
