"""A release known only by its (ε, δ)-DP guarantee (pure ε-DP when δ = 0), under the relation it is accounted with.
dpcalc's own event (dp-accounting 0.6 has none).

Every (ε, δ)-DP mechanism is dominated by the four-outcome pair of Kairouz, Oh & Viswanath 2015 (Thm. 2.1): outcomes
(⊤, a, b, ⊥) with P = (δ, (1 − δ)e^ε/(1 + e^ε), (1 − δ)/(1 + e^ε), 0) and Q the reverse. So

* RDP (δ = 0): that of binary randomized response with e^ε,
  ``log((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)`` (capped at ε), written in the difference of the two
  distributions (no cancellation for ε → 0);
* PLD: that pair; exact accountant: its finite pair (the T-fold composition is their Thm. 3.3);
* pure ε: ε when δ = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.composition import SelfComposed
from dpcalc.accounting.events.forms import pld_delta
from dpcalc.accounting.events.mechanisms.randomized_response import binary_rdp
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.finite import FinitePair, delta_finite
from dpcalc.accounting.search import Knob

__all__ = ["EpsilonDelta", "approx_dp_composed_delta", "optimal_composition_delta", "pure_dp_rdp"]


def pure_dp_curve(alphas: v.FloatArray, eps: float) -> v.FloatArray:
    """The RDP of any ε-DP release: binary randomized response with e^ε (the dominating pair), at most ε."""
    log_miss = -float(np.logaddexp(0.0, eps))  # log 1/(1 + e^ε)
    curve = binary_rdp(alphas, log_miss, math.expm1(eps)) if eps < 700.0 else np.full(np.shape(alphas), eps)
    return np.asarray(np.minimum(np.maximum(curve, 0.0), eps))


def _pair(eps: float, delta: float) -> FinitePair:
    p = 1.0 / (1.0 + math.exp(-eps))  # e^ε/(1 + e^ε)
    return FinitePair(eps, (1 - delta) * p, -eps, (1 - delta) * (1 - p), 0.0, delta)


@register
@dataclass(frozen=True)
class EpsilonDelta(Event):
    """A release satisfying (``epsilon``, ``delta``)-DP."""

    epsilon: float
    delta: float = 0.0
    CLASS_NAME = "EpsilonDeltaDpEvent"
    SHORT = "epsilon_delta"
    KNOBS: ClassVar[dict[str, Knob]] = {"epsilon": Knob("epsilon", 1e-12, 700.0, eps_increases=True, slope=1.0)}
    IN_DP_ACCOUNTING = False

    def __post_init__(self) -> None:
        self._real("epsilon", 0.0, 700.0)
        self._real("delta", 0.0, 1.0, hi_open=True)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if self.delta > 0.0:
            raise self.not_accountable("rdp", "an (epsilon, delta) release with delta > 0 has no RDP curve (use the "
                                              "pld or exact accountant)")
        return Curve(pure_dp_curve(orders, self.epsilon), True)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        if self.delta == 0.0:
            return pld.pure_dp(self.epsilon, relation) if self.epsilon > 0.0 else pld.approx_dp(0.0, 0.0, relation)
        return pld.approx_dp(self.epsilon, self.delta, relation)

    def finite_pairs(self, relation: Relation) -> list[FinitePair]:
        return [_pair(self.epsilon, self.delta)]

    def pure_epsilon(self, relation: Relation) -> float:
        return self.epsilon if self.delta == 0.0 else math.inf


@v.named_shapes
def pure_dp_rdp(alpha: ArrayLike, epsilon: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of any ε-DP release (its dominating pair, binary randomized response with e^ε):
    ``log((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)``, at most ε.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.approximate_dp import pure_dp_rdp
        >>> round(pure_dp_rdp(2.0, 1.0), 12)
        0.735325664056
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    e = v.check_range("epsilon", epsilon, 0.0, 700.0)
    ab, eb = v.broadcast(alpha=a, epsilon=e)
    return v.scalar_or_array(np.asarray(np.vectorize(lambda x, y: float(pure_dp_curve(np.array([x]), y)[0]))(ab, eb),
                                        dtype=np.float64))


@v.scalar_params
def optimal_composition_delta(epsilon: float, delta: float, count: float, eps_total: float) -> float:
    """δ at ε' = ``eps_total`` of ``count`` adaptive (ε, δ)-DP releases, tight (Kairouz, Oh & Viswanath 2015,
    Thm. 3.3): ``1 − (1 − δ)^k + (1 − δ)^k Σ_{i < (kε − ε')/(2ε)} C(k, i)(e^{(k−i)ε} − e^{ε'+iε})/(1 + e^ε)^k``.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.approximate_dp import optimal_composition_delta
        >>> round(optimal_composition_delta(1.0, 0.0, 1, 0.0), 12)
        0.46211715726
    """
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0, lo_open=True))
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    k = int(v.scalar("count", v.check_range("count", count, 1.0, 20_000.0, integer=True)))
    et = v.scalar("eps_total", v.nonnegative("eps_total", eps_total))
    return delta_finite(_pair(e, d), k, et)


@v.scalar_params
def approx_dp_composed_delta(epsilon: float, delta: float, count: float, eps_total: float) -> float:
    """δ at ε' = ``eps_total`` of ``count`` (ε, δ)-DP releases (pure when δ = 0) by the PLD accountant on the
    four-outcome dominating pair (Kairouz, Oh & Viswanath 2015, Thm. 2.1); exact value their Thm. 3.3.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.approximate_dp import approx_dp_composed_delta
        >>> round(approx_dp_composed_delta(1.0, 0.0, 1, 0.0), 9)
        0.462117157
    """
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0, lo_open=True))
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    k = int(v.scalar("count", v.check_range("count", count, 1.0, 20_000.0, integer=True)))
    return pld_delta(SelfComposed(EpsilonDelta(e, d), k), "add_remove", eps_total, "eps_total")
