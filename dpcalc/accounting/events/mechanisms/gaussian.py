"""The Gaussian mechanism: noise N(0, (z·C)²) on a statistic of L2 sensitivity C (Dwork & Roth 2014, Sec. 3.5.3).

* RDP: ``α Δ'²/(2z²)`` at shift Δ' (1, or 2 under replace-one), exact (Mironov 2017, Prop. 7);
* PLD: the pair (N(Δ', z²), N(0, z²)); μ-GDP with μ = Δ'/z (Dong, Roth & Su 2022, Thm. 2.7), so compositions without
  sampling are exact (`gaussian_mu`);
* no pure ε (the loss is unbounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta, size
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.accounting.events.sampling.with_replacement import SampledWithReplacement
from dpcalc.accounting.events.sampling.without_replacement import SampledWithoutReplacement
from dpcalc.accounting.search import Knob

__all__ = ["Gaussian", "with_replacement_gaussian_delta", "without_replacement_gaussian_delta"]


def gaussian_rdp(alphas: v.FloatArray, noise_multiplier: float, shift: float) -> v.FloatArray:
    """RDP of the Gaussian with noise multiplier z at output shift Δ' (in sensitivities): ``α Δ'²/(2z²)``."""
    return alphas * shift * shift / (2.0 * noise_multiplier * noise_multiplier)


@register
@dataclass(frozen=True)
class Gaussian(Event):
    """The Gaussian mechanism with ``noise_multiplier`` z (noise standard deviation over the L2 sensitivity)."""

    noise_multiplier: float
    CLASS_NAME = "GaussianDpEvent"
    SHORT = "gaussian"
    KNOBS: ClassVar[dict[str, Knob]] = {"noise_multiplier": knobs.NOISE}

    def __post_init__(self) -> None:
        self._real("noise_multiplier", 0.0, lo_open=True)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(gaussian_rdp(orders, self.noise_multiplier, float(shift_factor(relation))), True)

    def scaled(self, factor: int) -> Gaussian:
        return Gaussian(self.noise_multiplier / factor)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.gaussian(self.noise_multiplier, 1.0, relation)

    def gaussian_mu(self, relation: Relation) -> float:
        return shift_factor(relation) / self.noise_multiplier

    def gaussian_noise(self) -> float:
        return self.noise_multiplier

    def poisson_gaussian(self, relation: Relation) -> list[tuple[float, float, int]]:
        return [(self.noise_multiplier / shift_factor(relation), 1.0, 1)]


@v.scalar_params
def without_replacement_gaussian_delta(eps: float, sigma: float, sample_size: float, dataset_size: float) -> float:
    """δ(ε) of the Gaussian (noise multiplier σ) on ``sample_size`` b records drawn without replacement from
    ``dataset_size`` n, replace-one: the worse of (γN(2, σ²) + (1 − γ)N(0, σ²), N(0, σ²)) and its swap, γ = b/n.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.gaussian import without_replacement_gaussian_delta
        >>> round(without_replacement_gaussian_delta(1.0, 1.0, 10, 100), 6)
        0.019648
    """
    s = v.scalar("sigma", v.positive("sigma", sigma))
    event = SampledWithoutReplacement(size("dataset_size", dataset_size), size("sample_size", sample_size),
                                      Gaussian(s))
    return pld_delta(event, "replace_one", eps)


@v.scalar_params
def with_replacement_gaussian_delta(eps: float, sigma: float, sample_size: float, dataset_size: float) -> float:
    """δ(ε) of the Gaussian (noise multiplier σ) on ``sample_size`` b draws with replacement from ``dataset_size``
    n, replace-one: ``Σ_{k>=1} C(b,k)n^{−k}(1 − 1/n)^{b−k} δ_{μ=2k/σ}(ε)`` (the changed record drawn K times).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.gaussian import with_replacement_gaussian_delta
        >>> round(with_replacement_gaussian_delta(1.0, 1.0, 10, 100), 6)
        0.050538
    """
    s = v.scalar("sigma", v.positive("sigma", sigma))
    event = SampledWithReplacement(size("dataset_size", dataset_size), size("sample_size", sample_size), Gaussian(s))
    return pld_delta(event, "replace_one", eps)
