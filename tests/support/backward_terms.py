"""The documented absolute (backward) error terms of the inverses whose relative error is ill-conditioned near a
boundary, shared by the family sweeps and the catalog sweeps: the GDP inverses near δ(0; μ), zCDP near the
Bretagnolle–Huber boundary."""

from __future__ import annotations

from typing import Any

import mpmath

from dpcalc.accounting import gdp, zcdp


def backward(mu: Any, delta: float, eps: float) -> float:
    """The documented backward term of ε(μ, δ): twice the bound on the log δ evaluation error at the point
    (``gdp._log_delta_error``: ``LOG_DELTA_ERR`` times the cancellation factor of the branch used) over the exact
    slope |d log δ/dε| = e^ε Φ(−ε/μ − μ/2)/δ at the reference ε (large only near δ(0; μ), where ε ≪ δ): the computed
    root may sit one such term off the exact one, and its end is then moved out by another. (Once: μ = 6.37e-5,
    δ = 2.54e-5 came 1.03 terms above the exact root with a 0.5-ulp erfcx, 0.82 with SciPy's 2.5-ulp one.)"""
    import numpy as np

    err = float(gdp._log_delta_error(np.array([float(eps)]), np.array([float(mu)]))[0])
    mu = mpmath.mpf(mu)
    slope = mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2) / mpmath.mpf(delta)
    return 0.0 if slope == 0 else float(2.0 * err / slope)


def zcdp_eps(rho: float, delta: float, eps: float) -> float:
    """ε(ρ, δ)'s documented absolute term: 4u·conversion.rounding_scale at the implementation's optimal order."""
    import math

    import numpy as np

    from dpcalc.accounting import conversion

    x = float(zcdp.optimal_order(rho, delta)) - 1.0
    if not x > 0.0 or not math.isfinite(x):
        return 0.0
    return 4.0 * 2.0**-53 * float(conversion.rounding_scale(rho * (1.0 + x), np.float64(x), math.log(delta)))
