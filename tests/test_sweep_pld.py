"""Domain sweep of the PLD accountant against an exact reference (issue 13 "Tests", issue 15 harness).

At q = 1 a schedule of T Gaussian steps with noise multiplier σ is one Gaussian with μ = √T/σ, so the exact ε is
``gdp.eps_from_mu(√T/σ, δ)`` (≈1e-14 relative). Every point asserts: the certified bracket contains it
(ε_lower ≤ ε ≤ ε_upper), the bracket width is ≤ the requested tolerance (``pld.RTOL``·ε_upper), hence
|ε_upper − ε| ≤ RTOL/(1 − RTOL)·ε. Points are log-uniform in (σ, T, δ) with μ in [0.05, 40] (ε up to ≈ 800) and
δ at most half of δ(0; μ) (below, ε = 0 exactly, and a relative width is undefined). Default budget small;
``DPCALC_SWEEP_POINTS=…`` for a deep run.
"""

from __future__ import annotations

import math

from sweep import Axis, Point, sweep

from dpcalc.accounting import gdp, pld


def _mu(p: Point) -> float:
    return math.sqrt(p["T"]) / p["sigma"]


def _inside(p: Point) -> bool:
    mu = _mu(p)
    return 0.05 <= mu <= 40.0 and p["delta"] <= 0.5 * math.erf(mu / (2.0 * math.sqrt(2.0)))


def test_pld_full_batch_sweep_contains_exact_gaussian() -> None:
    brackets: dict[tuple[float, float, float], pld.EpsBracket] = {}

    def fn(p: Point) -> float:
        br = pld.epsilon([(p["sigma"], 1.0, int(p["T"]))], p["delta"])
        brackets[(p["sigma"], p["T"], p["delta"])] = br
        return br.eps_upper

    def exact(p: Point) -> float:
        return float(gdp.eps_from_mu(_mu(p), p["delta"]))

    def certified(p: Point, got: float) -> bool:
        br = brackets[(p["sigma"], p["T"], p["delta"])]
        e = exact(p)
        slack = 1e-12 * max(1.0, e)
        return (br.eps_lower <= e + slack and e <= br.eps_upper + slack
                and br.width <= pld.RTOL * br.eps_upper * (1 + 1e-12))

    res = sweep("pld.epsilon (q = 1)", [Axis("sigma", 0.2, 50.0), Axis("T", 1, 1e6, "logint"),
                                        Axis("delta", 1e-30, 0.1)],
                fn=fn, ref=exact, rtol=pld.RTOL / (1.0 - pld.RTOL), safe=certified, where=_inside, n=12)
    assert res.n >= 6
