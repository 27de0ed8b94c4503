"""Verification recipes for the RDP and zCDP entries (mironov2019, balle2020, bun2016).

* ``rdp_gaussian_renyi`` / ``zcdp_gaussian_renyi`` (Monte Carlo): D_α(N(Δ,σ²) ‖ N(0,σ²)) by sampling the privacy
  loss (`dpcalc.sim.estimators.renyi_divergence`); zCDP compares ρ with D_2/2.
* ``rdp_subsampled_quadrature`` (exact-numeric): log A_α by 40-digit mpmath quadrature of the defining integral
  E_{z~N(0,σ²)}[(1 − q + q e^{(2z−1)/(2σ²)})^α] (written as 1 + E[(1+qX)^α − 1 − αqX]), tolerance 1e-10 relative.
* ``rdp_conversion_valid`` / ``zcdp_conversion_valid`` (exact-numeric): a conversion is an upper bound, so for the
  Gaussian whose RDP at α is exactly the given r (μ² = 2r/α; for ρ-zCDP μ² = 2ρ) its ε must be at least the
  Gaussian's exact ε (analytic root); the interval is [ε_exact, ∞).
* ``zcdp_optimal_order`` (exact-numeric): the order of the tight zCDP conversion against the 40-digit bracketed
  mpmath root of its stationarity condition (`dpcalc.checks.oracles.zcdp_order`), tolerance 1e-13 relative.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks import oracles
from dpcalc.checks._util import exact_result, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim.stats import Estimate

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def _renyi(mu: float, sigma: float, alpha: float, ctx: CheckContext) -> Estimate:
    from dpcalc.sim.estimators import GaussianPair, renyi_divergence

    # L ~ N(m²/2, m²) under P (m = μ/σ): shift by the log of the exact mean scale to keep terms O(1)
    m2 = (mu / sigma) ** 2
    shift = (alpha - 1.0) * alpha * m2 / 2.0
    return renyi_divergence(GaussianPair(mu=mu, sigma=sigma), alpha, ctx.samples, ctx.seed_sequence(), shift=shift,
                            level=ctx.level, workers=ctx.workers)


@recipe("rdp_gaussian_renyi")
def _rdp_gaussian(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    alpha, sigma, sens = value_of(values, "alpha"), value_of(values, "sigma"), value_of(values, "sensitivity", 1.0)
    closed = float(formula.call(values, published=ctx.published))
    est = _renyi(sens, sigma, alpha, ctx)
    return mc_result(closed, est, f"D_α (α = {alpha:g}) of N(Δ,σ²) vs N(0,σ²) by sampling the privacy loss")


@recipe("zcdp_gaussian_renyi")
def _zcdp_gaussian(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    sigma, sens = value_of(values, "sigma"), value_of(values, "sensitivity", 1.0)
    closed = float(formula.call(values, published=ctx.published))
    e = _renyi(sens, sigma, 2.0, ctx)
    est = Estimate(e.value / 2.0, e.se / 2.0, e.ci_low / 2.0, e.ci_high / 2.0, e.n)
    return mc_result(closed, est, "ρ vs D_2(N(Δ,σ²) ‖ N(0,σ²))/2 by sampling the privacy loss")


@recipe("rdp_subsampled_quadrature")
def _subsampled(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    alpha, q, sigma = value_of(values, "alpha"), value_of(values, "q"), value_of(values, "sigma")
    closed = float(formula.call(values, published=ctx.published))
    est = float(oracles.subsampled_rdp(alpha, q, sigma))
    return exact_result(closed, est, 1e-10, "RDP = log A_α/(α−1), A_α by 40-digit mpmath quadrature")


def _lower_bound_result(closed: float, exact: float, detail: str) -> CheckResult:
    return CheckResult("exact-numeric", closed, exact, exact * (1 - 1e-12), math.inf, detail)


@recipe("rdp_conversion_valid")
def _conversion(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.accounting import gaussian_mechanism as gaussian

    r, alpha, delta = value_of(values, "rdp"), value_of(values, "alpha"), value_of(values, "delta")
    closed = float(formula.call(values, published=ctx.published))
    mu = math.sqrt(2.0 * r / alpha)
    exact = float(gaussian.eps_analytic(1.0 / mu, delta))
    return _lower_bound_result(closed, exact, f"conversion ε >= exact ε of the Gaussian with RDP {r:g} at α = "
                                              f"{alpha:g} (μ = {mu:.6g}); valid iff closed >= exact")


@recipe("zcdp_conversion_valid")
def _zcdp_conversion(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.accounting import gaussian_mechanism as gaussian

    rho, delta = value_of(values, "rho"), value_of(values, "delta")
    closed = float(formula.call(values, published=ctx.published))
    mu = math.sqrt(2.0 * rho)
    exact = float(gaussian.eps_analytic(1.0 / mu, delta))
    return _lower_bound_result(closed, exact, f"zCDP ε >= exact ε of the Gaussian with ρ = {rho:g} (μ = {mu:.6g})")


@recipe("zcdp_optimal_order")
def _zcdp_order(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    rho, delta = value_of(values, "rho"), value_of(values, "delta")
    closed = float(formula.call(values, published=ctx.published))
    if rho == 0.0:
        return CheckResult("exact-numeric", closed, math.inf, math.inf, math.inf, "ρ = 0: α* = inf")
    if delta * delta + math.expm1(-rho) >= 0.0:
        return exact_result(closed, 1.0, 0.0, "Bretagnolle–Huber region (ε = 0): α* = 1")
    est = float(oracles.zcdp_order(rho, math.log(delta)))
    return exact_result(closed, est, 1e-13, "α* by a 40-digit bracketed mpmath root of ρ(α − 1)² + log α + log δ = 0")
