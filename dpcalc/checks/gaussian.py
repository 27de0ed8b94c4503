"""Verification recipes for the Gaussian mechanism entries (dwork2014, balle2018).

* ``analytic_gaussian_hockey_stick`` (Monte Carlo): δ(ε) = E_P[(1 − e^{ε−L})₊] of P = N(Δ, σ²), Q = N(0, σ²) by
  `dpcalc.sim.estimators.hockey_stick_delta` (importance sampling at L ≈ ε); for the ``log_delta`` entry the
  estimate and its interval are mapped through log (monotone).
* ``gaussian_classic_valid`` (exact-numeric): the classic σ = c(δ)Δ/ε must be at least the exact minimal σ of the
  analytic Gaussian (root finding); the interval is [σ_exact, ∞) — pass iff the classic value is a valid σ. For the
  constant c(δ) the check is made at ε = 0.5 (c_min = 0.5·σ_exact(0.5, δ)); for the classic ε = c(δ)Δ/σ it must be
  at least the exact ε of the Gaussian at that σ.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks._util import mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


@recipe("analytic_gaussian_hockey_stick")
def _hockey(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.sim.estimators import GaussianPair, hockey_stick_delta
    from dpcalc.sim.stats import Estimate

    eps, sigma, sens = value_of(values, "eps"), value_of(values, "sigma"), value_of(values, "sensitivity", 1.0)
    closed = float(formula.call(values, published=ctx.published))
    est = hockey_stick_delta(GaussianPair(mu=sens, sigma=sigma), eps, ctx.samples, ctx.seed_sequence(),
                             level=ctx.level, workers=ctx.workers)
    if formula.output.name == "log_delta":
        lo = math.log(est.ci_low) if est.ci_low > 0 else -math.inf
        est = Estimate(math.log(est.value), est.se / est.value, lo, math.log(est.ci_high), est.n)
        what = "log δ"
    else:
        what = "δ"
    return mc_result(closed, est, f"{what}(ε = {eps:g}) of N(0, σ² = {sigma:g}²), Δ = {sens:g}: hockey-stick "
                                  "divergence by importance-sampled privacy loss")


@recipe("gaussian_classic_valid")
def _classic(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.accounting import gaussian_mechanism as gaussian

    closed = float(formula.call(values, published=ctx.published))
    delta = value_of(values, "delta")
    if formula.output.name == "c":
        eps, sens, what = 0.5, 1.0, "c(δ) vs 0.5·σ_exact(ε = 0.5, δ)"
        exact = eps * float(gaussian.sigma_analytic(eps, delta))
    elif formula.output.name == "eps":
        sigma, sens, what = value_of(values, "sigma"), value_of(values, "sensitivity", 1.0), "classic ε vs exact ε"
        exact = float(gaussian.eps_analytic(sigma, delta, sens))
        return CheckResult("exact-numeric", closed, exact, exact, math.inf,
                           f"{what} at σ = {sigma:g} (analytic Gaussian, Balle & Wang 2018): valid iff closed >= exact",
                           {"sigma": sigma, "sensitivity": sens})
    else:
        eps, sens, what = value_of(values, "eps"), value_of(values, "sensitivity", 1.0), "classic σ vs exact minimal σ"
        exact = float(gaussian.sigma_analytic(eps, delta, sens))
    return CheckResult("exact-numeric", closed, exact, exact, math.inf,
                       f"{what} (analytic Gaussian root, Balle & Wang 2018): valid iff closed >= exact",
                       {"eps": eps, "sensitivity": sens})
