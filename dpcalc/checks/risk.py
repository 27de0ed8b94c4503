"""Verification recipes of the operational-risk family (``formulas/kulynych2024_risk.toml``): simulated membership
attacks. Each samples the attack's statistic under "out" and "in" with a seeded RNG, applies the Neyman–Pearson
(likelihood-ratio) test at the closed form's operating point and compares the empirical TPR, advantage or Bayes
success with the closed form (a binomial proportion, normal interval at the check's level).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim.stats import Estimate, normal_quantile

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["proportion", "rr_pair"]


def proportion(hits: int, n: int, level: float) -> Estimate:
    """A proportion with its normal interval at two-sided ``level`` (the standard error floored at 1/n)."""
    p = hits / n
    se = max(math.sqrt(p * (1.0 - p) / n), 1.0 / n)
    z = normal_quantile(0.5 + level / 2.0)
    return Estimate(p, se, p - z * se, p + z * se, n)


def rr_pair(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The four-outcome pair (out, in) of Kairouz, Oh & Viswanath 2015 whose curve is f_{ε,δ}: outcomes ordered by
    likelihood ratio in/out (∞, e^ε, e^{−ε}, 0)."""
    a = (1.0 - delta) * math.exp(eps) / (1.0 + math.exp(eps))
    b = (1.0 - delta) / (1.0 + math.exp(eps))
    return np.array([0.0, b, a, delta]), np.array([delta, a, b, 0.0])


@recipe("risk_gaussian_attack_mc")
def _gaussian_attack(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mu = value_of(values, "mu")
    rng = ctx.rng()
    n = ctx.samples
    if formula.output.name == "success":  # Bayes-optimal guess with prior π: in iff x > μ/2 + ln((1 − π)/π)/μ
        prior = value_of(values, "prior")
        member = rng.random(n) < prior
        x = rng.normal(np.where(member, mu, 0.0), 1.0)
        guess = x > mu / 2.0 + math.log((1.0 - prior) / prior) / mu
        return mc_result(cf, proportion(int(np.sum(guess == member)), n, ctx.level),
                         f"Bayes success: {n} members drawn with prior {prior:g}, N(μ b, 1), likelihood-ratio guess")
    fpr = value_of(values, "fpr")
    x = rng.normal(mu, 1.0, n)  # "in": the Neyman–Pearson test x > Φ⁻¹(1 − α) has FPR exactly α under N(0, 1)
    hits = int(np.sum(x > -normal_quantile(fpr)))
    return mc_result(cf, proportion(hits, n, ctx.level), f"TPR of the test x > Φ⁻¹(1 − {fpr:g}) on N({mu:g}, 1)")


@recipe("risk_adp_attack_mc")
def _adp_attack(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    eps, delta = value_of(values, "eps"), value_of(values, "delta")
    p_out, p_in = rr_pair(eps, delta)
    rng = ctx.rng()
    n = ctx.samples
    out_o = rng.choice(4, size=n, p=p_out)
    in_o = rng.choice(4, size=n, p=p_in)
    if formula.output.name == "advantage":  # the test "likelihood ratio > 1" (outcomes 0 and 1): TPR − FPR
        tpr, fpr_hat = float(np.mean(in_o <= 1)), float(np.mean(out_o <= 1))
        se = max(math.sqrt((tpr * (1.0 - tpr) + fpr_hat * (1.0 - fpr_hat)) / n), 1.0 / n)
        z = normal_quantile(0.5 + ctx.level / 2.0)
        est = Estimate(tpr - fpr_hat, se, tpr - fpr_hat - z * se, tpr - fpr_hat + z * se, n)
        return mc_result(cf, est, f"advantage of the test 'ratio > 1' on the (ε, δ) pair, {n} draws per side")
    fpr = value_of(values, "fpr")
    # Neyman–Pearson at FPR α: reject "out" on the outcomes of highest ratio, the boundary outcome randomised
    order = np.argsort(-(p_in / np.maximum(p_out, 1e-300)), kind="stable")
    cum = np.cumsum(p_out[order])
    k = int(np.searchsorted(cum, fpr, side="left"))
    k = min(k, 3)
    full = order[:k]
    frac = (fpr - (cum[k - 1] if k else 0.0)) / p_out[order[k]] if p_out[order[k]] > 0 else 1.0
    u = rng.random(n)
    hit = np.isin(in_o, full) | ((in_o == order[k]) & (u < min(frac, 1.0)))
    return mc_result(cf, proportion(int(hit.sum()), n, ctx.level),
                     f"TPR of the randomised Neyman–Pearson test at FPR {fpr:g} on the (ε, δ) pair")


@recipe("risk_dpsgd_attack_mc")
def _dpsgd_attack(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    z, steps, fpr = value_of(values, "noise_multiplier"), int(value_of(values, "steps")), value_of(values, "fpr")
    rng = ctx.rng()
    n = ctx.samples
    # T full-batch steps: the sum of the T outputs / (z√T) is N(√T/z, 1) under "in", N(0, 1) under "out"
    total = np.zeros(n)
    for _ in range(steps):
        total += rng.normal(1.0, z, n)
    stat = total / (z * math.sqrt(steps))
    hits = int(np.sum(stat > -normal_quantile(fpr)))
    return mc_result(cf, proportion(hits, n, ctx.level),
                     f"TPR of the likelihood-ratio test at FPR {fpr:g} on {steps} simulated Gaussian steps (z = {z:g})")
