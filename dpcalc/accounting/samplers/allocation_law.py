"""The law of S = Σᵢ Yᵢ, Yᵢ = e^{ℓᵢ} independent log-normals, on a linear grid with one-sided rounding: the
engine behind the random-allocation PLD (`allocation_pld`).

Each Yᵢ is rounded to the grid hℕ, up (S̃ ≥ S) or down (S̃ ≤ S); the sum of grid values is on the grid, so the only
rounding is that of the summands. The t-fold sum is built by binary powering of linear (zero-padded FFT)
convolutions cut at the cap W: a partial sum above W stays above it (all terms are ≥ 0), so its mass is moved to
"above W" (``over``) when rounding up and onto the top cell when rounding down. Both keep the one-sided order.

FFT round-off: negative cells are cleared, and a mass 20·u·log₂L·L·‖a‖₂‖b‖₂ per convolution of length L (the
order of the componentwise FFT error times the number of cells) is moved from the lowest cells (rounding up) or the
highest cells (rounding down) to the side that only increases the privacy loss. This margin is a numerical, not a
proved, guarantee (as the PLD accountant's quadrature margin; measured FFT errors are ~1e-19 a cell).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcalc.errors import DomainError

__all__ = ["SumLaw", "lognormal_cells", "sum_law"]

_U = 2.0**-53
#: the most grid cells the engine allocates (FFT of about twice this: ~200 MB peak)
MAX_CELLS = 1 << 22


@dataclass(frozen=True)
class SumLaw:
    """P(S̃ = j·h) = ``mass[j]`` for j < cells; ``over`` the mass above the cap (rounding up only)."""

    h: float
    mass: np.ndarray
    over: float
    round_up: bool


def lognormal_cells(mu: float, s: float, h: float, cells: int, round_up: bool) -> tuple[np.ndarray, float]:
    """Masses of Y = e^{N(μ, s²)} rounded to the grid hℕ (up: cell j holds ((j − 1)h, jh]; down: [jh, (j + 1)h)),
    on cells 0..cells−1, and the mass beyond the last cell (``cells·h`` and above)."""
    from scipy.special import log_ndtr

    edges = np.arange(cells + 1, dtype=np.float64) * h
    with np.errstate(divide="ignore"):
        z = (np.log(edges) - mu) / s
    # P(Y ≤ e) from the side with the smaller tail (relative accuracy in both tails)
    lower = np.exp(log_ndtr(z))
    upper = np.exp(log_ndtr(-z))
    mid = np.searchsorted(z, 0.0)
    cdf_lo, sf_hi = lower[:mid], upper[mid:]
    cell = np.empty(cells + 1)
    cell[: max(mid - 1, 0)] = np.diff(cdf_lo) if mid > 1 else cell[:0]
    if 0 < mid < cells + 1:
        cell[mid - 1] = (1.0 - sf_hi[0]) - cdf_lo[-1]
    cell[mid: cells] = -np.diff(sf_hi)
    beyond = float(upper[-1])
    masses = np.maximum(cell[:cells], 0.0)  # masses of (e_j, e_{j+1}] for j = 0..cells−1
    out = np.zeros(cells)
    if round_up:  # (jh, (j+1)h] → (j + 1)h
        out[1:] = masses[: cells - 1]
        tail = beyond + float(masses[cells - 1])
    else:  # [jh, (j+1)h) → jh
        out[:] = masses
        tail = beyond
    return out, tail


class _Conv:
    """Linear convolutions of arrays of ``n`` cells, cut at n, with one FFT length; transforms are reused."""

    def __init__(self, n: int, round_up: bool) -> None:
        from scipy import fft

        self.fft, self.n, self.round_up = fft, n, round_up
        self.length = fft.next_fast_len(2 * n - 1, real=True)
        self.c = 20.0 * _U * math.log2(self.length) * math.sqrt(self.length)

    def spectrum(self, a: np.ndarray) -> np.ndarray:
        return self.fft.rfft(a, self.length)

    def product(self, a: np.ndarray, fa: np.ndarray, b: np.ndarray, fb: np.ndarray) -> np.ndarray:
        """a ⊛ b cut at n cells. Rounding up, the mass above the cap leaves the array (it is 1 − the array's sum);
        rounding down, it is put on the top cell. FFT round-off as in the module docstring: the ℓ1 error of an FFT
        convolution is of order u·log₂L·√L·‖a‖₁‖b‖₂ (c = 20 here)."""
        n = self.n
        full = self.fft.irfft(fa * fb, self.length)[: 2 * n - 1]
        np.maximum(full, 0.0, out=full)
        margin = self.c * min(float(a.sum() * np.linalg.norm(b)), float(b.sum() * np.linalg.norm(a)))
        kept = full[:n].copy()
        if self.round_up:
            _take(kept, margin, from_low=True)  # to "above the cap" (loss +∞)
            return kept
        kept[-1] += float(full[n:].sum())
        _take(kept, margin, from_low=False)
        kept[0] += margin  # S̃ = 0: the loss −log(S̃/t) is +∞
        return kept


def _take(x: np.ndarray, amount: float, from_low: bool) -> None:
    """Remove ``amount`` of mass from the low (or high) end of ``x`` in place."""
    y = x if from_low else x[::-1]
    cum = np.cumsum(y)
    j = int(np.searchsorted(cum, amount))  # y[:j] is emptied, y[j] loses the rest
    if j >= y.size:
        y[:] = 0.0
        return
    y[j] = cum[j] - amount
    y[:j] = 0.0


def sum_law(s: float, count: int, extra: bool, h: float, cap: float, round_up: bool) -> SumLaw:
    """Law of S̃ = Σ of ``count`` copies of Y_Q = e^{N(−s²/2, s²)} (E[Y_Q] = 1), plus one Y_P = e^{N(s²/2, s²)} when
    ``extra``, each rounded to the grid hℕ (up or down), cut at ``cap``."""
    cells = math.ceil(cap / h) + 1
    if cells > MAX_CELLS:
        raise DomainError(f"the allocation PLD needs {cells} grid cells (cap {cap:.4g} at spacing {h:.3g}); at most "
                          f"{MAX_CELLS}: use a coarser grid (larger h)")

    def cells_of(mu: float) -> np.ndarray:
        y, tail = lognormal_cells(mu, s, h, cells, round_up)
        if not round_up:
            y[-1] += tail  # rounding down: the cap cell holds everything above
        return y

    conv = _Conv(cells, round_up)
    result = cells_of(s * s / 2.0) if extra else None
    base, k = cells_of(-s * s / 2.0), count
    f_base = conv.spectrum(base)
    while k:
        if k & 1:
            result = base.copy() if result is None else conv.product(result, conv.spectrum(result), base, f_base)
        k >>= 1
        if k:
            base = conv.product(base, f_base, base, f_base)
            f_base = conv.spectrum(base)
    assert result is not None
    over = max(0.0, 1.0 - math.fsum(result.tolist())) if round_up else 0.0
    return SumLaw(h, result, over, round_up)
