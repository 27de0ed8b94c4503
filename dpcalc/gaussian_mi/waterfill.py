"""Case-3 optimum (Zeng et al. 2022, Figs 6/7): closed-form water-filling (a dpcalc derivation; corrects the
paper's numerical optimum).

Σ_X and Σ_Z are equicorrelated, so they share eigenvectors: 1 (eigenvalues λ₁ = σ_m²+(n−1)σ_k²,
μ₁ = σ²+(n−1)σ_e²) and 1^⊥ (λ₂ = σ_m²−σ_k², μ₂ = σ²−σ_e², multiplicity n−1). With noise precisions
x = 1/μ₁, y = 1/μ₂ the exact privacy ½·log(1 + V_x/V_z) <= ε is the linear budget ``x + (n−1)y <= n·c_ε/V_x``
and U = (1/2n)[log(1+λ₁x) + (n−1)log(1+λ₂y)] is concave, so the optimum is water-filling:
``W = (n c_ε/V_x + 1/λ₁ + (n−1)/λ₂)/n``, ``x = W − 1/λ₁``, ``y = W − 1/λ₂`` (a negative one is set to 0 and the
budget goes to the other), ``σ² = (1/x + (n−1)/y)/n``, ``σ_e² = (1/x − 1/y)/n``.

With ``σ_e² >= 0`` required (the constraint x <= y), the optimum is σ_e² = 0, i.e. the corrected Case-2 noise,
whenever σ_k² >= 0; for σ_k² < 0 the free optimum already has σ_e² > 0. The paper's numerical optimum used the
wrong constraint (24) (see gauss.case3_privacy); the true U_max grows like ε + const with no plateau.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP_LOG
from dpcalc.errors import InfeasibleError, OutOfDomainWarning
from dpcalc.gaussian_mi._common import FloatOrArray, Units, eps_nats, equicorrelated, log_c_eps
from dpcalc.typing import FloatArray

__all__ = ["Case3Optimum", "case3_optimum", "case3_sigma2", "case3_sigma_e2", "case3_u_max"]


@dataclass(frozen=True)
class Case3Optimum:
    """Optimal noise (σ², σ_e²) and U_max, arrays broadcast over the inputs.

    ``attained`` is False where the supremum needs infinite noise on one eigen-direction (ε below
    ``σ_k²/(σ_m²+(n−2)σ_k²)`` in c_ε terms); there ``sigma2``/``sigma_e2`` are ±inf and only ``u_max`` is meaningful.
    """

    sigma2: FloatArray
    sigma_e2: FloatArray
    u_max: FloatArray
    attained: FloatArray
    units: str


@v.named_shapes
def case3_optimum(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, nonneg: bool = False,
                  units: Units = "bits") -> Case3Optimum:
    """The Case-3 optimum by water-filling; ``nonneg=True`` adds the constraint σ_e² >= 0.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    nonneg : bool
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    Case3Optimum

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_optimum
    >>> case3_optimum(1.0, 1.0, 0.5, 4)
    Case3Optimum(sigma2=array(0.21212121), sigma_e2=array(-0.01515152), u_max=array(1.12927696),
    attained=array(True), units='bits')
    """
    scale = 1.0 if units == "nats" else np.log(2.0)
    e_n = eps_nats(eps, units)
    a, b, n_ = equicorrelated(var, cov, n)
    lam1, lam2 = a + (n_ - 1.0) * b, a - b
    d = a + (n_ - 2.0) * b
    with np.errstate(over="ignore"):
        c = np.exp(log_c_eps(e_n))
    budget = n_ * c * d / (lam1 * lam2)  # n c_ε / V_x
    v.finite_result("the privacy budget n*c_eps/V_x", budget, "eps is too large (2^(2 eps) overflows); reduce eps")
    k = b / (lam1 * lam2)  # (1/λ₂ − 1/λ₁)/n
    x = budget / n_ + (n_ - 1.0) * k
    y = budget / n_ - k
    if nonneg:  # σ_e² >= 0 ⇔ x <= y, active iff cov >= 0: then x = y = budget/n (Case 2, σ_e² = 0)
        x, y = np.where(b >= 0, budget / n_, x), np.where(b >= 0, budget / n_, y)
    y_neg, x_neg = y <= 0, x <= 0
    x = np.where(y_neg, budget, np.where(x_neg, 0.0, x))
    y = np.where(x_neg, budget / (n_ - 1.0), np.where(y_neg, 0.0, y))
    attained = ~(x_neg | y_neg)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(attained, (y + (n_ - 1.0) * x) / (n_ * x * y), np.inf)
        # σ_e² = (1/x − 1/y)/n = (y − x)/(n x y) = −k/(x y): cancellation-free
        e_opt = np.where(attained, -k / (x * y), np.where(y_neg, -np.inf, np.inf))
        if nonneg:
            e_opt = np.where(b >= 0, 0.0, e_opt)
    u = (np.log1p(lam1 * x) + (n_ - 1.0) * np.log1p(lam2 * y)) / (2.0 * n_) / scale
    if not np.all(attained):
        v.warn("Case-3 optimum not attained at some inputs: eps is so small that the optimal noise is "
               "infinite on one eigen-direction; u_max there is a supremum", OutOfDomainWarning)
    return Case3Optimum(sigma2=np.asarray(s), sigma_e2=np.asarray(e_opt), u_max=np.asarray(u),
                        attained=np.asarray(attained), units=units)


def _attained(opt: Case3Optimum, what: str) -> None:
    if not np.all(opt.attained):
        raise InfeasibleError(f"eps is too small for a finite Case-3 {what}: the optimum puts infinite noise on one "
                              "eigen-direction (need 2^(2eps)-1 > |cov|/(var+(n-2)cov)-type threshold); "
                              "only u_max is defined")


@v.named_shapes
def case3_sigma2(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, nonneg: bool = False,
                 units: Units = "bits") -> FloatOrArray:
    """Optimal Case-3 noise variance σ² (water-filling).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    nonneg : bool
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_sigma2
    >>> case3_sigma2(1.0, 1.0, 0.5, 4)
    0.2121212121212334
    """
    opt = case3_optimum(eps, var, cov, n, nonneg=nonneg, units=units)
    _attained(opt, "sigma2")
    return v.scalar_or_array(opt.sigma2 * SAFE_UP_LOG)  # outward: never below the exact optimum (convention 5)


@v.named_shapes
def case3_sigma_e2(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, nonneg: bool = False,
                   units: Units = "bits") -> FloatOrArray:
    """Optimal Case-3 noise covariance σ_e² (water-filling; 0 when σ_e² >= 0 is required and σ_k² >= 0).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    nonneg : bool
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_sigma_e2
    >>> case3_sigma_e2(1.0, 1.0, 0.5, 4)
    -0.015151515151515159
    """
    opt = case3_optimum(eps, var, cov, n, nonneg=nonneg, units=units)
    _attained(opt, "sigma_e2")
    return v.scalar_or_array(opt.sigma_e2)


@v.named_shapes
def case3_u_max(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, nonneg: bool = False,
                units: Units = "bits") -> FloatOrArray:
    """Case-3 maximal utility U_max = (1/2n)[log2(1+λ₁x) + (n−1)log2(1+λ₂y)] at the water-filling optimum.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    nonneg : bool
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_u_max
    >>> case3_u_max(1.0, 1.0, 0.5, 4)
    1.1292769644172391
    """
    return v.scalar_or_array(case3_optimum(eps, var, cov, n, nonneg=nonneg, units=units).u_max)
