"""Verification recipes of the audit family (``formulas/jagielski2020_audit.toml``,
``formulas/steinke2023_audit.toml``).

Exact-numeric: the Clopper–Pearson ends re-derived by bisection on SciPy's exact binomial CDF (not the beta quantile
the implementation uses), and the ε / μ lower bounds rebuilt from them. Monte Carlo: the one-run game at its
extremal mechanism (every guess right independently with probability e^ε/(1 + e^ε): randomized response), whose
probability of ≥ v right guesses is the δ = 0 p-value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc._roots import bisect
from dpcalc.checks._util import exact_result, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.checks.risk import proportion

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["cp_by_bisection"]


def cp_by_bisection(k: int, n: int, tail: float, upper: bool) -> float:
    """The Clopper–Pearson end with one-sided failure ``tail``: upper p̄ with P(Bin(n, p̄) ≤ k) = tail, lower p̲ with
    P(Bin(n, p̲) ≥ k) = tail, by bisection on SciPy's binomial CDF (to 1e-15)."""
    from scipy.stats import binom

    if upper:
        if k >= n:
            return 1.0
        lo, hi = bisect(lambda p: float(binom.cdf(k, n, p)) <= tail, 0.0, 1.0, atol=1e-15)
        return 0.5 * (lo + hi)
    if k <= 0:
        return 0.0
    lo, hi = bisect(lambda p: float(binom.sf(k - 1, n, p)) >= tail, 0.0, 1.0, atol=1e-15)
    return 0.5 * (lo + hi)


@recipe("audit_cp_coverage_mc")
def _cp(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    k, n, c = int(value_of(values, "k")), int(value_of(values, "n")), value_of(values, "confidence")
    # coverage: at p = p̄ the binomial puts mass 1 − c on {≤ k}; simulated, with its interval
    rng = ctx.rng()
    draws = rng.binomial(n, cf, ctx.samples)
    est = proportion(int(np.sum(draws <= k)), ctx.samples, ctx.level)
    return mc_result(1.0 - c, est, f"P(Binomial({n}, p̄) ≤ {k}) simulated at the returned p̄ (target 1 − c)",
                     p_bisection=cp_by_bisection(k, n, 1.0 - c, True))


@recipe("audit_counts_exact")
def _counts(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from scipy.special import ndtri

    cf = float(formula.call(values, published=ctx.published))
    tp, n_in = int(value_of(values, "tp")), int(value_of(values, "positives"))
    fp, n_out = int(value_of(values, "fp")), int(value_of(values, "negatives"))
    c, d = value_of(values, "confidence"), value_of(values, "delta", 0.0)
    half = (1.0 - c) / 2.0
    lo, hi = cp_by_bisection(tp, n_in, half, False), cp_by_bisection(fp, n_out, half, True)
    if formula.output.name == "mu":
        est = max(0.0, float(ndtri(lo) - ndtri(hi)))
    else:
        terms = [math.log((lo - d) / hi) if lo > d else -math.inf,
                 math.log((1.0 - hi - d) / (1.0 - lo)) if 1.0 - hi > d else -math.inf]
        est = max(0.0, *terms)
    return exact_result(cf, est, 1e-9, "Clopper–Pearson ends by bisection on the exact binomial CDF, then the bound",
                        atol=1e-12)


@recipe("audit_one_run_game_mc")
def _one_run(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    vals = {**values, "delta": 0.0}
    cf = float(formula.call(vals, published=ctx.published))
    r, v, eps = int(value_of(values, "guesses")), int(value_of(values, "correct")), value_of(values, "eps")
    rng = ctx.rng()
    q = 1.0 / (1.0 + math.exp(-eps))
    # randomized response on each canary's bit: the guess from its output is right with probability q
    right = rng.binomial(r, q, ctx.samples)
    est = proportion(int(np.sum(right >= v)), ctx.samples, ctx.level)
    return mc_result(cf, est, f"P[≥ {v} of {r} guesses right] in simulated one-run games against ε = {eps:g} "
                              "randomized response (δ = 0)")
