"""Deep sweep of the PLD bracket (behind ``DPCALC_SWEEP_POINTS``, e.g. 10000): the truth must lie inside
[ε_lower, ε_upper] and the bracket must be as narrow as asked; records the worst relative width and where.

References, written from the definitions (not from dpcalc's code), at 30 digits:
- q = 1: T Gaussian steps with noise multiplier σ are one Gaussian with μ = √T/σ; ε exact (Dong, Roth & Su 2022,
  Cor. 2.13, inverted by bisection).
- q < 1, one step: δ(ε) in closed form through normal CDFs (the loss is monotone in x).
- q < 1, two steps: δ₂(ε) = E_{L₁~P}[δ₁(ε − L₁)] by quadrature over the first step's output x, δ₁ the one-step
  closed form (extended to thresholds below the loss's lower edge, where δ₁(t) = 1 − e^t for the remove pair).
For q < 1 the bracket is checked through δ, which falls in ε: the truth ε* = max over the neighbour directions lies
in [ε_lower, ε_upper] iff δ_dir(ε_upper) ≤ δ for both directions and δ_dir(ε_lower) ≥ δ for one of them (each to
1e-10 relative, the references' own accuracy being far better).
"""

from __future__ import annotations

import json
import math
import os

import mpmath as mp
import numpy as np
import pytest

from dpcalc.accounting import pld
from dpcalc.errors import DomainError
from tests.support.pld_reference import delta_gdp, eps_from_delta
from tests.support.sweep import ENV_REPORT, deep, points

pytestmark = pytest.mark.skipif(not deep(), reason="deep sweep: set DPCALC_SWEEP_POINTS (e.g. 10000)")

_REL = mp.mpf("1e-10")


def _delta1(s: mp.mpf, q: mp.mpf, t: mp.mpf, direction: str) -> mp.mpf:
    """One step's δ(t) for any real t (remove: P = (1−q)N(0,σ²) + qN(1,σ²) against N(0,σ²); add: the swap)."""
    if direction == "remove":
        r = (mp.expm1(t) + q) / q  # e^z at the threshold; r <= 0: every loss (>= log(1 − q)) is above t
        if r <= 0:
            return -mp.expm1(t)
        x = mp.log(r) * s * s + mp.mpf(1) / 2
        return (1 - q) * mp.ncdf(-x / s) + q * mp.ncdf((1 - x) / s) - mp.exp(t) * mp.ncdf(-x / s)
    r = (mp.expm1(-t) + q) / q  # add: L = −log(1 − q + q e^z) <= −log(1 − q); r <= 0: no loss above t
    if r <= 0:
        return mp.mpf(0)
    x = mp.log(r) * s * s + mp.mpf(1) / 2
    return mp.ncdf(x / s) - mp.exp(t) * ((1 - q) * mp.ncdf(x / s) + q * mp.ncdf((x - 1) / s))


def _delta(sigma: float, q: float, steps: int, eps: float, direction: str) -> mp.mpf:
    s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
    if steps == 1:
        return _delta1(s, qq, e, direction)

    def loss(x: mp.mpf) -> mp.mpf:
        z = (2 * x - 1) / (2 * s * s)
        lr = mp.log(1 - qq + qq * mp.exp(z))
        return lr if direction == "remove" else -lr

    def f(x: mp.mpf) -> mp.mpf:
        dens = ((1 - qq) * mp.npdf(x, 0, s) + qq * mp.npdf(x, 1, s)) if direction == "remove" else mp.npdf(x, 0, s)
        return dens * _delta1(s, qq, e - loss(x), direction)

    cuts = {-40 * s, -10 * s, -3 * s, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), 1 + 3 * s, 1 + 10 * s, 1 + 40 * s}
    # δ₁(ε − L(x)) has a kink where ε − L(x) reaches the other step's loss edge (remove: log(1 − q), add:
    # −log(1 − q)); the quadrature is split there (without it: 9.733e-12 for the true 9.7185e-12 at σ = 0.489,
    # q = 0.0017, ε = 7.1585)
    edge = mp.log1p(-qq) if direction == "remove" else -mp.log1p(-qq)
    w = mp.exp(e - edge) if direction == "remove" else mp.exp(edge - e)  # 1 − q + q e^z at the kink
    if w > 1 - qq:
        xk = mp.log((w - (1 - qq)) / qq) * s * s + mp.mpf(1) / 2
        cuts |= {xk - 3 * s, xk - s / 4, xk, xk + s / 4, xk + 3 * s}
    return mp.quad(f, [-mp.inf, *sorted(cuts), mp.inf])


