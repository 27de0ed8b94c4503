"""NbAFL noise levels (Wei et al., "Federated Learning With Differential Privacy: Algorithms and Performance
Analysis", IEEE TIFS 2020, §3.3–3.4).

* `c_constant` — c = scale·√(2 ln(1.25/δ)) (Def. 2; the paper uses scale 1, 1.25 and 1.5).
* `client_sensitivity` — Δs_U = 2C/m (eq. 3, m = smallest local data set).
* `server_sensitivity` — Δs_D = max_i 2C·p_i/m (eq. 4); 2C/(mN) for equal weights.
* `client_sigma` — σ_U = cLΔs_U/ε (Thm 1 over L exposures).
* `server_required_sigma` — σ_A = cTΔs_D/ε (full participation) or cTΔs_D/(bε) (K of N, §3.4.2).
* `server_sigma` — σ_D of eq. (5) (full) or eq. (7) (K of N): √(max(σ_A² − σ_U²·Σp_i², 0)).
* `sampling_b`, `sampling_gamma` — b and γ of eq. (7); b exists only if K > N(1 − e^{−ε/T}).

Validity: Def. 2 (Dwork & Roth 2014, Thm A.1) is proven only for a per-release ε < 1 (ε/L for a client, ε/T or
bε/T for the server). Outside it the classic σ is not a guarantee: an `OutOfDomainWarning` is
raised. ``calibration="analytic"`` instead gives the exact Gaussian-mechanism σ for the same per-release (ε, δ)
(Balle & Wang 2018; `dpcalc.accounting.gaussian_mechanism.sigma_analytic`), valid for every ε; ``c_scale``
does not apply to it.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.accounting.gaussian_mechanism import classic_c
from dpcalc.errors import DomainError, OutOfDomainWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["aggregate_noise_std", "c_constant", "client_sensitivity", "client_sigma", "sampling_b", "sampling_gamma",
           "server_required_sigma", "server_sensitivity", "server_sigma"]

Calibration = Literal["classic", "analytic"]

_FIG4 = "the paper's own Fig. 4 setting (N = 50, K = 20, T = 25, eps = 50) is outside this domain"


def _c_scale(c_scale: ArrayLike) -> FloatArray:
    return v.check_range("c_scale", c_scale, 1.0)


def _counts(**named: ArrayLike) -> dict[str, FloatArray]:
    return {k: v.integer_at_least(k, val, 1) for k, val in named.items()}


def _calibration(calibration: str) -> Calibration:
    if calibration not in ("classic", "analytic"):
        raise DomainError(f"calibration must be 'classic' or 'analytic' (got {calibration!r})")
    return calibration  # type: ignore[return-value]


@v.named_shapes
def c_constant(delta: ArrayLike = 0.01, *, c_scale: ArrayLike = 1.25) -> FloatOrArray:
    """c = c_scale·√(2 ln(1.25/δ)) (Def. 2; c_scale >= 1 — the theorem needs c >= √(2 ln(1.25/δ))), with the one
    c(δ) of `dpcalc.accounting.gaussian_mechanism.classic_c`.

    Parameters
    ----------
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    c_scale : ArrayLike

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
    >>> from dpcalc.nbafl import c_constant
    >>> c_constant(0.01)
    3.8843893251152997
    """
    return v.scalar_or_array(_c_scale(c_scale) * np.asarray(classic_c(delta)))


@v.named_shapes
def client_sensitivity(C: ArrayLike = 20.0, m: ArrayLike = 100) -> FloatOrArray:
    """Δs_U = 2C/m (eq. 3): L2 sensitivity of a clipped local model, m = the smallest local data set size.

    Parameters
    ----------
    C : ArrayLike
    m : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``C``, ``m``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import client_sensitivity
    >>> client_sensitivity(20.0, 100)
    0.4
    """
    c = v.positive("C", C)
    mm = v.integer_at_least("m", m, 1)
    return v.scalar_or_array(2.0 * c / mm)


@v.named_shapes
def server_sensitivity(C: ArrayLike = 20.0, m: ArrayLike = 100, N: ArrayLike | None = None, *,
                       weights: ArrayLike | None = None) -> FloatOrArray:
    """Δs_D = max_i 2C·p_i/m (eq. 4): 2C/(mN) for equal weights p_i = 1/N, else with the given weights p_i.

    Parameters
    ----------
    C : ArrayLike
    m : ArrayLike
    N : ArrayLike | None
    weights : ArrayLike | None

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``C``, ``m``, ``N``, ``weights``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.nbafl import server_sensitivity
    >>> server_sensitivity(20.0, 100, 50)
    0.008
    """
    c = v.positive("C", C)
    mm = v.integer_at_least("m", m, 1)
    if weights is not None:
        p = v.weights("weights", weights)
        if N is not None and float(np.max(v.integer_at_least("N", N, 1))) != p.size:
            raise DomainError(f"N must equal the number of weights ({p.size}) when both are given")
        return v.scalar_or_array(2.0 * c * float(np.max(p)) / mm)
    if N is None:
        raise DomainError("N (number of clients) is required when no weights are given")
    n = v.integer_at_least("N", N, 1)
    return v.scalar_or_array(2.0 * c / (mm * n))


def _warn_classic(per_release_eps: FloatArray, who: str) -> None:
    if np.any(per_release_eps >= 1.0):
        worst = float(np.max(per_release_eps))
        v.warn(f"{who}: per-release eps = {worst:g} >= 1, where the classic Gaussian mechanism (Def. 2; "
               "Dwork & Roth 2014 Thm A.1) is not proven; the sigma is not a guarantee. Use "
               "calibration='analytic' for the exact Gaussian-mechanism noise", OutOfDomainWarning)


def _per_release_sigma(eps_release: FloatArray, delta: FloatArray, sens: FloatArray,
                       c_scale: FloatArray, calibration: Calibration, who: str) -> FloatArray:
    """σ for one release at (ε_r, δ) with L2 sensitivity Δ: classic c·Δ/ε_r, or the exact analytic σ."""
    if calibration == "analytic":
        from dpcalc.accounting import gaussian_mechanism

        e, d, s = np.broadcast_arrays(eps_release, delta, sens)
        return np.asarray(gaussian_mechanism.sigma_analytic(e, d, s), dtype=np.float64)
    _warn_classic(eps_release, who)
    c = c_scale * np.asarray(classic_c(delta))
    return np.asarray(c * sens / eps_release * SAFE_UP, dtype=np.float64)  # outward (convention 5)


@v.named_shapes
def client_sigma(eps: ArrayLike, delta: ArrayLike = 0.01, *, C: ArrayLike = 20.0, m: ArrayLike = 100, L: ArrayLike = 1,
                 c_scale: ArrayLike = 1.25, calibration: str = "classic") -> FloatOrArray:
    """σ_U = c·L·Δs_U/ε = 2cCL/(mε): client noise std for (ε, δ)-LDP over L exposures (§3.3.1, Thm 1).

    ``calibration="analytic"``: the exact Gaussian σ for one release at (ε/L, δ), sensitivity 2C/m.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    C : ArrayLike
    m : ArrayLike
    L : ArrayLike
    c_scale : ArrayLike
    calibration : str

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.nbafl import client_sigma
    >>> client_sigma(0.5)
    3.1075114600923954
    """
    e = v.positive("eps", eps)
    d = v.probability("delta", delta)
    cnt = _counts(L=L)
    sens = np.asarray(client_sensitivity(C, m))
    s = _c_scale(c_scale)
    out = _per_release_sigma(e / cnt["L"], d, sens, s, _calibration(calibration), "sigma_U")
    return v.scalar_or_array(out)


def _sampling_log(eps: FloatArray, T: FloatArray, N: FloatArray, K: FloatArray) -> FloatArray:
    """ln(1 − N/K + (N/K)e^{−ε/T}) = log1p((N/K)·expm1(−ε/T)), checking eq. 7's domain K > N(1 − e^{−ε/T})."""
    arg = (N / K) * np.expm1(-eps / T)
    bad = (arg <= -1.0) & (N != K)  # K = N: ln(e^{−ε/T}) = −ε/T exactly (below), whatever expm1 rounds to
    if np.any(bad):
        i = np.flatnonzero(np.broadcast_to(bad, arg.shape).ravel())[0]
        ee, tt, nn, kk = (float(np.broadcast_to(x, arg.shape).ravel()[i]) for x in (eps, T, N, K))
        kmin = -nn * math.expm1(-ee / tt)
        raise DomainError(f"K must be > N(1 - e^(-eps/T)) = {kmin:.6g} for eq. 7 (got K = {kk:g} with N = {nn:g}, "
                          f"T = {tt:g}, eps = {ee:g}; b is undefined otherwise); note: {_FIG4}")
    return np.asarray(np.where(N == K, -eps / T, np.log1p(arg)), dtype=np.float64)


