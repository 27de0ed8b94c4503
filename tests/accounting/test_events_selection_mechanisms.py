"""The exponential mechanism and permute-and-flip (dp-accounting's newest events), each added as one module: their
RDP against exact references (the 40-digit maximum over two-point ε-bounded-range pairs; the ε-DP pair's finite sum),
their PLD against Kairouz, Oh & Viswanath 2015's exact composition, δ = 0, order ∞, and their JSON form."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import dpcalc
from dpcalc.accounting import events as ev
from dpcalc.accounting.events.mechanisms.approximate_dp import pure_dp_curve
from dpcalc.accounting.events.mechanisms.laplace import laplace_curve
from dpcalc.checks.events_selection import bounded_range_rdp_mp
from tests.support.accounting import account

ALPHAS = np.array([1.01, 1.5, 2.0, 3.7, 10.0, 128.0, 1e4])


@pytest.mark.parametrize("eps", [0.01, 0.3, 1.0, 4.0])
def test_exponential_mechanism_rdp_is_the_bounded_range_maximum(eps: float) -> None:
    got = ev.ExponentialMechanism(eps).rdp(ALPHAS, "add_remove").rdp
    want = [float(bounded_range_rdp_mp(a, eps)) for a in ALPHAS]
    np.testing.assert_allclose(got, want, rtol=1e-11)
    assert np.all(got <= eps)
    # below the zCDP form ξ + ε²α/8 of Cesar & Rogers 2021 that dp-accounting's RDP accountant uses
    xi = eps / math.expm1(eps) - 1 - math.log(eps / math.expm1(eps)) - eps**2 / 8
    assert np.all(got <= np.minimum(xi + eps**2 / 8 * ALPHAS, eps) * (1 + 1e-12))
    # and below the curve of a general ε-DP release (binary randomized response with odds e^ε, which is not
    # bounded range with width ε: its losses are ±ε)
    assert np.all(got <= pure_dp_curve(ALPHAS, eps) * (1 + 1e-12))


def _kov(eps: float, k: int, eps_total: float) -> float:
    """δ at ε' of k ε-DP releases (Kairouz, Oh & Viswanath 2015, Thm. 3.3), 40 digits."""
    with mp.workdps(40):
        e = mp.mpf(eps)
        total = mp.mpf(0)
        for i in range(k + 1):
            loss = (k - 2 * i) * e
            if loss > eps_total:
                w = mp.binomial(k, i) * mp.e ** ((k - i) * e) / (1 + mp.e**e) ** k
                total += w * (1 - mp.e ** (eps_total - loss))
        return float(total)


@pytest.mark.parametrize("cls", [ev.ExponentialMechanism, ev.PermuteAndFlip])
def test_pld_is_the_epsilon_dp_pair_composed(cls: type) -> None:
    e = ev.SelfComposed(cls(0.5), 20)
    res = account(e, delta=1e-6, accountant="pld")
    assert res.lower is not None and res.upper is not None
    assert _kov(0.5, 20, res.upper) <= 1e-6 * (1 + 1e-9)
    assert _kov(0.5, 20, res.lower) >= 1e-6 * (1 - 1e-9)


def test_permute_and_flip_is_at_least_the_laplace_mechanism() -> None:
    """dp-accounting's sources account permute-and-flip as Laplace with scale 1/ε; dpcalc's ε-DP pair dominates it."""
    got = ev.PermuteAndFlip(1.0).rdp(ALPHAS, "add_remove").rdp
    np.testing.assert_allclose(got, pure_dp_curve(ALPHAS, 1.0), rtol=0)
    assert np.all(got >= laplace_curve(ALPHAS, 1.0) * (1 - 1e-12))
    lap = account(ev.SelfComposed(ev.Laplace(1.0), 10), delta=1e-5, accountant="pld")
    pf = account(ev.SelfComposed(ev.PermuteAndFlip(1.0), 10), delta=1e-5, accountant="pld")
    assert pf.value >= lap.value


@pytest.mark.parametrize("cls", [ev.ExponentialMechanism, ev.PermuteAndFlip])
def test_delta_zero_and_order_infinity_give_the_pure_epsilon(cls: type) -> None:
    e = ev.SelfComposed(cls(0.7), 12)
    for name in ("rdp", "pld"):
        r = account(e, delta=0.0, accountant=name)
        assert r.kind == "exact" and r.value == pytest.approx(8.4, rel=1e-15) and r.value >= 12 * 0.7
    r = dpcalc.epsilon(e, delta=1e-9, accountant="rdp", orders=[2.0, math.inf])
    assert r.details["order"] == math.inf and r.value == pytest.approx(8.4, rel=1e-15)


@pytest.mark.parametrize(("data", "cls"), [({"class_name": "ExponentialMechanismDpEvent", "epsilon": 1.0},
                                            ev.ExponentialMechanism),
                                           (["dp_accounting.dp_event", "PermuteAndFlipDpEvent", 2.0],
                                            ev.PermuteAndFlip)])
def test_read_from_dp_accountings_forms(data: object, cls: type) -> None:
    e = ev.as_event(data)
    assert isinstance(e, cls) and ev.from_dict(ev.to_dict(e)) == e


def test_calibrate_the_epsilon_of_a_selection() -> None:
    c = dpcalc.calibrate(ev.SelfComposed(ev.ExponentialMechanism(1.0), 50), eps=5.0, delta=1e-6,
                         solve_for="event.epsilon", accountant="rdp")
    assert c.result.value <= 5.0 and c.next_result is not None and c.next_result.value > 5.0
