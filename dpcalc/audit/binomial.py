"""Clopper–Pearson (1934) exact binomial confidence bounds: the one-sided ends every audit's ε lower bound is built
from (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021).

With k successes in n trials, the upper bound p̄ solves P(Binomial(n, p̄) ≤ k) = α, i.e. p̄ = B⁻¹(1 − α; k + 1,
n − k) (1 when k = n); the lower bound p̲ = B⁻¹(α; k, n − k + 1) (0 when k = 0), B⁻¹ the beta quantile.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._validate import FloatArray
from dpcalc.errors import DomainError

__all__ = ["check_confidence", "check_counts", "check_game", "cp_lower", "cp_upper"]


def check_confidence(confidence: float, name: str = "confidence") -> float:
    """A confidence level in [2⁻⁵³, 1): below 2⁻⁵³ the significance 1 − confidence rounds to 1 (every test rejects
    everything)."""
    return v.scalar(name, v.check_range(name, confidence, 2.0 ** -53, 1.0, hi_open=True))


def check_counts(k: ArrayLike, n: ArrayLike, k_name: str, n_name: str) -> tuple[FloatArray, FloatArray]:
    """Integer counts 0 ≤ k ≤ n, n ≥ 1, each message naming the option."""
    kk = v.integer_at_least(k_name, k, 0)
    nn = v.integer_at_least(n_name, n, 1)
    kk, nn = v.broadcast(**{k_name: kk, n_name: nn})
    if np.any(kk > nn):
        i = int(np.flatnonzero((kk > nn).ravel())[0])
        raise DomainError(f"{k_name} must be <= {n_name} (got {kk.ravel()[i]:g} > {nn.ravel()[i]:g})")
    return kk, nn


def _cp(k: ArrayLike, n: ArrayLike, confidence: float, upper: bool) -> float | FloatArray:
    from scipy.special import betaincinv

    kk, nn = check_counts(k, n, "k", "n")
    a = 1.0 - check_confidence(confidence)
    with np.errstate(all="ignore"):
        if upper:
            p = np.where(kk < nn, betaincinv(kk + 1.0, np.maximum(nn - kk, 1.0), 1.0 - a), 1.0)
        else:
            p = np.where(kk > 0, betaincinv(np.maximum(kk, 1.0), nn - kk + 1.0, a), 0.0)
    return v.scalar_or_array(np.asarray(p, dtype=np.float64))


@v.named_shapes
def cp_upper(k: ArrayLike, n: ArrayLike, confidence: float = 0.95) -> float | FloatArray:
    """One-sided Clopper–Pearson upper bound on a binomial proportion at ``confidence``.

    Examples:
        >>> from dpcalc.audit.binomial import cp_upper
        >>> round(cp_upper(0, 500, 0.995), 10)
        0.0105406882
    """
    return _cp(k, n, confidence, True)


@v.named_shapes
def cp_lower(k: ArrayLike, n: ArrayLike, confidence: float = 0.95) -> float | FloatArray:
    """One-sided Clopper–Pearson lower bound on a binomial proportion at ``confidence``.

    Examples:
        >>> from dpcalc.audit.binomial import cp_lower
        >>> round(cp_lower(500, 500, 0.995), 10)
        0.9894593118
    """
    return _cp(k, n, confidence, False)


def check_game(canaries: int, guesses: int, correct: int) -> tuple[int, int, int]:
    """0 ≤ correct ≤ guesses ≤ canaries, canaries ≥ 1 (one line naming the option)."""
    m = int(v.scalar("canaries", v.integer_at_least("canaries", canaries, 1)))
    r = int(v.scalar("guesses", v.integer_at_least("guesses", guesses, 0)))
    c = int(v.scalar("correct", v.integer_at_least("correct", correct, 0)))
    if r > m:
        raise DomainError(f"guesses must be <= canaries (got {r} > {m})")
    if c > r:
        raise DomainError(f"correct must be <= guesses (got {c} > {r})")
    return m, r, c
