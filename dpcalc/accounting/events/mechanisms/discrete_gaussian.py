"""The discrete Gaussian mechanism: integer noise with P(x) ∝ e^{−x²/(2σ²)} on an integer statistic of L2
sensitivity Δ (Canonne, Kamath & Steinke 2020). dpcalc's own event (dp-accounting 0.6 has none).

* RDP at the integer shift s: ``α s²/(2σ²) + log(θ((1 − α)s)/θ(0))/(α − 1)``, θ(c) = Σₖ e^{−(k − c)²/(2σ²)}
  (completing the square in Σₖ p(k)^α p(k − s)^{1−α}); θ(c) <= θ(0), so never above the Gaussian's, exact;
* PLD: the pair (DG(s, σ), DG(0, σ)) (their Thm. 7 gives one release's δ(ε) in closed form);
* no pure ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta, size
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.accounting.search import Knob

__all__ = ["DiscreteGaussian", "discrete_gaussian_delta", "discrete_gaussian_rdp"]


def _log_theta_ratio(c: v.FloatArray, sigma: float) -> v.FloatArray:
    """log(θ(c)/θ(0)), θ(c) = Σₖ e^{−(k − c)²/(2σ²)}: a direct sum for σ < 1, else Poisson summation
    θ(c) = √(2π)σ Σₘ e^{−2π²σ²m²} cos(2πmc) (terms beyond m = 3 are below e^{−177})."""
    frac = c - np.round(c)
    if sigma < 1.0:
        k = np.arange(-int(40 * sigma) - 2, int(40 * sigma) + 3, dtype=np.float64)
        with np.errstate(under="ignore"):
            num = np.exp(-((k[None, :] - frac[:, None]) ** 2) / (2 * sigma * sigma)).sum(axis=1)
            den = float(np.exp(-(k**2) / (2 * sigma * sigma)).sum())
        return np.asarray(np.log(num / den))
    m = np.arange(1, 4, dtype=np.float64)
    w = np.exp(-2.0 * math.pi**2 * sigma * sigma * m * m)
    num = 1.0 + 2.0 * (w[None, :] * np.cos(2.0 * math.pi * m[None, :] * frac[:, None])).sum(axis=1)
    return np.asarray(np.log1p((num - 1.0 - 2.0 * float(w.sum())) / (1.0 + 2.0 * float(w.sum()))))


def discrete_gaussian_curve(alphas: v.FloatArray, sigma: float, shift: int) -> v.FloatArray:
    """RDP of the discrete Gaussian at integer shift s: the Gaussian's α s²/(2σ²) plus
    log(θ((1 − α)s)/θ(0))/(α − 1) <= 0."""
    ratio = _log_theta_ratio((1.0 - alphas) * shift, sigma)
    with np.errstate(over="ignore"):
        gauss = alphas * shift * shift / (2.0 * sigma * sigma)
    return np.asarray(np.maximum(gauss + np.minimum(ratio, 0.0) / (alphas - 1.0), 0.0))


@register
@dataclass(frozen=True)
class DiscreteGaussian(Event):
    """The discrete Gaussian mechanism with scale ``sigma`` and integer ``sensitivity``."""

    sigma: float
    sensitivity: int = 1
    CLASS_NAME = "DiscreteGaussianDpEvent"
    SHORT = "discrete_gaussian"
    KNOBS: ClassVar[dict[str, Knob]] = {"sigma": knobs.noise("sigma")}
    IN_DP_ACCOUNTING = False

    def __post_init__(self) -> None:
        self._real("sigma", 0.0, lo_open=True)
        self._integer("sensitivity", 1)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(discrete_gaussian_curve(orders, self.sigma, shift_factor(relation) * self.sensitivity), True)

    def scaled(self, factor: int) -> DiscreteGaussian:
        return DiscreteGaussian(self.sigma, self.sensitivity * factor)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.discrete_gaussian(self.sigma, self.sensitivity, relation)


@v.named_shapes
def discrete_gaussian_rdp(alpha: ArrayLike, sigma: ArrayLike, shift: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of the discrete Gaussian P(k) ∝ e^{−k²/(2σ²)} at the integer output shift s:
    ``αs²/(2σ²) + log(θ((1 − α)s)/θ(0))/(α − 1)``, θ(c) = Σₖ e^{−(k − c)²/(2σ²)} (Canonne, Kamath & Steinke
    2020; completing the square in Σₖ p(k)^α p(k − s)^{1−α}).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.discrete_gaussian import discrete_gaussian_rdp
        >>> round(discrete_gaussian_rdp(2.0, 2.0, 1), 12)
        0.25
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    sg = v.scalar("sigma", v.positive("sigma", sigma))
    s = int(v.scalar("shift", v.integer_at_least("shift", shift, 1)))
    return v.scalar_or_array(discrete_gaussian_curve(np.atleast_1d(a), sg, s).reshape(np.shape(a)))


@v.scalar_params
def discrete_gaussian_delta(eps: float, sigma: float, shift: float) -> float:
    """δ(ε) of one discrete Gaussian release P(k) ∝ e^{−k²/(2σ²)} whose neighbouring outputs differ by the integer
    ``shift`` s (add/remove, sensitivity s): ``P(X >= m) − e^ε Q(X >= m)``, m = ⌊εσ²/s + s/2⌋ + 1 (Canonne, Kamath &
    Steinke 2020, Thm. 7).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.discrete_gaussian import discrete_gaussian_delta
        >>> round(discrete_gaussian_delta(1.0, 2.0, 1), 6)
        0.007249
    """
    sg = v.scalar("sigma", v.positive("sigma", sigma))
    return pld_delta(DiscreteGaussian(sg, size("shift", shift)), "add_remove", eps)
