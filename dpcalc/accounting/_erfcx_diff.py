"""``log(erfcx(u) − erfcx(u + h))`` without cancellation, the difference behind δ(ε; μ) of μ-GDP
(`dpcalc.accounting.gdp`): erfcx's asymptotic series for large u, Gauss–Legendre quadrature of its derivative for
small h."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from dpcalc import _normal as sp
from dpcalc.typing import FloatArray

__all__ = ["ASYMPTOTIC_TERMS", "ASYMPTOTIC_U", "log_diff_asymptotic", "log_diff_quadrature"]

ASYMPTOTIC_U = 30.0  # erfcx asymptotic series used for u >= this (relative truncation error < 1e-19)
ASYMPTOTIC_TERMS = 9
_LOG_SQRT_PI = 0.5 * math.log(math.pi)


def log_diff_asymptotic(ua: FloatArray, h: FloatArray) -> FloatArray:
    """``log(erfcx(ua) − erfcx(ua + h))`` for ua >= 30 from erfcx(u) ~ (1/√π)Σ c_n u^{−(2n+1)}.

    Each difference ``u^{−k} − (u+h)^{−k} = u^{−k}·(−expm1(−k·log1p(h/u)))`` is cancellation-free; the
    series is alternating with ratio <= (2n+1)/(2u²) < 0.01, so the sum loses no digits.
    """
    r = np.log1p(h / ua)
    inv2 = 1.0 / (ua * ua)
    total = np.zeros_like(ua)
    coef = 1.0
    power = np.ones_like(ua)
    for n in range(ASYMPTOTIC_TERMS):
        k = 2 * n + 1
        total += coef * power * (-np.expm1(-k * r))
        coef *= -(2 * n + 1) / 2.0
        power = power * inv2
    with np.errstate(divide="ignore"):
        return np.log(total) - np.log(ua) - _LOG_SQRT_PI


@cache
def _gauss_legendre8() -> tuple[FloatArray, FloatArray]:
    """8-point Gauss–Legendre nodes and weights on [−1, 1] (computed on first use: keeps import fast)."""
    from numpy.polynomial.legendre import leggauss

    x, w = leggauss(8)
    return np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)


def log_diff_quadrature(ua: FloatArray, h: FloatArray) -> FloatArray:
    """``log(erfcx(ua) − erfcx(ua + h))`` for small h (< 0.1, 2·ua·h < 1), ua < 30: 8-point Gauss–Legendre of
    ``−erfcx'(u) = 2/√π − 2u·erfcx(u)`` over [ua, ua + h] (no h-fold cancellation; error ~1e-16·2u²)."""
    gx, gw = _gauss_legendre8()
    u = ua[:, None] + 0.5 * h[:, None] * (gx[None, :] + 1.0)
    integrand = 2.0 / math.sqrt(math.pi) - 2.0 * u * sp.erfcx_array(u)
    return np.log(0.5 * h * (integrand @ gw))
