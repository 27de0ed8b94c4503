"""Exact Rényi divergence between Gaussians (Zhang et al. 2024, eq. 22) where it cancels: nearly equal covariances,
α near 1, covariances far apart, means beyond float64 — both routes (full matrices and co-diagonal) against eq. (22)
evaluated in mpmath at 60 digits on the same float inputs (determinants and a linear solve of Σ_α, written from the
paper, not from dpcalc's whitening). ``DPCALC_SWEEP_POINTS`` sets the deep budget.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc import secagg
from dpcalc.errors import DomainError
from tests.support.sweep import Axis, Point, sweep

DPS = 60


def mp_renyi(mu1: np.ndarray, cov1: np.ndarray, mu2: np.ndarray, cov2: np.ndarray, alpha: float) -> mpmath.mpf:
    """Eq. (22): (α/2)Δμᵀ Σ_α⁻¹ Δμ − ln(|Σ_α| / (|Σ₁|^{1−α}|Σ₂|^α))/(2(α − 1)), Σ_α = αΣ₂ + (1 − α)Σ₁; +inf where
    Σ_α is not positive definite (α > 1)."""
    with mpmath.workdps(DPS):
        a = mpmath.mpf(alpha)
        s1, s2 = mpmath.matrix(cov1.tolist()), mpmath.matrix(cov2.tolist())
        dmu = mpmath.matrix(np.asarray(mu1).tolist()) - mpmath.matrix(np.asarray(mu2).tolist())
        sa = a * s2 + (1 - a) * s1
        try:
            mpmath.cholesky(sa)
        except ValueError:
            return mpmath.inf
        quad = (dmu.T * mpmath.lu_solve(sa, dmu))[0]
        logdet = mpmath.log(mpmath.det(sa)) - (1 - a) * mpmath.log(mpmath.det(s1)) - a * mpmath.log(mpmath.det(s2))
        return a / 2 * quad - logdet / (2 * (a - 1))


@pytest.mark.parametrize(("cov2", "alpha"), [(1.000001, 1.000001), (1.000001, 0.999999), (1.0 + 1e-12, 3.0)])
def test_full_matrix_near_equal_covariances(cov2: float, alpha: float) -> None:
    """Σ₂ ≈ Σ₁ or α ≈ 1 made the full-matrix route return a negative divergence (−4.445e-11 for +2.49999917e-13):
    a difference of two Cholesky log-determinants. Both routes now agree with eq. (22) to 1e-9."""
    want = float(mp_renyi(np.zeros(1), np.array([[1.0]]), np.zeros(1), np.array([[cov2]]), alpha))
    full = secagg.renyi_gaussian([0.0], [[1.0]], [0.0], [[cov2]], alpha).value
    codiag = secagg.renyi_gaussian_codiagonal([0.0], [1.0], [cov2], alpha).value
    assert want > 0 and full == pytest.approx(want, rel=1e-9) and codiag == pytest.approx(want, rel=1e-9)


def test_full_matrix_scaled_reproducer() -> None:
    """renyi_gaussian([0], [[2]], [0], [[2.000002]], 2) was 5.00244e-13 for 4.99999e-13."""
    want = float(mp_renyi(np.zeros(1), np.array([[2.0]]), np.zeros(1), np.array([[2.000002]]), 2.0))
    assert secagg.renyi_gaussian([0.0], [[2.0]], [0.0], [[2.000002]], 2.0).value == pytest.approx(want, rel=1e-9)


def test_codiagonal_alpha_near_one_far_covariances() -> None:
    """α = 0.999999999 with λ₂ = 4λ₁: 0.318147295 for 0.318147180 (log1p(αr) − α log1p(r) over α − 1)."""
    want = float(mp_renyi(np.zeros(1), np.array([[1.0]]), np.zeros(1), np.array([[4.0]]), 0.999999999))
    got = secagg.renyi_gaussian_codiagonal([0.0], [1.0], [4.0], 0.999999999).value
    assert got == pytest.approx(want, rel=1e-13)
    assert secagg.renyi_gaussian([0.0], [[1.0]], [0.0], [[4.0]], 0.999999999).value == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("alphas", [2.0, [2.0], np.linspace(1.5, 2.5, 12)])
def test_overflowing_mean_term_names_its_cause(alphas: object) -> None:
    """Δμ = 1e308, λ₁ = 2, λ₂ = 1.2: Σ_α = 0.4 at α = 2 is positive definite; the mean term overflows. It returned
    inf and blamed Σ_α; now a one-line DomainError naming dmu, in both routes."""
    with pytest.raises(DomainError, match=r"dmu .* too large") as info:
        secagg.renyi_gaussian_codiagonal([1e308], [2.0], [1.2], alphas)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
    with pytest.raises(DomainError, match=r"dmu .* too large"):
        secagg.renyi_gaussian([1e308], [[2.0]], [0.0], [[1.2]], alphas)  # type: ignore[arg-type]
    # α = 3: Σ_α = −0.4, the documented +inf with its reason
    d = secagg.renyi_gaussian_codiagonal([1e308], [2.0], [1.2], 3.0)
    assert d.value == math.inf and "not positive definite" in d.reason


def _alpha(p: Point) -> float:
    """α near 1 on either side (|α − 1| = 10^t, t in [−10, −1]) or in [1.05, 50], by the point's 'mode'."""
    if p["mode"] < 1.0:
        return 1.0 + math.copysign(10.0 ** p["t"], p["mode"] - 0.5)
    return 1.05 + (p["mode"] - 1.0) * 49.0


