"""The f-DP ↔ privacy-profile duality with certified ends: β(α) from δ(ε) brackets on a grid of ε.

For a pair (P, Q) = (M(D'), M(D)) — the attacker's null hypothesis "the target is out" (P) against "it is in" (Q) —
the trade-off function T(P, Q)(α) (least type-II error β = 1 − TPR at type-I error α = FPR) is the upper envelope of
two families of lines (Dong, Roth & Su 2022, Prop. 2.12; Zhu, Dong & Wang 2022, Prop. 3 for both orientations):

    β(α) = sup_{ε ≥ 0} max(0, 1 − δ_in(ε) − e^ε α, e^{−ε}(1 − δ_out(ε) − α)),

δ_in(ε) = H_{e^ε}(Q ‖ P) (the "remove" orientation of a `dpcalc.accounting.pld.PrivacyLoss`), δ_out(ε) =
H_{e^ε}(P ‖ Q) (its "add" orientation); the symmetric f-DP curve of a mechanism uses max(δ_in, δ_out) in both.

Certified ends on a finite grid ε_0 = 0 < ε_1 < … < ε_n, from brackets δ_lo ≤ δ ≤ δ_up:

* lower end (the guarantee: no attack does better): every line is below β, so the lines at the grid points with
  δ_up in place of δ are a lower bound;
* upper end: on [ε_i, ε_{i+1}] δ is non-increasing and e^ε non-decreasing, so each line is at most
  1 − δ_lo(ε_{i+1}) − e^{ε_i} α (and e^{−ε_i}·(1 − δ_lo(ε_{i+1}) − α)₊); beyond ε_n at most 1 − e^{ε_n} α and
  e^{−ε_n}(1 − α). The maximum over the intervals bounds β from above.

Each α's maximising cell is refined once (a finer grid inside its two neighbouring cells), so the discretisation
gap is ~(|δ'| + e^ε α)·Δε with Δε = 2·(grid step)/`REFINE`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpcalc._validate import FloatArray

__all__ = ["REFINE", "DeltaFn", "beta_bounds"]

#: δ(ε) on an array of ε ≥ 0 (one orientation, one side of its bracket)
DeltaFn = Callable[[FloatArray], FloatArray]
#: points of the refined grid inside the two cells around each α's maximiser
REFINE = 129
_CHUNK = 64  # α values per block (memory: grid × chunk doubles)


def _lines(eps: FloatArray, d_in: FloatArray, d_out: FloatArray, alpha: FloatArray) -> FloatArray:
    """Both lines at each (ε, α): shape (len(ε), len(α))."""
    e = eps[:, None]
    a = alpha[None, :]
    one = 1.0 - d_in[:, None] - np.exp(e) * a
    two = np.exp(-e) * (1.0 - d_out[:, None] - a)
    return np.maximum(one, two)


def _cells(eps: FloatArray, d_in_lo: FloatArray, d_out_lo: FloatArray, alpha: FloatArray) -> FloatArray:
    """Upper bound of both lines on each cell [ε_i, ε_{i+1}]: shape (len(ε) − 1, len(α))."""
    e = eps[:-1, None]
    a = alpha[None, :]
    one = 1.0 - d_in_lo[1:, None] - np.exp(e) * a
    two = np.exp(-e) * np.maximum(1.0 - d_out_lo[1:, None] - a, 0.0)
    return np.maximum(one, two)


def _tail(top: float, alpha: FloatArray) -> FloatArray:
    """Both lines beyond the grid's last point (δ ≥ 0 there)."""
    return np.maximum(1.0 - np.exp(top) * alpha, np.exp(-top) * (1.0 - alpha))


def beta_bounds(alpha: FloatArray, eps: FloatArray, d_in: tuple[DeltaFn, DeltaFn],
                d_out: tuple[DeltaFn, DeltaFn]) -> tuple[FloatArray, FloatArray]:
    """(β_lower, β_upper) at each α (1-D) from the profile's (lower, upper) δ functions of both orientations on the
    ascending grid ``eps`` (eps[0] = 0). Both ends are clipped to [0, 1 − α]."""
    a_all = np.asarray(alpha, dtype=np.float64)
    lo_in, up_in = d_in[0](eps), d_in[1](eps)
    lo_out, up_out = d_out[0](eps), d_out[1](eps)
    b_lo = np.empty_like(a_all)
    b_up = np.empty_like(a_all)
    frac = np.linspace(0.0, 1.0, REFINE)
    for s in range(0, a_all.size, _CHUNK):
        a = a_all[s:s + _CHUNK]
        low = _lines(eps, up_in, up_out, a)
        cells = _cells(eps, lo_in, lo_out, a)
        best = np.argmax(low, axis=0)
        lo_val = low[best, np.arange(a.size)]
        # refine the two cells around each maximiser
        i0 = np.clip(best - 1, 0, eps.size - 1)
        i1 = np.clip(best + 1, 0, eps.size - 1)
        fine = eps[i0][:, None] + (eps[i1] - eps[i0])[:, None] * frac[None, :]  # (chunk, REFINE)
        flat = fine.ravel()
        f_up_in, f_up_out = d_in[1](flat), d_out[1](flat)
        f_lo_in, f_lo_out = d_in[0](flat), d_out[0](flat)
        k = a.size
        ea = np.exp(fine)
        one = 1.0 - f_up_in.reshape(k, REFINE) - ea * a[:, None]
        two = (1.0 - f_up_out.reshape(k, REFINE) - a[:, None]) / ea
        lo_val = np.maximum(lo_val, np.max(np.maximum(one, two), axis=1))
        # upper end: cells outside [ε_{i0}, ε_{i1}] from the coarse grid, the refined cells inside
        idx = np.arange(eps.size - 1)[:, None]
        outside = (idx < i0[None, :]) | (idx >= i1[None, :])
        coarse = np.max(np.where(outside, cells, -np.inf), axis=0)
        fl_in = f_lo_in.reshape(k, REFINE)
        fl_out = f_lo_out.reshape(k, REFINE)
        c_one = 1.0 - fl_in[:, 1:] - ea[:, :-1] * a[:, None]
        c_two = np.maximum(1.0 - fl_out[:, 1:] - a[:, None], 0.0) / ea[:, :-1]
        inside = np.max(np.maximum(c_one, c_two), axis=1)
        up_val = np.maximum(np.maximum(coarse, inside), _tail(float(eps[-1]), a))
        b_lo[s:s + _CHUNK] = np.clip(lo_val, 0.0, 1.0 - a)
        b_up[s:s + _CHUNK] = np.clip(up_val, 0.0, 1.0 - a)
    return b_lo, np.maximum(b_up, b_lo)
