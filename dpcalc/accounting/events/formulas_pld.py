"""δ(ε) of one event by dpcalc's PLD accountant (its certified upper end), one function per catalog entry of the
privacy-loss side (``formulas/events_*.toml``). Each builds the event, maps it onto its dominating pair through
`dpcalc.accounting.events.pld_accountant` (the path ``dpcalc account --event`` takes) and returns
``delta_upper`` of `dpcalc.accounting.pld.delta_composed` (the worse of the two orientations).

* `laplace_delta` — the Laplace mechanism (Dwork & Roth 2014, Def. 3.3);
* `discrete_laplace_delta` — the discrete Laplace mechanism (Canonne, Kamath & Steinke 2020);
* `discrete_gaussian_delta` — the discrete Gaussian mechanism (Canonne, Kamath & Steinke 2020, Thm. 7);
* `poisson_laplace_delta` — the Laplace mechanism on a Poisson sample (Zhu, Dong & Wang 2022, Thm. 8);
* `without_replacement_gaussian_delta` — the Gaussian on a sample without replacement, replace-one (Zhu, Dong &
  Wang 2022, Thm. 10);
* `with_replacement_gaussian_delta` — the Gaussian on a sample with replacement, replace-one (the count of draws
  of the changed record revealed);
* `mixture_of_gaussians_delta` — the mixture-of-Gaussians mechanism with two sensitivities (Ganesh et al. 2024);
* `approx_dp_composed_delta` — ``count`` (ε, δ)-DP releases (the dominating pair of Kairouz, Oh & Viswanath 2015);
* `tree_aggregation_delta` — single-epoch tree aggregation (Kairouz et al. 2021, App. D), replace-one;
* `truncated_gaussian_delta` — the Gaussian on a Poisson sample cut to a maximum batch size, add/remove.
"""

from __future__ import annotations

from dpcalc import _validate as v
from dpcalc.accounting.events import composition, mechanisms, pld_accountant, sampling
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation

__all__ = ["approx_dp_composed_delta", "discrete_gaussian_delta", "discrete_laplace_delta", "laplace_delta",
           "mixture_of_gaussians_delta", "poisson_laplace_delta", "tree_aggregation_delta", "truncated_gaussian_delta",
           "with_replacement_gaussian_delta", "without_replacement_gaussian_delta"]


def _delta(event: Event, relation: Relation, eps: float, name: str = "eps") -> float:
    """δ_upper(ε) of ``event`` under ``relation`` by the PLD accountant (``name`` is the ε argument's name)."""
    from dpcalc.accounting import pld

    e = v.scalar(name, v.nonnegative(name, eps))
    return float(pld.delta_composed(pld_accountant.components(event, relation), e).delta_upper)


def _size(name: str, value: float) -> int:
    return int(v.scalar(name, v.integer_at_least(name, value, 1)))


@v.scalar_params
def laplace_delta(eps: float, noise_multiplier: float, sensitivity: float = 1.0) -> float:
    """δ(ε) of one Laplace release with scale b = ``noise_multiplier`` whose neighbouring outputs differ by Δ =
    ``sensitivity`` (1 under add/remove, 2 under replace-one): exactly ``(1 − e^{(ε − Δ/b)/2})₊``."""
    d = v.scalar("sensitivity", v.check_range("sensitivity", sensitivity, 1.0, 2.0, integer=True))
    return _delta(mechanisms.Laplace(v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))),
                  "replace_one" if d == 2.0 else "add_remove", eps)


@v.scalar_params
def discrete_laplace_delta(eps: float, noise_parameter: float, shift: float) -> float:
    """δ(ε) of one discrete Laplace release P(x) ∝ e^{−a|x|}, a = ``noise_parameter``, whose neighbouring outputs
    differ by the integer ``shift`` s (add/remove, sensitivity s)."""
    a = v.scalar("noise_parameter", v.positive("noise_parameter", noise_parameter))
    return _delta(mechanisms.DiscreteLaplace(a, _size("shift", shift)), "add_remove", eps)


@v.scalar_params
def discrete_gaussian_delta(eps: float, sigma: float, shift: float) -> float:
    """δ(ε) of one discrete Gaussian release P(k) ∝ e^{−k²/(2σ²)} whose neighbouring outputs differ by the integer
    ``shift`` s (add/remove, sensitivity s): ``P(X >= m) − e^ε Q(X >= m)``, m = ⌊εσ²/s + s/2⌋ + 1 (Canonne, Kamath &
    Steinke 2020, Thm. 7)."""
    sg = v.scalar("sigma", v.positive("sigma", sigma))
    return _delta(mechanisms.DiscreteGaussian(sg, _size("shift", shift)), "add_remove", eps)


