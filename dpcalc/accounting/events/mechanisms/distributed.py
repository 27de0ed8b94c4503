"""Distributed noise under secure aggregation: every client clips its update to ℓ2 norm ``l2_norm_bound`` c,
rounds it onto the grid of ``granularity`` γ and adds discrete noise of standard deviation ``noise_stddev`` σ
(parameter units); the server sees the sum of at least ``num_clients`` n noise shares — the distributed discrete
Gaussian (Kairouz, Liu & Steinke 2021) or the distributed Skellam (Agarwal, Kairouz & Liu 2021) mechanism. dpcalc's
own event (dp-accounting has none); the mathematics is `dpcalc.accounting.distributed`'s.

* RDP: the papers' bound on the sum of n shares at the rounded vector's ℓ2 and ℓ1 sensitivities (doubled under
  replace-one), an upper bound (`dpcalc.accounting.distributed.pipeline.Pipeline.round_rdp`). Poisson sampling of
  clients and rounds are `PoissonSampled` and `SelfComposed` around it (the Zhu & Wang 2019 amplification, as the
  papers account it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.distributed.noise import MECHANISMS
from dpcalc.accounting.distributed.rounding import DEFAULT_BETA
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob

__all__ = ["DistributedNoise"]


@register
@dataclass(frozen=True)
class DistributedNoise(Event):
    """One round of distributed discrete noise (``mechanism`` "ddg" or "skellam") on the sum of ``num_clients``
    clipped, rounded ``dimension``-dimensional updates (conditional rounding ``beta``)."""

    mechanism: str
    l2_norm_bound: float
    noise_stddev: float
    granularity: float
    num_clients: int
    dimension: int
    beta: float = DEFAULT_BETA
    CLASS_NAME = "DistributedNoiseDpEvent"
    SHORT = "distributed_noise"
    IN_DP_ACCOUNTING = False
    KNOBS: ClassVar[dict[str, Knob]] = {"noise_stddev": knobs.noise("noise_stddev", 1e-9, 1e9),
                                        "num_clients": Knob("num_clients", 1, 1e9, eps_increases=False,
                                                            integer=True, slope=0.5)}

    def __post_init__(self) -> None:
        object.__setattr__(self, "mechanism", v.choice("mechanism", self.mechanism, MECHANISMS))
        self._real("l2_norm_bound", 0.0, lo_open=True)
        self._real("noise_stddev", 0.0, lo_open=True)
        self._real("granularity", 0.0, lo_open=True)
        self._integer("num_clients", 1, 1e12)
        self._integer("dimension", 1, 1e12)
        self._real("beta", 0.0, 1.0, hi_open=True)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        from dpcalc.accounting.distributed.pipeline import Pipeline

        pipe = Pipeline(self.mechanism, self.l2_norm_bound, self.noise_stddev, self.granularity, self.num_clients,
                        self.dimension, beta=self.beta, relation=relation)
        return Curve(np.asarray(pipe.round_rdp(np.asarray(orders, dtype=np.float64)), dtype=np.float64), False)
