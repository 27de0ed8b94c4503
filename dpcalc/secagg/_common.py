"""What the secure-aggregation family shares: the two covariance normalisations and matrix validation.

Zhang et al. 2024 use two normalisations of the (uncentred) per-user second-moment matrix of the clipped per-sample
gradients ``G_i`` (K × D, one column per sample):

* ``"sec4"`` (Sec. 4, Theorems 2–3, eq. 16): ``Σ_i = G_i G_iᵀ / D``; the aggregate covariance is ``Σ_j Σ_j / B``.
* ``"sec5"`` (Sec. 5, WF-NA, Theorem 4, Table 1): ``Σ_i = G_i G_iᵀ / (B D)``; the aggregate covariance is ``Σ_j Σ_j``.

So ``λ^{sec4} = B · λ^{sec5}`` (erratum E5). Every function that takes eigenvalues or covariances takes a required
keyword ``normalization`` so that the factor B is never silent.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.typing import FloatArray

__all__ = ["EIG_RTOL", "NORMALIZATIONS", "NORMALIZATION_HELP", "SYM_RTOL", "Normalization", "batch",
           "check_normalization", "convert", "eigenvalues_nonneg", "symmetric_matrix", "to_sec4", "to_sec5"]

Normalization = Literal["sec4", "sec5"]
NORMALIZATIONS: tuple[str, ...] = ("sec4", "sec5")
NORMALIZATION_HELP = ("sec4 = G Gᵀ/D (Sec. 4, Theorems 2–3; aggregate divided by B) or sec5 = G Gᵀ/(B·D) (Sec. 5, "
                      "WF-NA, Table 1); λ_sec4 = B·λ_sec5")

#: Relative tolerance for symmetry of a covariance and for eigenvalues below zero (round-off).
SYM_RTOL = 1e-10
EIG_RTOL = 1e-10


def check_normalization(normalization: str) -> str:
    return v.choice("normalization", normalization, NORMALIZATIONS, "G Gᵀ/D or G Gᵀ/(B D)")


@v.named_shapes
def batch(B: ArrayLike) -> FloatArray:
    """The batch/scale parameter B of Assumption 2 (a number >= 1)."""
    return v.check_range("B", B, 1.0)


@v.named_shapes
def convert(x: ArrayLike, *, normalization: str, target: str, B: ArrayLike | None,
            name: str = "eigenvalues") -> FloatArray:
    """Eigenvalues (or covariances) given in ``normalization``, expressed in ``target`` (λ_sec4 = B·λ_sec5)."""
    check_normalization(normalization)
    check_normalization(target)
    arr = v.as_array(name, x)
    if normalization == target:
        return arr
    if B is None:
        raise DomainError(f"B is required to convert {name} from the {normalization} normalisation "
                          f"(λ_sec4 = B·λ_sec5)")
    return arr * batch(B) if target == "sec4" else arr / batch(B)


@v.named_shapes
def to_sec4(x: ArrayLike, *, normalization: str, B: ArrayLike | None, name: str = "x") -> FloatArray:
    """Eigenvalues (or covariances) in the Sec.-4 normalisation: ``x`` if sec4, ``B·x`` if sec5.

    Examples:
        >>> from dpcalc.secagg import to_sec4
        >>> to_sec4([0.1, 0.2], normalization='sec5', B=32)
        array([3.2, 6.4])
    """
    return convert(x, normalization=normalization, target="sec4", B=B, name=name)


@v.named_shapes
def to_sec5(x: ArrayLike, *, normalization: str, B: ArrayLike | None, name: str = "x") -> FloatArray:
    """Eigenvalues (or covariances) in the Sec.-5 normalisation: ``x/B`` if sec4, ``x`` if sec5.

    Examples:
        >>> from dpcalc.secagg import to_sec5
        >>> to_sec5([3.2, 6.4], normalization='sec4', B=32)
        array([0.1, 0.2])
    """
    return convert(x, normalization=normalization, target="sec5", B=B, name=name)


@v.scalar_params
@v.named_shapes
def symmetric_matrix(name: str, value: ArrayLike, size: int | None = None) -> FloatArray:
    """A finite, square, symmetric (within round-off) matrix, returned symmetrised."""
    a = v.as_array(name, value)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DomainError(f"{name} must be a square matrix (got shape {a.shape})")
    if size is not None and a.shape[0] != size:
        raise DomainError(f"{name} must be {size} × {size} to match the mean vectors (got {a.shape[0]} × {a.shape[1]})")
    scale = float(np.max(np.abs(a)))
    asym = float(np.max(np.abs(a - a.T)))
    if asym > SYM_RTOL * max(scale, np.finfo(float).tiny):
        raise DomainError(f"{name} must be symmetric (max |A − Aᵀ| = {asym:.3g}, relative {asym / scale:.3g})")
    return 0.5 * (a + a.T)


@v.named_shapes
def eigenvalues_nonneg(name: str, value: ArrayLike) -> FloatArray:
    """A 1-D list of eigenvalues >= 0; negatives within round-off (relative to the largest) are set to 0."""
    lam = v.as_array(name, value)
    if lam.ndim > 1:
        raise DomainError(f"{name} must be a 1-D list of eigenvalues (got shape {lam.shape})")
    lam = np.atleast_1d(lam)
    tol = EIG_RTOL * max(float(np.max(np.abs(lam))), np.finfo(float).tiny)
    if float(np.min(lam)) < -tol:
        i = int(np.argmin(lam))
        raise DomainError(f"{name} must be >= 0: item {i + 1} is {lam[i]:.6g}, below round-off "
                          f"(tolerance {tol:.3g}); a covariance is positive semi-definite")
    return np.maximum(lam, 0.0)
