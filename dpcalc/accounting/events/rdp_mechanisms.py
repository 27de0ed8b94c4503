"""RDP curves of one mechanism under one neighbouring relation, at any orders α > 1 (fractional ones too).

Shifts follow `dpcalc.accounting.events.relation` (Δ' = Δ, or 2Δ under replace-one). Each function returns
the curve as a float array on ``alphas``; all are exact Rényi divergences of the mechanism's worst pair unless said
otherwise.

* Gaussian: ``α Δ'²/(2z²)`` (Mironov 2017, Prop. 7).
* Laplace (ε₀ = Δ'/s): ``ε₀ + log1p((α − 1)/(2α − 1)·expm1(−(2α − 1)ε₀))/(α − 1)`` (Mironov 2017, Prop. 6).
* Discrete Laplace DLap(a), integer shift s: the three geometric sums of Σₓ p(x)^α p(x − s)^{1−α} (x ≤ 0,
  0 < x < s, x ≥ s), in closed form.
* Discrete Gaussian, integer shift s: ``α s²/(2σ²) + log(θ((1 − α)s)/θ(0))/(α − 1)`` with θ(c) = Σₖ e^{−(k − c)²/(2σ²)}
  (completing the square in Σₖ p(k)^α p(k − s)^{1−α}); θ(c) <= θ(0), so never above the Gaussian's α s²/(2σ²)
  (Canonne, Kamath & Steinke 2020).
* Randomized response: the finite sums of the two output distributions (replace-one: x against x'; replace-special:
  x against the uniform output of the special record, both orientations).
* ε-DP release: the RDP of binary randomized response with e^ε, ``log((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)``,
  which dominates every ε-DP mechanism (Kairouz, Oh & Viswanath 2015, Thm. 2.1, and data processing).
* zCDP: ``ξ + ρα`` (Bun & Steinke 2016, Def. 1.1).
"""

from __future__ import annotations

import math

import numpy as np

from dpcalc import _validate as v

__all__ = ["discrete_gaussian", "discrete_laplace", "gaussian", "laplace", "pure_dp", "randomized_response",
           "zcdp"]


def gaussian(alphas: v.FloatArray, noise_multiplier: float, shift: float) -> v.FloatArray:
    """Gaussian with noise multiplier z and output shift Δ' (in sensitivities)."""
    return alphas * shift * shift / (2.0 * noise_multiplier * noise_multiplier)


def laplace(alphas: v.FloatArray, eps0: float | v.FloatArray) -> v.FloatArray:
    """Laplace with ε₀ = Δ'/s (Mironov 2017, Prop. 6), in the form without cancellation at α → 1."""
    a = alphas
    with np.errstate(over="ignore"):
        inner = (a - 1.0) / (2.0 * a - 1.0) * np.expm1(-(2.0 * a - 1.0) * eps0)
    return np.asarray(eps0 + np.log1p(inner) / (a - 1.0))


def discrete_laplace(alphas: v.FloatArray, a: float, shift: int) -> v.FloatArray:
    """Discrete Laplace P(x) = tanh(a/2)·e^{−a|x|} at integer shift s: log Σₓ p(x)^α p(x − s)^{1−α} / (α − 1)."""
    al = alphas
    log_c = math.log(math.tanh(a / 2.0))
    log_geo = -math.log(-math.expm1(-a))  # log 1/(1 − e^{−a})
    left = a * (al - 1.0) * shift + log_geo  # x <= 0
    right = -a * al * shift + log_geo  # x >= s
    total = np.logaddexp(left, right)
    if shift > 1:  # 0 < x < s: e^{a(α−1)s} Σ_{x=1}^{s−1} e^{−a(2α−1)x}
        r = a * (2.0 * al - 1.0)
        # Σ_{x=1}^{m} e^{−rx} = e^{−r}(1 − e^{−rm})/(1 − e^{−r})
        m = shift - 1
        middle = a * (al - 1.0) * shift - r + np.log(-np.expm1(-r * m)) - np.log(-np.expm1(-r))
        total = np.logaddexp(total, middle)
    return np.asarray(np.maximum((log_c + total) / (al - 1.0), 0.0))


