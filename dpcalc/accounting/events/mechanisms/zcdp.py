"""A release satisfying (ξ, ρ)-zCDP: RDP ξ + ρα at every order α (Bun & Steinke 2016, Def. 1.1), under the relation
it is accounted with. The curve is an upper bound (the statement, not a mechanism); there is no privacy-loss pair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob

__all__ = ["ZCDp", "zcdp_rdp"]


@register
@dataclass(frozen=True)
class ZCDp(Event):
    """A (``xi``, ``rho``)-zCDP release."""

    rho: float
    xi: float = 0.0
    CLASS_NAME = "ZCDpEvent"
    SHORT = "zcdp"
    WITHOUT: ClassVar[dict[str, str]] = {"privacy_loss": "a zCDP statement has no privacy-loss distribution (use rdp)"}
    KNOBS: ClassVar[dict[str, Knob]] = {"rho": Knob("rho", 1e-12, 1e6, eps_increases=True, slope=1.0)}

    def __post_init__(self) -> None:
        self._real("rho", 0.0)
        self._real("xi", 0.0)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(np.asarray(self.xi + self.rho * orders), False)



@v.named_shapes
def zcdp_rdp(alpha: ArrayLike, rho: ArrayLike, xi: ArrayLike = 0.0) -> float | v.FloatArray:
    """RDP at order α of a (ξ, ρ)-zCDP release: ``ξ + ρα`` (Bun & Steinke 2016, Def. 1.1).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.zcdp import zcdp_rdp
        >>> zcdp_rdp(2.0, 0.5)
        1.0
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    r = v.nonnegative("rho", rho)
    x = v.nonnegative("xi", xi)
    ab, rb, xb = v.broadcast(alpha=a, rho=r, xi=x)
    return v.scalar_or_array(np.asarray(xb + rb * ab))
