"""Rényi-DP bounds of the aggregate noise of n clients (grid units: the sum of the clients' rounded vectors).

* **Distributed discrete Gaussian** (Kairouz, Liu & Steinke 2021, Prop. 14, eq. 17): each of n clients adds
  N_Z(0, σ²)^d; the sum is not a discrete Gaussian, but for a shift of ℓ2 norm ≤ Δ₂ and ℓ1 norm ≤ Δ₁, with
  s₂ = Δ₂/(√n σ), s₁ = Δ₁/(√n σ) and τ = 10·Σ_{k=1}^{n−1} exp(−2π²σ²·k/(k+1)),

      D_α ≤ min{ α s₂²/2 + τd,  (α/2)(s₂² + 2 s₁ τ + τ²d),  (α/2)(s₂ + τ√d)² }   (``form="proposition"``)

  ``form="two_term"`` drops the middle (ℓ1) term; ``form="zcdp"`` is the concentrated-DP form the first and
  third terms give for α ≥ 1, (α/2)·min{s₂² + 2τd, (s₂ + τ√d)²}. The proposition assumes σ ≥ 1/2 (outside it an
  `OutOfDomainWarning`; our exact computations find violations only below σ ≈ 0.2). n = 1 is the discrete
  Gaussian itself (τ = 0: the Gaussian's αs₂²/2, an upper bound; Canonne, Kamath & Steinke 2020).
* **Distributed Skellam** (Agarwal, Kairouz & Liu 2021, Cor. 4.1): each client adds Sk(μ, μ)^d (variance 2μ per
  coordinate); the sum of n is Sk(nμ, nμ) exactly. With V = 2nμ the aggregate variance per coordinate,

      D_α ≤ αΔ₂²/(2V) + min{ ((2α − 1)Δ₂² + 6Δ₁)/(4V²),  3Δ₁/(2V) }

  at integer α ≥ 2; fractional orders take the chord of (α − 1)D_α between the neighbouring integers (convexity;
  Wang, Balle & Kasiviswanathan 2019, Cor. 10), which is valid whatever the bound does between integers.

Both are upper bounds (they return ``exact = False`` where a curve is reported). The numerically exact divergences
of scalar shifts (what the bounds bound) are in `dpcalc.distributed.exact`.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.errors import OutOfDomainWarning

__all__ = ["DDG_FORMS", "MECHANISMS", "SIGMA_MIN", "TAU_TERMS", "DdgForm", "Mechanism", "ddg_rdp", "ddg_tau",
           "ddg_zcdp_rho", "skellam_rdp"]

FloatOrArray = float | v.FloatArray
#: The two noises: the distributed discrete Gaussian and the distributed Skellam.
Mechanism = Literal["ddg", "skellam"]
MECHANISMS: tuple[str, ...] = ("ddg", "skellam")
DdgForm = Literal["proposition", "two_term", "zcdp"]
DDG_FORMS: tuple[str, ...] = ("proposition", "two_term", "zcdp")
#: The smallest per-client noise (grid units) at which Prop. 14 is stated.
SIGMA_MIN = 0.5
#: τ's sum is evaluated term by term up to this many terms; the rest are bounded by their limit e^{−2π²σ²} each.
TAU_TERMS = 1 << 20


def _tau_one(sigma: float, n: float) -> float:
    m = int(n) - 1
    if m <= 0:
        return 0.0
    c = 2.0 * math.pi ** 2 * sigma * sigma
    k = np.arange(1, min(m, TAU_TERMS) + 1, dtype=np.float64)
    total = float(np.sum(np.exp(-c * k / (k + 1.0))))
    if m > TAU_TERMS:  # every later term is below its limit e^{−c} (k/(k+1) < 1): an upper bound
        total += (m - TAU_TERMS) * math.exp(-c)
    return 10.0 * total * SAFE_UP


@v.named_shapes
def ddg_tau(sigma: ArrayLike, n: ArrayLike) -> FloatOrArray:
    """τ = 10·Σ_{k=1}^{n−1} exp(−2π²σ²k/(k+1)) of the sum of n discrete Gaussians N_Z(0, σ²) (grid units;
    Kairouz, Liu & Steinke 2021, Thm. 1): how far the sum is from one discrete Gaussian of variance nσ².

    Examples:
        >>> from dpcalc.accounting.distributed.noise import ddg_tau
        >>> f"{ddg_tau(1.0, 100):.6e}"
        '5.477887e-04'
    """
    s = v.positive("sigma", sigma)
    nn = v.integer_at_least("n", n, 1)
    return v.elementwise(_tau_one, sigma=s, n=nn)


def _orders(alpha: ArrayLike) -> v.FloatArray:
    return v.check_range("alpha", alpha, 1.0, lo_open=True)


@v.named_shapes
def ddg_rdp(alpha: ArrayLike, l2: ArrayLike, sigma: ArrayLike, n: ArrayLike, d: ArrayLike,
            l1: ArrayLike | None = None, *, form: str = "proposition") -> FloatOrArray:
    """RDP ε(α) of the sum of ``n`` clients' discrete Gaussian noise N_Z(0, σ²)^d for a shift of ℓ2 norm ≤ ``l2``
    (and ℓ1 norm ≤ ``l1``; default √d·l2), all in grid units (Kairouz, Liu & Steinke 2021, Prop. 14, eq. 17; module
    docstring for the forms). An upper bound; `OutOfDomainWarning` when σ < 1/2.

    Examples:
        >>> from dpcalc.accounting.distributed.noise import ddg_rdp
        >>> round(ddg_rdp(8.0, 30.0, 3.0, 100, 1024), 9)
        4.0
    """
    a = _orders(alpha)
    s2v = v.nonnegative("l2", l2)
    sig = v.positive("sigma", sigma)
    nn = v.integer_at_least("n", n, 1)
    dd = v.integer_at_least("d", d, 1)
    s1v = np.sqrt(dd) * s2v if l1 is None else v.nonnegative("l1", l1)
    which = v.choice("form", form, DDG_FORMS, "Prop. 14 with its ℓ1 term, without it, or the zCDP form")
    if np.any(sig < SIGMA_MIN):
        v.warn(f"sigma = {float(np.min(sig)):g} < 1/2 (grid units): Kairouz, Liu & Steinke 2021, Prop. 14 is "
               "stated for sigma >= 1/2", OutOfDomainWarning)
    tau = np.asarray(ddg_tau(sig, nn))
    scale = np.sqrt(nn) * sig
    s2, s1 = s2v / scale, s1v / scale
    third = 0.5 * a * (s2 + tau * np.sqrt(dd)) ** 2
    if which == "zcdp":
        eps = 0.5 * a * np.minimum(s2 * s2 + 2.0 * tau * dd, (s2 + tau * np.sqrt(dd)) ** 2)
    else:
        eps = np.minimum(0.5 * a * s2 * s2 + tau * dd, third)
        if which == "proposition":
            eps = np.minimum(eps, 0.5 * a * (s2 * s2 + 2.0 * s1 * tau + tau * tau * dd))
    return v.scalar_or_array(eps * SAFE_UP)


@v.named_shapes
def ddg_zcdp_rho(l2: ArrayLike, sigma: ArrayLike, n: ArrayLike, d: ArrayLike) -> FloatOrArray:
    """ρ of the distributed discrete Gaussian as ρ-zCDP (D_α <= ρα for all α > 1): ρ = ½·min{s₂² + 2τd,
    (s₂ + τ√d)²}, s₂ = Δ₂/(√n σ), from the first and third terms of Prop. 14 at α >= 1 (Kairouz, Liu & Steinke 2021;
    their Thm. 1 states the concentrated-DP form). Grid units; `OutOfDomainWarning` when σ < 1/2.

    Examples:
        >>> from dpcalc.accounting.distributed.noise import ddg_zcdp_rho
        >>> round(ddg_zcdp_rho(30.0, 3.0, 100, 1024), 9)
        0.5
    """
    return v.scalar_or_array(np.asarray(ddg_rdp(1.0 + 1.0, l2, sigma, n, d, form="zcdp")) / 2.0)


def _skellam_integer(a: v.FloatArray, l2: v.FloatArray, l1: v.FloatArray, var: v.FloatArray) -> v.FloatArray:
    return a * l2 * l2 / (2.0 * var) + np.minimum(((2.0 * a - 1.0) * l2 * l2 + 6.0 * l1) / (4.0 * var * var),
                                                  3.0 * l1 / (2.0 * var))


@v.named_shapes
def skellam_rdp(alpha: ArrayLike, l2: ArrayLike, variance: ArrayLike, l1: ArrayLike | None = None,
                d: ArrayLike | None = None) -> FloatOrArray:
    """RDP ε(α) of Skellam noise of aggregate ``variance`` V per coordinate (V = 2nμ for n clients adding
    Sk(μ, μ)) for a shift of ℓ2 norm ≤ ``l2`` and ℓ1 norm ≤ ``l1`` (grid units; default min(√d·l2, l2²) with ``d``,
    else l2²): ``αΔ₂²/(2V) + min{((2α − 1)Δ₂² + 6Δ₁)/(4V²), 3Δ₁/(2V)}`` at integer α, the convex chord between
    integers (Agarwal, Kairouz & Liu 2021, Cor. 4.1). An upper bound.

    Examples:
        >>> from dpcalc.accounting.distributed.noise import skellam_rdp
        >>> round(skellam_rdp(2.0, 10.0, 1000.0, 100.0), 9)
        0.100225
    """
    a = _orders(alpha)
    l2v = v.nonnegative("l2", l2)
    var = v.positive("variance", variance)
    if l1 is not None:
        l1v = v.nonnegative("l1", l1)
    elif d is not None:
        l1v = l2v * np.minimum(np.sqrt(v.integer_at_least("d", d, 1)), l2v)
    else:
        l1v = l2v * l2v
    lo = np.floor(a)
    t = a - lo
    at_lo = np.where(lo >= 2.0, (lo - 1.0) * _skellam_integer(np.maximum(lo, 2.0), l2v, l1v, var), 0.0)
    hi = lo + 1.0
    at_hi = (hi - 1.0) * _skellam_integer(hi, l2v, l1v, var)
    chord = ((1.0 - t) * at_lo + t * at_hi) / (a - 1.0)
    exact_int = _skellam_integer(np.maximum(lo, 2.0), l2v, l1v, var)
    return v.scalar_or_array(np.where(t == 0.0, exact_int, chord) * SAFE_UP)
