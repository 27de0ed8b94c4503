"""The base of every event: a frozen dataclass with dp-accounting's class name that owns its privacy maps.

An event describes what was released (a mechanism), on which records (a sampling scheme) and how often
(a composition); the neighbouring relation is not part of it — it is passed when the event is accounted
(`dpcalc.accounting.events.relation`). Field names are dp-accounting 0.6's (``dp_event.py``), so an event
reads and writes the nested form of its ``DpEvent.to_named_tuple()`` (`dpcalc.accounting.events.reader`).

**Privacy maps.** As in OpenDP, the mathematics of a mechanism lives with it: each event class overrides the maps it
has, and the accountants only call them —

* `Event.rdp` — its Rényi curve at any orders (exact, or an upper bound: `Curve`);
* `Event.privacy_loss` — one release's dominating pair(s) for the PLD (`dpcalc.accounting.pld.PrivacyLoss`);
  `Event.components` — the ``(loss, count)`` list a composition hands to the PLD;
* `Event.pure_epsilon` — its ε at δ = 0 (the largest privacy loss; ∞ when unbounded);
* `Event.gaussian_mu` — μ when the event is exactly μ-GDP (Gaussian noise without sampling);
* `Event.scaled` — the mechanism at a multiple of its sensitivity (a record drawn k times into a sample);
* `Event.finite_pairs` / `Event.finite_count` — the exact accountant's finite pair and its number of runs;
* `Event.poisson_gaussian` — its steps as (noise multiplier, q, count) when it is a schedule of Poisson-subsampled
  Gaussians (the GDP central limit theorem's input);
* `KNOBS` — the fields a calibration may solve for (`dpcalc.accounting.search.Knob`).

A map a class does not override raises `NotAccountable` (a one-line `DomainError`) naming the event and the
classes that do provide it (`providers`): what an accountant supports is read off the classes, never typed twice.
Composition and sampling classes implement the maps from their children's (the accountants walk the tree through
them).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from dpcalc import _validate as v
from dpcalc.accounting.events.relation import Relation
from dpcalc.errors import DomainError

if TYPE_CHECKING:
    from dpcalc.accounting.finite import FinitePair
    from dpcalc.accounting.pld.losses import PrivacyLoss
    from dpcalc.accounting.search import Knob

__all__ = ["EVENT_CLASSES", "Curve", "Event", "NotAccountable", "providers", "register"]


class NotAccountable(DomainError):
    """An event (or a part of it) an accountant cannot account under the relation: the message names it, why, and
    which events do have the map."""


@dataclass(frozen=True)
class Curve:
    """An RDP curve on the orders it was asked for, and whether it is exact (else an upper bound). ``slack``: the
    probability of the labels a labelled pair left out (sampling with replacement: draw counts above a cut); the
    curve holds for the pair conditioned on none of them occurring, so a conversion to (ε, δ) spends ``slack`` of
    its δ on them (union bound over the releases)."""

    rdp: v.FloatArray
    exact: bool
    slack: float = 0.0


#: every map an event may provide: method name -> (accountant that needs it, what it is)
MAPS = {
    "rdp": ("rdp", "Rényi curve"),
    "privacy_loss": ("pld", "privacy-loss distribution"),
    "pure_epsilon": ("pure", "finite largest privacy loss"),
    "gaussian_mu": ("exact", "exact μ-GDP form"),
    "finite_pairs": ("exact", "finite privacy-loss pair"),
    "poisson_gaussian": ("gdp-clt", "Poisson-subsampled Gaussian form"),
    "shuffled_batches": ("shuffle-lower", "shuffled-batch form"),
}


class Event:
    """An event (subclasses are frozen dataclasses registered with `register`)."""

    CLASS_NAME: ClassVar[str] = "DpEvent"
    #: a shorter spelling the reader accepts for ``class_name`` (besides the class name itself)
    SHORT: ClassVar[str] = ""
    #: the fields a calibration may solve for; the knob's ``start`` is replaced by the field's value
    KNOBS: ClassVar[dict[str, Knob]] = {}
    #: whether dp-accounting has this class (same name and fields): `to_dp_accounting` can build it
    IN_DP_ACCOUNTING: ClassVar[bool] = True
    #: the maps this class has no form for, with the reason (its refusal says it; `providers` leaves it out)
    WITHOUT: ClassVar[dict[str, str]] = {}

    # ---- the tree --------------------------------------------------------------------------------------------

    def children(self) -> Iterator[Event]:
        """The events this one contains (none for a mechanism)."""
        for name in v.field_names(type(self)):
            value = getattr(self, name)
            if isinstance(value, Event):
                yield value
            elif isinstance(value, tuple):
                yield from (x for x in value if isinstance(x, Event))

    def describe(self) -> str:
        """``SelfComposed(PoissonSampled(0.01, Gaussian(1)), 1000)``: the class name without ``DpEvent``, its fields
        in order."""
        name = type(self).__name__
        args = ", ".join(_fmt(getattr(self, name)) for name in v.field_names(type(self)))
        return f"{name}({args})"

    def sampling_schemes(self) -> list[str]:
        """The sampling schemes in the event (``poisson q=0.01``, …): each sampling class names itself."""
        return [s for child in self.children() for s in child.sampling_schemes()]

    def sampling_text(self) -> str:
        """The sampling schemes as one line (``poisson q=0.01``; ``none``)."""
        return "; ".join(dict.fromkeys(self.sampling_schemes())) or "none"

    def releases_unprotected(self) -> bool:
        """Whether a non-private release runs at least once (ε = ∞ under every accountant)."""
        return any(child.releases_unprotected() for child in self.children())

    def releases_with_replacement(self) -> int:
        """How many with-replacement samples the event draws through compositions (their RDP curves may leave out
        draw counts: `Curve.slack`)."""
        return sum(child.releases_with_replacement() for child in self.children())

    def bounded_only(self) -> str | None:
        """Why this event's privacy maps only bound its mechanism's from above (its pair is a dominating pair, not
        its own), or None when they are its own; an accountant then labels an exact or bracketed answer ``upper``."""
        return next((why for c in self.children() if (why := c.bounded_only())), None)

    def shuffled_batches(self) -> tuple[float, int, int, int] | None:
        """``(noise multiplier, dataset size, batch size, epochs)`` when the event is Gaussian DP-SGD on shuffled
        fixed-size batches (what the shuffle-lower accountant bounds from below), else None."""
        return None

    def inputs(self) -> dict[str, Any]:
        """The settings a result row shows for this event (a training run's terms); {} for a general event."""
        return {}

    # ---- the privacy maps (module docstring); each class overrides those it has ---------------------------------

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        """The RDP curve at the orders (all > 1). ``tail`` > 0: a with-replacement release may leave out draw counts
        of probability at most ``tail`` (`Curve.slack`)."""
        raise self.not_accountable("rdp")

    def privacy_loss(self, relation: Relation) -> PrivacyLoss:
        """One release's privacy loss (both orientations) for the PLD accountant."""
        raise self.not_accountable("privacy_loss")

    def components(self, relation: Relation, count: int = 1) -> list[tuple[PrivacyLoss, int]]:
        """The ``(loss, count)`` components of ``count`` runs of this event (compositions split, no-ops dropped)."""
        return [(self.privacy_loss(relation), count)] if count else []

    def pure_epsilon(self, relation: Relation) -> float:
        """The event's ε at δ = 0 (its largest privacy loss); ∞ when it has none."""
        return math.inf

    def gaussian_mu(self, relation: Relation) -> float | None:
        """μ when the event is exactly μ-GDP (Gaussian noise without sampling), else None."""
        return None

    def gaussian_noise(self) -> float | None:
        """The combined noise multiplier when the event is Gaussian noise only (a Gaussian or compositions of them;
        Poisson sampling of such noise has an exact RDP curve), else None."""
        return None

    def scaled(self, factor: int) -> Event | None:
        """The same mechanism with its outputs moved by ``factor`` sensitivities instead of one (the changed record
        drawn ``factor`` times into a sample), or None when that has no form here."""
        return None

    def finite_pairs(self, relation: Relation) -> list[FinitePair] | None:
        """The orientations of one release as finite pairs (exact accountant), else None."""
        return None

    def finite_count(self) -> tuple[Event, int]:
        """``(release, count)``: the event as ``count`` runs of one release (itself once, unless a composition)."""
        return self, 1

    def poisson_gaussian(self, relation: Relation) -> list[tuple[float, float, int]] | None:
        """The steps ``(noise multiplier, q, count)`` when the event is a schedule of Poisson-subsampled Gaussians
        under ``relation``, else None."""
        return None

    # ---- calibration ------------------------------------------------------------------------------------------

    def knob(self, field: str) -> Knob:
        """The search range and direction of ``field`` (from `KNOBS`; classes whose ranges depend on other fields
        override this), or a one-line refusal naming the fields that can be calibrated."""
        if field not in self.KNOBS:
            names = ", ".join(self.KNOBS) or "none"
            raise DomainError(f"field: {self.CLASS_NAME}.{field} cannot be calibrated (ε is not monotone in it or "
                              f"it is not a number); its calibratable fields: {names}")
        return self.KNOBS[field]

    def with_field(self, field: str, value: Any) -> Event:
        """A copy with ``field`` set to ``value`` (events are immutable; classes whose fields determine each other
        override this)."""
        return dataclasses.replace(self, **{field: value})  # type: ignore[type-var]

    # ---- refusals ---------------------------------------------------------------------------------------------

    def not_accountable(self, method: str, why: str = "") -> NotAccountable:
        """The one-line refusal of a map this event lacks (``why``: a reason of its own)."""
        accountant, what = MAPS[method]
        reason = why or self.WITHOUT.get(method) or f"it has no {what} here"
        return NotAccountable(f"{accountant} cannot account {self.CLASS_NAME}: {reason}; the {accountant} accountant "
                              f"supports {', '.join(providers(method))}")

    # ---- validation helpers for __post_init__: normalise a field in place (the dataclasses are frozen) -------------

    def _name(self, field: str) -> str:
        return f"{self.CLASS_NAME}.{field}"

    def _real(self, field: str, lo: float = -math.inf, hi: float = math.inf, *, lo_open: bool = False,
              hi_open: bool = False) -> None:
        value = _number(self._name(field), getattr(self, field))
        v.check_range(self._name(field), value, lo, hi, lo_open=lo_open, hi_open=hi_open)
        object.__setattr__(self, field, value)

    def _integer(self, field: str, lo: int, hi: float = math.inf) -> None:
        value = _number(self._name(field), getattr(self, field))
        v.integer_at_least(self._name(field), value, lo)
        if value > hi:
            raise DomainError(f"{self._name(field)} must be an integer in [{lo}, {hi:g}] (got {value:g})")
        object.__setattr__(self, field, int(value))

    def _reals(self, field: str, lo: float = 0.0) -> None:
        value = getattr(self, field)
        if hasattr(value, "tolist") and not isinstance(value, str | bytes):
            value = value.tolist()  # a NumPy array: its numbers
        if isinstance(value, str | bytes) or not isinstance(value, Sequence) or not value:
            raise DomainError(f"{self._name(field)} must be a non-empty list of numbers (got {v.brief(value)})")
        items = tuple(_number(f"{self._name(field)}[{i}]", x) for i, x in enumerate(value))
        v.vector(self._name(field), list(items), lo)
        object.__setattr__(self, field, items)

    def _event(self, field: str) -> None:
        if not isinstance(getattr(self, field), Event):
            raise DomainError(f"{self._name(field)} must be an event (got {v.brief(getattr(self, field))})")


def _fmt(value: object) -> str:
    if isinstance(value, Event):
        return value.describe()
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_fmt(x) for x in value) + "]"
    return str(value)


