"""Closed forms of Zeng, Yang & Dai, Entropy 24:1299 (2022), Cases 1-3, corrected.

Units: information in **bits** by default (the paper's 2^{2ε}); ``units="nats"`` converts. The privacy notion is
a *Gaussian-prior* conditional MI, ``max_i I(X_i; Y | X^{-i})`` for the stated Gaussian X, not Cuff-Yu MI-DP
(no sup over priors). Notation: ``var = σ_m²``, ``cov = σ_k²``, ``sigma2 = σ²``, ``sigma_e2 = σ_e²``,
``c_ε = 2^{2ε} − 1``, ``V_x = Var(X_i | X^{-i})``. Errata (each recorded in the catalog entry named in its warning):
the '+' of (14) (gauss.case2_sigma2), σ^{2n} counted twice in (17) (gauss.case2_utility), (22)/(24) wrong for every
n (gauss.case3_determinant, gauss.case3_privacy); ``as_published=True`` returns the paper's form with an
`ErratumWarning` naming the erratum and the true value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc import units
from dpcalc._numerics import SAFE_UP, SAFE_UP_LOG, log1p_exp
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.gaussian_mi._common import FloatOrArray, Units, eps_nats, equicorrelated, log_c_eps, nats_per_unit, schur
from dpcalc.typing import FloatArray

__all__ = ["case1_privacy", "case1_sigma2", "case1_u_max", "case1_utility", "case2_privacy", "case2_sigma2",
           "case2_u_max", "case2_utility", "case3_determinant", "case3_privacy", "case3_utility",
           "conditional_variance", "noise_conditional_variance"]


def _first(x: ArrayLike) -> float:
    return float(np.asarray(x).flat[0])


def _sigma2_from_log(log_sigma2: FloatArray) -> FloatArray:
    """``exp(log σ²)``, or a one-line DomainError when σ² is not a normal float64 (never a silent inf or 0)."""
    with np.errstate(over="ignore"):
        s = np.exp(log_sigma2)
    if np.any(s == np.inf):
        raise DomainError("eps is so small that sigma2 overflows float64 (> 1.8e308); raise eps")
    if np.any(s < np.finfo(np.float64).tiny):
        raise DomainError("eps is so large that sigma2 underflows float64 (< 2.2e-308); reduce eps")
    return s


def _over_c_eps(num: FloatArray, e_n: FloatArray) -> FloatArray:
    """``num/(e^{2ε} − 1)`` (ε in nats): directly where it is a normal float (a few ulps), in log space elsewhere,
    and a DomainError where the result itself over/underflows float64."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        direct = np.asarray(num / np.expm1(2.0 * e_n))
    ok = np.isfinite(direct) & (direct >= np.finfo(np.float64).tiny)
    if np.all(ok):
        return direct * SAFE_UP  # outward: σ² never below the exact minimum (convention 5)
    direct = direct * SAFE_UP
    num_b, e_b = np.broadcast_arrays(num, e_n)
    out = np.array(np.broadcast_to(direct, ok.shape), dtype=np.float64)
    out[~ok] = _sigma2_from_log(np.log(num_b[~ok]) - log_c_eps(e_b[~ok])) * SAFE_UP_LOG
    return out


def _half_log1p_ratio(log_num: ArrayLike, log_den: ArrayLike, scale: float) -> FloatArray:
    """``½·log(1 + num/den)`` in ``units`` from the logs of num and den (no overflow as den → 0)."""
    return np.asarray(0.5 * log1p_exp(np.asarray(log_num) - np.asarray(log_den)) / scale)


# --- Case 1: independent X_i ~ N(0, σ_i²), independent noise N(0, σ²) ------------------------------------

@v.named_shapes
def case1_sigma2(eps: ArrayLike, var_max: ArrayLike, *, units: Units = "bits") -> FloatOrArray:
    """Theorem 1, eqs. (6)/(8): ``σ² = σ_xmax²/(2^{2ε} − 1)`` (ε in bits), computed in log space.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var_max : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``var_max``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case1_sigma2
    >>> case1_sigma2(1.0, 4.0)
    1.3333333333333999
    """
    e = eps_nats(eps, units)
    a = v.positive("var_max", var_max)
    return v.scalar_or_array(_over_c_eps(a, e))


