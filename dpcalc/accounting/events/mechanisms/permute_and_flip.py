"""The permute-and-flip mechanism with parameter ε (McKenna & Sheldon 2020; dp-accounting's
``PermuteAndFlipDpEvent``): an ε-DP selection mechanism (their Thm. 1), here accounted as an ε-DP release — its RDP
and its privacy-loss pair are those of the dominating pair of every ε-DP mechanism (binary randomized response with
odds e^ε; Kairouz, Oh & Viswanath 2015, Thm. 2.1), upper bounds; its pure ε is ε.

dp-accounting's sources account it as the Laplace mechanism with scale 1/ε (its docstring states that the privacy
loss distribution is identical); that pair is dominated by this one, so dpcalc's numbers are never below its, and
are kept until that identity is proved in a published source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.mechanisms.approximate_dp import pure_dp_curve
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob

__all__ = ["PermuteAndFlip"]


@register
@dataclass(frozen=True)
class PermuteAndFlip(Event):
    """The permute-and-flip mechanism with parameter ``epsilon`` (ε-DP)."""

    epsilon: float
    CLASS_NAME = "PermuteAndFlipDpEvent"
    SHORT = "permute_and_flip"
    KNOBS: ClassVar[dict[str, Knob]] = {"epsilon": Knob("epsilon", 1e-12, 700.0, eps_increases=True, slope=1.0)}

    def __post_init__(self) -> None:
        self._real("epsilon", 0.0, 700.0)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(pure_dp_curve(orders, self.epsilon), False)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.pure_dp(self.epsilon, relation) if self.epsilon > 0.0 else pld.approx_dp(0.0, 0.0, relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return self.epsilon
