"""Poisson sampling: each record enters the sample independently with probability q; the inner event runs on the
sample. Accounted under add/remove or replace-special (the PLD takes replace-one too).

* RDP: Gaussian noise inside (one Gaussian, or compositions of Gaussians, noise multipliers combined as
  (Σ zᵢ⁻²)^{−1/2}) has the exact RDP of the sampled Gaussian (Mironov, Talwar & Zhang 2019, `dpcalc.accounting.rdp.
  sampled_gaussian`); any other inner event the Zhu & Wang 2019 (Thm. 6) bound at integer orders (`amplification`);
* PLD: the mixture pair (1 − q)·Q + q·P against Q and its swap (`dpcalc.accounting.pld.poisson`);
* pure ε: max(log(1 + q(e^ε − 1)), −log(1 − q(1 − e^{−ε}))) of the inner pure ε (the two orientations; attained where
  the inner loss is), so exact when the inner one is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.events.sampling import amplification as amp
from dpcalc.accounting.search import Knob

__all__ = ["PoissonSampled"]

#: the largest order at which the sampled Gaussian's RDP is summed exactly (the sum costs about α terms)
_EXACT_ORDER_MAX = 1e5


def amplified_pure_epsilon(eps: float, q: float) -> float:
    """The pure ε of a release with pure ε ``eps`` run on a sample in which the changed record appears with
    probability q: the larger of log(1 + q(e^ε − 1)) and −log(1 − q(1 − e^{−ε}))."""
    if math.isinf(eps):
        return math.inf
    up = float(np.logaddexp(math.log1p(-q), math.log(q) + eps)) if q < 1.0 else eps
    down = -math.log1p(-q * -math.expm1(-eps))
    return max(up, down)


@register
@dataclass(frozen=True)
class PoissonSampled(Event):
    """Each record enters the sample independently with probability ``sampling_probability``; ``event`` runs on
    the sample."""

    sampling_probability: float
    event: Event
    CLASS_NAME = "PoissonSampledDpEvent"
    SHORT = "poisson_sampled"
    KNOBS: ClassVar[dict[str, Knob]] = {"sampling_probability": knobs.PROBABILITY}

    def __post_init__(self) -> None:
        self._real("sampling_probability", 0.0, 1.0, lo_open=True)
        self._event("event")

    def sampling_schemes(self) -> list[str]:
        return [f"poisson q={self.sampling_probability:.6g}", *self.event.sampling_schemes()]

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if relation == "replace_one":
            raise self.not_accountable("rdp", "Poisson sampling is accounted under add-remove or replace-special here "
                                              "(a replacement is a removal and an addition; the pld accountant takes "
                                              "replace-one)")
        q = self.sampling_probability
        z = self.event.gaussian_noise()
        if z is not None:
            from dpcalc.accounting import rdp

            if math.isinf(z):
                return Curve(np.zeros_like(orders), True)
            # above _EXACT_ORDER_MAX the exact sum costs ~α terms an order: the unsampled Gaussian's α/(2z²) bounds
            # it (Rényi divergence is jointly quasi-convex, so a mixture with Q is no farther than P is)
            big = orders > _EXACT_ORDER_MAX
            curve = np.asarray(orders / (2.0 * z * z), dtype=np.float64)
            if (~big).any():
                curve[~big] = rdp.sampled_gaussian(q, z, orders[~big])
            return Curve(curve, not big.any())
        amp.integer_orders(orders)  # the bound's cost: ⌈max α⌉ orders

        def inner(a: v.FloatArray) -> v.FloatArray:
            return self.event.rdp(a, "add_remove").rdp

        return Curve(amp.on_orders(orders, inner, lambda cv, need: amp.poisson(q, cv, need)), False)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.poisson(self.event.privacy_loss(relation), self.sampling_probability)

    def pure_epsilon(self, relation: Relation) -> float:
        return amplified_pure_epsilon(self.event.pure_epsilon(relation), self.sampling_probability)

    def poisson_gaussian(self, relation: Relation) -> list[tuple[float, float, int]] | None:
        z = self.event.gaussian_noise()
        if z is None or relation == "replace_one":
            return None
        return [(z, self.sampling_probability, 1)]
