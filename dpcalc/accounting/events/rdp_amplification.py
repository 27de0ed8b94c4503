"""RDP amplification by subsampling for any inner mechanism: upper bounds at integer orders, extended to fractional
orders by convexity.

* Poisson sampling at rate γ, add/remove (Zhu & Wang 2019, Thm. 6), integer α >= 2::

    (α − 1)ε'(α) <= log[(1 − γ)^{α−1}(αγ − γ + 1) + C(α,2)γ²(1 − γ)^{α−2}e^{ε(2)}
                        + 3 Σ_{l=3}^{α} C(α,l)(1 − γ)^{α−l}γ^l e^{(l−1)ε(l)}]

* Sampling b of n without replacement, γ = b/n, replace-one (Wang, Balle & Kasiviswanathan 2019, Thm. 9)::

    (α − 1)ε'(α) <= log[1 + γ²C(α,2) min{4(e^{ε(2)} − 1), e^{ε(2)} min{2, (e^{ε(∞)} − 1)²}}
                        + Σ_{j=3}^{α} γ^j C(α,j) e^{(j−1)ε(j)} min{2, (e^{ε(∞)} − 1)^j}]

  with ε(·) the inner mechanism's RDP under replace-one and ε(∞) its pure-DP ε (∞ for Gaussian noise).

* Fractional α: (α − 1)ε(α) = log E[(P/Q)^α] is convex in α and 0 at α = 1, so the chord between ⌊α⌋ and ⌈α⌉ of
  the integer bounds is an upper bound (Wang, Balle & Kasiviswanathan 2019, Cor. 10).

Both bounds are also capped by the inner curve itself (subsampling never increases the RDP). Sums are taken in log
space (terms are all positive).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpcalc import _validate as v
from dpcalc._numerics import log1p_exp, log_expm1

__all__ = ["chord", "integer_orders", "poisson", "without_replacement"]


def integer_orders(alphas: v.FloatArray) -> v.FloatArray:
    """The integers 2..⌈max α⌉ an integer-order bound needs for the orders ``alphas``."""
    top = max(2, math.ceil(float(np.max(alphas))))
    return np.arange(2, top + 1, dtype=np.float64)


def _log_binom(alpha: int) -> v.FloatArray:
    """log C(α, j), j = 0..α (lgamma; relative error ~1e-13 of the value, covered by the RDP conversion's margin)."""
    j = np.arange(alpha + 1, dtype=np.float64)
    return np.array([math.lgamma(alpha + 1.0) - math.lgamma(x + 1.0) - math.lgamma(alpha - x + 1.0) for x in j])


def poisson(gamma: float, inner: v.FloatArray) -> v.FloatArray:
    """Zhu & Wang 2019, Thm. 6 at α = 2..len(inner)+1 (``inner[i]`` = ε(i + 2) under add/remove), as RDP values."""
    out = np.empty(inner.size)
    lg, l1g = math.log(gamma), (math.log1p(-gamma) if gamma < 1.0 else -math.inf)
    for i in range(inner.size):
        a = i + 2
        lb = _log_binom(a)
        with np.errstate(invalid="ignore"):
            head = (a - 1) * l1g + math.log1p((a - 1) * gamma) if gamma < 1.0 else -math.inf
        second = lb[2] + 2 * lg + (a - 2) * l1g + inner[0] if a > 2 or gamma < 1.0 else lb[2] + 2 * lg + inner[0]
        if a == 2 and gamma == 1.0:
            second = inner[0]
        terms = [head, second]
        if a >= 3:
            ell = np.arange(3, a + 1)
            with np.errstate(invalid="ignore"):
                tail = (a - ell) * l1g if gamma < 1.0 else np.where(ell == a, 0.0, -np.inf)
            rest = math.log(3.0) + lb[3:] + ell * lg + tail + (ell - 1) * inner[ell - 2]
            terms.append(float(np.logaddexp.reduce(rest)))
        out[i] = float(np.logaddexp.reduce(np.array(terms))) / (a - 1)
    return np.minimum(out, inner)


def without_replacement(gamma: float, inner: v.FloatArray, eps_inf: float) -> v.FloatArray:
    """Wang, Balle & Kasiviswanathan 2019, Thm. 9 at α = 2..len(inner)+1 (``inner[i]`` = ε(i + 2) under
    replace-one, ``eps_inf`` the inner pure-DP ε or inf), as RDP values."""
    out = np.empty(inner.size)
    lg = math.log(gamma)
    log_e_inf = float(log_expm1(eps_inf)) if math.isfinite(eps_inf) and eps_inf > 0 else (
        math.inf if not math.isfinite(eps_inf) else -math.inf)
    e2 = float(inner[0])
    c2 = min(math.log(4.0) + float(log_expm1(e2)) if e2 > 0 else -math.inf, e2 + min(math.log(2.0), 2 * log_e_inf))
    for i in range(inner.size):
        a = i + 2
        lb = _log_binom(a)
        total = 2 * lg + lb[2] + c2
        if a >= 3:
            j = np.arange(3, a + 1)
            rest = j * lg + lb[3:] + (j - 1) * inner[j - 2] + np.minimum(math.log(2.0), j * log_e_inf)
            total = float(np.logaddexp(total, np.logaddexp.reduce(rest)))
        out[i] = float(log1p_exp(total)) / (a - 1)
    return np.minimum(out, inner)


def chord(alphas: v.FloatArray, ints: v.FloatArray, at_ints: v.FloatArray) -> v.FloatArray:
    """RDP at any orders from an integer-order bound: exact at integers, the chord of (α − 1)ε(α) between ⌊α⌋ and
    ⌈α⌉ elsewhere (value 0 at α = 1)."""
    cgf = np.concatenate(([0.0], (ints - 1.0) * at_ints))  # at α = 1, 2, 3, ...
    lo = np.floor(alphas).astype(int)
    t = alphas - lo
    hi = np.minimum(lo + 1, int(ints[-1]))
    with np.errstate(invalid="ignore"):
        c = (1.0 - t) * cgf[lo - 1] + np.where(t > 0, t * cgf[hi - 1], 0.0)
    return np.asarray(c / (alphas - 1.0))


def on_orders(alphas: v.FloatArray, inner: Callable[[v.FloatArray], v.FloatArray],
              bound: Callable[[v.FloatArray], v.FloatArray]) -> v.FloatArray:
    """An integer-order ``bound`` (a function of the inner curve at 2..⌈max α⌉) on any orders, capped by the inner
    curve there."""
    ints = integer_orders(alphas)
    at_ints = bound(inner(ints))
    return np.minimum(chord(alphas, ints, at_ints), inner(alphas))
