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
from dpcalc.typing import FloatArray

__all__ = ["METHODS", "Method", "best_over_grid", "best_over_range", "bretagnolle_huber_zero", "check_method",
           "eps_at_order", "log_delta_at_order", "rounding_scale"]

Method = Literal["improved", "lemma1"]
#: The conversions, default first (``"improved"`` is never above ``"lemma1"``: its extra terms are log1p(−1/α) −
#: log(α)/(α − 1) < 0).
METHODS: tuple[str, ...] = ("improved", "lemma1")
_U = 2.0**-53  # unit roundoff
# the continuous minimiser's log-spaced grid in u = log(α − 1): its spacing, first window, moves and limits
_GRID_STEP = math.log(1e7 / 1e-4) / 400
_LOG_X_BOTTOM_START, _LOG_X_TOP_START = math.log(1e-4), math.log(1e7 - 1.0)
_LOG_X_BOTTOM, _LOG_X_TOP = math.log(1e-15), math.log(1e300)  # α − 1 = 1e-15: a few ulps of 1
_WINDOW_MOVE = math.log(1e8)
_MAX_MOVES = 80


def _grid(lo: float, hi: float, cap: float) -> FloatArray:
    """Points of u = log(α − 1) from lo to hi at most ``_GRID_STEP`` apart; hi dropped when it is the cap (alpha_max
    lies outside the open order range)."""
    u = np.linspace(lo, hi, max(math.ceil((hi - lo) / _GRID_STEP), 2) + 1)
    return u[:-1] if hi >= cap else u


def _follow_minimum(f: Callable[[FloatArray], FloatArray], cap: float
                    ) -> tuple[FloatArray, FloatArray]:
    """The grid of `best_over_range` in u = log(α − 1) below ``cap`` and f on it: windows of ~290 points
    moved by a factor 1e8 while the minimum sits on a moving end."""
    lo, hi = _LOG_X_BOTTOM_START, min(cap, _LOG_X_TOP_START)
    u = _grid(lo, hi, cap)
    vals = f(u)
    for _ in range(_MAX_MOVES):
        i = int(np.argmin(vals)) if np.any(np.isfinite(vals)) else -1
        if i == u.size - 1 and hi < cap:  # the minimum may lie above the window
            lo, hi = float(u[-2]), min(cap, hi + _WINDOW_MOVE)
        elif i == 0 and lo > _LOG_X_BOTTOM and vals[0] < vals[1]:  # ... or below it (a tie: flat, stay)
            lo, hi = max(_LOG_X_BOTTOM, lo - _WINDOW_MOVE), float(u[1])
        else:
            break
        u = _grid(lo, hi, cap)
        vals = f(u)
    return u, vals


def check_method(method: str) -> Method:
    """Validate a conversion name (one-line DomainError).

    Parameters
    ----------
    method : str

    Returns
    -------
    Method

    Raises
    ------
    DomainError
        An input (``method``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import check_method
    >>> check_method('lemma1')
    'lemma1'
    """
    return v.choice("method", method, METHODS,  # type: ignore[return-value]
                    "Balle et al. 2020, Thm 21, or Mironov 2017, Prop. 3")


def _rdp_values(rdp: ArrayLike, name: str = "rdp") -> FloatArray:
    """RDP values: >= 0, +inf allowed (an order outside a bound's domain), no NaN."""
    r = v._to_float_array(name, rdp)
    if np.any(np.isnan(r)) or np.any(r < 0.0):
        raise DomainError(f"{name} must be >= 0 or +inf at every order")
    return r


def _log_delta(log_delta: ArrayLike) -> FloatArray:
    return v.check_range("log_delta", log_delta, hi=0.0, hi_open=True)


@v.named_shapes
def bretagnolle_huber_zero(kl: ArrayLike, log_delta: ArrayLike) -> NDArray[np.bool_]:
    """True where δ >= √(1 − e^{−KL}) (δ² + e^{−KL} − 1 >= 0): (0, δ)-DP from a KL bound (Bretagnolle–Huber).

    Parameters
    ----------
    kl : ArrayLike
    log_delta : ArrayLike

    Returns
    -------
    NDArray[np.bool_]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import bretagnolle_huber_zero
    >>> import math
    >>> bretagnolle_huber_zero([1e-12, 0.5], math.log(1e-5))
    array([ True, False])
    """
    k, ld = _rdp_values(kl, "kl"), _log_delta(log_delta)
    with np.errstate(over="ignore"):
        return np.asarray(np.exp(2.0 * ld) + np.expm1(-k) >= 0.0)


@v.named_shapes
@v.documented_inf
def eps_at_order(rdp: ArrayLike, x: ArrayLike, log_delta: ArrayLike, method: str = "improved") -> FloatArray:
    """ε at order α = 1 + ``x`` of an RDP value (broadcast; +inf RDP gives +inf: no guarantee at that order), on
    the safe side by the rounding bound of its terms (module docstring).

    Parameters
    ----------
    rdp : ArrayLike
    x : ArrayLike
    log_delta : ArrayLike
    method : str

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``x``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import eps_at_order
    >>> import math
    >>> eps_at_order(1.0, 7.0, math.log(1e-5))
    array(2.21410917)
    """
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
def rounding_scale(rdp: ArrayLike, x: ArrayLike, log_delta: ArrayLike, method: str = "improved") -> FloatArray:
    """The sum of the magnitudes of the conversion's terms at α = 1 + x (``r + |log δ|/x``, plus
    ``log1p(1/x) + log1p(x)/x`` for the improved one): their float64 rounding is a few ulps of it, and
    `eps_at_order` adds 4u times it. It matters where the terms cancel: near the Bretagnolle–Huber boundary
    ε ≪ r (ρ = 3.2e-5, δ = 4.8e-3 in zCDP: ε = 1.1e-7 from terms of ~0.04).

    Parameters
    ----------
    rdp : ArrayLike
    x : ArrayLike
    log_delta : ArrayLike
    method : str

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``rdp``, ``x``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import rounding_scale
    >>> import math
    >>> rounding_scale(1.0, 7.0, math.log(1e-5))
    array(3.07529811)
    """
    r, xx, ld = v.nonnegative("rdp", rdp), v.positive("x", x), _log_delta(log_delta)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = r + np.abs(ld) / xx
        if check_method(method) == "improved":
            scale = scale + np.log1p(1.0 / xx) + np.log1p(xx) / xx
    return np.asarray(scale)


