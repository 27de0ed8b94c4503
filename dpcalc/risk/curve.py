"""What every trade-off curve offers (`TradeOffCurve`): β(α) and the privacy profile δ(ε) as certified
(lower, upper) pairs, in one of three orientations, and what kind of bound it is.

Orientations (`dpcalc.risk.profile.ORIENTATIONS`): ``symmetric`` — the mechanism's f-DP curve, valid for every
neighbouring pair in either order (the guarantee); ``membership`` — the test "the target is out" (null) against
"in", i.e. FPR = P(say in | out), TPR = P(say in | in); ``non_membership`` — the reverse test. They differ only
for asymmetric losses (Poisson subsampling).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._validate import FloatArray
from dpcalc.errors import DomainError
from dpcalc.risk.profile import ORIENTATIONS

__all__ = ["KINDS", "TradeOffCurve", "check_alpha", "check_curve", "check_orientation", "reverse"]

#: exact: the curve itself; certified: a bracket [lower, upper] around it; weaker: the (ε, δ) guarantee's curve
KINDS = ("exact", "certified", "weaker")


def check_orientation(orientation: str) -> str:
    return v.choice("orientation", orientation, ORIENTATIONS)


def reverse(orientation: str) -> str:
    """The orientation of the reversed test (symmetric stays)."""
    return {"membership": "non_membership", "non_membership": "membership"}.get(orientation, orientation)


def check_alpha(alpha: ArrayLike, name: str = "fpr") -> FloatArray:
    """FPR values in (0, 1] (an attack at FPR 0 is not an operating point a bound speaks about)."""
    return v.check_range(name, alpha, 0.0, 1.0, lo_open=True)


class TradeOffCurve(ABC):
    """A trade-off function β = f(α) known as a certified pair (lower, upper) of arrays; ``kind`` in `KINDS`."""

    kind: str = "exact"
    description: str = ""

    @abstractmethod
    def beta(self, alpha: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        """(β_lower, β_upper) at each α in [0, 1] (1-D array)."""

    @abstractmethod
    def delta(self, eps: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        """(δ_lower, δ_upper) of the profile δ_in(ε) = H_{e^ε}(in ‖ out) of the orientation, at ε ≥ 0 (1-D)."""

    def tpr(self, fpr: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        """(TPR_lower, TPR_upper) = (1 − β_upper, 1 − β_lower) at each FPR."""
        lo, up = self.beta(np.asarray(fpr, dtype=np.float64), orientation)
        return 1.0 - up, 1.0 - lo


def check_curve(curve: object, name: str = "curve") -> TradeOffCurve:
    """``curve`` if it is a `TradeOffCurve`, else a one-line `DomainError` naming ``name`` (a number or a list of
    FPRs where the curve belongs would fail deep inside with an AttributeError)."""
    if not isinstance(curve, TradeOffCurve):
        raise DomainError(f"{name} must be a trade-off curve (dpcalc.risk.gaussian_curve, approx_dp_curve or "
                          f"tradeoff_curve) (got {v.brief(curve)})")
    return curve
