"""One entry point: ε of any event at δ under a chosen accountant and neighbouring relation.

| accountant | bound | what |
|---|---|---|
| ``rdp`` | upper | the event's RDP curve (`rdp_accountant`), converted at the best order (`conversion`) |
| ``pld`` | bracket | dpcalc's PLD with a certified bracket ε_lower <= ε <= ε_upper (ε = ε_upper) |
| ``exact`` | exact | μ-GDP of Gaussian noise, finite sums for randomized response and (ε, δ) releases |

The result says which relation and which sampling it assumed; an event an accountant cannot account is one
`DomainError` line naming the event and what the accountant supports.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.describe import describe, sampling_of
from dpcalc.accounting.events.reader import as_event
from dpcalc.accounting.events.relation import Relation, relation
from dpcalc.errors import DomainError

__all__ = ["ACCOUNTANTS", "EventResult", "account", "epsilon"]

ACCOUNTANTS: tuple[str, ...] = ("rdp", "pld", "exact")


@short_repr
@dataclass(frozen=True)
class EventResult:
    """ε of an event at δ: the bound type (``upper``, ``exact``; the PLD's ε is its certified ``eps_upper`` with
    ``eps_lower`` below the true ε), the relation and the sampling assumed, and the accountant's extras (e.g. the
    optimal RDP ``order``, whether the RDP curve is exact)."""

    event: str
    accountant: str
    bound: str
    eps: float
    delta: float
    relation: str
    sampling: str
    eps_lower: float | None = None
    eps_upper: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def account(event: Any, *, delta: float, accountant: str = "rdp", neighbours: Any = "add_remove",
            orders: ArrayLike | None = None, rtol: float | None = None) -> EventResult:
    """ε at ``delta`` of ``event`` (a dpcalc event, a dictionary in dp-accounting's ``to_named_tuple()`` form or
    the short spelling, or a dp-accounting ``DpEvent``) under ``accountant`` and the relation ``neighbours``."""
    ev = as_event(event)
    rel = relation(neighbours)
    d = v.scalar("delta", v.probability("delta", delta))
    if accountant not in ACCOUNTANTS:
        raise DomainError(f"accountant must be one of {', '.join(ACCOUNTANTS)} for an event "
                          f"(got {v.brief(accountant)})")
    common: dict[str, Any] = {"event": describe(ev), "accountant": accountant, "delta": d, "relation": rel,
              "sampling": sampling_of(ev)}
    if _releases_unprotected(ev):
        return EventResult(bound="exact", eps=math.inf,
                           extra={"note": "a NonPrivateDpEvent: no privacy guarantee (epsilon is infinite)"}, **common)
    if accountant == "rdp":
        eps, extra = _rdp(ev, rel, d, orders)
        return EventResult(bound="upper", eps=eps, extra=extra, **common)
    if accountant == "exact":
        from dpcalc.accounting.events import exact

        eps, extra = exact.epsilon(ev, rel, d)
        return EventResult(bound="exact", eps=eps, extra=extra, **common)
    from dpcalc.accounting.events import pld_accountant

    br = pld_accountant.epsilon(ev, rel, d, rtol=rtol)
    if br.eps_lower == math.inf:  # as the exact accountant says it
        raise DomainError(f"pld: delta = {d:g} is below the probability of an infinite privacy loss; no finite "
                          "epsilon (an (epsilon, delta0) release needs delta >= delta0)")
    return EventResult(bound="bracket", eps=br.eps_upper, eps_lower=br.eps_lower, eps_upper=br.eps_upper,
                       extra={"grid": br.grid}, **common)


def _releases_unprotected(ev: Event) -> bool:
    """Whether a NonPrivate event runs at least once (ε = ∞ under every accountant)."""
    from dpcalc.accounting.events import composition, mechanisms

    if isinstance(ev, mechanisms.NonPrivate):
        return True
    if isinstance(ev, composition.SelfComposed) and ev.count == 0:
        return False
    return any(_releases_unprotected(child) for child in ev.children())


#: share of δ a with-replacement release's left-out draw counts may take (`rdp_accountant._with_replacement`)
_TAIL_SHARE = 1e-3


def _rdp(ev: Event, rel: Relation, delta: float, orders: ArrayLike | None) -> tuple[float, dict[str, Any]]:
    from dpcalc.accounting import conversion, rdp
    from dpcalc.accounting.events.rdp_accountant import rdp_curve, releases_with_replacement

    grid = rdp.orders_array(orders)
    releases = releases_with_replacement(ev)
    tail = _TAIL_SHARE * delta / releases if releases else 0.0  # draw counts cut from with-replacement releases
    with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        curve = rdp_curve(ev, rel, grid, tail)
    r = np.where(np.isnan(curve.rdp), np.inf, curve.rdp)
    eps, i = conversion.best_over_grid(grid, np.maximum(r, 0.0), math.log(delta - curve.slack))
    extra: dict[str, Any] = {"curve": "exact" if curve.exact else "upper bound",
                             "orders": f"{grid.size} orders in [{grid.min():g}, {grid.max():g}]"}
    if curve.slack > 0.0:
        extra["delta_spent_on_cut_draw_counts"] = curve.slack
    if i >= 0:
        extra["order"] = float(grid[i])
    return eps, extra


def epsilon(event: Any, *, delta: float, accountant: str = "rdp", neighbours: Any = "add_remove", **options: Any
            ) -> float:
    """ε alone (a float): `account`'s ``eps``."""
    return account(event, delta=delta, accountant=accountant, neighbours=neighbours, **options).eps
