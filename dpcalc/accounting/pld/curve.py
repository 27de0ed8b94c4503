"""δ(ε) of one composed PLD from its tilted masses (suffix sums, safe-side rounding) and its inverse ε(δ)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dpcalc._repr import short_repr
from dpcalc._roots import bisect, integer_search
from dpcalc.accounting.pld import scratch
from dpcalc.accounting.pld.common import UNIT_ROUNDOFF as _U
from dpcalc.accounting.pld.common import FloatArray
from dpcalc.errors import DomainError

__all__ = ["Curve", "Frame", "build_curve", "frame"]


def _discounted_suffix(w: FloatArray, log_a: float) -> FloatArray:
    """S(m) = Σ_{k>m} w_k a^{k−m} with a = e^{log_a} < 1, in blocks (no under/overflow)."""
    n = w.size
    blk = max(1, min(n, int(600.0 / max(-log_a, 1e-300))))
    out = np.empty(n)
    carry = 0.0  # T(e) = Σ_{k≥e} w_k a^{k−e}
    for e in range(n, 0, -blk):
        s = max(0, e - blk)
        i = np.arange(e - s)
        rc = np.cumsum((w[s:e] * np.exp(log_a * i))[::-1])[::-1]
        tin = rc * np.exp(-log_a * i) + np.exp(log_a * (e - s - i)) * carry  # T(m), m = s + i
        out[s:e] = np.append(tin[1:], carry) * math.exp(log_a)
        carry = float(tin[0])
    return out


#: below this A_m (the tilted suffix sum) the δ-curve is summed term by term in log space (`Curve._direct`)
_A_DIRECT = 1e-280


def _exp_or_inf(x: float) -> float:
    """``e^x``, +inf past the double range (a δ that large only ever fails a comparison with a target)."""
    return math.exp(x) if x < 709.0 else math.inf


@short_repr
@dataclass(frozen=True)
class Curve:
    """δ(ε) of one composed PLD: δ(x_m + t) = e^{logk − λx_m}(A_m − e^t·B_m ± R_m) + extra ± e^{log_tilt − λε}.

    The last term is signed like the curve: the upper curve's bound on the atoms left out of the composition (their
    tilted weights underflowed, `compose`), the lower curve's bound on the aliased mass (subtracted).

    R_m bounds the rounding of the difference: A_m and B_m are sums of up to n − m positive terms (relative error
    ≤ (n − m + 4)·u each, ×8 for the blocked form), and A_m − e^t·B_m cancels where one heavy atom sits just above
    ε (its two terms agree to rounding as t → h). ``upper`` adds R_m, the lower curve subtracts it. Without it the
    upper δ just below a heavy atom came out as 0 (σ = 3.63, q = 1, δ = 1.7e-27: ε_upper 2.7105 below the exact
    2.9178, found by the deep PLD sweep)."""

    x: FloatArray
    a: FloatArray
    b: FloatArray
    lam: float
    logk: float
    extra: float
    log_tilt: float  # −inf: no such term
    upper: bool = True
    w: FloatArray | None = None  # the composed tilted masses (for the direct sum where A_m underflows)

    @cached_property
    def _log_w(self) -> FloatArray:
        """log W (−inf where W = 0), computed once, on the first direct sum."""
        assert self.w is not None
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(self.w))

    def tilt_term(self, eps: float) -> float:
        """The signed e^{log_tilt − λε} term at ε."""
        if self.log_tilt == -math.inf:
            return 0.0
        val = _exp_or_inf(self.log_tilt - self.lam * eps)
        return val if self.upper else -val

    def ab(self, m: int) -> tuple[float, float]:
        """(A_m, B_m) = Σ_{k>m} W_k·(e^{−λh(k−m)}, e^{−(λ+1)h(k−m)})."""
        return float(self.a[m]), float(self.b[m])

    def delta(self, eps: float) -> float:
        if eps < self.x[0]:
            raise DomainError("pld: internal window does not contain eps")
        # the cell by search, not by (ε − x₀)/Δx: the float spacing x₁ − x₀ differs from h by ~ulp(x₀), ~2e-6 after
        # 1.9 million cells at ε = 17,924, which put ε one cell too high, past a heavy atom just above it, and gave
        # δ ≈ 0 there (randomized response ×2228: ε_upper 2e-6 below the truth)
        m = min(max(int(np.searchsorted(self.x, eps, side="right")) - 1, 0), self.x.size - 1)
        return self._at(m, eps)

    def _at(self, m: int, eps: float) -> float:
        """δ at ε in cell m (x_m <= ε, and ε < x_{m+1} unless m is the last cell)."""
        xm = float(self.x[m])
        a, b = float(self.a[m]), float(self.b[m])
        if a < _A_DIRECT and m + 1 < self.x.size and self.w is not None:
            return self._direct(m, eps) + self.extra + self.tilt_term(eps)
        etb = math.exp(eps - xm) * b
        rounding = 8.0 * (self.x.size - m + 4) * _U * (a + etb)
        diff = a - etb + (rounding if self.upper else -rounding)
        # in log space: at a large tilt (λ ~ 1e5 for a tiny loss) e^{logk − λx_m} alone overflows where δ is small
        fin = _exp_or_inf(self.logk - self.lam * xm + math.log(diff)) if diff > 0.0 else 0.0
        return fin + self.extra + self.tilt_term(eps)

    def _direct(self, m: int, eps: float) -> float:
        """Σ_{k>m} P_k·(1 − e^{ε − x_k}) with log P_k = log W_k + logk − λx_k, term by term (positive terms: no
        cancellation). Used where A_m is below `_A_DIRECT`: its discounted terms e^{−λh(k−m)} underflow at a
        large λh (a few atoms far above ε then vanish from A_m and δ came out as 0: σ = 1e4, q = 1, δ = 1e-20 at a
        coarse lattice gave ε_upper 4.4e-5 below the exact 8.0e-4)."""
        xs = self.x[m + 1:]
        with np.errstate(divide="ignore", under="ignore"):
            v = self._log_w[m + 1:] + self.logk - self.lam * xs + np.log(-np.expm1(eps - xs))
            v = v[v > -math.inf]
            total = float(np.exp(np.minimum(v, 709.0)).sum()) if v.size else 0.0
        if v.size and float(v.max()) >= 709.0:
            return math.inf if self.upper else total
        n = xs.size
        if self.upper:  # summation error, and terms below the normal range (at most 2.3e-308 each)
            return total * (1.0 + 8.0 * (n + 4) * _U) + n * 2.3e-308
        return max(0.0, total * (1.0 - 8.0 * (n + 4) * _U))

    def deltas(self, eps: FloatArray) -> FloatArray:
        """`delta` at every ε of an array (the privacy profile on a grid, e.g. for a trade-off curve): the same
        bound, vectorised. Where `delta` takes its direct sum (the suffix sum A_m underflows), the upper curve goes
        through it point by point and the lower curve drops it (its terms are positive: still a lower bound)."""
        e = np.asarray(eps, dtype=np.float64)
        if e.size and float(e.min()) < float(self.x[0]):
            raise DomainError("pld: internal window does not contain eps")
        h = float(self.x[1] - self.x[0])
        m = np.minimum(((e - self.x[0]) // h).astype(np.int64), self.x.size - 1)
        t = e - self.x[m]
        a, b = self.a[m], self.b[m]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
            etb = np.exp(t) * b
            rounding = 8.0 * (self.x.size - m + 4) * _U * (a + etb)
            diff = a - etb + (rounding if self.upper else -rounding)
            log_fin = self.logk - self.lam * self.x[m] + np.log(np.where(diff > 0.0, diff, 1.0))
            fin = np.where(diff > 0.0, np.where(log_fin < 709.0, np.exp(np.minimum(log_fin, 709.0)), np.inf), 0.0)
            if self.log_tilt == -math.inf:
                tilt = np.zeros_like(e)
            else:
                arg = self.log_tilt - self.lam * e
                tilt = np.where(arg < 709.0, np.exp(np.minimum(arg, 709.0)), np.inf)
                tilt = tilt if self.upper else -tilt
        out = np.asarray(fin + self.extra + tilt, dtype=np.float64)
        direct = (a < _A_DIRECT) & (m + 1 < self.x.size)
        if self.upper and self.w is not None and bool(direct.any()):
            for i in np.flatnonzero(direct):
                out[i] = self.delta(float(e[i]))
        return out

    def eps(self, delta: float, near: float | None = None) -> float:
        """Smallest ε ≥ 0 on the window with δ(ε) ≤ delta (δ(ε) is non-increasing): a search over the lattice points
        (galloping out from ``near``, e.g. the other curve's answer, else binary over the window), then the root of
        the cell's explicit form δ = e^{logk − λx_m}(A_m − e^t B_m) + …, confirmed by one evaluation just past it
        (bisection inside the cell, `dpcalc._roots`, only when that fails). The upper curve returns a point where
        δ ≤ delta, the lower curve one where δ > delta (below the crossing, so ε_lower stays below it)."""
        x0 = max(0.0, float(self.x[0]))
        if self.delta(x0) <= delta:
            return x0
        # the cell containing x0 (x[i_lo] <= x0: the first lattice point >= x0 skipped [x0, x[i_lo]), where a small ε
        # can lie: σ = 4.54, q = 0.0044, T = 2 gave both bounds 7.86e-4 for the true 2.34e-4, the lower one unsafe)
        i_lo = max(0, int(np.searchsorted(self.x, x0, side="right")) - 1)
        i_hi = self.x.size - 1

        def met(i: int) -> bool:
            return self._at(i, float(self.x[i])) <= delta

        if near is not None and math.isfinite(near) and x0 < near < float(self.x[i_hi]) and i_lo < i_hi:
            ends = self._gallop(met, i_lo, i_hi, int(np.searchsorted(self.x, near, side="right")) - 1)
            if ends is None:
                return math.inf
            i_lo, i_hi = ends
        elif not met(i_hi):
            return math.inf
        i_hi = integer_search(met, i_lo, i_hi)
        i_lo = max(i_lo, i_hi - 1)
        lo, hi = max(float(self.x[i_lo]), x0), float(self.x[i_hi])
        # inside the cell δ is explicit up to the (small) e^{−λε} term: its root, confirmed by one evaluation
        xm0 = float(self.x[i_lo])
        rhs_base = delta - self.extra - self.tilt_term(lo)
        rhs = (_exp_or_inf(math.log(rhs_base) + self.lam * xm0 - self.logk) if rhs_base > 0.0 else
               (0.0 if rhs_base == 0.0 else -math.inf))
        a_m, b_m = self.ab(i_lo)
        r = 8.0 * (self.x.size - i_lo + 4) * _U  # the rounding term of `delta`, signed like the curve
        a_r, b_r = (a_m * (1.0 + r), b_m * (1.0 - r)) if self.upper else (a_m * (1.0 - r), b_m * (1.0 + r))
        if b_r > 0.0 and math.isfinite(rhs) and a_r > rhs:
            c = xm0 + math.log((a_r - rhs) / b_r)
            for rel in (4e-15, 1e-12):  # a few ulps past the root, then further (the e^{−λε} term was frozen)
                eta = rel * max(1.0, abs(c))
                if not (lo < c - eta and c + eta < hi):
                    break
                if self.upper and self._at(i_lo, c + eta) <= delta:
                    return c + eta
                if not self.upper and self._at(i_lo, c - eta) > delta:
                    return c - eta
        lo, hi = bisect(lambda e: self.delta(e) <= delta, lo, hi, rtol=5e-16, atol=5e-16, max_iter=100)
        return hi if self.upper else lo

    def _gallop(self, met: Callable[[int], bool], i_lo: int, i_hi: int, start: int) -> tuple[int, int] | None:
        """(lo, hi) with ``met(lo)`` false (lo = ``i_lo`` is, unchecked) and ``met(hi)`` true, from doubling steps out
        of ``start``; None when ``met(i_hi)`` is false."""
        start = min(max(start, i_lo + 1), i_hi)
        step = 1
        if met(start):
            hi = start
            while True:
                lo = max(i_lo, hi - step)
                if lo == i_lo or not met(lo):
                    return lo, hi
                hi, step = lo, 2 * step
        lo = start
        while lo < i_hi:
            hi = min(i_hi, lo + step)
            if met(hi):
                return lo, hi
            lo, step = hi, 2 * step
        return None


@dataclass(frozen=True)
class Frame:
    """What the curves of one pass share: the window's positions x_j = (k_lo + j)·h + off and, where they do not
    underflow, the discounts e^{−λhj} and e^{−(λ+1)hj} of the suffix sums (None: the blocked form)."""

    x: FloatArray
    h: float
    lam: float
    powers: tuple[FloatArray, FloatArray] | None


def frame(n: int, k_lo: int, h: float, off: float, lam: float) -> Frame:
    """The `Frame` of a window of ``n`` lattice points from index ``k_lo`` (offset ``off``) at tilt ``lam``.

    Parameters
    ----------
    n : int
    k_lo : int
    h : float
    off : float
    lam : float

    Returns
    -------
    Frame
    """
    j = np.arange(n, dtype=np.float64)
    x = (k_lo + j) * h + off
    powers = (_geometric(-lam * h, n), _geometric(-(lam + 1.0) * h, n)) if (lam + 1.0) * h * n < 700.0 else None
    return Frame(x, h, lam, powers)


_RUN = 64  # `_geometric`: the powers as products of a run of this many and every run's start


def _geometric(rate: float, n: int) -> FloatArray:
    """e^{rate·j} for j = 0..n−1 (rate ≤ 0, rate·n > −700), as e^{rate·64i}·e^{rate·r}: about n/64 + 64 exponentials
    instead of n. Each power is within (|rate·j| + 4) ulps of the exact one, as one exponential of the rounded
    argument rate·j is (the rounding of the argument dominates; tests/accounting/test_pld_frame.py, with mpmath)."""
    runs = -(-n // _RUN)
    within = np.exp(rate * np.arange(_RUN, dtype=np.float64))
    starts = np.exp((rate * _RUN) * np.arange(runs, dtype=np.float64))
    return np.asarray((starts[:, None] * within[None, :]).ravel()[:n])


def build_curve(w: FloatArray, fr: Frame, logk: float, extra: float, log_tilt: float, upper: bool) -> Curve:
    """The `Curve` of composed tilted masses ``w`` on the window of ``fr`` (its suffix sums A, B).

    Parameters
    ----------
    w : FloatArray
    fr : Frame
    logk : float
    extra : float
    log_tilt : float
    upper : bool

    Returns
    -------
    Curve
    """
    if fr.powers is not None:  # the powers do not underflow: one reversed cumulative sum each
        a, b = _suffix_direct(w, fr.powers[0]), _suffix_direct(w, fr.powers[1])
    else:
        a, b = _discounted_suffix(w, -fr.lam * fr.h), _discounted_suffix(w, -(fr.lam + 1.0) * fr.h)
    return Curve(fr.x, a, b, fr.lam, logk, extra, log_tilt, upper, w)


def _suffix_direct(w: FloatArray, pw: FloatArray) -> FloatArray:
    """S(m) = Σ_{k>m} w_k·pw_k/pw_m for pw_k = a^k with a^n not underflowing (all terms are >= 0); the reversed
    cumulative sum in a `scratch` buffer, so that the result is the only new array."""
    t = np.multiply(w, pw, out=scratch.buffer("suffix", w.shape, np.float64))
    back = t[::-1]
    np.cumsum(back, out=back)  # t[m] = Σ_{k≥m} w_k pw_k
    out = np.empty_like(t)
    np.divide(t[1:], pw[:-1], out=out[:-1])
    out[-1] = 0.0
    return out
