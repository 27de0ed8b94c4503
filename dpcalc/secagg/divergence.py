"""Exact Rényi divergence between two multivariate Gaussians (Zhang et al. 2024, eq. 22; Gil, Alajaji & Linder
2013).

``D_α(N(μ₁,Σ₁) ‖ N(μ₂,Σ₂)) = (α/2) Δμᵀ Σ_α⁻¹ Δμ − ln(|Σ_α| / (|Σ₁|^{1−α} |Σ₂|^α)) / (2(α−1))`` with
``Σ_α = αΣ₂ + (1−α)Σ₁`` and ``Δμ = μ₁ − μ₂``, valid for α > 0, α ≠ 1 when Σ_α is positive definite; for α > 1 and
Σ_α not positive definite the α-th moment of the likelihood ratio diverges and the divergence is +∞.

Numerics (stable at K in the thousands, no explicit inverse or determinant): whiten by the Cholesky factor of Σ₁,
``E = L₁⁻¹(Σ₂ − Σ₁)L₁⁻ᵀ`` (triangular solves), so ``Σ_α ≅ I + αE``; log-determinants are sums of the logs of
Cholesky diagonals near 1 (absolute error ≈ K·1e-16, independent of the scale of Σ), and positive definiteness of
Σ_α is decided by that Cholesky. For many orders the eigenvalues of E are computed once and the co-diagonal formula
is used (same kernel as `renyi_gaussian_codiagonal`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.secagg._common import symmetric_matrix

__all__ = ["EIGH_ORDERS", "Divergence", "renyi_gaussian", "renyi_gaussian_codiagonal"]

#: Above this many orders, the full-matrix divergence diagonalises E once instead of one Cholesky per order.
EIGH_ORDERS = 8


@dataclass(frozen=True)
class Divergence:
    """D_α in nats, split into the mean term (Term I) and the log-determinant term (Term II) of eq. (22).

    ``value`` is +inf where Σ_α is not positive definite; ``reason`` then says so (empty when finite).
    Fields are floats for a scalar order and arrays for an array of orders; ``float(d)`` gives ``value``.
    """

    value: float | v.FloatArray
    mean_term: float | v.FloatArray
    logdet_term: float | v.FloatArray
    alpha: float | v.FloatArray
    reason: str = ""

    def __float__(self) -> float:
        return float(self.value)


def _orders(alpha: ArrayLike) -> v.FloatArray:
    a = v.check_range("alpha", alpha, 0.0, lo_open=True)
    if np.any(a == 1.0):
        raise DomainError("alpha must be > 0 and != 1 (alpha = 1 is the KL divergence, the limit of D_alpha)")
    return a


def _log1p_diff_over(alpha: v.FloatArray, r: v.FloatArray) -> v.FloatArray:
    """``(log1p(α r) − α log1p(r)) / (α − 1)`` elementwise, without cancellation for small r or α near 1.

    For |r|·max(α, 1) < 1e-3 the series Σ_{n≥2} (−1)^{n+1} α (1 + α + … + α^{n−2}) rⁿ / n (10 terms) is used.
    """
    alpha, r = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(r, dtype=np.float64))
    out = np.empty(alpha.shape)
    small = np.abs(r) * np.maximum(np.abs(alpha), 1.0) < 1e-3
    a, x = alpha[small], r[small]
    # term n: α(1 + α + … + α^{n−2})xⁿ = (αx)·g_n·x with g_n = Σ_{j<=n−2} (αx)^j x^{n−2−j} (each factor <= 1e-3):
    # no α^{n−1} overflowing against an underflowing xⁿ (α = 1e300 gave inf·0 = NaN)
    ax = a * x
    g = np.ones_like(a)  # g_2
    power = x.copy()  # x^{n−1}
    total = np.zeros_like(a)
    for n in range(2, 12):
        total += (-1.0 if n % 2 == 0 else 1.0) * ax * g * x / n  # (−1)^{n+1}
        g = g * ax + power
        power = power * x
    out[small] = total
    big = ~small
    a, x = alpha[big], r[big]
    with np.errstate(invalid="ignore", divide="ignore"):
        out[big] = (np.log1p(a * x) - a * np.log1p(x)) / (a - 1.0)
    return out


def _codiagonal(dmu: v.FloatArray, lam1: v.FloatArray, r: v.FloatArray, a: v.FloatArray
                ) -> tuple[v.FloatArray, v.FloatArray, v.FloatArray]:
    """Kernel: (value, Term I, Term II) for orders ``a`` (1-D), eigenvalues λ₁ and relative changes
    ``r = (λ₂ − λ₁)/λ₁`` (validated)."""
    lam_a = lam1[None, :] * (1.0 + a[:, None] * r[None, :])  # αλ₂ + (1 − α)λ₁
    bad = np.any(lam_a <= 0.0, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = 0.5 * a * np.sum(dmu[None, :] ** 2 / lam_a, axis=1)
        t2 = -0.5 * np.sum(_log1p_diff_over(a[:, None], r[None, :]), axis=1)
    t1 = np.where(bad, np.inf, t1)
    t2 = np.where(bad, np.inf, t2)
    return t1 + t2, t1, t2


def _not_pd_reason(a: v.FloatArray, value: v.FloatArray) -> str:
    if not np.any(np.isinf(value)):
        return ""
    first = float(a[np.isinf(value)][0])
    return (f"Σ_α = αΣ₂ + (1−α)Σ₁ is not positive definite at alpha = {first:g}: the α-th moment of the "
            f"likelihood ratio diverges, so D_α = +inf")


def _pack(a: v.FloatArray, scalar: bool, value: v.FloatArray, t1: v.FloatArray, t2: v.FloatArray) -> Divergence:
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


def _cholesky(m: v.FloatArray) -> v.FloatArray | None:
    from scipy.linalg import LinAlgError, cholesky

    try:
        return np.asarray(cholesky(m, lower=True, check_finite=False))
    except LinAlgError:
        return None


def _logdet_chol(low: v.FloatArray) -> float:
    return 2.0 * float(np.sum(np.log(np.diag(low))))


@v.named_shapes
@v.documented_inf
def renyi_gaussian(mu1: ArrayLike, cov1: ArrayLike, mu2: ArrayLike, cov2: ArrayLike, alpha: ArrayLike) -> Divergence:
    """Exact ``D_α(N(mu1, cov1) ‖ N(mu2, cov2))`` from full matrices (eq. 22), in nats.

    ``cov1`` and ``cov2`` must be symmetric positive definite K × K (a singular covariance needs the subspace
    reduction of Theorem 3, or the span check of Theorem 1); ``alpha`` > 0, ≠ 1, scalar or 1-D. Returns +inf with
    a ``reason`` where Σ_α = αΣ₂ + (1−α)Σ₁ is not positive definite. Cost: one Cholesky of Σ₁, two triangular
    solves and one Cholesky per order (≤ 8 orders), else one symmetric eigendecomposition for all orders.
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
    l2w = _cholesky(eye + e)
    if l2w is None:
        raise DomainError("cov2 must be positive definite (its Cholesky factorisation fails); for singular "
                          "covariances project onto the common support (Theorem 3) or run the span check (Theorem 1)")
    if a.size > EIGH_ORDERS:
        w, u = eigh(e, check_finite=False)
        value, t1, t2 = _codiagonal(u.T @ y, np.ones(k), w, a)
        return _pack(a, np.ndim(alpha) == 0, value, t1, t2)
    logdet2 = _logdet_chol(l2w)
    t1 = np.empty(a.size)
    t2 = np.empty(a.size)
    for n, al in enumerate(a):
        la = _cholesky(eye + al * e)
        if la is None:
            t1[n] = t2[n] = np.inf
            continue
        z = solve_triangular(la, y, lower=True, check_finite=False)
        t1[n] = 0.5 * al * float(z @ z)
        t2[n] = -(_logdet_chol(la) - al * logdet2) / (2.0 * (al - 1.0))
    return _pack(a, np.ndim(alpha) == 0, t1 + t2, t1, t2)
