"""Events: what was released, on which records, how often — accounted under an explicit neighbouring relation.

One concept per module:

* `relation` — the relations and dpcalc's sensitivity convention;
* `base` — the event base class and the class registry;
* `mechanisms` — Gaussian, Laplace, discrete Laplace, discrete Gaussian,
  randomized response, mixture of Gaussians, zCDP, (ε, δ), no-op, non-private, unsupported;
* `sampling` — Poisson, without and with replacement, truncated subsampling;
* `composition` — self-composition, sequences, tree aggregation, repeat-and-select;
* `reader` — dictionaries (dp-accounting's ``to_named_tuple()`` form), files and
  duck-typed dp-accounting objects.
"""

from __future__ import annotations

from dpcalc.accounting.events.base import EVENT_CLASSES, Event
from dpcalc.accounting.events.composition import Composed, RepeatAndSelect, SelfComposed, SingleEpochTreeAggregation
from dpcalc.accounting.events.mechanisms import (
    DiscreteGaussian,
    DiscreteLaplace,
    EpsilonDelta,
    Gaussian,
    Laplace,
    MixtureOfGaussians,
    NonPrivate,
    NoOp,
    RandomizedResponse,
    Unsupported,
    ZCDp,
)
from dpcalc.accounting.events.reader import as_event, from_dict, load, to_dict
from dpcalc.accounting.events.relation import RELATIONS, Relation, relation
from dpcalc.accounting.events.sampling import (
    PoissonSampled,
    SampledWithoutReplacement,
    SampledWithReplacement,
    TruncatedSubsampledGaussian,
)

__all__ = ["EVENT_CLASSES", "RELATIONS", "Composed", "DiscreteGaussian", "DiscreteLaplace", "EpsilonDelta", "Event",
           "Gaussian", "Laplace", "MixtureOfGaussians", "NoOp", "NonPrivate", "PoissonSampled", "RandomizedResponse",
           "Relation", "RepeatAndSelect", "SampledWithReplacement", "SampledWithoutReplacement", "SelfComposed",
           "SingleEpochTreeAggregation", "TruncatedSubsampledGaussian", "Unsupported", "ZCDp", "as_event",
           "from_dict", "load", "relation", "to_dict"]
