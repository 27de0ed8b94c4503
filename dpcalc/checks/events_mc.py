"""Monte Carlo recipes of the event accountant's privacy-loss entries: δ(ε) = E_P[(1 − e^{ε−L})₊] estimated from
privacy-loss samples drawn with the check's seeded NumPy generator (`CheckContext.rng`), with a two-sided
``ctx.level`` interval (normal approximation; the terms lie in [0, 1]).

An asymmetric pair has two orientations (remove: X ~ P, L = log(dP/dQ)(X); add: X ~ Q, L = −log(dP/dQ)(X)) and the
accountant reports the worse: each orientation is estimated with level 1 − (1 − level)/2 (Bonferroni) and the
interval of max(δ_remove, δ_add) is [max of the lower ends, max of the upper ends]. The implementations are the PLD
accountant's upper end δ_upper, at most 2e-3 relative above the exact value (its bracket), far inside the interval
(0.3–2 % relative at the check points with 400 000 samples); a few per cent off is outside it
(tests/verify/test_events_recipes.py).

* ``events_poisson_laplace_loss_mc`` — X from qLap(1, b) + (1 − q)Lap(0, b), L = log(1 − q + qe^{(|X| − |X − 1|)/b});
  and X from Lap(0, b) with −L.
* ``events_without_replacement_loss_mc`` — X from γN(2, σ²) + (1 − γ)N(0, σ²) (the record in the batch w.p. γ = b/n),
  L = log(1 − γ + γe^{(2X − 2)/σ²}); and X from N(0, σ²) with −L.
* ``events_with_replacement_loss_mc`` — the changed record drawn K ~ Binomial(b, 1/n) times, X from N(2K, σ²),
  L = (2KX − 2K²)/σ² (symmetric).
* ``events_mixture_loss_mc`` — a norm c drawn from {c₁ (p₁), c₂}, X from N(c, σ²), L = log Σᵢ pᵢe^{(cᵢX − cᵢ²/2)/σ²};
  and X from N(0, σ²) with −L.
* ``events_tree_loss_mc`` — the tree itself: the completed dyadic nodes [j2^h + 1, (j + 1)2^h] ⊆ [1, T] containing
  each leaf are counted (the worst leaf's count d, found by enumeration, not by the closed form), the d node outputs
  of the worst leaf drawn from N(2, z²) (its clipped contribution moved by 2 under replace-one), L the sum of the
  per-node losses (2xᵢ − 2)/z².
* ``events_truncated_loss_mc`` — the label "at least B of the other n − 1 records sampled" drawn with probability
  r = P(Bin(n − 1, q) >= B) (summed here with exact integer binomials), then X from the Poisson pair
  (qN(1, z²) + (1 − q)N(0, z²)) or the fixed-size pair at γ̄ = (B/n)P(Bin(n, q) >= B + 1)/r, and its loss; the add
  orientation draws X from N(0, z²) with the negated loss of its label.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim.stats import Estimate, from_moments

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["tree_nodes"]  # the recipes register themselves (checks.registry)

_CHUNK = 1 << 17
Draw = Callable[[np.random.Generator, int], np.ndarray]


def _profile(ctx: CheckContext, draw: Draw, eps: float, stream: int, level: float) -> Estimate:
    """E[(1 − e^{ε−L})₊] over ``ctx.samples`` privacy-loss samples ``draw(rng, n)``."""
    rng = ctx.rng(stream)
    total = total_sq = 0.0
    left = ctx.samples
    while left:
        n = min(left, _CHUNK)
        with np.errstate(invalid="ignore"):
            terms = -np.expm1(np.minimum(eps - draw(rng, n), 0.0))
        total += float(terms.sum())
        total_sq += float((terms * terms).sum())
        left -= n
    return from_moments(total, total_sq, ctx.samples, level)


def _worse(ctx: CheckContext, eps: float, remove: Draw, add: Draw | None) -> tuple[Estimate, str]:
    """The estimate of δ(ε) of a pair (one orientation when ``add`` is None), and which orientation is the worse."""
    if add is None:
        return _profile(ctx, remove, eps, 0, ctx.level), "symmetric"
    level = 1.0 - (1.0 - ctx.level) / 2.0
    rm, ad = _profile(ctx, remove, eps, 0, level), _profile(ctx, add, eps, 1, level)
    top = rm if rm.value >= ad.value else ad
    est = Estimate(top.value, top.se, max(rm.ci_low, ad.ci_low), max(rm.ci_high, ad.ci_high), ctx.samples)
    return est, f"remove {rm.value:.6g}, add {ad.value:.6g}"


def _log_mix(gamma: float, t: np.ndarray) -> np.ndarray:
    """log(1 − γ + γe^t) without overflow."""
    head = math.log1p(-gamma) if gamma < 1.0 else -math.inf
    return np.asarray(np.logaddexp(head, math.log(gamma) + t))


def _mixture_pair(noise: Draw, shift: float, w: float,
                  log_ratio: Callable[[np.ndarray], np.ndarray]) -> tuple[Draw, Draw]:
    """Loss draws of the pair (w·μ(· − shift) + (1 − w)μ, μ) and of its swap, μ the law of ``noise`` and
    ``log_ratio`` = log(μ(x − shift)/μ(x)): the loss is log(1 − w + w·e^{log_ratio(x)})."""

    def remove(rng: np.random.Generator, n: int) -> np.ndarray:
        return _log_mix(w, log_ratio(noise(rng, n) + shift * (rng.random(n) < w)))

    def add(rng: np.random.Generator, n: int) -> np.ndarray:
        return -_log_mix(w, log_ratio(noise(rng, n)))

    return remove, add


def _check(formula: Formula, values: Mapping[str, Any], ctx: CheckContext, remove: Draw, add: Draw | None,
           what: str) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    est, orient = _worse(ctx, value_of(values, "eps"), remove, add)
    return mc_result(closed, est, f"δ(ε) = E_P[(1 − e^{{ε−L}})₊], {what} ({orient})")


@recipe("events_poisson_laplace_loss_mc")
def _poisson_laplace(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    b, q = value_of(values, "noise_multiplier"), value_of(values, "q")

    remove, add = _mixture_pair(lambda rng, n: rng.laplace(0.0, b, n), 1.0, q,
                                lambda x: (np.abs(x) - np.abs(x - 1.0)) / b)
    return _check(formula, values, ctx, remove, add, "Laplace outputs of a Poisson sample")


@recipe("events_without_replacement_loss_mc")
def _without(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    s = value_of(values, "sigma")
    g = value_of(values, "sample_size") / value_of(values, "dataset_size")

    remove, add = _mixture_pair(lambda rng, n: rng.normal(0.0, s, n), 2.0, g, lambda x: (2.0 * x - 2.0) / (s * s))
    return _check(formula, values, ctx, remove, add, "Gaussian outputs of a fixed-size batch")


@recipe("events_with_replacement_loss_mc")
def _with(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    s = value_of(values, "sigma")
    b, n_rec = int(value_of(values, "sample_size")), int(value_of(values, "dataset_size"))

    def remove(rng: np.random.Generator, n: int) -> np.ndarray:
        k = rng.binomial(b, 1.0 / n_rec, n).astype(np.float64)
        x = rng.normal(2.0 * k, s)
        return np.asarray((2.0 * k * x - 2.0 * k * k) / (s * s))

    return _check(formula, values, ctx, remove, None, "Gaussian outputs with the draw count K revealed")


@recipe("events_mixture_loss_mc")
def _mixture(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    s, p1 = value_of(values, "sigma"), value_of(values, "p1")
    c = (value_of(values, "c1"), value_of(values, "c2"))
    log_p = (math.log(p1), math.log1p(-p1))

    def loss(x: np.ndarray) -> np.ndarray:
        parts = [lp + (ci * x - ci * ci / 2.0) / (s * s) for lp, ci in zip(log_p, c, strict=True)]
        return np.asarray(np.logaddexp(*parts))

    def remove(rng: np.random.Generator, n: int) -> np.ndarray:
        norm = np.where(rng.random(n) < p1, c[0], c[1])
        return loss(rng.normal(norm, s))

    def add(rng: np.random.Generator, n: int) -> np.ndarray:
        return -loss(rng.normal(0.0, s, n))

    return _check(formula, values, ctx, remove, add, "outputs of the mixture of Gaussians")


def tree_nodes(steps: int) -> int:
    """The most completed dyadic nodes [j2^h + 1, (j + 1)2^h] ⊆ [1, T] any one leaf lies in (by enumeration)."""
    counts = np.zeros(steps, dtype=np.int64)
    width = 1
    while width <= steps:
        complete = (steps // width) * width  # leaves 1..complete lie in a completed node of this width
        counts[:complete] += 1
        width *= 2
    return int(counts.max())


@recipe("events_tree_loss_mc")
def _tree(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    z, steps = value_of(values, "noise_multiplier"), int(value_of(values, "steps"))
    d = tree_nodes(steps)

    def remove(rng: np.random.Generator, n: int) -> np.ndarray:
        x = rng.normal(2.0, z, (n, d))
        return np.asarray(((2.0 * x - 2.0) / (z * z)).sum(axis=1))

    return _check(formula, values, ctx, remove, None, f"the {d} tree nodes of the worst of {steps} leaves")


def _binomial_tail(n: int, q: float, k: int) -> float:
    """P(Bin(n, q) >= k) as an exact-integer-coefficient sum (math.comb), independent of SciPy."""
    return math.fsum(math.comb(n, m) * q**m * (1.0 - q) ** (n - m) for m in range(max(k, 0), n + 1))


@recipe("events_truncated_loss_mc")
def _truncated(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    z, q = value_of(values, "noise_multiplier"), value_of(values, "q")
    n, cap = int(value_of(values, "dataset_size")), int(value_of(values, "max_batch"))
    r = _binomial_tail(n - 1, q, cap) if cap < n else 0.0
    g = min(1.0, cap / n * _binomial_tail(n, q, cap + 1) / r) if r > 0 else 1.0

    def loss(x: np.ndarray, cut: np.ndarray) -> np.ndarray:
        return np.where(cut, _log_mix(g, (2.0 * x - 2.0) / (z * z)), _log_mix(q, (2.0 * x - 1.0) / (2.0 * z * z)))

    def remove(rng: np.random.Generator, size: int) -> np.ndarray:
        cut = rng.random(size) < r
        moved = rng.random(size) < np.where(cut, g, q)
        return loss(rng.normal(0.0, z, size) + np.where(cut, 2.0, 1.0) * moved, cut)

    def add(rng: np.random.Generator, size: int) -> np.ndarray:
        cut = rng.random(size) < r
        return -loss(rng.normal(0.0, z, size), cut)

    return _check(formula, values, ctx, remove, add, f"truncated Poisson sample (r = {r:.4g}, γ̄ = {g:.4g})")
