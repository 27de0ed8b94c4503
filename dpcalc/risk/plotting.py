"""The lines of the risk figure as plain functions of the FPR (what `dpcalc.plot` presets and ``dpcalc risk plot``
draw): the run's certified TPR band, and an audit's Clopper–Pearson box (its two edges; NaN outside the box's FPR
interval, so each is drawn as a segment). A run's curve is computed once per (z, q, T) and reused by both ends."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from dpcalc._validate import FloatArray
from dpcalc.risk.curve import TradeOffCurve

__all__ = ["audit_tpr_high", "audit_tpr_low", "chance", "tpr_lower", "tpr_upper"]


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


def _box(fpr: ArrayLike, tp: float, positives: float, fp: float, negatives: float,
         confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from dpcalc.audit.binomial import cp_lower, cp_upper

    side = 1.0 - (1.0 - float(confidence)) / 2.0
    a = np.asarray(fpr, dtype=np.float64)
    f_lo, f_hi = float(cp_lower(fp, negatives, side)), float(cp_upper(fp, negatives, side))
    t_lo, t_hi = float(cp_lower(tp, positives, side)), float(cp_upper(tp, positives, side))
    inside = (a >= f_lo) & (a <= f_hi)
    return inside, np.full(a.shape, t_lo), np.full(a.shape, t_hi)


def audit_tpr_low(fpr: ArrayLike, tp: float, positives: float, fp: float, negatives: float,
                  confidence: float = 0.95) -> FloatArray:
    """The lower edge of an audit's confidence box (TPR_lo over [FPR_lo, FPR_hi], NaN elsewhere)."""
    inside, lo, _ = _box(fpr, tp, positives, fp, negatives, confidence)
    return np.where(inside, lo, np.nan)


def audit_tpr_high(fpr: ArrayLike, tp: float, positives: float, fp: float, negatives: float,
                   confidence: float = 0.95) -> FloatArray:
    """The upper edge of an audit's confidence box."""
    inside, _, hi = _box(fpr, tp, positives, fp, negatives, confidence)
    return np.where(inside, hi, np.nan)
