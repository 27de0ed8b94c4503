"""Monte Carlo recipes of the samplers family (`dpcalc.samplers`), each drawing from the mechanism itself with the
check's seeded generator (`CheckContext.rng`) and a two-sided ``ctx.level`` interval (normal approximation).

* ``samplers_rdp_remove_mc`` — the record placed in step 1 of t (uniform by symmetry), x₁ ~ N(1, z²), the others
  N(0, z²); S = Σ e^{(xᵢ − 1/2)/z²}; E_P[(S/t)^{α−1}] = E_Q[(P/Q)^α] estimated, the RDP its log over α − 1 (the
  interval mapped through the same increasing map).
* ``samplers_rdp_add_valid`` — xᵢ ~ N(0, z²) for all t steps; E_Q[(S/t)^{1−α}] estimated; the catalog value is an
  upper bound, so the check passes when the estimate's lower end is at most it (the interval is [lower end, ∞)).
* ``samplers_shuffle_max_mc`` — the shuffled mechanism literally: n = ⌈tb/γ⌉ records (b = 4; tb of them used, the
  rest left over), every record's gradient −1 but the changed one's (m − 1); a uniformly random permutation per
  sample (``Generator.permuted``), the first t·b cut into t batches, each batch sum + b + N(0, z²); the fraction of
  samples with max ≤ c estimates P(M ≤ c), compared in log.
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

__all__: list[str] = []  # the recipes register themselves (checks.registry)

_CHUNK = 1 << 15


def _mean(ctx: CheckContext, term: Callable[[np.random.Generator, int], np.ndarray]) -> Estimate:
    rng = ctx.rng(0)
    total = total_sq = 0.0
    left = ctx.samples
    while left:
        n = min(left, _CHUNK)
        x = term(rng, n)
        total += float(x.sum())
        total_sq += float((x * x).sum())
        left -= n
    return from_moments(total, total_sq, ctx.samples, ctx.level)


def _ratio(x: np.ndarray, z: float) -> np.ndarray:
    """S/t = mean of e^{(xᵢ − 1/2)/z²} over the steps (axis 1)."""
    return np.asarray(np.exp((x - 0.5) / (z * z)).mean(axis=1))


def _rdp_interval(est: Estimate, a: float) -> tuple[float, float, float]:
    def f(m):
        return (math.log(m) / (a - 1.0) if m > 0 else -math.inf)
    return f(est.value), f(est.ci_low), f(est.ci_high)


@recipe("samplers_rdp_remove_mc")
def rdp_remove_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    a, z, t = value_of(values, "orders"), value_of(values, "noise_multiplier"), int(value_of(values, "num_steps"))
    closed = float(formula.call(values, published=ctx.published))

    def term(rng: np.random.Generator, n: int) -> np.ndarray:
        x = rng.normal(0.0, z, size=(n, t))
        x[:, 0] += 1.0
        return np.asarray(_ratio(x, z) ** (a - 1.0))

    est = _mean(ctx, term)
    value, lo, hi = _rdp_interval(est, a)
    return CheckResult("monte-carlo", closed, value, lo, hi, f"E_P[(S/t)^(α−1)] over {ctx.samples} draws",
                       {"se": est.se, "n": est.n})


@recipe("samplers_rdp_add_valid")
def rdp_add_valid(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    a, z, t = value_of(values, "orders"), value_of(values, "noise_multiplier"), int(value_of(values, "num_steps"))
    closed = float(formula.call(values, published=ctx.published))

    def term(rng: np.random.Generator, n: int) -> np.ndarray:
        return np.asarray(_ratio(rng.normal(0.0, z, size=(n, t)), z) ** (1.0 - a))

    est = _mean(ctx, term)
    value, lo, _ = _rdp_interval(est, a)
    return CheckResult("monte-carlo", closed, value, lo, math.inf,
                       f"an upper bound: passes when the estimate's lower end {lo:.6g} is at most it",
                       {"se": est.se, "n": est.n})


@recipe("samplers_shuffle_max_mc")
def shuffle_max_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    c, m, z = value_of(values, "c"), value_of(values, "mean"), value_of(values, "noise_multiplier")
    t, used = int(value_of(values, "num_steps")), value_of(values, "used", 1.0)
    closed = float(formula.call(values, published=ctx.published))
    b = 4
    n = max(t * b, math.ceil(t * b / used))
    grads = -np.ones(n)
    grads[0] = m - 1.0

    def term(rng: np.random.Generator, k: int) -> np.ndarray:
        order = rng.permuted(np.tile(np.arange(n), (k, 1)), axis=1)[:, : t * b]
        sums = grads[order].reshape(k, t, b).sum(axis=2) + b + rng.normal(0.0, z, size=(k, t))
        return np.asarray((sums.max(axis=1) <= c).astype(np.float64))

    est = _mean(ctx, term)
    def lg(p):
        return (math.log(p) if p > 0 else -math.inf)
    return mc_result(closed, Estimate(lg(est.value), est.se / max(est.value, 1e-300), lg(max(est.ci_low, 0.0)),
                                      lg(min(est.ci_high, 1.0)), est.n),
                     f"P(max ≤ c) of the shuffled mechanism, n = {n}, b = {b}, {ctx.samples} permutations")
