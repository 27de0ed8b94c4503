"""RDP of repeat-and-select (Papernot & Steinke 2022): run a mechanism K times (K random) and release the best run.

With ε(λ) the RDP curve of one run on the order grid:

* K truncated negative binomial with shape η >= 0 and parameter γ ∈ (0, 1) (η = 0 logarithmic, η = 1 geometric;
  their Thm. 2): ``ε'(λ) <= ε(λ) + (1 + η)(1 − 1/λ̂)ε(λ̂) + (1 + η)log(1/γ)/λ̂ + log E[K]/(λ − 1)`` for any λ̂ >= 1;
  we minimise over λ̂ on the grid and λ̂ = 1.
  E[K] = η(1 − γ)/(γ(1 − γ^η)) (η > 0), (1 − γ)/(γ log(1/γ)) (η = 0); γ is solved from the mean.
* K Poisson with mean μ (their Thm. 6): ``ε'(λ) <= ε(λ) + μδ̂ + log μ/(λ − 1)``, δ̂ the δ of one run at
  ε̂ = log(1 + 1/(λ − 1)) (from its RDP curve, Canonne, Kamath & Steinke 2020, Prop. 12).

RDP is non-decreasing in the order, so each value is finally replaced by the smallest value at any order >= it.
"""

from __future__ import annotations

import math

import numpy as np

from dpcalc import _validate as v
from dpcalc._roots import scalar_root
from dpcalc.errors import DomainError

__all__ = ["repeat_and_select", "tnb_gamma", "tnb_mean"]


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


def repeat_and_select(orders: v.FloatArray, rdp: v.FloatArray, mean: float, shape: float) -> v.FloatArray:
    """The RDP curve of repeat-and-select on ``orders`` from one run's curve ``rdp`` (module docstring)."""
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
        c = (1.0 + shape) * min(float(np.min((1.0 - 1.0 / orders) * rdp + log_inv_gamma / orders)), log_inv_gamma)
        out = rdp + math.log(mean) / (orders - 1.0) + c
    # monotone in the order: the smallest value at any order >= λ
    order_idx = np.argsort(orders)
    sorted_vals = out[order_idx]
    suffix_min = np.minimum.accumulate(sorted_vals[::-1])[::-1]
    result = np.empty_like(out)
    result[order_idx] = suffix_min
    return result
