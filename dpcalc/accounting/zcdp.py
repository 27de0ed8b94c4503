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
from dpcalc.errors import DomainError

FloatOrArray = float | v.FloatArray


def gaussian_rho(sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """ρ of the Gaussian mechanism: ``Δ²/(2σ²)`` (Bun & Steinke 2016, Prop. 1.6)."""
    s = v.positive("sigma", sigma)
    d = v.positive("sensitivity", sensitivity)
    return v.scalar_or_array(v.finite_result("rho", d * d / (2.0 * s * s), "sigma is too small"))


def compose(rhos: Sequence[float] | ArrayLike) -> float:
    """Composition: ``ρ = Σ ρ_i`` (Bun & Steinke 2016, Lemma 1.7)."""
    r = v.vector("rhos", rhos, 0.0)
    return float(np.sum(r))


def eps_bun_steinke(rho: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """``ε = ρ + 2√(ρ log(1/δ))`` (Bun & Steinke 2016, Prop. 1.3)."""
    r = v.nonnegative("rho", rho)
    d = v.probability("delta", delta)
    return v.scalar_or_array(r + 2.0 * np.sqrt(r * -np.log(d)))


def _eps_obj(u: float, rho: float, log_delta: float) -> float:
    """The CKS conversion at α = 1 + e^u (log1p(−1/α) written as u − log α: no rounding of α to 1)."""
    alpha = 1.0 + math.exp(u)
    return rho * alpha + u - math.log(alpha) - (log_delta + math.log(alpha)) * math.exp(-u)


def _argmin(f: object, lo: float = -30.0, hi: float = 30.0) -> tuple[float, float]:
    """Bounded Brent minimisation of a unimodal f(u) on [lo, hi] to |Δu| <= 1e-11: (u*, f(u*))."""
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-11, "maxiter": 2000})
    return float(res.x), float(res.fun)


def _eps_scalar(rho: float, log_delta: float) -> tuple[float, float]:
    if rho == 0.0:
        return 0.0, math.inf
    if math.exp(2.0 * log_delta) + math.expm1(-rho) >= 0.0:  # Bretagnolle–Huber: already (0, δ)-DP
        return 0.0, 1.0
    u, val = _argmin(lambda u: _eps_obj(u, rho, log_delta))
    return max(0.0, val), 1.0 + math.exp(u)


def eps_from_rho(rho: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """Tight-as-RDP ε of ρ-zCDP at δ: continuous-α minimum of the CKS 2020 conversion (see module docstring).

    Always <= :func:`eps_bun_steinke`; accurate to ~1e-12 relative (Brent minimisation of a smooth convex-like curve
    in log(α − 1)).
    """
    r = v.nonnegative("rho", rho)
    d = v.probability("delta", delta)
    rb, db = np.broadcast_arrays(r, np.log(d))
    out = np.array([_eps_scalar(float(a), float(b))[0] for a, b in zip(rb.ravel(), db.ravel(), strict=True)])
    return v.scalar_or_array(out.reshape(rb.shape))


def optimal_order(rho: float, delta: float) -> float:
    """The order α at which :func:`eps_from_rho` is attained (inf for ρ = 0)."""
    r = float(v.nonnegative("rho", rho))
    d = float(v.probability("delta", delta))
    return _eps_scalar(r, math.log(d))[1]


def delta_from_rho(rho: ArrayLike, eps: ArrayLike) -> FloatOrArray:
    """δ(ε) of ρ-zCDP: ``min_{α>1} exp((α−1)(ρα − ε) + α log1p(−1/α) − log(α − 1))`` (CKS 2020, Prop. 12), <= 1."""
    r = v.positive("rho", rho)
    e = v.nonnegative("eps", eps)
    rb, eb = np.broadcast_arrays(r, e)
    out = []
    for rv, ev in zip(rb.ravel(), eb.ravel(), strict=True):
        def f(u: float, rv: float = float(rv), ev: float = float(ev)) -> float:
            a = 1.0 + math.exp(u)  # log δ(α) = (α−1)(ρα − ε) + α(u − log α) − u
            return math.exp(u) * (rv * a - ev) + a * (u - math.log(a)) - u

        out.append(min(1.0, math.exp(min(_argmin(f)[1], 0.0))))
    arr = np.asarray(out).reshape(rb.shape)
    if np.any(~np.isfinite(arr)):  # pragma: no cover
        raise DomainError("delta is not representable here")
    return v.scalar_or_array(arr)