class _Record:
    def __init__(self, name: str) -> None:
        self.name, self.n, self.refused, self.worst, self.at, self.outside = name, 0, 0, 0.0, {}, []

    def add(self, p: dict[str, float], br: pld.EpsBracket) -> None:
        self.n += 1
        rel = br.width / br.eps_upper if br.eps_upper > 0 else 0.0
        if rel > self.worst or not self.at:
            self.worst, self.at = rel, {**p, "eps_lower": br.eps_lower, "eps_upper": br.eps_upper}

    def report(self, partial: bool = False) -> None:
        path = os.environ.get(ENV_REPORT, "").strip()
        if path:
            row = {"function": self.name, "points": self.n, "refused": self.refused, "worst_rel_width": self.worst,
                   "worst_at": self.at, "outside": len(self.outside), **({"partial": True} if partial else {})}
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")


def _draw(seed: int, n: int, q_one: bool, steps_max: int) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    out: list[dict[str, float]] = []
    while len(out) < n:
        sigma = float(np.exp(rng.uniform(math.log(0.3), math.log(60.0))))
        q = 1.0 if q_one else float(np.exp(rng.uniform(math.log(1e-5), math.log(0.99))))
        steps = int(np.exp(rng.uniform(0.0, math.log(steps_max + 0.5)))) if q_one else int(rng.integers(1, 3))
        steps = max(1, min(steps, steps_max))
        delta = float(np.exp(rng.uniform(math.log(1e-30), math.log(0.1))))
        out.append({"sigma": sigma, "q": q, "steps": float(steps), "delta": delta})
    return out


def _run(name: str, pts: list[dict[str, float]], check: object) -> _Record:
    rec = _Record(name)
    for i, p in enumerate(pts):
        try:
            br = pld.epsilon([(p["sigma"], p["q"], int(p["steps"]))], p["delta"])
        except DomainError:
            rec.refused += 1
            continue
        assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL + 1e-15, (p, br)
        with mp.workdps(30):
            if not check(p, br):  # type: ignore[operator]
                rec.outside.append((p, br))
        rec.add(p, br)
        if (i + 1) % 100 == 0:
            rec.report(partial=True)
    rec.report()
    return rec


def test_deep_pld_q1_exact_gaussian() -> None:
    def check(p: dict[str, float], br: pld.EpsBracket) -> bool:
        mu = math.sqrt(p["steps"]) / p["sigma"]
        if delta_gdp(mu, 0.0) <= p["delta"]:
            truth = mp.mpf(0)
        else:
            truth = eps_from_delta(lambda e: delta_gdp(mu, e), p["delta"], hi=float(mu * mu / 2 + 10 * mu + 1))
        slack = 1e-12 * max(float(truth), 1e-300)
        return br.eps_lower - slack <= truth <= br.eps_upper + slack

    rec = _run("pld.epsilon deep (q = 1, exact GDP)", _draw(241, points(0) // 3, True, 10**6), check)
    assert not rec.outside, rec.outside[:5]
    assert rec.refused <= 0.01 * (rec.n + rec.refused)


@pytest.mark.parametrize("steps", [1, 2])
def test_deep_pld_subsampled_one_and_two_steps(steps: int) -> None:
    def check(p: dict[str, float], br: pld.EpsBracket) -> bool:
        d = mp.mpf(p["delta"])
        above = all(_delta(p["sigma"], p["q"], steps, br.eps_upper, dr) <= d * (1 + _REL) for dr in ("remove", "add"))
        below = br.eps_lower <= 0 or any(_delta(p["sigma"], p["q"], steps, br.eps_lower, dr) >= d * (1 - _REL)
                                         for dr in ("remove", "add"))
        return above and below

    share = points(0) // 3 if steps == 1 else points(0) - 2 * (points(0) // 3)
    pts = [{**p, "steps": float(steps)} for p in _draw(242 + steps, share, False, 2)]
    rec = _run(f"pld.epsilon deep (q < 1, {steps} step{'s' if steps > 1 else ''})", pts, check)
    assert not rec.outside, rec.outside[:5]
    assert rec.refused <= 0.01 * (rec.n + rec.refused)
