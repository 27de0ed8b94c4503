"""What the catalog's closed forms of the events share: δ(ε) of an event by the PLD accountant's certified upper end
(the path ``dpcalc account --event`` takes), and a validated size. Each mechanism module defines its own forms."""

from __future__ import annotations

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation

__all__ = ["pld_delta", "size"]


def pld_delta(event: Event, relation: Relation, eps: float, name: str = "eps") -> float:
    """δ_upper(ε) of ``event`` under ``relation`` by the PLD accountant (``name``: the ε argument's name)."""
    from dpcalc.accounting import pld

    e = v.scalar(name, v.nonnegative(name, eps))
    return float(pld.delta_composed(event.components(relation), e).delta_upper)


def size(name: str, value: float) -> int:
    """A count or size: an integer >= 1."""
    return int(v.scalar(name, v.integer_at_least(name, value, 1)))