@v.named_shapes
def case1_privacy(sigma2: ArrayLike, variances: ArrayLike, *, units: Units = "bits") -> float:
    """Eq. (5): ``max_i I(X_i; Y | X^{-i}) = ½·log2(1 + σ_max²/σ²)``.

    Parameters
    ----------
    sigma2 : ArrayLike
    variances : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input (``sigma2``, ``variances``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case1_privacy
    >>> case1_privacy(0.5, [1.0, 2.0, 4.0])
    1.584962500721156
    """
    scale = nats_per_unit(units)
    s = v.scalar("sigma2", v.positive("sigma2", sigma2))
    var = v.vector("variances", variances, 0.0, lo_open=True)
    return float(_half_log1p_ratio(np.log(np.max(var)), np.log(s), scale))


@v.named_shapes
def case1_utility(sigma2: ArrayLike, variances: ArrayLike, *, units: Units = "bits") -> FloatOrArray:
    """Eq. (7): ``U = (1/2n) Σ_i log2(1 + σ_i²/σ²)`` (vectorised over ``sigma2``).

    Parameters
    ----------
    sigma2 : ArrayLike
    variances : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma2``, ``variances``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case1_utility
    >>> case1_utility(0.5, [1.0, 2.0, 4.0])
    1.1794692661751383
    """
    scale = nats_per_unit(units)
    s = v.positive("sigma2", sigma2)
    var = v.vector("variances", variances, 0.0, lo_open=True)
    u = np.mean(log1p_exp(np.log(var) - np.log(s)[..., None]), axis=-1) * 0.5 / scale
    return v.scalar_or_array(u)


@v.named_shapes
def case1_u_max(eps: ArrayLike, variances: ArrayLike, *, units: Units = "bits") -> FloatOrArray:
    """Theorem 1, eq. (9): ``U_max = (1/2n) Σ_i log2(1 + σ_i²(2^{2ε} − 1)/σ_xmax²)`` (vectorised over ε).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    variances : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``variances``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case1_u_max
    >>> case1_u_max(1.0, [1.0, 2.0, 4.0])
    0.6882138361574944
    """
    scale = nats_per_unit(units)
    e = eps_nats(eps, units)
    var = v.vector("variances", variances, 0.0, lo_open=True)
    log_ratio = np.log(var / np.max(var))
    u = np.mean(log1p_exp(log_c_eps(e)[..., None] + log_ratio), axis=-1) * 0.5 / scale
    return v.scalar_or_array(v.finite_result("u_max", u, "eps is too large (2^(2 eps) overflows); reduce eps"))


# --- Case 2: equicorrelated X (σ_m², σ_k²), independent noise N(0, σ²) ------------------------------------

@v.named_shapes
def conditional_variance(var: ArrayLike, cov: ArrayLike, n: ArrayLike) -> FloatOrArray:
    """``V_x = Var(X_i | X^{-i}) = σ_m² − (n−1)σ_k⁴/(σ_m² + (n−2)σ_k²)`` (Schur complement, from (11)-(13)).

    Computed as ``(σ_m²−σ_k²)(σ_m²+(n−1)σ_k²)/(σ_m²+(n−2)σ_k²)``: no cancellation as σ_k² → σ_m².

    Parameters
    ----------
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import conditional_variance
    >>> conditional_variance(1.0, 0.5, 4)
    0.625
    """
    a, b, n_ = equicorrelated(var, cov, n)
    return v.scalar_or_array(schur(a, b, n_))


def _log_published_sigma2(c_log: FloatArray, a: FloatArray, b: FloatArray, n: FloatArray) -> FloatArray:
    """log of (14) as printed: ``log(σ_m² + (n−1)σ_k⁴/(σ_m²+(n−2)σ_k²)) − log c_ε``."""
    return np.asarray(np.log(a + (n - 1.0) * b * b / (a + (n - 2.0) * b)) - c_log)


def _leak(vx: FloatArray, vz: FloatArray, scale: float) -> FloatArray:
    return _half_log1p_ratio(np.log(vx), np.log(vz), scale)


