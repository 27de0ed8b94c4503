"""One event under several accountants: every answer, every refusal with its reason, and the headline.

The headline is the smallest guaranteed value (exact, bracket or upper) among the answers — the exact accountant's
where it applies (nothing guaranteed is smaller), else usually the PLD's — ties going to the accountant first in
`dpcalc.accounting.accountants.HEADLINE_ORDER`. `headline_epsilon` and `headline_calibration` compute just what a
headline needs (exact alone where it applies, else the PLD and RDP), so one call from Python and the headline row of
the command give the same number.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dpcalc.accounting import accountants as registry
from dpcalc.accounting.accountants.base import Options, options_of
from dpcalc.accounting.calibrate import Calibration, calibrate, owner_of, probe
from dpcalc.accounting.events.base import Event, NotAccountable
from dpcalc.accounting.events.reader import as_event
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.events.relation import relation as relation_of
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError, DpcalcError

__all__ = ["Accounting", "account", "headline_calibration", "headline_epsilon", "headline_of"]


def headline_of(results: Sequence[PrivacyResult]) -> PrivacyResult | None:
    """The smallest guaranteed result (ties to the accountant first in HEADLINE_ORDER), or None.

    Examples:
        >>> from dpcalc.accounting.account import account, headline_of
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> a = account(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), delta=1e-5, relation='add_remove')
        >>> headline_of(a.results).accountant
        'pld'
    """
    order = {n: i for i, n in enumerate(registry.HEADLINE_ORDER)}
    guaranteed = [r for r in results if r.guaranteed and r.level != "user"]
    if not guaranteed:
        return None
    return min(guaranteed, key=lambda r: (float(r), order.get(r.accountant, len(order))))


@dataclass(frozen=True)
class Accounting:
    """Every accountant's answer for one event at one δ (or ε), and why the others gave none: ``not_applicable``
    (the accountant has no form for this event) and ``failed`` (it has one but could not answer here)."""

    results: tuple[PrivacyResult, ...]
    not_applicable: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def refused(self) -> dict[str, str]:
        """Every accountant that gave no answer, with its reason."""
        return {**self.not_applicable, **self.failed}

    @property
    def headline(self) -> PrivacyResult | None:
        return headline_of(self.results)

    def to_dict(self) -> dict[str, Any]:
        head = self.headline
        return {"results": [r.to_dict() for r in self.results], "not_applicable": dict(self.not_applicable),
                "failed": dict(self.failed), "headline": None if head is None else head.accountant}

    def __repr__(self) -> str:
        head = self.headline
        lines = [f"  {r!r}" + ("  ← headline" if r is head else "") for r in self.results]
        lines += [f"  {n}: not applicable ({why})" for n, why in self.not_applicable.items()]
        lines += [f"  {n}: failed ({why})" for n, why in self.failed.items()]
        return "Accounting(\n" + "\n".join(lines) + "\n)"

    def _repr_html_(self) -> str:
        rows = "".join(f"<li>{html.escape(repr(r))}</li>" for r in self.results)
        rows += "".join(f"<li>{html.escape(n)}: no answer ({html.escape(w)})</li>" for n, w in self.refused.items())
        return f"<ul class='dpcalc-accounting'>{rows}</ul>"


def account(event: Event, *, delta: float | None = None, eps: float | None = None, relation: Relation,
            accountants: Sequence[str] | None = None, options: Options | None = None,
            explicit: bool = False) -> Accounting:
    """``event`` under each of ``accountants`` (default: every one) at δ (or at ε: δ); one that does not apply, or
    fails, is listed with its reason — raised instead when ``explicit`` (the caller asked for it by name).

    Examples:
        >>> from dpcalc.accounting.account import account
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> a = account(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), delta=1e-5, relation='add_remove')
        >>> [(r.accountant, round(r.value, 4)) for r in a.results]
        [('rdp', 2.1014), ('rdp-lemma1', 2.538), ('gdp-clt', 1.6177), ('pld', 1.8286)]
        >>> a.headline.accountant, sorted(a.refused)
        ('pld', ['analytic', 'exact', 'zcdp'])
    """
    event, relation = as_event(event), relation_of(relation, "relation")
    opts = options_of(options)
    if (delta is None) == (eps is None):
        raise DomainError("delta: give delta (for epsilon) or eps (for delta), one of them")
    names = [registry.get(a).name for a in accountants] if accountants else registry.names()
    results: list[PrivacyResult] = []
    not_applicable: dict[str, str] = {}
    failed: dict[str, str] = {}
    for name in names:
        acc = registry.get(name)
        why = acc.applies(event, relation)
        if why is not None:
            if explicit:
                raise NotAccountable(why)
            if not acc.quiet or accountants:
                not_applicable[acc.name] = why
            continue
        # an estimate listed beside the guaranteed answers is labelled one (its kind and notes), not warned about
        own = opts if explicit or acc.kind != "estimate" else dataclasses.replace(opts, warn=False)
        try:
            results.append(acc.epsilon(event, delta, relation, own) if delta is not None else
                           acc.delta(event, float(eps), relation, own))  # type: ignore[arg-type]
        except DpcalcError as exc:
            if explicit:
                raise
            failed[acc.name] = str(exc)
    return Accounting(tuple(results), not_applicable, failed)


def _candidates(event: Event, relation: Relation) -> list[str]:
    """The accountants a headline is computed from: exact alone where it applies, else the PLD and RDP."""
    exact = registry.get("exact")
    if exact.applies(event, relation) is None:
        return ["exact"]
    return [n for n in registry.HEADLINE_ORDER if n != "exact"]


def headline_epsilon(event: Event, *, delta: float | None = None, eps: float | None = None, relation: Relation,
                     options: Options | None = None) -> PrivacyResult:
    """The headline result alone (module docstring); the first refusal when no candidate answers.

    Examples:
        >>> from dpcalc.accounting.account import headline_epsilon
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> headline_epsilon(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), delta=1e-5,
        ...                  relation='add_remove')
        PrivacyResult(ε = 1.8286 [1.82784, 1.8286] (bracket, pld, add-remove, δ = 1e-05))
    """
    event, relation = as_event(event), relation_of(relation, "relation")
    found = account(event, delta=delta, eps=eps, relation=relation, accountants=_candidates(event, relation),
                    options=options)
    head = found.headline
    if head is None:
        reasons = "; ".join(f"{n}: {why}" for n, why in found.refused.items())
        raise NotAccountable(f"no guaranteed accountant answers: {reasons}")
    return head


def headline_calibration(event: Event, field: str, *, eps: float, delta: float, relation: Relation,
                         options: Options | None = None, rtol: float | None = None) -> Calibration:
    """The best safe calibration among the headline candidates (the value that gives the least away: the largest
    of a knob along which ε grows, the smallest of one along which it falls).

    Examples:
        >>> from dpcalc.accounting.account import headline_calibration
        >>> from dpcalc.accounting.events import Gaussian, PoissonSampled, SelfComposed
        >>> c = headline_calibration(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), 'count', eps=2.0,
        ...                          delta=1e-5, relation='add_remove')
        >>> c.value, c.result.accountant
        (1201, 'pld')
    """
    event, relation = as_event(event), relation_of(relation, "relation")
    found: list[Calibration] = []
    reasons: list[str] = []
    for name in _candidates(probe(event, field), relation):
        try:
            found.append(calibrate(event, field, eps=eps, delta=delta, accountant=registry.get(name),
                                   relation=relation, options=options, rtol=rtol))
        except DpcalcError as exc:
            reasons.append(f"{name}: {exc}")
    if not found:
        raise NotAccountable("; ".join(reasons))
    owner, name = owner_of(event, field)
    increases = owner.knob(name).eps_increases
    return max(found, key=lambda c: c.value) if increases else min(found, key=lambda c: c.value)
