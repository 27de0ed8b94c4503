"""Repeat-and-select (Papernot & Steinke 2022): run a mechanism a random number K of times and release only the best
run. With ε(λ) the RDP curve of one run:

* K truncated negative binomial with shape η >= 0 and parameter γ ∈ (0, 1) (η = 0 logarithmic, η = 1 geometric;
  their Thm. 2): ``ε'(λ) <= ε(λ) + (1 + η)(1 − 1/λ̂)ε(λ̂) + (1 + η)log(1/γ)/λ̂ + log E[K]/(λ − 1)`` for any λ̂ >= 1;
  minimised over λ̂ on the grid and λ̂ = 1 (and λ̂ = ∞, where (1 − 1/λ̂)ε(λ̂) becomes the run's pure ε).
  E[K] = η(1 − γ)/(γ(1 − γ^η)) (η > 0), (1 − γ)/(γ log(1/γ)) (η = 0); γ is solved from the mean.
* K Poisson with mean μ (their Thm. 6): ``ε'(λ) <= ε(λ) + μδ̂ + log μ/(λ − 1)``, δ̂ the δ of one run at
  ε̂ = log(1 + 1/(λ − 1)) (from its RDP curve, Canonne, Kamath & Steinke 2020, Prop. 12).

RDP is non-decreasing in the order, so each value is finally replaced by the smallest value at any order >= it.
An upper bound; no privacy-loss pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc._roots import scalar_root
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.mechanisms.approximate_dp import pure_dp_curve
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.search import Knob
from dpcalc.errors import DomainError

__all__ = ["RepeatAndSelect", "repeat_and_select_rdp"]


def tnb_mean(gamma: float, shape: float) -> float:
    """E[K] of the truncated negative binomial with parameter γ and shape η (logarithmic at η = 0)."""
    if shape == 0.0:
        return (1.0 - gamma) / (gamma * -math.log(gamma))
    return shape * (1.0 - gamma) / (gamma * -math.expm1(shape * math.log(gamma)))


def tnb_gamma(mean: float, shape: float) -> float:
    """γ with E[K] = ``mean`` (E[K] falls from ∞ to 1 as γ rises from 0 to 1)."""
    if mean <= 1.0:
        return 1.0
    if shape == 1.0:
        return 1.0 / mean
    root = scalar_root(lambda g: tnb_mean(g, shape) - mean, 1e-300, 1.0 - 1e-15, increasing=False, safe="lo",
                       log=True)
    if root is None:
        raise DomainError(f"RepeatAndSelectDpEvent: no distribution with shape {shape:g} has mean {mean:g}")
    return root


def repeat_and_select(orders: v.FloatArray, rdp: v.FloatArray, mean: float, shape: float,
                      pure: float = math.inf) -> v.FloatArray:
    """The RDP curve of repeat-and-select on ``orders`` from one run's curve ``rdp`` (module docstring); ``pure``: one
    run's pure ε (its λ̂ = ∞ term), inf when it has none."""
    out = np.full(orders.shape, np.inf)
    if math.isinf(shape):  # Poisson
        from dpcalc.accounting import conversion

        for i, lam in enumerate(orders):
            eps_hat = math.log1p(1.0 / (lam - 1.0))
            log_d = conversion.log_delta_at_order(rdp, orders - 1.0, eps_hat)
            delta_hat = math.exp(min(float(np.min(log_d)), 0.0))
            out[i] = rdp[i] + mean * delta_hat + math.log(mean) / (lam - 1.0)
    else:
        gamma = tnb_gamma(mean, shape)
        log_inv_gamma = -math.log(gamma) if gamma < 1.0 else 0.0
        c = (1.0 + shape) * min(float(np.min((1.0 - 1.0 / orders) * rdp + log_inv_gamma / orders)), log_inv_gamma,
                                pure)
        out = rdp + math.log(mean) / (orders - 1.0) + c
    # monotone in the order: the smallest value at any order >= λ
    order_idx = np.argsort(orders)
    suffix_min = np.minimum.accumulate(out[order_idx][::-1])[::-1]
    result = np.empty_like(out)
    result[order_idx] = suffix_min
    return result


@register
@dataclass(frozen=True)
class RepeatAndSelect(Event):
    """Run ``event`` a random number K of times (mean ``mean``; Poisson when ``shape`` = ∞, logarithmic at 0,
    geometric at 1, truncated negative binomial between) and release only the best run."""

    event: Event
    mean: float
    shape: float
    CLASS_NAME = "RepeatAndSelectDpEvent"
    SHORT = "repeat_and_select"
    WITHOUT: ClassVar[dict[str, str]] = {"privacy_loss": "repeat-and-select is accounted through RDP (use rdp)"}
    KNOBS: ClassVar[dict[str, Knob]] = {"mean": Knob("mean", 1.0, 1e6, eps_increases=True, slope=1.0)}

    def __post_init__(self) -> None:
        self._event("event")
        self._real("mean", 1.0)
        value = self.shape
        if not isinstance(value, int | float) or isinstance(value, bool) or value != value or value < 0:
            raise DomainError(f"{self.CLASS_NAME}.shape must be >= 0 or inf (got {v.brief(value)})")
        object.__setattr__(self, "shape", float(value))

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        inner = self.event.rdp(orders, relation)
        return Curve(repeat_and_select(orders, inner.rdp, self.mean, self.shape, self.event.pure_epsilon(relation)),
                     False)



@v.scalar_params
def repeat_and_select_rdp(order: float, order_hat: float, epsilon: float, mean: float) -> float:
    """RDP at order λ of repeat-and-select with a geometric number of runs K (mean ``mean``, γ = 1/mean) of an
    ε-DP release, at a given λ̂ >= 1 (Papernot & Steinke 2022, Thm. 2 with η = 1):
    ``ε(λ) + 2(1 − 1/λ̂)ε(λ̂) + 2log(1/γ)/λ̂ + log E[K]/(λ − 1)``, ε(·) the release's RDP (`pure_dp_rdp`).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.repeat_and_select import repeat_and_select_rdp
        >>> round(repeat_and_select_rdp(2.0, 1.0, 0.5, 2.0), 9)
        2.306777835
    """
    lam = v.scalar("order", v.check_range("order", order, 1.0, lo_open=True))
    lam_hat = v.scalar("order_hat", v.check_range("order_hat", order_hat, 1.0))
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0))
    mu = v.scalar("mean", v.check_range("mean", mean, 1.0, lo_open=True))
    gamma = tnb_gamma(mu, 1.0)
    # (1 − 1/λ̂)ε(λ̂) = (λ̂ − 1)ε(λ̂)/λ̂ = log((e^{λ̂ε} + e^{(1−λ̂)ε})/(1 + e^ε))/λ̂: no 0/0 at λ̂ = 1
    cgf_hat = float(np.logaddexp(lam_hat * e, (1.0 - lam_hat) * e) - np.logaddexp(0.0, e))
    at_lam = float(pure_dp_curve(np.array([lam]), e)[0])
    return at_lam + 2.0 * cgf_hat / lam_hat + 2.0 * -np.log(gamma) / lam_hat + float(np.log(tnb_mean(gamma, 1.0))) / (
        lam - 1.0)
