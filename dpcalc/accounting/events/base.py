"""The base of every event: a frozen dataclass with dp-accounting's class name, validated on construction.

An event describes what was released (a mechanism), on which records (a sampling scheme) and how often
(a composition); the neighbouring relation is not part of it — it is passed when the event is accounted
(`dpcalc.accounting.events.relation`). Field names are dp-accounting 0.6's (``dp_event.py``), so an event
reads and writes the nested form of its ``DpEvent.to_named_tuple()`` (`dpcalc.accounting.events.reader`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, TypeVar

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["EVENT_CLASSES", "Event", "register"]


class Event:
    """An event (subclasses are frozen dataclasses registered with `register`)."""

    CLASS_NAME: ClassVar[str] = "DpEvent"
    #: a shorter spelling the reader accepts for ``class_name`` (besides the class name itself)
    SHORT: ClassVar[str] = ""

    def children(self) -> Iterator[Event]:
        """The events this one contains (none for a mechanism)."""
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if isinstance(value, Event):
                yield value
            elif isinstance(value, tuple):
                yield from (x for x in value if isinstance(x, Event))

    # validation helpers for __post_init__: normalise a field in place (the dataclasses are frozen)
    def _name(self, field: str) -> str:
        return f"{self.CLASS_NAME}.{field}"

    def _real(self, field: str, lo: float = -math.inf, hi: float = math.inf, *, lo_open: bool = False,
              hi_open: bool = False) -> None:
        value = _number(self._name(field), getattr(self, field))
        v.check_range(self._name(field), value, lo, hi, lo_open=lo_open, hi_open=hi_open)
        object.__setattr__(self, field, value)

    def _integer(self, field: str, lo: int) -> None:
        value = _number(self._name(field), getattr(self, field))
        v.integer_at_least(self._name(field), value, lo)
        object.__setattr__(self, field, int(value))

    def _reals(self, field: str, lo: float = 0.0) -> None:
        value = getattr(self, field)
        if isinstance(value, str | bytes) or not isinstance(value, Sequence) or not value:
            raise DomainError(f"{self._name(field)} must be a non-empty list of numbers (got {v.brief(value)})")
        items = tuple(_number(f"{self._name(field)}[{i}]", x) for i, x in enumerate(value))
        v.vector(self._name(field), list(items), lo)
        object.__setattr__(self, field, items)

    def _event(self, field: str) -> None:
        if not isinstance(getattr(self, field), Event):
            raise DomainError(f"{self._name(field)} must be an event (got {v.brief(getattr(self, field))})")


def _number(name: str, value: Any) -> float:
    """A real number (bool and text refused), as a float."""
    if isinstance(value, bool | str | bytes) or not hasattr(value, "__float__"):
        raise DomainError(f"{name} must be a number (got {v.brief(value)})")
    x = float(value)
    if math.isnan(x):
        raise DomainError(f"{name} must be a number (got nan)")
    return x


E = TypeVar("E", bound=type[Event])

#: every event class by its dp-accounting class name
EVENT_CLASSES: dict[str, type[Event]] = {}


def register(cls: E) -> E:
    """Class decorator: make ``cls`` known to the reader under its ``CLASS_NAME`` (and ``SHORT``)."""
    EVENT_CLASSES[cls.CLASS_NAME] = cls
    return cls
