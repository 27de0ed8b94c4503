"""Events onto dpcalc's PLD accountant (`dpcalc.accounting.pld`): each event becomes a list of
``(privacy loss, count)`` components, composed with a certified bracket ε_lower <= ε <= ε_upper.

Mechanisms map onto the loss constructors of `dpcalc.accounting.pld.losses` with sensitivity 1 (noise
parameters are relative to it) under the relation; tree aggregation is the Gaussian with noise multiplier
z/√⌈log₂(T + 1)⌉ (a record touches that many nodes); Poisson sampling and sampling without/with replacement wrap
the loss of one inner mechanism (a composition of Gaussians inside a sample is one Gaussian with the combined
noise multiplier); truncated subsampling is `pld.truncated_poisson` of the Gaussian. zCDP statements and
repeat-and-select have no PLD here (one line naming what is supported).
"""

from __future__ import annotations

import math
from typing import Any

from dpcalc.accounting.events import composition as c
from dpcalc.accounting.events import mechanisms as m
from dpcalc.accounting.events import sampling as s
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.rdp_accountant import gaussian_noise
from dpcalc.accounting.events.relation import Relation
from dpcalc.errors import DomainError

__all__ = ["SUPPORTED", "components", "epsilon"]

SUPPORTED = ("Gaussian, Laplace, DiscreteLaplace, DiscreteGaussian, RandomizedResponse, MixtureOfGaussians, "
             "EpsilonDelta, NoOp, PoissonSampled / SampledWithoutReplacement / SampledWithReplacement of one "
             "mechanism, TruncatedSubsampledGaussian, SingleEpochTreeAggregation, SelfComposed, Composed")


def _refuse(event: Event, why: str) -> DomainError:
    return DomainError(f"pld cannot account {event.CLASS_NAME}: {why}; the pld accountant supports {SUPPORTED}")


def _loss(event: Event, rel: Relation) -> Any:
    """The privacy loss of one mechanism (or of Gaussian noise composed into one)."""
    from dpcalc.accounting import pld

    z = gaussian_noise(event)
    if z is not None:
        return pld.gaussian(z, 1.0, rel)
    if isinstance(event, m.Laplace):
        return pld.laplace(event.noise_multiplier, 1.0, rel)
    if isinstance(event, m.DiscreteLaplace):
        return pld.discrete_laplace(event.noise_parameter, event.sensitivity, rel)
    if isinstance(event, m.DiscreteGaussian):
        return pld.discrete_gaussian(event.sigma, event.sensitivity, rel)
    if isinstance(event, m.RandomizedResponse):
        return pld.randomized_response(event.noise_parameter, event.num_buckets, rel)
    if isinstance(event, m.MixtureOfGaussians):
        return pld.mixture_of_gaussians(event.standard_deviation, event.sensitivities, event.sampling_probs, rel)
    if isinstance(event, m.EpsilonDelta):
        return pld.pure_dp(event.epsilon, rel) if event.delta == 0.0 else pld.approx_dp(event.epsilon, event.delta,
                                                                                           rel)
    if isinstance(event, c.SingleEpochTreeAggregation):
        if rel == "add_remove":
            raise _refuse(event, "tree aggregation is defined under replace-one or replace-special")
        return pld.gaussian(event.noise_multiplier / math.sqrt(math.ceil(math.log2(event.max_steps + 1))), 1.0, rel)
    if isinstance(event, s.PoissonSampled):
        return pld.poisson(_loss(event.event, rel), event.sampling_probability)
    if isinstance(event, s.SampledWithoutReplacement):
        return pld.sampled_without_replacement(_loss(event.event, rel), event.sample_size, event.source_dataset_size)
    if isinstance(event, s.TruncatedSubsampledGaussian):
        return pld.truncated_poisson(pld.gaussian(event.noise_multiplier, 1.0, rel), event.sampling_probability,
                                     event.dataset_size, event.truncated_batch_size)
    if isinstance(event, s.SampledWithReplacement):
        return pld.sampled_with_replacement(_loss(event.event, rel), event.sample_size, event.source_dataset_size)
    if isinstance(event, c.SelfComposed | c.Composed):
        raise _refuse(event, "a composition inside a sample must be Gaussian noise only")
    why = {m.ZCDp: "a zCDP statement has no privacy-loss distribution (use rdp)",
           c.RepeatAndSelect: "repeat-and-select is accounted through RDP (use rdp)",
           m.Unsupported: "it is dp-accounting's placeholder for a mechanism without accounting",
           m.NonPrivate: "a non-private release has no finite epsilon"}.get(type(event), "unknown event")
    raise _refuse(event, why)


def components(event: Event, rel: Relation, count: int = 1) -> list[tuple[Any, int]]:
    """The ``(loss, count)`` components of an event (no-ops and zero counts left out)."""
    if isinstance(event, m.NoOp) or count == 0:
        return []
    if isinstance(event, c.SelfComposed):
        return components(event.event, rel, count * event.count)
    if isinstance(event, c.Composed):
        return [x for e in event.events for x in components(e, rel, count)]
    return [(_loss(event, rel), count)]


def epsilon(event: Event, rel: Relation, delta: float, *, rtol: float | None = None) -> Any:
    """The certified bracket (`dpcalc.accounting.pld.EpsBracket`) of an event at δ."""
    from dpcalc.accounting import pld

    comps = components(event, rel)
    if not comps:
        raise DomainError(f"pld: {event.CLASS_NAME} releases nothing (epsilon = 0)")
    return pld.epsilon_composed(_merged(comps), delta, rtol=rtol)


def _merged(comps: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Equal losses merged into one component (their counts add)."""
    out: dict[Any, int] = {}
    for loss, n in comps:
        out[loss] = out.get(loss, 0) + n
    return list(out.items())
