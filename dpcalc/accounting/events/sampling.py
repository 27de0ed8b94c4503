"""Sampling: which records a mechanism sees, with parameters named as dp-accounting 0.6 names them.

The sampling scheme changes what "neighbouring" means for the inner mechanism: Poisson sampling keeps the
add/remove relation, a fixed-size sample (without or with replacement) is a replace-one statement (the dataset size
is public).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcalc.accounting.events.base import Event, register
from dpcalc.errors import DomainError

__all__ = ["PoissonSampled", "SampledWithReplacement", "SampledWithoutReplacement", "TruncatedSubsampledGaussian"]


@register
@dataclass(frozen=True)
class PoissonSampled(Event):
    """Each record enters the sample independently with probability ``sampling_probability``; ``event`` runs on
    the sample."""

    sampling_probability: float
    event: Event
    CLASS_NAME = "PoissonSampledDpEvent"
    SHORT = "poisson_sampled"

    def __post_init__(self) -> None:
        self._real("sampling_probability", 0.0, 1.0, lo_open=True)
        self._event("event")


def _check_sizes(event: Event, n_field: str) -> None:
    event._integer(n_field, 1)
    event._integer("sample_size", 1)


@register
@dataclass(frozen=True)
class SampledWithoutReplacement(Event):
    """A uniformly random subset of ``sample_size`` b out of ``source_dataset_size`` n records (a shuffled,
    fixed-size batch); ``event`` runs on it."""

    source_dataset_size: int
    sample_size: int
    event: Event
    CLASS_NAME = "SampledWithoutReplacementDpEvent"
    SHORT = "sampled_without_replacement"

    def __post_init__(self) -> None:
        _check_sizes(self, "source_dataset_size")
        if self.sample_size > self.source_dataset_size:
            raise DomainError(f"{self.CLASS_NAME}.sample_size must be <= source_dataset_size "
                              f"({self.source_dataset_size}) (got {self.sample_size})")
        self._event("event")


@register
@dataclass(frozen=True)
class SampledWithReplacement(Event):
    """``sample_size`` draws with replacement from ``source_dataset_size`` records; ``event`` runs on them."""

    source_dataset_size: int
    sample_size: int
    event: Event
    CLASS_NAME = "SampledWithReplacementDpEvent"
    SHORT = "sampled_with_replacement"

    def __post_init__(self) -> None:
        _check_sizes(self, "source_dataset_size")
        self._event("event")


@register
@dataclass(frozen=True)
class TruncatedSubsampledGaussian(Event):
    """Poisson sampling at ``sampling_probability`` from ``dataset_size`` records, the sample cut to a random
    subset of at most ``truncated_batch_size``, then the Gaussian mechanism with ``noise_multiplier``."""

    dataset_size: int
    sampling_probability: float
    truncated_batch_size: int
    noise_multiplier: float
    CLASS_NAME = "TruncatedSubsampledGaussianDpEvent"
    SHORT = "truncated_subsampled_gaussian"

    def __post_init__(self) -> None:
        self._integer("dataset_size", 1)
        self._real("sampling_probability", 0.0, 1.0, lo_open=True)
        self._integer("truncated_batch_size", 1)
        self._real("noise_multiplier", 0.0, lo_open=True)
