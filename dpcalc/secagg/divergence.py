"""Exact Rényi divergence between two multivariate Gaussians (Zhang et al. 2024, eq. 22; Gil, Alajaji & Linder
2013).

``D_α(N(μ₁,Σ₁) ‖ N(μ₂,Σ₂)) = (α/2) Δμᵀ Σ_α⁻¹ Δμ − ln(|Σ_α| / (|Σ₁|^{1−α} |Σ₂|^α)) / (2(α−1))`` with
``Σ_α = αΣ₂ + (1−α)Σ₁`` and ``Δμ = μ₁ − μ₂``, valid for α > 0, α ≠ 1 when Σ_α is positive definite; for α > 1 and
Σ_α not positive definite the α-th moment of the likelihood ratio diverges and the divergence is +∞.

Numerics (stable at K in the thousands, no explicit inverse or determinant): whiten by the Cholesky factor of Σ₁,
``E = L₁⁻¹(Σ₂ − Σ₁)L₁⁻ᵀ`` (triangular solves), so ``Σ_α ≅ I + αE``. The log-determinant term is the co-diagonal
kernel on the eigenvalues w of E, ``−½ Σ_k (log1p(αw_k) − α log1p(w_k))/(α − 1)``, evaluated without
cancellation (a power series for small αw, an identity in log1p(z)/z near α = 1): a difference of two Cholesky
log-determinants lost every digit where Σ₂ ≈ Σ₁ or α ≈ 1. The mean term and positive definiteness of Σ_α come from
one Cholesky of I + αE per order (≤ 8 orders), or from the eigenvectors of E for many orders (same kernel as
`renyi_gaussian_codiagonal`). A mean term beyond float64 is a one-line DomainError, not +inf.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.secagg._common import symmetric_matrix
from dpcalc.typing import FloatArray

__all__ = ["EIGH_ORDERS", "Divergence", "renyi_gaussian", "renyi_gaussian_codiagonal"]

#: Above this many orders, the full-matrix divergence diagonalises E once instead of one Cholesky per order.
EIGH_ORDERS = 8


@dataclass(frozen=True)
class Divergence:
    """D_α in nats, split into the mean term (Term I) and the log-determinant term (Term II) of eq. (22).

    ``value`` is +inf where Σ_α is not positive definite; ``reason`` then says so (empty when finite).
    Fields are floats for a scalar order and arrays for an array of orders; ``float(d)`` gives ``value``.
    """

    value: float | FloatArray
    mean_term: float | FloatArray
    logdet_term: float | FloatArray
    alpha: float | FloatArray
    reason: str = ""

    def __float__(self) -> float:
        return float(self.value)


def _orders(alpha: ArrayLike) -> FloatArray:
    a = v.check_range("alpha", alpha, 0.0, lo_open=True)
    if np.any(a == 1.0):
        raise DomainError("alpha must be > 0 and != 1 (alpha = 1 is the KL divergence, the limit of D_alpha)")
    return a


_SERIES = 0.05  # |r|·max(α, 1) below which the power series is used
_SERIES_TERMS = 26  # its terms: 0.05^26 < 1e-33


def _log1p_diff_over(alpha: FloatArray, r: FloatArray) -> FloatArray:
    """``(log1p(α r) − α log1p(r)) / (α − 1)`` elementwise, without cancellation for small r or α near 1.

    For |r|·max(α, 1) < 0.05 the series Σ_{n≥2} (−1)^{n+1} α (1 + α + … + α^{n−2}) rⁿ / n (26 terms) is used;
    elsewhere, with d = α − 1 and z = d·r/(1 + r) (1 + z = (1 + αr)/(1 + r)), the identity
    ``log1p(z)/d − log1p(r)`` with ``log1p(z)/d = (r/(1 + r))·log1p(z)/z``: no difference of two logs divided by
    α − 1 (α = 1 + 1e-9, r = 3 lost 7 digits), and the two remaining terms differ in size by more than |r|/2 there.
    """
    alpha, r = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(r, dtype=np.float64))
    out = np.empty(alpha.shape)
    small = np.abs(r) * np.maximum(np.abs(alpha), 1.0) < _SERIES
    a, x = alpha[small], r[small]
    # term n: α(1 + α + … + α^{n−2})xⁿ = (αx)·g_n·x with g_n = Σ_{j<=n−2} (αx)^j x^{n−2−j} (each factor < 0.05):
    # no α^{n−1} overflowing against an underflowing xⁿ (α = 1e300 gave inf·0 = NaN)
    ax = a * x
    g = np.ones_like(a)  # g_2
    power = x.copy()  # x^{n−1}
    total = np.zeros_like(a)
    for n in range(2, 2 + _SERIES_TERMS):
        total += (-1.0 if n % 2 == 0 else 1.0) * ax * g * x / n  # (−1)^{n+1}
        g = g * ax + power
        power = power * x
    out[small] = total
    big = ~small
    a, x = alpha[big], r[big]
    d = a - 1.0  # exact near 1 (Sterbenz)
    share = x / (1.0 + x)  # r/(1 + r)
    z = d * share
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = np.where(z == 0.0, 1.0, np.log1p(z) / np.where(z == 0.0, 1.0, z))  # log1p(z)/z
        lead = np.where(np.isfinite(z), share * ratio, np.log1p(z) / d)  # log1p(z)/d
        out[big] = lead - np.log1p(x)
    return out


def _mean_term(a: FloatArray, quad: FloatArray) -> FloatArray:
    """Term I, ``(α/2)·Δμᵀ Σ_α⁻¹ Δμ`` from its quadratic form; a one-line DomainError where it overflows float64
    (the divergence is finite there but beyond a double: it is not the +inf of a non-positive-definite Σ_α)."""
    with np.errstate(over="ignore"):
        t1 = 0.5 * a * quad
    over = ~np.isfinite(t1)
    if np.any(over):
        first = float(a[over][0])
        raise DomainError(f"dmu (mu1 − mu2) is too large: the mean term (α/2)·Δμᵀ Σ_α⁻¹ Δμ of D_α overflows float64 "
                          f"at alpha = {first:g}")
    return np.asarray(t1)


def _codiagonal(dmu: FloatArray, lam1: FloatArray, r: FloatArray, a: FloatArray
                ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Kernel: (value, Term I, Term II) for orders ``a`` (1-D), eigenvalues λ₁ and relative changes
    ``r = (λ₂ − λ₁)/λ₁`` (validated)."""
    lam_a = lam1[None, :] * (1.0 + a[:, None] * r[None, :])  # αλ₂ + (1 − α)λ₁
    bad = np.any(lam_a <= 0.0, axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # (Δμ_k/√λ_{α,k})²: Δμ² alone overflows where the quotient does not (Δμ = 1e200, λ_α = 1e100)
        quad = np.sum((dmu[None, :] / np.sqrt(np.where(lam_a > 0.0, lam_a, 1.0))) ** 2, axis=1)
        t2 = -0.5 * np.sum(_log1p_diff_over(a[:, None], r[None, :]), axis=1)
    t1 = np.full(a.shape, np.inf)
    t1[~bad] = _mean_term(a[~bad], quad[~bad])
    t2 = np.where(bad, np.inf, t2)
    return t1 + t2, t1, t2


def _not_pd_reason(a: FloatArray, value: FloatArray) -> str:
    if not np.any(np.isinf(value)):
        return ""
    first = float(a[np.isinf(value)][0])
    return (f"Σ_α = αΣ₂ + (1−α)Σ₁ is not positive definite at alpha = {first:g}: the α-th moment of the "
            f"likelihood ratio diverges, so D_α = +inf")


def _pack(a: FloatArray, scalar: bool, value: FloatArray, t1: FloatArray, t2: FloatArray) -> Divergence:
    reason = _not_pd_reason(a, value)
    if scalar:
        return Divergence(float(value[0]), float(t1[0]), float(t2[0]), float(a[0]), reason)
    return Divergence(value, t1, t2, a, reason)


@v.named_shapes
@v.documented_inf
def renyi_gaussian_codiagonal(dmu: ArrayLike, lam1: ArrayLike, lam2: ArrayLike, alpha: ArrayLike,
                              basis: ArrayLike | None = None) -> Divergence:
    """Eq. (22) when Σ₁ and Σ₂ share an eigenbasis: diagonal covariances, or eigenvalues in a common basis.

    ``D_α = Σ_k [α Δμ_k²/(2λ_{α,k}) − ln(λ_{α,k}/(λ_{1,k}^{1−α} λ_{2,k}^α))/(2(α−1))]``, ``λ_{α,k} = αλ_{2,k} +
    (1−α)λ_{1,k}``. ``dmu = μ₁ − μ₂`` in that basis; pass ``basis`` (K × K, orthonormal columns U) to give ``dmu`` in
    the original coordinates (it is rotated to ``Uᵀ dmu``). Eigenvalues must be > 0. ``alpha`` > 0, ≠ 1, scalar or
    1-D; +inf (with ``reason``) where some λ_{α,k} <= 0.

    Parameters
    ----------
    dmu : ArrayLike
    lam1 : ArrayLike
    lam2 : ArrayLike
    alpha : ArrayLike
        Rényi order α > 1.
    basis : ArrayLike | None

    Returns
    -------
    Divergence

    Raises
    ------
    DomainError
        An input (``dmu``, ``lam1``, ``lam2``, ``basis``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import renyi_gaussian_codiagonal
    >>> renyi_gaussian_codiagonal([0.5, 0.0], [1.0, 1.0], [2.0, 2.0], 2.0)
    Divergence(value=0.37101540578511427, mean_term=0.08333333333333336, logdet_term=0.2876820724517809, alpha=2.0,
    reason='')
    """
    d = np.atleast_1d(v.as_array("dmu", dmu))
    l1 = np.atleast_1d(v.positive("lam1", lam1))
    l2 = np.atleast_1d(v.positive("lam2", lam2))
    if d.ndim != 1 or l1.ndim != 1 or l2.ndim != 1:
        raise DomainError("dmu, lam1 and lam2 must be 1-D lists")
    k = max(d.size, l1.size, l2.size)
    for name, arr in (("dmu", d), ("lam1", l1), ("lam2", l2)):
        if arr.size not in (1, k):
            raise DomainError(f"{name} must have {k} entries (one per dimension) or 1 (got {arr.size})")
    d, l1, l2 = (np.broadcast_to(x, (k,)) for x in (d, l1, l2))
    if basis is not None:
        u = v.as_array("basis", basis)
        if u.shape != (k, k):
            raise DomainError(f"basis must be {k} × {k} (got shape {u.shape})")
        d = u.T @ d
    a = np.atleast_1d(_orders(alpha))
    if a.ndim != 1:
        raise DomainError(f"alpha must be a number or a 1-D list (got shape {a.shape})")
    value, t1, t2 = _codiagonal(d, l1, (l2 - l1) / l1, a)
    return _pack(a, np.ndim(alpha) == 0, value, t1, t2)


def _cholesky(m: FloatArray) -> FloatArray | None:
    from scipy.linalg import LinAlgError, cholesky

    try:
        return np.asarray(cholesky(m, lower=True, check_finite=False))
    except LinAlgError:
        return None


@v.named_shapes
@v.documented_inf
def renyi_gaussian(mu1: ArrayLike, cov1: ArrayLike, mu2: ArrayLike, cov2: ArrayLike, alpha: ArrayLike) -> Divergence:
    """Exact ``D_α(N(mu1, cov1) ‖ N(mu2, cov2))`` from full matrices (eq. 22), in nats.

    ``cov1`` and ``cov2`` must be symmetric positive definite K × K (a singular covariance needs the subspace
    reduction of Theorem 3, or the span check of Theorem 1); ``alpha`` > 0, ≠ 1, scalar or 1-D. Returns +inf with
    a ``reason`` where Σ_α = αΣ₂ + (1−α)Σ₁ is not positive definite. Cost: one Cholesky of Σ₁, two triangular
    solves, the eigenvalues of the whitened difference and one Cholesky per order (≤ 8 orders), else one
    symmetric eigendecomposition for all orders.

    Parameters
    ----------
    mu1 : ArrayLike
    cov1 : ArrayLike
    mu2 : ArrayLike
    cov2 : ArrayLike
    alpha : ArrayLike
        Rényi order α > 1.

    Returns
    -------
    Divergence

    Raises
    ------
    DomainError
        An input (``mu1``, ``mu2``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import renyi_gaussian
    >>> import numpy as np
    >>> renyi_gaussian([0.0, 0.0], np.eye(2), [0.5, 0.0], 2 * np.eye(2), 2.0)
    Divergence(value=0.37101540578511427, mean_term=0.08333333333333336, logdet_term=0.2876820724517809, alpha=2.0,
    reason='')
    """
    from scipy.linalg import eigh, solve_triangular

    m1 = np.atleast_1d(v.as_array("mu1", mu1))
    m2 = np.atleast_1d(v.as_array("mu2", mu2))
    if m1.ndim != 1 or m1.shape != m2.shape:
        raise DomainError(f"mu1 and mu2 must be 1-D of the same length (got shapes {m1.shape}, {m2.shape})")
    k = m1.size
    s1 = symmetric_matrix("cov1", cov1, k)
    s2 = symmetric_matrix("cov2", cov2, k)
    a = np.atleast_1d(_orders(alpha))
    if a.ndim != 1:
        raise DomainError(f"alpha must be a number or a 1-D list (got shape {a.shape})")
    l1 = _cholesky(s1)
    if l1 is None:
        raise DomainError("cov1 must be positive definite (its Cholesky factorisation fails); for singular "
                          "covariances project onto the common support (Theorem 3) or run the span check (Theorem 1)")
    x = solve_triangular(l1, s2 - s1, lower=True, check_finite=False)
    e = solve_triangular(l1, x.T, lower=True, check_finite=False)
    e = 0.5 * (e + e.T)  # L₁⁻¹(Σ₂ − Σ₁)L₁⁻ᵀ
    y = solve_triangular(l1, m1 - m2, lower=True, check_finite=False)
    eye = np.eye(k)
    if _cholesky(eye + e) is None:
        raise DomainError("cov2 must be positive definite (its Cholesky factorisation fails); for singular "
                          "covariances project onto the common support (Theorem 3) or run the span check (Theorem 1)")
    if a.size > EIGH_ORDERS:
        w, u = eigh(e, check_finite=False)
        value, t1, t2 = _codiagonal(u.T @ y, np.ones(k), w, a)
        return _pack(a, np.ndim(alpha) == 0, value, t1, t2)
    # Term II from the eigenvalues of E (the co-diagonal kernel, no cancellation): log|I + αE| − α log|I + E| from
    # two Cholesky factors cancelled where E is small or α is near 1 (Σ₂ = 1.000001Σ₁, α = 1.000001: −4.4e-11 for
    # +2.5e-13); Term I and positive definiteness of Σ_α from one Cholesky per order
    w = eigh(e, eigvals_only=True, check_finite=False)
    t1 = np.full(a.size, np.inf)
    t2 = np.full(a.size, np.inf)
    for n, al in enumerate(a):
        la = _cholesky(eye + al * e)
        if la is None or np.any(1.0 + al * w <= 0.0):
            continue
        z = solve_triangular(la, y, lower=True, check_finite=False)
        with np.errstate(over="ignore"):
            t1[n] = _mean_term(np.array([al]), np.array([float(z @ z)]))[0]
        t2[n] = -0.5 * float(np.sum(_log1p_diff_over(np.float64(al), w)))
    return _pack(a, np.ndim(alpha) == 0, t1 + t2, t1, t2)
