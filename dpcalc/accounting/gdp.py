"""μ-Gaussian differential privacy (f-DP): δ(ε; μ), its inverses, trade-off curve, composition, CLT.

Sources: Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 84(1), 2022 (``dong2022``): Def. 2.6
(G_μ), Cor. 2.13 (the (ε, δ(ε)) duality, eq. (6) of Li, Xiao & Chen 2024), Thm 2.7 (Gaussian mechanism),
Cor. 3.3 (composition), Thm 3.5 / Cor. 5.4 and Bu et al. 2020 (the subsampling CLT). Li, Xiao & Chen 2024 (CUAG-PFL)
print their Theorem 4 with a typo (erratum E1, docs/cuag.md).

Numerics. δ(ε; μ) = Φ(a) − e^ε Φ(b) with a = μ/2 − ε/μ, b = a − μ is evaluated without cancellation:

* a < 0 (ε > μ²/2): with u = −a/√2, ``δ = ½·e^{−a²/2}·(erfcx(u_a) − erfcx(u_b))`` because
  ε − b²/2 = −a²/2; so ``log δ = −a²/2 − ln 2 + log(erfcx(u_a) − erfcx(u_b))`` stays finite far below 1e-308
  (for u_a >= 30 the erfcx difference is summed from its asymptotic series, term by term without cancellation);
* a >= 0: ``δ = ½(erf(a/√2) + erf(−b/√2)) − expm1(ε)Φ(b)`` (no cancellation for small μ) and
  ``1 − δ = Φ(−a) + e^ε Φ(b)`` so that ``log δ = log1p(−(1 − δ))`` is accurate as δ → 1.

The normal tails come from `dpcalc._normal` (``math.erfc`` in log-space forms for small arrays, SciPy's ufuncs for
large ones): the command line's accountants import no SciPy. All functions broadcast and return a
float for scalar input.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _normal as sp
from dpcalc import _validate as v
from dpcalc._numerics import log1p_exp, log_expm1
from dpcalc._roots import bracket, expand
from dpcalc.accounting._erfcx_diff import ASYMPTOTIC_U as _ASYMPTOTIC_U
from dpcalc.accounting._erfcx_diff import log_diff_asymptotic as _erfcx_diff_asymptotic
from dpcalc.accounting._erfcx_diff import log_diff_quadrature as _erfcx_diff_quadrature
from dpcalc.accounting.gdp_point import (
    _LN2,
    _SAFETY,
    _SQRT2,
    LOG_DELTA_ERR,
    ROOT_RTOL,
    _eps_root_point,
    eps_bracket_between,
)
from dpcalc.errors import DomainError, ErratumWarning, EstimateWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["CLT_WARNING", "LOG_DELTA_ERR", "ROOT_RTOL", "clt_mu", "clt_mu_schedule", "compose", "delta",
           "delta_at_zero", "eps_bracket_between", "eps_bracket_from_mu", "eps_from_mu", "gaussian_mu",
           "gaussian_sigma", "log_delta", "mu_from_eps", "sigma_from_clt_mu", "tradeoff"]


_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

CLT_WARNING = ("the privacy CLT mu = q*sqrt(T*(exp(1/sigma^2) - 1)) is an asymptotic approximation, not a bound: "
               "it can underestimate the privacy loss (Gopi et al. 2021; e.g. q=0.01, sigma=1, T=1000: "
               "CLT eps 1.618 vs tight 1.828 at delta=1e-5); use an upper-bound accountant (rdp/pld) for guarantees")


# --- δ(ε; μ) in log space -------------------------------------------------------------------------

def _log_delta(eps: FloatArray, mu: FloatArray, *, tail: bool = False) -> tuple[FloatArray, FloatArray]:
    """Return ``(log δ, δ)`` of μ-GDP at ε (validated, broadcast float arrays).

    With ``tail=True`` the second element is instead ``log(e^ε Φ(b)) − log δ`` (so ``−exp`` of it is
    d log δ/dε), computed from the same special-function values.
    """

    with np.errstate(over="ignore", divide="ignore"):  # overflow only for |a| > 1e154: log δ = −inf, caught later
        log_d, second, _ = _log_delta_body(eps, mu, tail)
    return log_d, second


def _log_delta_error(eps: FloatArray, mu: FloatArray) -> FloatArray:
    """Absolute error bound of the computed log δ(ε; μ): ``LOG_DELTA_ERR·κ``, κ >= 1 the cancellation factor of the
    branch that computed it — (A + B)/(A − B) where δ is a plain difference A − B of two positive terms (e.g.
    erfcx(u_a) − erfcx(u_b) at h >= 0.1: κ = 11.7 at μ = 0.226, δ = 0.078, where the 10,000-point sweep measured
    a log δ error of 4.1e-15 > LOG_DELTA_ERR), 1 + 2u_a² for the quadrature, 1 for the asymptotic series, and
    (1 + |log(1 − δ)|)(1 − δ)/δ for log δ = log1p(−(1 − δ)) as δ → 1 (there κ < 1)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        _, _, kappa = _log_delta_body(eps, mu, False)
    return LOG_DELTA_ERR * np.where(np.isfinite(kappa), kappa, 1.0)


