"""What a membership-inference attacker can do, from any trade-off curve (`dpcalc.risk.curve.TradeOffCurve`):
its TPR at given FPRs, its largest advantage TPR − FPR, and its Bayes success (probability of guessing membership
right) for a prior π; each as a certified (lower, upper) pair whose upper end is the guarantee.

* TPR(α) ≤ 1 − f(α) (Dong, Roth & Su 2022, Def. 2.1; Kulynych et al. 2024, Sec. 3: "attack risk").
* Advantage: max_α (1 − α − f(α)) = δ(0), the total-variation distance of the pair (Kairouz, Oh & Viswanath 2015;
  Kulynych et al. 2024, eq. (3)); for a symmetric f it is reached at the fixed point.
* Bayes success with prior π (probability that the target is in): max over tests of π·TPR + (1 − π)(1 − FPR)
  = 1 − π + π·δ_in(ln((1 − π)/π)) for π ≤ ½ and π + (1 − π)·δ_out(ln(π/(1 − π))) for π ≥ ½ (the Bayes risk of
  Kaissis et al. 2024, eq. (2), in the closed form of Kulynych et al. 2025, Prop. D.1); π = ½ gives (1 + adv)/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.risk.curve import TradeOffCurve, check_alpha, check_curve, check_orientation, reverse

__all__ = ["DEFAULT_FPRS", "AttackRisk", "advantage", "attack_risk", "bayes_success", "membership_sentence",
           "tpr_at"]

#: the FPRs a report shows by default
DEFAULT_FPRS = (1e-3, 1e-2, 0.1)


@short_repr
@dataclass(frozen=True)
class AttackRisk:
    """The operational bounds of one curve: per FPR the TPR bracket, the advantage bracket, and the Bayes success
    bracket at ``prior``; ``kind`` is the curve's (exact / certified / weaker)."""

    source: str
    kind: str
    orientation: str
    fpr: tuple[float, ...]
    tpr_lower: tuple[float, ...]
    tpr_upper: tuple[float, ...]
    advantage_lower: float
    advantage_upper: float
    prior: float
    success_lower: float
    success_upper: float


def tpr_at(curve: TradeOffCurve, fpr: ArrayLike,
           orientation: str = "symmetric") -> tuple[np.ndarray, np.ndarray]:
    """(TPR_lower, TPR_upper) of the best attack at each FPR in (0, 1]; TPR_upper is the guarantee. Arrays of the
    shape of ``fpr`` (at least 1-D)."""
    c = check_curve(curve)
    a = np.atleast_1d(check_alpha(fpr))
    lo, up = c.tpr(a.ravel(), check_orientation(orientation))  # curves take 1-D FPRs
    return np.reshape(lo, a.shape), np.reshape(up, a.shape)


def advantage(curve: TradeOffCurve, orientation: str = "symmetric") -> tuple[float, float]:
    """(lower, upper) of the largest advantage TPR − FPR = δ(0) (the same in every orientation)."""
    lo, up = check_curve(curve).delta(np.zeros(1), check_orientation(orientation))
    return float(lo[0]), float(up[0])


def bayes_success(curve: TradeOffCurve, prior: float = 0.5, orientation: str = "symmetric") -> tuple[float, float]:
    """(lower, upper) of the largest probability of guessing membership right when the target is in with
    probability ``prior`` (module docstring); at least max(π, 1 − π), the blind guess."""
    c = check_curve(curve)
    p = v.scalar("prior", v.check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True))
    o = check_orientation(orientation)
    if p <= 0.5:
        lo, up = c.delta(np.array([math.log((1.0 - p) / p)]), o)
        return 1.0 - p + p * float(lo[0]), 1.0 - p + p * float(up[0])
    lo, up = c.delta(np.array([math.log(p / (1.0 - p))]), reverse(o))
    return p + (1.0 - p) * float(lo[0]), p + (1.0 - p) * float(up[0])


def attack_risk(curve: TradeOffCurve, fpr: ArrayLike = DEFAULT_FPRS, *, prior: float = 0.5,
                orientation: str = "symmetric") -> AttackRisk:
    """All operational bounds of ``curve`` at once.

    Examples:
        >>> from dpcalc.risk import attack_risk, gaussian_curve
        >>> r = attack_risk(gaussian_curve(1.0))
        >>> [round(t, 4) for t in r.tpr_upper], round(r.advantage_upper, 4), round(r.success_upper, 4)
        ([0.0183, 0.0924, 0.3891], 0.3829, 0.6915)
    """
    c = check_curve(curve)
    a = np.atleast_1d(check_alpha(fpr)).ravel()  # one operating point per FPR, in the order given
    lo, up = tpr_at(c, a, orientation)
    adv = advantage(c, orientation)
    suc = bayes_success(c, prior, orientation)
    return AttackRisk(c.description, c.kind, orientation, tuple(float(x) for x in a),
                      tuple(float(x) for x in lo), tuple(float(x) for x in up), adv[0], adv[1],
                      v.scalar("prior", prior), suc[0], suc[1])


def membership_sentence(tpr: float, fpr: float, *, kind: str = "certified") -> str:
    """The privacy statement's operational sentence: "An attacker testing membership at 1 % false-positive rate
    succeeds at most 4.02 % of the time (true-positive rate; …)". ``tpr`` is the bound (a curve's upper end at
    ``fpr``), ``kind`` the curve's kind ("weaker": the bound from (ε, δ) alone, said so).

    Examples:
        >>> from dpcalc.risk import membership_sentence
        >>> membership_sentence(0.0402, 0.01)[:95]
        'An attacker testing membership at 1 % false-positive rate succeeds at most 4.02 % of the time ('
    """
    t = v.scalar("tpr", v.check_range("tpr", tpr, 0.0, 1.0))
    a = v.scalar("fpr", check_alpha(fpr))
    what = {"exact": "the exact curve of this mechanism", "certified": "a certified bound for this run",
            "weaker": "a bound from (ε, δ) alone, weaker than the run's own curve"}.get(kind, kind)
    return (f"An attacker testing membership at {_percent(a)} false-positive rate succeeds at most {_percent(t)} of "
            f"the time (true-positive rate; {what}).")


def _percent(x: float) -> str:
    """A rate as a percentage with 3 significant digits, rounded up (a bound is never shown below itself: 0.1 %,
    4.02 %, 23.9 %)."""
    from dpcalc._rounding import format_number

    p = 100.0 * x
    return f"{format_number(p, '.3g↑' if p >= 0.01 or p == 0.0 else '.2g↑')} %"
