"""Calibration: the value of one monotone knob of a schedule (today the noise multiplier σ) whose ε under a chosen
accountant is <= a target.

Always on the safe side: the returned value's ε, as evaluated by the accountant, is <= the target (for ``pld``: its
certified ε_upper). Every accountant, the PLD among them, goes through one search, `solve`, over a
`Knob` (the unknown: its range, whether ε grows or shrinks along it, integer or continuous, log or linear
steps) and a `Forward` (ε of the accountant as a function of the knob):

* a continuous knob is searched in log (or linear) coordinates by the safeguarded secant of
  `dpcalc._roots.secant_search` on ``log ε − log target``: steps capped at a factor 8, bisection once the
  root is bracketed, an overshoot of the tolerance that brackets it from both sides. An exact accountant is
  searched until the bracket is ``rtol/2`` wide (the returned end is then within ``rtol`` of the exact root). An
  accountant whose ε comes with an accuracy of its own (the PLD's bracket width) is searched twice: first on a cheap
  coarse estimate to within its accuracy, then on the guaranteed ε at the accuracy the slope there calls for
  (``|d log ε / d log σ|·rtol/2``), accepting the first safe point whose linearised distance to the root is within
  ``rtol/2``;
* an integer knob is bracketed by doubling from its start and settled by binary search
  (`dpcalc._roots.integer_search`): the returned integer meets the target and its neighbour on the far side
  does not.

A target outside the knob's range raises `InfeasibleError` (e.g. below the floor
log(1/δ)/(α_max − 1) of the classic RDP conversion).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._roots import Search, Side, integer_search, secant_search
from dpcalc.accounting.accountants import Accountant, get
from dpcalc.errors import DomainError, InfeasibleError

__all__ = ["NOISE_MULTIPLIER", "SIGMA_MAX", "SIGMA_MIN", "Forward", "Knob", "sigma_for_eps", "solve"]

SIGMA_MIN, SIGMA_MAX = 1e-3, 1e6
_PLD_SIGMA_MIN = 0.05  # below it the PLD's lattices outgrow the memory cap before the search gets anywhere
_PLD_COARSE = 2e-2  # relative bracket width of the PLD's first, coarse phase


@short_repr
@dataclass(frozen=True)
class Knob:
    """The unknown of a calibration: a parameter of the schedule along which ε is monotone.

    ``lo``/``hi`` bound the search, ``eps_increases`` gives the direction (ε shrinks as σ grows, grows with the
    number of steps), ``integer`` asks for an integer answer, ``log`` for steps in log coordinates; the search starts
    at ``start`` with ``slope`` as its first guess of d log ε / d coordinate."""

    name: str
    lo: float
    hi: float
    eps_increases: bool
    integer: bool = False
    log: bool = True
    start: float = 1.0
    slope: float = -2.0


#: The noise multiplier σ: ε falls as σ grows; searched in log σ from σ = 1 (ε ∝ σ^-1 … σ^-2).
NOISE_MULTIPLIER = Knob("sigma", SIGMA_MIN, SIGMA_MAX, eps_increases=False)


@short_repr
@dataclass(frozen=True)
class Forward:
    """ε of an accountant as a function of the knob value.

    ``upper(value, accuracy)`` is the ε the guarantee rests on, resolved to the relative ``accuracy`` it is asked
    for (exact accountants ignore it, the PLD refines its lattice to it). ``estimate(value, accuracy)``, if given, is
    a cheap approximate ε used first at the ``coarse`` accuracy; ``accuracy`` is the finest accuracy ``upper`` is
    asked for, and ``xtol_floor`` the narrowest bracket (in the knob's coordinates) worth resolving."""

    upper: Callable[[float, float], float]
    estimate: Callable[[float, float], float] | None = None
    accuracy: float = 0.0
    coarse: float = 0.0
    xtol_floor: float = 0.0


def _log_ratio(eps: float, log_target: float) -> float:
    """log ε − log target; −inf where ε = 0 (large δ), +inf where ε is infinite."""
    return math.log(eps) - log_target if eps > 0.0 else -math.inf


def solve(forward: Forward, target: float, knob: Knob, *, rtol: float, what: str) -> float:
    """The knob value whose ε (``forward.upper``) is <= ``target``, on the safe side and within ``rtol`` of the exact
    root (continuous knobs; integer knobs: the last integer that meets the target). ``what`` names the accountant in
    the `InfeasibleError` raised when the knob's range does not reach the target.

    Examples:
        >>> from dpcalc.accounting.calibrate import solve
        >>> from dpcalc.accounting.calibrate import Forward, Knob
        >>> forward = Forward(upper=lambda sigma, accuracy: 2.0 / sigma)
        >>> solve(forward, 0.5, Knob('sigma', 0.1, 100.0, eps_increases=False), rtol=1e-6, what='eps = 2/sigma')
        4.00000000390625
    """
    if not isinstance(forward, Forward) or not isinstance(knob, Knob):
        raise DomainError(f"forward must be a calibrate.Forward and knob a calibrate.Knob (got "
                          f"{type(forward).__name__} and {type(knob).__name__})")
    target = float(v.scalar("target", v.positive("target", target)))
    rtol = float(v.scalar("rtol", v.check_range("rtol", rtol, 0.0, 0.1)))
    if knob.integer:
        return float(_solve_integer(forward, target, knob, what))
    to_x, to_value = (math.log, math.exp) if knob.log else (float, float)
    x_min, x_max = to_x(knob.lo), to_x(knob.hi)
    log_target = math.log(target)
    safe: Side = "lo" if knob.eps_increases else "hi"

    def search(f: Callable[[float], float], x0: float, slope: float, xtol: float, done: Callable[[float], bool] | None,
               overshoot: float) -> Search:
        # without an acceptance test the bracket must close to xtol: room for the bisections a jump in ε needs (an
        # RDP ε falls to 0 where the Bretagnolle–Huber test starts to hold: ~160 steps from log 8 to 5e-10)
        found = secant_search(f, x0, increasing=knob.eps_increases, safe=safe, slope=slope, x_min=x_min, x_max=x_max,
                              xtol=xtol, done=done, overshoot=overshoot, max_iter=60 if done is not None else 400)
        if found.status == "limit":
            _infeasible(target, knob, what, at_hi=found.x == x_max)
        return found

    x, slope = to_x(knob.start), knob.slope
    if forward.estimate is not None:  # first phase: the cheap estimate to within its own accuracy
        estimate = forward.estimate
        coarse = forward.coarse
        found = search(lambda y: _log_ratio(estimate(to_value(y), coarse), log_target), x, slope, forward.xtol_floor,
                       lambda f: abs(f) <= 0.25 * coarse, 0.0)
        x, slope = found.x, found.slope
        # the guaranteed ε only needs to resolve the knob to rtol: where ε is steep in it a bracket of relative width
        # |slope|·rtol/2 is enough, and much cheaper than the finest accuracy
        accuracy = max(forward.accuracy, min(coarse, abs(slope) * rtol / 2.0))
        x += (rtol / 2.0) * (1.0 if safe == "hi" else -1.0)

        def close(f: float, s: float = abs(slope)) -> bool:  # safe, and within rtol/2 of the root (linearised)
            return s * rtol / 2.0 >= -f >= 0.0

        done: Callable[[float], bool] | None = close
        xtol = max(rtol, forward.xtol_floor)
    else:
        accuracy, done, xtol = forward.accuracy, None, rtol / 2.0
    upper = forward.upper
    # an exact accountant: overshoot by a sliver of the tolerance, so the bracket closes just past the root
    found = search(lambda y: _log_ratio(upper(to_value(y), accuracy), log_target), x, slope, xtol, done,
                   max(xtol / 256.0, 1e-14) if done is None else rtol)
    end = found.hi if safe == "hi" else found.lo
    if not math.isfinite(end):  # pragma: no cover - the steps converge in practice
        raise InfeasibleError(f"{what}: calibration did not converge for eps = {target:g}")
    return to_value(end)


def _infeasible(target: float, knob: Knob, what: str, *, at_hi: bool) -> None:
    """The one-line InfeasibleError of a search that ran into an end of the knob's range."""
    # at the top of σ's range the target is below every ε: unreachable; at its bottom every σ meets it
    unreachable = at_hi != knob.eps_increases
    end = knob.hi if at_hi else knob.lo
    if unreachable:
        raise InfeasibleError(f"eps = {target:g} is unreachable under {what}: even {knob.name} = {end:g} gives a "
                              f"larger eps")
    raise InfeasibleError(f"eps = {target:g} is so large that {knob.name} {'above' if at_hi else 'below'} {end:g} "
                          f"meets it under {what}; dpcalc calibrates {knob.name} in [{knob.lo:g}, {knob.hi:g}]")


def _solve_integer(forward: Forward, target: float, knob: Knob, what: str) -> int:
    """Integer knob: bracket by doubling from ``start``, then binary search (`integer_search`)."""
    lo_n, hi_n = math.ceil(knob.lo), math.floor(knob.hi)
    cache: dict[int, bool] = {}

    def over(n: int) -> bool:  # ε(n) > target; monotone in n
        if n not in cache:
            cache[n] = forward.upper(float(n), forward.accuracy) > target
        return cache[n]

    # pred(n): False below the boundary, True above it (over when ε grows with n, met when it falls)
    def pred(n: int) -> bool:
        return over(n) if knob.eps_increases else not over(n)

    n = min(max(round(knob.start), lo_n), hi_n)
    if pred(n):  # the boundary lies below n: halve towards lo
        top = n
        while n > lo_n and pred(n):
            top, n = n, max(lo_n, n // 2)
        if pred(n):
            _infeasible(target, knob, what, at_hi=False)
        bottom = n
    else:
        bottom = n
        while n < hi_n and not pred(n):
            bottom, n = n, min(hi_n, max(2 * n, n + 1))
        if not pred(n):
            _infeasible(target, knob, what, at_hi=True)
        top = n
    first = integer_search(pred, bottom, top)  # the first n where pred holds
    return first - 1 if knob.eps_increases else first


# --- the accountants' forward maps ------------------------------------------------------------------------------

def _safe_eps(acc: Accountant, sigma: float, q: float, steps: float, delta: float, **opts: Any) -> float:
    """ε during the search, warnings silenced (the final σ is re-evaluated with warnings on)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return acc.eps(sigma, q, steps, delta, **opts)[0]
    except DomainError:
        return math.inf  # e.g. RDP not representable at a tiny σ: certainly above any target


def _pld_forward(delta: float, q: float, steps: int) -> Forward:
    """The PLD's certified bracket as a forward map of σ: the coarse phase uses the middle of brackets of relative
    width 2e-2, the fine one the certified ε_upper; each evaluation reuses the lattice spacing of the previous one at
    the same tolerance (a warm start), or scales that of the coarse phase (width ∝ h²)."""
    from dpcalc.accounting import pld

    last: dict[float, tuple[float, float]] = {}  # tolerance -> (log σ, lattice spacing) of the last evaluation
    seen: dict[tuple[float, float], pld.EpsBracket] = {}

    def bracket(sigma: float, tol: float) -> pld.EpsBracket:
        x = math.log(sigma)
        if (x, tol) not in seen:
            prev = last.get(tol)
            grid = prev[1] if prev is not None and abs(prev[0] - x) < 0.05 else None
            if prev is None and _PLD_COARSE in last and abs(last[_PLD_COARSE][0] - x) < 0.05:
                grid = last[_PLD_COARSE][1] * math.sqrt(tol / _PLD_COARSE)
            br = pld.epsilon([pld.Step(sigma, q, steps)], delta, rtol=tol, grid=grid or None)  # 0: exact, no lattice
            last[tol] = (x, br.grid)
            seen[(x, tol)] = br
        return seen[(x, tol)]

    def middle(sigma: float, tol: float) -> float:
        br = bracket(sigma, tol)
        return 0.5 * (br.eps_lower + br.eps_upper)

    return Forward(upper=lambda sigma, tol: bracket(sigma, tol).eps_upper, estimate=middle, accuracy=pld.RTOL,
                   coarse=max(_PLD_COARSE, pld.RTOL), xtol_floor=1e-4)


@v.named_shapes
def sigma_for_eps(eps: ArrayLike, delta: ArrayLike, q: ArrayLike, steps: ArrayLike, *, accountant: str = "rdp",
                  rtol: float | None = None, **opts: Any) -> float | v.FloatArray:
    """Smallest σ (to ``rtol``, safe side) with ε_accountant(σ, q, steps, δ) <= ``eps``.

    ``rtol`` defaults to 1e-9 (1e-3 for ``pld``, whose ε is itself a bracket: the returned σ has certified
    ε_upper <= ``eps`` and lies within ``rtol`` of the root of ε_upper, to first order). Broadcasts like the rest of
    the library: scalar inputs give a float, arrays an ndarray (one calibration per point of the broadcast of eps,
    delta, q and steps).

    Examples:
        >>> from dpcalc.accounting.calibrate import sigma_for_eps
        >>> sigma_for_eps(1.0, 1e-5, 0.01, 1000)
        1.5131221626087412
    """
    named = {"eps": v.positive("eps", eps), "delta": v.probability("delta", delta),
             "q": v.check_range("q", q, 0.0, 1.0, lo_open=True), "steps": v.integer_at_least("steps", steps, 1)}
    acc = get(accountant)
    tol = v.scalar("rtol", v.check_range("rtol", rtol, 1e-15, 0.1)) if rtol is not None else (1e-3 if acc.name == "pld"
                                                                                   else 1e-9)
    return v.elementwise(lambda eps, delta, q, steps: _sigma_for_eps(acc, eps, delta, q, steps, tol, opts), **named)


def _sigma_for_eps(acc: Accountant, target: float, d: float, qq: float, t: float, tol: float,
                   opts: dict[str, Any]) -> float:
    """The scalar kernel of `sigma_for_eps` (validated inputs)."""
    reason = acc.applicable(qq)
    if reason is not None:
        raise DomainError(reason)
    what = f"accountant {acc.name!r} at delta = {d:g}"
    if acc.name == "pld" and opts.get("backend", "dpcalc") == "dpcalc":
        knob = dataclasses.replace(NOISE_MULTIPLIER, lo=_PLD_SIGMA_MIN)
        return solve(_pld_forward(d, qq, int(t)), target, knob, rtol=max(tol, 1e-6), what=what)
    forward = Forward(upper=lambda sigma, _accuracy: _safe_eps(acc, sigma, qq, t, d, **opts))
    sigma = solve(forward, target, NOISE_MULTIPLIER, rtol=tol, what=what)
    acc.eps(sigma, qq, t, d, **opts)  # once more with warnings on (e.g. the CLT's EstimateWarning)
    return sigma
