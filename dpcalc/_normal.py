"""Standard normal tails without SciPy: erfcx, Φ, log Φ and Φ⁻¹ of floats from ``math.erfc`` (within 1.5 ulps of
the exact erfc over its normal range) in forms that keep their relative accuracy in the tails, and the same
functions elementwise on arrays.

* ``erfcx(x) = e^{x²}·erfc(x)``: the product for x < 26, with e^{x²} from a split x = x_h + x_l (x_h of 26 bits, so
  x_h² is exact); the asymptotic series (1/(x√π))·Σ (−1)ⁿ(2n − 1)!!/(2x²)ⁿ from x = 26 (truncation below 1e-19).
* ``ndtr(x) = Φ(x)``: ½ + ½erf(x/√2) for |x| < 1, ½erfc(|x|/√2) (or 1 minus it) beyond, the rounding of |x|/√2
  corrected to first order (erfc's condition number 2z² would turn it into ~x² ulps, as in SciPy's ndtr).
* ``log_ndtr(x) = log Φ(x)``: log1p(−Φ(−x)) above 0, log Φ(x) down to −20 (from erf above −1), −x²/2 − ln 2 +
  log erfcx(−x/√2) below (finite far below the double range of Φ).
* ``ndtri(p) = Φ⁻¹(p)``: Acklam's rational approximation refined by two Newton steps (in log space below −37).

The tests compare every function with mpmath at 40 digits over its whole domain (tests/test_normal.py). The array
forms loop in Python over small arrays (no SciPy import on the command line's path) and hand large ones (at least
`VECTOR_MIN` elements) to SciPy's ufuncs, which the same tests hold to the same tolerances.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from dpcalc.typing import FloatArray

__all__ = ["VECTOR_MIN", "erf_array", "erfc_array", "erfcx", "erfcx_array", "log_ndtr", "log_ndtr_array", "ndtr",
           "ndtr_array", "ndtri", "ndtri_array"]

_SQRT2 = math.sqrt(2.0)
_SQRT1_2 = math.sqrt(0.5)
_SQRT1_2_LO = -4.833646656726457e-17  # √½ − _SQRT1_2 (mpmath, 50 digits)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LN2 = math.log(2.0)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split into two halves of 26 bits
_ERFCX_SERIES = 26.0  # erfcx from its asymptotic series from here (erfc(26) ~ 6e-296, still normal)
_ERFCX_TERMS = 10  # (2n − 1)!!/(2x²)ⁿ at n = 10, x = 26: ~1e-21
_LOG_NDTR_ERFCX = -20.0  # log Φ from erfcx below this
#: arrays with at least this many elements go to SciPy's ufuncs (its import, ~0.3 s, then pays for itself)
VECTOR_MIN = 512


def _exp_square(x: float) -> float:
    """e^{x²} for |x| < 27 to ~2 ulps: x = x_h + x_l with x_h of 26 bits, x² = x_h² (exact) + x_l·(x + x_h)."""
    c = _SPLIT * x
    xh = c - (c - x)
    return math.exp(xh * xh) * math.exp((x - xh) * (x + xh))


def erfcx(x: float) -> float:
    """The scaled complementary error function e^{x²}·erfc(x) of a float (+inf below x ≈ −26.6, where it
    overflows)."""
    if x < _ERFCX_SERIES:
        if x < -26.7:
            return math.inf
        return _exp_square(x) * math.erfc(x)
    inv = 1.0 / (2.0 * x * x)
    total, term = 1.0, 1.0
    for n in range(1, _ERFCX_TERMS + 1):
        term *= -(2 * n - 1) * inv
        total += term
    return _INV_SQRT_PI * total / x


def _split(a: float) -> tuple[float, float]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


_S_HI, _S_LO = _split(_SQRT1_2)


def _erfc_scaled(x: float) -> float:
    """erfc(|x|/√2) with the rounding of |x|/√2 corrected: z = fl(|x|·√½) misses the exact product by dz (Dekker's
    product error plus |x| times √½'s own rounding), and erfc's condition number 2z² would turn that into up to
    ~x² ulps; erfc(z + dz) = erfc(z)·(1 − dz·2e^{−z²}/(√π·erfc(z))) to first order (dz·z < 1e-14)."""
    a = abs(x)
    z = a * _SQRT1_2
    y = math.erfc(z)
    if z < 0.5 or y == 0.0:
        return y
    ah, al = _split(a)
    dz = ((ah * _S_HI - z) + ah * _S_LO + al * _S_HI) + al * _S_LO + a * _SQRT1_2_LO
    # e^{−z²}/erfc(z) = 1/erfcx(z) ≈ √π·z·(1 + 1/(2z²)) where erfc is near the end of the double range
    ratio = math.exp(-z * z) / y if z < 20.0 else math.sqrt(math.pi) * z * (1.0 + 0.5 / (z * z))
    return y * (1.0 - dz * _TWO_OVER_SQRT_PI * ratio)


def ndtr(x: float) -> float:
    """Φ(x), the standard normal CDF of a float."""
    if abs(x) < 1.0:
        return 0.5 + 0.5 * math.erf(x * _SQRT1_2)
    y = 0.5 * _erfc_scaled(x)
    return 1.0 - y if x > 0 else y


def log_ndtr(x: float) -> float:
    """log Φ(x) of a float, finite for every finite x (−x²/2 − log(−x√(2π)) + … far in the lower tail)."""
    if x > 0.0:
        return math.log1p(-0.5 * _erfc_scaled(x))
    if x > -1.0:  # Φ = ½ + ½erf(x/√2): its absolute error ~u·|x|, not u (δ(0; μ) = erf(μ/2√2) lives here)
        return math.log(0.5 + 0.5 * math.erf(x * _SQRT1_2))
    if x > _LOG_NDTR_ERFCX:
        return math.log(0.5 * _erfc_scaled(x))
    if math.isinf(x):
        return -math.inf
    return -0.5 * x * x - _LN2 + math.log(erfcx(-x * _SQRT1_2))


_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def _acklam(p: float) -> float:
    """Acklam's rational approximation of Φ⁻¹(p) (relative error below 1.2e-9)."""
    if p < _P_LOW or p > 1.0 - _P_LOW:
        q = math.sqrt(-2.0 * (math.log(p) if p < _P_LOW else math.log1p(-p)))
        x = ((((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5])
             / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0))
        return x if p < _P_LOW else -x
    q = p - 0.5
    r = q * q
    return ((((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
            / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0))


def ndtri(p: float) -> float:
    """Φ⁻¹(p) of a float in (0, 1) (−inf at 0, +inf at 1): Acklam's approximation and two Newton steps, on log Φ
    in the lower tail (where Φ(x) − p and e^{x²/2} leave the double range), on ½erf(x/√2) = p − ½ in the middle
    (p − ½ is exact there) and on Φ(−x) = 1 − p in the upper tail (no cancellation in 1 − Φ)."""
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        return math.nan
    x = _acklam(p)
    if p < _P_LOW:
        lp = math.log(p)
        for _ in range(2):  # slope of log Φ: φ(x)/Φ(x) = e^{log φ − log Φ}
            lx = log_ndtr(x)
            x -= (lx - lp) / math.exp(-0.5 * x * x - _LOG_SQRT_2PI - lx)
        return x
    if p <= 1.0 - _P_LOW:
        c = p - 0.5
        for _ in range(2):
            x -= (0.5 * math.erf(x * _SQRT1_2) - c) / math.exp(-0.5 * x * x - _LOG_SQRT_2PI)
        return x
    for _ in range(2):
        x += (ndtr(-x) - (1.0 - p)) / math.exp(-0.5 * x * x - _LOG_SQRT_2PI)
    return x


def _elementwise(scalar: Callable[[float], float], ufunc: str) -> Callable[[ArrayLike], FloatArray]:
    """``scalar`` on each element of an array (float64 out), or SciPy's ``ufunc`` for large arrays."""
    loop = np.frompyfunc(scalar, 1, 1)

    def apply(x: ArrayLike) -> FloatArray:
        arr = np.asarray(x, dtype=np.float64)
        if arr.size >= VECTOR_MIN:
            from scipy import special

            return np.asarray(getattr(special, ufunc)(arr), dtype=np.float64)
        return np.asarray(loop(arr), dtype=np.float64)

    apply.__name__ = f"{ufunc}_array"
    apply.__doc__ = f"``{scalar.__name__}`` elementwise on an array (SciPy's ``{ufunc}`` from {VECTOR_MIN} elements)."
    return apply


erfcx_array = _elementwise(erfcx, "erfcx")
ndtr_array = _elementwise(ndtr, "ndtr")
log_ndtr_array = _elementwise(log_ndtr, "log_ndtr")
ndtri_array = _elementwise(ndtri, "ndtri")
erf_array = _elementwise(math.erf, "erf")
erfc_array = _elementwise(math.erfc, "erfc")
