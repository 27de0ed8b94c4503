"""δ(ε; μ) and the certified ε(μ, δ) of one μ-GDP point in plain Python floats (`dpcalc.accounting.gdp` keeps the
vectorised forms and the public functions; this is their scalar path, without NumPy's per-call cost: an accountant's
single Gaussian answers in about 0.1 ms).

The same branches and special-function values as `gdp._log_delta_body` (Dong, Roth & Su 2022, Cor. 2.13, in the
log-space forms of the `gdp` module docstring), and the same safeguarded Newton bracket and outward margins as the
vectorised ε(μ, δ).
"""

from __future__ import annotations

import math

import numpy as np

from dpcalc import _normal as sp
from dpcalc import _validate as v
from dpcalc._roots import newton_point
from dpcalc.accounting._erfcx_diff import ASYMPTOTIC_U as _ASYMPTOTIC_U
from dpcalc.accounting._erfcx_diff import log_diff_asymptotic as _erfcx_diff_asymptotic
from dpcalc.accounting._erfcx_diff import log_diff_quadrature as _erfcx_diff_quadrature

__all__ = ["LOG_DELTA_ERR", "ROOT_RTOL", "eps_bracket_between"]

_SQRT2 = math.sqrt(2.0)
_LN2 = math.log(2.0)

#: Relative width of the final bracket of ε(μ, δ), μ(ε, δ) (the returned end is then moved _SAFETY outward).
ROOT_RTOL = 2e-15
_SAFETY = 1e-14  # relative margin added on the safe side (covers the ~1e-16·a² evaluation error of log δ)
#: Documented absolute evaluation error of log δ(ε; μ) near δ(0; μ) (~9 ulps of δ; the sweep measured 3e-16).
#: ε(μ, δ) adds it, divided by the slope |d log δ/dε|, on the safe side, so near
#: δ(0; μ) — where ε ≪ δ and ε is ill-conditioned in δ (condition number κ = 1/(ε·|d log δ/dε|) up to ~1e5) — the
#: returned ε stays above the exact root (the 10,000-point sweep found it 1.4e-11 below with the relative margin
#: alone). The tolerance of ε(μ, δ) is therefore ``ROOT_RTOL + _SAFETY`` relative plus this backward term.
LOG_DELTA_ERR = 2e-15


def _exp(x: float) -> float:
    """``e^x`` of a float, +inf past the double range (as NumPy's exp)."""
    return math.exp(x) if x < 709.78 else math.inf


def _log(x: float) -> float:
    """``log x`` of a float, −inf at 0 and NaN below (as NumPy's log)."""
    return math.log(x) if x > 0.0 else (-math.inf if x == 0.0 else math.nan)


def _log_delta_point(eps: float, mu: float, tail: bool) -> tuple[float, float, float]:
    """`_log_delta_body` for one point in plain floats (the same branches and the same special-function values,
    `dpcalc._normal`): ``(log δ, δ or log(e^ε Φ(b)) − log δ, κ)``."""
    a = 0.5 * mu - eps / mu
    b = a - mu
    if a < 0.0:
        ua = -a / _SQRT2
        h = mu / _SQRT2
        ub = ua + h
        if ua >= _ASYMPTOTIC_U:
            diff_log, kappa = float(_erfcx_diff_asymptotic(np.array([ua]), np.array([h]))[0]), 1.0
        elif h < 0.1 and 2.0 * ua * h < 1.0:
            diff_log, kappa = float(_erfcx_diff_quadrature(np.array([ua]), np.array([h]))[0]), 1.0 + 2.0 * ua * ua
        else:
            ea, eb = sp.erfcx(ua), sp.erfcx(ub)
            diff_log = _log(ea - eb)
            kappa = (ea + eb) / (ea - eb) if ea != eb else math.inf
            if tail:
                return -0.5 * a * a - _LN2 + diff_log, _log(eb) - diff_log, kappa
        log_d = -0.5 * a * a - _LN2 + diff_log
        return log_d, (_log(sp.erfcx(ub)) - diff_log if tail else _exp(log_d)), kappa
    phi_b = sp.ndtr(b)
    log_tail = -0.5 * a * a - _LN2 + _log(sp.erfcx(-b / _SQRT2))
    excess = math.expm1(eps) * phi_b if eps < 1.0 else _exp(log_tail) - phi_b
    d = 0.5 * (math.erf(a / _SQRT2) + math.erf(-b / _SQRT2)) - excess
    la = sp.log_ndtr(-a)
    top = max(la, log_tail)
    log_om = top + math.log1p(_exp(min(la, log_tail) - top)) if top > -math.inf else -math.inf
    if log_om < -_LN2:
        om = _exp(log_om)
        log_d = math.log1p(-om)
        kappa = (1.0 - log_om) * om / (1.0 - om)
    else:
        log_d = _log(d)
        kappa = (d + 2.0 * abs(excess)) / d if d != 0.0 else math.inf
    return log_d, (log_tail - log_d if tail else d), kappa


