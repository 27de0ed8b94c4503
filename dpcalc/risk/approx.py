"""The trade-off curve of the (ε, δ)-DP guarantee alone, f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))
(Dong, Roth & Su 2022, eq. (5); Kairouz, Oh & Viswanath 2015, Thm. 2.1: the curve of their four-outcome pair, which
dominates every (ε, δ)-DP mechanism). What an attacker can do knowing only (ε, δ): a weaker bound than the run's own
curve. Its profile: δ(ε') = δ + (1 − δ)(e^ε − e^{ε'})/(1 + e^ε) for ε' < ε, δ beyond.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._validate import FloatArray
from dpcalc.risk.curve import TradeOffCurve, check_alpha, check_orientation

__all__ = ["ApproxDpCurve", "advantage", "beta", "tpr"]

_EPS_MAX = 700.0  # e^ε stays finite


def _checked(eps: ArrayLike, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
    return (v.check_range("eps", eps, 0.0, _EPS_MAX),
            v.check_range("delta", delta, 0.0, 1.0, hi_open=True))


def _beta(e: FloatArray, d: FloatArray, a: FloatArray) -> FloatArray:
    one = 1.0 - d - np.exp(e) * a
    two = np.exp(-e) * (1.0 - d - a)
    return np.asarray(np.maximum(np.maximum(one, two), 0.0), dtype=np.float64)


@dataclass(frozen=True)
class ApproxDpCurve(TradeOffCurve):
    """f_{ε,δ}: exact for the guarantee, ``kind = "weaker"`` against the mechanism's own curve."""

    eps: float
    delta_: float
    kind: str = "weaker"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"({self.eps:.6g}, {self.delta_:.3g})-DP"

    def beta(self, alpha: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        check_orientation(orientation)
        b = _beta(np.float64(self.eps), np.float64(self.delta_), np.asarray(alpha, dtype=np.float64))
        return b, b.copy()

    def delta(self, eps: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        check_orientation(orientation)
        e = np.asarray(eps, dtype=np.float64)
        inside = self.delta_ + (1.0 - self.delta_) * (np.exp(self.eps) - np.exp(np.minimum(e, self.eps))) / (
            1.0 + np.exp(self.eps))
        d = np.where(e < self.eps, inside, self.delta_)
        return d, d.copy()


@v.named_shapes
def beta(eps: ArrayLike, delta: ArrayLike, fpr: ArrayLike) -> float | FloatArray:
    """f_{ε,δ}(α): the least FNR of any test at FPR α against an (ε, δ)-DP mechanism (module docstring).

    Examples:
        >>> from dpcalc.risk import approx
        >>> round(approx.beta(1.0, 0.001, 0.8), 6)
        0.073208
    """
    e, d = _checked(eps, delta)
    a = v.check_range("fpr", fpr, 0.0, 1.0)
    e, d, a = v.broadcast(eps=e, delta=d, fpr=a)
    return v.scalar_or_array(_beta(e, d, a))


@v.named_shapes
def tpr(eps: ArrayLike, delta: ArrayLike, fpr: ArrayLike) -> float | FloatArray:
    """Largest TPR at FPR α under (ε, δ)-DP: 1 − f_{ε,δ}(α) = min(1, δ + e^ε α, 1 − e^{−ε}(1 − δ − α)).

    Examples:
        >>> from dpcalc.risk import approx
        >>> round(approx.tpr(2.38, 1e-5, 0.01), 6)
        0.108059
    """
    e, d = _checked(eps, delta)
    a = check_alpha(fpr)
    e, d, a = v.broadcast(eps=e, delta=d, fpr=a)
    return v.scalar_or_array(1.0 - _beta(e, d, a))


@v.named_shapes
def advantage(eps: ArrayLike, delta: ArrayLike) -> float | FloatArray:
    """Largest membership advantage TPR − FPR under (ε, δ)-DP: (e^ε − 1 + 2δ)/(e^ε + 1) (the distance of
    f_{ε,δ} from the diagonal at its fixed point α* = (1 − δ)/(1 + e^ε)), computed as tanh(ε/2)(1 − δ) + δ.

    Examples:
        >>> from dpcalc.risk import approx
        >>> round(approx.advantage(1.0, 1e-5), 6)
        0.462123
    """
    e, d = _checked(eps, delta)
    e, d = v.broadcast(eps=e, delta=d)
    return v.scalar_or_array(np.asarray(np.tanh(e / 2.0) * (1.0 - d) + d, dtype=np.float64))
