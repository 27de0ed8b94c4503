"""Calibrate any knob of any event for a target (ε, δ): the one search of `dpcalc.accounting.search.solve` over the
field's `dpcalc.accounting.search.Knob` (declared by the event class) and the accountant's ε as the forward map.

The field is named by its path in the event: ``noise_multiplier``, ``epochs`` (a training run's terms),
``event.sampling_probability``, ``event.event.noise_multiplier``, ``count``, ``events[1].count``; ``-`` and ``_``
alike. The answer is on the safe side — its ε, as the accountant evaluates it (the PLD's certified ε_upper), is <= the
target; an integer is the last one that meets it — and tight: one step past it (the next integer, or the value moved
by the relative tolerance) does not meet it. A value where the accountant cannot certify ε is read as not meeting the
target, never as ε = ∞, and the reason is kept in the result's notes.

Tolerances: the PLD's bracket is resolved to ``options.rtol`` (1e-3) and the knob to ``rtol`` (1e-3 under the PLD,
whose ε is itself known to about that; 1e-9 under the exact and RDP accountants); a PLD search reuses each
evaluation's lattice at the next nearby value (a warm start) and narrows first on a coarse bracket.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpcalc import _validate as v
from dpcalc.accounting.accountants.base import Accountant, Options, options_of
from dpcalc.accounting.accountants.base import get as registry_get
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.reader import as_event
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.events.relation import relation as relation_of
from dpcalc.accounting.result import PrivacyResult
from dpcalc.accounting.search import Forward, Knob, solve
from dpcalc.errors import DomainError, DpcalcError

__all__ = ["Calibration", "calibrate", "get_field", "owner_of", "probe", "with_field"]

#: below this noise the PLD's lattices outgrow the memory cap before the search gets anywhere
_PLD_NOISE_MIN = 0.05
#: relative bracket width of the PLD's first, coarse phase
_PLD_COARSE = 2e-2
_STEP = re.compile(r"([A-Za-z_][\w-]*)(?:\[(\d+)\])?$")


@dataclass(frozen=True)
class Calibration:
    """The calibrated ``value`` of ``field`` (the knob), the accountant's ``result`` there (ε <= ``target``), the
    ``event`` with it, and one step past it (``next_value``, ``next_result``; None where the knob is at its end)."""

    field: str
    value: float
    target: float
    result: PrivacyResult
    event: Event
    next_value: float | None = None
    next_result: PrivacyResult | None = None
    rtol: float = 0.0
    notes: tuple[str, ...] = ()

    def __float__(self) -> float:
        return float(self.value)

    def to_dict(self) -> dict[str, Any]:
        """The row ``dpcalc calibrate --json`` prints."""
        result = self.result.to_dict()
        nxt = self.next_result
        head = {k: x for k, x in result.items() if k not in ("delta", "accountant") and k in self.result.inputs}
        row = {**head, "solve_for": self.field, "target": self.target, "delta": result["delta"],
               "accountant": result["accountant"]}
        row.update({k: x for k, x in result.items() if k not in row and k not in ("eps", "eps_lower", "eps_upper",
                                                                                    "kind", "met", "order", "notes")})
        row.update({"value": self.value, "eps": result["eps"], "eps_lower": result["eps_lower"],
                    "eps_upper": result["eps_upper"], "next_value": self.next_value,
                    "next_eps": None if nxt is None else nxt.value, "kind": result["kind"], "met": result["met"],
                    "order": result["order"], "rtol": self.rtol,
                    "notes": list(dict.fromkeys([*self.result.notes, *self.notes]))})
        return row

    def __repr__(self) -> str:
        # on the safe side, as the CLI shows them: ε rounded up; the value rounded toward more privacy (more noise
        # up; more steps, a larger rate or batch down)
        from dpcalc._rounding import ROUND_DOWN, ROUND_UP, format_number

        owner, name = owner_of(self.event, self.field)
        way = ROUND_DOWN if owner.knob(name).eps_increases else ROUND_UP
        value = format_number(float(self.value), ".6g" + way) if isinstance(self.value, float) else str(self.value)
        eps = format_number(float(self.result.value), ".6g" + ROUND_UP)
        return (f"Calibration({self.field} = {value} ({self.result.accountant}: ε = {eps} <= {self.target:g} at "
                f"δ = {self.result.delta:g}))")

    def _repr_html_(self) -> str:
        return f"<div class='dpcalc-calibration'>{html.escape(repr(self))}</div>"


# ---- field paths ------------------------------------------------------------------------------------------------

def _parse(path: str) -> list[tuple[str, int | None]]:
    if not isinstance(path, str) or not path.strip():
        raise DomainError(f"field must be a path such as noise_multiplier or event.noise_multiplier (got "
                          f"{v.brief(path)})")
    out = []
    for part in path.strip().split("."):
        match = _STEP.match(part)
        if match is None:
            raise DomainError(f"field: {part!r} is not a field name (path {path!r})")
        out.append((match.group(1).replace("-", "_"), int(match.group(2)) if match.group(2) is not None else None))
    return out


def _child(event: Event, name: str, index: int | None, path: str) -> Any:
    names = [f.name for f in dataclasses.fields(event)]  # type: ignore[arg-type]
    alias = {"sampling_rate": "q"}.get(name, name)
    if alias not in names:
        raise DomainError(f"field {path!r}: {event.CLASS_NAME} has no field {name!r} (its fields: "
                          f"{', '.join(names) or 'none'})")
    value = getattr(event, alias)
    if index is not None:
        if not isinstance(value, tuple) or not 0 <= index < len(value):
            raise DomainError(f"field {path!r}: {event.CLASS_NAME}.{name} has no item {index}")
        value = value[index]
    return value


def get_field(event: Event, field: str) -> Any:
    """The value at ``field`` in ``event``.

    Examples:
        >>> from dpcalc.accounting.calibrate import get_field
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> get_field(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), 'event.sampling_probability')
        0.01
    """
    event = as_event(event)
    value: Any = event
    for name, index in _parse(field):
        if not isinstance(value, Event):
            raise DomainError(f"field {field!r}: {name!r} is below a number, not an event")
        value = _child(value, name, index, field)
    return value


def with_field(event: Event, field: str, new: Any) -> Event:
    """A copy of ``event`` with the value at ``field`` replaced (events are immutable).

    Examples:
        >>> from dpcalc.accounting.calibrate import with_field
        >>> from dpcalc.accounting.events import Gaussian, SelfComposed
        >>> with_field(SelfComposed(Gaussian(1.0), 1000), 'count', 500)
        SelfComposed(event=Gaussian(noise_multiplier=1.0), count=500)
    """
    event = as_event(event)
    steps = _parse(field)

    def go(ev: Event, i: int) -> Event:
        name, index = steps[i]
        old = _child(ev, name, index, field)
        if i == len(steps) - 1:
            value = new
        elif isinstance(old, Event):
            value = go(old, i + 1)
        else:
            raise DomainError(f"field {field!r}: {name!r} is a number, not an event")
        if index is not None:
            items = list(getattr(ev, name))
            items[index] = value
            value = tuple(items)
        return ev.with_field(name, value)

    return go(event, 0)


def owner_of(event: Event, field: str) -> tuple[Event, str]:
    """The event that holds the field at ``field``, and the field's name.

    Examples:
        >>> from dpcalc.accounting.calibrate import owner_of
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> owner_of(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), 'event.event.noise_multiplier')
        (Gaussian(noise_multiplier=1.0), 'noise_multiplier')
    """
    event = as_event(event)
    steps = _parse(field)
    owner: Any = event
    for name, index in steps[:-1]:
        owner = _child(owner, name, index, field)
        if not isinstance(owner, Event):
            raise DomainError(f"field {field!r}: {name!r} is a number, not an event")
    return owner, steps[-1][0]


def probe(event: Event, field: str) -> Event:
    """``event`` with the field at ``field`` set to a typical value of its knob where it is unknown (None): what an
    accountant's applicability is judged on before the search.

    Examples:
        >>> from dpcalc.accounting.calibrate import probe
        >>> from dpcalc.accounting.events import TrainingRun
        >>> probe(TrainingRun(None, q=0.01, steps=1000), 'noise_multiplier').noise_multiplier
        1.0
    """
    event = as_event(event)
    if get_field(event, field) is not None:
        return event
    owner, name = owner_of(event, field)
    knob = owner.knob(name)
    value = min(max(knob.start if not knob.integer else 100.0, knob.lo), knob.hi)
    return with_field(event, field, round(value) if knob.integer else value)


# ---- the forward maps ---------------------------------------------------------------------------------------------

def _forward(acc: Accountant, at: Callable[[float], Event], delta: float, relation: Relation, options: Options,
             continuous: bool) -> tuple[Forward, Callable[[float], PrivacyResult]]:
    """ε of the accountant as a function of the knob (`Forward`), and the result at a value (cached)."""
    seen: dict[tuple[float, float], PrivacyResult] = {}
    last: dict[float, tuple[float, float]] = {}  # tolerance -> (value, lattice spacing) of the last PLD evaluation

    def evaluate(value: float, tol: float) -> PrivacyResult:
        key = (value, tol)
        if key not in seen:
            opts = options
            if acc.name == "pld":
                prev = last.get(tol)
                grid = None
                if prev is not None and abs(math.log(prev[0] / value)) < 0.05 and prev[1] > 0.0:
                    grid = prev[1]
                elif _PLD_COARSE in last and abs(math.log(last[_PLD_COARSE][0] / value)) < 0.05 \
                        and last[_PLD_COARSE][1] > 0.0:
                    grid = last[_PLD_COARSE][1] * math.sqrt(tol / _PLD_COARSE)
                opts = dataclasses.replace(options, rtol=tol, grid=grid)
            with warnings.catch_warnings():  # the search's points: the answer is re-evaluated with warnings on
                warnings.simplefilter("ignore")
                res = acc.epsilon(at(value), delta, relation, opts)
            if acc.name == "pld":
                last[tol] = (value, float(res.details.get("grid") or 0.0))
            seen[key] = res
        return seen[key]

    def upper(value: float, tol: float) -> float:
        return float(evaluate(value, tol))

    if acc.name != "pld" or not continuous:
        return Forward(upper=upper, accuracy=options.rtol), lambda x: evaluate(x, options.rtol)

    def middle(value: float, tol: float) -> float:
        res = evaluate(value, tol)
        return 0.5 * (res.lower + res.upper) if res.lower is not None and res.upper is not None else res.value

    forward = Forward(upper=upper, estimate=middle, accuracy=options.rtol, coarse=max(_PLD_COARSE, options.rtol),
                      xtol_floor=1e-4)
    return forward, lambda x: evaluate(x, options.rtol)


def calibrate(event: Event, field: str, *, eps: float, delta: float, accountant: Accountant,
              relation: Relation = "add_remove", options: Options | None = None,
              rtol: float | None = None) -> Calibration:
    """The value of ``field`` (a path in ``event``) whose ε at ``delta`` under ``accountant`` is <= ``eps``, safe and
    tight (module docstring); the other fields keep their values. ``rtol``: the knob's relative tolerance (default
    1e-3 under the PLD, 1e-9 otherwise).

    Examples:
        >>> from dpcalc.accounting import accountants
        >>> from dpcalc.accounting.calibrate import calibrate
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> run = SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000)
        >>> c = calibrate(run, 'event.event.noise_multiplier', eps=2.0, delta=1e-5, accountant=accountants.get('rdp'))
        >>> round(c.value, 6), c.result.value <= 2.0
        (1.02229, True)
    """
    event, acc = as_event(event), registry_get(accountant)
    accountant = acc
    relation = relation_of(relation, "relation")
    opts = options_of(options)
    target = float(v.scalar("eps", v.positive("eps", eps)))
    d = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))
    owner, name = owner_of(event, field)
    knob: Knob = owner.knob(name)
    current = get_field(event, field)
    if isinstance(current, tuple):
        raise DomainError(f"field {field!r}: a list; name one item, e.g. {field}[0]")
    if current is not None and not isinstance(current, int | float):
        raise DomainError(f"field {field!r}: {owner.CLASS_NAME}.{name} cannot be calibrated (it is not a number)")
    if current is not None and math.isfinite(float(current)) and knob.lo <= float(current) <= knob.hi:
        knob = dataclasses.replace(knob, start=float(current))
    elif knob.integer:
        knob = dataclasses.replace(knob, start=min(max(knob.lo, 100.0), knob.hi))
    if accountant.name == "pld" and not knob.integer and not knob.eps_increases:
        knob = dataclasses.replace(knob, lo=max(knob.lo, _PLD_NOISE_MIN), start=max(knob.start, _PLD_NOISE_MIN))
    tol = float(v.scalar("rtol", v.check_range("rtol", rtol, 1e-15, 0.1))) if rtol is not None else (
        1e-3 if accountant.name == "pld" else 1e-9)

    def at(value: float) -> Event:
        return with_field(event, field, round(value) if knob.integer else value)

    why = accountant.applies(probe(event, field), relation)  # an event the accountant cannot take: said at once
    if why is not None:
        from dpcalc.accounting.events.base import NotAccountable

        raise NotAccountable(why)

    forward, result_at = _forward(accountant, at, d, relation, opts, not knob.integer)
    what = f"accountant {accountant.name!r} at delta = {d:g}"
    top: float | None = None
    if knob.integer and knob.hi < 1e9:  # a knob bounded by the run: if its largest value meets the target, it is it
        end = knob.hi if knob.eps_increases else knob.lo
        if forward.eps(end, forward.accuracy) <= target:
            top = end
    value = top if top is not None else solve(forward, target, knob, rtol=max(tol, 1e-12), what=what)
    if knob.integer:
        value = round(value)
    # the answer once more with warnings on (the search's points were silent); the PLD's is the cached one
    result = result_at(value) if accountant.name == "pld" else accountant.epsilon(at(value), d, relation, opts)
    step = (1.0 if knob.integer else tol * abs(value)) * (1.0 if knob.eps_increases else -1.0)
    after = value + step
    next_value: float | None = None
    next_result: PrivacyResult | None = None
    notes: list[str] = []
    if top is None and knob.lo <= after <= knob.hi:
        next_value = round(after) if knob.integer else after
        try:
            next_result = result_at(next_value)
        except DpcalcError as exc:
            notes.append(f"at {field} = {next_value:.6g} the accountant cannot certify epsilon: {exc}")
    notes += _failure_notes([f for f in forward.failures if not notes or f not in notes[0]])
    return Calibration(field, value, target, result, at(value), next_value, next_result, tol, tuple(notes))


def _failure_notes(failures: list[str]) -> list[str]:
    """The search's failures (``"value: reason"``), one note per kind of reason: the values listed once, the first
    reason given (ten probes refused for memory were ten near-identical sentences)."""
    import re

    groups: dict[str, tuple[list[str], str]] = {}
    for failure in failures:
        value, _, reason = failure.partition(": ")
        kind = re.sub(r"[-+]?\d[\d.,]*(e[-+]?\d+)?", "#", reason)
        groups.setdefault(kind, ([], reason))[0].append(value)
    return [f"not certified at {', '.join(sorted(values, key=float))}: {reason}" if len(values) > 1
            else f"not certified at {values[0]}: {reason}" for values, reason in groups.values()]
