"""The mixture-of-Gaussians mechanism (Ganesh et al. 2024): N(0, σ²) against Σᵢ pᵢ N(cᵢ, σ²) — a record's
contribution is cᵢ with probability pᵢ (e.g. the number of a user's examples in a Poisson-sampled batch).

* RDP: with support {0, c} it is the Poisson-subsampled Gaussian at rate P(c) and noise σ/c (exact, Mironov, Talwar &
  Zhang 2019); other supports have no RDP form here;
* PLD: the pair and its swap (their loss is monotone in the output); add/remove and replace-special only (no
  dominating pair under replace-one is known for a random sensitivity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob
from dpcalc.errors import DomainError

__all__ = ["MixtureOfGaussians", "mixture_of_gaussians_delta"]

_REPLACE_ONE = "no dominating pair under replace-one is known for a random sensitivity"


@register
@dataclass(frozen=True)
class MixtureOfGaussians(Event):
    """N(0, σ²) against Σᵢ pᵢ N(cᵢ, σ²), σ = ``standard_deviation``, cᵢ = ``sensitivities``, pᵢ = ``sampling_probs``
    (summing to 1)."""

    standard_deviation: float
    sensitivities: tuple[float, ...]
    sampling_probs: tuple[float, ...]
    CLASS_NAME = "MixtureOfGaussiansDpEvent"
    SHORT = "mixture_of_gaussians"
    KNOBS: ClassVar[dict[str, Knob]] = {"standard_deviation": knobs.noise("standard_deviation")}

    def __post_init__(self) -> None:
        self._real("standard_deviation", 0.0, lo_open=True)
        self._reals("sensitivities", 0.0)
        self._reals("sampling_probs", 0.0)
        if len(self.sensitivities) != len(self.sampling_probs):
            raise DomainError(f"{self.CLASS_NAME}: sensitivities and sampling_probs must have the same length (got "
                              f"{len(self.sensitivities)} and {len(self.sampling_probs)})")
        if abs(sum(self.sampling_probs) - 1.0) > 1e-9:
            raise DomainError(f"{self.CLASS_NAME}.sampling_probs must sum to 1 (got {sum(self.sampling_probs):.12g})")

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        """Supports {0, c} (or {c}): the Poisson-subsampled Gaussian with rate P(c), noise σ/c."""
        if relation == "replace_one":
            raise self.not_accountable("rdp", _REPLACE_ONE)
        weights: dict[float, float] = {}
        for c, p in zip(self.sensitivities, self.sampling_probs, strict=True):
            if p > 0.0:
                weights[c] = weights.get(c, 0.0) + p
        moved = [c for c in weights if c > 0.0]
        if not moved:
            return Curve(np.zeros_like(orders), True)
        if len(moved) > 1:
            raise self.not_accountable("rdp", "only sensitivities {0, c} have an RDP curve here (use the pld "
                                              "accountant for more)")
        from dpcalc.accounting import rdp

        z, q = self.standard_deviation / moved[0], min(weights[moved[0]], 1.0)
        return Curve(np.asarray(rdp.sampled_gaussian(q, z, orders), dtype=np.float64), True)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        if relation == "replace_one":
            raise self.not_accountable("privacy_loss", _REPLACE_ONE)
        return pld.mixture_of_gaussians(self.standard_deviation, self.sensitivities, self.sampling_probs, relation)


@v.scalar_params
def mixture_of_gaussians_delta(eps: float, sigma: float, c1: float, c2: float, p1: float) -> float:
    """δ(ε) of the mixture-of-Gaussians mechanism (Ganesh et al. 2024), add/remove: the worse of
    (p₁N(c₁, σ²) + (1 − p₁)N(c₂, σ²), N(0, σ²)) and its swap.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.mixture import mixture_of_gaussians_delta
        >>> round(mixture_of_gaussians_delta(1.0, 1.0, 1.0, 1.0, 0.5), 6)
        0.126937
    """
    s = v.scalar("sigma", v.positive("sigma", sigma))
    a = v.scalar("c1", v.positive("c1", c1))
    b = v.scalar("c2", v.positive("c2", c2))
    p = v.scalar("p1", v.check_range("p1", p1, 0.0, 1.0))
    return pld_delta(MixtureOfGaussians(s, (a, b), (p, 1.0 - p)), "add_remove", eps)


