"""Domain sweeps of the accountants' ε entries (formulas/accountants.toml): the ε each accountant prints,
against independent 40-digit mpmath references, at the entry's documented ``rtol`` (read from the catalog).

* ``accountant.eps_rdp`` — RDP per order by the exact binomial sum (:func:`dpcalc.checks.oracles.subsampled_rdp`),
  T·RDP converted by Balle et al. 2020 Thm 21 and minimised over the entry's grid, in mpmath;
* ``accountant.eps_zcdp`` — the CKS optimum at ρ = T/(2σ²) (:func:`dpcalc.checks.oracles.zcdp_eps`);
* ``accountant.eps_analytic`` — the exact Gaussian ε at μ = √T/σ (:func:`dpcalc.checks.oracles.gaussian_eps`), on
  the safe side (never below), with the documented backward term of ``gdp.eps_from_mu``.

The calibrations (σ for a target ε) are swept in tests/accounting/test_sweep_calibrate.py.
Budget: ``DPCALC_SWEEP_POINTS``.
"""

from __future__ import annotations

import math
import warnings

import mpmath

from dpcalc import catalog
from dpcalc.accounting import gdp
from dpcalc.checks import oracles
from dpcalc.checks.accountants import rdp_accountant_mp
from tests.support.sweep import Axis, sweep

AXES = [Axis("sigma", 0.2, 200.0), Axis("steps", 1, 1e4, "logint"), Axis("delta", 1e-12, 1e-3)]


def _call(fid: str, p: dict[str, float]) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return float(catalog.get(fid).call(p))


def test_eps_rdp_sweep() -> None:
    f = catalog.get("accountant.eps_rdp")
    orders = f.call_kwargs["orders"]
    sweep(f.id, [Axis("sigma", 0.5, 20.0), Axis("q", 1e-3, 1.0), Axis("steps", 1, 1e4, "logint"),
                 Axis("delta", 1e-12, 1e-3)],
          fn=lambda p: _call(f.id, p),
          ref=lambda p: rdp_accountant_mp(p["sigma"], p["q"], p["steps"], p["delta"], orders), rtol=f.rtol, n=6)


def test_eps_zcdp_sweep() -> None:
    f = catalog.get("accountant.eps_zcdp")
    sweep(f.id, AXES, fn=lambda p: _call(f.id, p),
          ref=lambda p: oracles.zcdp_eps(mpmath.mpf(p["steps"]) / (2 * mpmath.mpf(p["sigma"]) ** 2),
                                         math.log(p["delta"])), rtol=f.rtol, n=10)


def test_eps_analytic_sweep() -> None:
    f = catalog.get("accountant.eps_analytic")

    def backward(p: dict[str, float], want: float) -> float:
        mu = mpmath.sqrt(p["steps"]) / mpmath.mpf(p["sigma"])
        slope = mpmath.exp(want) * mpmath.ncdf(-want / mu - mu / 2) / mpmath.mpf(p["delta"])
        return 0.0 if slope == 0 else float(gdp.LOG_DELTA_ERR / slope)

    sweep(f.id, AXES, fn=lambda p: _call(f.id, p),
          ref=lambda p: oracles.gaussian_eps(mpmath.sqrt(p["steps"]) / mpmath.mpf(p["sigma"]), math.log(p["delta"])),
          rtol=f.rtol, atol=backward, safe="above", n=10)
