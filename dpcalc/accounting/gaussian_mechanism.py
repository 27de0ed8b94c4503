"""The Gaussian mechanism: classic calibration (Dwork & Roth 2014) and the exact analytic Gaussian mechanism
(Balle & Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018).

Sensitivity is the L2 sensitivity Δ (default 1, so σ is the noise multiplier). Add/remove or replace-one
neighbours with the same Δ give the same curve.

* Classic (Dwork & Roth 2014, Thm A.1): σ = c(δ)·Δ/ε with c(δ) = √(2 ln(1.25/δ)); proven only for ε < 1,
  outside it an :class:`~dpcalc.errors.OutOfDomainWarning` is raised (the value is then not a guarantee).
* Analytic (Balle & Wang 2018, Thm 8): the mechanism is (ε, δ)-DP iff
  ``δ >= Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``. We evaluate the right side without cancellation or underflow
  through ``erfcx`` (with a = Δ/(2σ) − εσ/Δ <= 0 it equals ``½e^{−a²/2}[erfcx(−a/√2) − erfcx(−b/√2)]``, because
  b² − a² = 2ε), so ``log δ`` is accurate even where δ < 1e-300; ε(σ, δ) and σ(ε, δ) are exact roots
  (brentq in log space), σ returned on the safe side.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import OutOfDomainWarning

FloatOrArray = float | v.FloatArray

_SQRT2 = math.sqrt(2.0)
_LOG_HALF = math.log(0.5)


def _delta_inputs(delta: ArrayLike) -> v.FloatArray:
    return v.probability("delta", delta)


def _sens(sensitivity: ArrayLike) -> v.FloatArray:
    return v.positive("sensitivity", sensitivity)


# --- classic --------------------------------------------------------------------------------------------------

def classic_c(delta: ArrayLike) -> FloatOrArray:
    """Dwork & Roth (2014) Thm A.1 constant ``c(δ) = √(2 ln(1.25/δ))`` (δ in (0, 1))."""
    d = _delta_inputs(delta)
    return v.scalar_or_array(np.sqrt(2.0 * (math.log(1.25) - np.log(d))))


def classic_sigma(eps: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Classic Gaussian noise ``σ = c(δ)·Δ/ε`` (Dwork & Roth 2014, Thm A.1).

    Proven only for ε < 1: for ε >= 1 an :class:`OutOfDomainWarning` says the value is not a guarantee
    (use :func:`sigma_analytic`, which is exact for every ε).
    """
    e = v.positive("eps", eps)
    d = _delta_inputs(delta)
    s = _sens(sensitivity)
    if np.any(e >= 1.0):
        warnings.warn("classic Gaussian sigma = sqrt(2 ln(1.25/delta))/eps is proven only for eps < 1 "
                      "(Dwork & Roth 2014, Thm A.1); for eps >= 1 use the analytic Gaussian mechanism",
                      OutOfDomainWarning, stacklevel=2)
    return v.scalar_or_array(np.sqrt(2.0 * (math.log(1.25) - np.log(d))) * s / e)


def classic_eps(sigma: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Inverse of :func:`classic_sigma`: ``ε = c(δ)·Δ/σ``; warns when the result is >= 1 (outside Thm A.1)."""
    s = v.positive("sigma", sigma)
    d = _delta_inputs(delta)
    sens = _sens(sensitivity)
    eps = np.sqrt(2.0 * (math.log(1.25) - np.log(d))) * sens / s
    if np.any(eps >= 1.0):
        warnings.warn("classic Gaussian eps = sqrt(2 ln(1.25/delta))/sigma is >= 1, where Dwork & Roth 2014 "
                      "Thm A.1 is not proven; use the analytic Gaussian mechanism", OutOfDomainWarning, stacklevel=2)
    return v.scalar_or_array(v.finite_result("eps", eps, "sigma is too small"))


# --- analytic (Balle & Wang 2018) -----------------------------------------------------------------------------

def _log_delta_mu(eps: v.FloatArray, mu: v.FloatArray) -> v.FloatArray:
    """log δ(ε; μ) of the Gaussian with μ = Δ/σ: log[Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)], no cancellation blow-up."""
    from scipy.special import erfc, erfcx

    eps, mu = np.broadcast_arrays(np.asarray(eps, dtype=np.float64), np.asarray(mu, dtype=np.float64))
    a = mu / 2.0 - eps / mu
    b = -mu / 2.0 - eps / mu
    out = np.empty(a.shape, dtype=np.float64)
    neg = a <= 0.0
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        # a <= 0: δ = ½ e^{−a²/2} [erfcx(−a/√2) − erfcx(−b/√2)]  (both arguments >= 0, no overflow)
        an, bn = a[neg], b[neg]
        diff = erfcx(-an / _SQRT2) - erfcx(-bn / _SQRT2)
        out[neg] = _LOG_HALF - an * an / 2.0 + np.log(diff)
        # a > 0: δ = ½[erfc(−a/√2) − e^{−a²/2} erfcx(−b/√2)]; the first term is in (1, 2), δ is not tiny
        ap, bp = a[~neg], b[~neg]
        val = 0.5 * (erfc(-ap / _SQRT2) - np.exp(-ap * ap / 2.0) * erfcx(-bp / _SQRT2))
        out[~neg] = np.log(val)
    return out


def log_delta_analytic(eps: ArrayLike, sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Natural log of the exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm 8); finite below 1e-308."""
    e = v.nonnegative("eps", eps)
    s = v.positive("sigma", sigma)
    sens = _sens(sensitivity)
    out = _log_delta_mu(e, sens / s)
    return v.scalar_or_array(v.finite_result("log_delta", out, "sigma/sensitivity is outside the representable "
                                                               "range"))


