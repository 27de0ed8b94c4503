"""The Gaussian mechanism: classic calibration (Dwork & Roth 2014) and the exact analytic Gaussian mechanism
(Balle & Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018).

Sensitivity is the L2 sensitivity Δ (default 1, so σ is the noise multiplier). Add/remove or replace-one
neighbours with the same Δ give the same curve.

* Classic (Dwork & Roth 2014, Thm A.1): σ = c(δ)·Δ/ε with c(δ) = √(2 ln(1.25/δ)); proven only for ε < 1,
  outside it an `OutOfDomainWarning` is raised (the value is then not a guarantee).
* Analytic (Balle & Wang 2018, Thm 8): the mechanism is (ε, δ)-DP iff
  ``δ >= Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``. We evaluate the right side without cancellation or underflow
  through ``erfcx`` (with a = Δ/(2σ) − εσ/Δ <= 0 it equals ``½e^{−a²/2}[erfcx(−a/√2) − erfcx(−b/√2)]``, because
  b² − a² = 2ε), so ``log δ`` is accurate even where δ < 1e-300. This module is the σ form, thin over the one
  μ-form kernel and its inverses in `dpcalc.accounting.gdp` (μ = Δ/σ); ε(σ, δ) and σ(ε, δ) are its
  safe-side roots.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.accounting import gdp
from dpcalc.errors import DomainError, OutOfDomainWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["classic_c", "classic_eps", "classic_sigma", "delta", "eps_analytic", "log_delta", "mu", "sigma_analytic"]



def _delta_inputs(delta: ArrayLike) -> FloatArray:
    return v.probability("delta", delta)


def _sens(sensitivity: ArrayLike) -> FloatArray:
    return v.positive("sensitivity", sensitivity)


# --- classic --------------------------------------------------------------------------------------------------

@v.named_shapes
def classic_c(delta: ArrayLike) -> FloatOrArray:
    """Dwork & Roth (2014) Thm A.1 constant ``c(δ) = √(2 ln(1.25/δ))`` (δ in (0, 1)): the one definition behind
    every classic calibration (`classic_sigma`, `classic_eps`, NbAFL's Def. 2). The noise levels built
    on it carry the outward factor SAFE_UP; the constant itself is the closed form (within an ulp or two).

    Parameters
    ----------
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        Classic Gaussian constant c(δ); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import classic_c
    >>> classic_c(1e-5)
    4.84480526260539
    """
    return v.scalar_or_array(np.sqrt(2.0 * (math.log(1.25) - np.log(_delta_inputs(delta)))))


@v.named_shapes
def classic_sigma(eps: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Classic Gaussian noise ``σ = c(δ)·Δ/ε`` (Dwork & Roth 2014, Thm A.1).

    Proven only for ε < 1: for ε >= 1 an `OutOfDomainWarning` says the value is not a guarantee
    (use `sigma_analytic`, which is exact for every ε). Moved outward by SAFE_UP (5e-14 relative), as every
    classic σ of the library.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε (nats), in ``(0, 1)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (L2 norm), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Classic Gaussian noise std σ = c(δ)Δ/ε (proven for ε < 1 only) (same as sensitivity); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``, ``sensitivity``) outside its domain; the one-line message names it and the allowed
        range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import classic_sigma
    >>> classic_sigma(0.5, 1e-5)
    9.689610525211265
    """
    e = v.positive("eps", eps)
    d = _delta_inputs(delta)
    s = _sens(sensitivity)
    if np.any(e >= 1.0):
        v.warn("classic Gaussian sigma = sqrt(2 ln(1.25/delta))/eps is proven only for eps < 1 "
               "(Dwork & Roth 2014, Thm A.1); for eps >= 1 use the analytic Gaussian mechanism",
               OutOfDomainWarning)
    return v.scalar_or_array(np.asarray(classic_c(d)) * s / e * SAFE_UP)  # outward: a noise level (convention 5)


@v.named_shapes
def classic_eps(sigma: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Inverse of `classic_sigma`: ``ε = c(δ)·Δ/σ``, rounded outward by ``SAFE_UP`` like every guaranteed ε
    (a few ulps above the exact value, never below); warns when the result is >= 1 (outside Thm A.1).

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0 (same as sensitivity), in ``(0, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (L2 norm), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Classic Gaussian ε = c(δ)Δ/σ of a given noise std (proven for ε < 1 only) (nats); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``delta``, ``sensitivity``) outside its domain; the one-line message names it and the
        allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import classic_eps
    >>> classic_eps(5.0, 1e-5)
    0.9689610525211264
    """
    s = v.positive("sigma", sigma)
    d = _delta_inputs(delta)
    sens = _sens(sensitivity)
    with np.errstate(over="ignore"):
        eps = np.asarray(classic_c(d)) * sens / s * SAFE_UP
    if np.any(eps >= 1.0):
        v.warn("classic Gaussian eps = sqrt(2 ln(1.25/delta))/sigma is >= 1, where Dwork & Roth 2014 "
               "Thm A.1 is not proven; use the analytic Gaussian mechanism", OutOfDomainWarning)
    return v.scalar_or_array(v.finite_result("eps", eps, "sigma is too small"))


# --- analytic (Balle & Wang 2018) -----------------------------------------------------------------------------

def _mu(sigma: ArrayLike, sensitivity: ArrayLike) -> FloatArray:
    """μ = Δ/σ (validated), finite."""
    s = v.positive("sigma", sigma)
    sens = _sens(sensitivity)
    with np.errstate(over="ignore"):
        m = sens / s
    return v.finite_result("mu", m, "sigma/sensitivity is outside the representable range")


@v.named_shapes
def log_delta(sigma: ArrayLike, eps: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Natural log of the exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm 8); finite below 1e-308.

    Conventions order (mechanism σ, then ε, then scale Δ). The σ form of the one Gaussian privacy profile kernel
    (`dpcalc.accounting.gdp.log_delta` at μ = Δ/σ): accurate as δ → 1 and down to log δ ≈ −1e308.

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0 (same as sensitivity), in ``(0, inf)``.
    eps : ArrayLike
        Privacy level ε (nats), in ``[0, inf)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (L2 norm), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Log δ(ε) of the Gaussian mechanism (finite where δ underflows) (nats); a float for scalar inputs, else an array
        of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``eps``, ``sensitivity``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import log_delta
    >>> log_delta(1.0, 1.0)
    -2.0640664465003913
    """
    e = v.nonnegative("eps", eps)
    ld, _ = gdp._log_delta(e, _mu(sigma, sensitivity))
    return v.scalar_or_array(v.finite_result("log_delta", ld, "sigma/sensitivity is outside the representable "
                                                              "range"))


@v.named_shapes
def delta(sigma: ArrayLike, eps: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Exact δ(ε) of the Gaussian mechanism N(0, σ²), L2 sensitivity Δ (Balle & Wang 2018, Thm 8):

    ``δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` (the profile kernel at μ = Δ/σ). Conventions order (σ, ε, Δ).
    Underflows to 0 only where δ < ~1e-308 (use `log_delta` there).

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0 (same as sensitivity), in ``(0, inf)``.
    eps : ArrayLike
        Privacy level ε (nats), in ``[0, inf)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (L2 norm), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Exact δ(ε) of the Gaussian mechanism (probability); a float for scalar inputs, else an array of their broadcast
        shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``eps``, ``sensitivity``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import delta
    >>> delta(1.0, 1.0)
    0.12693673750664386
    """
    e = v.nonnegative("eps", eps)
    ld, d = gdp._log_delta(e, _mu(sigma, sensitivity))
    v.finite_result("log_delta", ld, "sigma/sensitivity is outside the representable range")
    return v.scalar_or_array(np.clip(d, 0.0, 1.0))


@v.named_shapes
def eps_analytic(sigma: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Exact (smallest) ε of the Gaussian mechanism at δ: the root of `delta` (Balle & Wang 2018).

    `dpcalc.accounting.gdp.eps_from_mu` at μ = Δ/σ (vectorised Newton, safe side: δ(returned ε) <= δ,
    at most ``gdp.ROOT_RTOL`` above the exact root). Returns 0 when δ >= δ(0) = 2Φ(Δ/(2σ)) − 1.

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0 (query units), in ``(0, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (query units), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Exact ε(σ, δ) of the Gaussian mechanism (smallest ε with δ(ε; σ) ≤ δ) (nats); a float for scalar inputs, else an
        array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``delta``, ``sensitivity``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import eps_analytic
    >>> eps_analytic(1.0, 1e-5)
    4.377178095681277
    """
    m = _mu(sigma, sensitivity)
    if np.any(m > 1e150):  # ε ≈ μ²/2 + μ√(2 ln(1/2δ)) must stay finite
        raise DomainError("sigma is too small for this sensitivity: the exact eps ~ (sensitivity/sigma)^2/2 overflows "
                          "float64 (sensitivity/sigma must be <= 1e150)")
    return gdp.eps_from_mu(m, _delta_inputs(delta))


@v.named_shapes
def sigma_analytic(eps: ArrayLike, delta: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Smallest σ making the Gaussian mechanism (ε, δ)-DP, exactly (Balle & Wang 2018, Alg. 1 solved by root finding).

    ``σ = Δ/μ(ε, δ)`` with `dpcalc.accounting.gdp.mu_from_eps` (safe side: μ below the exact root, so
    δ(ε; returned σ) <= δ; at most ``gdp.ROOT_RTOL`` relative above the exact minimal σ).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε (nats), in ``(0, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (query units), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Smallest σ making the Gaussian mechanism (ε, δ)-DP (Balle & Wang's analytic calibration) (query units); a float
        for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``, ``sensitivity``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.gaussian_mechanism import sigma_analytic
    >>> sigma_analytic(1.0, 1e-5)
    3.730631634815994
    """
    e = v.positive("eps", eps)
    d = _delta_inputs(delta)
    sens = _sens(sensitivity)
    m = np.asarray(gdp.mu_from_eps(e, d), dtype=np.float64)
    with np.errstate(over="ignore"):
        sigma = sens / m
    return v.scalar_or_array(v.finite_result("sigma", sigma, "eps is too small (sigma overflows float64)"))


@v.named_shapes
def mu(sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """The Gaussian mechanism is μ-GDP with μ = Δ/σ (Dong, Roth & Su 2022, Thm 2.7; `gdp.gaussian_mu`).

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0.

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
    >>> from dpcalc.accounting.gaussian_mechanism import mu
    >>> mu(2.0)
    0.5
    """
    return gdp.gaussian_mu(sigma=sigma, sensitivity=sensitivity)
