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

#: building blocks of the sampling events, which check their inputs (the public form is the event)
__all__: list[str] = []


def integer_orders(alphas: v.FloatArray) -> v.FloatArray:
    """The integers 2..⌈max α⌉ an integer-order bound needs for the orders ``alphas``."""
    top = max(2, math.ceil(float(np.max(alphas))))
    return np.arange(2, top + 1, dtype=np.float64)


def _log_binom(alpha: int) -> v.FloatArray:
    """log C(α, j), j = 0..α (gammaln; relative error ~1e-13 of the value, covered by the RDP conversion's margin)."""
    from dpcalc._numerics import gammaln

    j = np.arange(alpha + 1, dtype=np.float64)
    return np.asarray(gammaln(alpha + 1.0) - gammaln(j + 1.0) - gammaln(alpha - j + 1.0))


def poisson(gamma: float, inner: v.FloatArray, needed: v.FloatArray | None = None) -> v.FloatArray:
    """Zhu & Wang 2019, Thm. 6 at α = 2..len(inner)+1 (``inner[i]`` = ε(i + 2) under add/remove), as RDP values;
    only at the orders ``needed`` (the others are +inf) when given."""
    out = np.full(inner.size, np.inf)
    lg = math.log(gamma)
    l1g = math.log1p(-gamma) if gamma < 1.0 else -math.inf
    for a in _orders(inner, needed):
        lb = _log_binom(a)
        ell = np.arange(2, a + 1, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            tail = (a - ell) * l1g if gamma < 1.0 else np.where(ell == a, 0.0, -np.inf)
        terms = lb[2:] + ell * lg + tail + (ell - 1) * inner[: a - 1]
        terms[1:] += math.log(3.0)  # l >= 3
        head = (a - 1) * l1g + math.log1p((a - 1) * gamma) if gamma < 1.0 else -math.inf
        out[a - 2] = float(np.logaddexp(head, np.logaddexp.reduce(terms))) / (a - 1)
    return np.minimum(out, inner)


def without_replacement(gamma: float, inner: v.FloatArray, eps_inf: float,
                        needed: v.FloatArray | None = None) -> v.FloatArray:
    """Wang, Balle & Kasiviswanathan 2019, Thm. 9 at α = 2..len(inner)+1 (``inner[i]`` = ε(i + 2) under
    replace-one, ``eps_inf`` the inner pure-DP ε or inf), as RDP values; only at ``needed`` when given."""
    out = np.full(inner.size, np.inf)
    lg = math.log(gamma)
    if math.isinf(eps_inf):
        log_e_inf = math.inf
    else:
        log_e_inf = float(log_expm1(eps_inf)) if eps_inf > 0 else -math.inf
    e2 = float(inner[0])
    c2 = min(math.log(4.0) + float(log_expm1(e2)) if e2 > 0 else -math.inf, e2 + min(math.log(2.0), 2 * log_e_inf))
    for a in _orders(inner, needed):
        lb = _log_binom(a)
        total = 2 * lg + lb[2] + c2
        if a >= 3:
            j = np.arange(3, a + 1, dtype=np.float64)
            rest = j * lg + lb[3:] + (j - 1) * inner[1: a - 1] + np.minimum(math.log(2.0), j * log_e_inf)
            total = float(np.logaddexp(total, np.logaddexp.reduce(rest)))
        out[a - 2] = float(log1p_exp(total)) / (a - 1)
    return np.minimum(out, inner)


def _orders(inner: v.FloatArray, needed: v.FloatArray | None) -> list[int]:
    """The integer orders to evaluate: ``needed`` (within 2..len(inner)+1), else all."""
    top = inner.size + 1
    if needed is None:
        return list(range(2, top + 1))
    return sorted({int(a) for a in needed if 2 <= a <= top})


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
              bound: Callable[[v.FloatArray, v.FloatArray], v.FloatArray]) -> v.FloatArray:
    """An integer-order ``bound`` (a function of the inner curve at 2..⌈max α⌉ and of the integer orders it is
    needed at: ⌊α⌋ and ⌈α⌉ of each order) on any orders, capped by the inner curve there."""
    ints = integer_orders(alphas)
    needed = np.unique(np.concatenate([np.floor(alphas), np.ceil(alphas)]))
    at_ints = bound(inner(ints), needed)
    return np.minimum(chord(alphas, ints, at_ints), inner(alphas))
