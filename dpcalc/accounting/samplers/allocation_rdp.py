"""Rényi DP of random allocation with the Gaussian mechanism (Feldman & Shenfeld 2025, Sec. 6).

One round allocates the record to one of t steps uniformly; each step adds N(0, σ²) to a sum the record moves by at
most Δ (Δ = 1: add/remove, or a special record that contributes nothing). The dominating pair is
P = (1/t)·Σᵢ N(Δeᵢ, σ²I_t) against Q = N(0, σ²I_t) (Feldman & Shenfeld 2025; Chua et al. 2025, balls-and-bins).

* **remove** (D_α(P‖Q), integer α ≥ 2): with s = Δ/σ and Yᵢ = e^{(Δxᵢ − Δ²/2)/σ²},
  E_Q[(P/Q)^α] = t^{−α}·Σ_{a₁+…+a_t=α} α!/Πaᵢ! · Π e^{aᵢ(aᵢ−1)s²/2}  (Feldman & Shenfeld 2025, Cor. 6.2), computed
  here as α! times the coefficient of x^α in (Σ_a e^{a(a−1)s²/2} x^a/a!)^t, by binary powering of the truncated
  series in log space (all terms positive: no cancellation). Exact for the pair.
* **add** (D_α(Q‖P)): the loss −log((1/t)ΣYᵢ) is at most −(1/t)Σ log Yᵢ (AM–GM), a Gaussian N(s²/2, s²/t) under Q,
  so D_α(Q‖P) ≤ s²/2 + (α − 1)s²/(2t) (any real α > 1). An upper bound, loose by ≈ s²/2 per round (it does not
  amplify with t); the PLD route (`allocation_pld`) bounds this direction tightly.

k of t steps: dominated by k rounds of 1 out of ⌊t/k⌋ (Feldman & Shenfeld 2025); epochs compose.
Non-integer orders in the remove direction: log E[(P/Q)^α] is convex in α, so the chord between ⌊α⌋ and ⌈α⌉ bounds
it from above.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.samplers.params import allocation
from dpcalc.errors import DomainError

__all__ = ["MAX_ORDER", "rdp_add_bound", "rdp_allocation", "rdp_remove"]

#: largest order of the exact remove-direction series (O(α² log t) work)
MAX_ORDER = 1024


def _log_series_power(log_c: np.ndarray, t: int) -> np.ndarray:
    """log of the coefficients of (Σ_a e^{log_c[a]} x^a)^t truncated at the degree of ``log_c`` (binary powering)."""
    deg = log_c.size - 1

    def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.full(deg + 1, -np.inf)
        for i in range(deg + 1):  # out[i + j] ⊕= a[i] + b[j]
            if a[i] == -np.inf:
                continue
            seg = a[i] + b[: deg + 1 - i]
            out[i:] = np.logaddexp(out[i:], seg)
        return out

    result = np.full(deg + 1, -np.inf)
    result[0] = 0.0
    base = log_c.copy()
    while t:
        if t & 1:
            result = mul(result, base)
        t >>= 1
        if t:
            base = mul(base, base)
    return result


def _log_moments(max_order: int, s: float, t: int) -> np.ndarray:
    """log E_Q[(P/Q)^a] for a = 0..max_order (remove direction, one round of 1 out of t)."""
    a = np.arange(max_order + 1, dtype=np.float64)
    lg = np.array([math.lgamma(x + 1.0) for x in a])
    log_c = a * (a - 1.0) * s * s / 2.0 - lg
    coef = _log_series_power(log_c, t)
    return lg + coef - a * math.log(t)


def _orders(orders: ArrayLike) -> np.ndarray:
    arr = np.atleast_1d(v.check_range("orders", orders, 1.0, float(MAX_ORDER), lo_open=True))
    return arr


def rdp_remove(orders: ArrayLike, noise_multiplier: float, num_steps: int,
               sensitivity: float = 1.0) -> float | np.ndarray:
    """D_α(P‖Q) of one round (1 out of ``num_steps``) at each order in (1, 1024]: exact at integer orders
    (Feldman & Shenfeld 2025, Cor. 6.2), the convex chord between them otherwise (an upper bound).

    Examples:
        >>> from dpcalc.accounting.samplers.allocation_rdp import rdp_remove
        >>> [round(float(x), 10) for x in rdp_remove([2, 8], 1.0, 10)]
        [0.1585650787, 1.7075413038]
    """
    alpha = _orders(orders)
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    t = int(v.scalar("num_steps", v.integer_at_least("num_steps", num_steps, 1)))
    d = v.scalar("sensitivity", v.positive("sensitivity", sensitivity))
    s = d / z
    top = math.ceil(float(alpha.max()))
    logm = _log_moments(max(top, 2), s, t)
    lo = np.floor(alpha).astype(int)
    hi = np.ceil(alpha).astype(int)
    frac = alpha - lo
    lo = np.maximum(lo, 1)
    log_at = (1.0 - frac) * logm[lo] + frac * logm[hi]  # chord of the convex log-moment (exact at integers)
    log_at = np.where(alpha == lo, logm[lo], log_at)
    out = np.maximum(log_at / (alpha - 1.0), 0.0)
    return float(out[0]) if np.ndim(orders) == 0 else out


def rdp_add_bound(orders: ArrayLike, noise_multiplier: float, num_steps: int,
                  sensitivity: float = 1.0) -> float | np.ndarray:
    """Upper bound on D_α(Q‖P) of one round: s²/2 + (α − 1)s²/(2t), s = Δ/σ (AM–GM; module docstring).

    Examples:
        >>> from dpcalc.accounting.samplers.allocation_rdp import rdp_add_bound
        >>> [float(x) for x in rdp_add_bound([2, 8], 1.0, 10)]
        [0.55, 0.85]
    """
    alpha = _orders(orders)
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    t = int(v.scalar("num_steps", v.integer_at_least("num_steps", num_steps, 1)))
    d = v.scalar("sensitivity", v.positive("sensitivity", sensitivity))
    s2 = (d / z) ** 2
    out = s2 / 2.0 + (alpha - 1.0) * s2 / (2.0 * t)
    return float(out[0]) if np.ndim(orders) == 0 else out


def rdp_allocation(orders: ArrayLike, noise_multiplier: float, num_selected: int, num_steps: int, epochs: int = 1,
                   relation: str = "add_remove") -> tuple[np.ndarray, np.ndarray]:
    """(remove, add) RDP curves of ``epochs`` epochs of k-of-t random allocation: k·epochs rounds of 1 out of ⌊t/k⌋.
    The remove curve is exact for the dominating pair at integer orders, the add curve an upper bound; an RDP
    accountant takes the larger (relation add_remove or replace_special; replace_one is refused: a replaced record
    keeps its slot, a pair this module does not bound).

    Examples:
        >>> from dpcalc.accounting.samplers.allocation_rdp import rdp_allocation
        >>> rem, add = rdp_allocation([2, 8], 1.1, 1, 234, epochs=10)
        >>> [round(float(x), 6) for x in rem], [round(float(x), 6) for x in add]
        ([0.054772, 0.222421], [4.149891, 4.255845])
    """
    a = allocation(noise_multiplier, num_selected, num_steps, epochs)
    if relation not in ("add_remove", "replace_special"):
        raise DomainError(f"relation must be add_remove or replace_special for random allocation (got "
                          f"{v.brief(relation)}): under replace_one the record keeps its step, a pair not bounded here")
    m, tt = a.rounds, a.steps_per_round
    rem = np.atleast_1d(rdp_remove(np.atleast_1d(orders), a.noise_multiplier, tt))
    add = np.atleast_1d(rdp_add_bound(np.atleast_1d(orders), a.noise_multiplier, tt))
    return m * rem, m * add
