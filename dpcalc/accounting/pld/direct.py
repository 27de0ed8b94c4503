"""δ(ε) of one or two discretised steps summed directly, without an FFT: δ = Σᵢ aᵢ·δ_B(ε − gᵢ) + a_∞, each δ_B a
suffix sum of positive terms.

The FFT composition carries a round-off floor of ~1e-15 relative to the whole (tilted) mass. When the privacy
loss is heavy-tailed — a Poisson-subsampled Gaussian at small q, where δ(ε) falls only polynomially in ε — no
tilt concentrates the mass near ε, and at δ ≲ 1e-17 that floor held the bracket open (σ = 0.88, q = 7.3e-5, T = 1,
δ = 2.2e-20: [0.13, 1.51] for the exact 0.697 at every lattice). With one or two steps the sum is exact up to
summation rounding relative to the tail sums themselves, so no floor remains.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcalc.accounting.pld.common import UNIT_ROUNDOFF as _U
from dpcalc.accounting.pld.common import FloatArray
from dpcalc.accounting.pld.curve import _discounted_suffix
from dpcalc.accounting.pld.pmf import LatticePmf

__all__ = ["CONVOLUTION_DELTA", "MAX_CONVOLUTION_OPS", "MAX_DIRECT_STEPS", "compose", "convolution_ops",
           "delta_of_pair", "eps_of", "with_error"]

#: compositions of at most this many steps are summed directly
MAX_DIRECT_STEPS = 2
#: at δ at most this, a composition of more steps is convolved directly (`compose`) when that costs at most
#: `MAX_CONVOLUTION_OPS` multiply-adds (np.convolve of float arrays: 1–2 ns each measured at load 11 on two cores,
#: both pairs included; booked at `passes.CONV_OP_SECONDS`): the FFT's round-off floor (~1e-15 of the tilted mass)
#: held brackets open there for heavy-tailed losses (σ = 2.95, q = 4.6e-4, T = 5, δ = 7.8e-27: [0.0123, 0.0130] at
#: every lattice)
CONVOLUTION_DELTA = 1e-10
MAX_CONVOLUTION_OPS = 4e7
_TINY = 1e-300  # bound on the absolute error of products that underflow (n·m·2^-1074 for any lattice here)

_POINT = LatticePmf(0, np.ones(1))  # the identity: all mass at loss 0


class _Suffix:
    """Suffix sums of one lattice PMF B: S₀(m) = Σ_{j≥m} b_j and D(m) = Σ_{j≥m} b_j e^{−(g_j − g_m)}."""

    def __init__(self, b: LatticePmf, h: float) -> None:
        self.b = b
        self.h = h
        self.g0 = b.k0 * h + b.c
        p = b.p
        self.s0 = np.append(np.cumsum(p[::-1])[::-1], 0.0)
        self.d = np.append(p + _discounted_suffix(p, -h), 0.0) if p.size > 1 else np.append(p, 0.0)
        self.n = p.size

    def delta(self, t: FloatArray, upper: bool) -> FloatArray:
        """δ_B(t) = Σ_{g_j > t} b_j (1 − e^{t − g_j}) at each t (finite atoms only), rounding outward."""
        m = np.floor((t - self.g0) / self.h).astype(np.int64) + 1
        m = np.clip(m, 0, self.n)
        gm = self.g0 + np.minimum(m, self.n - 1) * self.h
        with np.errstate(over="ignore", under="ignore"):
            et = np.exp(np.minimum(t - gm, 0.0))
        s0, dd = self.s0[m], self.d[m]
        diff = s0 - et * dd
        rnd = 8.0 * (self.n - m + 4) * _U * (s0 + et * dd)
        return np.maximum(diff + rnd if upper else diff - rnd, 0.0)


def delta_of_pair(a: LatticePmf, b: LatticePmf, h: float, upper: bool) -> Callable[[float], float]:
    """δ(ε) of the composition of the discretised steps A and B (A = the identity for one step), with their mass at +∞
    (a_∞ + (finite mass of A)·b_∞); upper pairs round outward, lower pairs inward.

    Parameters
    ----------
    a : LatticePmf
    b : LatticePmf
    h : float
    upper : bool

    Returns
    -------
    Callable[[float], float]
    """
    sb = _Suffix(b, h)
    nz = np.flatnonzero(a.p > 0)
    ga = np.asarray((a.k0 + nz) * h + a.c, dtype=np.float64)
    pa = a.p[nz]
    finite_a = float(pa.sum())
    inf_mass = a.p_inf + finite_a * b.p_inf  # the lower pairs' are exact +∞ atoms only
    n = pa.size

    def delta(eps: Any) -> Any:
        """δ at ``eps``: a float, or an array of them (a vector of δ)."""
        e = np.asarray(eps, dtype=np.float64)
        terms = sb.delta(e[..., None] - ga, upper)
        s = terms @ pa
        s = s * (1.0 + 4.0 * (n + 4) * _U) if upper else s * (1.0 - 4.0 * (n + 4) * _U)
        out = np.minimum(1.0, s + inf_mass * (1.0 + 4.0 * _U if upper else 1.0 - 4.0 * _U))
        return float(out) if e.ndim == 0 else out

    return delta


def convolution_ops(sizes: list[tuple[int, int]]) -> float:
    """Multiply-adds of `compose` for steps of ``(atoms, count)`` (its loop, on lengths only).

    Parameters
    ----------
    sizes : list[tuple[int, int]]

    Returns
    -------
    float
    """
    ops, acc = 0.0, 0
    for n, count in sizes:
        power, base, c = 0, n, count
        while c:
            if c & 1:
                if power:
                    ops += float(power) * base
                    power += base - 1
                else:
                    power = base
            c >>= 1
            if c:
                ops += float(base) * base
                base = 2 * base - 1
        if acc:
            ops += float(acc) * power
            acc += power - 1
        else:
            acc = power
    return ops


def _convolve(a: LatticePmf, b: LatticePmf, ra: float, rb: float, upper: bool) -> tuple[LatticePmf, float]:
    """A ⊕ B by direct convolution of the nonnegative atoms, and the relative error bound of each composed atom
    ((1 + ra)(1 + rb)(1 + γ_m) − 1, γ_m = m·u/(1 − m·u) for sums of m nonnegative products: no cancellation, so
    no floor relative to the whole mass). Mass at +∞: a_∞ + (finite a)·b_∞ for upper pairs; for lower pairs a_∞
    counts only against B's total mass."""
    m = min(a.p.size, b.p.size)
    gm = m * _U / (1.0 - m * _U)
    p = np.convolve(a.p, b.p)
    fa, fb = float(a.p.sum()), float(b.p.sum())
    inf = a.p_inf + fa * b.p_inf if upper else a.p_inf * (fb + b.p_inf) + fa * b.p_inf
    rel = (1.0 + ra) * (1.0 + rb) * (1.0 + gm) - 1.0
    return LatticePmf(a.k0 + b.k0, p, min(1.0, inf), a.c + b.c), rel


