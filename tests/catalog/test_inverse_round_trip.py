"""Every inverse / calibration entry of the catalog through the one declarative round-trip recipe
(checks/inverse.py): forward(inverse(x)) within the stated tolerance of x and on the safe side, at every example and
at seeded random in-domain points."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.checks.registry import CheckContext, get_recipe

INVERSES = sorted(fid for fid, f in catalog.load().items() if f.check.get("recipe") == "inverse_round_trip")


def test_the_inverses_are_in_the_catalog() -> None:
    assert {"gdp.eps_from_mu", "gdp.mu_from_eps", "gaussian.eps_analytic", "gaussian.sigma_analytic",
            "zcdp.eps_from_rho", "zcdp.delta_from_rho"} <= set(INVERSES)


@pytest.mark.parametrize("fid", INVERSES)
def test_round_trip_safe_side(fid: str) -> None:
    f = catalog.get(fid)
    rec = get_recipe("inverse_round_trip")
    assert rec is not None
    rng = np.random.default_rng(zlib.crc32(fid.encode()))
    points = [dict(ex.inputs) for ex in f.examples] + [f.sample_inputs(rng) for _ in range(20)]
    for p in points:
        res = rec(f, p, CheckContext(formula_id=fid))
        assert res.verdict == "pass", (fid, p, res)
