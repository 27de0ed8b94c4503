"""Small numerically careful building blocks shared by the families (log-space, expm1/log1p).

References: the cancellation-free forms follow the advice in Higham, *Accuracy and Stability of
Numerical Algorithms* (2002), §1.14 (``expm1``/``log1p``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcalc.typing import FloatArray

__all__ = ["LN2", "SAFE_UP", "SAFE_UP_LOG", "FloatArray", "expm1mx", "gammaln", "half_d_log1p_ratio", "log1p_exp",
           "log1pmx", "log_expm1", "log_snr_budget", "normal_cdf", "snr_budget"]


LN2 = math.log(2.0)
_SQRT2 = math.sqrt(2.0)

#: Outward factors for closed-form bounds (convention 5: never on the unsafe side). A float64 closed form lands
#: within a few ulps of the exact value on either side; multiplying a noise level (σ, σ²) by ``SAFE_UP`` or a
#: guaranteed leakage ε by ``SAFE_UP_LOG`` (log-space forms carry ~|log x|·ulp) puts it on the safe side. The
#: domain sweeps (tests/families/test_sweep_seeds.py) assert the side at every point.
SAFE_UP = 1.0 + 5e-14  # deep sweep (10,000 points): 2e-15 left σ up to 1.9e-14 below the exact minimum
SAFE_UP_LOG = 1.0 + 1e-13


def normal_cdf(x: float) -> float:
    """Standard normal CDF Φ(x) of a float, as ``erfc(−x/√2)/2``: relative accuracy ~1e-15 in the lower tail too
    (no 1 − Φ cancellation), no SciPy import."""
    return 0.5 * math.erfc(-x / _SQRT2)


_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)


def gammaln(x: ArrayLike) -> FloatArray:
    """log Γ(x) elementwise for x > 0 (``math.lgamma``: within 5 ulps of the exact value, tests/test_normal.py;
    no SciPy import)."""
    return np.asarray(_LGAMMA(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def log_expm1(x: ArrayLike) -> FloatArray:
    """Stable ``log(exp(x) - 1)`` for ``x > 0``: ``x + log1p(-exp(-x))`` for large x, no overflow."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", divide="ignore"):
        small = np.log(np.expm1(np.minimum(x, 1.0)))
        large = x + np.log1p(-np.exp(-np.maximum(x, 1.0)))
    return np.where(x > 1.0, large, small)


_SERIES = 0.25  # below |x| = 0.25 the second-order remainders are summed as series (30 terms: 0.25^30 < 1e-18)


def log1pmx(x: ArrayLike) -> FloatArray:
    """``log(1 + x) − x`` for x > −1 without cancellation: the series Σ_{n>=2} (−1)^{n+1} xⁿ/n for |x| < 0.25
    (relative error ~1e-16), ``log1p(x) − x`` beyond (where it loses at most a factor 8 in relative terms)."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < _SERIES
    xs = np.where(small, x, 0.0)
    series = np.zeros_like(xs)
    term = xs * xs
    for n in range(2, 32):
        series += (term if n % 2 == 1 else -term) / n
        term = term * xs
    with np.errstate(invalid="ignore", divide="ignore"):
        direct = np.log1p(x) - x
    return np.asarray(np.where(small, series, direct))


def expm1mx(x: ArrayLike) -> FloatArray:
    """``e^x − 1 − x`` without cancellation: the series Σ_{n>=2} xⁿ/n! for |x| < 0.25, ``expm1(x) − x`` beyond."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < _SERIES
    xs = np.where(small, x, 0.0)
    series = np.zeros_like(xs)
    term = xs * xs / 2.0
    for n in range(3, 24):
        series += term
        term = term * xs / n
    with np.errstate(over="ignore", invalid="ignore"):
        direct = np.expm1(x) - x
    return np.asarray(np.where(small, series, direct))


def log1p_exp(x: ArrayLike) -> FloatArray:
    """Stable ``log(1 + exp(x))`` (softplus) for any real x."""
    x = np.asarray(x, dtype=np.float64)
    return np.logaddexp(0.0, x)


def snr_budget(eps: ArrayLike, d: ArrayLike) -> FloatArray:
    """``g(ε, d) = d·(e^{2ε/d} − 1)``, computed as ``d*expm1(2ε/d)`` (He & He 2023, eq. (4.7)).

    It is the largest signal-to-noise ratio ``p²C²/σ²`` that keeps the Gaussian max-entropy leakage
    bound ``(d/2)·ln(1 + p²C²/(dσ²))`` at or below ε nats. Overflows to inf only when ε/d > ~354;
    callers that need that region use `log_snr_budget`.
    """
    eps = np.asarray(eps, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    with np.errstate(over="ignore"):
        return d * np.expm1(2.0 * eps / d)


def log_snr_budget(eps: ArrayLike, d: ArrayLike) -> FloatArray:
    """``log g(ε, d)`` without overflow: ``log d + log_expm1(2ε/d)``."""
    eps = np.asarray(eps, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    return np.log(d) + log_expm1(2.0 * eps / d)


def half_d_log1p_ratio(d: ArrayLike, log_ratio2: ArrayLike) -> FloatArray:
    """``(d/2)·log1p(exp(log_ratio2)/d)``: the Gaussian leakage bound given ``log(p²C²/σ²)``, overflow-free."""
    d = np.asarray(d, dtype=np.float64)
    z = np.asarray(log_ratio2, dtype=np.float64) - np.log(d)
    return 0.5 * d * log1p_exp(z)

