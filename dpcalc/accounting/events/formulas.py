"""Scalar closed forms behind the event accountants, validated, one per catalog entry (``formulas/events_*.toml``).

* `laplace_rdp` — RDP of the Laplace mechanism (Mironov 2017, Prop. 6);
* `pure_dp_rdp` — RDP of any ε-DP release: randomized response with e^ε (Mironov 2017, Prop. 5, with the
  dominance of Kairouz, Oh & Viswanath 2015, Thm. 2.1);
* `optimal_composition_delta` — δ(ε') of the k-fold composition of (ε, δ)-DP (Kairouz, Oh & Viswanath 2015,
  Thm. 3.3);
* `without_replacement_gaussian_rdp` — RDP of the Gaussian on a fixed-size sample (Wang, Balle &
  Kasiviswanathan 2019, Thm. 9; replace-one, the batch's sum moves by twice the clipping norm).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events import rdp_amplification, rdp_mechanisms
from dpcalc.accounting.events.exact import FinitePair, delta_finite

__all__ = ["laplace_rdp", "optimal_composition_delta", "pure_dp_rdp", "without_replacement_gaussian_rdp"]


@v.named_shapes
def laplace_rdp(alpha: ArrayLike, noise_multiplier: ArrayLike, sensitivity: ArrayLike = 1.0) -> float | v.FloatArray:
    """RDP at order α of the Laplace mechanism with scale b = noise_multiplier and output shift Δ = sensitivity:
    ``ε₀ + log1p((α − 1)/(2α − 1)·expm1(−(2α − 1)ε₀))/(α − 1)``, ε₀ = Δ/b (Mironov 2017, Prop. 6)."""
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    b = v.positive("noise_multiplier", noise_multiplier)
    d = v.positive("sensitivity", sensitivity)
    ab, bb, db = v.broadcast(alpha=a, noise_multiplier=b, sensitivity=d)
    return v.scalar_or_array(rdp_mechanisms.laplace(ab, db / bb))


@v.named_shapes
def pure_dp_rdp(alpha: ArrayLike, epsilon: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of any ε-DP release (its dominating pair, binary randomized response with e^ε):
    ``log((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)``, at most ε."""
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    e = v.check_range("epsilon", epsilon, 0.0, 700.0)
    ab, eb = v.broadcast(alpha=a, epsilon=e)
    return v.scalar_or_array(np.asarray(np.vectorize(lambda x, y: float(rdp_mechanisms.pure_dp(np.array([x]), y)[0]))
                                        (ab, eb), dtype=np.float64))


@v.scalar_params
def optimal_composition_delta(epsilon: float, delta: float, count: float, eps_total: float) -> float:
    """δ at ε' = ``eps_total`` of ``count`` adaptive (ε, δ)-DP releases, tight (Kairouz, Oh & Viswanath 2015,
    Thm. 3.3): ``1 − (1 − δ)^k + (1 − δ)^k Σ_{i < (kε − ε')/(2ε)} C(k, i)(e^{(k−i)ε} − e^{ε'+iε})/(1 + e^ε)^k``."""
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0, lo_open=True))
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    k = int(v.scalar("count", v.check_range("count", count, 1.0, 20_000.0, integer=True)))
    et = v.scalar("eps_total", v.nonnegative("eps_total", eps_total))
    p = 1.0 / (1.0 + np.exp(-e))
    return delta_finite(FinitePair(e, (1 - d) * p, -e, (1 - d) * (1 - p), 0.0, d), k, et)


@v.scalar_params
def without_replacement_gaussian_rdp(alpha: float, gamma: float, sigma: float) -> float:
    """RDP at integer order α >= 2 of the Gaussian with noise multiplier σ on a uniformly random fixed-size sample
    (fraction γ = b/n) under replace-one, the inner Gaussian's RDP 2α/σ² (its sum moves by 2C) and ε(∞) = ∞:
    ``log(1 + γ²C(α,2)min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^{α} 2γ^j C(α,j)e^{(j−1)ε(j)})/(α − 1)``, capped by
    2α/σ² (Wang, Balle & Kasiviswanathan 2019, Thm. 9)."""
    a = int(v.scalar("alpha", v.check_range("alpha", alpha, 2.0, 1024.0, integer=True)))
    g = v.scalar("gamma", v.check_range("gamma", gamma, 0.0, 1.0, lo_open=True))
    s = v.scalar("sigma", v.positive("sigma", sigma))
    ints = np.arange(2, a + 1, dtype=np.float64)
    inner = rdp_mechanisms.gaussian(ints, s, 2.0)
    return float(v.finite_result("rdp", rdp_amplification.without_replacement(g, inner, np.inf,
                                                                                np.array([float(a)])),
                                 "sigma is too small for this order")[-1])
