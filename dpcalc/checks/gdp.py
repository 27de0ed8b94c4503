"""Verification recipes of the μ-GDP family (``formulas/dong2022_gdp.toml``; also used by entries of Li, Xiao & Chen
2024).

Monte Carlo: δ(ε) of the Gaussian pair N(μ, 1) vs N(0, 1) by the hockey-stick divergence of the privacy-loss RV
(dpcalc.sim, importance sampling); μ from the mean privacy loss E_P[L] = μ²/2 (Gaussian mechanism, composition);
the trade-off function by a simulated Neyman–Pearson test. Exact-numeric: mpmath quadrature at 50 digits of
δ(ε) = ∫ (p − e^ε q)₊ and of the χ² divergence e^{1/σ²} − 1 that defines the CLT μ.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est
from dpcalc.sim.roots import bisect_log
from dpcalc.sim.stats import Estimate, normal_quantile

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


@recipe("gdp_delta_mc")
def _delta_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mu, eps = value_of(values, "mu"), value_of(values, "eps", 0.0)
    e = est.hockey_stick_delta(est.GaussianPair(mu, 1.0), eps, ctx.samples, ctx.seed_sequence(), level=ctx.level,
                               workers=ctx.workers)
    return mc_result(cf, e, f"δ(ε = {eps:g}): hockey-stick divergence E_P[(1 − e^(ε−L))+] of N({mu:g},1) vs N(0,1), "
                            "privacy-loss RV sampled with importance sampling")


@recipe("gdp_log_delta_quadrature")
def _log_delta_quadrature(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath

    cf = float(formula.call(values, published=ctx.published))
    mu, eps = value_of(values, "mu"), value_of(values, "eps")
    with mpmath.workdps(50):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)
        a = m / 2 - e / m
        # x = x0 + y, x0 = ε/μ + μ/2: p − e^ε q = φ(x − μ)(1 − e^{−μy}) and φ(x0 − μ + y) = φ(a)·e^{ay − y²/2}
        def g(y: Any) -> Any:
            return mpmath.exp(a * y - y * y / 2) * -mpmath.expm1(-m * y)

        s = 1 / (abs(a) + 1)
        pts = [mpmath.mpf(0), s, 4 * s, 16 * s] + ([a, a + 4] if a > 0 else []) + [mpmath.inf]
        integral = mpmath.quad(g, [*sorted(set(pts[:-1])), mpmath.inf])
        if not integral > 0:
            return failed(cf, "exact-numeric", "quadrature gave a non-positive δ")
        log_d = float(-a * a / 2 - mpmath.log(2 * mpmath.pi) / 2 + mpmath.log(integral))
    return exact_result(cf, log_d, 1e-10, "log δ(ε): mpmath quadrature (50 digits) of ∫_{x0}^∞ (φ(x−μ) − e^ε φ(x)) dx "
                                          "(x0 = ε/μ + μ/2) in the factored, cancellation-free form")


def _np_terms(rng: np.random.Generator, size: int, mu: float, z: float) -> np.ndarray:
    return (mu + rng.standard_normal(size) <= z).astype(np.float64)


@recipe("gdp_tradeoff_mc")
def _tradeoff_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mu, alpha = value_of(values, "mu"), value_of(values, "alpha")
    if not 0.0 < alpha < 1.0:
        return failed(cf, "monte-carlo", "alpha must be in (0, 1) for the simulated test")
    z = normal_quantile(1.0 - alpha)  # reject H0: N(0,1) when X > z: type-I error α
    e = est.mean_estimate(partial(_np_terms, mu=mu, z=z), ctx.samples, ctx.seed_sequence(), level=ctx.level,
                          workers=ctx.workers)
    return mc_result(cf, e, "β = G_μ(α): simulated type-II error P(X <= Φ^{-1}(1−α)) of the Neyman–Pearson test, "
                            "X ~ N(μ, 1)")


def _loss_terms(rng: np.random.Generator, size: int, mus: tuple[float, ...]) -> np.ndarray:
    m = np.asarray(mus)
    x = m + rng.standard_normal((size, m.size))
    return np.asarray((x * m - 0.5 * m * m).sum(axis=1))


def _mech_loss_terms(rng: np.random.Generator, size: int, sens: float, sigma: float) -> np.ndarray:
    x = sens + sigma * rng.standard_normal(size)  # output of f(D) + N(0, σ²) with f(D) − f(D') = Δ
    return np.asarray((sens * x - 0.5 * sens * sens) / (sigma * sigma))  # log N(x; Δ, σ²) − log N(x; 0, σ²)


def _mech_mu_estimate(sens: float, sigma: float, ctx: CheckContext) -> Estimate:
    e = est.mean_estimate(partial(_mech_loss_terms, sens=sens, sigma=sigma), ctx.samples, ctx.seed_sequence(),
                          level=ctx.level, workers=ctx.workers)
    return _mu_from_mean_loss(e)


def _mu_from_mean_loss(e: Estimate) -> Estimate:
    """μ = √(2·E_P[L]) (L ~ N(μ²/2, μ²) for a Gaussian pair), mapped through the CI monotonically."""
    v = max(e.value, 0.0)
    mu = math.sqrt(2.0 * v)
    se = e.se / mu if mu > 0 else math.inf
    return Estimate(mu, se, math.sqrt(2.0 * max(e.ci_low, 0.0)), math.sqrt(2.0 * max(e.ci_high, 0.0)), e.n)


def _mu_estimate(mus: tuple[float, ...], ctx: CheckContext) -> Estimate:
    e = est.mean_estimate(partial(_loss_terms, mus=mus), ctx.samples, ctx.seed_sequence(), level=ctx.level,
                          workers=ctx.workers)
    return _mu_from_mean_loss(e)


@recipe("gdp_gaussian_mechanism_mc")
def _gaussian_mechanism_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    delta = value_of(values, "sensitivity")
    if formula.output.name == "mu":  # μ = Δ/σ: simulate the mechanism f(D) + N(0, σ²) at sensitivity Δ
        e = _mech_mu_estimate(delta, value_of(values, "sigma"), ctx)
        return mc_result(cf, e, "μ: √(2·E_P[L]) from the simulated privacy loss of N(Δ, σ²) vs N(0, σ²)")
    # σ = Δ/μ: simulate at the closed-form σ, estimate its μ̂; the σ giving the target μ is σ·μ̂/μ (μ ∝ 1/σ)
    target = value_of(values, "mu")
    e = _mech_mu_estimate(delta, cf, ctx)
    scale = cf / target
    return mc_result(cf, Estimate(e.value * scale, e.se * scale, e.ci_low * scale, e.ci_high * scale, e.n),
                     "σ: the simulated mechanism's μ̂ (√(2·E_P[L])) rescaled, σ·μ̂/μ (μ is proportional to 1/σ)")


@recipe("gdp_compose_mc")
def _compose_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mus = tuple(float(x) for x in values["mus"])
    e = _mu_estimate(mus, ctx)
    return mc_result(cf, e, "μ of the composition: √(2·E_P[ΣL_i]) from the simulated joint privacy loss of the "
                            "product of N(μ_i, 1) vs N(0, 1)")


def chi2_gaussian_quad(sigma: float) -> float:
    """χ²(N(1, σ²) ‖ N(0, σ²)) = ∫ p²/q − 1 by mpmath quadrature (50 digits); the closed form is e^{1/σ²} − 1."""
    import mpmath

    with mpmath.workdps(50):
        s = mpmath.mpf(sigma)

        def f(x: Any) -> Any:
            return mpmath.npdf(x, 1, s) ** 2 / mpmath.npdf(x, 0, s)

        c = 2  # p²/q ∝ N(2, σ²) in shape
        return float(mpmath.quad(f, [-mpmath.inf, c - 10 * s, c, c + 10 * s, mpmath.inf]) - 1)


def chi2_gaussian_fast(sigma: float) -> float:
    """χ² = E_Q[(p/q)² − 1] = ∫ φ_σ(x)·(e^{2L(x)} − 1) dx, L = (x − ½)/σ², by SciPy adaptive quadrature (~1e-12 rel).

    For x > ½ the integrand is written exp((2 − (x−2)²)/(2σ²) − c) − φ_σ(x) (no overflow); below, φ_σ·expm1(2L).
    """
    from scipy import integrate

    s2 = sigma * sigma
    c = 0.5 * math.log(2 * math.pi * s2)

    def f(x: float) -> float:
        if x <= 0.5:
            return math.exp(-0.5 * x * x / s2 - c) * math.expm1(2 * (x - 0.5) / s2)
        return math.exp((2.0 - (x - 2.0) ** 2) / (2 * s2) - c) - math.exp(-0.5 * x * x / s2 - c)

    w = 12.0 * sigma
    pts = sorted({min(-w, 0.5 - w), 0.5, 2.0, 2.0 + w})
    edges = [-math.inf, *pts, math.inf]
    return float(sum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-13, limit=200)[0]
                     for lo, hi in itertools.pairwise(edges)))


def clt_sigma_root(mu: float, q: float, steps: float, guess: float) -> float | None:
    """The σ with q√(T·χ²(σ)) = μ, χ² by SciPy quadrature, bracketed within a factor 4 of ``guess``."""
    return bisect_log(lambda s: q * math.sqrt(steps * chi2_gaussian_fast(s)) - mu, guess / 4, guess * 4, rtol=1e-13)


def clt_mu_quad(q: float, sigma: float, steps: float) -> float:
    """CLT μ = q√(T·χ²) with χ² by quadrature (Dong et al. 2022 Thm 3.5 / Cor. 5.4: μ² = q²T·χ²)."""
    return q * math.sqrt(steps * chi2_gaussian_quad(sigma))


def clt_inputs(values: Mapping[str, Any]) -> tuple[float, float, float]:
    """(q, σ, T) of a CLT entry; PriFedSync entries give only t (K = 0.01, σ = 0.45)."""
    if "q" in values:
        return value_of(values, "q"), value_of(values, "sigma"), value_of(values, "steps")
    return 0.01, 0.45, value_of(values, "t")


@recipe("gdp_clt_vs_exact")
def _clt_vs_exact(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    if formula.output.name == "sigma":  # inverse: the σ whose quadrature CLT μ equals the target
        mu, q, steps = value_of(values, "mu"), value_of(values, "q"), value_of(values, "steps")
        root = clt_sigma_root(mu, q, steps, cf)
        if root is None:
            return failed(cf, "exact-numeric", "no σ within a factor 4 of the closed form reaches μ")
        return exact_result(cf, root, 1e-9, "σ: bisection on q√(T·χ²(σ)) = μ with χ² by SciPy quadrature")
    q, sigma, steps = clt_inputs(values)
    mu = clt_mu_quad(q, sigma, steps)
    return exact_result(cf, mu, 1e-10, "CLT μ = q√(T·χ²(N(1,σ²)‖N(0,σ²))), χ² by mpmath quadrature (50 digits); "
                                       "the CLT is an estimate of the exact composition (it can underestimate)")
