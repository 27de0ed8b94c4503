"""Small statistics helpers (no SciPy at import): normal quantiles, mean ± CI."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpcalc import _numerics
from dpcalc import _validate as v
from dpcalc._repr import short_repr

__all__ = ["Estimate", "from_moments", "normal_cdf", "normal_quantile", "z_for"]


@v.scalar_params
def normal_cdf(x: float) -> float:
    """Standard normal CDF Φ(x) (validated; the kernel is `dpcalc._numerics.normal_cdf`)."""
    return _numerics.normal_cdf(v.scalar("x", v.as_array("x", x)))


@v.scalar_params
def normal_quantile(p: float) -> float:
    """Standard normal quantile Φ⁻¹(p) for 0 < p < 1 (Acklam's rational approximation refined by Newton steps)."""
    p = v.scalar("p", v.probability("p", p))
    a = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
         -3.066479806614716e01, 2.506628277459239e00)
    b = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
         -1.328068155288572e01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
         4.374664141464968e00, 2.938163982698783e00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
    lo = 0.02425
    if p < lo:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    elif p > 1 - lo:
        q = math.sqrt(-2 * math.log1p(-p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    else:
        q = p - 0.5
        r = q * q
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    if x < -37.0:  # φ(x) ~ e^{-685}: Newton on log Φ, where Φ(x) − p and e^{x²/2} leave the double range
        for _ in range(3):
            x -= (_log_normal_cdf_tail(x) - math.log(p)) / _mills_inverse(x)
        return x
    for _ in range(2):  # Newton refinement to full double precision
        e = _numerics.normal_cdf(x) - p
        x -= e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x


def _tail_series(x: float) -> float:
    """Φ(x)·|x|/φ(x) for x < −37: the asymptotic series 1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸ (truncation error below
    945/x¹⁰ < 1e-12 of the sum)."""
    u = 1.0 / (x * x)
    return 1.0 - u * (1.0 - u * (3.0 - u * (15.0 - 105.0 * u)))


def _log_normal_cdf_tail(x: float) -> float:
    """log Φ(x) for x < −37 (`_tail_series`)."""
    return -0.5 * x * x - math.log(-x) - 0.5 * math.log(2.0 * math.pi) + math.log(_tail_series(x))


def _mills_inverse(x: float) -> float:
    """d log Φ/dx = φ(x)/Φ(x) for x < −37 (the same series): ≈ |x|."""
    return -x / _tail_series(x)


@short_repr
@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with its standard error and a two-sided confidence interval."""

    value: float
    se: float
    ci_low: float
    ci_high: float
    n: int

    def contains(self, x: float) -> bool:
        return self.ci_low <= x <= self.ci_high


@v.scalar_params
def z_for(level: float) -> float:
    """Two-sided normal quantile for confidence ``level`` (0.999 → 3.2905)."""
    # −Φ⁻¹((1 − level)/2): 0.5 + level/2 rounds to 1 for level = 1 − 1e-16 (an error about p, not level)
    return -normal_quantile(0.5 * (1.0 - v.scalar("level", v.probability("level", level))))


def from_moments(total: float, total_sq: float, n: int, level: float = 0.999) -> Estimate:
    """Mean ± z·SE from a running sum and sum of squares of n i.i.d. terms."""
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    se = math.sqrt(var / n)
    z = z_for(level)
    return Estimate(mean, se, mean - z * se, mean + z * se, n)
