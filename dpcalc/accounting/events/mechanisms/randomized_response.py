"""k-ary randomized response (Warner 1965; dp-accounting's parametrisation): the true bucket with probability 1 − p,
else a uniformly random one of the k buckets, so the true bucket comes out with probability hit = 1 − p + p/k and
each other with miss = p/k. Its input is one record's bucket: it is accounted under replace-one or replace-special.

* replace-one: P = (hit, miss, rest) against Q = (miss, hit, rest) on (x, x', other), rest = (k − 2)·miss;
  replace-special: R(x) against the uniform output of the special record, both orientations. All exact.
* RDP: the finite sums written in the difference of the two distributions, so that nearly uniform releases
  (p within 1e-8 of 1) lose no digits: with r = hit/miss = 1 + u, u = k(1 − p)/p, L = log1p(u), x = (α − 1)L,
  replace-one has Σ P^α Q^{1−α} − 1 = miss·(4 sinh²(x/2) + u·expm1(x)) (no cancellation); replace-special has
  (1/k)[h(A) + (k − 1)h(−d)] with d = 1 − p, A = (k − 1)d and h(y) = (1 + y)^α − 1 − αy >= 0 (the first-order
  terms cancel exactly), h summed through ``expm1mx`` and ``log1pmx``.
* exact accountant: the finite pairs with losses log1p(u) (replace-one), log1p(A) and log1p(−d) (replace-special).
* pure ε: the largest loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcalc import _validate as v
from dpcalc._numerics import expm1mx, log1pmx
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.forms import size
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.finite import FinitePair, delta_finite
from dpcalc.accounting.search import Knob

__all__ = ["RandomizedResponse", "randomized_response_delta"]

_ADD_REMOVE = "an added or removed record has no bucket (use replace-one or replace-special)"


def binary_rdp(alphas: v.FloatArray, log_miss: float, u: float) -> v.FloatArray:
    """RDP of P = (miss·r, miss, rest) against Q = (miss, miss·r, rest), r = 1 + u (replace-one randomized response;
    with rest = 0 and r = e^ε the dominating pair of ε-DP): log1p(miss·(4 sinh²(x/2) + u·expm1(x)))/(α − 1),
    x = (α − 1)·log1p(u), in log space where it would overflow."""
    a = np.asarray(alphas, dtype=np.float64)
    big_l = math.log1p(u)
    x = (a - 1.0) * big_l
    with np.errstate(over="ignore", invalid="ignore"):
        inner = 4.0 * np.sinh(x / 2.0) ** 2 + u * np.expm1(x)
        log_t = log_miss + np.where(x < 600.0, np.log(np.where(x < 600.0, inner, 1.0)), x + big_l)
    return np.asarray(np.logaddexp(0.0, log_t) / (a - 1.0))


def _h_log(a: v.FloatArray, y: float) -> v.FloatArray:
    """log h(y), h(y) = (1 + y)^a − 1 − a·y (>= 0 for a outside [0, 1]), without cancellation; −inf where 0."""
    ly = float(log1pmx(y)) if y > -1.0 else -math.inf
    z = a * (y + ly)  # a·log1p(y)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        h = expm1mx(z) + a * ly
        direct = np.log(np.maximum(h, 0.0))
        # where h overflows: log((1 + y)^a) − log1p(−(1 + a·y)/(1 + y)^a) ≈ a·log1p(y)
        return np.asarray(np.where(np.isfinite(h), direct, z))


def _special_rdp(a: v.FloatArray, k: int, d: float, p: float) -> v.FloatArray:
    """One orientation of replace-special at orders ``a`` (for the swap pass 1 − α): log1p((1/k)[h(A) + (k − 1)h(−d)])
    over (α − 1) — α here the order of Σ P^α Q^{1−α} with P = R(x), Q uniform."""
    big_a = (k - 1) * d
    terms = np.logaddexp(_h_log(a, big_a), math.log(k - 1) + _h_log(a, -d)) - math.log(k)
    return np.asarray(np.logaddexp(0.0, terms))


def _curve(alphas: v.FloatArray, p: float, k: int, relation: Relation) -> v.FloatArray:
    a = np.asarray(alphas, dtype=np.float64)
    d = 1.0 - p
    if relation == "replace_one":
        return np.maximum(binary_rdp(a, math.log(p) - math.log(k), k * d / p), 0.0)
    # Σ R^α U^{1−α} (order α) and Σ U^α R^{1−α} = Σ R^{1−α} U^α (order 1 − α of the same sum)
    pq = _special_rdp(a, k, d, p)
    qp = _special_rdp(1.0 - a, k, d, p)
    return np.asarray(np.maximum(np.maximum(pq, qp) / (a - 1.0), 0.0))


@register
@dataclass(frozen=True)
class RandomizedResponse(Event):
    """k-ary randomized response with ``noise_parameter`` p and ``num_buckets`` k."""

    noise_parameter: float
    num_buckets: int
    CLASS_NAME = "RandomizedResponseDpEvent"
    SHORT = "randomized_response"
    #: p: ε falls as p grows to 1 (uniform output)
    KNOBS: ClassVar[dict[str, Knob]] = {
        "noise_parameter": Knob("noise_parameter", 1e-12, 1.0, eps_increases=False, slope=-1.0)}

    def __post_init__(self) -> None:
        self._real("noise_parameter", 0.0, 1.0, lo_open=True)
        self._integer("num_buckets", 2)

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if relation == "add_remove":
            raise self.not_accountable("rdp", _ADD_REMOVE)
        return Curve(_curve(orders, self.noise_parameter, self.num_buckets, relation), True)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        if relation == "add_remove":
            raise self.not_accountable("privacy_loss", _ADD_REMOVE)
        return pld.randomized_response(self.noise_parameter, self.num_buckets, relation)

    def finite_pairs(self, relation: Relation) -> list[FinitePair] | None:
        if relation == "add_remove":
            return None
        p, k = self.noise_parameter, self.num_buckets
        d = 1.0 - p
        hit, miss = d + p / k, p / k
        if relation == "replace_one":
            lg = math.log1p(k * d / p)
            return [FinitePair(lg, hit, -lg, miss, p * (k - 2) / k)]
        # R(x) against uniform: losses log(k·hit) = log1p((k − 1)d) (mass hit), log(k·miss) = log1p(−d) (mass
        # (k − 1)·miss); and the swap
        up, down = math.log1p((k - 1) * d), math.log1p(-d)
        return [FinitePair(up, hit, down, (k - 1) * miss, 0.0), FinitePair(-up, 1.0 / k, -down, (k - 1) / k, 0.0)]

    def pure_epsilon(self, relation: Relation) -> float:
        pairs = self.finite_pairs(relation)
        return math.inf if pairs is None else max(max(pr.l1, pr.l2) for pr in pairs)


@v.scalar_params
def randomized_response_delta(eps: float, noise_parameter: float, num_buckets: float, count: float) -> float:
    """δ(ε) of ``count`` runs of k-ary randomized response (true bucket w.p. 1 − p + p/k, each other p/k) under
    replace-one, exact: ``Σ_{i+j<=T} T!/(i!j!(T−i−j)!) h^i m^j r^{T−i−j}(1 − e^{ε−(i−j)log(h/m)})₊`` with
    h = 1 − p + p/k, m = p/k, r = 1 − h − m (the exact accountant's finite sum).

    Examples:
        >>> from dpcalc.accounting.events.mechanisms.randomized_response import randomized_response_delta
        >>> round(randomized_response_delta(1.0, 0.5, 2, 1), 12)
        0.070429542885
    """
    e = v.scalar("eps", v.nonnegative("eps", eps))
    p = v.scalar("noise_parameter", v.check_range("noise_parameter", noise_parameter, 0.0, 1.0, lo_open=True))
    k = int(v.scalar("num_buckets", v.integer_at_least("num_buckets", num_buckets, 2)))
    t = int(v.scalar("count", v.check_range("count", count, 1.0, 20_000.0, integer=True)))
    pairs = RandomizedResponse(p, size("num_buckets", k)).finite_pairs("replace_one")
    assert pairs is not None  # randomized response always has its finite pair
    return max(delta_finite(pr, t, e) for pr in pairs)
