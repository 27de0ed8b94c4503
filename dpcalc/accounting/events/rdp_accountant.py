"""The RDP curve of any event under a neighbouring relation: a walk over the event tree.

Mechanisms take their curves from `rdp_mechanisms`; composition adds curves
(Mironov 2017, Prop. 1); Poisson sampling of Gaussian noise (one Gaussian or a composition of Gaussians, noise
multipliers combined as (Σ zᵢ⁻²)^{−1/2}) is exact (Mironov, Talwar & Zhang 2019, `dpcalc.accounting.rdp.
sampled_gaussian`), of anything else the Zhu & Wang 2019 bound; sampling without replacement the Wang, Balle &
Kasiviswanathan 2019 bound (`rdp_amplification`); tree aggregation is a Gaussian
whose record touches ⌈log₂(T + 1)⌉ nodes (Kairouz et al. 2021, App. D); repeat-and-select
`rdp_selection`; sampling with replacement and truncated Poisson sampling the RDP of their labelled dominating
pairs (the PLD accountant's, `dpcalc.accounting.pld.losses`).

Every curve says whether it is the exact RDP of the worst pair (``exact``) or an upper bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events import composition as c
from dpcalc.accounting.events import mechanisms as m
from dpcalc.accounting.events import rdp_amplification as amp
from dpcalc.accounting.events import rdp_mechanisms as curves
from dpcalc.accounting.events import sampling as s
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.errors import DomainError

__all__ = ["Curve", "NotAccountable", "eps_inf", "rdp_curve", "releases_with_replacement"]


class NotAccountable(DomainError):
    """An event (or a part of it) this accountant cannot account under the relation: the message names it and what
    is supported."""


@dataclass(frozen=True)
class Curve:
    """An RDP curve on the orders it was asked for, and whether it is exact (else an upper bound). ``slack``: the
    probability of the labels a labelled pair left out (sampling with replacement: draw counts above a cut); the
    curve holds for the pair conditioned on none of them occurring, so a conversion to (ε, δ) spends ``slack`` of
    its δ on them (union bound over the releases)."""

    rdp: v.FloatArray
    exact: bool
    slack: float = 0.0


SUPPORTED = ("Gaussian, Laplace, DiscreteLaplace, DiscreteGaussian, RandomizedResponse (replace-one/special), ZCDp, "
             "EpsilonDelta with delta = 0, NoOp, NonPrivate, PoissonSampled (add-remove/replace-special), "
             "SampledWithoutReplacement (replace-one/special), SelfComposed, Composed, SingleEpochTreeAggregation "
             "(replace-one/special), RepeatAndSelect, MixtureOfGaussians with sensitivities {0, c}, "
             "SampledWithReplacement of Gaussian or Laplace noise (replace-one/special), TruncatedSubsampledGaussian "
             "(add-remove/replace-special)")


def _refuse(event: Event, why: str) -> NotAccountable:
    return NotAccountable(f"rdp cannot account {event.CLASS_NAME}: {why}; the rdp accountant supports {SUPPORTED}")


def gaussian_noise(event: Event) -> float | None:
    """The combined noise multiplier when ``event`` is Gaussian noise only (a Gaussian, or compositions of them),
    else None."""
    if isinstance(event, m.Gaussian):
        return event.noise_multiplier
    if isinstance(event, c.SelfComposed):
        z = gaussian_noise(event.event)
        return None if z is None else (math.inf if event.count == 0 else z / math.sqrt(event.count))
    if isinstance(event, c.Composed):
        zs = [gaussian_noise(e) for e in event.events]
        if not zs or any(z is None for z in zs):
            return None
        total = sum(1.0 / (z * z) for z in zs if z is not None)
        return math.inf if total == 0.0 else 1.0 / math.sqrt(total)
    return None


def rdp_curve(event: Event, relation: Relation, alphas: v.FloatArray, tail: float = 0.0) -> Curve:
    """The RDP curve of ``event`` under ``relation`` at the orders ``alphas`` (all > 1). ``tail`` > 0: each
    with-replacement release reached through compositions may leave out draw counts of probability at most
    ``tail`` (`Curve.slack`); 0: none left out."""
    f = float(shift_factor(relation))
    if isinstance(event, m.NoOp):
        return Curve(np.zeros_like(alphas), True)
    if isinstance(event, m.NonPrivate):
        return Curve(np.full_like(alphas, np.inf), True)
    if isinstance(event, m.Gaussian):
        return Curve(curves.gaussian(alphas, event.noise_multiplier, f), True)
    if isinstance(event, m.Laplace):
        return Curve(curves.laplace(alphas, f / event.noise_multiplier), True)
    if isinstance(event, m.DiscreteLaplace):
        return Curve(curves.discrete_laplace(alphas, event.noise_parameter, int(f) * event.sensitivity), True)
    if isinstance(event, m.DiscreteGaussian):
        return Curve(curves.discrete_gaussian(alphas, event.sigma, int(f) * event.sensitivity), True)
    if isinstance(event, m.RandomizedResponse):
        if relation == "add_remove":
            raise _refuse(event, "an added or removed record has no bucket (use replace-one or replace-special)")
        return Curve(curves.randomized_response(alphas, event.noise_parameter, event.num_buckets, relation), True)
    if isinstance(event, m.ZCDp):
        return Curve(curves.zcdp(alphas, event.rho, event.xi), False)
    if isinstance(event, m.EpsilonDelta):
        if event.delta > 0.0:
            raise _refuse(event, "an (epsilon, delta) release with delta > 0 has no RDP curve (use the pld or exact "
                                 "accountant)")
        return Curve(curves.pure_dp(alphas, event.epsilon), True)
    if isinstance(event, m.MixtureOfGaussians):
        return _mixture(event, relation, alphas)
    if isinstance(event, c.SelfComposed):
        inner = rdp_curve(event.event, relation, alphas, tail)
        return Curve(inner.rdp * event.count if event.count else np.zeros_like(alphas), inner.exact,
                     inner.slack * event.count)
    if isinstance(event, c.Composed):
        parts = [rdp_curve(e, relation, alphas, tail) for e in event.events]
        total = np.sum([p.rdp for p in parts], axis=0) if parts else np.zeros_like(alphas)
        return Curve(np.asarray(total), all(p.exact for p in parts), math.fsum(p.slack for p in parts))
    if isinstance(event, s.PoissonSampled):
        return _poisson(event, relation, alphas)
    if isinstance(event, s.SampledWithoutReplacement):
        return _without_replacement(event, relation, alphas)
    if isinstance(event, c.SingleEpochTreeAggregation):
        if relation == "add_remove":
            raise _refuse(event, "tree aggregation is defined under replace-one or replace-special (an added record "
                                 "would shift every later leaf)")
        depth = math.ceil(math.log2(event.max_steps + 1))
        return Curve(curves.gaussian(alphas, event.noise_multiplier, f) * depth, True)
    if isinstance(event, c.RepeatAndSelect):
        from dpcalc.accounting.events.rdp_selection import repeat_and_select

        inner = rdp_curve(event.event, relation, alphas)
        return Curve(repeat_and_select(alphas, inner.rdp, event.mean, event.shape), False)
    if isinstance(event, s.SampledWithReplacement):
        return _with_replacement(event, relation, alphas, tail)
    if isinstance(event, s.TruncatedSubsampledGaussian):
        return _truncated(event, relation, alphas)
    if isinstance(event, m.Unsupported):
        raise _refuse(event, "it is dp-accounting's placeholder for a mechanism without accounting")
    raise _refuse(event, "unknown event")  # pragma: no cover - every registered class is handled above


def _mixture(event: m.MixtureOfGaussians, relation: Relation, alphas: v.FloatArray) -> Curve:
    """Mixtures with support {0, c} (or {c}) are the Poisson-subsampled Gaussian with rate P(c), noise σ/c."""
    if relation == "replace_one":
        raise _refuse(event, "no dominating pair under replace-one is known for a random sensitivity")
    weights: dict[float, float] = {}
    for cc, p in zip(event.sensitivities, event.sampling_probs, strict=True):
        if p > 0.0:
            weights[cc] = weights.get(cc, 0.0) + p
    moved = [cc for cc in weights if cc > 0.0]
    if not moved:
        return Curve(np.zeros_like(alphas), True)
    if len(moved) > 1:
        raise _refuse(event, "only sensitivities {0, c} have an RDP curve here (use the pld accountant for more)")
    z = event.standard_deviation / moved[0]
    q = min(weights[moved[0]], 1.0)
    return Curve(_sampled_gaussian(q, z, alphas), True)


def _sampled_gaussian(q: float, z: float, alphas: v.FloatArray) -> v.FloatArray:
    from dpcalc.accounting import rdp

    if math.isinf(z):
        return np.zeros_like(alphas)
    return np.asarray(rdp.sampled_gaussian(q, z, alphas), dtype=np.float64)


def _poisson(event: s.PoissonSampled, relation: Relation, alphas: v.FloatArray) -> Curve:
    if relation == "replace_one":
        raise _refuse(event, "Poisson sampling is accounted under add-remove or replace-special here (a replacement "
                             "is a removal and an addition; the pld accountant takes replace-one)")
    q = event.sampling_probability
    z = gaussian_noise(event.event)
    if z is not None:
        return Curve(_sampled_gaussian(q, z, alphas), True)
    inner_rel: Relation = "add_remove"
    amp.integer_orders(alphas)  # the bound's cost: ⌈max α⌉ orders

    def inner(a: v.FloatArray) -> v.FloatArray:
        return rdp_curve(event.event, inner_rel, a).rdp

    return Curve(amp.on_orders(alphas, inner, lambda cv, need: amp.poisson(q, cv, need)), False)


def _without_replacement(event: s.SampledWithoutReplacement, relation: Relation, alphas: v.FloatArray) -> Curve:
    if relation == "add_remove":
        raise _refuse(event, "a fixed-size sample is a replace-one statement (the dataset size is public; use "
                             "replace-one or replace-special)")
    gamma = event.sample_size / event.source_dataset_size
    inner_rel: Relation = "replace_one"  # a replace-special neighbour is a replace-one neighbour
    e_inf = eps_inf(event.event, inner_rel)

    def inner(a: v.FloatArray) -> v.FloatArray:
        return rdp_curve(event.event, inner_rel, a).rdp

    if gamma == 1.0:
        return Curve(inner(alphas), rdp_curve(event.event, inner_rel, alphas).exact)
    return Curve(amp.on_orders(alphas, inner, lambda cv, need: amp.without_replacement(gamma, cv, e_inf, need)), False)


def _labelled(weights: v.FloatArray, curves_: v.FloatArray, alphas: v.FloatArray) -> v.FloatArray:
    """RDP of a labelled pair (the label k, of law w, is shown; then pair k is drawn): e^{(α−1)ε(α)} =
    Σₖ wₖ e^{(α−1)εₖ(α)}, since ∫P^αQ^{1−α} splits over the labels; upper bounds εₖ give an upper bound. ``curves_``
    holds one row per label."""
    from scipy.special import logsumexp

    am1 = np.asarray(alphas, dtype=np.float64) - 1.0
    with np.errstate(divide="ignore"):
        terms = np.log(weights)[:, None] + am1[None, :] * curves_
    return np.asarray(logsumexp(terms, axis=0) / am1, dtype=np.float64)


#: most draws of a with-replacement sample taken label by label (one row of orders each)
_MAX_DRAWS = 10**5


def releases_with_replacement(event: Event) -> int:
    """How many with-replacement releases ``event`` makes through compositions (those `rdp_curve` may cut)."""
    if isinstance(event, s.SampledWithReplacement):
        return 1
    if isinstance(event, c.SelfComposed):
        return event.count * releases_with_replacement(event.event)
    if isinstance(event, c.Composed):
        return sum(releases_with_replacement(e) for e in event.events)
    return 0


def _with_replacement(event: s.SampledWithReplacement, relation: Relation, alphas: v.FloatArray,
                      tail: float = 0.0) -> Curve:
    """b draws with replacement from n: the labelled pair of `pld.sampled_with_replacement` (the count K ~
    Binomial(b, 1/n) of draws of the changed record shown, then the inner noise at K times the shift; Balle, Barthe
    & Gaboardi 2018, Thm. 10), its RDP summed over k = 0 … b exactly; Gaussian noise (RDP αk²f²/(2z²)) or Laplace
    (its RDP at shift k·f). An upper bound: the pair is not tight.

    The sum is ruled by the largest counts at every order (k² in the exponent), so with ``tail`` > 0 the counts above
    the smallest k₀ with P(K > k₀) ≤ tail are left out: the curve is the RDP of the pair conditioned on K ≤ k₀
    (weights renormalised), and P(K > k₀) is the curve's slack. Since K has the same law under both neighbours,
    P(S) ≤ (1 − s)·P_{K≤k₀}(S) + s for every event S, so (ε, δ') of the conditioned pair gives (ε, δ' + s) —
    per release, summed over the releases."""
    if relation == "add_remove":
        raise _refuse(event, "a sample of fixed size is a replace-one statement (use replace-one or replace-special)")
    b, n = event.sample_size, event.source_dataset_size
    if b > _MAX_DRAWS:
        raise _refuse(event, f"sample_size {b} exceeds the {_MAX_DRAWS} draws summed label by label (use the pld "
                             "accountant)")
    from scipy.stats import binom

    f = float(shift_factor(relation))
    k = np.arange(b + 1, dtype=np.float64)
    w = np.asarray(binom.pmf(k, b, 1.0 / n), dtype=np.float64) if n > 1 else np.eye(1, b + 1, b)[0]
    z = gaussian_noise(event.event)
    a = np.asarray(alphas, dtype=np.float64)
    if z is not None:
        rows = a[None, :] * (k[:, None] * f / z) ** 2 / 2.0 if math.isfinite(z) else np.zeros((k.size, a.size))
    elif isinstance(event.event, m.Laplace):
        rows = np.stack([curves.laplace(a, kk * f / event.event.noise_multiplier) if kk else np.zeros_like(a)
                         for kk in k])
    else:
        raise _refuse(event, "with-replacement sampling has an RDP bound here for Gaussian or Laplace noise (use the "
                             "pld accountant for others)")
    keep = w > 0.0
    slack = 0.0
    if tail > 0.0 and b > 1:
        sf = np.asarray(binom.sf(k, b, 1.0 / n), dtype=np.float64)  # P(K > k)
        k0 = int(np.argmax(sf <= tail))  # the first k with P(K > k) <= tail (sf(b) = 0)
        slack = float(sf[k0])
        keep &= k <= k0
        w = w / (1.0 - slack)
    return Curve(_labelled(w[keep], rows[keep], a), False, slack)


def _truncated(event: s.TruncatedSubsampledGaussian, relation: Relation, alphas: v.FloatArray) -> Curve:
    """Truncated Poisson sampling: the labelled pair of `pld.truncated_poisson` — with probability 1 − r the
    Poisson-subsampled Gaussian (exact RDP, Mironov, Talwar & Zhang 2019), with probability r the cut pair
    (γ̄N(2Δ) + (1 − γ̄)N(0), N(0)), a subsampled Gaussian at rate γ̄ and noise z/2 — combined by `_labelled`. The
    subsampled Gaussian's RDP bounds both of its orientations (Mironov, Talwar & Zhang 2019, Thm. 5). An upper
    bound."""
    if relation == "replace_one":
        raise _refuse(event, "its untruncated part is Poisson sampling, accounted under add-remove or replace-special "
                             "here (the pld accountant takes replace-one)")
    from dpcalc.accounting.pld.losses import truncation_label

    q, z = event.sampling_probability, event.noise_multiplier
    r, gamma = truncation_label(q, event.dataset_size, event.truncated_batch_size)
    poisson_rdp = _sampled_gaussian(q, z, alphas)
    if r <= 0.0:
        return Curve(poisson_rdp, True)
    cut = _sampled_gaussian(gamma, z / 2.0, alphas)
    return Curve(_labelled(np.array([1.0 - r, r]), np.stack([poisson_rdp, cut]), alphas), False)


def eps_inf(event: Event, relation: Relation) -> float:
    """The pure-DP ε of an event (its RDP at order ∞), or inf when it has none."""
    f = shift_factor(relation)
    if isinstance(event, m.NoOp):
        return 0.0
    if isinstance(event, m.Laplace):
        return f / event.noise_multiplier
    if isinstance(event, m.DiscreteLaplace):
        return event.noise_parameter * f * event.sensitivity
    if isinstance(event, m.EpsilonDelta):
        return event.epsilon if event.delta == 0.0 else math.inf
    if isinstance(event, m.RandomizedResponse):
        p, k = event.noise_parameter, event.num_buckets
        hit, miss = 1.0 - p + p / k, p / k
        if relation == "replace_special":
            return max(math.log(hit * k), -math.log(miss * k))
        return math.log(hit / miss)
    if isinstance(event, c.SelfComposed):
        return event.count * eps_inf(event.event, relation) if event.count else 0.0
    if isinstance(event, c.Composed):
        return math.fsum(eps_inf(e, relation) for e in event.events)
    if isinstance(event, s.PoissonSampled | s.SampledWithoutReplacement):
        return eps_inf(event.event, relation)  # subsampling never increases the pure ε
    return math.inf