@v.named_shapes
def case2_sigma2(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, units: Units = "bits",
                 as_published: bool = False) -> FloatOrArray:
    """Theorem 2 corrected (the '+' of (14) must be '−'): ``σ² = V_x/(2^{2ε} − 1)``.

    ``as_published=True`` returns (14) with its '+': ``σ_m²/c_ε + (n−1)σ_k⁴/(c_ε[σ_m² + (n−2)σ_k²])``, which is
    over-noised (feasible, not optimal); the ErratumWarning states its true leakage.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

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
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case2_sigma2
    >>> case2_sigma2(1.0, 1.0, 0.5, 4)
    0.20833333333334375
    """
    scale = nats_per_unit(units)
    e = eps_nats(eps, units)
    a, b, n_ = equicorrelated(var, cov, n)
    c_log = log_c_eps(e)
    vx = schur(a, b, n_)
    corrected = _over_c_eps(vx, e)
    if not as_published:
        return v.scalar_or_array(corrected)
    log_pub = _log_published_sigma2(c_log, a, b, n_)
    leak = _half_log1p_ratio(np.log(vx), log_pub, scale)
    pub = _over_c_eps(a + (n_ - 1.0) * b * b / (a + (n_ - 2.0) * b), e)
    v.warn(
        f"Zeng et al. 2022 eq. (14) as published has '+' where '−' belongs (erratum gauss.case2_sigma2): sigma2 = "
        f"{_first(pub):.6g} leaks only {_first(leak):.6g} {units} < eps = {_first(e) / scale:g} {units} "
        f"(over-noised); the corrected sigma2 = V_x/(2^(2eps)-1) = {_first(corrected):.6g}",
        ErratumWarning)
    return v.scalar_or_array(pub)


@v.named_shapes
def case2_privacy(sigma2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                  units: Units = "bits") -> FloatOrArray:
    """Eq. (13), simplified: ``max_i I(X_i; Y | X^{-i}) = ½·log2(1 + V_x/σ²)`` (exact for any σ² > 0).

    Parameters
    ----------
    sigma2 : ArrayLike
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma2``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case2_privacy
    >>> case2_privacy(0.5, 1.0, 0.5, 4)
    0.5849625007211562
    """
    scale = nats_per_unit(units)
    s = v.positive("sigma2", sigma2)
    a, b, n_ = equicorrelated(var, cov, n)
    return v.scalar_or_array(_leak(schur(a, b, n_), s, scale))


def _u_equi(lam1: FloatArray, lam2: FloatArray, log_mu1: FloatArray, log_mu2: FloatArray, n: FloatArray,
            scale: float) -> FloatArray:
    """``(1/2n)[log(1 + λ₁/μ₁) + (n−1)·log(1 + λ₂/μ₂)]``: eigen-form of (15)-(17), (25)-(27), from log μ."""
    return np.asarray((log1p_exp(np.log(lam1) - log_mu1) + (n - 1.0) * log1p_exp(np.log(lam2) - log_mu2))
                      / (2.0 * n) / scale)


@v.named_shapes
def case2_utility(sigma2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, units: Units = "bits",
                  as_published: bool = False) -> FloatOrArray:
    """Eq. (17) corrected: ``U = (1/2n)[log2(σ_m²+σ²+(n−1)σ_k²) + (n−1)log2(σ_m²+σ²−σ_k²)
    − n·log2 σ²]`` (σ^{2n} once). ``as_published=True`` divides by σ^{2n} twice, as printed in (17).

    Parameters
    ----------
    sigma2 : ArrayLike
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma2``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case2_utility
    >>> case2_utility(0.5, 1.0, 0.5, 4)
    0.6981203125901445
    """
    scale = nats_per_unit(units)
    s = v.positive("sigma2", sigma2)
    a, b, n_ = equicorrelated(var, cov, n)
    lam1, lam2 = a + (n_ - 1.0) * b, a - b
    u = _u_equi(lam1, lam2, np.log(s), np.log(s), n_, scale)
    if not as_published:
        return v.scalar_or_array(u)
    pub = u - 0.5 * np.log(s) / scale  # the extra −(1/2n)·log σ^{2n}
    v.warn(
        f"Zeng et al. 2022 eq. (17) as published divides by sigma^(2n) twice (erratum gauss.case2_utility): "
        f"U = {_first(pub):.6g} {units}; the true I(X;Y)/n = {_first(u):.6g} {units}", ErratumWarning)
    return v.scalar_or_array(pub)