def _log_delta_body(eps: FloatArray, mu: FloatArray,
                    tail: bool) -> tuple[FloatArray, FloatArray, FloatArray]:
    eps, mu = v.broadcast(eps=eps, mu=mu)
    a = 0.5 * mu - eps / mu
    b = a - mu
    log_d = np.empty(a.shape)
    delta = np.empty(a.shape)
    kappa = np.ones(a.shape)
    neg = a < 0.0
    if np.any(neg):
        an, mun = a[neg], mu[neg]
        ua = -an / _SQRT2
        h = mun / _SQRT2
        ub = ua + h
        ea, eb = sp.erfcx_array(ua), sp.erfcx_array(ub)
        with np.errstate(divide="ignore", invalid="ignore"):
            diff_log = np.log(ea - eb)
            k_neg = (ea + eb) / (ea - eb)
        small_h = (h < 0.1) & (ua < _ASYMPTOTIC_U) & (2.0 * ua * h < 1.0)
        if np.any(small_h):
            diff_log[small_h] = _erfcx_diff_quadrature(ua[small_h], h[small_h])
            k_neg[small_h] = 1.0 + 2.0 * ua[small_h] ** 2
        big = ua >= _ASYMPTOTIC_U
        if np.any(big):
            diff_log[big] = _erfcx_diff_asymptotic(ua[big], h[big])
            k_neg[big] = 1.0
        kappa[neg] = k_neg
        ln = -0.5 * an * an - _LN2 + diff_log
        log_d[neg] = ln
        # e^ε Φ(b) = ½e^{−a²/2}·erfcx(u_b): its log minus log δ is log erfcx(u_b) − diff_log
        delta[neg] = np.log(sp.erfcx_array(ub)) - diff_log if tail else np.exp(ln)
    pos = ~neg
    if np.any(pos):
        ap, bp, ep = a[pos], b[pos], eps[pos]
        phi_b = sp.ndtr_array(bp)
        # e^ε Φ(b) = ½e^{−a²/2}·erfcx(−b/√2) (ε − b²/2 = −a²/2): no cancellation of ε against b²/2 at huge μ
        log_tail = -0.5 * ap * ap - _LN2 + np.log(sp.erfcx_array(-bp / _SQRT2))
        tail_b = np.exp(log_tail)
        excess = np.where(ep < 1.0, np.expm1(np.minimum(ep, 1.0)) * phi_b, tail_b - phi_b)  # (e^ε − 1)Φ(b)
        d = 0.5 * (sp.erf_array(ap / _SQRT2) + sp.erf_array(-bp / _SQRT2)) - excess
        # 1 − δ = Φ(−a) + e^ε Φ(b) in log space: log δ = log1p(−(1 − δ)) stays accurate as δ → 1 (even subnormal)
        log_om = np.logaddexp(sp.log_ndtr_array(-ap), log_tail)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_d[pos] = np.where(log_om < -_LN2, np.log1p(-np.exp(log_om)), np.log(d))
            # d = (Φ(a) − Φ(b)) − excess: cancellation (Φ(a) − Φ(b) + excess)/d. The log1p form carries the
            # absolute error of log(1 − δ) (~(1 + |log(1 − δ)|) ulps) scaled by (1 − δ)/δ < 1
            om = np.exp(log_om)
            kappa[pos] = np.where(log_om < -_LN2, (1.0 - log_om) * om / (1.0 - om), (d + 2.0 * np.abs(excess)) / d)
        delta[pos] = log_tail - log_d[pos] if tail else d
    return log_d, delta, kappa


def _check_eps_mu(eps: ArrayLike, mu: ArrayLike) -> tuple[FloatArray, FloatArray]:
    e = v.nonnegative("eps", eps)
    m = v.positive("mu", mu)
    return e, m


