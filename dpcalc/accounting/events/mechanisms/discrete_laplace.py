"""The discrete Laplace mechanism: integer noise with P(x) ∝ exp(−a·abs(x)), a = noise parameter, on an integer
statistic of L1 sensitivity Δ (Canonne, Kamath & Steinke 2020, Def. 1).

* RDP at the integer shift s = Δ' (Δ, or 2Δ under replace-one): the three geometric sums of
  Σₓ p(x)^α p(x − s)^{1−α} (x <= 0, 0 < x < s, x >= s) in closed form, exact;
* PLD: the pair (DLap(s, a), DLap(0, a)); one release has Δ' + 1 losses and is exact in closed form;
* pure ε: a·Δ'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta, size
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.accounting.search import Knob

__all__ = ["DiscreteLaplace", "discrete_laplace_delta", "discrete_laplace_rdp"]


def discrete_laplace_curve(alphas: v.FloatArray, a: float, shift: int) -> v.FloatArray:
    """DLap(a), P(x) = tanh(a/2)·e^{−a|x|}, at integer shift s: log Σₓ p(x)^α p(x − s)^{1−α} / (α − 1)."""
    al = alphas
    log_c = math.log(math.tanh(a / 2.0))
    log_geo = -math.log(-math.expm1(-a))  # log 1/(1 − e^{−a})
    left = a * (al - 1.0) * shift + log_geo  # x <= 0
    right = -a * al * shift + log_geo  # x >= s
    total = np.logaddexp(left, right)
    if shift > 1:  # 0 < x < s: e^{a(α−1)s} Σ_{x=1}^{s−1} e^{−a(2α−1)x}
        r = a * (2.0 * al - 1.0)
        m = shift - 1  # Σ_{x=1}^{m} e^{−rx} = e^{−r}(1 − e^{−rm})/(1 − e^{−r})
        middle = a * (al - 1.0) * shift - r + np.log(-np.expm1(-r * m)) - np.log(-np.expm1(-r))
        total = np.logaddexp(total, middle)
    return np.asarray(np.maximum((log_c + total) / (al - 1.0), 0.0))


@register
@dataclass(frozen=True)
class DiscreteLaplace(Event):
    """The discrete Laplace mechanism with ``noise_parameter`` a and integer ``sensitivity``."""

    noise_parameter: float
    sensitivity: int
    CLASS_NAME = "DiscreteLaplaceDpEvent"
    SHORT = "discrete_laplace"
    #: e^{−a|x|}: ε grows with a
    KNOBS: ClassVar[dict[str, Knob]] = {
        "noise_parameter": Knob("noise_parameter", 1e-9, 1e3, eps_increases=True, slope=1.0)}

    def __post_init__(self) -> None:
        self._real("noise_parameter", 0.0, lo_open=True)
        self._integer("sensitivity", 1)

    def _shift(self, relation: Relation) -> int:
        return shift_factor(relation) * self.sensitivity

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(discrete_laplace_curve(orders, self.noise_parameter, self._shift(relation)), True)

    def scaled(self, factor: int) -> DiscreteLaplace:
        return DiscreteLaplace(self.noise_parameter, self.sensitivity * factor)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.discrete_laplace(self.noise_parameter, self.sensitivity, relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return self.noise_parameter * self._shift(relation)


@v.named_shapes
def discrete_laplace_rdp(alpha: ArrayLike, noise_parameter: ArrayLike, shift: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of the discrete Laplace mechanism P(x) = tanh(a/2)e^{−a|x|}, a = ``noise_parameter``, at the
    integer output shift s: ``log(tanh(a/2)(e^{a(α−1)s} + e^{−aαs})/(1 − e^{−a}) + Σ_{x=1}^{s−1} …)/(α − 1)``
    (the Rényi divergence summed in closed form; Canonne, Kamath & Steinke 2020, Def. 1 for the mechanism).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.discrete_laplace import discrete_laplace_rdp
        >>> round(discrete_laplace_rdp(2.0, 0.5, 1), 12)
        0.227336293803
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    t = v.scalar("noise_parameter", v.positive("noise_parameter", noise_parameter))
    s = int(v.scalar("shift", v.integer_at_least("shift", shift, 1)))
    return v.scalar_or_array(discrete_laplace_curve(np.atleast_1d(a), t, s).reshape(np.shape(a)))


@v.scalar_params
def discrete_laplace_delta(eps: float, noise_parameter: float, shift: float) -> float:
    """δ(ε) of one discrete Laplace release P(x) ∝ e^{−a|x|}, a = ``noise_parameter``, whose neighbouring outputs
    differ by the integer ``shift`` s (add/remove, sensitivity s), by the PLD accountant (exact in closed form).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.discrete_laplace import discrete_laplace_delta
        >>> round(discrete_laplace_delta(0.25, 0.5, 1), 10)
        0.1376875166
    """
    a = v.scalar("noise_parameter", v.positive("noise_parameter", noise_parameter))
    return pld_delta(DiscreteLaplace(a, size("shift", shift)), "add_remove", eps)