def _pair(p: Point) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K = 1 … 4 (seeded): Σ₁ = AAᵀ + I/10, Σ₂ = Σ₁ + 10^s·(BBᵀ − BBᵀ'/2 scaled to ‖Σ₁‖), Δμ of scale 10^m."""
    rng = np.random.default_rng(int(p["seed"]))
    k = int(rng.integers(1, 5))
    a = rng.normal(size=(k, k))
    s1 = a @ a.T + 0.1 * np.eye(k)
    b = rng.normal(size=(k, k))
    pert = 0.5 * (b + b.T)
    pert *= 10.0 ** p["s"] * np.linalg.norm(s1) / np.linalg.norm(pert)
    s2 = s1 + pert
    if np.min(np.linalg.eigvalsh(s2)) <= 1e-3 * np.linalg.norm(s1):
        s2 = s1 - pert
    if np.min(np.linalg.eigvalsh(s2)) <= 1e-3 * np.linalg.norm(s1):
        s2 = s1 + 1e-3 * pert
    mu = rng.normal(size=k) * 10.0 ** p["m"]
    return mu, s1, s2


_AXES = [Axis("seed", 0, 2**31, "int"), Axis("s", -9.0, -0.3, "linear"), Axis("m", -6.0, 1.0, "linear"),
         Axis("mode", 0.0, 2.0, "linear"), Axis("t", -10.0, -1.0, "linear")]


def _full(p: Point) -> float:
    mu, s1, s2 = _pair(p)
    return float(secagg.renyi_gaussian(mu, s1, np.zeros(mu.size), s2, _alpha(p)).value)


def _full_ref(p: Point) -> mpmath.mpf:
    mu, s1, s2 = _pair(p)
    return mp_renyi(mu, s1, np.zeros(mu.size), s2, _alpha(p))


def _cond_atol(p: Point, want: mpmath.mpf) -> float:
    """The conditioning of the inputs themselves: eq. (22)'s value moves by ~u·(‖Σ₁⁻¹‖‖Σ‖·(Term I + α·K))
    under a rounding of the float matrices' entries (the reference takes them exactly)."""
    mu, s1, _ = _pair(p)
    cond = float(np.linalg.cond(s1))
    return 2.0**-52 * 8 * cond * (float(abs(want)) + _alpha(p) * mu.size * 10.0 ** p["s"])


def test_full_matrix_sweep() -> None:
    """Full matrices, K <= 4, relative change 1e-9 … 0.5, α near 1 on both sides or up to 50."""
    sweep("secagg.renyi_gaussian[edges]", _AXES, fn=_full, ref=_full_ref, rtol=1e-11, atol=_cond_atol, n=60,
          dps=DPS)


def _codiag(p: Point) -> float:
    mu, s1, s2 = _pair(p)
    lam1, lam2 = np.diag(s1).copy(), np.diag(s2).copy()
    return float(secagg.renyi_gaussian_codiagonal(mu, lam1, lam2, _alpha(p)).value)


def _codiag_ref(p: Point) -> mpmath.mpf:
    mu, s1, s2 = _pair(p)
    return mp_renyi(mu, np.diag(np.diag(s1)), np.zeros(mu.size), np.diag(np.diag(s2)), _alpha(p))


def test_codiagonal_sweep() -> None:
    """Co-diagonal (the diagonals of the same pairs): relative change 1e-9 … 0.5, α near 1 or up to 50."""
    sweep("secagg.renyi_gaussian_codiagonal[edges]", _AXES, fn=_codiag, ref=_codiag_ref, rtol=1e-12, n=60,
          dps=DPS)