@v.named_shapes
def case2_u_max(eps: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *, units: Units = "bits",
                as_published: bool = False) -> FloatOrArray:
    """Eq. (18) at the corrected σ_min² = V_x/c_ε: ``U_max = (1/2n)[log2(1 + c_ε d/λ₂) + (n−1)log2(1 + c_ε d/λ₁)]``
    with ``λ₁ = σ_m²+(n−1)σ_k²``, ``λ₂ = σ_m²−σ_k²``, ``d = σ_m²+(n−2)σ_k²`` (log space: no overflow in ε).

    ``as_published=True``: (18) at the published σ² of (14) — the true utility of the paper's noise.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

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
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case2_u_max
    >>> case2_u_max(1.0, 1.0, 0.5, 4)
    1.1246304946537529
    """
    scale = nats_per_unit(units)
    e = eps_nats(eps, units)
    a, b, n_ = equicorrelated(var, cov, n)
    lam1, lam2 = a + (n_ - 1.0) * b, a - b
    d = a + (n_ - 2.0) * b
    c_log = log_c_eps(e)
    u = (log1p_exp(c_log + np.log(d / lam2)) + (n_ - 1.0) * log1p_exp(c_log + np.log(d / lam1))) / (2.0 * n_)
    u = v.finite_result("u_max", np.asarray(u / scale), "eps is too large (2^(2 eps) overflows); reduce eps")
    if not as_published:
        return v.scalar_or_array(u)
    log_pub = _log_published_sigma2(c_log, a, b, n_)  # σ² itself may underflow (ε = 400 nats): stay in logs
    u_pub = _u_equi(lam1, lam2, log_pub, log_pub, n_, scale)
    leak = _half_log1p_ratio(np.log(schur(a, b, n_)), log_pub, scale)
    v.warn(
        f"U_max at the published sigma2 of eq. (14) (erratum gauss.case2_sigma2): U = {_first(u_pub):.6g} {units} "
        f"at a true "
        f"leakage of {_first(leak):.6g} {units}; the corrected sigma2 reaches U_max = {_first(u):.6g} {units}",
        ErratumWarning)
    return v.scalar_or_array(u_pub)


# --- Case 3: equicorrelated X and equicorrelated noise (σ², σ_e²) ------------------------------------------

@v.named_shapes
def noise_conditional_variance(sigma2: ArrayLike, sigma_e2: ArrayLike, n: ArrayLike) -> FloatOrArray:
    """``V_z = Var(Z_i | Z^{-i}) = (σ²−σ_e²)(σ²+(n−1)σ_e²)/(σ²+(n−2)σ_e²)``.

    Parameters
    ----------
    sigma2 : ArrayLike
    sigma_e2 : ArrayLike
    n : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import noise_conditional_variance
    >>> noise_conditional_variance(0.5, 0.1, 4)
    0.45714285714285724
    """
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    return v.scalar_or_array(schur(s, e, n_))


_LN2 = math.log(2.0)


def _log_ratio(num: int, den: int) -> float:
    """``log(num/den)`` of positive integers to about an ulp: ``int / int`` is correctly rounded, so the log of the
    rounded ratio (``log1p`` of the exact ``num − den`` over ``den`` near 1); logs of each only where the ratio
    leaves the double range (the result is then over 700 in magnitude)."""
    if 2 * abs(num - den) < den:
        return math.log1p((num - den) / den)
    try:
        ratio = num / den
    except OverflowError:
        ratio = math.inf
    if 0.0 < ratio < math.inf:
        return math.log(ratio)
    return math.log(num) - math.log(den)


def _log_scaled(x: int, k: int) -> float:
    """``log(x·2^{−k})`` of a positive integer: ``log`` of its mantissa in [1, 2) (a correctly rounded ``int / int``)
    plus the exponent's exact ``(e − k)·ln 2`` — no cancellation between a large ``log x`` and ``k ln 2``."""
    e = x.bit_length() - 1
    return math.log(x / (1 << e)) + (e - k) * _LN2


def _exact_elementwise(fn: Callable[..., Any], s: FloatArray, e: FloatArray, a: FloatArray,
                       b: FloatArray, n: FloatArray) -> list[tuple[Any, int]]:
    """``(fn(S, E, A, B, n), k)`` at every point of the broadcast inputs, in exact integer arithmetic (published forms
    cancel in float64): ``S = s·2^k`` … are the doubles as integers over one common power of two (exact: a double
    is an integer over a power of 2) and ``n`` the integer n. ``fn`` is a polynomial homogeneous of degree 3 in
    (s, e, a, b), so its value at the doubles is ``fn(S, E, A, B, n)·2^{−3k}``. Plain ints, not ``Fraction``: no
    gcd per operation (~20x faster).
    """
    cols = [np.ravel(x).tolist() for x in np.broadcast_arrays(s, e, a, b, n)]
    out = []
    for sv, ev, av, bv, nv in zip(*cols, strict=True):
        ratios = [x.as_integer_ratio() for x in (sv, ev, av, bv)]
        k = max(d.bit_length() for _, d in ratios) - 1  # every denominator is a power of two
        ints = [p << (k - d.bit_length() + 1) for p, d in ratios]
        out.append((fn(*ints, int(nv)), k))
    return out


