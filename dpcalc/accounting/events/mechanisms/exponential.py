"""The exponential mechanism with parameter ε (McSherry & Talwar 2007; dp-accounting's ``ExponentialMechanismDpEvent``).

It is ε-bounded range (Durfee & Rogers 2019): its privacy loss lies in an interval [t, t + ε] for some t. Among the
pairs whose loss lies in such an interval, a Rényi divergence is largest at a two-point pair (losses t and t + ε,
mass p on the larger under P; normalisation gives t = log(1 − p(1 − e^{−ε}))), so the RDP of ε-bounded range is the
maximum over p of

    f(p) = log(1 + A p)/(α − 1) + log(1 − c p),  A = e^{(α−1)ε} − 1,  c = 1 − e^{−ε},

a concave function with its maximum at p* = (A − c(α − 1))/(α A c) (clamped to [0, 1]) — Cesar & Rogers 2021
(Sec. 3) bound the same quantity by a zCDP form; this is the exact maximum. It is at most ε, the pure ε.

The PLD accountant uses the dominating pair of an ε-DP release (Kairouz, Oh & Viswanath 2015, Thm. 2.1): an upper
bound (the composition of bounded-range mechanisms is tighter still; Dong, Durfee & Rogers 2020).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import log_expm1
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob

__all__ = ["ExponentialMechanism", "exponential_mechanism_rdp"]


def bounded_range_curve(alphas: v.FloatArray, eps: float) -> v.FloatArray:
    """The RDP of ε-bounded range at the orders (module docstring), in log space where e^{(α−1)ε} would overflow."""
    a = np.asarray(alphas, dtype=np.float64)
    if eps == 0.0:
        return np.zeros_like(a)
    x = (a - 1.0) * eps
    log_a = log_expm1(x)  # log A
    c = -math.expm1(-eps)
    with np.errstate(over="ignore", under="ignore"):
        # p* = (A − c(α − 1))/(αAc) = (1 − c(α − 1)/A)/(αc)
        p = np.clip((1.0 - c * (a - 1.0) * np.exp(-log_a)) / (a * c), 0.0, 1.0)
        log_1_ap = np.logaddexp(0.0, log_a + np.log(np.where(p > 0.0, p, 1.0)))
        log_1_ap = np.where(p > 0.0, log_1_ap, 0.0)
    curve = log_1_ap / (a - 1.0) + np.log1p(-c * p)
    return np.asarray(np.minimum(np.maximum(curve, 0.0), eps))


@register
@dataclass(frozen=True)
class ExponentialMechanism(Event):
    """The exponential mechanism with parameter ``epsilon`` (ε-DP, ε-bounded range)."""

    epsilon: float
    CLASS_NAME = "ExponentialMechanismDpEvent"
    SHORT = "exponential_mechanism"
    KNOBS: ClassVar[dict[str, Knob]] = {"epsilon": Knob("epsilon", 1e-12, 700.0, eps_increases=True, slope=1.0)}

    def __post_init__(self) -> None:
        self._real("epsilon", 0.0, 700.0)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(bounded_range_curve(orders, self.epsilon), True)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.pure_dp(self.epsilon, relation) if self.epsilon > 0.0 else pld.approx_dp(0.0, 0.0, relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return self.epsilon


@v.named_shapes
def exponential_mechanism_rdp(alpha: ArrayLike, epsilon: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of the exponential mechanism with parameter ε — the exact Rényi divergence of ε-bounded range:
    ``max_p log(1 + A p)/(α − 1) + log(1 − c p)``, A = e^{(α−1)ε} − 1, c = 1 − e^{−ε}, at p* = (A − c(α − 1))/(αAc)
    (Durfee & Rogers 2019 for bounded range; the two-point extremal pair).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.exponential import exponential_mechanism_rdp
        >>> round(exponential_mechanism_rdp(2.0, 1.0), 12)
        0.240229013917
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    e = v.check_range("epsilon", epsilon, 0.0, 700.0)
    ab, eb = v.broadcast(alpha=a, epsilon=e)
    out = np.array([float(bounded_range_curve(np.array([x]), float(y))[0]) for x, y in zip(ab.ravel(), eb.ravel(),
                                                                                           strict=True)])
    return v.scalar_or_array(out.reshape(ab.shape))
