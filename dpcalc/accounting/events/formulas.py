"""Scalar closed forms behind the event accountants, validated, one per catalog entry (``formulas/events_*.toml``).

* `laplace_rdp` — RDP of the Laplace mechanism (Mironov 2017, Prop. 6);
* `pure_dp_rdp` — RDP of any ε-DP release: randomized response with e^ε (Mironov 2017, Prop. 5, with the
  dominance of Kairouz, Oh & Viswanath 2015, Thm. 2.1);
* `optimal_composition_delta` — δ(ε') of the k-fold composition of (ε, δ)-DP (Kairouz, Oh & Viswanath 2015,
  Thm. 3.3);
* `without_replacement_gaussian_rdp` — RDP of the Gaussian on a fixed-size sample (Wang, Balle &
  Kasiviswanathan 2019, Thm. 9; replace-one, the batch's sum moves by twice the clipping norm);
* `discrete_laplace_rdp`, `discrete_gaussian_rdp` — RDP of the discrete mechanisms at an integer shift
  (Canonne, Kamath & Steinke 2020);
* `zcdp_rdp` — the RDP curve of a (ξ, ρ)-zCDP release (Bun & Steinke 2016, Def. 1.1);
* `poisson_laplace_rdp` — the Zhu & Wang 2019 (Thm. 6) bound for Poisson sampling of a non-Gaussian mechanism,
  here the Laplace mechanism, through the event accountant;
* `repeat_and_select_rdp` — the Papernot & Steinke 2022 (Thm. 2) bound for a geometric number of runs of an
  ε-DP release, at a given λ̂;
* `randomized_response_delta` — δ(ε) of k-ary randomized response composed T times (exact finite sum).

The privacy-loss (PLD) side, δ(ε) of one event by the PLD accountant, is `dpcalc.accounting.events.formulas_pld`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.events import mechanisms, rdp_amplification, rdp_mechanisms
from dpcalc.accounting.events.exact import FinitePair, delta_finite, finite_pairs

__all__ = ["discrete_gaussian_rdp", "discrete_laplace_rdp", "laplace_rdp", "optimal_composition_delta",
           "poisson_laplace_rdp", "pure_dp_rdp", "randomized_response_delta", "repeat_and_select_rdp",
           "without_replacement_gaussian_rdp", "zcdp_rdp"]


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


def _order(alpha: ArrayLike) -> v.FloatArray:
    return v.check_range("alpha", alpha, 1.0, lo_open=True)


@v.named_shapes
def discrete_laplace_rdp(alpha: ArrayLike, noise_parameter: ArrayLike, shift: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of the discrete Laplace mechanism P(x) = tanh(a/2)e^{−a|x|}, a = ``noise_parameter``, at the
    integer output shift s: ``log(tanh(a/2)(e^{a(α−1)s} + e^{−aαs})/(1 − e^{−a}) + Σ_{x=1}^{s−1} …)/(α − 1)``
    (the Rényi divergence summed in closed form; Canonne, Kamath & Steinke 2020, Def. 1 for the mechanism)."""
    a = _order(alpha)
    t = v.scalar("noise_parameter", v.positive("noise_parameter", noise_parameter))
    s = int(v.scalar("shift", v.integer_at_least("shift", shift, 1)))
    return v.scalar_or_array(rdp_mechanisms.discrete_laplace(np.atleast_1d(a), t, s).reshape(np.shape(a)))


@v.named_shapes
def discrete_gaussian_rdp(alpha: ArrayLike, sigma: ArrayLike, shift: ArrayLike) -> float | v.FloatArray:
    """RDP at order α of the discrete Gaussian P(k) ∝ e^{−k²/(2σ²)} at the integer output shift s:
    ``αs²/(2σ²) + log(θ((1 − α)s)/θ(0))/(α − 1)``, θ(c) = Σₖ e^{−(k − c)²/(2σ²)} (Canonne, Kamath & Steinke
    2020; completing the square in Σₖ p(k)^α p(k − s)^{1−α})."""
    a = _order(alpha)
    sg = v.scalar("sigma", v.positive("sigma", sigma))
    s = int(v.scalar("shift", v.integer_at_least("shift", shift, 1)))
    return v.scalar_or_array(rdp_mechanisms.discrete_gaussian(np.atleast_1d(a), sg, s).reshape(np.shape(a)))


