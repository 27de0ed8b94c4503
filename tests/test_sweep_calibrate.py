"""Domain sweeps of the noise calibration (dpcalc.accounting.calibrate.sigma_for_eps; catalog entries
``calibrate.sigma_*`` in formulas/accountants.toml): safe side through the forward map at every point, and tightness
within the entry's documented rtol (read from the catalog: 1e-9 on σ).

* ``analytic`` and ``zcdp`` (q = 1): against the exact σ from the 40-digit oracles (σ = √T/μ(ε, δ); σ = √(T/(2ρ))
  with ρ the root of ε_zCDP(ρ, δ) = ε);
* ``rdp``: safe (ε_rdp(σ) <= target) and tight (ε_rdp(σ·(1 − rtol)) > target) — the accountant is its own
  forward map (swept against 40-digit mpmath in tests/test_sweep_accountants.py); on the accountant's default
  grid and on the catalog entry's grid 2..16.
"""

from __future__ import annotations

import math
import warnings

import mpmath
from sweep import Axis, sweep

from dpcalc import catalog
from dpcalc.accounting import accountants, calibrate
from dpcalc.checks import oracles

#: the documented tolerance of the calibration (one source: the catalog entries; the same for all three)
RTOL = catalog.get("calibrate.sigma_rdp").rtol
assert RTOL == catalog.get("calibrate.sigma_zcdp").rtol == catalog.get("calibrate.sigma_analytic").rtol


def _calibrated(p: dict[str, float], name: str, q: float = 1.0) -> float:
    return calibrate.sigma_for_eps(p["eps"], p["delta"], q, p["steps"], accountant=name)


def test_calibrate_analytic_sweep() -> None:
    def ref(p: dict[str, float]) -> mpmath.mpf:
        return mpmath.sqrt(p["steps"]) / oracles.gaussian_mu(p["eps"], math.log(p["delta"]))

    sweep("calibrate.sigma_for_eps[analytic]",
          [Axis("eps", 0.05, 50.0), Axis("delta", 1e-15, 1e-2), Axis("steps", 1, 1e4, "logint")],
          fn=lambda p: _calibrated(p, "analytic"), ref=ref, rtol=RTOL, safe="above", n=6,
          where=lambda p: 1e-3 < math.sqrt(p["steps"]) * 0.1 / p["eps"] < 1e5)


def test_calibrate_zcdp_sweep() -> None:
    def ref(p: dict[str, float]) -> mpmath.mpf:
        ld = math.log(p["delta"])
        rho = oracles.root(lambda r: oracles.zcdp_eps(r, ld) - mpmath.mpf(p["eps"]), 1e-12, 1e4)
        return mpmath.sqrt(p["steps"] / (2 * rho))

    sweep("calibrate.sigma_for_eps[zcdp]",
          [Axis("eps", 0.05, 50.0), Axis("delta", 1e-15, 1e-2), Axis("steps", 1, 1e4, "logint")],
          fn=lambda p: _calibrated(p, "zcdp"), ref=ref, rtol=RTOL, safe="above", n=6,
          where=lambda p: 1e-3 < math.sqrt(p["steps"]) * 0.1 / p["eps"] < 1e5)


def _rdp_safe_and_tight(name: str, **opts: object) -> None:
    acc = accountants.get("rdp")

    def eps_at(p: dict[str, float], s: float) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return acc.eps(s, p["q"], p["steps"], p["delta"], **opts)[0]

    def fn(p: dict[str, float]) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return calibrate.sigma_for_eps(p["eps"], p["delta"], p["q"], p["steps"], accountant="rdp", **opts)

    def safe(p: dict[str, float], s: float) -> bool:
        return eps_at(p, s) <= p["eps"] < eps_at(p, s * (1 - RTOL))

    sweep(name, [Axis("eps", 0.1, 20.0), Axis("delta", 1e-12, 1e-3), Axis("q", 1e-3, 1.0),
                 Axis("steps", 1, 1e4, "logint")],
          fn=fn, ref=fn, rtol=0.0, safe=safe, n=4, allow_reject=0.5)


def test_calibrate_rdp_safe_and_tight() -> None:
    _rdp_safe_and_tight("calibrate.sigma_for_eps[rdp]")


def test_calibrate_rdp_catalog_grid_safe_and_tight() -> None:
    """The catalog entry calibrate.sigma_rdp (orders 2..16, its call_kwargs)."""
    kw = dict(catalog.get("calibrate.sigma_rdp").call_kwargs)
    kw.pop("accountant")
    _rdp_safe_and_tight("calibrate.sigma_rdp", **kw)