def compose(parts: list[tuple[LatticePmf, int]], upper: bool) -> tuple[LatticePmf, float]:
    """The composition of ``count`` copies of each discretised step by direct convolution (binary powering), and
    the relative error bound of its atoms (`_convolve`).

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]
    upper : bool

    Returns
    -------
    tuple[LatticePmf, float]
    """
    acc: tuple[LatticePmf, float] | None = None
    for d, count in parts:
        power: tuple[LatticePmf, float] | None = None
        base, c = (d, 0.0), count
        while c:
            if c & 1:
                power = base if power is None else _convolve(*_pair(power, base), upper)
            c >>= 1
            if c:
                base = _convolve(*_pair(base, base), upper)
        assert power is not None
        acc = power if acc is None else _convolve(*_pair(acc, power), upper)
    assert acc is not None
    return acc


def _pair(x: tuple[LatticePmf, float], y: tuple[LatticePmf, float]) -> tuple[LatticePmf, LatticePmf, float, float]:
    return x[0], y[0], x[1], y[1]


def with_error(delta_fn: Callable[[float], float], rel: float, upper: bool) -> Callable[[float], float]:
    """δ(ε) of atoms known to a relative ``rel`` (nonnegative terms: δ itself to that relative error), rounded
    outward for an upper curve and inward for a lower one (plus the underflow bound `_TINY`).

    Parameters
    ----------
    delta_fn : Callable[[float], float]
    rel : float
    upper : bool

    Returns
    -------
    Callable[[float], float]
    """
    if upper:
        return lambda e: np.minimum(1.0, delta_fn(e) * (1.0 + rel) + _TINY)
    return lambda e: np.maximum(0.0, delta_fn(e) * (1.0 - rel) - _TINY)


def eps_of(delta_fn: Callable[[float], float], delta: float, top: float, upper: bool) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta (δ non-increasing), to ~1e-15 relative: the end of the final interval on the
    safe side (the upper end for an upper curve, the lower end for a lower one); +inf if δ(top) > delta (``top`` is
    the largest finite composed loss: δ is constant beyond it).

    Parameters
    ----------
    delta_fn : Callable[[float], float]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    top : float
    upper : bool

    Returns
    -------
    float
    """
    if delta_fn(0.0) <= delta:
        return 0.0
    if delta_fn(top) > delta:
        return math.inf
    lo, hi = _scan(delta_fn, delta, 0.0, top)
    return hi if upper else lo


_SCAN = 32  # points per round of `_scan`


def _scan(delta_fn: Callable[[Any], Any], delta: float, lo: float, hi: float) -> tuple[float, float]:
    """Bisection generalised to ``_SCAN`` points a round, δ evaluated on all of them at once: shrinks [lo, hi] (δ(lo)
    > delta >= δ(hi)) to ~5e-16 relative, ~11 rounds instead of ~55 scalar halvings; the same ends as `bisect`."""
    for _ in range(200):
        if hi - lo <= 5e-16 * max(abs(lo), abs(hi)) + 1e-300:
            break
        xs = np.linspace(lo, hi, _SCAN + 2)[1:-1]
        xs = xs[(xs > lo) & (xs < hi)]
        if xs.size == 0:  # adjacent doubles
            break
        met = np.asarray(delta_fn(xs)) <= delta
        i = int(np.argmax(met)) if met.any() else xs.size
        lo = float(xs[i - 1]) if i > 0 else lo
        hi = float(xs[i]) if i < xs.size else hi
    return lo, hi


def composed_top(parts: list[LatticePmf], h: float) -> float:
    """The largest finite loss of the composition of ``parts`` (their top atoms summed), rounded up."""
    return math.fsum((d.k1 * h + d.c) for d in parts) + h


def identity() -> LatticePmf:
    return _POINT
