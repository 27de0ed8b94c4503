"""RDP of every event: against dp-accounting 0.6's RDP accountant where it agrees with dpcalc's sensitivity
convention, against exact references (μ-GDP, finite sums with mpmath), and bounds that must hold between them."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from dpcalc.accounting import events as ev
from dpcalc.accounting import rdp
from dpcalc.accounting.events.mechanisms import repeat_and_select
from dpcalc.accounting.events.mechanisms.approximate_dp import pure_dp_curve
from dpcalc.accounting.events.mechanisms.discrete_gaussian import discrete_gaussian_curve
from dpcalc.accounting.events.mechanisms.discrete_laplace import discrete_laplace_curve
from dpcalc.accounting.events.mechanisms.gaussian import gaussian_rdp
from dpcalc.accounting.events.mechanisms.laplace import laplace_curve
from dpcalc.accounting.events.sampling import amplification
from tests.support.accounting import account

dpa = pytest.importorskip("dp_accounting")
de = dpa.dp_event
NR = dpa.privacy_accountant.NeighboringRelation
ORDERS = np.array(rdp.DEFAULT_ORDERS)


def _peer_eps(event: object, delta: float, relation: object = None) -> float:
    acc = dpa.rdp.RdpAccountant(neighboring_relation=relation or NR.ADD_OR_REMOVE_ONE)
    acc.compose(event)
    return float(acc.get_epsilon(delta))


def _ours(event: object, delta: float, neighbours: str = "add_remove", accountant: str = "rdp") -> float:
    return account(event, delta=delta, neighbours=neighbours, accountant=accountant).value


# --- the same numbers as dp-accounting where both use the same pair ----------------------------------------------

G = de.GaussianDpEvent
SAME = [
    (de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.01, G(1.0)), 1000), NR.ADD_OR_REMOVE_ONE, "add_remove"),
    (de.SelfComposedDpEvent(G(3.0), 10), NR.ADD_OR_REMOVE_ONE, "add_remove"),
    (de.ComposedDpEvent([G(2.0), de.LaplaceDpEvent(3.0), de.ZCDpEvent(0.01, 0.001)]), NR.ADD_OR_REMOVE_ONE,
     "add_remove"),
    (de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.05, de.ComposedDpEvent([G(2.0), G(3.0)])), 200),
     NR.ADD_OR_REMOVE_ONE, "add_remove"),
    (de.SelfComposedDpEvent(de.RandomizedResponseDpEvent(0.9, 4), 20), NR.REPLACE_ONE, "replace_one"),
    (de.SelfComposedDpEvent(de.RandomizedResponseDpEvent(0.5, 2), 20), NR.REPLACE_SPECIAL, "replace_special"),
    (de.SelfComposedDpEvent(de.SingleEpochTreeAggregationDpEvent(5.0, [100, 60]), 3), NR.REPLACE_SPECIAL,
     "replace_special"),
    (de.RepeatAndSelectDpEvent(de.SelfComposedDpEvent(G(10.0), 5), 10.0, 1.0), NR.ADD_OR_REMOVE_ONE, "add_remove"),
    (de.RepeatAndSelectDpEvent(G(5.0), 5.0, 0.5), NR.ADD_OR_REMOVE_ONE, "add_remove"),
]


@pytest.mark.parametrize(("peer", "peer_rel", "rel"), SAME, ids=lambda x: type(x).__name__)
def test_matches_dp_accounting_rdp(peer: object, peer_rel: object, rel: str) -> None:
    want = _peer_eps(peer, 1e-5, peer_rel)
    got = _ours(peer, 1e-5, rel)
    # dp-accounting's fractional-order quadrature is good to ~1e-7 (dpcalc's RDP to ~1e-13; tests/accounting/test_rdp)
    assert got == pytest.approx(want, rel=1e-6)


def test_repeat_and_select_poisson_is_never_above_dp_accounting() -> None:
    # dp-accounting's Poisson branch skips the monotone-in-order step, so ours is smaller at small orders
    peer = de.RepeatAndSelectDpEvent(de.SelfComposedDpEvent(G(8.0), 4), 20.0, math.inf)
    want, got = _peer_eps(peer, 1e-6), _ours(peer, 1e-6)
    assert got <= want * (1 + 1e-12)
    assert got == pytest.approx(want, rel=0.05)


# --- the example: one event, the convention decides -----------------------------------------------------

def test_replace_one_gaussian_follows_the_stated_convention() -> None:
    e = ev.SelfComposed(ev.Gaussian(3.0), 10)
    # exact: μ-GDP with μ = 2√10/3 (replace-one moves the sum by 2C), dp-accounting's PLD 10.67
    mu = 2.0 * math.sqrt(10.0) / 3.0
    assert e.gaussian_mu("replace_one") == pytest.approx(mu, rel=1e-15)
    assert _ours(e, 1e-5, "replace_one", "exact") == pytest.approx(10.66952280966845, rel=1e-12)
    assert _ours(e, 1e-5, "add_remove", "exact") == pytest.approx(4.652984530968557, rel=1e-12)
    # RDP is an upper bound of each; dp-accounting's RDP under replace-one (5.02) is the add/remove value
    peer_rdp = _peer_eps(de.SelfComposedDpEvent(G(3.0), 10), 1e-5, NR.REPLACE_ONE)
    assert peer_rdp == pytest.approx(5.0239, abs=1e-4)
    assert _ours(e, 1e-5, "replace_one") >= 10.6695 > peer_rdp


# --- mechanism curves against 40-digit sums ----------------------------------------------------------------------

ALPHAS = np.array([1.1, 1.5, 2.0, 3.7, 10.0, 33.0])


def _renyi(p: object, q: object, alpha: float, support: tuple[float, float]) -> float:
    a = mp.mpf(alpha)
    total = mp.nsum(lambda x: p(x) ** a * q(x) ** (1 - a), support)  # type: ignore[operator]
    return float(mp.log(total) / (a - 1))


@pytest.fixture(autouse=True)
def _forty_digits() -> object:
    with mp.workdps(40):
        yield


@pytest.mark.parametrize(("a", "shift"), [(0.5, 1), (0.5, 3), (2.0, 2)])
def test_discrete_laplace_curve(a: float, shift: int) -> None:
    c = mp.tanh(mp.mpf(a) / 2)

    def p(x: object) -> object:
        return c * mp.e ** (-a * abs(x))  # type: ignore[arg-type]

    got = discrete_laplace_curve(ALPHAS, a, shift)
    want = [_renyi(p, lambda x: p(x - shift), al, (-mp.inf, mp.inf)) for al in ALPHAS]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(("sigma", "shift"), [(0.4, 1), (0.7, 2), (1.5, 1)])
def test_discrete_gaussian_curve(sigma: float, shift: int) -> None:
    s = mp.mpf(sigma)
    z = mp.nsum(lambda k: mp.e ** (-k * k / (2 * s * s)), (-mp.inf, mp.inf))

    def p(x: object) -> object:
        return mp.e ** (-x * x / (2 * s * s)) / z  # type: ignore[operator]

    alphas = ALPHAS[:5]
    got = discrete_gaussian_curve(alphas, sigma, shift)
    want = [_renyi(p, lambda x: p(x - shift), al, (-mp.inf, mp.inf)) for al in alphas]
    np.testing.assert_allclose(got, want, rtol=1e-11)
    assert np.all(got <= gaussian_rdp(alphas, sigma, shift))


@pytest.mark.parametrize(("p", "k", "rel"), [(0.5, 4, "replace_one"), (0.2, 2, "replace_one"),
                                             (0.5, 4, "replace_special"), (0.9, 10, "replace_special")])
def test_randomized_response_curve(p: float, k: int, rel: str) -> None:
    hit, miss = 1 - mp.mpf(p) + mp.mpf(p) / k, mp.mpf(p) / k
    if rel == "replace_one":
        pairs = [([hit, miss] + [miss] * (k - 2), [miss, hit] + [miss] * (k - 2))]
    else:
        u = [mp.mpf(1) / k] * k
        pairs = [([hit] + [miss] * (k - 1), u), (u, [hit] + [miss] * (k - 1))]
    want = [max(float(mp.log(sum(a ** mp.mpf(al) * b ** (1 - mp.mpf(al)) for a, b in zip(P, Q, strict=True)))
                      / (al - 1)) for P, Q in pairs) for al in ALPHAS]
    np.testing.assert_allclose(ev.RandomizedResponse(p, k).rdp(ALPHAS, rel).rdp, want, rtol=1e-12)


def test_pure_dp_curve_dominates_laplace_and_is_capped() -> None:
    curve = pure_dp_curve(ALPHAS, 1.0)
    assert np.all(laplace_curve(ALPHAS, 1.0) <= curve) and np.all(curve <= 1.0)


# --- amplification bounds -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("q", "z"), [(0.01, 1.0), (0.1, 2.0), (0.5, 0.8)])
def test_zhu_wang_bound_is_above_the_exact_poisson_gaussian(q: float, z: float) -> None:
    bound = amplification.on_orders(ORDERS, lambda a: gaussian_rdp(a, z, 1.0),
                                        lambda c, need: amplification.poisson(q, c, need))
    exact_curve = rdp.sampled_gaussian(q, z, ORDERS)
    assert np.all(bound >= exact_curve * (1 - 1e-12))
    assert np.all(bound <= gaussian_rdp(ORDERS, z, 1.0))


@pytest.mark.parametrize(("q", "z"), [(256 / 60000, 1.1), (0.1, 2.0), (0.5, 0.8)])
def test_wbk_bound_is_above_dp_accountings_gaussian_specific_bound(q: float, z: float) -> None:
    from dp_accounting.rdp import rdp_privacy_accountant as peer

    ours = amplification.on_orders(ORDERS, lambda a: gaussian_rdp(a, z, 1.0),
                                       lambda c, need: amplification.without_replacement(q, c, math.inf, need))
    theirs = peer._compute_rdp_sample_wor_gaussian(q, z, ORDERS)
    integer = ORDERS == np.round(ORDERS)
    assert np.all(ours[integer] >= theirs[integer] * (1 - 1e-12))
    # fractional orders: the chord, capped by the unsampled Gaussian (subsampling never increases the RDP)
    assert np.all(ours >= np.minimum(theirs, gaussian_rdp(ORDERS, z, 1.0)) * (1 - 1e-12))


def test_poisson_of_laplace_uses_the_general_bound() -> None:
    e = ev.SelfComposed(ev.PoissonSampled(0.01, ev.Laplace(1.0)), 1000)
    c = (e).rdp(ORDERS, "add_remove")
    assert not c.exact
    unsampled = (ev.SelfComposed(ev.Laplace(1.0), 1000)).rdp(ORDERS, "add_remove").rdp
    assert np.all(c.rdp <= unsampled) and c.rdp[0] < 0.01 * unsampled[0]


def test_tnb_gamma_inverts_the_mean() -> None:
    for shape in (0.0, 0.5, 1.0, 3.0):
        g = repeat_and_select.tnb_gamma(7.0, shape)
        assert repeat_and_select.tnb_mean(g, shape) == pytest.approx(7.0, rel=1e-10)


# --- properties ----------------------------------------------------------------------------------------------------

def _dpsgd(z: float = 1.1, q: float = 256 / 60000, count: int = 1000) -> ev.Event:
    return ev.SelfComposed(ev.PoissonSampled(q, ev.Gaussian(z)), count)


def _fixed(z: float = 1.1, b: int = 256, n: int = 60000, count: int = 1000) -> ev.Event:
    return ev.SelfComposed(ev.SampledWithoutReplacement(n, b, ev.Gaussian(z)), count)


@pytest.mark.parametrize("make", [_dpsgd, _fixed])
def test_monotone_in_count_rate_and_noise(make: object) -> None:
    rel = "add_remove" if make is _dpsgd else "replace_one"
    base = _ours(make(), 1e-5, rel)  # type: ignore[operator]
    assert _ours(make(count=2000), 1e-5, rel) > base  # type: ignore[operator]
    assert _ours(make(z=1.3), 1e-5, rel) < base  # type: ignore[operator]
    if make is _dpsgd:
        assert _ours(_dpsgd(q=0.01), 1e-5, rel) > base
    else:
        assert _ours(_fixed(b=512), 1e-5, rel) > base


def test_fixed_batch_against_poisson() -> None:
    """Without replacement (replace-one, the batch's sum moves by 2C) of b out of n against Poisson at q = b/n
    (add/remove, C): the fixed-size pair (γN(2) + (1 − γ)N(0), N(0)) dominates the Poisson pair
    (qN(1) + (1 − q)N(0), N(0)) at γ = q, so ε_without >= ε_poisson; the RDP bound keeps the order."""
    for z in (0.8, 1.1, 2.0):
        assert _ours(_fixed(z=z), 1e-5, "replace_one") >= _ours(_dpsgd(z=z), 1e-5)


def test_rdp_is_above_the_exact_values() -> None:
    for e, rel in [(ev.SelfComposed(ev.Gaussian(3.0), 10), "replace_one"),
                   (ev.SelfComposed(ev.RandomizedResponse(0.9, 4), 50), "replace_one"),
                   (ev.SelfComposed(ev.RandomizedResponse(0.9, 4), 50), "replace_special"),
                   (ev.SelfComposed(ev.EpsilonDelta(0.1), 100), "add_remove"),
                   (ev.SingleEpochTreeAggregation(2.0, 1000), "replace_special")]:
        assert _ours(e, 1e-6, rel) >= _ours(e, 1e-6, rel, "exact")
