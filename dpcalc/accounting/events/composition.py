"""Composition: events run one after another (adaptively), with parameters named as dp-accounting 0.6 names them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Event, register
from dpcalc.errors import DomainError

__all__ = ["Composed", "RepeatAndSelect", "SelfComposed", "SingleEpochTreeAggregation"]


@register
@dataclass(frozen=True)
class SelfComposed(Event):
    """``count`` adaptive runs of ``event``."""

    event: Event
    count: int
    CLASS_NAME = "SelfComposedDpEvent"
    SHORT = "self_composed"

    def __post_init__(self) -> None:
        self._event("event")
        self._integer("count", 0)


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


@register
@dataclass(frozen=True)
class SingleEpochTreeAggregation(Event):
    """Tree aggregation of a single epoch (DP-FTRL; Kairouz et al. 2021, App. D): Gaussian noise with
    ``noise_multiplier`` on every node of one or more binary trees over ``step_counts`` steps each, every record in
    at most one leaf across all trees."""

    noise_multiplier: float
    step_counts: int | tuple[int, ...]
    CLASS_NAME = "SingleEpochTreeAggregationDpEvent"
    SHORT = "tree_aggregation"

    def __post_init__(self) -> None:
        self._real("noise_multiplier", 0.0, lo_open=True)
        counts = self.step_counts
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


@register
@dataclass(frozen=True)
class RepeatAndSelect(Event):
    """Run ``event`` a random number K of times and release only the best run (Papernot & Steinke 2022): K has mean
    ``mean`` and is Poisson (``shape`` = ∞), logarithmic (0), geometric (1) or truncated negative binomial
    (0 < shape < ∞)."""

    event: Event
    mean: float
    shape: float
    CLASS_NAME = "RepeatAndSelectDpEvent"
    SHORT = "repeat_and_select"

    def __post_init__(self) -> None:
        self._event("event")
        self._real("mean", 1.0)
        value = self.shape
        if not isinstance(value, int | float) or isinstance(value, bool) or value != value or value < 0:
            raise DomainError(f"{self.CLASS_NAME}.shape must be >= 0 or inf (got {v.brief(value)})")
        object.__setattr__(self, "shape", float(value))
