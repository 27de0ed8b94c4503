"""Tree aggregation of a single epoch (DP-FTRL; Kairouz et al. 2021, App. D): Gaussian noise with a noise multiplier
z on every node of one or more binary trees over T steps each, every record in at most one leaf across all trees.
A record's leaf lies in ⌈log₂(T + 1)⌉ completed nodes, so the event is the Gaussian with z/√⌈log₂(T + 1)⌉: exact
RDP, PLD and μ-GDP (μ = Δ'√⌈log₂(T + 1)⌉/z). Defined under replace-one or replace-special (an added record would
shift every later leaf)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta, size
from dpcalc.accounting.events.mechanisms.gaussian import gaussian_rdp
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.accounting.search import Knob
from dpcalc.errors import DomainError

__all__ = ["SingleEpochTreeAggregation", "tree_aggregation_delta"]

_ADD_REMOVE = ("tree aggregation is defined under replace-one or replace-special (an added record would shift every "
               "later leaf)")


@register
@dataclass(frozen=True)
class SingleEpochTreeAggregation(Event):
    """Gaussian noise with ``noise_multiplier`` on every node of binary trees over ``step_counts`` steps each."""

    noise_multiplier: float
    step_counts: int | tuple[int, ...]
    CLASS_NAME = "SingleEpochTreeAggregationDpEvent"
    SHORT = "tree_aggregation"
    KNOBS: ClassVar[dict[str, Knob]] = {"noise_multiplier": knobs.NOISE,
             "step_counts": Knob("step_counts", 1, 1e9, eps_increases=True, integer=True, slope=0.1)}

    def __post_init__(self) -> None:
        self._real("noise_multiplier", 0.0, lo_open=True)
        counts = self.step_counts
        if hasattr(counts, "tolist") and not isinstance(counts, int | float):
            counts = counts.tolist()
        if isinstance(counts, Sequence) and not isinstance(counts, str | bytes):
            if not counts:
                raise DomainError(f"{self.CLASS_NAME}.step_counts must be a positive integer or a non-empty list")
            v.integer_at_least(f"{self.CLASS_NAME}.step_counts", [float(c) for c in counts], 0)
            object.__setattr__(self, "step_counts", tuple(int(c) for c in counts))
        else:
            self._integer("step_counts", 1)

    @property
    def max_steps(self) -> int:
        counts = self.step_counts
        return max(counts) if isinstance(counts, tuple) else counts

    @property
    def depth(self) -> int:
        """The completed nodes a record's leaf lies in: ⌈log₂(T + 1)⌉ for the longest tree."""
        return math.ceil(math.log2(self.max_steps + 1))

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if relation == "add_remove":
            raise self.not_accountable("rdp", _ADD_REMOVE)
        return Curve(gaussian_rdp(orders, self.noise_multiplier, float(shift_factor(relation))) * self.depth, True)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        if relation == "add_remove":
            raise self.not_accountable("privacy_loss", _ADD_REMOVE)
        return pld.gaussian(self.noise_multiplier / math.sqrt(self.depth), 1.0, relation)

    def gaussian_mu(self, relation: Relation) -> float | None:
        if relation == "add_remove":
            return None
        return shift_factor(relation) * math.sqrt(self.depth) / self.noise_multiplier


@v.scalar_params
def tree_aggregation_delta(eps: float, noise_multiplier: float, steps: float) -> float:
    """δ(ε) of single-epoch tree aggregation over T = ``steps`` steps with Gaussian noise (noise multiplier z) on
    every node, replace-one: μ-GDP with μ = 2√⌈log₂(T + 1)⌉/z (a record's leaf lies in that many completed nodes).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.tree import tree_aggregation_delta
        >>> round(tree_aggregation_delta(1.0, 10.0, 7), 9)
        0.000319644
    """
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    return pld_delta(SingleEpochTreeAggregation(z, size("steps", steps)), "replace_one", eps)
