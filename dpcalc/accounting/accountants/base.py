"""The accountant protocol and its registry: an accountant takes an event, a neighbouring relation and δ (or ε) and
returns the one result type, `dpcalc.accounting.result.PrivacyResult`.

`Accountant.epsilon` and `Accountant.delta` first settle what every accountant answers alike — a non-private release
(ε = ∞, said as such), an event that releases nothing or whose pure ε is 0 (ε = 0), δ = 0 (the event's pure ε: exact
where its largest privacy loss is finite, else refused) — and hand the rest to the accountant's own `_epsilon` /
`_delta`. What an accountant cannot account is one `NotAccountable` line naming the event and what it supports
(read off the event classes, `dpcalc.accounting.events.providers`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Event, NotAccountable
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import Kind, PrivacyResult
from dpcalc.errors import DomainError

__all__ = ["ACCOUNTANTS", "Accountant", "Options", "get", "names", "options_of", "register"]

#: the PLD's default relative and absolute bracket widths (the CLI's and the library's: one default)
RTOL, ATOL = 1e-3, 1e-6


@dataclass(frozen=True)
class Options:
    """The tolerances and choices an accountant may use: the bracket's ``rtol``/``atol`` (PLD), the RDP ``orders``
    grid (default: dp-accounting's), the PLD ``backend`` (``dpcalc``, or ``dp-accounting`` for comparison), whether
    warnings are raised (an optimum on the edge of the RDP orders, an estimate), and a PLD lattice to start from."""

    rtol: float = RTOL
    atol: float = ATOL
    orders: ArrayLike | None = None
    backend: str = "dpcalc"
    warn: bool = True
    #: a PLD lattice spacing to start from (a warm start: a calibration passes the last evaluation's along)
    grid: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rtol", float(v.scalar("rtol", v.check_range("rtol", self.rtol, 1e-12, 1.0))))
        object.__setattr__(self, "atol", float(v.scalar("atol", v.check_range("atol", self.atol, 0.0, 1.0))))
        v.choice("backend", self.backend, ("dpcalc", "dp-accounting"))


class Accountant:
    """An accountant (registered with `register`): ``name``, the ``kind`` of its results, a description and the
    references of its method."""

    name: ClassVar[str] = ""
    kind: ClassVar[Kind] = "upper"
    #: a specialised accountant: left out of a default table's "not applicable" list where it does not apply
    quiet: ClassVar[bool] = False
    description: ClassVar[str] = ""
    reference: ClassVar[str] = ""

    # ---- the protocol -------------------------------------------------------------------------------------------

    def epsilon(self, event: Event, delta: float, relation: Relation, options: Options = Options()
                ) -> PrivacyResult:
        """ε of ``event`` at ``delta`` under ``relation``."""
        d = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))
        settled = self._settled(event, relation, d, None)
        return settled if settled is not None else self._epsilon(event, d, relation, options)

    def delta(self, event: Event, eps: float, relation: Relation, options: Options = Options()) -> PrivacyResult:
        """δ of ``event`` at ``eps`` under ``relation``."""
        e = float(v.scalar("eps", v.nonnegative("eps", eps)))
        settled = self._settled(event, relation, None, e)
        return settled if settled is not None else self._delta(event, e, relation, options)

    def supports(self, event: Event, relation: Relation) -> str | None:
        """None when the accountant's method can account ``event`` (as far as it can tell cheaply), else why not."""
        return None

    def applies(self, event: Event, relation: Relation) -> str | None:
        """None when this accountant answers for ``event`` — its method supports it, or the answer is settled for
        every accountant alike (a non-private release, a privacy loss of 0) — else why not."""
        if event.releases_unprotected() or event.pure_epsilon(relation) == 0.0:
            return None
        return self.supports(event, relation)

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        raise NotImplementedError

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        raise DomainError(f"{self.name}: delta at a given epsilon is not available from this accountant (use pld, "
                          "exact or rdp)")

    # ---- shared --------------------------------------------------------------------------------------------------

    def result(self, event: Event, relation: Relation, value: float, *, delta: float | None = None,
               eps: float | None = None, kind: Kind | None = None, lower: float | None = None,
               upper: float | None = None, met: bool = True, details: dict[str, Any] | None = None,
               notes: tuple[str, ...] = ()) -> PrivacyResult:
        """A result of this accountant for ``event`` (ε when ``delta`` is given, else δ at ``eps``)."""
        quantity = "epsilon" if delta is not None else "delta"
        loose = event.bounded_only()
        if loose and (kind or self.kind) in ("exact", "bracket"):  # the mechanism's value lies below: an upper bound
            kind, lower, notes = "upper", None, (*notes, loose)
        return PrivacyResult(
            value=value, kind=kind or self.kind, accountant=self.name,
            epsilon=value if quantity == "epsilon" else float(eps),  # type: ignore[arg-type]
            delta=float(delta) if delta is not None else value, quantity=quantity,  # type: ignore[arg-type]
            lower=lower, upper=upper, relation=relation, event=event.describe(), sampling=event.sampling_text(),
            met=met, inputs=event.inputs(), details=details or {}, notes=notes)

    def _settled(self, event: Event, relation: Relation, delta: float | None, eps: float | None
                 ) -> PrivacyResult | None:
        """The answer every accountant gives alike, or None (module docstring)."""
        if event.releases_unprotected():
            return self.result(event, relation, math.inf if delta is not None else 1.0, delta=delta, eps=eps,
                               kind="exact", notes=("a NonPrivateDpEvent (or zero noise) runs: no privacy guarantee, "
                                                    "epsilon is infinite",))
        pure = event.pure_epsilon(relation)
        if pure == 0.0:
            return self.result(event, relation, 0.0, delta=delta, eps=eps, kind="exact",
                               notes=("the event releases nothing about a record (its privacy loss is 0)",))
        if delta == 0.0:
            if math.isinf(pure):
                raise NotAccountable(f"{self.name}: no finite epsilon at delta = 0: the privacy loss of "
                                     f"{event.describe()} is unbounded (give delta > 0)")
            return self.result(event, relation, math.nextafter(pure, math.inf), delta=0.0, kind="exact",
                               notes=("delta = 0: the largest privacy loss, summed over the composition (pure DP)",))
        if eps is not None and eps >= pure:
            return self.result(event, relation, 0.0, eps=eps, kind="exact",
                               notes=(f"epsilon >= the largest privacy loss {pure:.6g}: delta is 0",))
        return None


#: every accountant by name, in display order
ACCOUNTANTS: dict[str, Accountant] = {}


def register(cls: type[Accountant]) -> type[Accountant]:
    """Class decorator: one instance of ``cls`` in `ACCOUNTANTS` under its ``name``."""
    ACCOUNTANTS[cls.name] = cls()
    return cls


#: the display order (an accountant registered later and not listed here comes after these)
ORDER = ("rdp", "rdp-lemma1", "zcdp", "analytic", "gdp-clt", "pld", "exact", "shuffle-lower")


def names() -> list[str]:
    """Every accountant's name, in display order.

    Examples:
        >>> from dpcalc.accounting import accountants
        >>> accountants.names()
        ['rdp', 'rdp-lemma1', 'zcdp', 'analytic', 'gdp-clt', 'pld', 'exact', 'shuffle-lower']
    """
    rank = {n: i for i, n in enumerate(ORDER)}
    return sorted(ACCOUNTANTS, key=lambda n: rank.get(n, len(rank)))


def get(accountant: str | Accountant) -> Accountant:
    """The accountant called ``accountant`` (``_`` and ``-`` alike; an `Accountant` is returned as it is); an unknown
    name is a one-line `DomainError`.

    Examples:
        >>> from dpcalc.accounting import accountants
        >>> accountants.get('rdp_lemma1').name
        'rdp-lemma1'
    """
    if isinstance(accountant, Accountant):
        return accountant
    key = accountant.strip().lower().replace("_", "-") if isinstance(accountant, str) else None
    if key not in ACCOUNTANTS:
        raise DomainError(f"accountant must be one of {', '.join(names())} (got {v.brief(accountant)})")
    return ACCOUNTANTS[key]


#: the default options (frozen: shared by every call that changes none)
DEFAULT_OPTIONS = Options()


def options_of(options: Options | None) -> Options:
    """``options``, or the defaults for None; anything else is a one-line `DomainError`."""
    if options is None:
        return DEFAULT_OPTIONS
    if not isinstance(options, Options):
        raise DomainError(f"options must be a dpcalc.accounting.accountants.Options (got {v.brief(options)})")
    return options


def with_defaults(options: Options | None, **changes: Any) -> Options:
    """``options`` (or the defaults) with ``changes`` that are not None."""
    base = options_of(options)
    given = {k: x for k, x in changes.items() if x is not None}
    return replace(base, **given) if given else base
