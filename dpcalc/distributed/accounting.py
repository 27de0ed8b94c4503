"""ε of the distributed discrete Gaussian and distributed Skellam pipelines over rounds with Poisson sampling of
clients, and the calibration of the per-client noise (and of the scale for a bit width).

One round is `dpcalc.accounting.distributed.pipeline.Pipeline`'s bound (the pipeline and its neighbouring relations
are described there); rounds compose by adding RDP; Poisson sampling of clients at rate q amplifies each round by
the general bound of Zhu & Wang 2019 (Thm. 6, capped by the unsampled curve), as the papers account it.

Training terms: ``clients`` N, ``clients_per_round`` n and ``rounds`` T give q = n/N, T rounds, n noise shares
(`training_terms`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._roots import scalar_root
from dpcalc.accounting import conversion, rdp
from dpcalc.accounting.conversion import Method
from dpcalc.accounting.distributed.pipeline import Pipeline, check_pipeline
from dpcalc.accounting.distributed.rounding import DEFAULT_BETA
from dpcalc.distributed.modular import check_bits, modular_failure_bound, scale_for_bits
from dpcalc.errors import DomainError, InfeasibleError

__all__ = ["Calibration", "DistributedEpsilon", "calibrate_for_bits", "calibrate_sigma", "ddg_epsilon_for_bits",
           "epsilon", "epsilon_for_bits", "rdp_curve", "skellam_epsilon_for_bits", "training_terms"]

_SIGMA_HI = 1e12  # the calibration's ceiling on σ/c


def rdp_curve(pipeline: Pipeline, orders: ArrayLike | None = None) -> v.FloatArray:
    """RDP of all ``rounds`` at ``orders`` (default `dpcalc.accounting.rdp.DEFAULT_ORDERS`): one round's bound,
    Poisson-amplified at q < 1 (Zhu & Wang 2019, Thm. 6 at integer orders, the convex chord between them, capped
    by the unsampled bound), times the rounds.

    Examples:
        >>> from dpcalc.distributed import Pipeline, rdp_curve
        >>> p = Pipeline("ddg", c=1.0, sigma=0.1, gamma=1e-3, n=100, d=1000)
        >>> [round(float(x), 6) for x in rdp_curve(p, [2.0, 8.0])]
        [1.001266, 4.005063]
    """
    p = check_pipeline(pipeline)
    a = rdp.orders_array(orders)
    unsampled = p.round_rdp(a)
    if p.q >= 1.0:
        return unsampled * p.rounds
    from dpcalc.accounting.events.sampling import amplification as amp

    curve = np.asarray(amp.on_orders(a, p.round_rdp, lambda inner, needed: amp.poisson(p.q, inner, needed)))
    # a round so private that its RDP is ~1e-16 amplifies to a rounding-negative value (the bound's log of
    # (1 − q)(1 + q) + … cancels): the unsampled bound, which caps the amplified one, is the valid value there
    return np.where(curve >= 0.0, curve, unsampled) * p.rounds


@dataclass(frozen=True)
class DistributedEpsilon:
    """ε at δ (an upper bound from the RDP curve at its best ``order``), with the grid-unit sensitivities and
    noise it used."""

    eps: float
    delta: float
    order: float
    l2_sensitivity: float
    l1_sensitivity: float
    sigma_grid: float


def epsilon(pipeline: Pipeline, delta: float, *, orders: ArrayLike | None = None,
            method: Method = "improved") -> DistributedEpsilon:
    """ε of the pipeline at δ via RDP (the best order of the grid; ``method`` the conversion of
    `dpcalc.accounting.conversion`).

    Examples:
        >>> from dpcalc.distributed import Pipeline, epsilon
        >>> p = Pipeline("skellam", c=1.0, sigma=0.3, gamma=1e-3, n=100, d=1000, q=0.1, rounds=1000)
        >>> round(epsilon(p, 1e-5).eps, 4)
        7.9745
    """
    p = check_pipeline(pipeline)
    d = float(v.scalar("delta", v.probability("delta", delta)))
    a = rdp.orders_array(orders)
    curve = rdp_curve(p, a)
    eps, i = conversion.best_over_grid(a, curve, math.log(d), conversion.check_method(method))
    if i < 0:
        raise InfeasibleError("eps is infinite at every order: the noise is too small")
    l2, l1 = p.sensitivities()
    return DistributedEpsilon(eps, d, float(a[i]), l2, l1, p.sigma_grid)


def _smallest(excess: Callable[[float], float], start: float, floor: float = 0.0) -> float | None:
    """The smallest x >= ``floor`` with ``excess(x) <= 0`` for a decreasing ``excess`` (e.g. ε(σ) − target):
    a bracket by factors of 4 from ``start``, then the safe-side root finder in log x (`dpcalc._roots`), to 1e-7
    relative; the returned x satisfies the target as evaluated. None when no x up to ``start``·1e12 does (the
    caller names its target)."""
    lo = hi = max(start, floor)
    f_hi = excess(hi)
    if f_hi <= 0.0:
        while True:
            if lo <= floor:
                return floor
            lo = max(lo / 4.0, floor)
            f_lo = excess(lo)
            if f_lo > 0.0:
                break
            hi, f_hi = lo, f_lo
    else:
        while f_hi > 0.0:
            lo = hi
            hi *= 4.0
            if hi > start * _SIGMA_HI:
                return None
            f_hi = excess(hi)
    found = scalar_root(excess, lo, hi, increasing=False, safe="hi", rtol=1e-7, log=True)
    return hi if found is None else found


def calibrate_sigma(pipeline: Pipeline, eps: float, delta: float, *, orders: ArrayLike | None = None,
                    method: Method = "improved", guess: float | None = None) -> float:
    """The smallest local noise std σ (parameter units; the pipeline's own σ is ignored) whose ε at δ is at most
    ``eps`` (safe side: ε(returned σ) <= eps). ``guess``: where the search starts (default c/√n).

    Examples:
        >>> from dpcalc.distributed import Pipeline, calibrate_sigma
        >>> p = Pipeline("ddg", c=1.0, sigma=1.0, gamma=1e-3, n=100, d=1000, q=0.1, rounds=1000)
        >>> round(calibrate_sigma(p, 3.0, 1e-5), 4)
        4.7249
    """
    p = check_pipeline(pipeline)
    target = float(v.scalar("eps", v.positive("eps", eps)))
    d = float(v.scalar("delta", v.probability("delta", delta)))
    a = rdp.orders_array(orders)
    conversion.check_method(method)

    def excess(sig: float) -> float:
        return epsilon(replace(p, sigma=sig), d, orders=a, method=method).eps - target

    # the discrete Gaussian bound is proven for σ >= 1/2 on the grid: the search stays there (a larger σ only helps)
    floor = 0.5 * p.gamma if p.mechanism == "ddg" else 0.0
    start = p.c / math.sqrt(p.n) if guess is None else v.scalar("guess", v.positive("guess", guess))
    found = _smallest(excess, start, floor)
    if found is None:  # ε(σ) levels off at the orders' floor log(1/δ)/(α_max − 1) and above
        raise InfeasibleError(f"eps = {target:g} is out of reach at delta = {d:g} with these orders: no local noise "
                              f"std up to {start * _SIGMA_HI:g} meets it")
    return found


@dataclass(frozen=True)
class Calibration:
    """Noise and scale for a target ε at a bit width: local std ``sigma`` and granularity ``gamma`` (parameter
    units), the ε they give, the bound on the modular wrap-around probability, and the conditional rounding's
    expected attempts bound 1/(1 − β)."""

    sigma: float
    gamma: float
    bits: int
    eps: float
    modular_failure: float
    rounding_attempts: float
    l2_sensitivity: float


def calibrate_for_bits(pipeline: Pipeline, eps: float, delta: float, bits: int, *, k: float = 4.0,
                       failure: float | None = None, rho: float = 1.0, growth: str = "linear",
                       orders: ArrayLike | None = None, method: Method = "improved") -> Calibration:
    """σ and γ for a target ε at a bit width (the pipeline's own σ and γ are ignored): the smallest scale γ at which,
    with σ calibrated to ε at that γ (a larger γ rounds more coarsely and needs more noise), the modulus 2^bits
    holds ±k standard deviations of the aggregate (the papers' rule), or — with ``failure`` — the proven
    wrap-around bound (`dpcalc.distributed.modular_failure_bound`) is at most ``failure``. A `DomainError` naming
    ``bits`` when no scale works ("bit width too small for the noise").

    Examples:
        >>> from dpcalc.distributed import Pipeline, calibrate_for_bits
        >>> p = Pipeline("ddg", c=1.0, sigma=1.0, gamma=1.0, n=100, d=1000, q=0.1, rounds=100)
        >>> cal = calibrate_for_bits(p, 3.0, 1e-5, 16)
        >>> round(cal.sigma, 5), f"{cal.gamma:.4e}", cal.eps <= 3.0
        (0.30212, '5.3388e-04', True)
    """
    pipeline = check_pipeline(pipeline)
    b = int(v.scalar("bits", check_bits(bits)))
    target = v.scalar("eps", v.positive("eps", eps))
    v.scalar("delta", v.probability("delta", delta))
    k = v.scalar("k", v.positive("k", k))
    rho = v.scalar("rho", v.check_range("rho", rho, 1.0))
    scale_for_bits(b, pipeline.c, 0.0, pipeline.n, pipeline.d, k=k, rho=rho, growth=growth)  # 4^bits > nk²
    if failure is not None:
        failure = v.scalar("failure", v.probability("failure", failure))
    a = rdp.orders_array(orders)
    sigmas: dict[float, float] = {}

    def sigma_at(gamma: float) -> float:
        if gamma not in sigmas:  # warm start from the last σ: it moves little with γ
            last = next(reversed(sigmas.values()), None)
            sigmas[gamma] = calibrate_sigma(replace(pipeline, gamma=gamma), eps, delta, orders=a, method=method,
                                            guess=last)
        return sigmas[gamma]

    def excess(gamma: float) -> float:  # decreasing in γ: the aggregate spans fewer grid steps
        sig = sigma_at(gamma)
        if failure is None:  # log(γ the k-σ rule needs at this σ) − log γ
            need = float(scale_for_bits(b, pipeline.c, sig, pipeline.n, pipeline.d, k=k, rho=rho, growth=growth))
            return math.log(need) - math.log(gamma)
        bound = modular_failure_bound(b, pipeline.c, gamma, sig, pipeline.n, pipeline.d, pipeline.mechanism,
                                      beta=pipeline.beta, rho=rho, growth=growth)
        return math.log(max(bound, 1e-300)) - math.log(failure)

    start = float(scale_for_bits(b, pipeline.c, 0.0, pipeline.n, pipeline.d, k=k, rho=rho, growth=growth))
    gamma = _smallest(excess, start)
    if gamma is None:
        rule = f"±{k:g} standard deviations" if failure is None else f"a wrap-around probability <= {failure:g}"
        raise DomainError(f"bits = {b} is too small for the noise: no scale γ keeps {rule} of the aggregate "
                          f"inside 2^{b} with the noise that reaches eps = {target:g}")
    sigma = sigma_at(gamma)
    res = epsilon(replace(pipeline, gamma=gamma, sigma=sigma), delta, orders=a, method=method)
    fail = modular_failure_bound(b, pipeline.c, gamma, sigma, pipeline.n, pipeline.d, pipeline.mechanism,
                                 beta=pipeline.beta, rho=rho, growth=growth)
    return Calibration(sigma, gamma, b, res.eps, fail, 1.0 / (1.0 - pipeline.beta), res.l2_sensitivity)


@v.scalar_params
def epsilon_for_bits(bits: ArrayLike, mechanism: str, c: float, sigma: float, n: int, d: int, delta: float, *,
                     q: float = 1.0, rounds: int = 1, beta: float = DEFAULT_BETA, k: float = 4.0,
                     rho: float = 1.0, growth: str = "linear") -> float | v.FloatArray:
    """ε at δ of the pipeline whose scale γ puts ±k standard deviations of the aggregate at the edge of 2^bits,
    for a fixed local noise std σ (parameter units): fewer bits → coarser rounding → larger ε (the figure of ε
    against bit width).

    Examples:
        >>> from dpcalc.distributed import epsilon_for_bits
        >>> [round(float(x), 3) for x in epsilon_for_bits([10, 12, 16, 20], "ddg", 1.0, 0.1, 100, 1000, 1e-5,
        ...                                               q=0.1, rounds=100)]
        [12.435, 10.03, 9.829, 9.824]
    """
    def one(bits: float) -> float:
        gamma = float(scale_for_bits(bits, c, sigma, n, d, k=k, rho=rho, growth=growth))
        p = Pipeline(mechanism, c=c, sigma=sigma, gamma=gamma, n=n, d=d, beta=beta, q=q, rounds=rounds)
        return epsilon(p, delta).eps

    return v.elementwise(one, bits=check_bits(bits))


def training_terms(clients: int, clients_per_round: int, rounds: int) -> dict[str, float]:
    """Training terms → pipeline terms: Poisson rate q = clients_per_round/clients, n = clients_per_round noise
    shares, ``rounds`` rounds.

    Examples:
        >>> from dpcalc.distributed import training_terms
        >>> training_terms(1000, 100, 2000)
        {'q': 0.1, 'n': 100, 'rounds': 2000}
    """
    big_n = int(v.scalar("clients", v.integer_at_least("clients", clients, 1)))
    n = int(v.scalar("clients_per_round", v.integer_at_least("clients_per_round", clients_per_round, 1)))
    t = int(v.scalar("rounds", v.integer_at_least("rounds", rounds, 1)))
    if n > big_n:
        raise DomainError(f"clients_per_round must be <= clients ({big_n}) (got {n})")
    return {"q": n / big_n, "n": n, "rounds": t}


# One function per mechanism, numeric inputs only (figure presets pass numbers): `epsilon_for_bits` with the
# mechanism fixed.
ddg_epsilon_for_bits = partial(epsilon_for_bits, mechanism="ddg")
skellam_epsilon_for_bits = partial(epsilon_for_bits, mechanism="skellam")
