"""The f-DP refinement of the one-run audit (Mahloujifar, Melis & Chaudhuri 2024, "Auditing f-differential
privacy in one run", Sec. 4): the same game (`dpcalc.audit.one_run`: m canaries, r guesses, c right), tested
against a hypothesised trade-off curve f instead of (ε, δ), here the Gaussian G_μ.

The test (their recursive bound with a cap, for the significance α): start at r₀ = α·c/m (right guesses) and
h₀ = α·(r − c)/m (wrong ones); for i = c − 1, …, 0 raise h to F⁻¹(r) — F(x) = 1 − f(x) the largest TPR at FPR x, so
F⁻¹(y) = Φ(Φ⁻¹(y) − μ) for G_μ — and, by the amount h grew, raise r by i/(r_guesses − i) times it (capped at 1);
stop once h no longer grows. The claim "μ-GDP" is rejected when r + h > r_guesses/m. μ_lower is the largest μ
rejected (the test is monotone in μ); the ε of μ_lower-GDP at δ is the audit's ε — a lower bound on the true ε
for mechanisms whose curve is Gaussian (DP-SGD's assumption in that paper).
"""

from __future__ import annotations

from dpcalc import _validate as v
from dpcalc._roots import bisect
from dpcalc.audit.binomial import check_confidence, check_game
from dpcalc.errors import DomainError

__all__ = ["eps_lower_fdp", "mu_lower_fdp", "rejects"]

_MU_MAX = 50.0


def rejects(canaries: int, guesses: int, correct: int, mu: float, significance: float) -> bool:
    """True when the observation rejects μ-GDP at ``significance`` (module docstring).

    Examples:
        >>> from dpcalc.audit.one_run_fdp import rejects
        >>> rejects(1000, 100, 100, 1.0, 0.05), rejects(1000, 100, 60, 1.0, 0.05)
        (True, False)
    """
    from scipy.special import ndtr, ndtri

    m, k, c = check_game(canaries, guesses, correct)
    a = v.scalar("significance", v.check_range("significance", significance, 0.0, 1.0, lo_open=True,
                                               hi_open=True))
    mu_ = v.scalar("mu", v.nonnegative("mu", mu))
    right, wrong = a * c / m, a * (k - c) / m
    for i in range(c - 1, -1, -1):
        grown = max(wrong, float(ndtr(ndtri(min(right, 1.0)) - mu_)))
        if grown == wrong:
            break
        right = min(right + i / (k - i) * (grown - wrong), 1.0)
        wrong = grown
    return right + wrong > k / m


def mu_lower_fdp(canaries: int, guesses: int, correct: int, confidence: float = 0.95) -> float:
    """The largest μ the one-run observation rejects at ``confidence`` (0 when none), to 1e-6, rounded down.

    Examples:
        >>> from dpcalc.audit import mu_lower_fdp
        >>> round(mu_lower_fdp(1000, 100, 100), 4)
        1.2255
    """
    m, r, c = check_game(canaries, guesses, correct)
    conf = check_confidence(confidence)
    a = 1.0 - conf

    def accepted(mu: float) -> bool:
        return not rejects(m, r, c, mu, a)

    if accepted(0.0):
        return 0.0
    if not accepted(_MU_MAX):
        raise DomainError(f"confidence = {conf:g} is too low for this observation: the one-run test of "
                          f"canaries = {m:g}, guesses = {r:g}, correct = {c:g} rejects every μ up to {_MU_MAX:g}")
    lo, _ = bisect(accepted, 0.0, _MU_MAX, atol=1e-6)
    return lo


def eps_lower_fdp(canaries: int, guesses: int, correct: int, confidence: float = 0.95,
                  delta: float = 1e-5) -> float:
    """ε at ``delta`` of the μ_lower-GDP curve (`mu_lower_fdp`): the audit's ε for a Gaussian curve.

    Examples:
        >>> from dpcalc.audit import eps_lower_fdp
        >>> round(eps_lower_fdp(1000, 100, 100, 0.95, 1e-5), 4)
        5.549
    """
    from dpcalc.accounting import gdp

    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    mu = mu_lower_fdp(canaries, guesses, correct, confidence)
    return 0.0 if mu == 0.0 else float(gdp.eps_from_mu(mu, d))
