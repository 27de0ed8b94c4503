"""Modular arithmetic of secure aggregation: the scale γ a bit width allows, and the probability that the aggregate
wraps around the modulus (Kairouz, Liu & Steinke 2021, Secs. 4.2–4.4).

Clients send their integer vectors modulo m = 2^bits; the server sums modulo m and reads the result in
[−m/2, m/2). The sum is right unless a coordinate of the true integer sum Y falls outside that range ("modular
clipping"). Privacy is unaffected (the reduction is post-processing); accuracy is.

**The k-standard-deviation rule** (the papers' parameter choice; Kairouz, Liu & Steinke 2021, Sec. 4.4): the
per-coordinate variance of Y in grid units is at most

    v = ρ·G²c²/(dγ²) + n/4 + nσ²/γ²          (G = n, or √n with ``growth="sqrt"``)

(the flattened signal of n clients of norm ≤ c, the rounding errors, the noise), and γ is chosen so that
2k·√v = m: ``γ = 2k·√(ρG²c²/d + nσ²)/√(4^bits − nk²)``. No γ exists when 4^bits <= nk² (the rounding noise alone
exceeds the range): "bit width too small for the noise".

**The proven failure bound** (`modular_failure_bound`): with a random sign-flip rotation (randomized Hadamard,
ρ = 1) each coordinate of the flattened signal sum is sub-Gaussian with variance proxy ‖Σxᵢ‖²/(dγ²) ≤ G²c²/(dγ²);
an unconditionally rounded coordinate is sub-Gaussian with proxy 1/4 (Hoeffding's lemma) and, conditioned on the
norm test, has a mean of magnitude ≤ β/(1 − β); N_Z(0, σ²) is σ²-sub-Gaussian (Canonne, Kamath & Steinke 2020,
Cor. 9); the Skellam sum Sk(V/2, V/2) has log-MGF V(cosh λ − 1). So with b = nβ/(1 − β) and t = m/2,

    P(Y_j ∉ [−m/2, m/2)) <= 2·exp(−sup_λ [λ(t − b) − λ²v_sg/2 − K(λ)]),   K = nσ²λ²/(2γ²) or V(cosh λ − 1),

and a union over the d coordinates gives the bound (capped at 1).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.accounting.distributed.noise import MECHANISMS
from dpcalc.accounting.distributed.rounding import DEFAULT_BETA
from dpcalc.errors import DomainError

__all__ = ["GROWTHS", "MAX_BITS", "Growth", "aggregate_std", "check_bits", "check_modulus", "min_bits",
           "modular_failure_bound", "scale_for_bits"]

Growth = Literal["linear", "sqrt"]
GROWTHS: tuple[str, ...] = ("linear", "sqrt")
#: Largest bit width: the modular sum of the clients' values is held in 64-bit integers.
MAX_BITS = 62


def check_bits(bits: ArrayLike) -> v.FloatArray:
    """Bit width per coordinate: an integer in [1, MAX_BITS]."""
    return v.check_range("bits", bits, 1.0, float(MAX_BITS), integer=True)


def _growth(growth: str, n: v.FloatArray) -> v.FloatArray:
    g = v.choice("growth", growth, GROWTHS, "‖Σxᵢ‖ <= n·c, or <= √n·c for nearly orthogonal updates")
    return n if g == "linear" else np.sqrt(n)


@v.named_shapes
def aggregate_std(c: ArrayLike, gamma: ArrayLike, sigma: ArrayLike, n: ArrayLike, d: ArrayLike, *,
                  rho: ArrayLike = 1.0, growth: str = "linear") -> float | v.FloatArray:
    """√v, the per-coordinate standard-deviation bound of the aggregate in grid units (module docstring):
    ``v = ρG²c²/(dγ²) + n/4 + nσ²/γ²``; c, σ (local noise std) and γ in parameter units.

    Examples:
        >>> from dpcalc.distributed import aggregate_std
        >>> round(aggregate_std(1.0, 0.01, 0.1, 100, 10000, growth="sqrt"), 6)
        100.623059
    """
    cc, gg, ss = v.positive("c", c), v.positive("gamma", gamma), v.nonnegative("sigma", sigma)
    nn, dd = v.integer_at_least("n", n, 1), v.integer_at_least("d", d, 1)
    r = v.check_range("rho", rho, 1.0)
    big_g = _growth(growth, nn)
    var = r * (big_g * cc / gg) ** 2 / dd + nn / 4.0 + nn * (ss / gg) ** 2
    return v.scalar_or_array(np.sqrt(var))


@v.named_shapes
def scale_for_bits(bits: ArrayLike, c: ArrayLike, sigma: ArrayLike, n: ArrayLike, d: ArrayLike, *,
                   k: ArrayLike = 4.0, rho: ArrayLike = 1.0, growth: str = "linear") -> float | v.FloatArray:
    """γ that puts k standard deviations of the aggregate at the edge of the modulus 2^bits:
    ``γ = 2k·√(ρG²c²/d + nσ²)/√(4^bits − nk²)`` (module docstring). A `DomainError` naming ``bits`` when
    4^bits <= nk² (the rounding noise alone fills the range).

    Examples:
        >>> from dpcalc.distributed import scale_for_bits
        >>> f"{scale_for_bits(16, 1.0, 0.1, 100, 10000, growth='sqrt'):.6e}"
        '1.226792e-04'
    """
    b = check_bits(bits)
    cc, ss = v.positive("c", c), v.nonnegative("sigma", sigma)
    nn, dd = v.integer_at_least("n", n, 1), v.integer_at_least("d", d, 1)
    kk = v.positive("k", k)
    r = v.check_range("rho", rho, 1.0)
    room = 4.0 ** b - nn * kk * kk
    if np.any(room <= 0.0):
        i = int(np.argmin(room))
        raise DomainError(f"bits = {int(np.ravel(b)[i] if np.ndim(b) else b)} is too small for the noise: "
                          f"{float(np.ravel(kk)[0] if np.ndim(kk) else kk):g} standard deviations of the "
                          f"rounding noise of n = {int(np.max(nn))} clients alone exceed the modulus "
                          "(need 4^bits > n·k²)")
    big_g = _growth(growth, nn)
    return v.scalar_or_array(2.0 * kk * np.sqrt(r * (big_g * cc) ** 2 / dd + nn * ss * ss) / np.sqrt(room))


@v.scalar_params
def min_bits(c: float, gamma: float, sigma: float, n: int, d: int, *, k: float = 4.0, rho: float = 1.0,
             growth: str = "linear") -> int:
    """The smallest bit width whose modulus holds ±k standard deviations of the aggregate: ⌈log₂(2k√v)⌉.

    Examples:
        >>> from dpcalc.distributed import min_bits
        >>> min_bits(1.0, 1e-4, 0.1, 100, 10000, growth="sqrt")
        17
    """
    std = float(aggregate_std(c, gamma, sigma, n, d, rho=rho, growth=growth))
    kk = float(v.scalar("k", v.positive("k", k)))
    bits = max(1, math.ceil(math.log2(2.0 * kk * std)))
    if bits > MAX_BITS:
        raise DomainError(f"modulus overflow: the aggregate needs {bits} bits at gamma = {gamma:g} (at most "
                          f"{MAX_BITS}); increase gamma")
    return bits


@v.scalar_params
def check_modulus(bits: int, c: float, gamma: float, sigma: float, n: int, d: int, *, k: float = 4.0,
                  rho: float = 1.0, growth: str = "linear") -> None:
    """Refuse a (bits, γ) pair whose modulus does not hold ±k standard deviations of the aggregate: a one-line
    `DomainError` ("modulus overflow") naming ``bits`` and ``gamma``.

    Examples:
        >>> from dpcalc.distributed.modular import check_modulus
        >>> check_modulus(20, 1.0, 1e-4, 0.1, 100, 10000, growth="sqrt") is None
        True
    """
    b = int(v.scalar("bits", check_bits(bits)))
    need = min_bits(c, gamma, sigma, n, d, k=k, rho=rho, growth=growth)
    if need > b:
        raise DomainError(f"modulus overflow: bits = {b} holds ±{2.0 ** (b - 1):.6g} grid units but ±{k:g} "
                          f"standard deviations of the aggregate at gamma = {gamma:g} need {need} bits; increase "
                          "bits or gamma")


def _rate(t: float, v_sg: float, noise: float, mechanism: str) -> float:
    """sup_λ>0 [λt − λ²v_sg/2 − K(λ)] (K: Gaussian or Skellam log-MGF of the noise), t > 0."""
    from scipy.optimize import minimize_scalar

    if mechanism == "ddg":
        return t * t / (2.0 * (v_sg + noise))

    def neg(lam: float) -> float:
        return -(lam * t - 0.5 * lam * lam * v_sg - noise * (math.cosh(lam) - 1.0))

    top = min(t / max(v_sg, 1e-300), math.asinh(t / noise) if noise > 0 else math.inf, 700.0)
    res = minimize_scalar(neg, bounds=(0.0, top), method="bounded", options={"xatol": 1e-12 * max(top, 1.0)})
    return max(0.0, -float(res.fun))


@v.scalar_params
def modular_failure_bound(bits: int, c: float, gamma: float, sigma: float, n: int, d: int,
                          mechanism: str = "ddg", *, beta: float = DEFAULT_BETA, rho: float = 1.0,
                          growth: str = "linear") -> float:
    """Upper bound on the probability that any of the d coordinates of the aggregate wraps around the modulus
    2^bits (module docstring: sub-Gaussian signal and rounding, the conditional-rounding bias nβ/(1 − β), Gaussian
    or Skellam noise tails, a union bound). c, σ (local noise std) and γ in parameter units.

    Examples:
        >>> from dpcalc.distributed import modular_failure_bound
        >>> f"{modular_failure_bound(18, 1.0, 1.25e-4, 0.1, 100, 10000, growth='sqrt'):.4e}"
        '5.2946e-54'
    """
    b = int(v.scalar("bits", check_bits(bits)))
    cc, gg, ss = (float(v.scalar(k, v.positive(k, x))) for k, x in (("c", c), ("gamma", gamma), ("sigma", sigma)))
    nn = int(v.scalar("n", v.integer_at_least("n", n, 1)))
    dd = int(v.scalar("d", v.integer_at_least("d", d, 1)))
    bb = float(v.scalar("beta", v.check_range("beta", beta, 0.0, 1.0, hi_open=True)))
    r = float(v.scalar("rho", v.check_range("rho", rho, 1.0)))
    mech = v.choice("mechanism", mechanism, MECHANISMS, "distributed discrete Gaussian or Skellam")
    big_g = float(_growth(growth, np.float64(nn)))
    v_sg = r * (big_g * cc / gg) ** 2 / dd + nn / 4.0
    noise = nn * (ss / gg) ** 2  # nσ² (DDG variance proxy) or V (Skellam aggregate variance)
    t = 2.0 ** (b - 1) - nn * bb / (1.0 - bb)
    if t <= 0.0:
        return 1.0
    rate = _rate(t, v_sg, noise, mech)
    log_p = math.log(2.0 * dd) - rate + 1e-14 * (rate + math.log(2.0 * dd))  # outward by the exponent's rounding
    return 1.0 if log_p >= 0.0 else math.exp(log_p) * SAFE_UP
