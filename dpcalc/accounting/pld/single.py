"""One release in closed form: the exact ε(δ) and δ(ε) of a single step whose privacy loss has finitely many values
(randomized response, pure and approximate DP, the discrete Laplace mechanism) or is the Laplace mechanism's.

* **Finitely many losses** ℓᵢ = log(pᵢ/qᵢ): δ(ε) = Σ_{ℓᵢ > ε} (pᵢ − e^ε qᵢ) (the hockey-stick divergence), linear
  in e^ε between consecutive losses; on the segment that holds the root, ε = log((A − δ)/B) with A, B the P- and
  Q-masses of the losses above it. The discrete Laplace pair (e^{−t|k−Δ|} against e^{−t|k|}, integer Δ) has Δ + 1
  losses t(2k − Δ), k = 0 … Δ: the outputs ≤ 0 and ≥ Δ each share one loss.
* **Laplace** with scale b and shift Δ: δ(ε) = 1 − e^{(ε − ε₀)/2} for 0 ≤ ε < ε₀ = Δ/b and 0 beyond, so
  ε(δ) = max(0, ε₀ + 2 log(1 − δ)) (integrate the loss (Δ − 2x)/b of the outputs between 0 and Δ; e.g. Koskela et
  al. 2021, Sec. 6).

Both ends of the bracket are moved outward by the floating-point error of these few operations (a few ulps), so
the bracket is certified and ~1e-15 wide; the lattice accountant is not needed for one release of these mechanisms.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpcalc.accounting.pld.accountant import DeltaBracket, EpsBracket
from dpcalc.accounting.pld.common import FloatArray
from dpcalc.accounting.pld.losses import AtomPair, NoisePair, Pair, PrivacyLoss

__all__ = ["delta_bracket", "eps_bracket"]

_U = 2.0**-52  # one ulp of 1.0
_TINY = 1e-300


def _shift(pair: NoisePair) -> float | None:
    """|Δ| when ``pair`` is one noise density against the same density shifted by Δ, else None."""
    if len(pair.p_shifts) != 1 or len(pair.q_shifts) != 1:
        return None
    return abs(pair.p_shifts[0] - pair.q_shifts[0])


def _atoms(pair: Pair) -> tuple[FloatArray, FloatArray] | None:
    """(P-masses, Q-masses) of a pair with finitely many outcomes, else None."""
    if isinstance(pair, AtomPair):
        return np.asarray(pair.p, dtype=np.float64), np.asarray(pair.q, dtype=np.float64)
    if not isinstance(pair, NoisePair) or pair.kind != "discrete_laplace":
        return None
    d = _shift(pair)
    if d is None or not float(d).is_integer() or d > 10_000:
        return None
    n, t = int(d), pair.scale
    inner = np.arange(1, n, dtype=np.float64)  # outputs strictly between the two centres
    c = math.tanh(t / 2.0)  # the normaliser (1 − e^{−t})/(1 + e^{−t})
    end_hi, end_lo = 1.0 / (1.0 + math.exp(-t)), math.exp(-t * n) / (1.0 + math.exp(-t))
    p = np.concatenate([[end_lo], c * np.exp(-t * (n - inner)), [end_hi]])
    return p, p[::-1].copy()


def _sorted(p: FloatArray, q: FloatArray) -> tuple[float, FloatArray, FloatArray, FloatArray]:
    """(P-mass at loss +∞, finite losses in decreasing order, their P- and Q-masses)."""
    inf = (p > 0.0) & (q == 0.0)
    fin = (p > 0.0) & (q > 0.0)
    loss = np.log(p[fin]) - np.log(q[fin])
    order = np.argsort(-loss, kind="stable")
    return math.fsum(p[inf].tolist()), loss[order], p[fin][order], q[fin][order]


def _eps_atoms(p: FloatArray, q: FloatArray, delta: float) -> tuple[float, float] | None:
    """Certified (ε_lower, ε_upper) of a finite pair at δ; None when δ is at or below the mass at loss +∞."""
    p_inf, loss, pp, qq = _sorted(p, q)
    if p_inf * (1.0 + 4.0 * _U) >= delta:
        return None
    a = p_inf + np.cumsum(pp)  # A_k, B_k: masses of the k + 1 largest finite losses (and of +∞)
    b = np.cumsum(qq)
    a_before = np.concatenate([[p_inf], a[:-1]])
    b_before = np.concatenate([[0.0], b[:-1]])
    with np.errstate(over="ignore", invalid="ignore"):
        at = a_before - np.exp(loss) * b_before  # δ(ℓ_k): the losses strictly above ℓ_k
    # δ(ε) increases as ε goes down the losses: the root lies on the segment above the first ℓ_k with δ(ℓ_k) >= δ
    hit = np.flatnonzero(at >= delta)
    k = int(hit[0]) if hit.size else loss.size  # δ(ε) = A_{k-1} − e^ε B_{k-1} on [ℓ_k, ℓ_{k-1}]
    big_a, big_b = float(a_before[k] if k < loss.size else a[-1]), float(b_before[k] if k < loss.size else b[-1])
    num = big_a - delta
    if num <= 0.0 or big_b <= 0.0:  # rounding at the top segment: ε is the largest finite loss
        eps = float(loss[0])
        margin = 8.0 * _U * (1.0 + abs(eps))
    else:
        eps = math.log(num / big_b)
        # rounding of the cumulative sums (k + 2 ulps each), of A − δ and of the log, doubled
        margin = 2.0 * (((k + 3) * _U * big_a + _U * delta) / num + (k + 2) * _U + _U * abs(eps))
    return max(0.0, eps - margin - _TINY), max(0.0, eps + margin + _TINY)


def _delta_atoms(p: FloatArray, q: FloatArray, eps: float) -> tuple[float, float]:
    """Certified (δ_lower, δ_upper) of a finite pair at ε: Σ (pᵢ − e^ε qᵢ)₊, each term's rounding added outward."""
    ee = math.exp(eps)
    terms = p - ee * q
    pos = terms > 0.0
    d = math.fsum(terms[pos].tolist())
    err = 4.0 * _U * (float(p[pos].sum()) + ee * float(q[pos].sum())) + _TINY
    return max(0.0, d - err), min(1.0, d + err)