@v.named_shapes
def log_delta(mu: ArrayLike, eps: ArrayLike) -> FloatOrArray:
    """``log δ(ε; μ)``: the natural log of the smallest δ with μ-GDP ⇒ (ε, δ)-DP (Dong et al. 2022, Cor. 2.13).

    Conventions order (mechanism μ, then ε). Finite far below δ = 1e-308 (e.g. μ = 1, ε = 1000: log δ ≈ −5.0e5)
    and accurate as δ → 1. ε >= 0 (nats), μ > 0.

    Parameters
    ----------
    mu : ArrayLike
        GDP parameter, in ``(0, inf)``.
    eps : ArrayLike
        Privacy level (nats), in ``[0, inf)``.

    Returns
    -------
    FloatOrArray
        Log δ(ε) of μ-GDP, finite far below δ = 1e-308 (nats (log of a probability)); a float for scalar inputs, else an
        array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import log_delta
    >>> log_delta(1.0, 1.0)
    -2.0640664465003913
    """
    e, m = _check_eps_mu(eps, mu)
    ld, _ = _log_delta(e, m)
    return v.scalar_or_array(v.finite_result("log_delta", ld, "eps/mu is too large (log delta below -1e308)"))


@v.named_shapes
def delta(mu: ArrayLike, eps: ArrayLike) -> FloatOrArray:
    """``δ(ε; μ) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` (Li, Xiao & Chen 2024, eq. (6); Dong et al. 2022, Cor. 2.13).

    Conventions order (mechanism μ, then ε; the inverse `eps_from_mu` is ``(mu, delta)``). Cancellation-free
    (see the module docstring). δ below the smallest subnormal is returned as 0.0; use `log_delta` there.

    Parameters
    ----------
    mu : ArrayLike
        GDP parameter, in ``(0, inf)``.
    eps : ArrayLike
        Privacy level (nats), in ``[0, inf)``.

    Returns
    -------
    FloatOrArray
        Privacy profile δ(ε) of μ-GDP (μ-GDP ⇔ (ε, δ(ε))-DP for all ε ≥ 0) (probability); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``eps``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import delta
    >>> delta(1.0, 1.0)
    0.12693673750664386
    """
    e, m = _check_eps_mu(eps, mu)
    ld, d = _log_delta(e, m)
    v.finite_result("log_delta", ld, "eps/mu is too large (log delta below -1e308)")
    return v.scalar_or_array(np.clip(d, 0.0, 1.0))


@v.named_shapes
def delta_at_zero(mu: ArrayLike) -> FloatOrArray:
    """``δ(0; μ) = 2Φ(μ/2) − 1 = erf(μ/(2√2))``: for δ at or above it, ε(μ, δ) = 0.

    Parameters
    ----------
    mu : ArrayLike
        GDP parameter, in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Δ(0; μ) = 2Φ(μ/2) − 1: above it, ε(μ, δ) = 0 (probability); a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import delta_at_zero
    >>> delta_at_zero(1.0)
    0.3829249225480261
    """
    m = v.positive("mu", mu)
    return v.scalar_or_array(sp.erf_array(m / (2.0 * _SQRT2)))


# --- inverses (the shared safe-side bracketing root finder, dpcalc._roots) -------------------------------

def _target(delta: ArrayLike | None, log_delta: ArrayLike | None) -> tuple[FloatArray, FloatArray]:
    """Validated ``(δ, ln δ)`` from exactly one of δ in (0, 1) or ln δ < 0 (ln δ reaches below 1e-308)."""
    if log_delta is not None and delta is None:
        lt = v.check_range("log_delta", log_delta, hi=0.0, hi_open=True)
        return np.exp(lt), lt
    if delta is None or log_delta is not None:
        raise DomainError("give exactly one of delta (in (0, 1)) and log_delta (< 0)")
    d = v.probability("delta", delta)
    return d, np.log(d)


