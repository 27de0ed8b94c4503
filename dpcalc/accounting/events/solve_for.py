"""Calibrate any one parameter of any event for a target (ε, δ): the one search of
`dpcalc.accounting.calibrate.solve` over a `Knob` chosen by the field.

The parameter is named by its path in the event: ``noise_multiplier``, ``event.sampling_probability``,
``event.event.noise_multiplier``, ``count``, ``events[1].count``, ``sample_size``. Noise parameters (noise
multiplier, standard deviation, σ, randomized response's p) lower ε as they grow, the discrete Laplace's parameter,
counts, rates and sample sizes raise it, the source dataset size lowers it. The answer is always on the safe side
(its ε, as the accountant evaluates it — the PLD's certified ε_upper — is <= the target; an integer is the last one
that meets it) and is re-evaluated once for the report.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from dataclasses import dataclass
from typing import Any

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.accounting.calibrate import Forward, Knob, solve
from dpcalc.accounting.events import mechanisms as m
from dpcalc.accounting.events.account import EventResult, account
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.reader import as_event
from dpcalc.accounting.events.relation import relation
from dpcalc.errors import DomainError

__all__ = ["Calibration", "calibrate", "get_field", "with_field"]


@short_repr
@dataclass(frozen=True)
class Calibration:
    """The calibrated value of ``field``, the event with it, and the accountant's result there (achieved ε, and the
    PLD's bracket)."""

    field: str
    value: float
    event: Event
    result: EventResult


_STEP = re.compile(r"([A-Za-z_]+)(?:\[(\d+)\])?$")


def _parse(path: str) -> list[tuple[str, int | None]]:
    if not isinstance(path, str) or not path.strip():
        raise DomainError(f"solve-for must be a field path such as event.noise_multiplier (got {v.brief(path)})")
    out = []
    for part in path.strip().split("."):
        match = _STEP.match(part)
        if match is None:
            raise DomainError(f"solve-for: {part!r} is not a field name (path {path!r})")
        out.append((match.group(1), int(match.group(2)) if match.group(2) is not None else None))
    return out


def _child(event: Event, name: str, index: int | None, path: str) -> Any:
    names = [f.name for f in dataclasses.fields(event)]  # type: ignore[arg-type]
    if name not in names:
        raise DomainError(f"solve-for {path!r}: {event.CLASS_NAME} has no field {name!r} (its fields: "
                          f"{', '.join(names) or 'none'})")
    value = getattr(event, name)
    if index is not None:
        if not isinstance(value, tuple) or not 0 <= index < len(value):
            raise DomainError(f"solve-for {path!r}: {event.CLASS_NAME}.{name} has no item {index}")
        value = value[index]
    return value


def get_field(event: Event, path: str) -> Any:
    """The value at ``path`` in ``event``."""
    value: Any = event
    for name, index in _parse(path):
        if not isinstance(value, Event):
            raise DomainError(f"solve-for {path!r}: {name!r} is below a number, not an event")
        value = _child(value, name, index, path)
    return value


def with_field(event: Event, path: str, new: Any) -> Event:
    """A copy of ``event`` with the value at ``path`` replaced (events are immutable)."""
    steps = _parse(path)

    def go(ev: Event, i: int) -> Event:
        name, index = steps[i]
        old = _child(ev, name, index, path)
        value = new if i == len(steps) - 1 else go(old, i + 1) if isinstance(old, Event) else None
        if value is None:
            raise DomainError(f"solve-for {path!r}: {name!r} is a number, not an event")
        if index is not None:
            items = list(getattr(ev, name))
            items[index] = value
            value = tuple(items)
        return dataclasses.replace(ev, **{name: value})  # type: ignore[type-var]

    return go(event, 0)


def _knob(owner: Event, name: str, start: float) -> Knob:
    """The search range and direction of a field (module docstring)."""
    if name in ("noise_multiplier", "standard_deviation", "sigma"):
        return Knob(name, 1e-3, 1e6, eps_increases=False, start=start, slope=-2.0)
    if name == "noise_parameter" and isinstance(owner, m.RandomizedResponse):
        return Knob(name, 1e-12, 1.0, eps_increases=False, start=start, slope=-1.0)
    if name == "noise_parameter":  # discrete Laplace: e^{−a|x|}, ε grows with a
        return Knob(name, 1e-9, 1e3, eps_increases=True, start=start, slope=1.0)
    if name in ("count", "step_counts"):
        return Knob(name, 1, 1e9, eps_increases=True, integer=True, start=start, slope=0.5)
    if name == "sampling_probability":
        return Knob(name, 1e-12, 1.0, eps_increases=True, start=start, slope=1.0)
    if name == "sample_size":
        top = float(getattr(owner, "source_dataset_size", 1e12))
        return Knob(name, 1, top, eps_increases=True, integer=True, start=start, slope=1.0)
    if name == "source_dataset_size":
        return Knob(name, float(getattr(owner, "sample_size", 1)), 1e15, eps_increases=False, integer=True,
                    start=start, slope=-1.0)
    if name in ("epsilon", "rho", "mean"):
        return Knob(name, 1e-12 if name != "mean" else 1.0, 1e6, eps_increases=True, start=start, slope=1.0)
    raise DomainError(f"solve-for: {owner.CLASS_NAME}.{name} cannot be calibrated (ε is not monotone in it or it "
                      "is not a number); calibrate a noise parameter, a count, a sampling probability or a size")


def calibrate(event: Any, field: str, *, eps: float, delta: float, accountant: str = "rdp",
              neighbours: Any = "add_remove", rtol: float | None = None) -> Calibration:
    """The value of ``field`` (a path in ``event``) whose ε at ``delta`` under ``accountant`` is <= ``eps``, on the
    safe side; the other fields keep their values."""
    ev = as_event(event)
    rel = relation(neighbours)
    target = v.scalar("eps", v.positive("eps", eps))
    d = v.scalar("delta", v.probability("delta", delta))
    steps = _parse(field)
    owner_path = ".".join(f"{n}[{i}]" if i is not None else n for n, i in steps[:-1])
    owner = get_field(ev, owner_path) if owner_path else ev
    if not isinstance(owner, Event):  # pragma: no cover - get_field refuses paths through numbers
        raise DomainError(f"solve-for {field!r}: not a field of an event")
    name, index = steps[-1]
    current = get_field(ev, field)
    if isinstance(current, tuple):
        raise DomainError(f"solve-for {field!r}: a list; name one item, e.g. {field}[0]")
    if not isinstance(current, int | float):
        raise DomainError(f"solve-for {field!r}: {owner.CLASS_NAME}.{name} cannot be calibrated (it is not a number)")
    knob = _knob(owner, name, float(current))
    if knob.integer and name == "step_counts" and index is None and isinstance(owner.step_counts, tuple):  # type: ignore[attr-defined]
        raise DomainError(f"solve-for {field!r}: a list; name one item, e.g. {field}[0]")
    tol = rtol if rtol is not None else (1e-3 if accountant == "pld" else 1e-9)

    def at(value: float) -> Event:
        return with_field(ev, field, round(value) if knob.integer else value)

    def upper(value: float, _accuracy: float) -> float:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return account(at(value), delta=d, accountant=accountant, neighbours=rel).eps
        except DomainError:
            return math.inf  # not representable (e.g. RDP overflow at a tiny noise): above any target

    what = f"accountant {accountant!r} at delta = {d:g}"
    value = solve(Forward(upper=upper), target, knob, rtol=max(tol, 1e-12), what=what)
    final = at(value)
    result = account(final, delta=d, accountant=accountant, neighbours=rel)
    return Calibration(field, float(get_field(final, field)), final, result)