def delta_analytic(eps: ArrayLike, sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Exact δ(ε) of the Gaussian mechanism N(0, σ²), L2 sensitivity Δ (Balle & Wang 2018, Thm 8):

    ``δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``. Underflows to 0 only where δ < ~1e-308
    (use :func:`log_delta_analytic` there).
    """
    return v.scalar_or_array(np.exp(np.asarray(log_delta_analytic(eps, sigma, sensitivity))))


def _eps_root_scalar(log_mu: float, log_delta: float) -> float:
    from scipy.optimize import brentq

    mu = math.exp(log_mu)
    mu_arr = np.asarray(mu)
    if float(_log_delta_mu(np.asarray(0.0), mu_arr)) <= log_delta:
        return 0.0

    def f(e: float) -> float:
        return float(_log_delta_mu(np.asarray(e), mu_arr)) - log_delta

    # RDP bound (Mironov 2017): the true ε is <= μ²/2 + μ√(2 ln(1/δ)); so f(hi) <= 0.
    hi = mu * mu / 2.0 + mu * math.sqrt(2.0 * -log_delta) + 1e-300
    hi *= 1.0 + 1e-9
    while f(hi) > 0.0:  # pragma: no cover - guard only
        hi *= 2.0
    return float(brentq(f, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500))


def eps_analytic(sigma: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Exact (smallest) ε of the Gaussian mechanism at δ: the root of :func:`delta_analytic` (Balle & Wang 2018).

    Relative accuracy ~1e-14 (brentq at 4 ulp on the log-δ curve). Returns 0 when δ >= δ(0) = 2Φ(Δ/(2σ)) − 1.
    """
    s = v.positive("sigma", sigma)
    d = _delta_inputs(delta)
    sens = _sens(sensitivity)
    log_mu, log_d = np.broadcast_arrays(np.log(sens) - np.log(s), np.log(d))
    out = np.array([_eps_root_scalar(float(m), float(ld)) for m, ld in zip(log_mu.ravel(), log_d.ravel(),
                                                                         strict=True)])
    return v.scalar_or_array(v.finite_result("eps", out.reshape(log_mu.shape), "sigma is too small"))


def _sigma_root_scalar(eps: float, log_delta: float, sens: float) -> float:
    from scipy.optimize import brentq

    e_arr = np.asarray(eps)

    def f(log_sigma: float) -> float:  # > 0 when σ is too small (δ(ε; σ) above target)
        return float(_log_delta_mu(e_arr, np.asarray(sens / math.exp(log_sigma)))) - log_delta

    # Classic RDP conversion overestimates ε, so its σ (root of x²/2 + √(2L)x = ε in x = Δ/σ) is large enough.
    big_l = -log_delta
    x = 2.0 * eps / (math.sqrt(2.0 * big_l) + math.sqrt(2.0 * big_l + 2.0 * eps))
    hi = math.log(sens / x) + 1e-9
    lo = hi - 1.0
    while f(lo) <= 0.0:
        lo -= 1.0
        if lo < hi - 800:  # pragma: no cover - δ(ε; σ → 0) → 1 > δ always
            raise RuntimeError("sigma bracket failed")
    root = float(brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))
    sigma = math.exp(root)
    while f(math.log(sigma)) > 0.0:  # safe side: δ(ε; σ) <= target
        sigma = math.nextafter(sigma, math.inf) * (1.0 + 1e-15)
    return sigma


def sigma_analytic(eps: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Smallest σ making the Gaussian mechanism (ε, δ)-DP, exactly (Balle & Wang 2018, Alg. 1 solved by root finding).

    Safe side: the returned σ satisfies δ(ε; σ) <= δ as evaluated (δ's own relative noise is <= ~1e-12, larger only
    where Δ/σ < ~1e-2); it exceeds the exact root by at most ~1e-14 relative.
    """
    e = v.positive("eps", eps)
    d = _delta_inputs(delta)
    sens = _sens(sensitivity)
    eb, ldb, sb = np.broadcast_arrays(e, np.log(d), sens)
    out = np.array([_sigma_root_scalar(float(a), float(b), float(c))
                    for a, b, c in zip(eb.ravel(), ldb.ravel(), sb.ravel(), strict=True)])
    return v.scalar_or_array(out.reshape(eb.shape))


def mu(sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """The Gaussian mechanism is μ-GDP with μ = Δ/σ (Dong, Roth & Su 2019)."""
    s = v.positive("sigma", sigma)
    return v.scalar_or_array(_sens(sensitivity) / s)
