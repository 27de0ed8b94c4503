"""Domain sweeps of the RDP of the Poisson-subsampled Gaussian and the zCDP conversion, each over its
documented domain against an independent high-precision form.

References: :mod:`dpcalc.checks.oracles` — the exact 40-digit binomial sum (integer α), 40-digit mpmath quadrature
of the defining integral (fractional α), the 40-digit CKS optimum for zCDP. Budget: ``DPCALC_SWEEP_POINTS``.
"""

from __future__ import annotations

import math

import pytest

from dpcalc import catalog
from dpcalc.accounting import rdp, zcdp
from dpcalc.checks import oracles
from tests.support.backward_terms import zcdp_eps
from tests.support.sweep import Axis, sweep

REPRO = [{"alpha": 97.25, "q": 0.9, "sigma": 20.0}, {"alpha": 99.5, "q": 0.5, "sigma": 6.7}]


@pytest.mark.slow
def test_subsampled_gaussian_fractional_sweep() -> None:
    """Fractional α in (1, 256), q in [1e-6, 1), σ in [0.05, 100] (the quadrature range; below σ ≈ 0.03 the
    documented chord upper bound applies): the entry's documented rtol, incl. the precision audit's reproducers above
    α = 60. The reference is the quadrature oracle at 20 digits (agrees with the 40-digit one to 7e-22 relative on
    36 points incl. the corners; 5x cheaper, so 10,000 points take about an hour on one loaded core)."""
    sweep("rdp.subsampled_gaussian[fractional]",
          [Axis("alpha", 1.001, 256.0), Axis("q", 1e-6, 0.999), Axis("sigma", 0.05, 100.0)],
          fn=lambda p: rdp.sampled_gaussian(p["q"], p["sigma"], p["alpha"]),
          ref=lambda p: oracles.subsampled_rdp(p["alpha"], p["q"], p["sigma"], dps=20),
          rtol=catalog.get("rdp.subsampled_gaussian").rtol, n=8,
          where=lambda p: not float(p["alpha"]).is_integer() and p["alpha"] / p["sigma"] ** 2 < 400, extra=REPRO)


def test_subsampled_gaussian_integer_sweep() -> None:
    sweep("rdp.subsampled_gaussian[integer]",
          [Axis("alpha", 2, 1024, "logint"), Axis("q", 1e-8, 1.0), Axis("sigma", 0.02, 1e3)],
          fn=lambda p: rdp.sampled_gaussian(p["q"], p["sigma"], p["alpha"]),
          ref=lambda p: oracles.subsampled_rdp(p["alpha"], p["q"], p["sigma"]),
          rtol=catalog.get("rdp.subsampled_gaussian").rtol, n=20,
          where=lambda p: p["alpha"] * p["alpha"] / p["sigma"] ** 2 < 1000)


def test_zcdp_eps_from_rho_sweep() -> None:
    """ε(ρ, δ) at ρ in [1e-30, 1e4], δ in [1e-300, 0.5]: 1e-12 relative plus the documented absolute term, never below
    the exact optimum; incl. the precision audit's reproducer (1e-30, 1e-300) -> 5.107e-14 and the deep sweep's unsafe
    point (ρ = 3.19e-5, δ = 4.85e-3, where ε ≪ ρx)."""
    sweep("zcdp.eps_from_rho", [Axis("rho", 1e-30, 1e4), Axis("delta", 1e-300, 0.5)],
          fn=lambda p: zcdp.eps_from_rho(p["rho"], p["delta"]),
          ref=lambda p: oracles.zcdp_eps(p["rho"], math.log(p["delta"])), rtol=catalog.get("zcdp.eps_from_rho").rtol,
          atol=lambda p, want: zcdp_eps(p["rho"], p["delta"], want), safe="above", n=40,
          extra=[{"rho": 1e-30, "delta": 1e-300}, {"rho": 1e-12, "delta": 1e-5},
                 {"rho": 3.1926971659644114e-05, "delta": 0.004846611525818637}])


def test_zcdp_optimal_order_sweep() -> None:
    """α*(ρ, δ) outside the Bretagnolle–Huber region (where it is 1 by definition) against the 40-digit root, at
    the catalog entry's rtol (1e-13), incl. the precision audit's reproducer (1e-30, 1e-300) -> 2.5554e16."""
    sweep("zcdp.optimal_order", [Axis("rho", 1e-30, 1e4), Axis("delta", 1e-300, 0.5)],
          fn=lambda p: zcdp.optimal_order(p["rho"], p["delta"]),
          ref=lambda p: oracles.zcdp_order(p["rho"], math.log(p["delta"])), rtol=catalog.get("zcdp.optimal_order").rtol,
          n=40,
          where=lambda p: math.exp(2 * math.log(p["delta"])) + math.expm1(-p["rho"]) < 0,
          extra=[{"rho": 1e-30, "delta": 1e-300}])
