"""Verification recipes of the distributed-DP family (``formulas/kairouz2021_distributed.toml``,
``formulas/agarwal2021_skellam.toml``).

* ``distributed_rounding_mc`` (Monte Carlo) — conditional rounding's Δ₂: the claim is P(‖x̃‖₂ > Δ₂) <= β for every
  x with ‖x‖₂ <= c, i.e. Δ₂ >= the (1 − β)-quantile of ‖x̃‖₂. Unconditional randomized rounding is simulated for
  three inputs of norm <= c (every coordinate at a half-integer, which maximises the rounding variance; equal
  coordinates; a random direction); the estimate is the largest empirical quantile, its interval [the lower
  order-statistic bound at the check's level, ∞): pass iff Δ₂ is at least that.
* ``distributed_bound_vs_exact`` (exact-numeric) — an RDP bound (discrete Gaussian sum, its zCDP form, Skellam)
  against the numerically exact divergence of the aggregate noise (`dpcalc.distributed.exact`) at integer shift
  vectors allowed by (Δ₂, Δ₁) (one coordinate; spread over m coordinates), at the point's order and (zCDP) over a
  grid of orders. Interval [largest exact value, ∞): pass iff the bound is at least every exact value.
* ``distributed_scale_root`` (exact-numeric) — γ of the k-standard-deviation rule against a root of the defining
  equation 2^b·γ = 2k·√(ρn²c²/d + n(γ²/4 + σ²)) by Brent's method; tolerance 1e-9 relative.
* ``distributed_modular_mc`` (Monte Carlo) — the wrap-around bound against a simulation of the pipeline: n clients
  with the same update of norm c along the first axis (the worst alignment), a random sign flip and Hadamard
  rotation shared by all, scaling by 1/γ, conditional randomized rounding, discrete Gaussian noise (inverse-CDF
  sampler on ±(12σ + 10) grid steps), the integer sum; a wrap-around is any coordinate outside [−2^{b−1}, 2^{b−1}).
  And against the Chernoff bound the closed form relaxes, computed with the *exact* moment generating functions
  (the rotated signal over the 2^d sign patterns, each client's two-point rounding error, the discrete Gaussian's
  pmf), minimised over λ numerically: the closed form replaces each by a sub-Gaussian bound, so it must be at least
  that, and at the check point (rounding at half-integers, noise-dominated) it is within a few per cent of it.
  Interval [max(lower end of the simulated probability, the exact-MGF Chernoff bound), ∞).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import exact_result, failed, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


# --- conditional rounding -------------------------------------------------------------------------------------------

def _round(rng: np.random.Generator, x: np.ndarray, size: int) -> np.ndarray:
    """``size`` independent unbiased randomized roundings of x (rows)."""
    low = np.floor(x)
    return low + (rng.random((size, x.size)) < (x - low))


def _rounding_inputs(c: float, d: int, rng: np.random.Generator) -> list[np.ndarray]:
    t = c / math.sqrt(d)
    if t >= 0.5:
        halves = np.full(d, math.floor(t - 0.5) + 0.5)
    else:
        halves = np.zeros(d)
        halves[: min(d, int(c * c / 0.25))] = 0.5
    z = rng.standard_normal(d)
    return [halves, np.full(d, t), c * z / np.linalg.norm(z)]


@recipe("distributed_rounding_mc")
def _rounding(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    c, d, beta = value_of(values, "c"), int(value_of(values, "d")), value_of(values, "beta")
    rng = ctx.rng()
    n = ctx.samples
    worst_q, worst_lo = -math.inf, -math.inf
    for x in _rounding_inputs(c, d, rng):
        norms = np.empty(n)
        for start in range(0, n, 1 << 15):
            m = min(1 << 15, n - start)
            norms[start: start + m] = np.linalg.norm(_round(rng, x, m), axis=1)
        norms.sort()
        # order statistics: the (1 − β)-quantile is above norms[j] with probability >= level/2-ish for
        # j = ⌊n(1 − β) − z√(nβ(1 − β))⌋ (normal approximation to the binomial count)
        j_hat = min(n - 1, math.ceil(n * (1.0 - beta)) - 1)
        j_lo = max(0, math.floor(n * (1.0 - beta) - ctx.z * math.sqrt(n * beta * (1.0 - beta))) - 1)
        worst_q, worst_lo = max(worst_q, float(norms[j_hat])), max(worst_lo, float(norms[j_lo]))
    return CheckResult("monte-carlo", cf, worst_q, worst_lo, math.inf,
                       f"largest empirical (1 − β)-quantile of ‖x̃‖₂ over {n} unconditional roundings of three inputs "
                       "of norm <= c (half-integer coordinates, equal coordinates, a random direction); pass iff "
                       "Δ₂ >= its lower confidence end", {"n": n})


# --- bounds against exact divergences -------------------------------------------------------------------------------

def _shifts(l2: float, l1: float, d: int) -> list[list[int]]:
    """Integer shift vectors with ‖Δ‖₂ <= l2 and ‖Δ‖₁ <= l1 in d coordinates: all the mass on one coordinate, or
    spread evenly over m coordinates."""
    out = []
    for m in sorted({1, 2, 4, min(d, 16), d}):
        if m > d:
            continue
        a = math.floor(min(l2 / math.sqrt(m), l1 / m))
        if a >= 1:
            out.append([a] * m)
    return out


def _exact_values(formula: Formula, values: Mapping[str, Any], alphas: list[float]) -> list[float]:
    from dpcalc.distributed.exact import rdp_exact

    l2 = value_of(values, "l2")
    if formula.id == "distributed.skellam_rdp":
        shifts = _shifts(l2, value_of(values, "l1"), 1)
        return [rdp_exact(a, s, "skellam", variance=value_of(values, "variance")) for a in alphas for s in shifts]
    d = int(value_of(values, "d"))
    l1 = value_of(values, "l1", l2 * math.sqrt(d))
    sig, n = value_of(values, "sigma"), int(value_of(values, "n"))
    return [rdp_exact(a, s, "ddg", sigma=sig, n=n) for a in alphas for s in _shifts(l2, l1, d)]


@recipe("distributed_bound_vs_exact")
def _bound_vs_exact(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    if formula.id == "distributed.ddg_zcdp_rho":  # ρ-zCDP: D_α <= ρα at every order
        alphas = [1.5, 2.0, 4.0, 8.0, 16.0, 32.0]
        ratios = [e / a for a in alphas for e in _exact_values(formula, values, [a])]
        worst = max(ratios) if ratios else math.nan
        what = "max over α in {1.5 … 32} and shifts of D_α/α"
    else:
        exact = _exact_values(formula, values, [value_of(values, "alpha")])
        worst = max(exact) if exact else math.nan
        what = "max over integer shifts allowed by (Δ₂, Δ₁) of the exact D_α"
    if not math.isfinite(worst):
        return failed(cf, "exact-numeric", "no integer shift fits the sensitivities at this point")
    return CheckResult("exact-numeric", cf, worst, worst, math.inf,
                       f"{what} of the aggregate noise (log-space exact pmf, ~1e-12 relative) = {worst:.6g}; pass iff "
                       "the bound is at least it", {"exact": worst})


# --- the k-standard-deviation scale ---------------------------------------------------------------------------------

@recipe("distributed_scale_root")
def _scale_root(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from scipy.optimize import brentq

    cf = float(formula.call(values, published=ctx.published))
    bits, c, sig = value_of(values, "bits"), value_of(values, "c"), value_of(values, "sigma")
    n, d = value_of(values, "n"), value_of(values, "d")
    k, rho = value_of(values, "k", 4.0), value_of(values, "rho", 1.0)

    def gap(g: float) -> float:
        return 2.0 ** bits * g - 2.0 * k * math.sqrt(rho * n * n * c * c / d + n * (g * g / 4.0 + sig * sig))

    hi = 1.0
    while gap(hi) <= 0.0:
        hi *= 2.0
        if hi > 1e300:
            return failed(cf, "exact-numeric", "no root of the defining equation")
    root = brentq(gap, 0.0, hi, xtol=1e-300, rtol=1e-15, maxiter=500)
    return exact_result(cf, root, 1e-9, "γ by Brent's method on 2^b·γ = 2k·√(ρn²c²/d + n(γ²/4 + σ²))")


# --- modular clipping by simulation ---------------------------------------------------------------------------------

def _hadamard(d: int) -> np.ndarray:
    h = np.ones((1, 1))
    while h.shape[0] < d:
        h = np.block([[h, h], [h, -h]])
    return h / math.sqrt(d)


def _dg_table(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    r = math.ceil(12.0 * sigma + 10.0)
    x = np.arange(-r, r + 1)
    w = np.exp(-(x * x) / (2.0 * sigma * sigma))
    return x, np.cumsum(w / w.sum())


def _wrap_terms(rng: np.random.Generator, size: int, *, bits: int, c: float, gamma: float, sigma: float, n: int,
                d: int, beta: float) -> np.ndarray:
    from dpcalc.distributed import rounded_l2_bound

    h = _hadamard(d)
    x = np.zeros(d)
    x[0] = c  # every client's update, norm c, aligned
    signs = rng.choice([-1.0, 1.0], size=(size, d))
    rotated = (signs * x) @ h.T / gamma  # (size, d), shared by the n clients
    bound = float(rounded_l2_bound(c / gamma, d, beta))
    total = np.zeros((size, d))
    for _ in range(n):
        low = np.floor(rotated)
        frac = rotated - low
        rounded = low + (rng.random((size, d)) < frac)
        if beta > 0.0:  # conditional rounding: redraw the rows that fail the norm test
            bad = np.linalg.norm(rounded, axis=1) > bound
            while np.any(bad):
                rounded[bad] = low[bad] + (rng.random((int(bad.sum()), d)) < frac[bad])
                bad[bad] = np.linalg.norm(rounded[bad], axis=1) > bound
        total += rounded
    support, cdf = _dg_table(sigma / gamma)
    noise = support[np.searchsorted(cdf, rng.random((size, d, n)), side="right").clip(0, support.size - 1)]
    total += noise.sum(axis=2)
    half = 2.0 ** (bits - 1)
    return np.any((total >= half) | (total < -half), axis=1).astype(np.float64)


def _chernoff_exact(*, bits: int, c: float, gamma: float, sigma: float, n: int, d: int) -> float:
    """d·2·min_λ E[e^{λY}]e^{−λt} for one coordinate Y of the integer sum (β = 0), with exact MGFs: the signal over
    the 2^d equally likely sign patterns, the n rounding errors (two-point laws), the n discrete Gaussians."""
    from scipy.optimize import minimize_scalar
    from scipy.special import logsumexp

    h = _hadamard(d)
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=d)))
    x = np.zeros(d)
    x[0] = c
    rotated = (signs * x) @ h.T / gamma  # (2^d, d): every pattern's rotated vector
    support, cdf = _dg_table(sigma / gamma)
    log_p = np.log(np.diff(np.concatenate([[0.0], cdf])))
    t = 2.0 ** (bits - 1)
    worst = -math.inf
    for j in range(d):
        v = rotated[:, j]
        frac = v - np.floor(v)

        def log_mgf(lam: float, v: np.ndarray = v, frac: np.ndarray = frac) -> float:
            rounding = np.log(frac * np.exp(lam * (1.0 - frac)) + (1.0 - frac) * np.exp(-lam * frac))
            per_pattern = n * lam * v + n * rounding  # the n clients share the rotated value v
            return float(logsumexp(per_pattern) - math.log(v.size) + n * logsumexp(log_p + lam * support))

        for sign in (1.0, -1.0):
            res = minimize_scalar(lambda lam, s=sign: log_mgf(s * lam) - lam * t, bounds=(0.0, 50.0),
                                  method="bounded", options={"xatol": 1e-10})
            worst = max(worst, float(res.fun))
    return min(1.0, 2.0 * d * math.exp(worst))


@recipe("distributed_modular_mc")
def _modular(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    d = int(value_of(values, "d"))
    if d & (d - 1):
        return failed(cf, "monte-carlo", "the simulation's Hadamard rotation needs d a power of 2")
    fn = partial(_wrap_terms, bits=int(value_of(values, "bits")), c=value_of(values, "c"),
                 gamma=value_of(values, "gamma"), sigma=value_of(values, "sigma"), n=int(value_of(values, "n")), d=d,
                 beta=value_of(values, "beta"))
    e = est.mean_estimate(fn, ctx.samples, ctx.seed_sequence(), level=ctx.level, workers=ctx.workers,
                          chunk=1 << 14)
    chernoff = math.nan
    if value_of(values, "beta") == 0.0 and d <= 8:
        chernoff = _chernoff_exact(bits=int(value_of(values, "bits")), c=value_of(values, "c"),
                                   gamma=value_of(values, "gamma"), sigma=value_of(values, "sigma"),
                                   n=int(value_of(values, "n")), d=d)
    low = max(e.ci_low, chernoff) if math.isfinite(chernoff) else e.ci_low
    return CheckResult("monte-carlo", cf, e.value, low, math.inf,
                       f"simulated wrap-around probability of the pipeline = {e.value:.4g} (aligned updates, shared "
                       "sign flip + Hadamard rotation, rounding, discrete Gaussian noise); Chernoff bound with the "
                       f"exact MGFs = {chernoff:.4g}; pass iff the bound is at least both",
                       {"se": e.se, "n": e.n, "chernoff_exact": chernoff})