def _number(name: str, value: Any) -> float:
    """A real number (bool and text refused; a one-element array is its number), as a float."""
    if hasattr(value, "shape") and hasattr(value, "item") and not isinstance(value, str | bytes):
        if getattr(value, "size", 0) != 1:
            raise DomainError(f"{name} must be a number (got an array of shape {tuple(value.shape)})")
        value = value.item()
    if isinstance(value, bool | str | bytes) or not hasattr(value, "__float__"):
        raise DomainError(f"{name} must be a number (got {v.brief(value)})")
    try:
        x = float(value)
    except (OverflowError, ValueError, TypeError):
        raise DomainError(f"{name} must be a number representable as a float (got {v.brief(value)})") from None
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


def providers(method: str) -> list[str]:
    """The event classes that provide the map ``method`` (override it), by their short name: what an accountant
    built on that map supports.

    Examples:
        >>> from dpcalc.accounting.events import providers
        >>> 'Gaussian' in providers('privacy_loss'), 'ZCDp' in providers('privacy_loss')
        (True, False)
    """
    base = getattr(Event, method, None) if isinstance(method, str) else None
    if not callable(base) or method.startswith("_"):
        maps = sorted(n for n, f in vars(Event).items() if callable(f) and not n.startswith("_"))
        raise DomainError(f"method must be one of the event's maps: {', '.join(maps)} (got {v.brief(method)})")
    return [c.__name__ for c in EVENT_CLASSES.values() if getattr(c, method) is not base and method not in c.WITHOUT]
