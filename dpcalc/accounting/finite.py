"""Exact composition of a pair whose privacy loss takes finitely many values (the exact accountant's finite sums).

One orientation of a release is a `FinitePair`: its privacy loss is l₁ with mass w₁, l₂ with w₂, 0 with w₀ and
+∞ with ``top`` (all under P; w₁ + w₂ + w₀ + top = 1). Randomized response and (ε, δ)-DP releases (the dominating pair
of Kairouz, Oh & Viswanath 2015, Thm. 2.1) are of this form; the T-fold composition is the multinomial sum

    δ_T(ε') = 1 − (1 − top)^T + Σ_{i+j<=T} T!/(i! j! (T−i−j)!) w₁^i w₂^j w₀^{T−i−j} (1 − e^{ε' − i l₁ − j l₂})₊

(Kairouz, Oh & Viswanath 2015, Thm. 3.3 for the (ε, δ) pair), summed in log space. ε at δ is the smallest ε' with
δ_T(ε') <= δ over the worse orientation, found by bisection and returned at its safe end, moved outward by the
relative rounding error of the sum (the losses are computed by the mechanisms without cancellation, e.g. with
``log1p`` for nearly uniform randomized response).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["MAX_COUNT", "FinitePair", "delta_finite", "eps_finite"]

#: the most releases a finite sum composes (its cost grows as count²)
MAX_COUNT = 20_000
#: relative error allowed for the rounding of the multinomial sum (terms summed with math.fsum; log-space weights)
_SUM_RTOL = 1e-12


@dataclass(frozen=True)
class FinitePair:
    """One orientation of a pair whose privacy loss is l₁ w.p. w₁, l₂ w.p. w₂, 0 w.p. w₀ and +∞ w.p. ``top``
    (all under P)."""

    l1: float
    w1: float
    l2: float
    w2: float
    w0: float
    top: float = 0.0

    @property
    def largest_loss(self) -> float:
        """The largest finite privacy loss of one release (+inf when ``top`` > 0)."""
        return math.inf if self.top > 0.0 else max(self.l1 if self.w1 > 0 else 0.0, self.l2 if self.w2 > 0 else 0.0,
                                                   0.0)


def _log_multinomial(t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from scipy.special import gammaln

    i, j = np.meshgrid(np.arange(t + 1), np.arange(t + 1), indexing="ij")
    keep = i + j <= t
    i, j = i[keep].astype(float), j[keep].astype(float)
    return i, j, gammaln(t + 1.0) - gammaln(i + 1.0) - gammaln(j + 1.0) - gammaln(t - i - j + 1.0)


def _checked(pairs: Sequence[FinitePair], count: int, name: str) -> int:
    """``count`` as an int in [1, `MAX_COUNT`] once every item of ``pairs`` is a `FinitePair`; else one line."""
    if not all(isinstance(pr, FinitePair) for pr in pairs):
        raise DomainError(f"{name} must be a FinitePair (got {v.brief(pairs)})")
    n = float(v.scalar("count", v.integer_at_least("count", count, 1)))
    if n > MAX_COUNT:
        raise DomainError(f"count must be an integer in [1, {MAX_COUNT}] for a finite-sum composition (got {count})")
    return int(n)


def delta_finite(pair: FinitePair, count: int, eps: float) -> float:
    """δ_T(ε) of the ``count``-fold composition of one orientation (module docstring), as computed (not rounded)."""
    count = _checked([pair], count, "pair")
    eps = float(v.scalar("eps", v.nonnegative("eps", eps)))
    if pair.w0 > 0.0:
        i, j, lm = _log_multinomial(count)
    else:  # no zero-loss outcome: i + j = T
        from scipy.special import gammaln

        i = np.arange(count + 1, dtype=float)
        j = count - i
        lm = gammaln(count + 1.0) - gammaln(i + 1.0) - gammaln(j + 1.0)
    loss = i * pair.l1 + j * pair.l2
    sel = loss > eps
    with np.errstate(divide="ignore", invalid="ignore"):
        lw1, lw2, lw0 = (math.log(x) if x > 0 else -math.inf for x in (pair.w1, pair.w2, pair.w0))
        rest = count - i - j
        log_p = (lm + np.where(i > 0, i * lw1, 0.0) + np.where(j > 0, j * lw2, 0.0)
                 + np.where(rest > 0, rest * lw0, 0.0))
    terms = np.exp(log_p[sel]) * -np.expm1(eps - loss[sel])
    body = math.fsum(terms.tolist())
    # the weights carry the factor 1 − top of the outcomes with finite loss, so the body is already (1 − top)^T·δ̃
    return -math.expm1(count * math.log1p(-pair.top)) + body


def eps_finite(pairs: Sequence[FinitePair], count: int, delta: float) -> float:
    """Exact ε at δ of ``count`` runs of a release with the orientations ``pairs`` (the worse one), on the safe side:
    δ_T(returned ε)·(1 + 1e-12) <= δ for every orientation. 0 when δ_T(0) <= δ; a one-line `DomainError` when δ is
    below the mass of an infinite loss (no finite ε)."""
    from dpcalc._roots import bisect

    if isinstance(pairs, FinitePair) or not isinstance(pairs, Sequence) or not pairs:
        raise DomainError(f"pairs must be a non-empty sequence of FinitePair (got {v.brief(pairs)})")
    count = _checked(pairs, count, "pairs")
    delta = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))

    def delta_at(e: float) -> float:
        return max(delta_finite(pr, count, e) for pr in pairs) * (1.0 + _SUM_RTOL)

    top = count * max(max(abs(pr.l1), abs(pr.l2)) for pr in pairs)
    if delta_at(0.0) <= delta:
        return 0.0
    if max(-math.expm1(count * math.log1p(-pr.top)) for pr in pairs) >= delta:
        raise DomainError(f"exact: delta = {delta:g} is below the mass of infinite privacy loss; no finite epsilon "
                          "(an (epsilon, delta0) release needs delta >= delta0 per release)")
    top = top * (1.0 + 1e-15) + 1e-300
    if delta_at(top) > delta:  # the finite losses alone exceed δ only past their largest sum: rounding at the top
        return top
    _, hi = bisect(lambda e: delta_at(e) <= delta, 0.0, top, rtol=1e-13)
    return hi