def _log_theta_ratio(c: v.FloatArray, sigma: float) -> v.FloatArray:
    """log(θ(c)/θ(0)), θ(c) = Σₖ e^{−(k − c)²/(2σ²)}: a direct sum for σ < 1, else Poisson summation
    θ(c) = √(2π)σ Σₘ e^{−2π²σ²m²} cos(2πmc) (terms beyond m = 3 are below e^{−177})."""
    frac = c - np.round(c)
    if sigma < 1.0:
        k = np.arange(-int(40 * sigma) - 2, int(40 * sigma) + 3, dtype=np.float64)
        num = np.exp(-((k[None, :] - frac[:, None]) ** 2) / (2 * sigma * sigma)).sum(axis=1)
        den = float(np.exp(-(k**2) / (2 * sigma * sigma)).sum())
        return np.asarray(np.log(num / den))
    m = np.arange(1, 4, dtype=np.float64)
    w = np.exp(-2.0 * math.pi**2 * sigma * sigma * m * m)
    num = 1.0 + 2.0 * (w[None, :] * np.cos(2.0 * math.pi * m[None, :] * frac[:, None])).sum(axis=1)
    return np.asarray(np.log1p((num - 1.0 - 2.0 * float(w.sum())) / (1.0 + 2.0 * float(w.sum()))))


def discrete_gaussian(alphas: v.FloatArray, sigma: float, shift: int) -> v.FloatArray:
    """Discrete Gaussian at integer shift s: the Gaussian's α s²/(2σ²) plus log(θ((1 − α)s)/θ(0))/(α − 1) <= 0."""
    ratio = _log_theta_ratio((1.0 - alphas) * shift, sigma)
    return np.asarray(np.maximum(alphas * shift * shift / (2.0 * sigma * sigma) + np.minimum(ratio, 0.0)
                                 / (alphas - 1.0), 0.0))


def _log_sum(logs: list[v.FloatArray], weights: list[float]) -> v.FloatArray:
    """log Σ wᵢ e^{logsᵢ} for positive weights (zero weights dropped)."""
    out = np.full(np.shape(logs[0]), -np.inf)
    for lg, w in zip(logs, weights, strict=True):
        if w > 0.0:
            out = np.logaddexp(out, lg + math.log(w))
    return out


def randomized_response(alphas: v.FloatArray, p: float, k: int, relation: str) -> v.FloatArray:
    """k-ary randomized response with noise parameter p (true bucket w.p. 1 − p + p/k, each other p/k)."""
    hit, miss = 1.0 - p + p / k, p / k
    a = alphas
    if relation == "replace_one":  # P = (hit, miss, rest), Q = (miss, hit, rest); symmetric
        lh, lm = math.log(hit), math.log(miss)
        total = _log_sum([a * lh + (1 - a) * lm, a * lm + (1 - a) * lh, np.zeros_like(a)],
                         [1.0, 1.0, (k - 2) * miss])
        return np.asarray(np.maximum(total / (a - 1.0), 0.0))
    # replace_special: P = RR(x) = (hit, miss × (k − 1)), Q = uniform 1/k; both orientations
    lh, lm, lu = math.log(hit), math.log(miss), -math.log(k)
    pq = _log_sum([a * lh + (1 - a) * lu, a * lm + (1 - a) * lu], [1.0, k - 1.0])
    qp = _log_sum([a * lu + (1 - a) * lh, a * lu + (1 - a) * lm], [1.0, k - 1.0])
    return np.asarray(np.maximum(np.maximum(pq, qp) / (a - 1.0), 0.0))


def pure_dp(alphas: v.FloatArray, eps: float) -> v.FloatArray:
    """The RDP of any ε-DP release: binary randomized response with e^ε (the dominating pair)."""
    a = alphas
    log_num = np.logaddexp(a * eps, (1.0 - a) * eps)
    log_den = float(np.logaddexp(0.0, eps))
    return np.asarray(np.minimum(np.maximum((log_num - log_den) / (a - 1.0), 0.0), eps))


def zcdp(alphas: v.FloatArray, rho: float, xi: float) -> v.FloatArray:
    """(ξ, ρ)-zCDP: ξ + ρα."""
    return np.asarray(xi + rho * alphas)