def _sampling_g_low(eps: FloatArray, T: FloatArray, N: FloatArray, K: FloatArray) -> FloatArray:
    """g = −ln(1 − N/K + (N/K)e^{−ε/T}) rounded down by its float64 error bound (convention 5: σ_A, σ_D and the
    Theorem-3 bound all grow as g shrinks, so a low g is the safe side).

    Near eq. 7's boundary the argument 1 + (N/K)·expm1(−ε/T) cancels: its absolute error is a few u·|arg|, so g
    carries the relative error 4u·|arg|/((1 + arg)·g) + 4u (u the unit roundoff). At K = N, g = ε/T is left as it
    is: T/b = ε/(ε/T) is then T to an ulp, and σ_D's √(T² − L²K) must stay exactly 0 at T = L√K.
    Measured without it: Theorem 3's bound 2.1e-13 below the exact value at N/K = 13, 1 + arg = 4e-4
    (tests/families/test_sweep_seeds.py, 10,000 points)."""
    u = np.finfo(np.float64).eps / 2.0
    log_value = _sampling_log(eps, T, N, K)
    arg = (N / K) * np.expm1(-eps / T)
    g = -log_value
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(N == K, 0.0, 4.0 * u * np.abs(arg) / ((1.0 + arg) * g) + 4.0 * u)
    return np.asarray(g * (1.0 - np.where(np.isfinite(rel), rel, 0.0)), dtype=np.float64)


