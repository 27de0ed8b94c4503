"""Rényi DP of the Gaussian and the Poisson-subsampled Gaussian, composition, and RDP → (ε, δ) conversions.

* Gaussian (Mironov 2017, Prop. 7): ``RDP(α) = α Δ²/(2σ²)``.
* Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
  Mechanism", §3.3): ``RDP(α) = log A_α/(α − 1)`` with ``A_α = E_{z~N(0,σ²)}[(1 − q + q e^{(2z−1)/(2σ²)})^α]``.
  We compute ``A_α − 1`` directly (no cancellation at tiny q):

  - integer α: ``A_α − 1 = Σ_{k=2}^{α} C(α,k) q^k (1−q)^{α−k} expm1((k²−k)/(2σ²))`` — all terms >= 0, summed in log
    space (the binomial form of Mironov et al. 2019, eq. (3), minus Σ_k C(α,k)q^k(1−q)^{α−k} = 1);
  - fractional α: ``A_α − 1 = E[(1 + qX)^α − 1 − αqX]`` with X = e^{(2z−1)/(2σ²)} − 1 (E X = 0), a non-negative
    integrand (convexity) evaluated in log space and integrated by the trapezoidal rule on a uniform grid, which
    converges geometrically for this analytic integrand (Trefethen & Weideman 2014; strip half-width πσ²).

* Conversions (ε at δ, minimised over an order grid; the optimal order is reported and an
  `OutOfDomainWarning` is raised when it lies at the edge of the grid), the one conversion of
  `dpcalc.accounting.conversion`:

  - ``"improved"`` (the default): Balle et al. 2020 Thm 21 / Canonne, Kamath & Steinke 2020 Prop. 12:
    ``ε = RDP(α) + log1p(−1/α) − (log δ + log α)/(α − 1)``, clamped at 0 and set to 0 when the
    Bretagnolle–Huber bound ``δ >= √(1 − e^{−RDP(α)})`` already gives (0, δ)-DP;
  - ``"lemma1"``: Mironov 2017 Prop. 3: ``ε = RDP(α) + log(1/δ)/(α − 1)``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import log1p_exp, log_expm1
from dpcalc.accounting import conversion
from dpcalc.accounting.conversion import Method
from dpcalc.errors import DomainError, OutOfDomainWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["DEFAULT_ORDERS", "MAX_ORDER_TERMS", "OPACUS_ORDERS", "compose", "delta_from_curve", "eps_from_curve",
           "eps_improved", "eps_lemma1", "eps_subsampled_gaussian", "gaussian", "orders_array", "sampled_gaussian",
           "subsampled_gaussian_curve"]


#: dp-accounting 0.6.0's default grid: 1.1, 1.2, …, 10.9, 11..63, 128, 256, 512, 1024.
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    [round(1.0 + x / 10.0, 1) for x in range(1, 100)] + [float(k) for k in range(11, 64)] + [128.0, 256.0, 512.0,
                                                                                              1024.0])
#: Opacus / TF-Privacy's grid: 1.1, …, 10.9, 12..63.
OPACUS_ORDERS: tuple[float, ...] = tuple([round(1.0 + x / 10.0, 1) for x in range(1, 100)]
                                         + [float(k) for k in range(12, 64)])


@v.named_shapes
def orders_array(orders: ArrayLike | None) -> FloatArray:
    """Validate an order grid: a non-empty 1-D list of finite orders > 1 (default `DEFAULT_ORDERS`).

    Parameters
    ----------
    orders : ArrayLike | None
        The Rényi orders α > 1 to evaluate.

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``orders``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import orders_array
    >>> orders_array([2, 4, 8])
    array([2., 4., 8.])
    """
    if orders is None:
        return np.asarray(DEFAULT_ORDERS, dtype=np.float64)
    a = np.atleast_1d(v.check_range("orders", orders, 1.0, lo_open=True))
    if a.ndim != 1:
        raise DomainError(f"orders must be a 1-D list (got shape {a.shape})")
    _check_order_cost(a)
    return a


MAX_ORDER_TERMS = 50_000_000
"""Most binomial terms one order grid may cost (an integer order α costs α terms; ~1 s per 5e7)."""


def _check_order_cost(a: FloatArray, name: str = "orders") -> None:
    """Bound the work and memory of the orders ``a`` before computing: an integer order α costs α binomial terms
    (~40 bytes each); a fractional one at most those of ⌈α⌉ (the chord bound's neighbours; the quadrature is
    cheaper)."""
    from dpcalc import _limits

    ceil = np.ceil(a)
    terms = float(np.sum(ceil))
    if terms > MAX_ORDER_TERMS:
        raise DomainError(f"{name}: the orders cost {terms:.3g} binomial terms in all (each order α costs about "
                          f"α); at most {MAX_ORDER_TERMS:.3g} — use fewer or smaller orders (the optimum is rarely "
                          "above a few hundred)")
    if a.size:
        _limits.check_memory(f"{name} (largest {float(np.max(a)):.4g})", float(np.max(ceil)) * 40.0)


# --- RDP curves -----------------------------------------------------------------------------------------------

@v.named_shapes
def gaussian(alpha: ArrayLike, sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """RDP of the Gaussian mechanism at order α: ``α Δ²/(2σ²)`` (Mironov 2017, Prop. 7).

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1, in ``(1, inf)``.
    sigma : ArrayLike
        Noise standard deviation, > 0 (same as sensitivity), in ``(0, inf)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (L2 norm), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        RDP of the Gaussian mechanism (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``alpha``, ``sigma``, ``sensitivity``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import gaussian
    >>> gaussian(8.0, 2.0)
    1.0
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    s = v.positive("sigma", sigma)
    d = v.positive("sensitivity", sensitivity)
    return v.scalar_or_array(v.finite_result("rdp", a * d * d / (2.0 * s * s),
                                             "sigma is too small (or alpha, sensitivity too large)"))


#: integer orders up to this use log C(α, k) from the exact integers (cached per order); above it, gammaln
_EXACT_BINOM_MAX = 2048


@functools.lru_cache(maxsize=128)
def _log_binom_exact(alpha: int) -> FloatArray:
    """log C(α, k), k = 2..α, from Python's exact binomials: error ~u·log C(α, k). The gammaln difference
    gammaln(α+1) − gammaln(k+1) − gammaln(α−k+1) loses ~u·gammaln(α+1) absolute (6e-13 at α = 1024), which left
    the integer-order RDP up to 1.6e-12 below the exact value (a deep domain sweep, α = 904) and an RDP calibration
    6e-15 above its target ε in exact arithmetic."""
    out = np.array([math.log(math.comb(alpha, k)) for k in range(2, alpha + 1)], dtype=np.float64)
    out.setflags(write=False)
    return out


def _log_a_minus_1_int(q: float, sigma: float, alpha: int) -> float:
    """log(A_α − 1) for integer α >= 2 (binomial form, all terms positive)."""
    k = np.arange(2, alpha + 1, dtype=np.float64)
    if alpha <= _EXACT_BINOM_MAX:
        log_binom = _log_binom_exact(alpha)
    else:
        from scipy.special import gammaln  # only for orders above 2048: no SciPy on the CLI's usual path

        log_binom = gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
    with np.errstate(divide="ignore"):
        log_1mq = math.log1p(-q) if q < 1.0 else -math.inf
        tail = (alpha - k) * log_1mq if q < 1.0 else np.where(k == alpha, 0.0, -np.inf)
    terms = log_binom + k * math.log(q) + tail + log_expm1((k * k - k) / (2.0 * sigma * sigma))
    m = float(np.max(terms))
    return m + math.log(float(np.sum(np.exp(terms - m))))


def _log_g(log_qx: FloatArray, sign: FloatArray, alpha: FloatArray) -> FloatArray:
    """log[(1 + y)^α − 1 − αy] with y = sign·exp(log_qx) > −1, elementwise; −inf where y = 0."""
    shape = np.broadcast_shapes(np.shape(log_qx), np.shape(sign), np.shape(alpha))
    log_qx = np.broadcast_to(log_qx, shape)
    sign = np.broadcast_to(sign, shape)
    alpha = np.broadcast_to(alpha, shape)
    y_abs = np.exp(np.minimum(log_qx, 700.0))
    y = sign * y_abs
    out = np.full(shape, -np.inf)
    # series Σ_{k>=2} C(α,k) y^k only where α|y| < 1/4: successive terms shrink by |(α−k)/(k+1)|·|y| <= α|y| < 1/4,
    # so 40 terms leave < 4^-38 relative and nothing cancels. (A bound |y| < 1/4 alone is not enough: at α ≈ 100
    # the terms C(α,k)4^-k reach ~1e9 and alternate; the series lost all digits, low or NaN RDP above α ≈ 60.)
    small = alpha * y_abs < 0.25
    ys, als = y[small], alpha[small]
    coef = als * (als - 1.0) / 2.0
    power = ys * ys
    total = coef * power
    for k in range(2, 41):
        coef = coef * (als - k) / (k + 1.0)
        power = power * ys
        total = total + coef * power
    with np.errstate(divide="ignore", invalid="ignore"):
        out[small] = np.log(total)
        big = ~small
        pos = big & (sign > 0)
        neg = big & (sign < 0)
        # y >= 1/(4α): log g = t + log1p(−(1 + αy)e^{−t}) with t = α log1p(y), y = e^{log_qx}
        lq = log_qx[pos]
        t = alpha[pos] * log1p_exp(lq)
        # (1 + αy) e^{−t} = exp(−t) + α exp(log y − t)
        r = np.exp(-t) + alpha[pos] * np.exp(lq - t)
        out[pos] = t + np.log1p(-np.minimum(r, 1.0))
        # −1 < y <= −1/(4α): direct, g > 0, no overflow; expm1(α log1p(y)) and −αy cancel by at most ~10×
        yn, an = y[neg], alpha[neg]
        out[neg] = np.log(np.expm1(an * np.log1p(yn)) - an * yn)
    return out


def _log_a_minus_1_frac(q: float, sigma: float, alphas: FloatArray) -> FloatArray:
    """log(A_α − 1) for any orders α > 1 by the trapezoidal rule on one shared grid (see module docstring).

    Step h = min(σ/2, 0.49σ²): the discretisation error is ~exp(−2π·πσ²/h) <= e^{-40} relative (analytic in the
    strip |Im z| < πσ²) and the Gaussian factor's ~exp(−2π²σ²/h²) <= e^{-79}; range [−40σ, max α + 40σ].
    """
    s2 = sigma * sigma
    h = min(0.5 * sigma, 0.49 * s2)
    lo = -40.0 * sigma
    hi = max(float(np.max(alphas)), 1.0) + 40.0 * sigma
    n = math.ceil((hi - lo) / h) + 1
    z = lo + h * np.arange(n)
    c = (2.0 * z - 1.0) / (2.0 * s2)
    sign = np.sign(c)
    with np.errstate(divide="ignore"):
        log_abs_x = np.where(c > 0, log_expm1(np.maximum(c, 1e-300)), np.log(-np.expm1(np.minimum(c, 0.0))))
    log_qx = math.log(q) + log_abs_x
    log_phi = -z * z / (2.0 * s2) - 0.5 * math.log(2.0 * math.pi * s2)
    terms = log_phi[None, :] + _log_g(log_qx[None, :], sign[None, :], alphas[:, None])
    m = np.max(terms, axis=1)
    return m + np.log(np.sum(np.exp(terms - m[:, None]), axis=1)) + math.log(h)


def _subsampled_rdp(q: float, sigma: float, alphas: FloatArray) -> FloatArray:
    if q == 1.0:
        return alphas / (2.0 * sigma * sigma)
    log_am1 = np.empty(alphas.shape)
    is_int = alphas == np.round(alphas)
    for i in np.flatnonzero(is_int):
        log_am1[i] = _log_a_minus_1_int(q, sigma, int(alphas[i]))
    frac = ~is_int
    if np.any(frac):
        h = min(0.5 * sigma, 0.49 * sigma * sigma)
        if h > 0.0 and (max(float(np.max(alphas[frac])), 1.0) + 80.0 * sigma) / h <= _MAX_POINTS:
            fa = alphas[frac]
            chunk = max(1, _CHUNK_CELLS // _MAX_POINTS)  # (orders × grid points) per pass: bounded memory
            log_am1[frac] = np.concatenate([_log_a_minus_1_frac(q, sigma, fa[i:i + chunk])
                                            for i in range(0, fa.size, chunk)])
        else:  # σ < ~0.03: too narrow an analyticity strip for the grid; use the log-convexity upper bound
            out = log1p_exp(log_am1) / (alphas - 1.0)
            out[frac] = _log_a_convex_bound(q, sigma, alphas[frac]) / (alphas[frac] - 1.0)
            return out
    return log1p_exp(log_am1) / (alphas - 1.0)


_MAX_POINTS = 20_000
_CHUNK_CELLS = 4_000_000  # ~32 MB per temporary of the quadrature


def _log_a_convex_bound(q: float, sigma: float, alphas: FloatArray) -> FloatArray:
    """Upper bound on log A_α at fractional α: log A_α is convex in α (Hölder), so it lies below the chord between
    ⌊α⌋ and ⌈α⌉ (log A_1 = 0). Used only where the quadrature grid would be too large (σ below ~0.03)."""
    out = np.empty(alphas.shape)
    for i, a in enumerate(alphas):
        lo, hi = math.floor(a), math.ceil(a)
        t = a - lo
        log_lo = 0.0 if lo == 1 else float(log1p_exp(_log_a_minus_1_int(q, sigma, lo)))
        log_hi = float(log1p_exp(_log_a_minus_1_int(q, sigma, hi)))
        out[i] = (1.0 - t) * log_lo + t * log_hi
    return out


@v.named_shapes
def sampled_gaussian(q: ArrayLike, sigma: ArrayLike, alpha: ArrayLike) -> FloatOrArray:
    """RDP at order α of the Poisson-subsampled ("sampled") Gaussian: rate q, noise multiplier σ, one step.

    Mironov, Talwar & Zhang (2019): ``log A_α/(α − 1)``; integer orders by the exact binomial sum, fractional orders by
    geometric-rate quadrature of the defining integral (both give A_α − 1 without cancellation; relative accuracy
    ~1e-13 against a 40-digit mpmath oracle). q = 1 gives the Gaussian α/(2σ²). Broadcasts over all inputs.
    For σ below ~0.03 (quadrature grid > 20k points) fractional orders return the chord upper bound of the
    log-convex log A_α between the neighbouring integers: valid (never below the true RDP), not exact.

    Conventions order (mechanism q, σ, then the order α — as `subsampled_gaussian_curve`).

    Parameters
    ----------
    q : ArrayLike
        Sampling probability, in (0, 1], in ``(0, 1]``.
    sigma : ArrayLike
        Noise standard deviation, > 0 (noise multiplier), in ``(0, inf)``.
    alpha : ArrayLike
        Rényi order α > 1, in ``[2, inf) integer``.

    Returns
    -------
    FloatOrArray
        RDP of the Poisson-subsampled Gaussian at integer order α (nats); a float for scalar inputs, else an array of
        their broadcast shape.

    Raises
    ------
    DomainError
        An input (``q``, ``sigma``, ``alpha``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import sampled_gaussian
    >>> sampled_gaussian(0.01, 1.0, 8.0)
    0.0008936439076060331
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    qq = v.check_range("q", q, 0.0, 1.0, lo_open=True)
    s = v.positive("sigma", sigma)
    ab, qb, sb = v.broadcast(alpha=a, q=qq, sigma=s)
    _check_order_cost(ab[qb < 1.0], "alpha")  # q = 1 is the closed form α/(2σ²)
    out = np.empty(ab.shape)
    flat_a, flat_q, flat_s, flat_o = ab.ravel(), qb.ravel(), sb.ravel(), out.reshape(-1)
    pairs = {(float(x), float(y)) for x, y in zip(flat_q, flat_s, strict=True)}
    for qv, sv in pairs:
        sel = (flat_q == qv) & (flat_s == sv)
        flat_o[sel] = _subsampled_rdp(qv, sv, flat_a[sel])
    return v.scalar_or_array(v.finite_result("rdp", out, "sigma is too small for this order"))


@v.named_shapes
def subsampled_gaussian_curve(q: float, sigma: float, steps: float = 1, orders: ArrayLike | None = None
                              ) -> FloatArray:
    """RDP curve of ``steps`` compositions of the Poisson-subsampled Gaussian on an order grid (RDP adds up).

    Parameters
    ----------
    q : float
        Sampling probability, in (0, 1].
    sigma : float
        Noise standard deviation, > 0.
    steps : float
        Number of compositions T, an integer >= 1.
    orders : ArrayLike | None
        The Rényi orders α > 1 to evaluate.

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``q``, ``sigma``, ``steps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import subsampled_gaussian_curve
    >>> subsampled_gaussian_curve(0.01, 1.0, 1000, orders=[2.0, 8.0, 32.0])
    array([1.71813422e-01, 8.93643908e-01, 1.12462759e+04])
    """
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    s = v.scalar("sigma", v.positive("sigma", sigma))
    t = v.scalar("steps", v.integer_at_least("steps", steps, 1))
    a = orders_array(orders)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # inf/NaN are refused just below
        curve = _subsampled_rdp(qq, s, a) * t
    return np.asarray(v.finite_result("rdp", curve,
                                      "sigma is too small or steps too large"))


@v.named_shapes
def compose(rdps: Sequence[ArrayLike]) -> FloatArray:
    """Composition: RDP curves on the same order grid add (Mironov 2017, Prop. 1).

    Parameters
    ----------
    rdps : Sequence[ArrayLike]

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import compose
    >>> compose([[0.5, 1.0], [0.25, 0.5]])
    array([0.75, 1.5 ])
    """
    if isinstance(rdps, str | bytes) or not isinstance(rdps, Iterable):
        raise DomainError(f"rdps must be a list of RDP curves (got {type(rdps).__name__})")
    arrs = [v.nonnegative(f"rdps[{i}]", r) for i, r in enumerate(rdps)]
    if not arrs:
        raise DomainError("rdps must contain at least one RDP curve")
    return np.asarray(np.sum(np.broadcast_arrays(*arrs), axis=0))


# --- conversions (the one kernel: dpcalc.accounting.conversion) ------------------------------------------------

@v.named_shapes
def eps_lemma1(rdp: ArrayLike, alpha: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """(α, r)-RDP ⇒ (r + log(1/δ)/(α − 1), δ)-DP (Mironov 2017 Prop. 3). Elementwise; outward by the rounding bound
    of its terms (`dpcalc.accounting.conversion.eps_at_order`).

    Parameters
    ----------
    rdp : ArrayLike
    alpha : ArrayLike
        Rényi order α > 1, in ``(1, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        RDP → (ε, δ)-DP, classic conversion (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``rdp``, ``alpha``, ``delta``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import eps_lemma1
    >>> eps_lemma1(1.0, 8.0, 1e-5)
    2.644703637852891
    """
    r = v.nonnegative("rdp", rdp)
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    d = v.probability("delta", delta)
    return v.scalar_or_array(conversion.eps_at_order(r, a - 1.0, np.log(d), "lemma1"))


@v.named_shapes
def eps_improved(rdp: ArrayLike, alpha: ArrayLike, delta: ArrayLike) -> FloatOrArray:
    """(α, r)-RDP ⇒ (ε, δ)-DP with ``ε = r + log1p(−1/α) − (log δ + log α)/(α − 1)`` (Balle et al. 2020, Thm 21;
    Canonne, Kamath & Steinke 2020, Prop. 12), clamped at 0; ε = 0 when δ >= √(1 − e^{−r}) (Bretagnolle–Huber,
    since KL <= D_α). Elementwise; outward by the rounding bound of its terms.

    Parameters
    ----------
    rdp : ArrayLike
    alpha : ArrayLike
        Rényi order α > 1, in ``(1, inf)``.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1) (probability), in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        RDP → (ε, δ)-DP, improved conversion (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``rdp``, ``alpha``, ``delta``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import eps_improved
    >>> eps_improved(1.0, 8.0, 1e-5)
    2.214109167845535
    """
    r = v.nonnegative("rdp", rdp)
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    d = v.probability("delta", delta)
    return v.scalar_or_array(conversion.eps_at_order(r, a - 1.0, np.log(d), "improved"))


@v.scalar_params
@v.named_shapes
def eps_from_curve(orders: ArrayLike, rdp: ArrayLike, delta: float, *, method: Method = "improved",
                   warn: bool = True) -> tuple[float, float]:
    """Smallest ε over the order grid for an RDP curve: returns ``(eps, optimal order)``.

    ``method="improved"`` (Balle et al. 2020) or ``"lemma1"`` (Mironov 2017); the best order's ε is moved outward by
    SAFE_UP for the rounding of the curve (`dpcalc.accounting.conversion.best_over_grid`). Warns
    (`OutOfDomainWarning`) when the optimal order is the smallest or largest order of the grid: a wider grid
    could give a smaller ε.

    Parameters
    ----------
    orders : ArrayLike
        The Rényi orders α > 1 to evaluate.
    rdp : ArrayLike
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    method : Method
    warn : bool

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input (``rdp``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import eps_from_curve
    >>> eps_from_curve([2.0, 4.0, 8.0, 16.0], [0.5, 1.0, 2.0, 4.0], 1e-5)
    (3.214109167845696, 8.0)
    """
    a = orders_array(orders)
    r = np.atleast_1d(v.nonnegative("rdp", rdp))
    if r.shape != a.shape:
        raise DomainError(f"rdp must have one value per order ({a.size}), got {r.size}")
    d = v.probability("delta", delta)
    best, i = conversion.best_over_grid(a, r, float(np.log(d)), conversion.check_method(method))
    if i < 0:
        raise DomainError("eps is infinite at every order: sigma is too small for this grid")
    order = float(a[i])
    if warn and best > 0.0 and a.size > 1 and (order == float(np.min(a)) or order == float(np.max(a))):
        side = "smallest" if order == float(np.min(a)) else "largest"
        v.warn(f"the optimal RDP order {order:g} is the {side} order of the grid; extend the grid "
               f"(eps may be smaller)", OutOfDomainWarning)
    return best, order


@v.scalar_params
@v.named_shapes
def eps_subsampled_gaussian(q: float, sigma: float, steps: float, delta: float, *,
                            orders: ArrayLike | None = None, method: Method = "improved",
                            warn: bool = True) -> tuple[float, float]:
    """ε of ``steps`` Poisson-subsampled Gaussian steps at δ via RDP: ``(eps, optimal order)``.

    ``warn=False`` drops the grid-edge `OutOfDomainWarning` of `eps_from_curve` (the value is the
    minimum over the given grid either way, and a valid upper bound at any order).

    Parameters
    ----------
    q : float
        Sampling probability, in (0, 1].
    sigma : float
        Noise standard deviation, > 0.
    steps : float
        Number of compositions T, an integer >= 1.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    orders : ArrayLike | None
        The Rényi orders α > 1 to evaluate.
    method : Method
    warn : bool

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import eps_subsampled_gaussian
    >>> eps_subsampled_gaussian(0.01, 1.0, 1000, 1e-5)
    (2.101365271648501, 7.8)
    """
    a = orders_array(orders)
    curve = subsampled_gaussian_curve(q, sigma, steps, a)
    return eps_from_curve(a, curve, delta, method=method, warn=warn)


@v.scalar_params
@v.named_shapes
def delta_from_curve(orders: ArrayLike, rdp: ArrayLike, eps: float) -> tuple[float, float]:
    """Smallest δ at ε over the grid (Canonne, Kamath & Steinke 2020, Prop. 12):
    ``δ = min_α exp((α−1)(r_α − ε) + α log1p(−1/α) − log(α − 1))``, capped at 1. Returns ``(delta, order)``.

    Parameters
    ----------
    orders : ArrayLike
        The Rényi orders α > 1 to evaluate.
    rdp : ArrayLike
    eps : float
        Privacy level ε.

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input (``rdp``, ``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.rdp import delta_from_curve
    >>> delta_from_curve([2.0, 4.0, 8.0], [0.5, 1.0, 2.0], 2.0)
    (0.0052509798669231516, 4.0)
    """
    a = orders_array(orders)
    r = np.atleast_1d(v.nonnegative("rdp", rdp))
    if r.shape != a.shape:
        raise DomainError(f"rdp must have one value per order ({a.size}), got {r.size}")
    e = v.scalar("eps", v.nonnegative("eps", eps))
    log_d = conversion.log_delta_at_order(r, a - 1.0, e)
    i = int(np.argmin(log_d))
    return float(min(1.0, math.exp(min(float(log_d[i]), 0.0)))), float(a[i])
