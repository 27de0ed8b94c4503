"""dpcalc.epsilon and dpcalc.calibrate on events: every accountant, the refusals (one line naming the event and what
is supported), exact references (μ-GDP, Kairouz, Oh & Viswanath 2015 optimal composition, randomized response with
mpmath) and the PLD bracket around them, JSON round trips, calibration of any field on the safe side."""

from __future__ import annotations

import json
import math

import mpmath as mp
import pytest

import dpcalc
from dpcalc.accounting import events as ev
from dpcalc.accounting import schedule
from dpcalc.accounting.calibrate import get_field, with_field
from dpcalc.accounting.finite import delta_finite
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError, InfeasibleError


def account(event: object, *, delta: float, accountant: str = "rdp", neighbours: str = "add_remove"
            ) -> PrivacyResult:
    """One accountant's result (the verb with the accountant named)."""
    return dpcalc.epsilon(event, delta=delta, accountant=accountant, neighbours=neighbours)


def calibrate(event: object, field: str, *, eps: float, delta: float, accountant: str = "rdp",
              neighbours: str = "add_remove") -> dpcalc.Calibration:
    return dpcalc.calibrate(event, solve_for=field, eps=eps, delta=delta, accountant=accountant,
                            neighbours=neighbours)

DPSGD = {"class_name": "SelfComposedDpEvent", "count": 1000,
         "event": {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01,
                   "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}}


def test_result_says_bound_relation_and_sampling() -> None:
    r = account(DPSGD, delta=1e-5)
    assert (r.accountant, r.kind, r.relation, r.sampling) == ("rdp", "upper", "add_remove", "poisson q=0.01")
    assert r.event == "SelfComposed(PoissonSampled(0.01, Gaussian(1)), 1000)"
    assert r.details["curve"] == "exact" and r.details["order"] > 1
    assert r.value == schedule.epsilon(1.0, 0.01, 1000, 1e-5)  # the (σ, q, T) form: the same number
    p = account(DPSGD, delta=1e-5, accountant="pld")
    assert p.kind == "bracket" and p.lower is not None and p.lower <= p.value == p.upper == float(p)
    assert p.value == schedule.epsilon(1.0, 0.01, 1000, 1e-5, accountant="pld")


@pytest.mark.parametrize(("sigma", "q", "steps"), [(1.0, 0.01, 1000), (0.7, 1.0, 20), (2.0, 0.2, 50)])
def test_a_training_run_is_its_expanded_event(sigma: float, q: float, steps: int) -> None:
    run = ev.TrainingRun(sigma, q=q, steps=steps)
    e = run.expand()
    assert e == (ev.SelfComposed(ev.PoissonSampled(q, ev.Gaussian(sigma)), steps) if q < 1 else
                 ev.SelfComposed(ev.Gaussian(sigma), steps))
    for acc in ("rdp", "pld"):
        assert account(e, delta=1e-6, accountant=acc).value == account(run, delta=1e-6, accountant=acc).value \
            == schedule.epsilon(sigma, q, steps, 1e-6, accountant=acc)
    if q == 1.0:
        assert account(e, delta=1e-6, accountant="exact").value == pytest.approx(
            schedule.epsilon(sigma, q, steps, 1e-6, accountant="analytic"), rel=1e-9)


def test_json_round_trip_gives_the_same_eps() -> None:
    e = ev.as_event(DPSGD)
    again = ev.from_dict(json.loads(json.dumps(ev.to_dict(e))))
    for acc in ("rdp", "pld"):
        assert account(again, delta=1e-5, accountant=acc).value == account(e, delta=1e-5, accountant=acc).value


def test_dp_accounting_object_is_read_duck_typed() -> None:
    dpa = pytest.importorskip("dp_accounting")
    peer = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    assert account(peer, delta=1e-5).value == account(DPSGD, delta=1e-5).value


@pytest.mark.parametrize(("event", "accountant", "neighbours", "message"), [
    (ev.Unsupported(), "rdp", "add_remove", "rdp cannot account UnsupportedDpEvent: it is dp-accounting's placeholder"),
    (ev.TruncatedSubsampledGaussian(100, 0.1, 20, 1.0), "rdp", "replace_one", "untruncated part is Poisson"),
    (ev.RandomizedResponse(0.5, 4), "rdp", "add_remove", "an added or removed record has no bucket"),
    (ev.EpsilonDelta(1.0, 1e-6), "rdp", "add_remove", "delta > 0 has no RDP curve"),
    (ev.SampledWithReplacement(100, 10, ev.RandomizedResponse(0.5, 2)), "rdp", "replace_one",
     "use the pld accountant"),
    (ev.SampledWithoutReplacement(100, 10, ev.Gaussian(1.0)), "rdp", "add_remove", "replace-one statement"),
    (ev.PoissonSampled(0.1, ev.Gaussian(1.0)), "rdp", "replace_one", "add-remove or replace-special"),
    (ev.SingleEpochTreeAggregation(1.0, 10), "rdp", "add_remove", "replace-one or replace-special"),
    (ev.ZCDp(0.1), "pld", "add_remove", "zCDP statement has no privacy-loss distribution"),
    (ev.RepeatAndSelect(ev.Gaussian(1.0), 2.0, 1.0), "pld", "add_remove", "use rdp"),
    (ev.PoissonSampled(0.1, ev.Laplace(1.0)), "exact", "add_remove", "the exact accountant supports"),
    (ev.MixtureOfGaussians(1.0, (0.5, 1.0), (0.5, 0.5)), "rdp", "add_remove", "use the pld accountant"),
])
def test_refusals_are_one_line(event: ev.Event, accountant: str, neighbours: str, message: str) -> None:
    with pytest.raises(DomainError) as info:
        account(event, delta=1e-5, accountant=accountant, neighbours=neighbours)
    text = str(info.value)
    assert message in text and "\n" not in text and event.CLASS_NAME in text


def test_non_private_and_no_op() -> None:
    r = account(ev.Composed((ev.Gaussian(1.0), ev.NonPrivate())), delta=1e-5)
    assert r.value == math.inf and r.kind == "exact" and "no privacy guarantee" in r.notes[0]
    assert account(ev.SelfComposed(ev.NonPrivate(), 0), delta=1e-5).value == 0.0
    assert account(ev.Composed((ev.NoOp(), ev.Gaussian(2.0))), delta=1e-5, accountant="exact").value == \
        account(ev.Gaussian(2.0), delta=1e-5, accountant="exact").value


@pytest.mark.parametrize("event", [ev.EpsilonDelta(2.0, 1e-9), ev.SelfComposed(ev.EpsilonDelta(0.5, 1e-10), 20)])
@pytest.mark.parametrize("accountant", ["pld", "exact"])
def test_delta_below_the_mass_at_infinity_is_one_line(event: ev.Event, accountant: str) -> None:
    """No finite ε when δ is below the probability of an infinite loss (20 × 1e-10 > 1e-12): the pld accountant
    once raised a bare ValueError from an empty max() on its second pass."""
    with pytest.raises(DomainError, match="no finite epsilon") as info:
        account(event, delta=1e-12, accountant=accountant)
    assert "\n" not in str(info.value)


def test_bad_accountant_and_relation() -> None:
    with pytest.raises(DomainError, match="accountant must be one of rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld"):
        account(DPSGD, delta=1e-5, accountant="gdp")
    with pytest.raises(DomainError, match="neighbours must be one of"):
        account(DPSGD, delta=1e-5, neighbours="swap")
    with pytest.raises(DomainError, match="delta must be"):
        account(DPSGD, delta=1.0)
    with pytest.raises(DomainError, match="no finite epsilon at delta = 0"):
        account(DPSGD, delta=0.0)


# --- exact references ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("rel", "factor"), [("add_remove", 1), ("replace_one", 2), ("replace_special", 1)])
def test_gaussian_under_each_relation_is_mu_gdp(rel: str, factor: int) -> None:
    from dpcalc.accounting import gdp

    e = ev.Composed((ev.SelfComposed(ev.Gaussian(3.0), 6), ev.Gaussian(2.0)))
    mu = factor * math.sqrt(6 / 9 + 1 / 4)
    want = float(gdp.eps_from_mu(mu, 1e-6))
    assert account(e, delta=1e-6, neighbours=rel, accountant="exact").value == pytest.approx(want, rel=1e-14)
    p = account(e, delta=1e-6, neighbours=rel, accountant="pld")
    assert p.lower is not None and p.lower <= want <= p.value
    assert account(e, delta=1e-6, neighbours=rel).value >= want


def _kov_delta(eps: float, delta: float, k: int, i: int) -> mp.mpf:
    """Kairouz, Oh & Viswanath 2015, Thm. 3.3: the k-fold composition of (ε, δ)-DP is ((k − 2i)ε, δᵢ)-DP, tight."""
    e = mp.mpf(eps)
    tilde = sum(mp.binomial(k, ell) * (mp.e ** ((k - ell) * e) - mp.e ** ((k - 2 * i + ell) * e))
                for ell in range(i)) / (1 + mp.e ** e) ** k
    return 1 - (1 - mp.mpf(delta)) ** k * (1 - tilde)


@pytest.mark.parametrize(("eps", "delta", "k"), [(0.1, 0.0, 50), (0.5, 1e-7, 20), (1.0, 0.0, 7)])
def test_optimal_composition_of_kairouz_oh_viswanath(eps: float, delta: float, k: int) -> None:
    (pair,) = ev.EpsilonDelta(eps, delta).finite_pairs("add_remove")
    for i in range(0, k // 2):
        with mp.workdps(40):
            want = float(_kov_delta(eps, delta, k, i))
        assert delta_finite(pair, k, (k - 2 * i) * eps) == pytest.approx(want, rel=1e-12, abs=1e-300)


def _rr_delta(p: float, k: int, count: int, eps: float) -> float:
    """δ(ε) of ``count`` replace-one randomized responses, summed over the trinomial counts with mpmath."""
    with mp.workdps(40):
        return _rr_delta_mp(p, k, count, eps)


def _rr_delta_mp(p: float, k: int, count: int, eps: float) -> float:
    pp = mp.mpf(p)
    hit, miss = 1 - pp + pp / k, pp / k
    rest = 1 - hit - miss
    lg = mp.log(hit / miss)
    total = mp.mpf(0)
    for i in range(count + 1):
        for j in range(count + 1 - i):
            loss = (i - j) * lg
            if loss > eps:
                w = mp.factorial(count) / (mp.factorial(i) * mp.factorial(j) * mp.factorial(count - i - j))
                total += w * hit**i * miss**j * rest ** (count - i - j) * (1 - mp.e ** (eps - loss))
    return float(total)


def test_randomized_response_composed_matches_the_mpmath_sum() -> None:
    e = ev.SelfComposed(ev.RandomizedResponse(0.9, 4), 30)
    r = account(e, delta=1e-6, neighbours="replace_one", accountant="exact")
    assert _rr_delta(0.9, 4, 30, r.value) <= 1e-6 * (1 + 1e-9)
    assert _rr_delta(0.9, 4, 30, r.value * (1 - 1e-9)) > 1e-6 * (1 - 1e-9)  # the smallest such ε
    assert account(e, delta=1e-6, neighbours="replace_one").value >= r.value


# --- calibration --------------------------------------------------------------------------------------------------

def test_field_paths() -> None:
    e = ev.as_event(DPSGD)
    assert get_field(e, "event.event.noise_multiplier") == 1.0
    assert get_field(with_field(e, "event.sampling_probability", 0.02), "event.sampling_probability") == 0.02
    c = ev.Composed((ev.Gaussian(1.0), ev.SelfComposed(ev.Laplace(2.0), 3)))
    assert get_field(with_field(c, "events[1].count", 5), "events[1].count") == 5
    with pytest.raises(DomainError, match="has no field 'sigma'"):
        get_field(e, "event.event.sigma")
    with pytest.raises(DomainError, match="has no item 4"):
        get_field(c, "events[4].count")


@pytest.mark.parametrize(("field", "accountant"), [("event.event.noise_multiplier", "rdp"), ("count", "rdp"),
                                                   ("event.sampling_probability", "rdp"),
                                                   ("event.event.noise_multiplier", "pld")])
def test_calibrate_any_field_on_the_safe_side(field: str, accountant: str) -> None:
    c = calibrate(DPSGD, field, eps=2.0, delta=1e-5, accountant=accountant)
    assert c.result.value <= 2.0 and c.field == field
    if field == "count":  # the last count that meets the target
        assert account(with_field(c.event, "count", int(c.value) + 1), delta=1e-5).value > 2.0
    elif accountant == "rdp":
        assert c.result.value == pytest.approx(2.0, rel=1e-7)
    if field == "event.event.noise_multiplier":  # the one calibrator: the (σ, q, T) form gives the same σ
        assert c.value == schedule.sigma_for_eps(2.0, 1e-5, 0.01, 1000, accountant=accountant)


def test_calibrate_fixed_batch_size_and_refusals() -> None:
    e = ev.SelfComposed(ev.SampledWithoutReplacement(60000, 256, ev.Gaussian(1.1)), 1000)
    c = calibrate(e, "event.sample_size", eps=3.0, delta=1e-5, neighbours="replace_one")
    assert c.result.value <= 3.0 < account(with_field(e, "event.sample_size", int(c.value) + 1), delta=1e-5,
                                         neighbours="replace_one").value
    with pytest.raises(DomainError, match="cannot be calibrated"):
        calibrate(e, "event.event", eps=1.0, delta=1e-5)
    with pytest.raises(InfeasibleError):
        calibrate(DPSGD, "count", eps=1e-3, delta=1e-5)


def test_dp_accountings_pld_drops_the_count_of_randomized_response() -> None:
    """Found while comparing: dp-accounting 0.6's PLD accountant composes a RandomizedResponseDpEvent once whatever
    its count (pld/pld_privacy_accountant.py composes ``rr_pld`` without ``self_compose(count)``), so 100 releases
    come out at the one-release ε; the exact value (finite sum) is 39 times larger."""
    dpa = pytest.importorskip("dp_accounting")
    pld_acc = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")
    rel = dpa.privacy_accountant.NeighboringRelation.REPLACE_ONE
    peer = pld_acc.PLDAccountant(rel, value_discretization_interval=1e-3)
    peer.compose(dpa.RandomizedResponseDpEvent(0.9, 4), 100)
    one = account(ev.RandomizedResponse(0.9, 4), delta=1e-5, neighbours="replace_one", accountant="exact").value
    hundred = account(ev.SelfComposed(ev.RandomizedResponse(0.9, 4), 100), delta=1e-5, neighbours="replace_one",
                      accountant="exact").value
    assert peer.get_epsilon(1e-5) == pytest.approx(one, rel=1e-3)
    assert hundred == pytest.approx(14.392619929802816, rel=1e-9) and hundred > 39 * peer.get_epsilon(1e-5)