@v.named_shapes
def eps_from_mu(mu: ArrayLike, delta: ArrayLike | None = None, *, log_delta: ArrayLike | None = None) -> FloatOrArray:
    """ε(μ, δ): the smallest ε with δ(ε; μ) <= δ, i.e. μ-GDP ⇒ (ε, δ)-DP (inverse of Li, Xiao & Chen 2024, eq. (6)).

    Give δ, or ``log_delta = ln δ`` for targets below the double range (e.g. ln δ = −800).

    Vectorised safeguarded Newton on log δ(ε) (d log δ/dε = −e^ε Φ(b)/δ), bracketed by
    [0, μ²/2 + μ√(2 ln(1/(2δ)))]. Always on the safe side: the returned ε satisfies δ(ε; μ) <= δ as
    evaluated here and exceeds the exact root by at most ~1.2e-14 relative (bracket ROOT_RTOL plus the 1e-14
    margin) plus ``2·LOG_DELTA_ERR·κ/|d log δ/dε|`` (the log δ evaluation error bound, κ >= 1 the cancellation factor
    of the branch that computed δ, through the slope: the computed root may sit that far off, and the end is moved
    out by it once more; it
    matters only near δ(0; μ), where ε ≪ δ is ill-conditioned in δ). Returns 0 when δ >= δ(0; μ) = 2Φ(μ/2) − 1
    (in particular for μ = 0: 0-GDP is perfect privacy).

    Parameters
    ----------
    mu : ArrayLike
        GDP parameter, in ``(0, inf)``.
    delta : ArrayLike | None
        Target δ (probability), in ``(0, 1)``.
    log_delta : ArrayLike | None

    Returns
    -------
    FloatOrArray
        Ε(μ, δ): the smallest ε with μ-GDP ⇒ (ε, δ)-DP (inverse of the privacy profile in ε) (nats); a float for scalar
        inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import eps_from_mu
    >>> eps_from_mu(1.0, 1e-5)
    4.377178095681277
    """
    m = v.nonnegative("mu", mu)
    _, lt_in = _target(delta, log_delta)
    m, log_t = v.broadcast(**{"mu": m, "delta" if delta is not None else "log_delta": lt_in})
    _, hi = _eps_root(m.astype(np.float64), log_t.astype(np.float64))
    return v.scalar_or_array(hi)


def eps_bracket_from_mu(mu: float, delta: float) -> tuple[float, float]:
    """Certified ``(ε_lower, ε_upper)`` around the exact ε(μ, δ) of `eps_from_mu` (scalars):
    δ(ε_lower; μ) >= δ >= δ(ε_upper; μ) with the evaluation error of log δ accounted outward on both ends. A
    composition of Gaussian mechanisms without sampling is exactly μ-GDP (Dong, Roth & Su 2022, Cor. 3.3), so this
    is its exact ε to ~1e-14 relative.

    Parameters
    ----------
    mu : float
        Μ of μ-GDP, > 0.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input (``mu``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import eps_bracket_from_mu
    >>> eps_bracket_from_mu(1.0, 1e-5)
    (4.3771780956811766, 4.377178095681277)
    """
    m = float(v.scalar("mu", v.nonnegative("mu", mu)))
    d = float(v.scalar("delta", v.probability("delta", delta)))
    return _eps_root_point(m, math.log(d))


