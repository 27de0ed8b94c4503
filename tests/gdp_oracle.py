"""The documented backward term of the GDP inverses, shared by the GDP and accounting sweeps."""

from __future__ import annotations

from typing import Any

import mpmath

from dpcalc.accounting import gdp


def backward(mu: Any, delta: float, eps: float) -> float:
    """The documented backward term of ε(μ, δ): the bound on the log δ evaluation error at the point
    (``gdp._log_delta_error``: ``LOG_DELTA_ERR`` times the cancellation factor of the branch used) over the exact
    slope |d log δ/dε| = e^ε Φ(−ε/μ − μ/2)/δ at the reference ε (large only near δ(0; μ), where ε ≪ δ)."""
    import numpy as np

    err = float(gdp._log_delta_error(np.array([float(eps)]), np.array([float(mu)]))[0])
    mu = mpmath.mpf(mu)
    slope = mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2) / mpmath.mpf(delta)
    return 0.0 if slope == 0 else float(err / slope)