def _eps_laplace(scale: float, shift: float, delta: float) -> tuple[float, float]:
    e0 = shift / scale
    eps = e0 + 2.0 * math.log1p(-delta)
    margin = 8.0 * _U * (e0 + 2.0 * abs(math.log1p(-delta))) + _TINY
    return max(0.0, eps - margin), max(0.0, eps + margin)


def _delta_laplace(scale: float, shift: float, eps: float) -> tuple[float, float]:
    x = 0.5 * (eps - shift / scale)
    if x >= 0.0:
        return 0.0, 0.0
    d = -math.expm1(x)
    err = 4.0 * _U * (d + math.exp(x) * (abs(eps) + shift / scale)) + _TINY
    return max(0.0, d - err), min(1.0, d + err)


Ends = tuple[float, float]


def _on_pair(pair: Pair, x: float, laplace: Callable[[float, float, float], Ends],
             finite: Callable[[FloatArray, FloatArray, float], Ends | None]) -> Ends | None:
    """``laplace(scale, shift, x)`` or ``finite(p, q, x)`` on the pair, None for any other pair."""
    if isinstance(pair, NoisePair) and pair.kind == "laplace":
        d = _shift(pair)
        return None if d is None else laplace(pair.scale, d, x)
    atoms = _atoms(pair)
    return None if atoms is None else finite(*atoms, x)


def _worse(components: list[tuple[PrivacyLoss, int]],
           solve: Callable[[Pair], tuple[float, float] | None]) -> tuple[float, float, str] | None:
    """(lower, upper, orientation) of one release, the worse orientation's upper end and the larger lower end; None
    unless the composition is one release whose every orientation ``solve`` answers."""
    if len(components) != 1 or components[0][1] != 1:
        return None
    got: dict[str, tuple[float, float]] = {}
    for name, pair in components[0][0].pairs().items():
        ends = solve(pair)
        if ends is None:
            return None
        got[name] = ends
    worst = max(got, key=lambda k: got[k][1])
    return max(g[0] for g in got.values()), got[worst][1], worst


def eps_bracket(components: list[tuple[PrivacyLoss, int]], delta: float) -> EpsBracket | None:
    """The exact ε bracket of one release of a finite-loss or Laplace pair at δ (the worse orientation), else None.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    EpsBracket | None
    """
    got = _worse(components, lambda pair: _on_pair(pair, delta, _eps_laplace, _eps_atoms))
    return None if got is None else EpsBracket(got[0], got[1], delta, got[2], 0.0, 0,
                                                {"converged": 1.0, "exact": 1.0})


def delta_bracket(components: list[tuple[PrivacyLoss, int]], eps: float) -> DeltaBracket | None:
    """The exact δ bracket at ε of one release of a finite-loss or Laplace pair (the worse orientation), else None.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]
    eps : float
        Privacy level ε.

    Returns
    -------
    DeltaBracket | None
    """
    got = _worse(components, lambda pair: _on_pair(pair, eps, _delta_laplace, _delta_atoms))
    return None if got is None else DeltaBracket(got[0], got[1], eps, got[2], 0.0, 0)
