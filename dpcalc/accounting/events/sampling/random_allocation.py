"""Random allocation: each record takes part in exactly ``num_selected`` of ``num_steps`` steps, chosen uniformly at
random (dp-accounting's ``RandomAllocationDpEvent``; balls-in-bins sampling is one step per epoch). Gaussian noise
inside; accounted under add/remove or replace-special (a replaced record keeps its steps: not bounded here).

* RDP: the larger of the exact remove-direction curve (integer orders; chords between them) and the add-direction
  bound of k allocations of one step out of ⌊t/k⌋ (Feldman & Shenfeld 2025, Thm. 3 and Cor. 6.2;
  `dpcalc.accounting.samplers.allocation_rdp`): an upper bound;
* PLD: the certified upper pair of the same decomposition (`dpcalc.accounting.samplers.allocation_pld`).

Both are upper bounds of the allocation's privacy loss, so the accountants label their answers ``upper`` or
``bracket`` of the bound (the PLD's lower end is the bound's, not the mechanism's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob

__all__ = ["RandomAllocation"]

_REPLACE_ONE = "a replaced record keeps its steps under random allocation, a pair not bounded here (use add-remove)"
_GAUSSIAN = "random allocation is accounted for Gaussian noise inside (its bounds are for the Gaussian mechanism)"


@register
@dataclass(frozen=True)
class RandomAllocation(Event):
    """``event`` runs in each of ``num_steps`` steps; each record takes part in exactly ``num_selected`` of them,
    chosen uniformly at random."""

    event: Event
    num_selected: int
    num_steps: int
    CLASS_NAME = "RandomAllocationDpEvent"
    SHORT = "random_allocation"
    KNOBS: ClassVar[dict[str, Knob]] = {
        "num_steps": Knob("num_steps", 1, 1e9, eps_increases=False, integer=True, slope=0.5),
    }

    def __post_init__(self) -> None:
        self._event("event")
        self._integer("num_steps", 1, 1e9)
        self._integer("num_selected", 1, float(self.num_steps))

    def sampling_schemes(self) -> list[str]:
        return [f"random allocation {self.num_selected} of {self.num_steps}", *self.event.sampling_schemes()]

    def _noise(self, method: str, relation: Relation) -> float:
        if relation == "replace_one":
            raise self.not_accountable(method, _REPLACE_ONE)
        z = self.event.gaussian_noise()
        if z is None:
            raise self.not_accountable(method, _GAUSSIAN)
        return z

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        from dpcalc.accounting.samplers.allocation_rdp import MAX_ORDER, rdp_allocation

        z = self._noise("rdp", relation)
        a = np.asarray(orders, dtype=np.float64)
        if math.isinf(z):
            return Curve(np.zeros_like(a), True)
        inside = a <= MAX_ORDER
        out = np.full_like(a, math.inf)
        if inside.any():
            remove, add = rdp_allocation(a[inside], z, self.num_selected, self.num_steps, 1, relation)
            out[inside] = np.maximum(remove, add)
        return Curve(out, False)

    def components(self, relation: Relation, count: int = 1) -> list[tuple[Any, int]]:
        from dpcalc.accounting.samplers.allocation_pld import privacy_loss_components

        z = self._noise("privacy_loss", relation)
        return [(loss, n * count) for loss, n in
                privacy_loss_components(z, self.num_selected, self.num_steps, 1, relation)] if count else []

    def privacy_loss(self, relation: Relation) -> Any:
        (loss, n), = self.components(relation)
        if n != 1:
            raise self.not_accountable("privacy_loss", f"{self.num_selected} of {self.num_steps} is {n} rounds, "
                                                       "not one release")
        return loss

    def pure_epsilon(self, relation: Relation) -> float:
        return 0.0 if self.event.pure_epsilon(relation) == 0.0 else math.inf

    def bounded_only(self) -> str | None:
        return (f"random allocation ({self.num_selected} of {self.num_steps}): the Feldman & Shenfeld (2025) "
                "decomposition bounds its privacy loss from above")
