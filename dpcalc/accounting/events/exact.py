"""Exact ε for the events whose composition has a closed form or a finite sum (the "exact" accountant).

* Gaussian noise without sampling (Gaussians, tree aggregation, compositions of them): μ-GDP with
  μ² = Σ Δ'²·(nodes per record)/z² (Dong, Roth & Su 2022, Cor. 3.3), ε from `dpcalc.accounting.gdp.eps_from_mu`.
* T-fold self-composition of one finite pair — randomized response (either replace relation), an ε-DP or
  (ε, δ)-DP release (the dominating pair of Kairouz, Oh & Viswanath 2015, Thm. 2.1; their Thm. 3.3 is its
  T-fold composition): the privacy loss takes values l₁ (mass w₁ under P), l₂ (w₂), 0 (w₀) and +∞ (mass δ;
  w₁ + w₂ + w₀ = 1 − δ), so ::

      δ_T(ε') = 1 − (1 − δ)^T + Σ_{i+j<=T} T!/(i! j! (T−i−j)!) w₁^i w₂^j w₀^{T−i−j} (1 − e^{ε' − i l₁ − j l₂})₊

  summed in log space; both orientations of an asymmetric pair are composed and the worse is taken. ε at δ is the
  smallest ε' with δ_T(ε') <= δ, found by bisection and returned at the safe end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcalc.accounting.events import composition as c
from dpcalc.accounting.events import mechanisms as m
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.errors import DomainError

__all__ = ["FinitePair", "delta_finite", "epsilon", "finite_pairs", "gaussian_mu"]

SUPPORTED = ("Gaussian noise without sampling (Gaussian, SingleEpochTreeAggregation, their compositions), and the "
             "T-fold composition of one RandomizedResponse or EpsilonDelta release")


def gaussian_mu(event: Event, relation: Relation) -> float | None:
    """μ of an event that is Gaussian noise without sampling (μ-GDP, exact), else None."""
    f = shift_factor(relation)
    if isinstance(event, m.Gaussian):
        return f / event.noise_multiplier
    if isinstance(event, m.NoOp):
        return 0.0
    if isinstance(event, c.SingleEpochTreeAggregation) and relation != "add_remove":
        return f * math.sqrt(math.ceil(math.log2(event.max_steps + 1))) / event.noise_multiplier
    if isinstance(event, c.SelfComposed):
        mu = gaussian_mu(event.event, relation)
        return None if mu is None else mu * math.sqrt(event.count)
    if isinstance(event, c.Composed):
        mus = [gaussian_mu(e, relation) for e in event.events]
        if any(x is None for x in mus):
            return None
        return math.sqrt(math.fsum(x * x for x in mus if x is not None))
    return None


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


def finite_pairs(event: Event, relation: Relation) -> list[FinitePair] | None:
    """The orientations of a randomized response or (ε, δ) release, else None."""
    if isinstance(event, m.EpsilonDelta):
        e, d = event.epsilon, event.delta
        p = 1.0 / (1.0 + math.exp(-e))  # e^ε/(1 + e^ε)
        return [FinitePair(e, (1 - d) * p, -e, (1 - d) * (1 - p), 0.0, d)]
    if isinstance(event, m.RandomizedResponse) and relation != "add_remove":
        pp, k = event.noise_parameter, event.num_buckets
        hit, miss = 1.0 - pp + pp / k, pp / k
        if relation == "replace_one":
            lg = math.log(hit / miss)
            return [FinitePair(lg, hit, -lg, miss, 1.0 - hit - miss)]
        # RR(x) against uniform: losses log(k·hit) (mass hit) and log(k·miss) (mass (k − 1)·miss); and the swap
        return [FinitePair(math.log(k * hit), hit, math.log(k * miss), (k - 1) * miss, 0.0),
                FinitePair(-math.log(k * hit), 1.0 / k, -math.log(k * miss), (k - 1) / k, 0.0)]
    return None


def _log_multinomial(t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    i, j = np.meshgrid(np.arange(t + 1), np.arange(t + 1), indexing="ij")
    keep = i + j <= t
    i, j = i[keep].astype(float), j[keep].astype(float)
    from scipy.special import gammaln

    return i, j, gammaln(t + 1.0) - gammaln(i + 1.0) - gammaln(j + 1.0) - gammaln(t - i - j + 1.0)


def delta_finite(pair: FinitePair, count: int, eps: float) -> float:
    """δ_T(ε) of the ``count``-fold composition of one orientation (module docstring)."""
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
        log_p = lm + np.where(i > 0, i * lw1, 0.0) + np.where(j > 0, j * lw2, 0.0) + np.where(rest > 0, rest * lw0,
                                                                                             0.0)
    terms = np.exp(log_p[sel]) * -np.expm1(eps - loss[sel])
    body = math.fsum(terms.tolist())
    # the weights carry the factor 1 − δ of the outcomes with finite loss, so the body is already (1 − δ)^T·δ̃
    return -math.expm1(count * math.log1p(-pair.top)) + body


def epsilon(event: Event, relation: Relation, delta: float) -> tuple[float, dict[str, object]]:
    """Exact ε at δ of the supported events (module docstring); others raise a one-line DomainError."""
    from dpcalc.accounting import gdp

    mu = gaussian_mu(event, relation)
    if mu is not None:
        return (float(gdp.eps_from_mu(mu, delta)) if mu > 0 else 0.0), {"mu": mu}
    count, inner = 1, event
    if isinstance(event, c.SelfComposed):
        count, inner = event.count, event.event
    pairs = finite_pairs(inner, relation)
    if pairs is None or count < 1:
        raise DomainError(f"exact cannot account {event.CLASS_NAME} under {relation}: the exact accountant supports "
                          f"{SUPPORTED}")
    if count > 20_000:
        raise DomainError(f"exact: count must be <= 20000 for a finite-sum composition (got {count})")
    from dpcalc._roots import bisect

    def delta_at(e: float) -> float:
        return max(delta_finite(pr, count, e) for pr in pairs)

    top = count * max(max(abs(pr.l1), abs(pr.l2)) for pr in pairs)
    if delta_at(0.0) <= delta:
        return 0.0, {"count": count}
    if delta_at(top) > delta * (1 - 1e-12):
        raise DomainError(f"exact: delta = {delta:g} is below the mass of infinite privacy loss "
                          f"({delta_at(top):.3g}); no finite epsilon")
    # δ_T is rounded to ~1e-15 relative: demand it a hair below the target so the returned ε is safe
    _, hi = bisect(lambda e: delta_at(e) * (1.0 + 1e-12) <= delta, 0.0, top, rtol=1e-13)
    return hi, {"count": count}
