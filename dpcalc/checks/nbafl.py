"""Verification recipes of the NbAFL family (Wei et al. 2020, ``formulas/003_nbafl.toml``).

* ``nbafl_sensitivity_search`` (exact-numeric): the largest ‖s(D) − s(D')‖ over neighbouring data sets of clipped
  per-sample models (each sample of every client replaced by its worst neighbour), s = Σ_i p_i·mean_j(x_ij).
* ``nbafl_classic_valid`` (exact-numeric): σ per release must be at least the exact minimal σ of the Gaussian
  mechanism at the same per-release (ε_r, δ) and sensitivity (Balle & Wang 2018): pass iff valid.
* ``nbafl_aggregate_noise_mc`` (Monte Carlo): σ_D from simulated aggregate noise — K (or N) clients each add
  N(0, σ_U²), equal-weight mean (K of N sampled per draw); σ_D = √(max(σ_A² − Var̂, 0)).
* ``nbafl_b_root`` / ``nbafl_gamma_threshold`` (exact-numeric): b from the root ε₀ of the one-sided amplification
  −ln(1 − q + q e^{−ε₀}) = ε/T; γ = ε/T₀ with T₀ the root in T of T/b(T) = L√K (where σ_D turns positive).
* ``nbafl_bound_recursion_mc`` (Monte Carlo): Theorems 2/3 rebuilt as the per-round recursion
  a_t = P·a_{t−1} + E[λ1β|ξ| + (ρ/2)ξ²] (Thm 3: a_t = Q·a_{t−1} + E[α1β|ξ| + α0ξ²]) from a_0 = Θ, with the
  expectation simulated over ξ ~ N(0, s²), s = cCT/(mε√N) (Thm 3: s = cC/(mKg)) — the noise std the bound's κ
  constants encode (half the aggregate std σ_U/√N at L = T: the factor 2 of Δs = 2C/m the comment points at).
* ``nbafl_t_star_minimise`` (exact-numeric): bisection on f′(T) of eq. (6) with κ0 = 0.
* ``nbafl_constants_from_bound`` (exact-numeric): P, Q, λ1, κ1, κ0 read back from the bounds of eqs. (6)/(8) (whose
  recursion ``nbafl_bound_recursion_mc`` simulates): both are affine in Θ, so P (Q) = f(Θ = 1) − f(Θ = 0) at T = 1;
  f(Θ = 0, T = 1) = (κ1/ε + κ0/ε²)(1 − P) at two ε near κ0/κ1 gives κ1 and κ0; λ1 = κ1·m(1 − P)/(βcC√(2/(Nπ))).
* ``nbafl_broadcast_noise_mc`` (Monte Carlo): the std of the broadcast model's noise, the equal-weight mean of K
  client draws N(0, σ_U²) plus the server's N(0, σ_D²), from simulated draws.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.accounting.gaussian_mechanism import classic_c
from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.errors import ErratumWarning
from dpcalc.sim.parallel import run_moments
from dpcalc.sim.stats import Estimate, from_moments

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def _c(values: Mapping[str, Any]) -> float:
    return value_of(values, "c_scale", 1.0) * float(classic_c(value_of(values, "delta")))


@recipe("nbafl_sensitivity_search")
def _sensitivity(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.sim.scenarios import clip

    closed = float(formula.call(values, published=ctx.published))
    C, m = value_of(values, "C"), int(value_of(values, "m"))
    n = int(value_of(values, "N", 1.0))
    rng = ctx.rng()
    d = 5
    sizes = [m] + [m + int(k) for k in rng.integers(0, 3, size=min(n, 4) - 1)]  # the smallest client has m
    best = 0.0
    for size in sizes:  # a few representative clients; the weight of each is 1/N
        rows = min(size, 64)  # the worst replacement of sample j moves the mean by (‖x_j‖ + C)/|D_i|
        x = clip(3.0 * C * rng.standard_normal((rows, d)), C)  # scale 3C: clipping is active
        for j in range(rows):
            y = -C * x[j] / np.linalg.norm(x[j])  # the antipode at norm C
            best = max(best, float(np.linalg.norm((x[j] - y) / size)) / n)
    return exact_result(closed, best, 1e-12, "largest ‖s(D) − s(D')‖ over one-sample replacements of clipped data "
                                             f"(N = {n} equal weights, smallest client m = {m})")


def _release(formula: Formula, values: Mapping[str, Any]) -> tuple[float, float, str]:
    """(per-release ε, sensitivity, label) of a σ entry."""
    eps, C, m = value_of(values, "eps"), value_of(values, "C"), value_of(values, "m")
    if formula.output.symbol == r"\sigma_U":
        return eps / value_of(values, "L", 1.0), 2.0 * C / m, "σ_U at (ε/L, δ), Δ = 2C/m"
    return eps / value_of(values, "T"), 2.0 * C / (m * value_of(values, "N")), "σ_A at (ε/T, δ), Δ = 2C/(mN)"


@recipe("nbafl_classic_valid")
def _classic_valid(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.accounting import gaussian_mechanism

    closed = float(formula.call(values, published=ctx.published))
    eps_r, sens, what = _release(formula, values)
    exact = float(gaussian_mechanism.sigma_analytic(eps_r, value_of(values, "delta"), sens))
    return CheckResult("exact-numeric", closed, exact, exact, math.inf,
                       f"{what}: valid iff >= the exact analytic Gaussian σ (Balle & Wang 2018)",
                       {"eps_release": eps_r, "sensitivity": sens})


def _aggregate_terms(rng: np.random.Generator, size: int, sigma_u: float, k: int, n: int) -> np.ndarray:
    """Squared equal-weight mean of the noise of K clients (sampled out of N per draw; the subset does not
    change the noise law, it is drawn to mirror the protocol)."""
    if k < n:
        rng.random((size, n)).argsort(axis=1)  # the K-of-N subset of each draw (discarded: noise is i.i.d.)
    agg = sigma_u * rng.standard_normal((size, k)).mean(axis=1)
    return np.asarray(agg * agg)


@recipe("nbafl_aggregate_noise_mc")
def _aggregate_noise(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    eps, C, m, T, L, N = (value_of(values, k) for k in ("eps", "C", "m", "T", "L", "N"))
    K = value_of(values, "K", N)
    c = _c(values)
    sigma_u = 2.0 * c * C * L / (m * eps)
    eps0 = eps / T if K == N else -math.log1p((N / K) * math.expm1(-eps / T))
    sigma_a = c * 2.0 * C / (m * K) / eps0
    n = max(ctx.samples // 4, 10_000)
    fn = functools.partial(_aggregate_terms, sigma_u=sigma_u, k=int(K), n=int(N))
    mom = run_moments(fn, n, ctx.seed_sequence(), workers=ctx.workers, chunk=1 << 14)
    var = from_moments(float(mom.total[0]), float(mom.cross[0, 0]), mom.n, ctx.level)

    def sd(x: float) -> float:
        return math.sqrt(max(sigma_a * sigma_a - x, 0.0))

    value = sd(var.value)
    est = Estimate(value, var.se / (2.0 * value) if value > 0 else 0.0, sd(var.ci_high), sd(var.ci_low), var.n)
    return mc_result(closed, est, f"σ_D = √(σ_A² − Var̂(mean of {int(K)} client noises N(0, σ_U²))), "
                                  f"σ_A = cΔs_D/ε₀ with ε₀ = {eps0:.6g}")


def _bisect(f: Any, lo: float, hi: float, iters: int = 400) -> float:
    """The sign change of ``f`` in [lo, hi] to 1e-15 relative (`dpcalc._roots.bisect`)."""
    from dpcalc._roots import bisect

    positive = f(lo) > 0
    a, b = bisect(lambda x: (f(x) > 0) != positive, lo, hi, rtol=1e-15, max_iter=iters)
    return 0.5 * (a + b)


def _amplified(eps0: float, q: float) -> float:
    """One-sided amplification of Wei et al. 2020, eq. (7): −ln(1 − q + q e^{−ε₀}), computed directly."""
    return -math.log(1.0 - q + q * math.exp(-eps0))


@recipe("nbafl_b_root")
def _b_root(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    eps, T, N, K = (value_of(values, k) for k in ("eps", "T", "N", "K"))
    q, target = K / N, eps / T
    if q == 1.0:
        return exact_result(closed, 1.0, 1e-12, "K = N: no amplification, b = 1")
    hi = 1.0
    while _amplified(hi, q) < target:
        hi *= 2.0
        if hi > 1e6:
            return failed(closed, "exact-numeric", "ε/T above the amplification's limit −ln(1 − q)")
    eps0 = _bisect(lambda e0: _amplified(e0, q) - target, 0.0, hi)
    return exact_result(closed, eps0 * T / eps, 1e-10, "b = ε₀T/ε with ε₀ the root of −ln(1 − q + q e^{−ε₀}) = ε/T "
                                                       "(bisection)")


@recipe("nbafl_gamma_threshold")
def _gamma(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    eps, L, N, K = (value_of(values, k) for k in ("eps", "L", "N", "K"))
    q = K / N
    lk = L * math.sqrt(K)

    def gap(t: float) -> float:  # T/b(T) − L√K, b from the amplification inverted numerically (as in nbafl_b_root)
        target = eps / t
        if q == 1.0:
            return t - lk
        hi = 1.0
        while _amplified(hi, q) < target:
            hi *= 2.0
        eps0 = _bisect(lambda e0: _amplified(e0, q) - target, 0.0, hi, iters=200)
        return eps / eps0 - lk

    lo = eps / (-math.log1p(-q)) * (1.0 + 1e-12) if q < 1.0 else 1e-12  # domain: K > N(1 − e^{−ε/T})
    hi = max(2.0 * lo, 1.0)
    while gap(hi) < 0:
        hi *= 2.0
    t0 = _bisect(gap, lo, hi, iters=200)
    return exact_result(closed, eps / t0, 1e-8, "γ = ε/T₀ with T₀ the root of T/b(T) = L√K (σ_D > 0 iff T > T₀)")


def _abs_sq_terms(rng: np.random.Generator, size: int, s: float) -> np.ndarray:
    xi = s * rng.standard_normal(size)
    return np.stack([np.abs(xi), xi * xi])


@recipe("nbafl_bound_recursion_mc")
def _bound(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    eps, T, pl, beta, rho, b, mu, theta, C, m, N = (value_of(values, k) for k in (
        "eps", "T", "pl", "lipschitz", "smoothness", "dissimilarity", "prox_mu", "theta", "C", "m", "N"))
    c = _c(values)
    if "K" in values:  # Theorem 3
        K = value_of(values, "K")
        sk = math.sqrt(K)
        factor = 1.0 + 2.0 * pl / mu ** 2 * (rho * b * b / 2 + rho * b + rho * b * b / K + 2 * rho * b * b / sk
                                             + mu * b / sk - mu)
        g = -math.log(1.0 - N / K + (N / K) * math.exp(-eps / T))
        s = c * C / (m * K * g)
        w1, w2 = 1.0 + 2 * rho * b / mu + 2 * rho * b * sk / (mu * N), 2 * rho * K / N + rho
        label = "Thm 3: a_t = Q a_(t-1) + E[α1β|ξ| + α0ξ²]"
    else:  # Theorem 2
        factor = 1.0 + 2.0 * pl * (-1.0 / mu + rho * b / mu ** 2 + rho * b * b / (2 * mu ** 2))
        s = c * C * T / (m * eps * math.sqrt(N))
        w1 = ((1.0 / mu) if ctx.published else 1.0) + rho * b / mu
        w2 = rho / 2.0
        label = "Thm 2: a_t = P a_(t-1) + E[λ1β|ξ| + (ρ/2)ξ²]"
    w1 *= beta
    mom = run_moments(functools.partial(_abs_sq_terms, s=s), ctx.samples, ctx.seed_sequence(), workers=ctx.workers)
    mean, cov = mom.mean, mom.cov_of_mean
    term = float(w1 * mean[0] + w2 * mean[1])
    term_se = math.sqrt(max(w1 * w1 * cov[0, 0] + 2 * w1 * w2 * cov[0, 1] + w2 * w2 * cov[1, 1], 0.0))
    a, weight = theta, 0.0  # iterate the recursion: a_T = factor^T Θ + weight·term
    for _ in range(int(T)):
        a = factor * a
        weight = factor * weight + 1.0
    value = a + weight * term
    se = weight * term_se
    est = Estimate(value, se, value - ctx.z * se, value + ctx.z * se, mom.n)
    return mc_result(closed, est, f"{label}, T = {int(T)} steps from a_0 = Θ; ξ ~ N(0, s²), s = {s:.6g} "
                                  "(simulated expectation)")


@recipe("nbafl_t_star_minimise")
def _t_star(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    eps, theta, p, k1 = (value_of(values, k) for k in ("eps", "theta", "p", "kappa1"))
    lam = -math.log(p)

    def fprime(t: float) -> float:  # d/dT of P^TΘ + (κ1T/ε)(1 − P^T)
        q = math.exp(-lam * t)
        return -lam * theta * q + (k1 / eps) * (1.0 - q + lam * t * q)

    hi = 1.0
    while fprime(hi) < 0:
        hi *= 2.0
    root = _bisect(fprime, 0.0, hi)
    return exact_result(closed, root, 1e-9, "bisection on f′(T) of eq. (6) with κ0 = 0")


def _theorem2_point(values: Mapping[str, Any], published: bool) -> dict[str, Any]:
    """A Theorem-2 point with the entry's (l, ρ, B, μ, β, C, m, N, δ, c_scale); missing ones get fixed values, l
    a value that puts P in (0, 1) when the entry has none (λ1 does not depend on l)."""
    rho, b, mu = (value_of(values, k) for k in ("smoothness", "dissimilarity", "prox_mu"))
    lam2 = -1.0 / mu + rho * b / mu ** 2 + rho * b * b / (2.0 * mu ** 2)
    pl = value_of(values, "pl", 0.25 / abs(lam2) if lam2 < 0 else 1.0)
    base = {"pl": pl, "lipschitz": 1.0, "smoothness": rho, "dissimilarity": b, "prox_mu": mu, "C": 1.0, "m": 100,
            "N": 10, "delta": 1e-5, "c_scale": 1.0, "T": 1, "theta": 0.0, "eps": 1.0, "as_published": published}
    return {**base, **{k: values[k] for k in base if k in values and k not in ("T", "theta", "eps")}}


@recipe("nbafl_constants_from_bound")
def _constants_from_bound(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.nbafl import convergence_bound, convergence_bound_sampled

    cf = float(formula.call(values, published=ctx.published))
    name = formula.id.split(".", 1)[1]
    if name == "contraction_q":  # Theorem 3 at K = N (eq. 7's domain holds for every ε)
        k = value_of(values, "K")
        point = {**_theorem2_point(values, False), "K": k, "N": k}
        del point["as_published"]
        got = float(convergence_bound_sampled(**{**point, "theta": 1.0})) - float(convergence_bound_sampled(**point))
        return exact_result(cf, got, 1e-9, "Q = f(Θ = 1) − f(Θ = 0) of eq. (8) at T = 1, K = N")
    point = _theorem2_point(values, ctx.published)

    def bound(**kw: Any) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ErratumWarning)
            return float(convergence_bound(**{**point, **kw}))

    p = bound(theta=1.0) - bound()
    if name == "contraction_p":
        return exact_result(cf, p, 1e-9, "P = f(Θ = 1) − f(Θ = 0) of eq. (6) at T = 1")

    def solve(e1: float) -> tuple[float, float]:  # g(ε) = (κ1/ε + κ0/ε²)(1 − P) at ε1 and 2ε1
        a = bound(eps=e1) / (1.0 - p)
        b = bound(eps=2.0 * e1) / (1.0 - p)
        k0 = 2.0 * e1 * e1 * (a - 2.0 * b)
        return e1 * a - k0 / e1, k0

    k1, k0 = solve(1.0)
    if k0 > 0.0 and k1 > 0.0:
        k1, k0 = solve(k0 / k1)  # ε where both terms are of one size: no cancellation in either
    if name == "kappa0":
        return exact_result(cf, k0, 1e-8, "κ0 from f(Θ = 0, T = 1) of eq. (6) at two ε")
    if name == "kappa1":
        return exact_result(cf, k1, 1e-8, "κ1 from f(Θ = 0, T = 1) of eq. (6) at two ε")
    c = point["c_scale"] * float(classic_c(point["delta"]))
    lam1 = k1 * point["m"] * (1.0 - p) / (point["lipschitz"] * c * point["C"] * math.sqrt(2.0 / (point["N"] * math.pi)))
    return exact_result(cf, lam1, 1e-8, "λ1 = κ1·m(1 − P)/(βcC√(2/(Nπ))), κ1 from f(Θ = 0, T = 1) of eq. (6)")


def _broadcast_terms(rng: np.random.Generator, size: int, sigma_u: float, k: int, sigma_d: float) -> np.ndarray:
    total = sigma_u * rng.standard_normal((size, k)).mean(axis=1) + sigma_d * rng.standard_normal(size)
    return np.asarray(total * total)


@recipe("nbafl_broadcast_noise_mc")
def _broadcast_noise(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    su, k, sd = value_of(values, "sigma_u"), int(value_of(values, "K")), value_of(values, "sigma_d", 0.0)
    fn = functools.partial(_broadcast_terms, sigma_u=su, k=k, sigma_d=sd)
    mom = run_moments(fn, max(ctx.samples // 4, 10_000), ctx.seed_sequence(), workers=ctx.workers, chunk=1 << 14)
    var = from_moments(float(mom.total[0]), float(mom.cross[0, 0]), mom.n, ctx.level)
    value = math.sqrt(var.value)
    est = Estimate(value, var.se / (2.0 * value), math.sqrt(max(var.ci_low, 0.0)), math.sqrt(var.ci_high), var.n)
    return mc_result(closed, est, f"std of the mean of {k} client draws N(0, σ_U²) plus N(0, σ_D²) (simulated)")