def _check_at_most(name: str, value: FloatArray, bound_name: str, bound: FloatArray) -> None:
    """One-line DomainError where a count exceeds the count that bounds it (K <= N, L <= T)."""
    if np.any(value > bound):
        a, b = np.broadcast_arrays(value, bound)
        i = np.flatnonzero((a > b).ravel())[0]
        raise DomainError(f"{name} must be an integer in [1, {bound_name}] (got {name} = {a.ravel()[i]:g} > "
                          f"{bound_name} = {b.ravel()[i]:g})")


def _check_k(N: FloatArray, K: FloatArray) -> None:
    _check_at_most("K", K, "N", N)


@v.named_shapes
def sampling_b(eps: ArrayLike, *, T: ArrayLike = 25, N: ArrayLike = 50, K: ArrayLike) -> FloatOrArray:
    """b = −(T/ε)·ln(1 − N/K + (N/K)e^{−ε/T}) (§3.4.2). Exists only for K > N(1 − e^{−ε/T}) (else DomainError).

    b·ε/T is the per-round ε₀ whose one-sided amplification −ln(1 − q + q e^{−ε₀}) at q = K/N equals ε/T
    (σ_D of eq. (7) is positive exactly when T > ε/γ). b = 1 at K = N.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    T : ArrayLike
    N : ArrayLike
    K : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import sampling_b
    >>> sampling_b(10.0, K=20)
    4.346019097680033
    """
    e = v.positive("eps", eps)
    cnt = _counts(T=T, N=N, K=K)
    _check_k(cnt["N"], cnt["K"])
    return v.scalar_or_array(-(cnt["T"] / e) * _sampling_log(e, cnt["T"], cnt["N"], cnt["K"]))


@v.named_shapes
def sampling_gamma(eps: ArrayLike, *, L: ArrayLike = 1, N: ArrayLike = 50, K: ArrayLike) -> FloatOrArray:
    """γ = −ln(1 − K/N + (K/N)e^{−ε/(L√K)}) (eq. 7): σ_D > 0 iff T > ε/γ.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    L : ArrayLike
    N : ArrayLike
    K : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import sampling_gamma
    >>> sampling_gamma(10.0, K=20)
    0.44199761212343663
    """
    e = v.positive("eps", eps)
    cnt = _counts(L=L, N=N, K=K)
    _check_k(cnt["N"], cnt["K"])
    q = cnt["K"] / cnt["N"]
    x = e / (cnt["L"] * np.sqrt(cnt["K"]))
    # K = N: γ = x exactly (the log1p form rounds 1 − 1 + e^{−x} to 0 once e^{−x} < 2^-53 and gave inf)
    return v.scalar_or_array(np.where(q == 1.0, x, -np.log1p(q * np.expm1(-x))))


def _check_l(L: FloatArray, T: FloatArray) -> None:
    _check_at_most("L", L, "T", T)


@v.named_shapes
def server_required_sigma(eps: ArrayLike, delta: ArrayLike = 0.01, *, C: ArrayLike = 20.0, m: ArrayLike = 100,
                          T: ArrayLike = 25, N: ArrayLike = 50, K: ArrayLike | None = None, c_scale: ArrayLike = 1.25,
                          calibration: str = "classic") -> FloatOrArray:
    """σ_A: the std the global model needs for (ε, δ)-DP over T broadcasts (§3.3.2, §3.4.2).

    Full participation (K None or K = N): σ_A = cTΔs_D/ε with Δs_D = 2C/(mN). K of N: σ_A = cTΔs_D/(bε) with
    Δs_D = 2C/(mK) — one release at per-round ε₀ = bε/T. ``calibration="analytic"``: exact σ at (ε₀, δ).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    C : ArrayLike
    m : ArrayLike
    T : ArrayLike
    N : ArrayLike
    K : ArrayLike | None
    c_scale : ArrayLike
    calibration : str

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.nbafl import server_required_sigma
    >>> server_required_sigma(10.0)
    0.07768778650230988
    """
    e = v.positive("eps", eps)
    d = v.probability("delta", delta)
    cnt = _counts(T=T, N=N, **({} if K is None else {"K": K}))
    kk = cnt.get("K", cnt["N"])
    _check_k(cnt["N"], kk)
    sens = np.asarray(server_sensitivity(C, m, kk))
    eps0 = e / cnt["T"] if K is None else _sampling_g_low(e, cnt["T"], cnt["N"], kk)
    out = _per_release_sigma(eps0, d, sens, _c_scale(c_scale), _calibration(calibration), "sigma_A")
    return v.scalar_or_array(out)


