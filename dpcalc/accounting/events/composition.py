"""Composition: events run one after another (adaptively), with parameters named as dp-accounting 0.6 names them.

The privacy maps of a composition are walks over its parts: Rényi curves add (Mironov 2017, Prop. 1), privacy losses
are composed by the PLD (the parts become ``(loss, count)`` components), pure ε's add, μ-GDP's μ add in squares
(Dong, Roth & Su 2022, Cor. 3.3), Gaussian noise multipliers combine as (Σ zᵢ⁻²)^{−1/2}.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob
from dpcalc.errors import DomainError

__all__ = ["Composed", "SelfComposed"]

_IN_A_SAMPLE = "a composition inside a sample must be Gaussian noise only"


def _gaussian_loss(event: Event, relation: Relation) -> Any:
    """The privacy loss of Gaussian noise composed into one Gaussian (what a sample wrapping a composition needs)."""
    from dpcalc.accounting import pld

    z = event.gaussian_noise()
    if z is None:
        raise event.not_accountable("privacy_loss", _IN_A_SAMPLE)
    return pld.gaussian(z, 1.0, relation)


@register
@dataclass(frozen=True)
class SelfComposed(Event):
    """``count`` adaptive runs of ``event``."""

    event: Event
    count: int
    CLASS_NAME = "SelfComposedDpEvent"
    SHORT = "self_composed"
    KNOBS: ClassVar[dict[str, Knob]] = {"count": knobs.COUNT}

    def __post_init__(self) -> None:
        self._event("event")
        self._integer("count", 0)

    def releases_unprotected(self) -> bool:
        return self.count > 0 and self.event.releases_unprotected()

    def releases_with_replacement(self) -> int:
        return self.count * self.event.releases_with_replacement()

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if self.count == 0:
            return Curve(np.zeros_like(orders), True)
        inner = self.event.rdp(orders, relation, tail)
        return Curve(inner.rdp * self.count, inner.exact, inner.slack * self.count)

    def components(self, relation: Relation, count: int = 1) -> list[tuple[Any, int]]:
        return self.event.components(relation, count * self.count) if count * self.count else []

    def privacy_loss(self, relation: Relation) -> Any:
        return _gaussian_loss(self, relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return self.count * self.event.pure_epsilon(relation) if self.count else 0.0

    def gaussian_mu(self, relation: Relation) -> float | None:
        mu = self.event.gaussian_mu(relation)
        return None if mu is None else mu * math.sqrt(self.count)

    def gaussian_noise(self) -> float | None:
        z = self.event.gaussian_noise()
        return None if z is None else (math.inf if self.count == 0 else z / math.sqrt(self.count))

    def finite_count(self) -> tuple[Event, int]:
        inner, n = self.event.finite_count()
        return inner, n * self.count

    def poisson_gaussian(self, relation: Relation) -> list[tuple[float, float, int]] | None:
        steps = self.event.poisson_gaussian(relation)
        return None if steps is None else [(z, q, n * self.count) for z, q, n in steps if n * self.count]


@register
@dataclass(frozen=True)
class Composed(Event):
    """The adaptive sequence ``events`` (any mix of events)."""

    events: tuple[Event, ...]
    CLASS_NAME = "ComposedDpEvent"
    SHORT = "composed"

    def __post_init__(self) -> None:
        items = self.events
        if isinstance(items, str | bytes) or not isinstance(items, Sequence):
            raise DomainError(f"{self.CLASS_NAME}.events must be a list of events (got {v.brief(items)})")
        for i, e in enumerate(items):
            if not isinstance(e, Event):
                raise DomainError(f"{self.CLASS_NAME}.events[{i}] must be an event (got {v.brief(e)})")
        object.__setattr__(self, "events", tuple(items))

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        parts = [e.rdp(orders, relation, tail) for e in self.events]
        total = np.sum([p.rdp for p in parts], axis=0) if parts else np.zeros_like(orders)
        return Curve(np.asarray(total), all(p.exact for p in parts), math.fsum(p.slack for p in parts))

    def components(self, relation: Relation, count: int = 1) -> list[tuple[Any, int]]:
        return [x for e in self.events for x in e.components(relation, count)]

    def privacy_loss(self, relation: Relation) -> Any:
        return _gaussian_loss(self, relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return math.fsum(e.pure_epsilon(relation) for e in self.events)

    def gaussian_mu(self, relation: Relation) -> float | None:
        mus = [e.gaussian_mu(relation) for e in self.events]
        if any(x is None for x in mus):
            return None
        return math.sqrt(math.fsum(x * x for x in mus if x is not None))

    def gaussian_noise(self) -> float | None:
        zs = [e.gaussian_noise() for e in self.events]
        if not zs or any(z is None for z in zs):
            return None
        total = sum(1.0 / (z * z) for z in zs if z is not None)
        return math.inf if total == 0.0 else 1.0 / math.sqrt(total)

    def poisson_gaussian(self, relation: Relation) -> list[tuple[float, float, int]] | None:
        parts = [e.poisson_gaussian(relation) for e in self.events]
        if any(p is None for p in parts):
            return None
        return [s for p in parts if p is not None for s in p]
