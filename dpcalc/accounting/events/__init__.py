"""Events: what was released, on which records, how often — each event owns its privacy maps, and every accountant
takes an event (a training run is one too).

* `relation` — the neighbouring relations and dpcalc's sensitivity convention;
* `base` — the event base class, its privacy maps and the class registry;
* `mechanisms` — one module per mechanism: Gaussian, Laplace, discrete Laplace, discrete Gaussian, randomized
  response, mixture of Gaussians, (ε, δ) releases, zCDP statements, tree aggregation, repeat-and-select, the
  exponential mechanism, permute-and-flip, and the trivial events;
* `sampling` — one module per sampling scheme: Poisson, without and with replacement, truncated Poisson, random
  allocation;
* `composition` — self-composition and sequences; `training` — a training run in its own terms;
* `reader` — dictionaries (dp-accounting's ``to_named_tuple()`` form, also as ``json.dumps`` writes it), files and
  dp-accounting's own event objects.
"""

from __future__ import annotations

from dpcalc.accounting.events.base import EVENT_CLASSES, Curve, Event, NotAccountable, providers
from dpcalc.accounting.events.composition import Composed, SelfComposed
from dpcalc.accounting.events.mechanisms.approximate_dp import EpsilonDelta
from dpcalc.accounting.events.mechanisms.discrete_gaussian import DiscreteGaussian
from dpcalc.accounting.events.mechanisms.discrete_laplace import DiscreteLaplace
from dpcalc.accounting.events.mechanisms.distributed import DistributedNoise
from dpcalc.accounting.events.mechanisms.exponential import ExponentialMechanism
from dpcalc.accounting.events.mechanisms.gaussian import Gaussian
from dpcalc.accounting.events.mechanisms.laplace import Laplace
from dpcalc.accounting.events.mechanisms.mixture import MixtureOfGaussians
from dpcalc.accounting.events.mechanisms.permute_and_flip import PermuteAndFlip
from dpcalc.accounting.events.mechanisms.randomized_response import RandomizedResponse
from dpcalc.accounting.events.mechanisms.repeat_and_select import RepeatAndSelect
from dpcalc.accounting.events.mechanisms.tree import SingleEpochTreeAggregation
from dpcalc.accounting.events.mechanisms.trivial import NonPrivate, NoOp, Unsupported
from dpcalc.accounting.events.mechanisms.zcdp import ZCDp
from dpcalc.accounting.events.reader import as_event, from_dict, load, to_dict
from dpcalc.accounting.events.relation import RELATIONS, Relation, relation
from dpcalc.accounting.events.sampling.poisson import PoissonSampled
from dpcalc.accounting.events.sampling.random_allocation import RandomAllocation
from dpcalc.accounting.events.sampling.truncated import TruncatedSubsampledGaussian
from dpcalc.accounting.events.sampling.with_replacement import SampledWithReplacement
from dpcalc.accounting.events.sampling.without_replacement import SampledWithoutReplacement
from dpcalc.accounting.events.training import TrainingRun

__all__ = ["EVENT_CLASSES", "RELATIONS", "Composed", "Curve", "DiscreteGaussian", "DiscreteLaplace", "DistributedNoise",
           "EpsilonDelta", "Event", "ExponentialMechanism", "Gaussian", "Laplace", "MixtureOfGaussians", "NoOp",
           "NonPrivate", "NotAccountable", "PermuteAndFlip", "PoissonSampled", "RandomAllocation", "RandomizedResponse",
           "Relation", "RepeatAndSelect", "SampledWithReplacement", "SampledWithoutReplacement", "SelfComposed",
           "SingleEpochTreeAggregation", "TrainingRun", "TruncatedSubsampledGaussian", "Unsupported", "ZCDp",
           "as_event", "from_dict", "load", "providers", "relation", "to_dict"]