@v.named_shapes
def server_sigma(eps: ArrayLike, delta: ArrayLike = 0.01, *, C: ArrayLike = 20.0, m: ArrayLike = 100, T: ArrayLike = 25,
                 L: ArrayLike = 1, N: ArrayLike = 50, K: ArrayLike | None = None, c_scale: ArrayLike = 1.25,
                 calibration: str = "classic") -> FloatOrArray:
    """σ_D: the extra server noise std, √(max(σ_A² − σ_U²/K', 0)) with K' = N (eq. 5) or K (eq. 7).

    Classic calibration gives the closed forms 2cC√(T² − L²N)/(mNε) if T > L√N else 0 (eq. 5) and
    2cC√(T²/b² − L²K)/(mKε) if T > ε/γ else 0 (eq. 7); with ``calibration="analytic"`` both σ_A and σ_U are the
    exact per-release Gaussian values. K of N needs K > N(1 − e^{−ε/T}) (eq. 7's domain; DomainError otherwise).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    C : ArrayLike
    m : ArrayLike
    T : ArrayLike
    L : ArrayLike
    N : ArrayLike
    K : ArrayLike | None
    c_scale : ArrayLike
    calibration : str

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``, ``C``, ``m``) outside its domain; the one-line message names it and the allowed
        range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.nbafl import server_sigma
    >>> server_sigma(0.5)
    1.4903101419366642
    """
    e = v.positive("eps", eps)
    d = v.probability("delta", delta)
    cnt = _counts(T=T, L=L, N=N, **({} if K is None else {"K": K}))
    _check_l(cnt["L"], cnt["T"])
    kk = cnt.get("K", cnt["N"])
    _check_k(cnt["N"], kk)
    cal = _calibration(calibration)
    s = _c_scale(c_scale)
    if cal == "classic":
        _warn_classic(e / cnt["L"], "sigma_U")
        c = s * np.asarray(classic_c(d))
        if K is None:  # eq. 5: T² − L²N is an exact integer in float64 (no cancellation)
            _warn_classic(e / cnt["T"], "sigma_A")
            radicand = np.maximum(cnt["T"] ** 2 - cnt["L"] ** 2 * kk, 0.0)
        else:  # eq. 7: (T/b − L√K)(T/b + L√K), difference of squares factored
            t_over_b = e / _sampling_g_low(e, cnt["T"], cnt["N"], kk)
            _warn_classic(e / t_over_b, "sigma_A")
            lk = cnt["L"] * np.sqrt(kk)
            radicand = np.maximum(t_over_b - lk, 0.0) * (t_over_b + lk)
        out = 2.0 * c * v.positive("C", C) * np.sqrt(radicand) / (v.integer_at_least("m", m, 1) * kk * e) * SAFE_UP
        return v.scalar_or_array(np.asarray(out, dtype=np.float64))
    s_a = np.asarray(server_required_sigma(e, d, C=C, m=m, T=cnt["T"], N=cnt["N"], K=K, calibration=cal))
    s_u = np.asarray(client_sigma(e, d, C=C, m=m, L=cnt["L"], calibration=cal))
    var = s_a * s_a - s_u * s_u / kk
    return v.scalar_or_array(np.sqrt(np.maximum(var, 0.0)) * SAFE_UP)  # outward (convention 5)


@v.named_shapes
def aggregate_noise_std(sigma_u: ArrayLike, *, K: ArrayLike, sigma_d: ArrayLike = 0.0) -> FloatOrArray:
    """Std per coordinate of the noise in the broadcast model: √(σ_U²/K + σ_D²) (K equal-weight participants).

    Parameters
    ----------
    sigma_u : ArrayLike
    K : ArrayLike
    sigma_d : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma_u``, ``K``, ``sigma_d``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.nbafl import aggregate_noise_std
    >>> aggregate_noise_std(1.0, K=10, sigma_d=0.1)
    0.33166247903554
    """
    su = v.nonnegative("sigma_u", sigma_u)
    sd = v.nonnegative("sigma_d", sigma_d)
    k = v.integer_at_least("K", K, 1)
    return v.scalar_or_array(np.sqrt(su * su / k + sd * sd))