@v.named_shapes
@v.documented_inf
def log_delta_at_order(rdp: ArrayLike, x: ArrayLike, eps: ArrayLike) -> FloatArray:
    """``log δ`` of the improved conversion solved for δ at ε: ``x(r − ε) − log1p(x) − x·log1p(1/x)`` (α = 1 + x;
    → 0 as x → 0 instead of inf − inf where x underflows; −inf where δ underflows). Capped at 0 by the callers
    (δ <= 1).

    Parameters
    ----------
    rdp : ArrayLike
    x : ArrayLike
    eps : ArrayLike
        Privacy level ε.

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``rdp``, ``x``, ``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import log_delta_at_order
    >>> log_delta_at_order(1.0, 7.0, 3.0)
    array(-17.01416129)
    """
    r, xx, e = np.broadcast_arrays(v.nonnegative("rdp", rdp), v.nonnegative("x", x), v.nonnegative("eps", eps))
    pos = xx > 0.0
    safe_x = np.where(pos, xx, 1.0)
    # x·log1p(1/x) = x·(log1p(x) − log x) below x = 1: 1/x overflows for a subnormal x (x = 5.6e-309 gave −inf)
    x_log = np.where(pos, xx * np.where(xx < 1.0, np.log1p(safe_x) - np.log(safe_x), np.log1p(1.0 / safe_x)), 0.0)
    return np.asarray(xx * (r - e) - np.log1p(xx) - x_log)


@v.scalar_params
@v.named_shapes
@v.documented_inf
def best_over_grid(orders: ArrayLike, rdp: ArrayLike, log_delta: float,
                   method: str = "improved") -> tuple[float, int]:
    """``(ε, index)``: the smallest ε over an order grid (orders > 1, one RDP value each, +inf skipped), moved outward
    by SAFE_UP; ``(inf, −1)`` when every order is +inf.

    Parameters
    ----------
    orders : ArrayLike
        The Rényi orders α > 1 to evaluate.
    rdp : ArrayLike
    log_delta : float
    method : str

    Returns
    -------
    tuple[float, int]

    Raises
    ------
    DomainError
        An input (``orders``, ``log_delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import best_over_grid
    >>> import math
    >>> best_over_grid([2.0, 4.0, 8.0, 16.0], [0.5, 1.0, 2.0, 4.0], math.log(1e-5))
    (3.214109167845696, 2)
    """
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
def best_over_range(rdp_of_alpha: Callable[[FloatArray], ArrayLike], log_delta: float, alpha_max: float = math.inf,
                    method: str = "improved") -> tuple[float, float]:
    """``(ε, α)``: the smallest ε over the continuous order range (1, alpha_max) of an RDP function (vectorised in α;
    +inf outside its domain).

    A log-spaced grid in α − 1 (spacing ln(1e11)/400, first window 1e-4 … min(alpha_max, 1e7) − 1) that follows the
    minimum: while the best grid point is the window's top (bottom) end, the window moves up (down) by a factor
    1e8, to alpha_max (or 1 + 1e300) and down to α − 1 = 1e-15 — the range comes from the problem, not a fixed cap
    (a cap at 1e7 returned 18× the minimum of Table 1's GSGD row, whose optimum lies at α ≈ 3.4e8). Then a bounded
    Brent refinement between the neighbours of the best grid point. The returned ε is the conversion at the
    returned α (safe at any order); `InfeasibleError` when no order of the range gives a finite bound.

    Parameters
    ----------
    rdp_of_alpha : Callable[[FloatArray], ArrayLike]
    log_delta : float
    alpha_max : float
    method : str

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input (``log_delta``, ``alpha_max``) outside its domain; the one-line message names it and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Examples
    --------
    >>> from dpcalc.accounting.conversion import best_over_range
    >>> import math
    >>> best_over_range(lambda alpha: 0.125 * alpha, math.log(1e-5))
    (2.165715545175595, 9.602733373290233)
    """
    from scipy.optimize import minimize_scalar

    m = check_method(method)
    log_delta = v.scalar("log_delta", _log_delta(log_delta))
    a_max = float(v.scalar("alpha_max", v._to_float_array("alpha_max", alpha_max)))  # inf: no upper end
    if math.isnan(a_max):
        raise DomainError("alpha_max must be a number (the top of the order range; inf for none)")
    if not a_max > 1.0:
        raise InfeasibleError(f"the order range (1, alpha_max = {alpha_max:g}) is empty: the bound gives no guarantee")
    if not a_max > 1.0 + 1e-4:
        raise InfeasibleError(f"the order range (1, alpha_max = {alpha_max:g}) is too narrow for a guarantee")

    def f(log_x: FloatArray) -> FloatArray:
        al = 1.0 + np.exp(log_x)
        xx = al - 1.0  # the order's own α − 1 (exact): the RDP is evaluated at the rounded α
        return eps_at_order(np.asarray(rdp_of_alpha(al), dtype=np.float64), xx, log_delta, m) * SAFE_UP

    u, vals = _follow_minimum(f, math.log(a_max - 1.0) if math.isfinite(a_max) else _LOG_X_TOP)
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
