"""The exact trade-off curve of a Gaussian mechanism (μ-GDP): G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022,
Def. 2.6) and its privacy profile δ(ε; μ) (Cor. 2.13); symmetric, so every orientation is the same curve. Also the
closed forms the catalog checks: the TPR bound Φ(Φ⁻¹(α) + μ), the μ for a target TPR at an FPR.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._validate import FloatArray
from dpcalc.accounting import gdp
from dpcalc.errors import DomainError
from dpcalc.risk.curve import TradeOffCurve, check_alpha, check_orientation

__all__ = ["GaussianCurve", "mu_for_tpr", "tpr"]


@dataclass(frozen=True)
class GaussianCurve(TradeOffCurve):
    """G_μ: exact (lower = upper)."""

    mu: float
    kind: str = "exact"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"{self.mu:.6g}-GDP"

    def beta(self, alpha: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        check_orientation(orientation)
        b = np.asarray(gdp.tradeoff(np.asarray(alpha, dtype=np.float64), self.mu), dtype=np.float64)
        return b, b.copy()

    def delta(self, eps: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        check_orientation(orientation)
        d = np.asarray(gdp.delta(self.mu, np.asarray(eps, dtype=np.float64)), dtype=np.float64)
        return d, d.copy()


@v.named_shapes
def tpr(mu: ArrayLike, fpr: ArrayLike) -> float | FloatArray:
    """Largest TPR of any membership test at FPR α against a μ-GDP mechanism: 1 − G_μ(α) = Φ(Φ⁻¹(α) + μ)
    (Dong, Roth & Su 2022, Def. 2.6).

    Examples:
        >>> from dpcalc.risk import gaussian
        >>> round(gaussian.tpr(1.0, 0.01), 6)
        0.092362
    """
    from scipy.special import ndtr, ndtri

    m = v.nonnegative("mu", mu)
    a = check_alpha(fpr)
    return v.scalar_or_array(np.asarray(ndtr(ndtri(a) + m), dtype=np.float64))


@v.named_shapes
def mu_for_tpr(tpr: ArrayLike, fpr: ArrayLike) -> float | FloatArray:
    """The largest μ whose curve keeps every attack at FPR α to TPR ≤ t: μ = Φ⁻¹(t) − Φ⁻¹(α) (t ≥ α; inverse of
    `tpr` in μ).

    Examples:
        >>> from dpcalc.risk import gaussian
        >>> round(gaussian.mu_for_tpr(0.1, 0.01), 6)
        1.044796
    """
    from scipy.special import ndtri

    a = check_alpha(fpr)
    t = v.check_range("tpr", tpr, 0.0, 1.0, lo_open=True, hi_open=True)
    if np.any(t < a):
        raise DomainError("tpr must be >= fpr (an attack that guesses at random already reaches TPR = FPR)")
    return v.scalar_or_array(np.asarray(ndtri(t) - ndtri(a), dtype=np.float64))