@v.scalar_params
def poisson_laplace_delta(eps: float, noise_multiplier: float, q: float) -> float:
    """δ(ε) of the Laplace mechanism (scale ``noise_multiplier``, sensitivity 1) on a Poisson sample at rate q,
    add/remove: the worse of the pairs (qLap(1) + (1 − q)Lap(0), Lap(0)) and its swap."""
    b = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    return _delta(sampling.PoissonSampled(qq, mechanisms.Laplace(b)), "add_remove", eps)


@v.scalar_params
def without_replacement_gaussian_delta(eps: float, sigma: float, sample_size: float, dataset_size: float) -> float:
    """δ(ε) of the Gaussian (noise multiplier σ) on ``sample_size`` b records drawn without replacement from
    ``dataset_size`` n, replace-one: the worse of (γN(2, σ²) + (1 − γ)N(0, σ²), N(0, σ²)) and its swap, γ = b/n."""
    s = v.scalar("sigma", v.positive("sigma", sigma))
    event = sampling.SampledWithoutReplacement(_size("dataset_size", dataset_size), _size("sample_size", sample_size),
                                               mechanisms.Gaussian(s))
    return _delta(event, "replace_one", eps)


@v.scalar_params
def with_replacement_gaussian_delta(eps: float, sigma: float, sample_size: float, dataset_size: float) -> float:
    """δ(ε) of the Gaussian (noise multiplier σ) on ``sample_size`` b draws with replacement from ``dataset_size``
    n, replace-one: ``Σ_{k>=1} C(b,k)n^{−k}(1 − 1/n)^{b−k} δ_{μ=2k/σ}(ε)`` (the changed record drawn K times)."""
    s = v.scalar("sigma", v.positive("sigma", sigma))
    event = sampling.SampledWithReplacement(_size("dataset_size", dataset_size), _size("sample_size", sample_size),
                                            mechanisms.Gaussian(s))
    return _delta(event, "replace_one", eps)


@v.scalar_params
def mixture_of_gaussians_delta(eps: float, sigma: float, c1: float, c2: float, p1: float) -> float:
    """δ(ε) of the mixture-of-Gaussians mechanism (Ganesh et al. 2024), add/remove: the worse of
    (p₁N(c₁, σ²) + (1 − p₁)N(c₂, σ²), N(0, σ²)) and its swap."""
    s = v.scalar("sigma", v.positive("sigma", sigma))
    a = v.scalar("c1", v.positive("c1", c1))
    b = v.scalar("c2", v.positive("c2", c2))
    p = v.scalar("p1", v.check_range("p1", p1, 0.0, 1.0))
    return _delta(mechanisms.MixtureOfGaussians(s, (a, b), (p, 1.0 - p)), "add_remove", eps)


@v.scalar_params
def tree_aggregation_delta(eps: float, noise_multiplier: float, steps: float) -> float:
    """δ(ε) of single-epoch tree aggregation over T = ``steps`` steps with Gaussian noise (noise multiplier z) on
    every node, replace-one: μ-GDP with μ = 2√⌈log₂(T + 1)⌉/z (a record's leaf lies in that many completed nodes)."""
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    return _delta(composition.SingleEpochTreeAggregation(z, _size("steps", steps)), "replace_one", eps)


@v.scalar_params
def truncated_gaussian_delta(eps: float, noise_multiplier: float, q: float, dataset_size: float,
                             max_batch: float) -> float:
    """δ(ε) of the Gaussian (noise multiplier z) on a Poisson sample at rate q from n = ``dataset_size`` records cut
    to at most B = ``max_batch``, add/remove: the labelled pair (1 − r)·Poisson pair ⊕ r·fixed-size-sample pair at
    γ̄ = (B/n)P(Bin(n, q) >= B + 1)/r, r = P(Bin(n − 1, q) >= B) (dp-accounting 0.6's truncated construction)."""
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    event = sampling.TruncatedSubsampledGaussian(_size("dataset_size", dataset_size), qq, _size("max_batch", max_batch),
                                                 z)
    return _delta(event, "add_remove", eps)


@v.scalar_params
def approx_dp_composed_delta(epsilon: float, delta: float, count: float, eps_total: float) -> float:
    """δ at ε' = ``eps_total`` of ``count`` (ε, δ)-DP releases (pure when δ = 0) by the PLD accountant on the
    four-outcome dominating pair (Kairouz, Oh & Viswanath 2015, Thm. 2.1); exact value their Thm. 3.3."""
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0, lo_open=True))
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    k = int(v.scalar("count", v.check_range("count", count, 1.0, 20_000.0, integer=True)))
    return _delta(composition.SelfComposed(mechanisms.EpsilonDelta(e, d), k), "add_remove", eps_total, "eps_total")
