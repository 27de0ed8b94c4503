"""The one search of every calibration: the value of one monotone knob whose ε (as a function of the knob) meets a
target, on the safe side.

Always on the safe side: the returned value's ε, as the forward map evaluates it, is <= the target (for the PLD: its
certified ε_upper). Every accountant goes through `solve`, over a `Knob` (the unknown: its range, whether ε grows or
shrinks along it, integer or continuous, log or linear steps) and a `Forward` (ε as a function of the knob):

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

A forward map that cannot certify ε at a value raises (`dpcalc.errors.DpcalcError`); the search reads that value as
not meeting the target (a failure is never an ε of ∞ that would be reported as such) and keeps the reason
(`Forward.failures`). A target outside the knob's range raises `InfeasibleError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._roots import Search, Side, integer_search, secant_search
from dpcalc.errors import DomainError, DpcalcError, InfeasibleError

__all__ = ["Forward", "Knob", "solve"]


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
    #: the reasons the forward map could not certify ε at some values (filled by `solve`, each reason once)
    failures: list[str] = field(default_factory=list, compare=False, repr=False)

    def eps(self, value: float, accuracy: float, which: str = "upper") -> float:
        """ε at ``value`` (``which``: the guaranteed ``upper`` or the cheap ``estimate``); a value where the map fails
        gives +inf (not met: the safe reading), its reason kept in `failures`."""
        fn = self.upper if which == "upper" or self.estimate is None else self.estimate
        try:
            return fn(value, accuracy)
        except DpcalcError as exc:
            reason = f"{value:.6g}: {exc}"
            if reason not in self.failures:
                self.failures.append(reason)
            return math.inf


def _log_ratio(eps: float, log_target: float) -> float:
    """log ε − log target; −inf where ε = 0 (large δ), +inf where ε is infinite or not certified."""
    return math.log(eps) - log_target if eps > 0.0 else -math.inf


def solve(forward: Forward, target: float, knob: Knob, *, rtol: float, what: str) -> float:
    """The knob value whose ε (``forward.upper``) is <= ``target``, on the safe side and within ``rtol`` of the exact
    root (continuous knobs; integer knobs: the last integer that meets the target). ``what`` names the accountant in
    the `InfeasibleError` raised when the knob's range does not reach the target.

    Examples:
        >>> from dpcalc.accounting.search import Forward, Knob, solve
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
        coarse = forward.coarse
        found = search(lambda y: _log_ratio(forward.eps(to_value(y), coarse, "estimate"), log_target), x, slope,
                       forward.xtol_floor,
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
    # an exact accountant: overshoot by a sliver of the tolerance, so the bracket closes just past the root
    found = search(lambda y: _log_ratio(forward.eps(to_value(y), accuracy), log_target), x, slope, xtol, done,
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
            cache[n] = forward.eps(float(n), forward.accuracy) > target
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
