"""Mechanisms: one release of a noisy statistic, with parameters named as dp-accounting 0.6 names them.

Noise parameters are relative to the sensitivity (a noise multiplier is the noise scale over the clipping norm C);
how far neighbouring outputs move under each relation is `dpcalc.accounting.events.relation`'s convention
(one sensitivity under add/remove and replace-special, two under replace-one).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcalc.accounting.events.base import Event, register
from dpcalc.errors import DomainError

__all__ = ["DiscreteGaussian", "DiscreteLaplace", "EpsilonDelta", "Gaussian", "Laplace", "MixtureOfGaussians",
           "NoOp", "NonPrivate", "RandomizedResponse", "Unsupported", "ZCDp"]


@register
@dataclass(frozen=True)
class NoOp(Event):
    """Nothing released (ε = 0)."""

    CLASS_NAME = "NoOpDpEvent"
    SHORT = "noop"


@register
@dataclass(frozen=True)
class NonPrivate(Event):
    """A release without a privacy guarantee (ε = ∞)."""

    CLASS_NAME = "NonPrivateDpEvent"
    SHORT = "non_private"


@register
@dataclass(frozen=True)
class Unsupported(Event):
    """dp-accounting's placeholder for a mechanism no accountant knows: read, never accounted."""

    CLASS_NAME = "UnsupportedDpEvent"
    SHORT = "unsupported"


@register
@dataclass(frozen=True)
class Gaussian(Event):
    """The Gaussian mechanism: noise N(0, (z·C)²) on a statistic of L2 sensitivity C; ``noise_multiplier`` z
    (Dwork & Roth 2014, Sec. 3.5.3)."""

    noise_multiplier: float
    CLASS_NAME = "GaussianDpEvent"
    SHORT = "gaussian"

    def __post_init__(self) -> None:
        self._real("noise_multiplier", 0.0, lo_open=True)


@register
@dataclass(frozen=True)
class Laplace(Event):
    """The Laplace mechanism: noise with density e^{−|x|/s}/(2s), s = ``noise_multiplier``·C, on a statistic of L1
    sensitivity C (Dwork & Roth 2014, Def. 3.3)."""

    noise_multiplier: float
    CLASS_NAME = "LaplaceDpEvent"
    SHORT = "laplace"

    def __post_init__(self) -> None:
        self._real("noise_multiplier", 0.0, lo_open=True)


@register
@dataclass(frozen=True)
class DiscreteLaplace(Event):
    """The discrete Laplace mechanism: integer noise with P(x) ∝ e^{−a|x|}, a = ``noise_parameter``, on an integer
    statistic of L1 sensitivity ``sensitivity`` (Canonne, Kamath & Steinke 2020, Def. 1)."""

    noise_parameter: float
    sensitivity: int
    CLASS_NAME = "DiscreteLaplaceDpEvent"
    SHORT = "discrete_laplace"

    def __post_init__(self) -> None:
        self._real("noise_parameter", 0.0, lo_open=True)
        self._integer("sensitivity", 1)


@register
@dataclass(frozen=True)
class DiscreteGaussian(Event):
    """The discrete Gaussian mechanism: integer noise with P(x) ∝ e^{−x²/(2σ²)}, σ = ``sigma``, on an integer
    statistic of L2 sensitivity ``sensitivity`` (Canonne, Kamath & Steinke 2020). dpcalc's own event (dp-accounting
    0.6 has none)."""

    sigma: float
    sensitivity: int = 1
    CLASS_NAME = "DiscreteGaussianDpEvent"
    SHORT = "discrete_gaussian"

    def __post_init__(self) -> None:
        self._real("sigma", 0.0, lo_open=True)
        self._integer("sensitivity", 1)


@register
@dataclass(frozen=True)
class RandomizedResponse(Event):
    """k-ary randomized response: the true bucket with probability 1 − p, else a uniformly random one of the
    ``num_buckets`` k (p = ``noise_parameter``; Warner 1965, dp-accounting's parametrisation). Its input is one
    record's bucket: it is accounted under replace-one or replace-special only."""

    noise_parameter: float
    num_buckets: int
    CLASS_NAME = "RandomizedResponseDpEvent"
    SHORT = "randomized_response"

    def __post_init__(self) -> None:
        self._real("noise_parameter", 0.0, 1.0, lo_open=True)
        self._integer("num_buckets", 2)


@register
@dataclass(frozen=True)
class MixtureOfGaussians(Event):
    """The mixture-of-Gaussians mechanism (Ganesh et al. 2024): N(0, σ²) against Σᵢ pᵢ N(cᵢ, σ²), σ =
    ``standard_deviation``, cᵢ = ``sensitivities``, pᵢ = ``sampling_probs`` (summing to 1)."""

    standard_deviation: float
    sensitivities: tuple[float, ...]
    sampling_probs: tuple[float, ...]
    CLASS_NAME = "MixtureOfGaussiansDpEvent"
    SHORT = "mixture_of_gaussians"

    def __post_init__(self) -> None:
        self._real("standard_deviation", 0.0, lo_open=True)
        self._reals("sensitivities", 0.0)
        self._reals("sampling_probs", 0.0)
        if len(self.sensitivities) != len(self.sampling_probs):
            raise DomainError(f"{self.CLASS_NAME}: sensitivities and sampling_probs must have the same length (got "
                              f"{len(self.sensitivities)} and {len(self.sampling_probs)})")
        if abs(sum(self.sampling_probs) - 1.0) > 1e-9:
            raise DomainError(f"{self.CLASS_NAME}.sampling_probs must sum to 1 (got {sum(self.sampling_probs):.12g})")


@register
@dataclass(frozen=True)
class ZCDp(Event):
    """A release satisfying (ξ, ρ)-zCDP: RDP ξ + ρα at every order α (Bun & Steinke 2016, Def. 1.1), under the
    relation it is accounted with."""

    rho: float
    xi: float = 0.0
    CLASS_NAME = "ZCDpEvent"
    SHORT = "zcdp"

    def __post_init__(self) -> None:
        self._real("rho", 0.0)
        self._real("xi", 0.0)


@register
@dataclass(frozen=True)
class EpsilonDelta(Event):
    """A release satisfying (ε, δ)-DP (pure ε-DP when δ = 0) under the relation it is accounted with. dpcalc's own
    event (dp-accounting 0.6 has none)."""

    epsilon: float
    delta: float = 0.0
    CLASS_NAME = "EpsilonDeltaDpEvent"
    SHORT = "epsilon_delta"

    def __post_init__(self) -> None:
        self._real("epsilon", 0.0, 700.0)
        self._real("delta", 0.0, 1.0, hi_open=True)
