"""Units and validation shared by the Gaussian-prior MI modules (bits by default): a units string is validated and
converted by `dpcalc.units.nats_per_unit` (through the one validator `dpcalc.units.check`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import log_expm1
from dpcalc.errors import DomainError
from dpcalc.typing import FloatArray, FloatOrArray
from dpcalc.units import Units, nats_per_unit

__all__ = ["FloatOrArray", "Units", "eigen", "eps_nats", "equicorrelated", "log_c_eps", "nats_per_unit", "schur"]



@v.named_shapes
def eps_nats(eps: ArrayLike, units: str) -> FloatArray:
    """Validate ε > 0 (in ``units``) and return it in nats."""
    return v.positive("eps", eps) * nats_per_unit(units)


def log_c_eps(eps_n: FloatArray) -> FloatArray:
    """``log(2^{2ε_bits} − 1) = log(e^{2ε_nats} − 1)``, overflow-free."""
    return log_expm1(2.0 * eps_n)


@v.named_shapes
def equicorrelated(var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, names: tuple[str, str] = ("var", "cov"),
                   ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Validate an equicorrelated covariance (diagonal ``var``, off-diagonal ``cov``, size ``n``).

    Positive definite iff ``var > 0``, ``cov < var`` and ``cov > −var/(n−1)``; ``n`` an integer >= 2.
    """
    vn, cn = names
    a = v.positive(vn, var)
    b = v.as_array(cn, cov)
    nn = v.integer_at_least("n", n, 2)
    a_, b_, n_ = v.broadcast(**{vn: a, cn: b, "n": nn})
    bad_hi = b_ >= a_
    if np.any(bad_hi):
        i = int(np.flatnonzero(bad_hi.ravel())[0])
        raise DomainError(f"{cn} must be < {vn} for a positive-definite covariance (got {cn}={b_.flat[i]:g} >= "
                          f"{vn}={a_.flat[i]:g})")
    lo = -a_ / (n_ - 1.0)
    bad_lo = b_ <= lo
    if np.any(bad_lo):
        i = int(np.flatnonzero(bad_lo.ravel())[0])
        raise DomainError(f"{cn} must be > -{vn}/(n-1) for a positive-definite covariance (got {cn}="
                          f"{b_.flat[i]:g} <= {lo.flat[i]:g} at n={n_.flat[i]:g})")
    return a, b, nn


def eigen(var: FloatArray, cov: FloatArray, n: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Eigenvalues of an equicorrelated matrix: ``λ₁ = var + (n−1)cov`` (along 1), ``λ₂ = var − cov`` (×(n−1))."""
    return var + (n - 1.0) * cov, var - cov


def schur(var: FloatArray, cov: FloatArray, n: FloatArray) -> FloatArray:
    """``Var(X_i | X^{-i}) = (var−cov)(var+(n−1)cov)/(var+(n−2)cov)``: cancellation-free Schur complement."""
    lam1, lam2 = eigen(var, cov, n)
    den = var + (n - 2.0) * cov
    # where var + (n−1)cov overflows (var ~ 1e308 with n ~ 1e308: inf/inf), the same ratio as 1 + cov/den
    return np.where(np.isfinite(lam1) & np.isfinite(den), lam2 * (lam1 / den), lam2 * (1.0 + cov / den))
