"""Domain sweeps of the one Gaussian privacy profile kernel (μ and σ forms) and its inverses: every public numerical
function swept over its documented domain against an independent high-precision form.

Reference: :mod:`dpcalc.checks.oracles` (mpmath, 40 digits, precision raised where the difference cancels; inverses
are bracketed mpmath roots of the oracle). Every inverse is also asserted on the safe side. Default budget small;
``DPCALC_SWEEP_POINTS=10000`` for the deep run. Tolerances are the catalog entries' ``rtol``.
"""

from __future__ import annotations

import math

import mpmath

from dpcalc import catalog
from dpcalc.accounting import gaussian_mechanism as gm
from dpcalc.accounting import gdp
from dpcalc.checks import oracles
from tests.support.backward_terms import backward
from tests.support.sweep import Axis, sweep

TINY = 1e-322  # a few subnormal ulps: |log δ| below 2.2e-308 is subnormal and cannot carry 1e-12 relative


def _rtol(fid: str) -> float:
    """The entry's documented tolerance: the one source the sweep asserts (no fallback)."""
    return catalog.get(fid).rtol


def _ld_target(d: float) -> float:
    return math.log(d)


def _guess(fn: object, *args: float) -> float | None:
    """The implementation's value as the oracle's starting point (the oracle certifies its own bracket)."""
    try:
        return float(fn(*args))  # type: ignore[operator]
    except ValueError:
        return None


def _mu_exact(p: dict[str, float]) -> mpmath.mpf:
    return mpmath.mpf(p["sensitivity"]) / mpmath.mpf(p["sigma"])


def test_log_delta_from_eps_sweep() -> None:
    sweep("gdp.log_delta_from_eps", [Axis("eps", 1e-8, 1e8), Axis("mu", 1e-6, 1e6)],
          fn=lambda p: gdp.log_delta(p["mu"], p["eps"]),
          ref=lambda p: oracles.gaussian_log_delta(p["eps"], p["mu"]), rtol=_rtol("gdp.log_delta_from_eps"),
          atol=TINY, n=60)


def test_delta_from_eps_sweep() -> None:
    sweep("gdp.delta_from_eps", [Axis("eps", 1e-8, 1e3), Axis("mu", 1e-6, 1e2)],
          fn=lambda p: gdp.delta(p["mu"], p["eps"]),
          ref=lambda p: oracles.gaussian_delta(p["eps"], p["mu"]), rtol=_rtol("gdp.delta_from_eps"),
          where=lambda p: float(oracles.gaussian_log_delta(p["eps"], p["mu"], 17)) > math.log(1e-300), n=60)


def test_log_delta_analytic_sweep() -> None:
    """σ form over the same kernel; reference at the exact μ = Δ/σ; includes the precision audit's reproducers."""
    sweep("gaussian.log_delta_analytic",
          [Axis("eps", 1e-8, 1e7), Axis("sigma", 1e-5, 1e7), Axis("sensitivity", 1e-3, 1e3)],
          fn=lambda p: gm.log_delta(p["sigma"], p["eps"], p["sensitivity"]),
          ref=lambda p: oracles.gaussian_log_delta(p["eps"], _mu_exact(p)), rtol=_rtol("gaussian.log_delta_analytic"),
          atol=TINY, n=40, where=lambda p: p["eps"] * p["sigma"] / p["sensitivity"] < 1e150,
          extra=[{"eps": 1.1515915667351505e-06, "sigma": 1.607610121455617, "sensitivity": 58.34485480162464},
                 {"eps": 4187.058518325242, "sigma": 2176012.4472335754, "sensitivity": 0.03847865200116114}])


def test_eps_from_mu_sweep() -> None:
    """ε(μ, δ) within ROOT_RTOL of the 40-digit root and never below it (δ(returned ε) <= δ); incl. μ = 1e9."""
    sweep("gdp.eps_from_mu", [Axis("mu", 1e-6, 1e9), Axis("delta", 1e-300, 0.999)],
          fn=lambda p: gdp.eps_from_mu(p["mu"], p["delta"]),
          ref=lambda p: oracles.gaussian_eps(p["mu"], _ld_target(p["delta"]),
                                             guess=_guess(gdp.eps_from_mu, p["mu"], p["delta"])),
          rtol=_rtol("gdp.eps_from_mu"),
          atol=lambda p, want: 1e-300 + backward(p["mu"], p["delta"], want), safe="above", n=30,
          extra=[{"mu": 1e9, "delta": 0.5}, {"mu": 1 / 15694.095795907235, "delta": 2.5419336235417325e-05}])


def test_mu_from_eps_sweep() -> None:
    sweep("gdp.mu_from_eps", [Axis("eps", 1e-6, 1e4), Axis("delta", 1e-300, 0.999)],
          fn=lambda p: gdp.mu_from_eps(p["eps"], p["delta"]),
          ref=lambda p: oracles.gaussian_mu(p["eps"], _ld_target(p["delta"]),
                                            guess=_guess(gdp.mu_from_eps, p["eps"], p["delta"])),
          rtol=_rtol("gdp.mu_from_eps"),
          safe="below", n=30)


def test_eps_analytic_sweep() -> None:
    sweep("gaussian.eps_analytic", [Axis("sigma", 1e-4, 1e6), Axis("delta", 1e-300, 0.999)],
          fn=lambda p: gm.eps_analytic(p["sigma"], p["delta"]),
          ref=lambda p: oracles.gaussian_eps(1 / mpmath.mpf(p["sigma"]), _ld_target(p["delta"]),
                                             guess=_guess(gm.eps_analytic, p["sigma"], p["delta"])),
          rtol=_rtol("gaussian.eps_analytic"), safe="above", n=30,
          atol=lambda p, want: 1e-300 + backward(1 / mpmath.mpf(p["sigma"]), p["delta"], want),
          extra=[{"sigma": 334.18896602103837, "delta": 0.0011799504621040234},  # 10,000-point sweep: were unsafe
                 {"sigma": 15694.095795907235, "delta": 2.5419336235417325e-05},
                 {"sigma": 203.97343824102006, "delta": 0.0019128311005713018}])


def test_sigma_analytic_sweep() -> None:
    """σ(ε, δ) >= the exact minimal σ (safe side), within tolerance; incl. the precision audit's reproducer."""
    def ref(p: dict[str, float]) -> mpmath.mpf:
        g = _guess(gdp.mu_from_eps, p["eps"], p["delta"])
        return mpmath.mpf(p["sensitivity"]) / oracles.gaussian_mu(p["eps"], _ld_target(p["delta"]), guess=g)

    sweep("gaussian.sigma_analytic",
          [Axis("eps", 1e-6, 1e3), Axis("delta", 1e-300, 0.999), Axis("sensitivity", 1e-3, 1e3)],
          fn=lambda p: gm.sigma_analytic(p["eps"], p["delta"], p["sensitivity"]), ref=ref,
          rtol=_rtol("gaussian.sigma_analytic"), safe="above", n=30,
          extra=[{"eps": 1.4891106714762124e-06, "delta": 4.689333918039513e-245,
                  "sensitivity": 0.0022508010238197055}])
