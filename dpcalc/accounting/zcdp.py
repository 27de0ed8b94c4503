"""Zero-concentrated DP (Bun & Steinke, "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
Bounds", TCC 2016): the Gaussian, composition and ρ-zCDP → (ε, δ).

* Gaussian with L2 sensitivity Δ and std σ is ρ-zCDP with ``ρ = Δ²/(2σ²)`` (Prop. 1.6); ρ's add (Lemma 1.7).
* Bun & Steinke Prop. 1.3: ρ-zCDP ⇒ (ρ + 2√(ρ log(1/δ)), δ)-DP.
* Tighter: ρ-zCDP is (α, ρα)-RDP for every α > 1, so the conversion of Canonne, Kamath & Steinke 2020 (Prop. 12,
  = Balle et al. 2020 Thm 21) optimised over *continuous* α:
  ``ε = min_{α>1} ρα + log1p(−1/α) − (log δ + log α)/(α − 1)``; and δ(ε) = min_α of its inverse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc._roots import bracket
from dpcalc.accounting import conversion
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["compose", "delta_from_rho", "eps_bun_steinke", "eps_from_rho", "gaussian_rho", "optimal_order"]

_LOG_X_MAX = math.log(1e300)  # largest α − 1 delta_from_rho searches (log)
_U = 2.0**-53  # unit roundoff


@v.named_shapes
def gaussian_rho(sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """ρ of the Gaussian mechanism: ``Δ²/(2σ²)`` (Bun & Steinke 2016, Prop. 1.6).

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0 (same as sensitivity), in ``(0, inf)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (L2 norm), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Ρ of the Gaussian mechanism (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``sensitivity``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.zcdp import gaussian_rho
    >>> gaussian_rho(2.0)
    0.125
    """
    s = v.positive("sigma", sigma)
    d = v.positive("sensitivity", sensitivity)
    return v.scalar_or_array(v.finite_result("rho", d * d / (2.0 * s * s), "sigma is too small"))


@v.named_shapes
def compose(rhos: Sequence[float] | ArrayLike) -> float:
    """Composition: ``ρ = Σ ρ_i`` (Bun & Steinke 2016, Lemma 1.7).

    Parameters
    ----------
    rhos : Sequence[float] | ArrayLike

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input (``rhos``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.zcdp import compose
    >>> compose([0.1, 0.2])
    0.30000000000000004
    """
    r = v.vector("rhos", rhos, 0.0)
    return float(np.sum(r))


@v.named_shapes
def eps_bun_steinke(rho: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """``ε = ρ + 2√(ρ log(1/δ))`` (Bun & Steinke 2016, Prop. 1.3).

    Parameters
    ----------
    rho : ArrayLike
        Ρ of ρ-zCDP, > 0 (nats), in ``[0, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        Ρ-zCDP → (ε, δ)-DP (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``rho``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.zcdp import eps_bun_steinke
    >>> eps_bun_steinke(0.1, 1e-5)
    2.2459660262893473
    """
    r = v.nonnegative("rho", rho)
    d = v.probability("delta", delta)
    return v.scalar_or_array(r + 2.0 * np.sqrt(r * -np.log(d)))


def _optimal_x(rho: FloatArray, log_delta: FloatArray) -> FloatArray:
    """x = α* − 1 > 0 minimising the CKS conversion: the root of ``g(x) = ρx² + log1p(x) + log δ`` (the numerator of
    its derivative; increasing, g(0) = log δ < 0). Newton in y = log x with the shared bracketing root finder over
    [x(−L − log1p(x_hi))/ρ)^{1/2}, x_hi = √(−L/ρ)] (L = log δ): no cap on α (α ≈ 2.6e16 at ρ = 1e-30, δ = 1e-300)."""
    big_l = -log_delta
    log_rho = np.log(rho)
    # in log space: at a subnormal ρ (1e-320) the quotient L/ρ overflows while x = √(L/ρ) ≈ 1e161 is a double
    y_hi = 0.5 * (np.log(big_l) - log_rho)
    x_hi = np.exp(y_hi)
    y_lo = 0.5 * (np.log(np.maximum(big_l - np.log1p(x_hi), 0.0)) - log_rho)
    y_lo = np.where(np.isfinite(y_lo), np.minimum(y_lo, y_hi - math.log(2.0)), math.log(1e-300))

    def f(y: FloatArray, act: np.ndarray) -> tuple[FloatArray, FloatArray]:
        x = np.exp(y)
        rx2 = np.exp(log_rho[act] + 2.0 * y)  # ρx², finite where x² alone is not
        return rx2 + np.log1p(x) - big_l[act], 2.0 * rx2 + x / (1.0 + x)

    lo, hi = bracket(f, y_lo, y_hi, increasing=True, rtol=1e-15, atol=1e-15, x0=0.5 * (y_lo + y_hi), newton=True)
    return np.exp(0.5 * (lo + hi))


def _eps_and_order(rho: FloatArray, log_delta: FloatArray) -> tuple[FloatArray, FloatArray]:
    rho, log_delta = (np.array(a, dtype=np.float64) for a in v.broadcast(rho=rho, delta=log_delta))
    eps = np.zeros(rho.shape)
    order = np.where(rho == 0.0, np.inf, 1.0)
    # Bretagnolle–Huber with KL <= ρ (zCDP's D_α <= ρα for every α > 1): δ >= √(1 − e^{−ρ}) already gives (0, δ)-DP
    run = (rho > 0.0) & ~conversion.bretagnolle_huber_zero(rho, log_delta)
    if np.any(run):
        r, ld = rho[run], log_delta[run]
        x = _optimal_x(r, ld)
        # the one pointwise conversion at α = 1 + x (valid at any α > 1: an x off by rounding stays safe), with the
        # rounding bound of its terms, which cancel where ε ≪ ρx (ρ = 3.2e-5, δ = 4.8e-3: terms ~8e-3 for
        # ε = 1.1e-7, which a 10,000-point sweep once found 2.6e-11 relative below the exact value), then SAFE_UP like
        # every minimiser over orders
        eps[run] = conversion.eps_at_order(r * (1.0 + x), x, ld, "improved") * SAFE_UP
        order[run] = 1.0 + x
    return eps, order


@v.named_shapes
def eps_from_rho(rho: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """Tight-as-RDP ε of ρ-zCDP at δ: continuous-α minimum of the CKS 2020 conversion (see module docstring).

    The optimum solves ρ(α − 1)² + log α + log δ = 0 (vectorised Newton, shared bracketing root finder, no cap on
    α); ε is the one pointwise conversion (`dpcalc.accounting.conversion.eps_at_order`) evaluated there, valid
    at any α, moved outward by the rounding bound of its terms (4u·``conversion.rounding_scale``) and by SAFE_UP
    (5e-14 relative), so never below the exact optimum. Always <= `eps_bun_steinke`; 1e-12 relative
    plus that absolute term, which matters only near the Bretagnolle–Huber boundary where ε ≪ ρ(α − 1) (swept
    against a 40-digit oracle down to ρ = 1e-30, δ = 1e-300).

    Parameters
    ----------
    rho : ArrayLike
        Ρ of ρ-zCDP, > 0 (nats), in ``[0, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        Tight ε(ρ, δ) of ρ-zCDP: the RDP conversion of Canonne, Kamath & Steinke 2020 (Prop. 12) at the optimal
        continuous order (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``rho``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.zcdp import eps_from_rho
    >>> eps_from_rho(0.1, 1e-5)
    1.9142388320036947
    """
    r = v.nonnegative("rho", rho)
    d = v.probability("delta", delta)
    eps, _ = _eps_and_order(r, np.log(d))
    return v.scalar_or_array(eps)


@v.named_shapes
@v.documented_inf
def optimal_order(rho: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """The order α at which `eps_from_rho` is attained: the root of ρ(α − 1)² + log α + log δ = 0 (inf for
    ρ = 0; 1 where the Bretagnolle–Huber bound gives ε = 0).

    Parameters
    ----------
    rho : ArrayLike
        Ρ of ρ-zCDP, > 0 (nats), in ``[0, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        The order α at which the tight ε(ρ, δ) of ρ-zCDP is attained (CKS 2020 Prop. 12 minimised over α > 1) (order); a
        float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``rho``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.zcdp import optimal_order
    >>> optimal_order(0.1, 1e-5)
    10.5682153609574
    """
    r = v.nonnegative("rho", rho)
    d = v.probability("delta", delta)
    _, order = _eps_and_order(r, np.log(d))
    return v.scalar_or_array(order)


@v.named_shapes
def delta_from_rho(rho: ArrayLike, eps: ArrayLike) -> FloatOrArray:
    """δ(ε) of ρ-zCDP: ``min_{α>1} exp((α−1)(ρα − ε) + α log1p(−1/α) − log(α − 1))`` (CKS 2020, Prop. 12), <= 1.

    Evaluated at the continuous optimum (Newton in log(α − 1), no cap on α below 1 + 1e300), never below the exact
    minimum: relative error <= 1e-12 + 1e-15·|ln δ| (the outward margin of its terms' rounding; swept against a
    40-digit oracle for ρ up to 1e6, ε from 0 past ρ + 2√(650ρ)). Where ε < ρ at large ρ, δ = 1 − e^{−…} is 1.

    Parameters
    ----------
    rho : ArrayLike
        Ρ of ρ-zCDP, > 0 (nats), in ``(0, inf)``.
    eps : ArrayLike
        Privacy level ε (nats), in ``[0, inf)``.

    Returns
    -------
    FloatOrArray
        Δ(ε) of ρ-zCDP: the RDP conversion of CKS 2020 (Prop. 12) in δ, minimised over continuous α (probability); a
        float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``rho``, ``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.zcdp import delta_from_rho
    >>> delta_from_rho(0.1, 1.0)
    0.008933245771818404
    """
    r = v.positive("rho", rho)
    e = v.nonnegative("eps", eps)
    rb, eb = (np.array(a, dtype=np.float64) for a in v.broadcast(rho=r, eps=e))
    rf, ef = rb.ravel(), eb.ravel()
    # the optimum solves h(x) = ρ(1 + 2x) − ε − log1p(1/x) = 0 (x = α − 1; increasing), Newton in y = log x with
    # log1p(1/x) = log(1 + e^{−y}) taken in y: no 1/x to overflow where the optimum x is subnormal or underflows
    # (ρ = 1000, ε = 1: x = e^{−999}; with 1/x = inf the old form returned δ = 0 where δ ≈ 1)
    y_lo = -(3.0 * rf + 1.0)  # h < 0 there: log1p(1/x) > −y = 3ρ + 1 >= ρ(1 + 2x)
    # h >= 1 − log 2 > 0 at x = (ε + 1)/(2ρ), taken in log space (ρ = 5e-324 overflows the quotient); where the
    # optimum lies beyond x = 1e300, α = 1 + 1e300 is used instead (δ(α) bounds δ at every order, and there it
    # underflows to 0 as the optimum's does)
    y_hi = np.maximum(np.log1p(ef) - math.log(2.0) - np.log(rf), 0.0)
    y_hi = np.minimum(y_hi, _LOG_X_MAX)

    gap = rf - ef  # ρ − ε: one rounding (none within a factor 2), where ρ(1 + 2x) and ε would cancel

    def h(y: FloatArray, gg: FloatArray, rr: FloatArray) -> tuple[FloatArray, FloatArray]:
        x = np.exp(y)
        return gg + 2.0 * rr * x - np.logaddexp(0.0, -y), 2.0 * rr * x + 1.0 / (1.0 + x)

    far = h(y_hi, gap, rf)[0] < 0.0  # the optimum lies beyond x = 1e300
    y = np.full(rf.shape, _LOG_X_MAX)
    if not np.all(far):
        near = ~far
        sub_g, sub_r = gap[near], rf[near]
        lo, hi = bracket(lambda yy, act: h(yy, sub_g[act], sub_r[act]), y_lo[near], y_hi[near], increasing=True,
                         rtol=1e-15, atol=1e-15, x0=0.5 * (y_lo[near] + y_hi[near]), newton=True)
        y[near] = 0.5 * (lo + hi)
    x = np.exp(y)
    # log δ(α) = x(ρ(1 + x) − ε) − log1p(x) − x·log1p(1/x) at α = 1 + x, valid (an upper bound on δ) at any x, so a
    # root off by rounding stays safe; written x(ρ − ε) + ρx² (x·ρ(1 + x) and x·ε cancel: terms of 2.7e4 for
    # log δ = −650 at ρ = 1e6, ρ − ε itself has one rounding) and with x·log1p(1/x) = x(log1p(x) − log x) below
    # x = 1 (a subnormal x overflowed 1/x: δ = 0 where δ ≈ 1). It tends to 0 as x → 0 (δ → 1 where x underflows,
    # ε < ρ at large ρ). Outward by 4u times the terms' magnitudes and by the rounding of exp; an overflowing term
    # (ρ = 5e-324, ε = 1e10: x = 1e300, short of the optimum) is δ = 0
    pos = x > 0.0
    xs = np.where(pos, x, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        x_log = np.where(pos, x * np.where(x < 1.0, np.log1p(xs) - np.log(xs), np.log1p(1.0 / xs)), 0.0)
        terms = (x * gap, rf * x * x, -np.log1p(x), -x_log)
        scale = sum(np.abs(t) for t in terms)
        log_d = np.where(np.isfinite(scale), sum(terms) + 4.0 * _U * scale, -np.inf)
    arr = np.minimum(np.exp(np.minimum(log_d, 0.0)) * (1.0 + 4.0 * _U), 1.0).reshape(rb.shape)
    return v.scalar_or_array(arr)