@v.named_shapes
def zcdp_rdp(alpha: ArrayLike, rho: ArrayLike, xi: ArrayLike = 0.0) -> float | v.FloatArray:
    """RDP at order α of a (ξ, ρ)-zCDP release: ``ξ + ρα`` (Bun & Steinke 2016, Def. 1.1)."""
    a = _order(alpha)
    r = v.nonnegative("rho", rho)
    x = v.nonnegative("xi", xi)
    ab, rb, xb = v.broadcast(alpha=a, rho=r, xi=x)
    return v.scalar_or_array(rdp_mechanisms.zcdp(ab, rb, xb))  # type: ignore[arg-type]


@v.scalar_params
def poisson_laplace_rdp(alpha: float, noise_multiplier: float, q: float) -> float:
    """RDP at integer order α >= 2 of the Laplace mechanism (scale b = ``noise_multiplier``, sensitivity 1) on a
    Poisson sample at rate q, add/remove, by the event accountant: the Zhu & Wang 2019 (Thm. 6) bound
    ``log[(1 − q)^{α−1}(αq − q + 1) + C(α,2)q²(1 − q)^{α−2}e^{ε(2)} + 3Σ_{l=3}^{α} C(α,l)(1 − q)^{α−l}q^l
    e^{(l−1)ε(l)}]/(α − 1)``, capped by the Laplace curve ε(α) itself."""
    from dpcalc.accounting.events import rdp_accountant, sampling

    a = int(v.scalar("alpha", v.check_range("alpha", alpha, 2.0, 1024.0, integer=True)))
    b = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    event = sampling.PoissonSampled(qq, mechanisms.Laplace(b))
    return float(rdp_accountant.rdp_curve(event, "add_remove", np.array([float(a)])).rdp[0])


@v.scalar_params
def repeat_and_select_rdp(order: float, order_hat: float, epsilon: float, mean: float) -> float:
    """RDP at order λ of repeat-and-select with a geometric number of runs K (mean ``mean``, γ = 1/mean) of an
    ε-DP release, at a given λ̂ >= 1 (Papernot & Steinke 2022, Thm. 2 with η = 1):
    ``ε(λ) + 2(1 − 1/λ̂)ε(λ̂) + 2log(1/γ)/λ̂ + log E[K]/(λ − 1)``, ε(·) the release's RDP (`pure_dp_rdp`)."""
    from dpcalc.accounting.events.rdp_selection import tnb_gamma, tnb_mean

    lam = v.scalar("order", v.check_range("order", order, 1.0, lo_open=True))
    lam_hat = v.scalar("order_hat", v.check_range("order_hat", order_hat, 1.0))
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0))
    mu = v.scalar("mean", v.check_range("mean", mean, 1.0, lo_open=True))
    gamma = tnb_gamma(mu, 1.0)
    # (1 − 1/λ̂)ε(λ̂) = (λ̂ − 1)ε(λ̂)/λ̂ = log((e^{λ̂ε} + e^{(1−λ̂)ε})/(1 + e^ε))/λ̂: no 0/0 at λ̂ = 1
    cgf_hat = float(np.logaddexp(lam_hat * e, (1.0 - lam_hat) * e) - np.logaddexp(0.0, e))
    at_lam = float(rdp_mechanisms.pure_dp(np.array([lam]), e)[0])
    return at_lam + 2.0 * cgf_hat / lam_hat + 2.0 * -np.log(gamma) / lam_hat + float(np.log(tnb_mean(gamma, 1.0))) / (
        lam - 1.0)


@v.scalar_params
def randomized_response_delta(eps: float, noise_parameter: float, num_buckets: float, count: float) -> float:
    """δ(ε) of ``count`` runs of k-ary randomized response (true bucket w.p. 1 − p + p/k, each other p/k) under
    replace-one, exact: ``Σ_{i+j<=T} T!/(i!j!(T−i−j)!) h^i m^j r^{T−i−j}(1 − e^{ε−(i−j)log(h/m)})₊`` with
    h = 1 − p + p/k, m = p/k, r = 1 − h − m (the event accountant's exact accountant)."""
    e = v.scalar("eps", v.nonnegative("eps", eps))
    p = v.scalar("noise_parameter", v.check_range("noise_parameter", noise_parameter, 0.0, 1.0, lo_open=True))
    k = int(v.scalar("num_buckets", v.integer_at_least("num_buckets", num_buckets, 2)))
    t = int(v.scalar("count", v.check_range("count", count, 1.0, 20_000.0, integer=True)))
    pairs = finite_pairs(mechanisms.RandomizedResponse(p, k), "replace_one")
    assert pairs is not None  # randomized response always has its finite pair
    return max(delta_finite(pr, t, e) for pr in pairs)
