"""The neighbouring relation an event is accounted under, and dpcalc's sensitivity convention.

Three relations, named as dp-accounting 0.6 names them (``privacy_accountant.NeighboringRelation``):

* ``add_remove`` — D' is D with one record added or removed;
* ``replace_one`` — D' is D with one record replaced by any other;
* ``replace_special`` — D' is D with one record replaced by a special record that contributes nothing (e.g. a
  zero gradient).

**Sensitivity convention.** A mechanism's sensitivity (the clipping norm C behind a noise multiplier, a discrete
mechanism's ``sensitivity``) is how far *one record's contribution* can move the output. Under ``add_remove`` and
``replace_special`` two neighbouring outputs then differ by at most that; under ``replace_one`` by twice that (the
old record's contribution leaves and the new one's arrives): a clipped sum moves by C under add/remove and by 2C
under replace-one. So ten Gaussian releases with noise multiplier 3 under replace-one are μ-GDP with
μ = 2·√10/3, which is dp-accounting 0.6's PLD convention (``pld/privacy_loss_mechanism.py``); its RDP accountant
uses the shift C under replace-one (``rdp/rdp_privacy_accountant.py``), which is below the true ε under this
convention.
"""

from __future__ import annotations

from typing import Literal

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["RELATIONS", "Relation", "relation", "shift_factor"]

Relation = Literal["add_remove", "replace_one", "replace_special"]
RELATIONS: tuple[Relation, ...] = ("add_remove", "replace_one", "replace_special")

_SPELLINGS = {"add_remove": "add_remove", "add_or_remove_one": "add_remove", "add_or_remove": "add_remove",
              "replace_one": "replace_one", "replace": "replace_one", "replace_special": "replace_special"}


def relation(neighbours: object, name: str = "neighbours") -> Relation:
    """A relation from any of its spellings (``add-remove``, ``add_remove``, ``ADD_OR_REMOVE_ONE``, a
    dp-accounting ``NeighboringRelation`` member, …); anything else is a one-line DomainError naming ``name``.

    Examples:
        >>> from dpcalc.accounting.events import relation
        >>> relation('add-remove')
        'add_remove'
    """
    text = getattr(neighbours, "name", neighbours)  # an Enum member: its name
    key = str(text).strip().lower().replace("-", "_").replace(" ", "_") if isinstance(text, str) else ""
    if key not in _SPELLINGS:
        raise DomainError(f"{name} must be one of add-remove, replace-one, replace-special "
                          f"(got {v.brief(neighbours)})")
    return _SPELLINGS[key]  # type: ignore[return-value]


def shift_factor(rel: Relation) -> int:
    """How many sensitivities two neighbouring outputs differ by: 2 under ``replace_one``, else 1."""
    return 2 if v.choice("rel", rel, RELATIONS) == "replace_one" else 1
