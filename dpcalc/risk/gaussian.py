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

__all__ = ["GaussianCurve", "bayes_success", "mu_for_tpr", "tpr"]


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
        e = np.asarray(eps, dtype=np.float64)
        d = np.zeros_like(e) if self.mu == 0.0 else np.asarray(gdp.delta(self.mu, e), dtype=np.float64)
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
    mu = np.asarray(ndtri(t) - ndtri(a), dtype=np.float64)
    # rounded down by a few ulps: the TPR at the returned μ stays <= the target (the safe side, conventions §5)
    return v.scalar_or_array(np.maximum(mu * (1.0 - 4e-15) - 4e-16, 0.0))


@v.named_shapes
def bayes_success(mu: ArrayLike, prior: ArrayLike) -> float | FloatArray:
    """Largest probability of guessing membership right against a μ-GDP mechanism when the target is in with
    probability π: max(π, 1 − π) + min(π, 1 − π)·δ(|ln((1 − π)/π)|; μ) (`dpcalc.risk.attack`; Kulynych et al. 2025,
    Prop. D.1); (1 + 2Φ(μ/2) − 1)/2 = Φ(μ/2) at π = ½.

    Examples:
        >>> from dpcalc.risk import gaussian
        >>> round(gaussian.bayes_success(1.0, 0.5), 6)
        0.691462
    """
    m = v.nonnegative("mu", mu)
    p = v.check_range("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    m, p = v.broadcast(mu=m, prior=p)
    lo = np.minimum(p, 1.0 - p)
    d = np.where(m > 0.0, gdp.delta(np.where(m > 0.0, m, 1.0), np.abs(np.log1p(-p) - np.log(p))), 0.0)
    return v.scalar_or_array(np.asarray(1.0 - lo + lo * d, dtype=np.float64))