def _plain_root(m: float, lt: float, hi: float) -> float:
    """A Newton start for ε(μ, δ): Newton steps from ``hi`` on log δ(ε), δ(ε) = Φ(a) − e^ε·Φ(b) in plain floats
    (math.erfc; no care for cancellation or range, so only where e^ε and δ stay well inside the double range),
    else ``hi``. The certified root then needs about three evaluations instead of about six; it does not depend on
    this start's accuracy, only its cost does."""
    if not (0.0 < hi < 600.0 and lt > -570.0):
        return hi
    x = hi
    for _ in range(8):
        a, b = 0.5 * m - x / m, -0.5 * m - x / m
        tail = math.exp(x) * 0.5 * math.erfc(-b / _SQRT2)
        d = 0.5 * math.erfc(-a / _SQRT2) - tail
        if not (tail > 0.0 and d > 0.0 and math.isfinite(d)):
            return hi
        step = (math.log(d) - lt) * d / tail  # (log δ − log δ*) / (−d log δ/dε)
        x += step
        if not 0.0 < x < hi:
            return hi
        if abs(step) <= 1e-12 * x:
            break
    return x


def _eps_root_point(m: float, lt: float, start: tuple[float, float] | None = None) -> tuple[float, float]:
    """`_eps_root` for one (μ, ln δ) in plain floats: the same bracket, Newton steps (`dpcalc._roots.newton_point`),
    margins and checks. ``start`` = (x, hi): a Newton start and a safe upper end (δ(hi; μ) <= δ), e.g. the bracket
    of a slightly larger μ (ε(δ; μ) increases with μ); the ends' evaluations are reused for the margins."""
    if lt >= _log(math.erf(m / (2.0 * _SQRT2))):
        return 0.0, 0.0
    seen: dict[float, tuple[float, float, float]] = {}

    def at(x: float) -> tuple[float, float, float]:
        if x not in seen:
            seen[x] = _log_delta_point(x, m, True)
        return seen[x]

    def f_and_slope(x: float) -> tuple[float, float]:
        ld, log_ratio, _ = at(x)
        return ld - lt, -_exp(log_ratio)

    if start is None:
        z = math.sqrt(2.0 * max(0.0, -_LN2 - lt))
        hi = 0.5 * m * m + m * z
        if not math.isfinite(hi):
            v.finite_result("eps", np.array([hi]),
                            "mu is too large (eps ~ mu^2/2 overflows float64; mu must be < ~1e154)")
        # δ(ε) < Φ(a) so ε0 = μ(μ/2 − Φ^{-1}(δ)) has δ(ε0) < δ: a tighter safe end and the Newton start
        e0 = m * (0.5 * m - sp.ndtri(_exp(lt)))
        if math.isfinite(e0) and e0 > 0.0:
            hi = min(hi, e0)
        x0 = _plain_root(m, lt, hi)
    else:
        x0, hi = start
    lo, hi = newton_point(f_and_slope, 0.0, hi, min(x0, hi), increasing=False, rtol=ROOT_RTOL, atol=1e-300)
    margins = []
    for end in (lo, hi):  # as in `_eps_root`: the log δ error bound over the slope, outward
        _, log_ratio, kappa = at(end)
        margin = LOG_DELTA_ERR * (kappa if math.isfinite(kappa) else 1.0) * _exp(-log_ratio)
        margins.append(margin if math.isfinite(margin) else 0.0)
    return max(0.0, lo * (1.0 - _SAFETY) - margins[0]), hi * (1.0 + _SAFETY) + margins[1]


def eps_bracket_between(mu_lo: float, mu_hi: float, delta: float) -> tuple[float, float]:
    """Certified ``(ε_lower at mu_lo, ε_upper at mu_hi)`` for a μ known only to lie in [mu_lo, mu_hi] (a μ computed
    with rounding): as `eps_bracket_from_mu` at each end, the second root warm-started from the first (two nearby
    roots cost little more than one). Ends within 1e-12 relative of each other need no second root: ε(μ) has slope
    dε/dμ = φ(b)/Φ(b) with b = −ε/μ − μ/2 (∂δ/∂μ = φ(a) over −∂δ/∂ε = e^ε·Φ(b)), increasing in x = −b, below
    x + 1/x (Φ(−x) >= φ(x)·x/(1 + x²)) and below φ(1)/Φ(−1) = 1.52513… for x <= 1, so ε(mu_lo) >= the lower end at
    mu_hi less (mu_hi − mu_lo)·that bound at the largest x of the bracket.

    Parameters
    ----------
    mu_lo : float
        Lower end of μ, >= 0.
    mu_hi : float
        Upper end of μ, >= mu_lo.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    tuple[float, float]

    Examples
    --------
    >>> from dpcalc.accounting.gdp import eps_bracket_between
    >>> eps_bracket_between(1.0 - 1e-12, 1.0, 1e-5)
    (4.3771780956760935, 4.377178095681278)
    """
    lt = math.log(float(v.scalar("delta", v.probability("delta", delta))))
    m_hi = float(v.scalar("mu", v.nonnegative("mu", mu_hi)))
    m_lo = min(float(v.scalar("mu", v.nonnegative("mu", mu_lo))), m_hi)
    lo_h, up_h = _eps_root_point(m_hi, lt)
    if up_h == 0.0:
        return 0.0, 0.0
    if m_hi - m_lo <= 1e-12 * m_hi and m_lo > 0.0:
        x = up_h / m_lo + 0.5 * m_hi  # the largest x of the bracket
        drop = (m_hi - m_lo) * (x + 1.0 / x if x >= 1.0 else 1.526) * (1.0 + 1e-12) + math.ulp(lo_h)
        return max(0.0, lo_h - drop), up_h
    return _eps_root_point(m_lo, lt, start=(lo_h, up_h))[0], up_h  # δ(up_h; mu_lo) <= δ: a safe end, lo_h a start
