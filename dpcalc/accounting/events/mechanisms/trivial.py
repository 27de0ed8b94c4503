"""The trivial events of dp-accounting: nothing released (ε = 0), a release without a guarantee (ε = ∞), and the
placeholder for a mechanism no accountant knows (read, never accounted)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation

__all__ = ["NoOp", "NonPrivate", "Unsupported"]


@register
@dataclass(frozen=True)
class NoOp(Event):
    """Nothing released (ε = 0)."""

    CLASS_NAME = "NoOpDpEvent"
    SHORT = "noop"

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(np.zeros_like(orders), True)

    def components(self, relation: Relation, count: int = 1) -> list[tuple[Any, int]]:
        return []

    def pure_epsilon(self, relation: Relation) -> float:
        return 0.0

    def gaussian_mu(self, relation: Relation) -> float:
        return 0.0


@register
@dataclass(frozen=True)
class NonPrivate(Event):
    """A release without a privacy guarantee (ε = ∞ under every accountant, said as such)."""

    CLASS_NAME = "NonPrivateDpEvent"
    SHORT = "non_private"

    def releases_unprotected(self) -> bool:
        return True

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(np.full_like(orders, np.inf), True)

    def pure_epsilon(self, relation: Relation) -> float:
        return math.inf


@register
@dataclass(frozen=True)
class Unsupported(Event):
    """dp-accounting's placeholder for a mechanism no accountant knows: read, never accounted."""

    CLASS_NAME = "UnsupportedDpEvent"
    SHORT = "unsupported"
    WITHOUT: ClassVar[dict[str, str]] = {m: "it is dp-accounting's placeholder for a mechanism without accounting"
                                         for m in ("rdp", "privacy_loss")}

    def children(self) -> Iterator[Event]:
        return iter(())