def _published_24(s: int, e: int, a: int, b: int, n: int) -> tuple[int, int]:
    """(numerator, denominator) of the argument of the log in (24) exactly as printed (A + B + C + D over its
    denominator), both homogeneous of degree 3: its terms grow like n² and cancel (7.6e-8 relative error in float64
    at n = 1e9)."""
    sign = 1 if n % 2 == 1 else -1  # (−1)^{n+1}
    big_a = (a + s) * (s - e) * (a - b)
    big_b = sign * (n - 1) * e * (e - a - s) * (a - b)
    big_c = (n - 1) * b * b * (e - s)
    big_d = (n - 1) ** 2 * e * b * (a + s - b - e)
    return big_a + big_b + big_c + big_d, (a + (n - 2) * b) * (s + (n - 1) * e) * (s - e)


@v.named_shapes
def case3_privacy(sigma2: ArrayLike, sigma_e2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                  units: Units = "bits", as_published: bool = False) -> FloatOrArray:
    """Case-3 privacy corrected (eqs. (22)/(24) are wrong for every n):
    ``max_i I(X_i; Y | X^{-i}) = ½·log2(1 + V_x/V_z)``.

    ``as_published=True`` evaluates (24) as printed (wrong for every n; at σ_e² = 0 it does not reduce to (13)).

    Parameters
    ----------
    sigma2 : ArrayLike
    sigma_e2 : ArrayLike
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

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
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_privacy
    >>> case3_privacy(0.5, 0.1, 1.0, 0.5, 4)
    0.6215869917364754
    """
    scale = nats_per_unit(units)
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    a, b, n2 = equicorrelated(var, cov, n)
    true = _leak(schur(a, b, n2), schur(s, e, n_), scale)
    if not as_published:
        return v.scalar_or_array(true)
    args = [nd for nd, _ in _exact_elementwise(_published_24, s, e, a, b, n_)]
    if any(num * den <= 0 for num, den in args):
        raise DomainError("the published eq. (24) has a non-positive log argument at these sigma2, sigma_e2, var, cov "
                          "and n (erratum gauss.case3_privacy); use as_published=False")
    shape = np.broadcast_shapes(s.shape, e.shape, a.shape, b.shape, n_.shape)
    pub = np.asarray([0.5 * _log_ratio(abs(num), abs(den)) / scale for num, den in args]).reshape(shape)
    v.warn(
        f"Zeng et al. 2022 eq. (24) as published is wrong (erratum gauss.case3_privacy): it gives {_first(pub):.6g} "
        f"{units}; "
        f"the true leakage 1/2 log(1 + V_x/V_z) = {_first(true):.6g} {units}", ErratumWarning)
    return v.scalar_or_array(pub)


@v.named_shapes
def case3_utility(sigma2: ArrayLike, sigma_e2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                  units: Units = "bits") -> FloatOrArray:
    """Eq. (27): ``U = (1/2n)[log2(1 + λ₁/μ₁) + (n−1)·log2(1 + λ₂/μ₂)]`` with noise eigenvalues
    ``μ₁ = σ²+(n−1)σ_e²`` and ``μ₂ = σ²−σ_e²`` (the same number as printed, cancellation-free).

    Parameters
    ----------
    sigma2 : ArrayLike
    sigma_e2 : ArrayLike
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
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

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_utility
    >>> case3_utility(0.5, 0.1, 1.0, 0.5, 4)
    0.6942711404606738
    """
    scale = nats_per_unit(units)
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    a, b, n2 = equicorrelated(var, cov, n)
    return v.scalar_or_array(_u_equi(a + (n2 - 1.0) * b, a - b, np.log(s + (n_ - 1.0) * e), np.log(s - e), n_,
                                     scale))


def _bracket_22(s: int, e: int, a: int, b: int, n: int) -> int:
    """(22) as printed divided by ``[(σ_m²−σ_k²)(σ²−σ_e²)]^{n−2}`` (exact rationals; the signs of
    ``(σ_e²−σ²)^{n−2}(σ_k²−σ_m²)^{n−2}`` cancel, and ``(−1)^{n+1}(σ_e²−σ²)^{n−2}`` gives ``−(−1)^{n}·(−1)^{n}``)."""
    return ((a + s) * (s - e) * (a - b) + (n - 1) * e * (a + s - e) * (a - b)
            + (n - 1) * b * ((n - 1) * e * (a + s - b - e) + (e - s) * b))


