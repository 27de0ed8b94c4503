"""The PLD accountant: the event's privacy losses (`dpcalc.accounting.events.Event.components`) composed by dpcalc's
PLD with a certified bracket ε_lower <= ε <= ε_upper (`dpcalc.accounting.pld`; Koskela et al. 2020, Doroshenko et
al. 2022 for the method). The value is ε_upper; a bracket wider than the tolerance asked is still returned, with
``met`` False and a note. With ``backend="dp-accounting"`` the event goes to Google's dp-accounting PLD instead (its
one pessimistic value, for comparison; needs the optional extra).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from dpcalc import _validate as v
from dpcalc.accounting.accountants.base import Accountant, Options, register
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError, ToleranceWarning

__all__ = ["Pld", "merged", "peer_available", "to_dp_accounting"]


def _wider(what: str, lower: float, upper: float, met: bool, rtol: float, atol: float, warn: bool
           ) -> tuple[str, ...]:
    """The note (and, with ``warn``, the `ToleranceWarning`) of a bracket wider than asked; () when it met it."""
    if met:
        return ()
    text = (f"pld: the {what} bracket [{lower:.6g}, {upper:.6g}] is wider than asked (rtol = {rtol:g}, atol = "
            f"{atol:g}); both ends are certified, the upper end is the answer")
    if warn:
        v.warn(text, ToleranceWarning)
    return (text,)


def peer_available() -> bool:
    """Whether dp-accounting (the optional extra ``pld``, for comparisons) is importable."""
    import importlib.util

    return importlib.util.find_spec("dp_accounting") is not None


def merged(components: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Equal losses merged into one component (their counts add)."""
    out: dict[Any, int] = {}
    for loss, n in components:
        out[loss] = out.get(loss, 0) + n
    return list(out.items())


def to_dp_accounting(event: Event) -> Any:
    """The same event built from dp-accounting's classes (same class and field names), for a comparison."""
    import dp_accounting

    expand = getattr(event, "expand", None)
    if not event.IN_DP_ACCOUNTING and callable(expand):
        return to_dp_accounting(expand())
    cls = getattr(dp_accounting, event.CLASS_NAME, None)
    if cls is None or not event.IN_DP_ACCOUNTING:
        raise DomainError(f"pld backend dp-accounting: dp-accounting has no {event.CLASS_NAME}")

    def convert(value: Any) -> Any:
        if isinstance(value, Event):
            return to_dp_accounting(value)
        if isinstance(value, tuple):
            return [convert(x) for x in value]
        return value

    return cls(**{f.name: convert(getattr(event, f.name)) for f in dataclasses.fields(event)})  # type: ignore[arg-type]


@register
class Pld(Accountant):
    name = "pld"
    kind = "bracket"
    description = "PLD with a certified bracket, ε = ε_upper (Koskela et al. 2020; Doroshenko et al. 2022)"
    reference = "privacy loss distribution: Koskela et al. 2020; Doroshenko et al. 2022"

    def supports(self, event: Event, relation: Relation) -> str | None:
        try:
            event.components(relation)
        except DomainError as exc:
            return str(exc)
        return None

    def components(self, event: Event, relation: Relation) -> list[tuple[Any, int]]:
        comps = merged(event.components(relation))
        if not comps:
            raise DomainError(f"pld: {event.CLASS_NAME} releases nothing (epsilon = 0)")
        return comps

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        if options.backend == "dp-accounting":
            return self._peer(event, delta, relation)
        from dpcalc.accounting import pld
        from dpcalc.accounting.pld.composed import _as_schedule

        comps = self.components(event, relation)
        steps = _as_schedule(comps)
        grid = options.grid
        if steps is not None:  # Poisson-subsampled Gaussians: the schedule accountant (a lattice warm start)
            br = pld.epsilon(steps, delta, rtol=options.rtol, atol=options.atol, grid=grid)
        else:
            br = pld.epsilon_composed(comps, delta, rtol=options.rtol, atol=options.atol)
        if br.eps_lower == math.inf:
            raise DomainError(f"pld: delta = {delta:g} is below the probability of an infinite privacy loss; no "
                              "finite epsilon (an (epsilon, delta0) release needs delta >= delta0)")
        notes = _wider("epsilon", br.eps_lower, br.eps_upper, br.met, options.rtol, options.atol, options.warn)
        return self.result(event, relation, br.eps_upper, delta=delta, lower=br.eps_lower, upper=br.eps_upper,
                           met=br.met, notes=notes, details={"grid": br.grid, "direction": br.direction})

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import pld

        br = pld.delta_composed(self.components(event, relation), eps)
        notes = _wider("delta", br.delta_lower, br.delta_upper, br.met, br.rtol, br.atol, options.warn)
        return self.result(event, relation, br.delta_upper, eps=eps, lower=br.delta_lower, upper=br.delta_upper,
                           met=br.met, notes=notes, details={"grid": br.grid, "direction": br.direction})

    def _peer(self, event: Event, delta: float, relation: Relation) -> PrivacyResult:
        """dp-accounting 0.6's PLD (optional extra), for comparison only: one pessimistic value, no bracket."""
        if not peer_available():
            raise DomainError("pld backend 'dp-accounting' needs the optional extra: pip install 'dpcalc[pld]'")
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.privacy_accountant import NeighboringRelation

        rel = {"add_remove": NeighboringRelation.ADD_OR_REMOVE_ONE, "replace_one": NeighboringRelation.REPLACE_ONE,
               "replace_special": NeighboringRelation.REPLACE_SPECIAL}[relation]
        acc = pld_privacy_accountant.PLDAccountant(rel, value_discretization_interval=1e-4)
        acc.compose(to_dp_accounting(event))
        eps = float(acc.get_epsilon(delta))
        if not math.isfinite(eps):
            raise DomainError("pld (dp-accounting): epsilon is not finite here (delta below its truncation, ~1e-15?); "
                              "use the dpcalc backend")
        return self.result(event, relation, eps, delta=delta, kind="upper",
                           details={"backend": "dp-accounting", "value_discretization_interval": 1e-4},
                           notes=("pld by dp-accounting (backend): one pessimistic value at value_discretization_"
                                  "interval 1e-4, no bracket",))

