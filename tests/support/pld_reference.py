"""Exact privacy profiles in mpmath for the PLD tests: the one-step Poisson-subsampled Gaussian (a 1-D integral in
closed form through normal CDFs, checked against quadrature), μ-GDP, the Laplace mechanism, and any finite pair
composed T times (a multinomial sum: randomized response, the optimal composition of Kairouz, Oh & Viswanath 2015).

Every function works at the caller's ``mpmath.mp.dps`` and returns an ``mpf``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import mpmath as mp

__all__ = ["delta_atoms_composed", "delta_gdp", "delta_laplace", "delta_subsampled_gaussian", "eps_from_delta",
           "eps_subsampled_gaussian", "subsampled_gaussian_quad"]


def delta_subsampled_gaussian(sigma: float, q: float, eps: float, direction: str) -> mp.mpf:
    """δ(ε) of one step: remove P = (1−q)N(0,σ²) + qN(1,σ²) against Q = N(0,σ²); add the swap. The loss is monotone
    in x, so δ = P(L > ε) − e^ε Q(L > ε) with the threshold x_ε in closed form."""
    s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
    if direction == "remove":
        r = (mp.expm1(e) + qq) / qq  # e^z at the threshold
        x = mp.log(r) * s * s + mp.mpf(1) / 2
        p_above = (1 - qq) * mp.ncdf(-x / s) + qq * mp.ncdf((1 - x) / s)
        return p_above - mp.exp(e) * mp.ncdf(-x / s)
    r = (mp.expm1(-e) + qq) / qq
    if r <= 0:
        return mp.mpf(0)
    x = mp.log(r) * s * s + mp.mpf(1) / 2
    q_below = (1 - qq) * mp.ncdf(x / s) + qq * mp.ncdf((x - 1) / s)
    return mp.ncdf(x / s) - mp.exp(e) * q_below


def subsampled_gaussian_quad(sigma: float, q: float, eps: float) -> mp.mpf:
    """The remove direction's δ(ε) = ∫ (f_P − e^ε f_Q)₊ dx by quadrature (an independent check of the closed form)."""
    s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
    x0 = mp.log((mp.expm1(e) + qq) / qq) * s * s + mp.mpf(1) / 2

    def f(x: mp.mpf) -> mp.mpf:
        fq = mp.npdf(x, 0, s)
        return (1 - qq) * fq + qq * mp.npdf(x, 1, s) - mp.exp(e) * fq

    return mp.quad(f, [x0, x0 + s, x0 + 10 * s, mp.inf])


def delta_gdp(mu: float, eps: float) -> mp.mpf:
    """δ(ε) of N(μ, 1) against N(0, 1) (Dong, Roth & Su 2022, Cor. 2.13)."""
    m, e = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)


def delta_laplace(eps0: float, eps: float) -> mp.mpf:
    """δ(ε) of the Laplace mechanism with Δ/b = ε₀: 1 − e^{(ε − ε₀)/2} for ε ≤ ε₀, else 0."""
    e0, e = mp.mpf(eps0), mp.mpf(eps)
    return -mp.expm1((e - e0) / 2) if e < e0 else mp.mpf(0)


def delta_atoms_composed(p: Sequence[float], q: Sequence[float], count: int, eps: float) -> mp.mpf:
    """δ(ε) of the finite pair (p, q) composed ``count`` times: Σ over the multinomial counts of the outcomes of
    (P^T − e^ε Q^T)₊ (an outcome with q = 0 has loss +∞ and contributes its whole P-mass)."""
    pm = [mp.mpf(x) for x in p]
    qm = [mp.mpf(x) for x in q]
    k = len(pm)
    e = mp.exp(mp.mpf(eps))
    total = mp.mpf(0)
    for cut in itertools.combinations(range(count + k - 1), k - 1):
        ns = [b - a - 1 for a, b in zip((-1, *cut), (*cut, count + k - 1), strict=True)]
        coef = mp.factorial(count) / mp.fprod(mp.factorial(n) for n in ns)
        pp = mp.fprod(pm[i] ** ns[i] for i in range(k))
        qq = mp.fprod(qm[i] ** ns[i] for i in range(k))
        if pp > e * qq:
            total += coef * (pp - e * qq)
    return total


def eps_from_delta(delta_fn: Callable[[mp.mpf], mp.mpf], delta: float, hi: float = 1.0) -> mp.mpf:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta (δ non-increasing), by bisection to the working precision."""
    d = mp.mpf(delta)
    if delta_fn(mp.mpf(0)) <= d:
        return mp.mpf(0)
    lo, h = mp.mpf(0), mp.mpf(hi)
    while delta_fn(h) > d:
        lo, h = h, 2 * h
    while h - lo > mp.mpf(10) ** -18 * h:  # far below double precision; mp.prec-bit bisection cost 2x more
        mid = (lo + h) / 2
        if delta_fn(mid) > d:
            lo = mid
        else:
            h = mid
    return h


def eps_subsampled_gaussian(sigma: float, q: float, delta: float) -> mp.mpf:
    """ε(δ) of one Poisson-subsampled Gaussian step, the worse of the two directions."""
    def remove(e: mp.mpf) -> mp.mpf:
        return delta_subsampled_gaussian(sigma, q, e, "remove")

    def add(e: mp.mpf) -> mp.mpf:
        return delta_subsampled_gaussian(sigma, q, e, "add")

    return max(eps_from_delta(remove, delta, 1e-3), eps_from_delta(add, delta, 1e-3))
