"""The Laplace mechanism: noise with density exp(−abs(x)/s)/(2s), s = noise multiplier·C, on a statistic of L1
sensitivity C (Dwork & Roth 2014, Def. 3.3).

* RDP at ε₀ = Δ'/s: ``ε₀ + log1p((α − 1)/(2α − 1)·expm1(−(2α − 1)ε₀))/(α − 1)`` (Mironov 2017, Prop. 6), exact, in
  a form without cancellation at α → 1; at α = ∞ it is ε₀;
* PLD: the pair (Lap(Δ', s), Lap(0, s)); one release is exact in closed form (ε = max(0, ε₀ + 2 log(1 − δ)));
* pure ε: ε₀.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import pld_delta
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.accounting.events.sampling.poisson import PoissonSampled
from dpcalc.accounting.search import Knob

__all__ = ["Laplace", "laplace_delta", "laplace_rdp", "poisson_laplace_delta", "poisson_laplace_rdp"]


def laplace_curve(alphas: v.FloatArray, eps0: float | v.FloatArray) -> v.FloatArray:
    """RDP of the Laplace mechanism with ε₀ = Δ'/s (Mironov 2017, Prop. 6), without cancellation at α → 1."""
    a = alphas
    with np.errstate(over="ignore"):
        inner = (a - 1.0) / (2.0 * a - 1.0) * np.expm1(-(2.0 * a - 1.0) * eps0)
    return np.asarray(eps0 + np.log1p(inner) / (a - 1.0))


@register
@dataclass(frozen=True)
class Laplace(Event):
    """The Laplace mechanism with scale ``noise_multiplier`` (relative to the L1 sensitivity)."""

    noise_multiplier: float
    CLASS_NAME = "LaplaceDpEvent"
    SHORT = "laplace"
    KNOBS: ClassVar[dict[str, Knob]] = {"noise_multiplier": knobs.noise("noise_multiplier")}

    def __post_init__(self) -> None:
        self._real("noise_multiplier", 0.0, lo_open=True)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        return Curve(laplace_curve(orders, shift_factor(relation) / self.noise_multiplier), True)

    def scaled(self, factor: int) -> Laplace:
        return Laplace(self.noise_multiplier / factor)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        return pld.laplace(self.noise_multiplier, 1.0, relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return shift_factor(relation) / self.noise_multiplier


@v.named_shapes
def laplace_rdp(alpha: ArrayLike, noise_multiplier: ArrayLike, sensitivity: ArrayLike = 1.0) -> float | v.FloatArray:
    """RDP at order α of the Laplace mechanism with scale b = noise_multiplier and output shift Δ = sensitivity:
    ``ε₀ + log1p((α − 1)/(2α − 1)·expm1(−(2α − 1)ε₀))/(α − 1)``, ε₀ = Δ/b (Mironov 2017, Prop. 6).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.laplace import laplace_rdp
        >>> laplace_rdp(2.0, 1.0)
        0.6191236299985929
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    b = v.positive("noise_multiplier", noise_multiplier)
    d = v.positive("sensitivity", sensitivity)
    ab, bb, db = v.broadcast(alpha=a, noise_multiplier=b, sensitivity=d)
    return v.scalar_or_array(laplace_curve(ab, db / bb))


@v.scalar_params
def laplace_delta(eps: float, noise_multiplier: float, sensitivity: float = 1.0) -> float:
    """δ(ε) of one Laplace release with scale b = ``noise_multiplier`` whose neighbouring outputs differ by Δ =
    ``sensitivity`` (1 under add/remove, 2 under replace-one): exactly ``(1 − e^{(ε − Δ/b)/2})₊``.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.laplace import laplace_delta
        >>> round(laplace_delta(0.5, 1.0), 12)
        0.221199216929
    """
    d = v.scalar("sensitivity", v.check_range("sensitivity", sensitivity, 1.0, 2.0, integer=True))
    return pld_delta(Laplace(v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))),
                     "replace_one" if d == 2.0 else "add_remove", eps)


@v.scalar_params
def poisson_laplace_rdp(alpha: float, noise_multiplier: float, q: float) -> float:
    """RDP at integer order α >= 2 of the Laplace mechanism (scale b = ``noise_multiplier``, sensitivity 1) on a
    Poisson sample at rate q, add/remove, by the event accountant: the Zhu & Wang 2019 (Thm. 6) bound
    ``log[(1 − q)^{α−1}(αq − q + 1) + C(α,2)q²(1 − q)^{α−2}e^{ε(2)} + 3Σ_{l=3}^{α} C(α,l)(1 − q)^{α−l}q^l
    e^{(l−1)ε(l)}]/(α − 1)``, capped by the Laplace curve ε(α) itself.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.laplace import poisson_laplace_rdp
        >>> round(poisson_laplace_rdp(2, 1.0, 0.1), 9)
        0.008536457
    """
    a = int(v.scalar("alpha", v.check_range("alpha", alpha, 2.0, 1024.0, integer=True)))
    b = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    return float(PoissonSampled(qq, Laplace(b)).rdp(np.array([float(a)]), "add_remove").rdp[0])


@v.scalar_params
def poisson_laplace_delta(eps: float, noise_multiplier: float, q: float) -> float:
    """δ(ε) of the Laplace mechanism (scale ``noise_multiplier``, sensitivity 1) on a Poisson sample at rate q,
    add/remove: the worse of the pairs (qLap(1) + (1 − q)Lap(0), Lap(0)) and its swap.

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.laplace import poisson_laplace_delta
        >>> round(poisson_laplace_delta(0.1, 1.0, 0.1), 6)
        0.013122
    """
    b = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    return pld_delta(PoissonSampled(qq, Laplace(b)), "add_remove", eps)