@v.named_shapes
def case3_determinant(sigma2: ArrayLike, sigma_e2: ArrayLike, var: ArrayLike, cov: ArrayLike, n: ArrayLike, *,
                      as_published: bool = False) -> FloatOrArray:
    """``|COV(Y^n, X^{-i})|``, the (2n−1)×(2n−1) determinant of (21)-(22), corrected:
    ``N*·[(σ_m²−σ_k²)(σ²−σ_e²)]^{n−2}`` with ``N* = (σ_m²+(n−2)σ_k²)(σ²−σ_e²)(σ²+(n−1)σ_e²) +
    (σ_m²−σ_k²)(σ_m²+(n−1)σ_k²)(σ²+(n−2)σ_e²)``.

    ``as_published=True`` evaluates (22) as printed (it lacks ``(n−1)σ_k²(σ_m²+σ²)(σ²−σ_e²)`` in the bracket), in
    exact rational arithmetic for the bracket. Computed in log space; a determinant outside float64 raises.

    Parameters
    ----------
    sigma2 : ArrayLike
    sigma_e2 : ArrayLike
    var : ArrayLike
    cov : ArrayLike
    n : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

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
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.gaussian_mi import case3_determinant
    >>> case3_determinant(0.5, 0.1, 1.0, 0.5, 4)
    0.060600000000000015
    """
    s, e, n_ = equicorrelated(sigma2, sigma_e2, n, names=("sigma2", "sigma_e2"))
    a, b, n2 = equicorrelated(var, cov, n)
    log_common = (n_ - 2.0) * (np.log(a - b) + np.log(s - e))
    n_star = (a + (n2 - 2.0) * b) * (s - e) * (s + (n_ - 1.0) * e) + (a - b) * (a + (n2 - 1.0) * b) * (
        s + (n_ - 2.0) * e)
    true = _det_from_log(np.ones_like(n_star), np.log(n_star) + log_common)
    if not as_published:
        return v.scalar_or_array(true)
    brackets = _exact_elementwise(_bracket_22, s, e, a, b, n_)
    shape = np.broadcast_shapes(s.shape, e.shape, a.shape, b.shape, n_.shape)
    sign = np.asarray([float((x > 0) - (x < 0)) for x, _ in brackets]).reshape(shape)
    log_abs = np.asarray([_log_scaled(abs(x), 3 * k) if x != 0 else -np.inf for x, k in brackets]).reshape(shape)
    pub = _det_from_log(sign, log_abs + log_common)
    v.warn(
        f"Zeng et al. 2022 eq. (22) as printed is wrong (erratum gauss.case3_determinant): it gives {_first(pub):.6g}; "
        f"the true "
        f"determinant N*·[(var-cov)(sigma2-sigma_e2)]^(n-2) = {_first(true):.6g}", ErratumWarning)
    return v.scalar_or_array(pub)


def _det_from_log(sign: FloatArray, log_abs: FloatArray) -> FloatArray:
    with np.errstate(over="ignore"):
        out = sign * np.exp(log_abs)
    big = np.isinf(out) | ((out == 0) & np.isfinite(log_abs))
    if np.any(big) or np.any((np.abs(out) < np.finfo(np.float64).tiny) & (out != 0)):
        raise DomainError("the determinant is outside the float64 range (it scales like [(var-cov)(sigma2-sigma_e2)]"
                          "^(n-2)); lower n or rescale the variances")
    return np.asarray(out)


# --- unit conversions ----------------------------------------------------------------------------------------

@v.named_shapes
def bits_to_nats(x: ArrayLike) -> FloatOrArray:
    """An information quantity (or ε) in bits → nats: ``x·ln 2`` (`dpcalc.units.to_nats`), x >= 0.

    Examples:
        >>> from dpcalc.gaussian_mi import bits_to_nats
        >>> bits_to_nats(1.0)
        0.6931471805599453
    """
    return v.scalar_or_array(units.to_nats(v.nonnegative("x", x), "bits"))


@v.named_shapes
def nats_to_bits(x: ArrayLike) -> FloatOrArray:
    """An information quantity (or ε) in nats → bits: ``x/ln 2`` (`dpcalc.units.from_nats`), x >= 0.

    Examples:
        >>> from dpcalc.gaussian_mi import nats_to_bits
        >>> nats_to_bits(1.0)
        1.4426950408889634
    """
    return v.scalar_or_array(units.from_nats(v.nonnegative("x", x), "bits"))
