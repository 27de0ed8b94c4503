"""Closed forms of Zeng, Yang & Dai, Entropy 24:1299 (2022), Cases 1-3 (seed 001), corrected.

Units: information in **bits** by default (the paper's 2^{2ε}); ``units="nats"`` converts. The privacy notion is
a *Gaussian-prior* conditional MI, ``max_i I(X_i; Y | X^{-i})`` for the stated Gaussian X, not Cuff-Yu MI-DP
(crosscheck 001-1). Notation: ``var = σ_m²``, ``cov = σ_k²``, ``sigma2 = σ²``, ``sigma_e2 = σ_e²``,
``c_ε = 2^{2ε} − 1``, ``V_x = Var(X_i | X^{-i})``. Errata (crosscheck §2.2): 001-7 (the '+' of (14)),
001-9 (σ^{2n} counted twice in (17)), 001-12 ((22)/(24) wrong for every n); ``as_published=True`` returns the
paper's form with an :class:`~dpcalc.errors.ErratumWarning` naming the erratum and the true value.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import log1p_exp
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.gaussian_mi._common import FloatOrArray, Units, check_units, eps_nats, equicorrelated, log_c_eps, schur


def _first(x: ArrayLike) -> float:
    return float(np.asarray(x).flat[0])


def _sigma2_from_log(log_sigma2: v.FloatArray) -> v.FloatArray:
    s = np.exp(log_sigma2)
    if np.any(s < np.finfo(np.float64).tiny):
        raise DomainError("eps is so large that sigma2 underflows float64 (< 2.2e-308); reduce eps")
    return s


# --- Case 1: independent X_i ~ N(0, σ_i²), independent noise N(0, σ²) ------------------------------------

def case1_sigma2(eps: ArrayLike, var_max: ArrayLike, *, units: Units = "bits") -> FloatOrArray:
    """Theorem 1, eqs. (6)/(8): ``σ² = σ_xmax²/(2^{2ε} − 1)`` (ε in bits), computed in log space."""
    e = eps_nats(eps, units)
    a = v.positive("var_max", var_max)
    return v.scalar_or_array(_sigma2_from_log(np.log(a) - log_c_eps(e)))


def case1_privacy(sigma2: ArrayLike, variances: ArrayLike, *, units: Units = "bits") -> float:
    """Eq. (5): ``max_i I(X_i; Y | X^{-i}) = ½·log2(1 + σ_max²/σ²)``."""
    scale = check_units(units)
    s = float(v.positive("sigma2", sigma2))
    var = v.vector("variances", variances, 0.0, lo_open=True)
    return float(0.5 * np.log1p(np.max(var) / s) / scale)


def case1_utility(sigma2: ArrayLike, variances: ArrayLike, *, units: Units = "bits") -> FloatOrArray:
    """Eq. (7): ``U = (1/2n) Σ_i log2(1 + σ_i²/σ²)`` (vectorised over ``sigma2``)."""
    scale = check_units(units)
    s = v.positive("sigma2", sigma2)
    var = v.vector("variances", variances, 0.0, lo_open=True)
    u = np.mean(np.log1p(var / s[..., None]), axis=-1) * 0.5 / scale
    return v.scalar_or_array(u)


def case1_u_max(eps: ArrayLike, variances: ArrayLike, *, units: Units = "bits") -> FloatOrArray:
    """Theorem 1, eq. (9): ``U_max = (1/2n) Σ_i log2(1 + σ_i²(2^{2ε} − 1)/σ_xmax²)`` (vectorised over ε)."""
    scale = check_units(units)
    e = eps_nats(eps, units)
    var = v.vector("variances", variances, 0.0, lo_open=True)
    log_ratio = np.log(var / np.max(var))
    u = np.mean(log1p_exp(log_c_eps(e)[..., None] + log_ratio), axis=-1) * 0.5 / scale
    return v.scalar_or_array(u)


# --- Case 2: equicorrelated X (σ_m², σ_k²), independent noise N(0, σ²) ------------------------------------

def conditional_variance(var: ArrayLike, cov: ArrayLike, n: ArrayLike) -> FloatOrArray:
    """``V_x = Var(X_i | X^{-i}) = σ_m² − (n−1)σ_k⁴/(σ_m² + (n−2)σ_k²)`` (Schur complement, from (11)-(13)).

    Computed as ``(σ_m²−σ_k²)(σ_m²+(n−1)σ_k²)/(σ_m²+(n−2)σ_k²)``: no cancellation as σ_k² → σ_m².
    """
    a, b, n_ = equicorrelated(var, cov, n)
    return v.scalar_or_array(schur(a, b, n_))


def _published_sigma2(c_log: v.FloatArray, a: v.FloatArray, b: v.FloatArray, n: v.FloatArray) -> v.FloatArray:
    return _sigma2_from_log(np.log(a + (n - 1.0) * b * b / (a + (n - 2.0) * b)) - c_log)


def _leak(vx: v.FloatArray, vz: v.FloatArray, scale: float) -> v.FloatArray:
    return np.asarray(0.5 * np.log1p(vx / vz) / scale)


def case2_sigma2(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, units: Units = "bits",
                 as_published: bool = False) -> FloatOrArray:
    """Theorem 2 corrected (crosscheck 001-7): ``σ² = V_x/(2^{2ε} − 1)``.

    ``as_published=True`` returns (14) with its '+': ``σ_m²/c_ε + (n−1)σ_k⁴/(c_ε[σ_m² + (n−2)σ_k²])``, which is
    over-noised (feasible, not optimal); the ErratumWarning states its true leakage.
    """
    scale = check_units(units)
    e = eps_nats(eps, units)
    a, b, n_ = equicorrelated(var, cov, n)
    c_log = log_c_eps(e)
    vx = schur(a, b, n_)
    corrected = _sigma2_from_log(np.log(vx) - c_log)
    if not as_published:
        return v.scalar_or_array(corrected)
    pub = _published_sigma2(c_log, a, b, n_)
    leak = _leak(vx, pub, scale)
    warnings.warn(
        f"Zeng et al. 2022 eq. (14) as published has '+' where '−' belongs (erratum 001-7): sigma2 = "
        f"{_first(pub):.6g} leaks only {_first(leak):.6g} {units} < eps = {_first(e) / scale:g} {units} "
        f"(over-noised); the corrected sigma2 = V_x/(2^(2eps)-1) = {_first(corrected):.6g}",
        ErratumWarning, stacklevel=2)
    return v.scalar_or_array(pub)


def case2_privacy(sigma2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                  units: Units = "bits") -> FloatOrArray:
    """Eq. (13), simplified: ``max_i I(X_i; Y | X^{-i}) = ½·log2(1 + V_x/σ²)`` (exact for any σ² > 0)."""
    scale = check_units(units)
    s = v.positive("sigma2", sigma2)
    a, b, n_ = equicorrelated(var, cov, n)
    return v.scalar_or_array(_leak(schur(a, b, n_), s, scale))


def _u_equi(lam1: v.FloatArray, lam2: v.FloatArray, mu1: v.FloatArray, mu2: v.FloatArray, n: v.FloatArray,
            scale: float) -> v.FloatArray:
    """``(1/2n)[log(1 + λ₁/μ₁) + (n−1)·log(1 + λ₂/μ₂)]``: eigen-form of (15)-(17), (25)-(27)."""
    return np.asarray((np.log1p(lam1 / mu1) + (n - 1.0) * np.log1p(lam2 / mu2)) / (2.0 * n) / scale)


def case2_utility(sigma2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, units: Units = "bits",
                  as_published: bool = False) -> FloatOrArray:
    """Eq. (17) corrected (crosscheck 001-9): ``U = (1/2n)[log2(σ_m²+σ²+(n−1)σ_k²) + (n−1)log2(σ_m²+σ²−σ_k²)
    − n·log2 σ²]`` (σ^{2n} once). ``as_published=True`` divides by σ^{2n} twice, as printed in (17)."""
    scale = check_units(units)
    s = v.positive("sigma2", sigma2)
    a, b, n_ = equicorrelated(var, cov, n)
    lam1, lam2 = a + (n_ - 1.0) * b, a - b
    u = _u_equi(lam1, lam2, s, s, n_, scale)
    if not as_published:
        return v.scalar_or_array(u)
    pub = u - 0.5 * np.log(s) / scale  # the extra −(1/2n)·log σ^{2n}
    warnings.warn(
        f"Zeng et al. 2022 eq. (17) as published divides by sigma^(2n) twice (erratum 001-9): U = {_first(pub):.6g}"
        f" {units}; the true I(X;Y)/n = {_first(u):.6g} {units}", ErratumWarning, stacklevel=2)
    return v.scalar_or_array(pub)


def case2_u_max(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, units: Units = "bits",
                as_published: bool = False) -> FloatOrArray:
    """Eq. (18) at the corrected σ_min² = V_x/c_ε: ``U_max = (1/2n)[log2(1 + c_ε d/λ₂) + (n−1)log2(1 + c_ε d/λ₁)]``
    with ``λ₁ = σ_m²+(n−1)σ_k²``, ``λ₂ = σ_m²−σ_k²``, ``d = σ_m²+(n−2)σ_k²`` (log space: no overflow in ε).

    ``as_published=True``: (18) at the published σ² of (14) — the true utility of the paper's noise.
    """
    scale = check_units(units)
    e = eps_nats(eps, units)
    a, b, n_ = equicorrelated(var, cov, n)
    lam1, lam2 = a + (n_ - 1.0) * b, a - b
    d = a + (n_ - 2.0) * b
    c_log = log_c_eps(e)
    u = (log1p_exp(c_log + np.log(d / lam2)) + (n_ - 1.0) * log1p_exp(c_log + np.log(d / lam1))) / (2.0 * n_)
    u = np.asarray(u / scale)
    if not as_published:
        return v.scalar_or_array(u)
    pub_s = _published_sigma2(c_log, a, b, n_)
    u_pub = _u_equi(lam1, lam2, pub_s, pub_s, n_, scale)
    leak = _leak(schur(a, b, n_), pub_s, scale)
    warnings.warn(
        f"U_max at the published sigma2 of eq. (14) (erratum 001-7): U = {_first(u_pub):.6g} {units} at a true "
        f"leakage of {_first(leak):.6g} {units}; the corrected sigma2 reaches U_max = {_first(u):.6g} {units}",
        ErratumWarning, stacklevel=2)
    return v.scalar_or_array(u_pub)


# --- Case 3: equicorrelated X and equicorrelated noise (σ², σ_e²) ------------------------------------------

def noise_conditional_variance(sigma2: ArrayLike, sigma_e2: ArrayLike, n: ArrayLike) -> FloatOrArray:
    """``V_z = Var(Z_i | Z^{-i}) = (σ²−σ_e²)(σ²+(n−1)σ_e²)/(σ²+(n−2)σ_e²)``."""
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    return v.scalar_or_array(schur(s, e, n_))


def _published_24(s: v.FloatArray, e: v.FloatArray, a: v.FloatArray, b: v.FloatArray,
                  n: v.FloatArray) -> v.FloatArray:
    """The argument of the log in (24) exactly as printed (A + B + C + D over its denominator)."""
    sign = np.where(np.mod(n + 1.0, 2.0) == 0.0, 1.0, -1.0)
    big_a = (a + s) * (s - e) * (a - b)
    big_b = sign * (n - 1.0) * e * (e - a - s) * (a - b)
    big_c = (n - 1.0) * b * b * (e - s)
    big_d = (n - 1.0) ** 2 * e * b * (a + s - b - e)
    return np.asarray((big_a + big_b + big_c + big_d) / ((a + (n - 2.0) * b) * (s + (n - 1.0) * e) * (s - e)))


def case3_privacy(sigma2: ArrayLike, sigma_e2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                  units: Units = "bits", as_published: bool = False) -> FloatOrArray:
    """Case-3 privacy corrected (crosscheck 001-12): ``max_i I(X_i; Y | X^{-i}) = ½·log2(1 + V_x/V_z)``.

    ``as_published=True`` evaluates (24) as printed (wrong for every n; at σ_e² = 0 it does not reduce to (13)).
    """
    scale = check_units(units)
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    a, b, n2 = equicorrelated(var, cov, n)
    true = _leak(schur(a, b, n2), schur(s, e, n_), scale)
    if not as_published:
        return v.scalar_or_array(true)
    arg = _published_24(s, e, a, b, n_)
    if np.any(arg <= 0):
        raise DomainError("the published eq. (24) has a non-positive log argument at these inputs (erratum 001-12)")
    pub = np.asarray(0.5 * np.log(arg) / scale)
    warnings.warn(
        f"Zeng et al. 2022 eq. (24) as published is wrong (erratum 001-12): it gives {_first(pub):.6g} {units}; "
        f"the true leakage 1/2 log(1 + V_x/V_z) = {_first(true):.6g} {units}", ErratumWarning, stacklevel=2)
    return v.scalar_or_array(pub)


def case3_utility(sigma2: ArrayLike, sigma_e2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                  units: Units = "bits") -> FloatOrArray:
    """Eq. (27): ``U = (1/2n)[log2(1 + λ₁/μ₁) + (n−1)·log2(1 + λ₂/μ₂)]`` with noise eigenvalues
    ``μ₁ = σ²+(n−1)σ_e²`` and ``μ₂ = σ²−σ_e²`` (the same number as printed, cancellation-free)."""
    scale = check_units(units)
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    a, b, n2 = equicorrelated(var, cov, n)
    return v.scalar_or_array(_u_equi(a + (n2 - 1.0) * b, a - b, s + (n_ - 1.0) * e, s - e, n_, scale))


# --- unit conversions ----------------------------------------------------------------------------------------

def bits_to_nats(x: ArrayLike) -> FloatOrArray:
    """An information quantity (or ε) in bits → nats: ``x·ln 2``."""
    return v.scalar_or_array(v.nonnegative("x", x) * np.log(2.0))


def nats_to_bits(x: ArrayLike) -> FloatOrArray:
    """An information quantity (or ε) in nats → bits: ``x/ln 2``."""
    return v.scalar_or_array(v.nonnegative("x", x) / np.log(2.0))
