"""Privacy auditing with one training run (Steinke, Nasr & Jagielski 2023): m canaries, each included
independently with probability ½; the auditor guesses in/out for ``guesses`` of them (abstaining on the rest) and
is right ``correct`` times.

If the mechanism is (ε, δ)-DP, the number W of correct guesses satisfies (their Thm. 3 for δ = 0, Prop. 5.2 and
Alg. 2 for δ > 0): P[W ≥ v] ≤ P[Binomial(r, q) ≥ v] + 2mδ·max_{1≤i≤v} P[v − i ≤ Binomial(r, q) < v]/i, with
q = e^ε/(1 + e^ε) and r the number of guesses — the p-value of the observation under the claim. ε_lower is the
largest ε the observation rejects at ``confidence`` (p-value ≤ 1 − confidence): the mechanism is not (ε, δ)-DP for
any ε below it, with probability ≥ confidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._roots import bisect
from dpcalc.audit.binomial import check_confidence, check_game
from dpcalc.errors import DomainError

__all__ = ["OneRunAudit", "eps_lower_one_run", "one_run_audit", "p_value"]


@short_repr
@dataclass(frozen=True)
class OneRunAudit:
    """ε_lower of a one-run audit (Steinke et al. 2023) and, when computed, its f-DP refinement for a Gaussian
    curve (Mahloujifar, Melis & Chaudhuri 2024): μ_lower and the ε it implies at ``delta``."""

    eps_lower: float
    confidence: float
    delta: float
    canaries: int
    guesses: int
    correct: int
    mu_lower: float | None = None
    eps_lower_fdp: float | None = None


def _p_value(m: int, r: int, c: int, eps: float, delta: float) -> float:
    from scipy.stats import binom

    q = 1.0 / (1.0 + math.exp(-eps)) if eps < 700 else 1.0
    tail = float(binom.sf(c - 1, r, q))  # P[Binomial(r, q) ≥ c]
    if delta == 0.0 or c == 0:
        return min(tail, 1.0)
    i = np.arange(1, c + 1)
    below = np.cumsum(binom.pmf(c - i, r, q))  # P[c − i ≤ Binomial(r, q) < c]
    return min(tail + 2.0 * m * delta * float(np.max(below / i)), 1.0)


def p_value(canaries: int, guesses: int, correct: int, eps: float, delta: float = 0.0) -> float:
    """The probability of at least ``correct`` right guesses under an (ε, δ)-DP claim (module docstring).

    Examples:
        >>> from dpcalc.audit import p_value
        >>> f"{p_value(1000, 100, 100, 1.0):.6e}"   # (e/(1 + e))^100
        '2.484379e-14'
    """
    m, r, c = check_game(canaries, guesses, correct)
    e = v.scalar("eps", v.check_range("eps", eps, 0.0, math.inf))
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0))
    return _p_value(m, r, c, e, d)


def eps_lower_one_run(canaries: int, guesses: int, correct: int, confidence: float = 0.95,
                      delta: float = 0.0) -> float:
    """The largest ε the one-run observation rejects at ``confidence`` (0 when it rejects none), to 1e-6 nats,
    rounded down (the safe side of a lower bound).

    Examples:
        >>> from dpcalc.audit import eps_lower_one_run
        >>> round(eps_lower_one_run(1000, 100, 100, 0.95, 1e-5), 4)
        3.4654
    """
    m, r, c = check_game(canaries, guesses, correct)
    conf = check_confidence(confidence)
    a = 1.0 - conf
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))

    def accepted(e: float) -> bool:  # the claim survives (p-value above the level); monotone in ε
        return _p_value(m, r, c, e, d) > a

    if accepted(0.0):
        return 0.0
    hi = 1.0
    while not accepted(hi):
        hi *= 2.0
        if hi > 1e4:
            raise DomainError(f"confidence = {conf:g} is too low for this observation: the one-run test of "
                              f"canaries = {m:g}, guesses = {r:g}, correct = {c:g} rejects every ε up to 1e4")
    lo, _ = bisect(accepted, 0.0 if hi == 1.0 else hi / 2.0, hi, atol=1e-6)
    return lo


def one_run_audit(canaries: int, guesses: int, correct: int, *, confidence: float = 0.95, delta: float = 0.0,
                  fdp: bool = True) -> OneRunAudit:
    """Both one-run bounds: Steinke et al.'s ε_lower and (``fdp``, δ > 0) the Gaussian f-DP refinement."""
    from dpcalc.audit.one_run_fdp import eps_lower_fdp, mu_lower_fdp

    e = eps_lower_one_run(canaries, guesses, correct, confidence, delta)
    mu = ef = None
    if fdp:
        mu = mu_lower_fdp(canaries, guesses, correct, confidence)
        ef = eps_lower_fdp(canaries, guesses, correct, confidence, delta) if delta > 0.0 else None
    return OneRunAudit(e, float(confidence), float(delta), int(canaries), int(guesses), int(correct), mu, ef)
