"""Truncated Poisson sampling of the Gaussian (dp-accounting's ``TruncatedSubsampledGaussianDpEvent``): Poisson
sampling at rate q from n records, the sample cut to a random subset of at most B, then the Gaussian mechanism.

The labelled pair of `dpcalc.accounting.pld.truncated_poisson`: with probability 1 − r the Poisson-subsampled
Gaussian, with probability r the cut pair (γ̄N(2Δ) + (1 − γ̄)N(0), N(0)), a subsampled Gaussian at rate γ̄ and noise
z/2. RDP: the labelled pair's (`labelled`) from the subsampled Gaussian's exact RDP, which bounds both of its
orientations (Mironov, Talwar & Zhang 2019, Thm. 5); an upper bound. Add/remove or replace-special for RDP; the PLD
takes replace-one too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta, size
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.events.sampling.labelled import labelled_rdp
from dpcalc.accounting.search import Knob

__all__ = ["TruncatedSubsampledGaussian", "truncated_gaussian_delta"]


@register
@dataclass(frozen=True)
class TruncatedSubsampledGaussian(Event):
    """Poisson sampling at ``sampling_probability`` from ``dataset_size`` records, the sample cut to a random subset
    of at most ``truncated_batch_size``, then the Gaussian mechanism with ``noise_multiplier``."""

    dataset_size: int
    sampling_probability: float
    truncated_batch_size: int
    noise_multiplier: float
    CLASS_NAME = "TruncatedSubsampledGaussianDpEvent"
    SHORT = "truncated_subsampled_gaussian"
    KNOBS: ClassVar[dict[str, Knob]] = {"noise_multiplier": knobs.NOISE, "sampling_probability": knobs.PROBABILITY}

    def __post_init__(self) -> None:
        self._integer("dataset_size", 1)
        self._real("sampling_probability", 0.0, 1.0, lo_open=True)
        self._integer("truncated_batch_size", 1)
        self._real("noise_multiplier", 0.0, lo_open=True)

    def sampling_schemes(self) -> list[str]:
        return [f"truncated poisson q={self.sampling_probability:.6g} max {self.truncated_batch_size}"]

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if relation == "replace_one":
            raise self.not_accountable("rdp", "its untruncated part is Poisson sampling, accounted under add-remove or "
                                              "replace-special here (the pld accountant takes replace-one)")
        from dpcalc.accounting import rdp
        from dpcalc.accounting.pld.losses import truncation_label

        q, z = self.sampling_probability, self.noise_multiplier
        r, gamma = truncation_label(q, self.dataset_size, self.truncated_batch_size)
        poisson_rdp = np.asarray(rdp.sampled_gaussian(q, z, orders), dtype=np.float64)
        if r <= 0.0:
            return Curve(poisson_rdp, True)
        cut = np.asarray(rdp.sampled_gaussian(gamma, z / 2.0, orders), dtype=np.float64)
        return Curve(labelled_rdp(np.array([1.0 - r, r]), np.stack([poisson_rdp, cut]), orders), False)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.truncated_poisson(pld.gaussian(self.noise_multiplier, 1.0, relation), self.sampling_probability,
                                     self.dataset_size, self.truncated_batch_size)


@v.scalar_params
def truncated_gaussian_delta(eps: float, noise_multiplier: float, q: float, dataset_size: float,
                             max_batch: float) -> float:
    """δ(ε) of the Gaussian (noise multiplier z) on a Poisson sample at rate q from n = ``dataset_size`` records cut
    to at most B = ``max_batch``, add/remove: the labelled pair (1 − r)·Poisson pair ⊕ r·fixed-size-sample pair at
    γ̄ = (B/n)P(Bin(n, q) >= B + 1)/r, r = P(Bin(n − 1, q) >= B) (dp-accounting 0.6's truncated construction).

    Examples:
        >>> from dpcalc.accounting.events.sampling.truncated import truncated_gaussian_delta
        >>> round(truncated_gaussian_delta(0.5, 1.0, 0.05, 1000, 55), 6)
        0.002727
    """
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    event = TruncatedSubsampledGaussian(size("dataset_size", dataset_size), qq, size("max_batch", max_batch), z)
    return pld_delta(event, "add_remove", eps)
