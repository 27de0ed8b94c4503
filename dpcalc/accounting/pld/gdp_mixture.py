"""Compositions of labelled Gaussian pairs in closed form: every step is Σₖ wₖ·(k, N(k·u·σ, σ²)) against
Σₖ wₖ·(k, N(0, σ²)) with integer labels k (sampling with replacement, `losses.sampled_with_replacement`; a plain
Gaussian is the single label k = 1).

Composing T such steps reveals the labels k₁ … k_T, and given them the outputs are T independent Gaussian pairs,
together exactly μ-GDP with μ = u·√(Σ kₜ²) (Dong, Roth & Su 2022, Cor. 3.3). So δ_T(ε) = Σ_s P(S = s)·δ_GDP(u√s, ε)
with S = Σ kₜ², whose law on the integers is convolved step by step (non-negative sums, relative error ≤ T·2⁻⁵²);
δ_GDP(μ, ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (their Cor. 2.13) in log space. Labels left out of a step (its
``rest``) and values of S below the smallest double are charged in full to δ_upper and dropped from δ_lower; both
ends carry the relative margin ``MARGIN``. ε comes from δ by bisection on each end: a certified bracket without a
lattice, in milliseconds at any T.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpcalc.accounting.pld.accountant import DeltaBracket, EpsBracket
from dpcalc.accounting.pld.common import MARGIN, FloatArray
from dpcalc.accounting.pld.losses import LabelledPair, NoisePair, Pair, PrivacyLoss

__all__ = ["delta_bracket", "eps_bracket", "square_sum_law"]

_TOL = 1e-12  # relative width of the ε bisection (far inside any rtol the accountant accepts)


def _labels(pair: Pair) -> tuple[float, dict[int, float], float] | None:
    """(u, {k: wₖ}, rest) when ``pair`` is a labelled (or plain) Gaussian pair N(k·u·σ) against N(0), else None."""
    parts = pair.parts if isinstance(pair, LabelledPair) else ((1.0, pair),)
    rest = pair.rest if isinstance(pair, LabelledPair) else 0.0
    shifts: list[tuple[float, float]] = []
    for w, pr in parts:
        if not (isinstance(pr, NoisePair) and pr.kind == "gaussian" and len(pr.p_shifts) == 1
                and pr.q_shifts == (0.0,) and pr.p_shifts[0] >= 0.0):
            return None
        shifts.append((pr.p_shifts[0] / pr.scale, w))
    unit = min((s for s, _ in shifts if s > 0.0), default=0.0)
    if unit <= 0.0:
        return None
    weights: dict[int, float] = {}
    for s, w in shifts:
        k = round(s / unit)
        if abs(k * unit - s) > 1e-12 * s:
            return None
        weights[k] = weights.get(k, 0.0) + w
    return unit, weights, rest


def _plan(components: list[tuple[PrivacyLoss, int]]) -> tuple[float, list[tuple[dict[int, float], int]], float] | None:
    """(u, [(label weights, count)], charged mass) when every component is a symmetric labelled Gaussian pair on one
    common unit u, else None."""
    unit = 0.0
    steps: list[tuple[dict[int, float], int]] = []
    charged = 0.0
    for loss, count in components:
        got = _labels(loss.remove) if loss.symmetric else None
        if got is None:
            return None
        u, weights, rest = got
        unit = unit or u
        if abs(u - unit) > 1e-12 * unit:
            return None
        steps.append((weights, count))
        charged += count * rest
    return unit, steps, charged


def square_sum_law(steps: list[tuple[dict[int, float], int]]) -> tuple[FloatArray, float]:
    """The law of S = Σₜ kₜ² on 0, 1, 2, … (entries below the smallest double end the array) and the mass that
    left it (an upper bound).

    Parameters
    ----------
    steps : list[tuple[dict[int, float], int]]
        Number of compositions T, an integer >= 1.

    Returns
    -------
    tuple[FloatArray, float]
    """
    law = np.ones(1)
    lost = 0.0
    for weights, count in steps:
        squares = [(k * k, w) for k, w in weights.items() if w > 0.0]
        top = max(s for s, _ in squares)
        for _ in range(count):
            nxt = np.zeros(law.size + top)
            for s, w in squares:
                nxt[s:s + law.size] += w * law
            nz = np.flatnonzero(nxt > 1e-300)
            end = int(nz[-1]) + 1 if nz.size else 1
            lost += float(nxt[end:].sum()) + 1e-300 * end
            law = nxt[:end]
    return law, lost


def _delta_gdp(mu: FloatArray, eps: float) -> FloatArray:
    """δ_GDP(μ, ε) for an array of μ > 0, in log space (no cancellation between the two terms)."""
    from scipy.special import log_ndtr

    a = log_ndtr(-eps / mu + mu / 2)
    b = eps + log_ndtr(-eps / mu - mu / 2)
    return np.asarray(np.exp(a) * -np.expm1(np.minimum(b - a, 0.0)), dtype=np.float64)


class _Profile:
    """δ(ε) of the composition, bounded above and below."""

    def __init__(self, unit: float, law: FloatArray, charged: float) -> None:
        s = np.flatnonzero(law > 0.0)
        s = s[s > 0]
        self.mu = unit * np.sqrt(s.astype(np.float64))
        self.w = law[s]
        self.charged = charged

    def bounds(self, eps: float) -> tuple[float, float]:
        d = float(self.w @ _delta_gdp(self.mu, eps)) if self.w.size else 0.0
        return max(0.0, d * (1.0 - MARGIN)), min(1.0, d * (1.0 + MARGIN) + self.charged)


def _profile(components: list[tuple[PrivacyLoss, int]]) -> _Profile | None:
    plan = _plan(components)
    if plan is None:
        return None
    unit, steps, charged = plan
    law, lost = square_sum_law(steps)
    return _Profile(unit, law, min(1.0, charged + lost) * (1.0 + MARGIN))


def _solve(f: Callable[[float], float], delta: float) -> float:
    """Smallest ε ≥ 0 with f(ε) ≤ δ (f non-increasing), to relative ``_TOL`` on the high side."""
    if f(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while f(hi) > delta:
        lo, hi = hi, 2.0 * hi
        if hi > 1e6:
            return math.inf
    while hi - lo > _TOL * hi:
        mid = 0.5 * (lo + hi)
        if f(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def eps_bracket(components: list[tuple[PrivacyLoss, int]], delta: float) -> EpsBracket | None:
    """The certified ε bracket at δ when every component is a labelled Gaussian pair on a common unit, else None.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    EpsBracket | None
    """
    prof = _profile(components)
    if prof is None:
        return None
    up = _solve(lambda e: prof.bounds(e)[1], delta)
    lo = _solve(lambda e: prof.bounds(e)[0], delta)
    lo = lo - _TOL * lo  # the bisection's high end: step back to a point below the lower profile's root
    return EpsBracket(min(lo, up), up, delta, "remove", 0.0, int(prof.w.size), {"converged": 1.0, "exact": 1.0})


def delta_bracket(components: list[tuple[PrivacyLoss, int]], eps: float) -> DeltaBracket | None:
    """The certified δ bracket at ε (as `eps_bracket`), else None.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]
    eps : float
        Privacy level ε.

    Returns
    -------
    DeltaBracket | None
    """
    prof = _profile(components)
    if prof is None:
        return None
    lo, up = prof.bounds(eps)
    return DeltaBracket(lo, up, eps, "remove", 0.0, int(prof.w.size))
