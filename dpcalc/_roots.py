"""The one safe-side bracketing root finder behind every inverse and calibration in dpcalc.

`bracket` shrinks a bracket ``[lo, hi]`` of a monotone function to a relative/absolute width, vectorised over
independent problems. Invariant, kept at every step: ``s·f(lo) < 0 <= s·f(hi)`` with ``s = +1`` for increasing
``f`` and ``−1`` for decreasing ``f`` — so both ends are *evaluated* points, one on each side of the root.
`safe_root` returns the end on the requested side (the "safe side" of an inverse: e.g. the larger ε whose δ
is <= the target, the smaller μ whose δ is <= the target) — it satisfies the target as evaluated by the forward
map, by construction — and re-checks it there.

Steps: a Newton step when ``f`` also returns its slope (quadratic convergence; a converged iterate is certified by
one evaluation just past it, which closes the bracket), otherwise Illinois false position (superlinear); both fall
back to bisection whenever the step leaves the bracket or stalls. Scalars are 1-element problems
(`scalar_root`, used by the Monte Carlo checks).

Scalar searches where one evaluation is either very cheap (NumPy's per-call overhead would dominate) or very
expensive (an accountant: every evaluation counts), in plain Python:

* `expand` — a vectorised bracket search upwards in fixed steps (the GDP μ(ε, δ) bracket);
* `newton_point` — `bracket`'s Newton steps for one problem (the GDP ε(μ, δ) of one Gaussian composition);
* `bisect` — bisection on a monotone predicate (the PLD's tail quantile and its δ-curve inverse in a cell);
* `integer_search` — the smallest integer where a monotone predicate holds (the PLD's lattice search; an
  integer knob of a calibration);
* `secant_search` — safeguarded secant steps from a start point with no bracket yet, steps capped, an
  optional overshoot that brackets the root from both sides, and an optional early acceptance test (the
  calibration of an accountant's monotone knob, `dpcalc.accounting.calibrate`).

References: Dahlquist & Björck, *Numerical Methods* (1974) §6.2 (Illinois); Press et al., *Numerical Recipes*
§9.4 (Newton safeguarded by bisection, ``rtsafe``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpcalc.typing import FloatArray

__all__ = ["Fn", "Search", "Side", "bisect", "bracket", "expand", "integer_search", "newton_point", "safe_root",
           "scalar_root", "secant_search"]

#: ``f(x, idx) -> f`` or ``(f, slope)`` evaluated at the active problems ``idx`` (indices into the flat problems).
Fn = Callable[[FloatArray, NDArray[np.intp]], FloatArray | tuple[FloatArray, FloatArray]]
Side = Literal["lo", "hi"]


def bracket(f: Fn, lo: FloatArray, hi: FloatArray, *, increasing: bool, rtol: float = 1e-12, atol: float = 0.0,
            x0: FloatArray | None = None, newton: bool = False, max_iter: int = 200,
            f_lo: FloatArray | None = None, f_hi: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """Shrink valid brackets ``[lo, hi]`` (1-D arrays, the invariant above holds) until
    ``hi − lo <= rtol·max(|lo|, |hi|) + atol``; returns the final ``(lo, hi)`` (both evaluated ends).

    With ``newton=True`` ``f`` returns ``(f, slope)`` and the iteration starts at ``x0`` (default: hi).
    ``f_lo``/``f_hi``: f already evaluated at the ends (saves two evaluations of an expensive f).
    """
    lo = np.array(lo, dtype=np.float64, copy=True)
    hi = np.array(hi, dtype=np.float64, copy=True)
    sign = 1.0 if increasing else -1.0
    n = lo.size
    active = np.arange(n)
    if newton:
        _newton(f, lo, hi, np.array(hi if x0 is None else x0, dtype=np.float64, copy=True), active, sign, rtol, atol,
                max_iter)
        return lo, hi
    flo = sign * np.asarray(f(lo, active) if f_lo is None else f_lo, dtype=np.float64)  # signed s·f at the ends
    fhi = sign * np.asarray(f(hi, active) if f_hi is None else f_hi, dtype=np.float64)
    if np.any(flo >= 0.0) or np.any(fhi < 0.0):
        raise ValueError("bracket: f(lo) and f(hi) do not bracket a root (s·f(lo) < 0 <= s·f(hi) required)")
    known = np.isfinite(flo) & np.isfinite(fhi)
    last = np.zeros(n, dtype=np.int8)  # which end moved last: −1 lo, +1 hi (Illinois halving)
    for it in range(max_iter):
        width_ok = (hi[active] - lo[active]) <= rtol * np.maximum(np.abs(lo[active]), np.abs(hi[active])) + atol
        active = active[~width_ok]
        if active.size == 0:
            break
        la, ha = lo[active], hi[active]
        fl, fh = flo[active], fhi[active]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            c = la - fl * (ha - la) / (fh - fl)
        mid = 0.5 * (la + ha)
        # a false-position point within half the tolerance of an end is moved that far inside: once one end sits on
        # the root (to the tolerance), the next point lands just past it and closes the bracket, instead of the far
        # end creeping in by bisection (measured: 33 → 12 accountant evaluations per RDP calibration)
        half = 0.5 * (rtol * np.maximum(np.abs(la), np.abs(ha)) + atol)
        c = np.clip(c, la + half, ha - half)
        use_mid = ~known[active] | ~np.isfinite(c) | (c <= la) | (c >= ha) | (it % 4 == 3)
        c = np.where(use_mid, mid, c)
        fc = sign * np.asarray(f(c, active), dtype=np.float64)
        right = fc < 0.0  # root right of c: c becomes lo
        fc_fin = np.where(np.isfinite(fc), fc, np.where(right, -np.inf, np.inf))
        lo[active] = np.where(right, c, la)
        hi[active] = np.where(right, ha, c)
        # Illinois: an end kept twice in a row gets its stored value halved (hi kept when lo moves again, and vice
        # versa), so the next false-position point crosses the root and the kept end moves too
        new_fl = np.where(right, fc_fin, np.where(last[active] == 1, 0.5 * fl, fl))
        new_fh = np.where(right, np.where(last[active] == -1, 0.5 * fh, fh), fc_fin)
        flo[active], fhi[active] = new_fl, new_fh
        last[active] = np.where(right, -1, 1)
        known[active] = known[active] | np.isfinite(fc)
        known[active] &= np.isfinite(flo[active]) & np.isfinite(fhi[active])
    return lo, hi


def expand(f: Callable[[FloatArray, NDArray[np.intp]], FloatArray], lo: FloatArray, hi: FloatArray, *,
           increasing: bool, step: float, max_iter: int = 2100) -> tuple[FloatArray, FloatArray]:
    """Bracket search upwards, vectorised: while ``s·f(hi) < 0`` (the root lies above hi) move ``lo`` to ``hi`` and
    ``hi`` up by ``step``, at most ``max_iter`` times; only the problems still short are evaluated. Returns the new
    ``(lo, hi)`` (``f(x, idx)`` as in `bracket`, without a slope)."""
    lo = np.array(lo, dtype=np.float64, copy=True)
    hi = np.array(hi, dtype=np.float64, copy=True)
    sign = 1.0 if increasing else -1.0
    active = np.arange(hi.size)
    for _ in range(max_iter):
        short = sign * np.asarray(f(hi[active], active), dtype=np.float64) < 0.0
        active = active[short]
        if active.size == 0:
            break
        lo[active] = hi[active]
        hi[active] = hi[active] + step
    return lo, hi


def _newton(f: Fn, lo: FloatArray, hi: FloatArray, x: FloatArray, active: NDArray[np.intp], sign: float,
            rtol: float, atol: float, max_iter: int) -> None:
    for _ in range(max_iter):
        if active.size == 0:
            break
        xa = x[active]
        fv, slope = f(xa, active)
        fs = sign * fv
        below = fs < 0.0  # root is to the right of xa
        lo[active] = np.where(below, xa, lo[active])
        hi[active] = np.where(below, hi[active], xa)
        la, ha = lo[active], hi[active]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = -fv / slope
        xn = xa + step
        tol = rtol * np.abs(xa) + atol
        # converged: a Newton step below the tolerance (possibly below one ulp, so xn == xa) -> probe
        # (or within a few ulps of xa: at rtol 2e-15 the 1e-3 fraction is below one ulp, xn rounds onto xa and
        # bisection from the far end took 28 more evaluations — ε(μ = 2.108, δ = 1e-5): 38 instead of 9)
        tiny = np.isfinite(step) & (np.abs(step) <= np.maximum(1e-3 * tol, 4.0 * np.spacing(np.abs(xa))))
        bad = ~tiny & ~((xn > la) & (xn < ha) & np.isfinite(xn))
        xn = np.where(bad, 0.5 * (la + ha), xn)
        width_ok = (ha - la) <= rtol * np.maximum(np.abs(la), np.abs(ha)) + atol
        need = tiny & ~width_ok
        if np.any(need):  # evaluate just past the root (on the far side) to close the bracket
            sub = active[need]
            probe = np.where(below[need], xn[need] + 0.5 * tol[need], xn[need] - 0.5 * tol[need])
            probe = np.clip(probe, la[need], ha[need])
            pf, _ = f(probe, sub)
            pb = sign * pf < 0.0
            lo[sub] = np.where(pb, np.maximum(lo[sub], probe), lo[sub])
            hi[sub] = np.where(pb, hi[sub], np.minimum(hi[sub], probe))
            la, ha = lo[active], hi[active]
            width_ok = (ha - la) <= rtol * np.maximum(np.abs(la), np.abs(ha)) + atol
        exact = fv == 0.0
        if np.any(exact):  # an exact root closes the bracket on it
            lo[active[exact]] = xa[exact]
            hi[active[exact]] = xa[exact]
        x[active] = xn
        active = active[~(width_ok | exact)]


def newton_point(f: Callable[[float], tuple[float, float]], lo: float, hi: float, x: float, *, increasing: bool,
                 rtol: float, atol: float, max_iter: int = 200) -> tuple[float, float]:
    """`bracket` with ``newton=True`` for one problem in plain Python floats (the same steps and stopping rule as its
    vectorised form, without NumPy's per-call cost: a scalar inverse such as ε(μ, δ) of one Gaussian in ~50 µs).
    ``f(x) -> (f, slope)``; returns the final ``(lo, hi)``, both evaluated ends (the invariant of `bracket`)."""
    sign = 1.0 if increasing else -1.0
    for _ in range(max_iter):
        fv, slope = f(x)
        below = sign * fv < 0.0  # the root is to the right of x
        if below:
            lo = x
        else:
            hi = x
        step = -fv / slope if slope != 0.0 and math.isfinite(slope) else math.nan
        xn = x + step
        tol = rtol * abs(x) + atol
        tiny = math.isfinite(step) and abs(step) <= max(1e-3 * tol, 4.0 * math.ulp(abs(x)))
        if not tiny and not (lo < xn < hi and math.isfinite(xn)):
            xn = 0.5 * (lo + hi)
        width_ok = hi - lo <= rtol * max(abs(lo), abs(hi)) + atol
        if tiny and not width_ok:  # evaluate just past the root (on the far side) to close the bracket
            probe = min(max(xn + 0.5 * tol if below else xn - 0.5 * tol, lo), hi)
            if sign * f(probe)[0] < 0.0:
                lo = max(lo, probe)
            else:
                hi = min(hi, probe)
            width_ok = hi - lo <= rtol * max(abs(lo), abs(hi)) + atol
        if fv == 0.0:  # an exact root closes the bracket on it
            return x, x
        x = xn
        if width_ok:
            break
    return lo, hi


def safe_root(f: Fn, lo: FloatArray, hi: FloatArray, *, increasing: bool, safe: Side, rtol: float = 1e-12,
              atol: float = 0.0, x0: FloatArray | None = None, newton: bool = False,
              max_iter: int = 200) -> FloatArray:
    """The end of the final bracket on the ``safe`` side (``"lo"``: s·f < 0 there; ``"hi"``: s·f >= 0), re-checked
    through ``f`` (an ``ArithmeticError`` if the forward map disagrees — never a silent unsafe value)."""
    lo_f, hi_f = bracket(f, lo, hi, increasing=increasing, rtol=rtol, atol=atol, x0=x0, newton=newton,
                         max_iter=max_iter)
    out = lo_f if safe == "lo" else hi_f
    idx = np.arange(out.size)
    val = f(out, idx)
    fv = np.asarray(val[0] if newton else val, dtype=np.float64)
    s = (1.0 if increasing else -1.0) * fv
    ok = (s < 0.0) if safe == "lo" else (s >= 0.0)
    if not np.all(ok):
        raise ArithmeticError("root finder: the returned end is not on the safe side of the target")
    return out


def scalar_root(f: Callable[[float], float], lo: float, hi: float, *, increasing: bool | None = None,
                safe: Side | None = None, rtol: float = 1e-13, atol: float = 0.0, log: bool = False,
                max_iter: int = 300) -> float | None:
    """A root of a scalar monotone ``f`` on ``[lo, hi]`` (in log x when ``log``); ``None`` when f(lo), f(hi) do not
    bracket one. ``safe`` picks the bracket end (default: the midpoint of the final bracket)."""
    tr = (math.log, math.exp) if log else (float, float)
    a, b = tr[0](lo), tr[0](hi)
    fa, fb = f(lo), f(hi)
    if fa == 0.0:
        return lo
    if fb == 0.0:
        return hi
    if (fa > 0.0) == (fb > 0.0) or not (math.isfinite(fa) or math.isfinite(fb)):
        return None
    inc = fa < 0.0 if increasing is None else increasing

    def g(x: FloatArray, _: NDArray[np.intp]) -> FloatArray:
        return np.array([f(tr[1](float(x[0])))])

    a_f, b_f = bracket(g, np.array([a]), np.array([b]), increasing=inc, rtol=0.0 if log else rtol,
                       atol=rtol if log else atol, max_iter=max_iter, f_lo=np.array([fa]), f_hi=np.array([fb]))
    end = {"lo": float(a_f[0]), "hi": float(b_f[0]), None: 0.5 * (float(a_f[0]) + float(b_f[0]))}[safe]
    return tr[1](end)


def bisect(pred: Callable[[float], bool], lo: float, hi: float, *, rtol: float = 0.0, atol: float = 0.0,
           max_iter: int = 200) -> tuple[float, float]:
    """Bisection on a monotone predicate with ``pred(lo)`` false and ``pred(hi)`` true (not re-checked): halves
    ``[lo, hi]`` until ``hi − lo <= rtol·max(|lo|, |hi|) + atol``, the midpoint is an end (adjacent doubles) or
    ``max_iter`` halvings. Returns the final ``(lo, hi)``; ``pred(hi)`` holds (the safe end when ``pred`` is "the
    target is met")."""
    for _ in range(max_iter):
        if hi - lo <= rtol * max(abs(lo), abs(hi)) + atol:
            break
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def integer_search(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest integer n in ``(lo, hi]`` with ``pred(n)``, for a monotone predicate with ``pred(lo)`` false and
    ``pred(hi)`` true (not re-checked): binary search, ⌈log2(hi − lo)⌉ evaluations."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class Search:
    """Outcome of `secant_search`: the last point ``x`` and slope estimate, the evaluated bracket ends ``lo``
    (s·f < 0) and ``hi`` (s·f >= 0) — ±inf while a side is unknown — and why it stopped: ``"done"`` (the acceptance
    test held at ``x``), ``"width"`` (hi − lo <= xtol), ``"limit"`` (a step was clamped to ``x_min``/``x_max`` and
    did not move: ``x`` is that limit) or ``"max_iter"``."""

    x: float
    slope: float
    lo: float
    hi: float
    status: Literal["done", "width", "limit", "max_iter"]


def secant_search(f: Callable[[float], float], x0: float, *, increasing: bool, safe: Side, slope: float,
                  x_min: float, x_max: float, xtol: float, done: Callable[[float], bool] | None = None,
                  overshoot: float = 0.0, step_cap: float = math.log(8.0), max_iter: int = 60) -> Search:
    """Root of a monotone scalar ``f`` (may be ±inf: far on that side) by safeguarded secant steps from ``x0``.

    ``slope`` is the first guess of f' (its sign that of ``increasing``); later secants replace it while they are
    steep enough (s·f' > 0.05). Steps are capped at ``step_cap``; an infinite f moves ``step_cap`` towards the root.
    ``overshoot`` pushes each step past the predicted root — by half of it into the ``safe`` side from an unsafe
    point, by a quarter out of it from a safe point — so the root gets bracketed from both sides; once bracketed, a
    step leaving the bracket, or the fifth step in a row that has not halved it, is replaced by bisection. Stops
    when ``done(f(x))`` (checked at finite f), when the bracket is at most ``xtol`` wide, or when a step clamped to
    ``[x_min, x_max]`` cannot move."""
    sign = 1.0 if increasing else -1.0
    to_safe = 1.0 if safe == "hi" else -1.0
    lo, hi = -math.inf, math.inf
    prev: tuple[float, float] | None = None
    x = x0
    halved_at, stale = math.inf, 0  # the bracket width last halved at; steps since that did not halve it
    for _ in range(max_iter):
        fx = f(x)
        below = sign * fx < 0.0  # the root is right of x
        if below:
            lo = max(lo, x)
        else:
            hi = min(hi, x)
        if math.isfinite(hi - lo):
            if hi - lo <= 0.5 * halved_at:
                halved_at, stale = hi - lo, 0
            else:
                stale += 1
        if math.isfinite(fx):
            if prev is not None and prev[0] != x and sign * (fx - prev[1]) / (x - prev[0]) > 0.05:
                slope = (fx - prev[1]) / (x - prev[0])
            prev = (x, fx)
            if done is not None and done(fx):
                return Search(x, slope, lo, hi, "done")
            is_safe = below == (safe == "lo")
            step = max(-step_cap, min(step_cap, -fx / slope)) + (-to_safe * overshoot / 4.0 if is_safe
                                                                  else to_safe * overshoot / 2.0)
        else:
            step = step_cap if below else -step_cap
        if hi - lo <= xtol:
            return Search(x, slope, lo, hi, "width")
        x_new = x + step
        # bisection when a step would leave the bracket, or after four steps that did not halve it (one-sided
        # secant steps creep where f is flat or jumps, e.g. an RDP ε falling to 0 at the Bretagnolle–Huber boundary)
        if math.isfinite(lo) and math.isfinite(hi) and (not lo < x_new < hi or stale >= 4):
            x_new = 0.5 * (lo + hi)
            stale = 0
        x_new = min(x_max, max(x_min, x_new))
        if x_new == x:
            return Search(x, slope, lo, hi, "limit")
        x = x_new
    return Search(x, slope, lo, hi, "max_iter")
