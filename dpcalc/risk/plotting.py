"""The lines of the risk figure as plain functions of the FPR (what the `dpcalc.plot` preset ``risk-roc`` draws):
the run's certified TPR band and the ROC lower bound an audit proves. A run's curve is computed once per (z, q, T)
and reused by both ends of its band."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from dpcalc._validate import FloatArray
from dpcalc.risk.curve import TradeOffCurve

__all__ = ["audit_roc_lower", "chance", "tpr_lower", "tpr_upper"]


@lru_cache(maxsize=8)
def _curve(noise_multiplier: float, q: float, steps: int) -> TradeOffCurve:
    from dpcalc.risk.calibrate import dpsgd_curve

    return dpsgd_curve(noise_multiplier, q, steps)


def _band(fpr: ArrayLike, noise_multiplier: float, q: float, steps: float) -> tuple[FloatArray, FloatArray]:
    a = np.clip(np.asarray(fpr, dtype=np.float64), 1e-300, 1.0)
    return _curve(float(noise_multiplier), float(q), int(steps)).tpr(a.ravel())


def tpr_upper(fpr: ArrayLike, noise_multiplier: float, q: float, steps: float) -> FloatArray:
    """The certified TPR bound (upper end of the band) of a DP-SGD run at each FPR."""
    return _band(fpr, noise_multiplier, q, steps)[1]


def tpr_lower(fpr: ArrayLike, noise_multiplier: float, q: float, steps: float) -> FloatArray:
    """The lower end of the band: some pair of neighbouring datasets lets an attack reach at least this TPR."""
    return _band(fpr, noise_multiplier, q, steps)[0]


def chance(fpr: ArrayLike) -> FloatArray:
    """TPR = FPR: guessing at random."""
    return np.asarray(fpr, dtype=np.float64).copy()


def audit_roc_lower(fpr: ArrayLike, tp: float, positives: float, fp: float, negatives: float,
                    confidence: float = 0.95) -> FloatArray:
    """What an audit proves about the best attack's ROC, with probability ≥ ``confidence``: the optimal ROC is
    concave through (0, 0) and (1, 1) and passes above the audit's point (FPR_hi, TPR_lo) (Clopper–Pearson ends,
    each at (1 − confidence)/2), so it lies above the two chords through that point. A chord above the certified
    band contradicts the accounting."""
    from dpcalc.audit.binomial import cp_lower, cp_upper

    side = 1.0 - (1.0 - float(confidence)) / 2.0
    a = np.asarray(fpr, dtype=np.float64)
    f_hi, t_lo = float(cp_upper(fp, negatives, side)), float(cp_lower(tp, positives, side))
    left = a * t_lo / f_hi
    right = t_lo + (a - f_hi) * (1.0 - t_lo) / max(1.0 - f_hi, 1e-300)
    return np.asarray(np.maximum(np.minimum(left, right), a), dtype=np.float64)
