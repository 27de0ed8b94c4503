"""RDP → (ε, δ)-DP: the one pointwise conversion, the best order over a grid, and over a continuous range.

At order α = 1 + x with RDP value r (an order-α Rényi divergence bound) and ln δ = L:

* ``"improved"`` (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020, Prop. 12):
  ``ε = r + log1p(−1/α) − (log δ + log α)/(α − 1)``, evaluated as ``r − log1p(1/x) − (L + log1p(x))/x`` (no α − 1
  rounding, no cancellation of the log α terms), clamped at 0;
* ``"lemma1"`` (Mironov 2017, Prop. 3): ``ε = r + log(1/δ)/(α − 1)``, as printed (it is the classic conversion
  papers state their tables in);
* the Bretagnolle–Huber test: δ >= √(1 − e^{−KL}) gives (0, δ)-DP outright (TV <= √(1 − e^{−KL}), and
  KL <= D_α <= r); the improved conversion returns 0 there;
* an outward margin of 4u times the sum of the terms' magnitudes: it covers their rounding, which matters where they
  cancel (ε ≪ r near the Bretagnolle–Huber boundary);
* ``r = +inf`` (an order outside a bound's domain) gives ``ε = +inf``.

The minimisers move their result outward by `SAFE_UP` for the rounding of the RDP values
themselves (computed in float64). Any order gives a valid guarantee, so a search over orders only makes ε small.
δ at ε is the same bound solved for δ: ``log δ = x(r − ε) − log1p(x) − x·log1p(1/x)`` (Canonne, Kamath & Steinke
2020, Prop. 12).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.errors import DomainError, InfeasibleError

__all__ = ["METHODS", "Method", "best_over_grid", "best_over_range", "bretagnolle_huber_zero", "check_method",
           "eps_at_order", "log_delta_at_order", "rounding_scale"]

Method = Literal["improved", "lemma1"]
#: The conversions, default first (``"improved"`` is never above ``"lemma1"``: its extra terms are log1p(−1/α) −
#: log(α)/(α − 1) < 0).
METHODS: tuple[str, ...] = ("improved", "lemma1")
_U = 2.0**-53  # unit roundoff
_GRID_POINTS = 400  # the continuous minimiser's log-spaced grid in α − 1
_ALPHA_TOP = 1e7  # ... up to this order


def check_method(method: str) -> Method:
    """Validate a conversion name (one-line DomainError)."""
    if v.text("method", method) not in METHODS:
        raise DomainError(f"method must be 'improved' (Balle et al. 2020, Thm 21) or 'lemma1' (Mironov 2017, Prop. 3) "
                          f"(got {method!r})")
    return method  # type: ignore[return-value]


def _rdp_values(rdp: ArrayLike) -> v.FloatArray:
    """RDP values: >= 0, +inf allowed (an order outside a bound's domain), no NaN."""
    r = v._to_float_array("rdp", rdp)
    if np.any(np.isnan(r)) or np.any(r < 0.0):
        raise DomainError("rdp must be >= 0 or +inf at every order")
    return r


def _log_delta(log_delta: ArrayLike) -> v.FloatArray:
    return v.check_range("log_delta", log_delta, hi=0.0, hi_open=True)


@v.named_shapes
def bretagnolle_huber_zero(kl: ArrayLike, log_delta: ArrayLike) -> NDArray[np.bool_]:
    """True where δ >= √(1 − e^{−KL}) (δ² + e^{−KL} − 1 >= 0): (0, δ)-DP from a KL bound (Bretagnolle–Huber)."""
    k, ld = _rdp_values(kl), _log_delta(log_delta)
    with np.errstate(over="ignore"):
        return np.asarray(np.exp(2.0 * ld) + np.expm1(-k) >= 0.0)


@v.named_shapes
@v.documented_inf
def eps_at_order(rdp: ArrayLike, x: ArrayLike, log_delta: ArrayLike, method: str = "improved") -> v.FloatArray:
    """ε at order α = 1 + ``x`` of an RDP value (broadcast; +inf RDP gives +inf: no guarantee at that order), on
    the safe side by the rounding bound of its terms (module docstring)."""
    m = check_method(method)
    r, xx, ld = np.broadcast_arrays(_rdp_values(rdp), v.positive("x", x), _log_delta(log_delta))
    finite = np.isfinite(r)
    rf = np.where(finite, r, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lead = -ld / xx  # log(1/δ)/(α − 1)
        value = rf + lead if m == "lemma1" else rf - np.log1p(1.0 / xx) + lead - np.log1p(xx) / xx
        eps = np.maximum(value + 4.0 * _U * rounding_scale(rf, xx, ld, m), 0.0)
    if m == "improved":
        eps = np.where(bretagnolle_huber_zero(rf, ld), 0.0, eps)
    return np.asarray(np.where(finite, eps, np.inf))


@v.named_shapes
def rounding_scale(rdp: ArrayLike, x: ArrayLike, log_delta: ArrayLike, method: str = "improved") -> v.FloatArray:
    """The sum of the magnitudes of the conversion's terms at α = 1 + x (``r + |log δ|/x``, plus
    ``log1p(1/x) + log1p(x)/x`` for the improved one): their float64 rounding is a few ulps of it, and
    `eps_at_order` adds 4u times it. It matters where the terms cancel: near the Bretagnolle–Huber boundary
    ε ≪ r (ρ = 3.2e-5, δ = 4.8e-3 in zCDP: ε = 1.1e-7 from terms of ~0.04)."""
    r, xx, ld = v.nonnegative("rdp", rdp), v.positive("x", x), _log_delta(log_delta)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = r + np.abs(ld) / xx
        if check_method(method) == "improved":
            scale = scale + np.log1p(1.0 / xx) + np.log1p(xx) / xx
    return np.asarray(scale)


@v.named_shapes
@v.documented_inf
def log_delta_at_order(rdp: ArrayLike, x: ArrayLike, eps: ArrayLike) -> v.FloatArray:
    """``log δ`` of the improved conversion solved for δ at ε: ``x(r − ε) − log1p(x) − x·log1p(1/x)`` (α = 1 + x;
    → 0 as x → 0 instead of inf − inf where x underflows; −inf where δ underflows). Capped at 0 by the callers
    (δ <= 1)."""
    r, xx, e = np.broadcast_arrays(v.nonnegative("rdp", rdp), v.nonnegative("x", x), v.nonnegative("eps", eps))
    pos = xx > 0.0
    x_log = np.where(pos, xx * np.log1p(1.0 / np.where(pos, xx, 1.0)), 0.0)
    return np.asarray(xx * (r - e) - np.log1p(xx) - x_log)


@v.scalar_params
@v.named_shapes
@v.documented_inf
def best_over_grid(orders: ArrayLike, rdp: ArrayLike, log_delta: float,
                   method: str = "improved") -> tuple[float, int]:
    """``(ε, index)``: the smallest ε over an order grid (orders > 1, one RDP value each, +inf skipped), moved outward
    by SAFE_UP; ``(inf, −1)`` when every order is +inf."""
    a = v.vector("orders", orders, 1.0, lo_open=True)
    r = np.atleast_1d(_rdp_values(rdp))
    if r.shape != a.shape:
        raise DomainError(f"rdp must have one value per order ({a.size}), got {r.size}")
    eps = eps_at_order(r, a - 1.0, v.scalar("log_delta", _log_delta(log_delta)), method)
    if not np.any(np.isfinite(eps)):
        return math.inf, -1
    i = int(np.argmin(eps))
    return float(eps[i]) * SAFE_UP, i


@v.scalar_params
def best_over_range(rdp_of_alpha: Callable[[v.FloatArray], ArrayLike], log_delta: float, alpha_max: float = math.inf,
                    method: str = "improved") -> tuple[float, float]:
    """``(ε, α)``: the smallest ε over the continuous order range (1, alpha_max) of an RDP function (vectorised in α;
    +inf outside its domain).

    A 400-point log-spaced grid in α − 1 (from 1e-4 to min(alpha_max, 1e7) − 1), then a bounded Brent refinement
    between the neighbours of the best grid point. The returned ε is the conversion at the returned α (safe at any
    order); `InfeasibleError` when no order of the range gives a finite bound."""
    from scipy.optimize import minimize_scalar

    m = check_method(method)
    log_delta = v.scalar("log_delta", _log_delta(log_delta))
    a_max = float(v.scalar("alpha_max", v._to_float_array("alpha_max", alpha_max)))  # inf: no upper end
    if math.isnan(a_max):
        raise DomainError("alpha_max must be a number (the top of the order range; inf for none)")
    top = min(a_max, _ALPHA_TOP)
    if not top > 1.0:
        raise InfeasibleError(f"the order range (1, alpha_max = {alpha_max:g}) is empty: the bound gives no guarantee")
    if not top > 1.0 + 1e-4:
        raise InfeasibleError(f"the order range (1, alpha_max = {alpha_max:g}) is too narrow for a guarantee")
    u = np.linspace(math.log(1e-4), math.log(top - 1.0), _GRID_POINTS)[:-1]

    def f(log_x: v.FloatArray) -> v.FloatArray:
        xx = np.exp(log_x)
        return eps_at_order(np.asarray(rdp_of_alpha(1.0 + xx), dtype=np.float64), xx, log_delta, m) * SAFE_UP

    vals = f(u)
    if not np.any(np.isfinite(vals)):
        raise InfeasibleError("no order in the range gives a finite bound")
    i = int(np.argmin(vals))
    best_u, best = float(u[i]), float(vals[i])
    lo, hi = u[max(i - 1, 0)], u[min(i + 1, u.size - 1)]
    if hi > lo:
        res = minimize_scalar(lambda y: float(f(np.array([y]))[0]), bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-10})
        if np.isfinite(res.fun) and res.fun < best:
            best_u, best = float(res.x), float(res.fun)
    return best, 1.0 + math.exp(best_u)