def _eps_root(m: FloatArray, log_t: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(ε_lower, ε_upper) arrays of ε(μ, δ) at ln δ = ``log_t``: both ends moved outward by the relative margin and
    the log δ evaluation error over the slope; 0 for both where δ >= δ(0; μ). One point is solved in plain floats
    (`_eps_root_point`)."""
    if m.size == 1:
        lo_p, hi_p = _eps_root_point(float(m.ravel()[0]), float(log_t.ravel()[0]))
        return np.full(m.shape, lo_p), np.full(m.shape, hi_p)
    m, log_t = m.copy(), log_t.copy()
    with np.errstate(divide="ignore"):
        zero = log_t >= np.log(sp.erf_array(m / (2.0 * _SQRT2)))
    out_lo = np.zeros(m.shape)
    out_hi = np.zeros(m.shape)
    idx = np.flatnonzero(~zero.ravel())
    if idx.size:
        mf, lt = m.ravel()[idx], log_t.ravel()[idx]
        z = np.sqrt(2.0 * np.maximum(0.0, -_LN2 - lt))
        with np.errstate(over="ignore"):
            hi = 0.5 * mf * mf + mf * z
        v.finite_result("eps", hi, "mu is too large (eps ~ mu^2/2 overflows float64; mu must be < ~1e154)")
        lo = np.zeros_like(hi)

        def f_and_slope(x: FloatArray, act: np.ndarray) -> tuple[FloatArray, FloatArray]:
            ld, log_ratio = _log_delta(x, mf[act], tail=True)
            return ld - lt[act], -np.exp(log_ratio)

        # δ(ε) < Φ(a) so ε0 = μ(μ/2 − Φ^{-1}(δ)) has δ(ε0) < δ: a tighter safe end and the Newton start
        with np.errstate(invalid="ignore"):
            e0 = mf * (0.5 * mf - sp.ndtri_array(np.exp(lt)))
        hi = np.where(np.isfinite(e0) & (e0 > 0.0), np.minimum(hi, e0), hi)
        x0 = hi.copy()
        lo, hi = bracket(f_and_slope, lo, hi, increasing=False, rtol=ROOT_RTOL, atol=1e-300, x0=x0, newton=True)
        # δ(hi) <= target <= δ(lo) as evaluated. Outward margins: 1e-14 relative (the ~1e-16·a² evaluation error of
        # log δ where ε is large) plus the absolute log δ error bound (LOG_DELTA_ERR·κ) over the slope
        # |d log δ/dε| (near δ(0; μ), where ε ≪ δ, a few ulps of δ move ε by far more than 1e-14 of itself)
        margins = []
        for end in (lo, hi):
            _, log_ratio = _log_delta(end, mf, tail=True)
            with np.errstate(over="ignore"):
                margin = _log_delta_error(end, mf) * np.exp(-log_ratio)
            margins.append(np.where(np.isfinite(margin), margin, 0.0))
        out_hi.ravel()[idx] = hi * (1.0 + _SAFETY) + margins[1]
        out_lo.ravel()[idx] = np.maximum(0.0, lo * (1.0 - _SAFETY) - margins[0])
    return out_lo.reshape(m.shape), out_hi.reshape(m.shape)


@v.named_shapes
def mu_from_eps(eps: ArrayLike, delta: ArrayLike | None = None, *, log_delta: ArrayLike | None = None) -> FloatOrArray:
    """μ(ε, δ): the largest μ such that μ-GDP ⇒ (ε, δ)-DP (δ(ε; μ) is increasing in μ).

    Give δ, or ``log_delta = ln δ`` (below the double range too). ε = 0 has the closed form
    μ = 2√2·erf⁻¹(δ) (accurate for tiny δ, where −2Φ⁻¹((1 − δ)/2) would round to 0). Otherwise a vectorised
    safeguarded Newton in log μ (d log δ/d log μ = μ φ(a)/δ). Safe side: the returned μ satisfies
    δ(ε; μ) <= δ and is below the exact root by at most ~1.2e-14 relative (bracket plus margin) plus the log δ
    evaluation error bound over the slope d log δ/d log μ (at most 3e-14 relative on the 10,000-point sweep).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``[0, inf)``.
    delta : ArrayLike | None
        Target δ (probability), in ``(0, 1)``.
    log_delta : ArrayLike | None

    Returns
    -------
    FloatOrArray
        Μ(ε, δ): the largest μ with μ-GDP ⇒ (ε, δ)-DP (inverse of the privacy profile in μ); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import mu_from_eps
    >>> mu_from_eps(1.0, 1e-5)
    0.2680511232112905
    """
    e = v.nonnegative("eps", eps)
    d_in, lt_in = _target(delta, log_delta)
    e, log_t = v.broadcast(**{"eps": e, "delta" if delta is not None else "log_delta": lt_in})
    d = np.broadcast_to(d_in, e.shape)
    e, d, log_t = (x.astype(np.float64).copy() for x in (e, d, log_t))
    out = np.empty(e.shape)
    at0 = e == 0.0
    if np.any(at0 & (d == 0.0)):
        raise DomainError("log_delta is too small for eps = 0 (mu = 2*sqrt(2)*erfinv(delta) underflows)")
    if np.any(at0):
        from scipy import special

        out[at0] = 2.0 * _SQRT2 * special.erfinv(d[at0]) * (1.0 - _SAFETY)
    idx = np.flatnonzero(~at0.ravel())
    if idx.size:
        ef, lt = e.ravel()[idx], log_t.ravel()[idx]
        z = np.sqrt(2.0 * np.maximum(0.0, -_LN2 - lt))
        mu_lo = 2.0 * ef / (z + np.sqrt(z * z + 2.0 * ef))  # δ(ε; mu_lo) <= ½e^{−a²/2} <= δ
        # tighter: δ(ε; μ) < Φ(a), so a = μ/2 − ε/μ = Φ^{-1}(δ) =: z0 gives δ(ε; μ0) < δ
        z0 = sp.ndtri_array(d.ravel()[idx])  # −inf when δ underflows: the bound is then skipped
        root = np.sqrt(z0 * z0 + 2.0 * ef)
        with np.errstate(divide="ignore", invalid="ignore"):
            mu0 = np.where(z0 < 0.0, 2.0 * ef / (root - z0), z0 + root)
        mu_lo = np.where(np.isfinite(mu0) & (mu0 > mu_lo), mu0, mu_lo)
        y_lo = np.log(mu_lo)
        # doubling μ until δ(ε; μ_hi) >= δ
        y_lo, y_hi = expand(lambda y, act: _log_delta(ef[act], np.exp(y))[0] - lt[act], y_lo, y_lo + np.log(2.0),
                            increasing=True, step=float(np.log(2.0)))

        def f_and_slope(y: FloatArray, act: np.ndarray) -> tuple[FloatArray, FloatArray]:
            mm = np.exp(y)
            ld, _ = _log_delta(ef[act], mm)
            a = 0.5 * mm - ef[act] / mm
            slope = np.exp(y - 0.5 * a * a - _LOG_SQRT_2PI - ld)  # d log δ / d log μ = μφ(a)/δ
            return ld - lt[act], slope

        lo, _hi = bracket(f_and_slope, y_lo, y_hi, increasing=True, rtol=ROOT_RTOL, atol=ROOT_RTOL, x0=y_lo.copy(),
                          newton=True)  # y = log μ: absolute tolerance = relative in μ
        # δ(lo) <= target as evaluated: the safe end, moved inward by the same relative margin plus the log δ
        # evaluation error over the slope d log δ/d log μ (1.7e-14 relative at μ = 0.226, δ = 0.078)
        mu_end = np.exp(lo)
        _, slope = f_and_slope(lo, np.ones(lo.shape, dtype=bool))
        with np.errstate(divide="ignore", invalid="ignore"):
            backward = np.where(slope > 0.0, _log_delta_error(ef, mu_end) / slope, 0.0)
        res = mu_end * (1.0 - _SAFETY) * np.exp(-np.minimum(backward, 1.0))
        out.ravel()[idx] = res
    return v.scalar_or_array(v.finite_result("mu", out, "eps is too large"))


# --- f-DP trade-off, Gaussian mechanism, composition ----------------------------------------------

@v.named_shapes
def tradeoff(alpha: ArrayLike, mu: ArrayLike) -> FloatOrArray:
    """The μ-GDP trade-off function ``G_μ(α) = Φ(Φ^{-1}(1 − α) − μ)`` (Dong et al. 2022, eq. (2.2); Li, Xiao & Chen
    2024, Def. 3).

    The minimal type-II error at type-I error α of testing N(0,1) vs N(μ,1); computed as ``Φ(−Φ^{-1}(α) − μ)``
    so that α near 0 or 1 loses no digits, and below Φ's normal range (argument < −37.5, G < 4.6e-308) as
    ``exp(log Φ(·))``, which keeps the subnormal values (G = 3.7e-322 at α = 0.05, μ = 40; Φ alone gives 0).
    α in [0, 1], μ >= 0.

    Parameters
    ----------
    alpha : ArrayLike
        Type-I error (probability (type-I error)), in ``[0, 1]``.
    mu : ArrayLike
        GDP parameter, in ``[0, inf)``.

    Returns
    -------
    FloatOrArray
        Μ-GDP trade-off function G_μ(α) (minimal type-II error of N(0,1) vs N(μ,1)) (probability (type-II error)); a
        float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``alpha``, ``mu``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import tradeoff
    >>> tradeoff(0.05, 1.0)
    0.740488977158556
    """
    from scipy import special

    a = v.probability("alpha", alpha, lo_open=False, hi_open=False)
    m = v.nonnegative("mu", mu)
    with np.errstate(invalid="ignore", under="ignore"):
        x = -special.ndtri(a) - m
        out = np.where(x < _NDTR_SUBNORMAL, np.exp(special.log_ndtr(x)), special.ndtr(x))
    return v.scalar_or_array(np.asarray(out, dtype=np.float64))


_NDTR_SUBNORMAL = -37.5
"""Below this argument SciPy's ``ndtr`` leaves the normal range (Φ(−37.5) = 4.6e-308) and loses the subnormal tail
(0 from −38); ``exp(log_ndtr)`` keeps it, to 1.8e-13 relative at −37.6 against mpmath."""


@v.named_shapes
def gaussian_mu(*, sigma: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Gaussian mechanism: noise N(0, σ²) on an ℓ2-sensitivity-Δ query is (Δ/σ)-GDP (Dong et al. 2022, Thm 2.7).

    Keyword-only (the argument order was ``(sensitivity, sigma)`` before the conventions; keywords keep old
    calls unambiguous). `dpcalc.accounting.gaussian_mechanism.mu` is the positional ``(sigma, sensitivity)``
    form.

    Parameters
    ----------
    sigma : ArrayLike
        Noise multiplier (noise std / L2 sensitivity) (query units), in ``(0, inf)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (query units), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Gaussian mechanism: noise N(0, σ²) on a sensitivity-Δ query is (Δ/σ)-GDP; a float for scalar inputs, else an
        array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``sensitivity``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import gaussian_mu
    >>> gaussian_mu(sigma=2.0)
    0.5
    """
    s = v.positive("sensitivity", sensitivity)
    sg = v.positive("sigma", sigma)
    with np.errstate(over="ignore"):
        return v.scalar_or_array(v.finite_result("mu", s / sg, "sigma is too small"))


@v.named_shapes
def gaussian_sigma(*, mu: ArrayLike, sensitivity: ArrayLike = 1.0) -> FloatOrArray:
    """Noise std σ = Δ/μ that makes the Gaussian mechanism μ-GDP (Li, Xiao & Chen 2024, Theorem 2). Keyword-only (see
    `gaussian_mu`).

    Parameters
    ----------
    mu : ArrayLike
        GDP parameter, in ``(0, inf)``.
    sensitivity : ArrayLike
        L2 sensitivity of the released quantity, > 0 (query units), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Noise std for μ-GDP with the Gaussian mechanism (query units); a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``sensitivity``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import gaussian_sigma
    >>> gaussian_sigma(mu=0.5)
    2.0
    """
    s = v.positive("sensitivity", sensitivity)
    m = v.positive("mu", mu)
    with np.errstate(over="ignore"):
        return v.scalar_or_array(v.finite_result("sigma", s / m, "mu is too small"))


@v.named_shapes
def compose(mus: ArrayLike) -> float:
    """n-fold composition of μ_i-GDP mechanisms is √(Σ μ_i²)-GDP (Dong et al. 2022, Cor. 3.3).

    Computed with max-scaling so μ_i up to 1e300 neither overflow nor lose digits. μ_i >= 0, 1-D.

    Parameters
    ----------
    mus : ArrayLike
        GDP parameters of the composed mechanisms, in ``[0, inf)``.

    Returns
    -------
    float
        Composition of μᵢ-GDP mechanisms.

    Raises
    ------
    DomainError
        An input (``mus``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import compose
    >>> compose([0.3, 0.4])
    0.5
    """
    m = v.vector("mus", mus, 0.0)
    top = float(np.max(m))
    if top == 0.0:
        return 0.0
    r = m / top
    return float(v.finite_result("mu", np.asarray(top * math.sqrt(float(np.sum(r * r)))), "mus are too large"))


# --- privacy CLT for Poisson-subsampled Gaussian SGD -----------------------------------------------

def _log_clt_mu(q: FloatArray, sigma: FloatArray, steps: FloatArray) -> FloatArray:
    return np.log(q) + 0.5 * (np.log(steps) + log_expm1(1.0 / (sigma * sigma)))


@v.named_shapes
def clt_mu(q: ArrayLike, sigma: ArrayLike, steps: ArrayLike, *, as_published: bool = False) -> FloatOrArray:
    """CLT μ of T Poisson-subsampled Gaussian steps: ``μ = q·√(T·(e^{1/σ²} − 1))`` (Bu et al. 2020;
    Dong et al. 2022 Cor. 5.4; Li, Xiao & Chen 2024, Theorem 4 corrected, erratum E1).

    An asymptotic estimate (T → ∞, q√T fixed), not a bound: always emits an `EstimateWarning`.
    ``as_published=True`` returns Li, Xiao & Chen's printed ``q·√T·(e^{1/σ²} − 1)`` with an `ErratumWarning`.
    q in (0, 1], σ > 0, T an integer >= 1.

    Parameters
    ----------
    q : ArrayLike
        Poisson sampling rate (probability), in ``(0, 1]``.
    sigma : ArrayLike
        Noise multiplier (noise std / L2 sensitivity) (noise multiplier), in ``(0, inf)``.
    steps : ArrayLike
        Number of steps, in ``[1, inf) integer``.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        Theorem 4: privacy CLT μ of T subsampled Gaussian steps; a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``q``, ``sigma``, ``steps``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import clt_mu
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = clt_mu(0.01, 1.0, 1000)
    ...
    >>> result
    0.414521631336538
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    qq = v.check_range("q", q, 0.0, 1.0, lo_open=True)
    s = v.positive("sigma", sigma)
    t = v.integer_at_least("steps", steps, 1)
    log_mu = _log_clt_mu(qq, s, t)
    with np.errstate(over="ignore"):
        mu = np.exp(log_mu)
    v.finite_result("mu", mu, "sigma is too small (mu overflows float64)")
    v.warn(CLT_WARNING, EstimateWarning)
    if not as_published:
        return v.scalar_or_array(mu)
    with np.errstate(over="ignore"):
        pub = qq * np.sqrt(t) * np.expm1(1.0 / (s * s))
    v.finite_result("mu", pub, "sigma is too small (the published form overflows)")
    first = float(np.ravel(pub)[0]), float(np.ravel(mu)[0])
    v.warn(f"erratum E1 (Li, Xiao & Chen 2024, Theorem 4): returning the printed mu = q*sqrt(T)*(exp(1/sigma^2) - 1) "
           f"= {first[0]:.6g}; the correct CLT value is q*sqrt(T*(exp(1/sigma^2) - 1)) = {first[1]:.6g}",
           ErratumWarning)
    return v.scalar_or_array(pub)


@v.named_shapes
def clt_mu_schedule(q: ArrayLike, sigmas: ArrayLike, steps_per_sigma: ArrayLike = 1) -> float:
    """Heterogeneous CLT: ``μ = q·√(P·Σ_τ (e^{1/σ_τ²} − 1))`` for P steps at each σ_τ (Dong et al. 2022, Thm 3.5).

    Used to audit schedules whose σ changes per round (Li, Xiao & Chen 2024, erratum E15). Emits an EstimateWarning.

    Parameters
    ----------
    q : ArrayLike
        Sampling probability, in (0, 1].
    sigmas : ArrayLike
    steps_per_sigma : ArrayLike

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input (``q``, ``sigmas``, ``steps_per_sigma``) outside its domain; the one-line message names it and the
        allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import clt_mu_schedule
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = clt_mu_schedule(0.01, [1.0, 2.0], 500)
    ...
    >>> result
    0.3164101171854961
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    s = v.vector("sigmas", sigmas, 0.0, lo_open=True)
    p = v.scalar("steps_per_sigma", v.integer_at_least("steps_per_sigma", steps_per_sigma, 1))
    terms = log_expm1(1.0 / (s * s))
    top = float(np.max(terms))
    log_sum = top + math.log(float(np.sum(np.exp(terms - top))))
    mu = math.exp(math.log(qq) + 0.5 * (math.log(p) + log_sum)) if log_sum < 1400 else math.inf
    if not math.isfinite(mu):
        raise DomainError("sigmas are too small: the CLT mu overflows float64")
    v.warn(CLT_WARNING, EstimateWarning)
    return mu


@v.named_shapes
def sigma_from_clt_mu(mu: ArrayLike, q: ArrayLike, steps: ArrayLike) -> FloatOrArray:
    """Inverse of the CLT: ``σ = 1/√(ln(1 + μ²/(q²T)))`` (the σ whose CLT μ equals the given μ).

    Computed as ``1/√(log1p(exp(2 ln μ − 2 ln q − ln T)))`` (no overflow). Emits an EstimateWarning:
    the CLT can underestimate, so this σ may be too small for a guaranteed (ε, δ).

    Parameters
    ----------
    mu : ArrayLike
        GDP parameter, in ``(0, inf)``.
    q : ArrayLike
        Poisson sampling rate (probability), in ``(0, 1]``.
    steps : ArrayLike
        Number of steps, in ``[1, inf) integer``.

    Returns
    -------
    FloatOrArray
        Noise multiplier whose CLT μ equals a target (noise multiplier); a float for scalar inputs, else an array of
        their broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``q``, ``steps``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.accounting.gdp import sigma_from_clt_mu
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = sigma_from_clt_mu(0.5, 0.01, 1000)
    ...
    >>> result
    0.893440317059807
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    m = v.positive("mu", mu)
    qq = v.check_range("q", q, 0.0, 1.0, lo_open=True)
    t = v.integer_at_least("steps", steps, 1)
    x = 2.0 * np.log(m) - 2.0 * np.log(qq) - np.log(t)
    lg = log1p_exp(x)
    with np.errstate(divide="ignore"):
        sigma = 1.0 / np.sqrt(lg)
    v.finite_result("sigma", sigma, "mu/(q*sqrt(T)) is too small (sigma overflows float64)")
    v.warn(CLT_WARNING, EstimateWarning)
    return v.scalar_or_array(sigma)
