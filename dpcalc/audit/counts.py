"""ε lower bounds from an attack's counts: true positives out of ``positives`` trials with the target in, false
positives out of ``negatives`` trials with it out (Jagielski, Ullman & Oprea 2020, Sec. 3; Nasr et al. 2021,
Sec. 4; Nasr et al. 2023 for the μ-GDP version).

With probability ≥ ``confidence`` both TPR ≥ TPR_lo and FPR ≤ FPR_hi (one-sided Clopper–Pearson bounds, each at
(1 − confidence)/2: a union bound). Every (ε, δ)-DP mechanism has TPR ≤ e^ε FPR + δ and 1 − FPR ≤ e^ε(1 − TPR) + δ,
so ε ≥ max(ln((TPR_lo − δ)/FPR_hi), ln((1 − FPR_hi − δ)/(1 − TPR_lo)), 0); with a group of k changed records and
δ = 0, ε ≥ that/k (group privacy). Every μ-GDP mechanism has TPR ≤ Φ(Φ⁻¹(FPR) + μ), so μ ≥ Φ⁻¹(TPR_lo) −
Φ⁻¹(FPR_hi) (a valid lower bound on μ); the ε of that μ at δ is a lower bound on ε only if the mechanism's curve
is Gaussian (the assumption Nasr et al. 2023 make for DP-SGD), and is labelled so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._validate import FloatArray
from dpcalc.audit.binomial import check_confidence, check_counts, cp_lower, cp_upper
from dpcalc.errors import DomainError

__all__ = ["CountsAudit", "audit_counts", "eps_lower", "mu_lower"]


@short_repr
@dataclass(frozen=True)
class CountsAudit:
    """An audit's result: ε_lower (a lower bound on the true ε at ``delta`` with probability ≥ ``confidence``),
    the confidence bounds it came from, the μ-GDP lower bound and the ε it implies for a Gaussian curve
    (``eps_gaussian``: inf at ``delta`` = 0 when μ > 0, a Gaussian curve having no finite ε at δ = 0)."""

    eps_lower: float
    confidence: float
    delta: float
    tpr: float
    fpr: float
    tpr_lower: float
    fpr_upper: float
    mu_lower: float
    eps_gaussian: float
    group_size: int = 1


def _ends(tp: ArrayLike, positives: ArrayLike, fp: ArrayLike, negatives: ArrayLike,
          confidence: float) -> tuple[FloatArray, FloatArray]:
    check_counts(tp, positives, "tp", "positives")
    check_counts(fp, negatives, "fp", "negatives")
    c = check_confidence(confidence)
    side = 1.0 - (1.0 - c) / 2.0  # each one-sided bound at half the failure probability
    return (np.asarray(cp_lower(tp, positives, side), dtype=np.float64),
            np.asarray(cp_upper(fp, negatives, side), dtype=np.float64))


def _eps_from_rates(tpr_lo: FloatArray, fpr_hi: FloatArray, delta: float) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.log(np.maximum(tpr_lo - delta, 0.0)) - np.log(fpr_hi)
        two = np.log(np.maximum(1.0 - fpr_hi - delta, 0.0)) - np.log(1.0 - tpr_lo)
    return np.maximum(np.maximum(np.nan_to_num(one, nan=-np.inf), np.nan_to_num(two, nan=-np.inf)), 0.0)


@v.named_shapes
def eps_lower(tp: ArrayLike, positives: ArrayLike, fp: ArrayLike, negatives: ArrayLike, confidence: float = 0.95,
              delta: float = 0.0, group_size: int = 1) -> float | FloatArray:
    """ε lower bound at ``delta`` from the counts, holding with probability ≥ ``confidence`` (module docstring).

    Examples:
        >>> from dpcalc.audit import eps_lower
        >>> round(eps_lower(500, 500, 0, 500, confidence=0.99), 12)   # TF-Privacy audit_2020 test vector
        4.541915810224
    """
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    k = int(v.scalar("group_size", v.integer_at_least("group_size", group_size, 1)))
    if k > 1 and d > 0.0:
        raise DomainError("group_size > 1 needs delta = 0 (group privacy of (ε, δ) also scales δ)")
    lo, hi = _ends(tp, positives, fp, negatives, confidence)
    return v.scalar_or_array(_eps_from_rates(lo, hi, d) / k)


@v.named_shapes
def mu_lower(tp: ArrayLike, positives: ArrayLike, fp: ArrayLike, negatives: ArrayLike,
             confidence: float = 0.95) -> float | FloatArray:
    """μ-GDP lower bound Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi) (≥ 0) from the counts, with probability ≥ ``confidence``.

    Examples:
        >>> from dpcalc.audit import mu_lower
        >>> round(mu_lower(900, 1000, 100, 1000), 4)
        2.3471
    """
    from scipy.special import ndtri

    lo, hi = _ends(tp, positives, fp, negatives, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.nan_to_num(ndtri(lo) - ndtri(hi), nan=0.0, neginf=0.0)
    return v.scalar_or_array(np.maximum(np.asarray(mu, dtype=np.float64), 0.0))


@v.scalar_params
def audit_counts(tp: int, positives: int, fp: int, negatives: int, *, confidence: float = 0.95,
                 delta: float = 0.0, group_size: int = 1) -> CountsAudit:
    """Every lower bound of one attack's counts (`eps_lower`, `mu_lower` and the Gaussian-curve ε, which is inf at
    ``delta`` = 0 when the μ lower bound is positive: no Gaussian curve is ε-DP for a finite ε)."""
    from dpcalc.accounting import gdp

    e = float(eps_lower(tp, positives, fp, negatives, confidence, delta, group_size))
    lo, hi = _ends(tp, positives, fp, negatives, confidence)
    mu = float(mu_lower(tp, positives, fp, negatives, confidence))
    d = float(delta)
    e_g = float(gdp.eps_from_mu(mu, d)) if mu > 0.0 and 0.0 < d < 1.0 else (0.0 if mu == 0.0 else math.inf)
    return CountsAudit(e, float(confidence), d, float(tp) / float(positives), float(fp) / float(negatives),
                       float(lo), float(hi), mu, e_g, int(group_size))
