"""A fixed-size batch drawn without replacement: ``sample_size`` b of ``source_dataset_size`` n records (a shuffled,
fixed-size batch); the inner event runs on it. A replace-one statement (the dataset size is public).

* RDP: the Wang, Balle & Kasiviswanathan 2019 (Thm. 9) bound at integer orders with the inner curve under
  replace-one and its pure ε (`amplification`);
* PLD: the pair (γP + (1 − γ)Q, Q), γ = b/n, and its swap (`dpcalc.accounting.pld.sampled_without_replacement`);
* pure ε: log(1 + γ(e^ε − 1)) of the inner replace-one pure ε (Balle, Barthe & Gaboardi 2018).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.events.sampling import amplification as amp
from dpcalc.accounting.events.sampling.poisson import amplified_pure_epsilon
from dpcalc.accounting.search import Knob
from dpcalc.errors import DomainError

__all__ = ["FixedSizeSample", "SampledWithoutReplacement", "without_replacement_gaussian_rdp"]

_ADD_REMOVE = "a fixed-size sample is a replace-one statement (the dataset size is public; use replace-one or " \
              "replace-special)"


@dataclass(frozen=True)
class FixedSizeSample(Event):
    """``sample_size`` records drawn from ``source_dataset_size``; ``event`` runs on them."""

    source_dataset_size: int
    sample_size: int
    event: Event
    KNOBS: ClassVar[dict[str, Knob]] = {
        "sample_size": Knob("sample_size", 1, 1e15, eps_increases=True, integer=True, slope=1.0),
        "source_dataset_size": Knob("source_dataset_size", 1, 1e15, eps_increases=False, integer=True, slope=-1.0)}

    def __post_init__(self) -> None:
        self._integer("source_dataset_size", 1)
        self._integer("sample_size", 1)
        self._event("event")

    def knob(self, field: str) -> Knob:
        k = super().knob(field)
        if field == "sample_size":  # at most the source
            return dataclasses.replace(k, hi=float(self.source_dataset_size))
        if field == "source_dataset_size":  # at least the sample
            return dataclasses.replace(k, lo=float(self.sample_size))
        return k

    @property
    def fraction(self) -> float:
        return self.sample_size / self.source_dataset_size


@register
@dataclass(frozen=True)
class SampledWithoutReplacement(FixedSizeSample):
    """A uniformly random subset of ``sample_size`` b out of ``source_dataset_size`` n records; ``event`` runs on
    it."""

    CLASS_NAME = "SampledWithoutReplacementDpEvent"
    SHORT = "sampled_without_replacement"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sample_size > self.source_dataset_size:
            raise DomainError(f"{self.CLASS_NAME}.sample_size must be <= source_dataset_size "
                              f"({self.source_dataset_size}) (got {self.sample_size})")

    def sampling_schemes(self) -> list[str]:
        return [f"without replacement {self.sample_size}/{self.source_dataset_size}", *self.event.sampling_schemes()]

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if relation == "add_remove":
            raise self.not_accountable("rdp", _ADD_REMOVE)
        inner_rel: Relation = "replace_one"  # a replace-special neighbour is a replace-one neighbour
        e_inf = self.event.pure_epsilon(inner_rel)

        def inner(a: v.FloatArray) -> v.FloatArray:
            return self.event.rdp(a, inner_rel).rdp

        if self.fraction == 1.0:
            return self.event.rdp(orders, inner_rel)
        gamma = self.fraction
        return Curve(amp.on_orders(orders, inner, lambda cv, need: amp.without_replacement(gamma, cv, e_inf, need)),
                     False)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        if relation == "add_remove":
            raise self.not_accountable("privacy_loss", _ADD_REMOVE)
        return pld.sampled_without_replacement(self.event.privacy_loss(relation), self.sample_size,
                                               self.source_dataset_size)

    def pure_epsilon(self, relation: Relation) -> float:
        return amplified_pure_epsilon(self.event.pure_epsilon("replace_one"), self.fraction)


@v.scalar_params
def without_replacement_gaussian_rdp(alpha: float, gamma: float, sigma: float) -> float:
    """RDP at integer order α >= 2 of the Gaussian with noise multiplier σ on a uniformly random fixed-size sample
    (fraction γ = b/n) under replace-one, the inner Gaussian's RDP 2α/σ² (its sum moves by 2C) and ε(∞) = ∞:
    ``log(1 + γ²C(α,2)min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^{α} 2γ^j C(α,j)e^{(j−1)ε(j)})/(α − 1)``, capped by
    2α/σ² (Wang, Balle & Kasiviswanathan 2019, Thm. 9).

    Examples:
        >>> from dpcalc.accounting.events.sampling.without_replacement import without_replacement_gaussian_rdp
        >>> round(without_replacement_gaussian_rdp(2, 0.01, 2.0), 12)
        0.000543508638
    """
    a = int(v.scalar("alpha", v.check_range("alpha", alpha, 2.0, 1024.0, integer=True)))
    g = v.scalar("gamma", v.check_range("gamma", gamma, 0.0, 1.0, lo_open=True))
    s = v.scalar("sigma", v.positive("sigma", sigma))
    ints = np.arange(2, a + 1, dtype=np.float64)
    inner = 2.0 * ints / (s * s)  # the Gaussian's α Δ'²/(2σ²) at the replace-one shift Δ' = 2
    return float(v.finite_result("rdp", amp.without_replacement(g, inner, np.inf, np.array([float(a)])),
                                 "sigma is too small for this order")[-1])
