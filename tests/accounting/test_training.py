"""Training terms -> q and T, checked against the peers' conventions and dp-accounting's events (MNIST DP-SGD:
60,000 examples, batch 256, 60 epochs, noise multiplier 1.1, δ = 1e-5), and any knob calibrated safe and tight
(`dpcalc.calibrate` on a `TrainingRun`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpcalc
from dpcalc.accounting import schedule
from dpcalc.accounting.events import TrainingRun
from dpcalc.accounting.events.training import relation_of, steps_for_epochs
from dpcalc.errors import DomainError, InfeasibleError
from tests.support.accounting import account

N, B, E, Z, DELTA = 60_000, 256, 60, 1.1, 1e-5


def test_mnist_terms_follow_tf_privacy() -> None:
    # TF-Privacy compute_dp_sgd_privacy_lib.py (compute_dp_sgd_privacy): q = b/N, steps = ceil(epochs·N/b)
    s = TrainingRun(Z, dataset_size=N, batch_size=B, epochs=E)
    assert s.rate == B / N and s.step_count == math.ceil(E * N / B) == 14063
    assert s.unit == "example" and s.sampling == "poisson" and s.terms["epochs"] == 60.0
    assert s.epochs_run == pytest.approx(14063 * B / N)
    assert TrainingRun(Z, dataset_size=N, batch_size=B, steps=1000).step_count == 1000


@pytest.mark.parametrize(("epochs", "n", "b", "steps"), [(0.1, 1000, 100, 1), (0.3, 1000, 100, 3), (1, 10, 3, 4),
                                                         (2.5, 60000, 256, 586), (1e-9, 10, 10, 1)])
def test_steps_for_epochs_is_exact_in_the_decimal_epochs(epochs: float, n: int, b: int, steps: int) -> None:
    assert steps_for_epochs(epochs, n, b) == steps
    # the brute force: the smallest T with T·b >= E·N (E as its decimal fraction)
    from fractions import Fraction

    need = Fraction(repr(epochs)) * n
    assert steps == max(1, next(t for t in range(1, 10**6) if t * b >= need))


def test_client_terms() -> None:
    s = TrainingRun(Z, clients=1000, clients_per_round=50, rounds=200)
    assert (s.rate, s.step_count, s.unit, s.epochs_run) == (0.05, 200, "client", None)


@pytest.mark.parametrize(("terms", "names"), [
    ({"dataset_size": N, "batch_size": N + 1, "epochs": 1}, "batch_size"),
    ({"dataset_size": N, "batch_size": B, "epochs": 1, "steps": 3}, "epochs and steps"),
    ({"dataset_size": N, "batch_size": B, "epochs": -1}, "epochs"),
    ({"dataset_size": N, "batch_size": 2.5, "epochs": 1}, "batch_size"),
    ({"clients": 10, "clients_per_round": 11, "rounds": 5}, "clients_per_round"),
    ({"clients": 10, "clients_per_round": 5, "rounds": 0}, "rounds"),
    ({"dataset_size": N, "batch_size": B, "epochs": 1, "sampling": "uniform"}, "sampling"),
    ({"dataset_size": N, "batch_size": B, "epochs": 1e308}, "epochs"),
    ({"q": 0.01, "steps": 10, "sampling": "fixed"}, "not q"),
    ({"q": 0.01, "dataset_size": N, "batch_size": B, "epochs": 1}, "q conflicts"),
])
def test_bad_terms_are_one_line_naming_the_parameter(terms: dict[str, float], names: str) -> None:
    with pytest.raises(DomainError) as exc:
        TrainingRun(Z, **terms)  # type: ignore[arg-type]
    assert names in str(exc.value) and "\n" not in str(exc.value)


def test_missing_terms_are_one_line_when_accounted() -> None:
    with pytest.raises(DomainError, match="needs epochs or steps"):
        dpcalc.epsilon(noise_multiplier=Z, dataset_size=N, batch_size=B, delta=DELTA)
    with pytest.raises(DomainError, match="needs noise_multiplier"):
        dpcalc.epsilon(dataset_size=N, batch_size=B, epochs=1, delta=DELTA)
    with pytest.raises(DomainError, match="sigmas is not a training term"):
        dpcalc.epsilon(sigmas=Z, dataset_size=N, batch_size=B, epochs=1, delta=DELTA)


def _run(**changes: object) -> TrainingRun:
    return TrainingRun(**{"noise_multiplier": Z, "dataset_size": N, "batch_size": B, "epochs": E, **changes})


def test_mnist_rdp_equals_dp_accounting_poisson_event() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    s = _run()
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(s.rate, dp_accounting.GaussianDpEvent(Z)), s.step_count)
    ref = dp_accounting.rdp.RdpAccountant().compose(event).get_epsilon(DELTA)
    ours = account(s, delta=DELTA)
    assert ours.value == pytest.approx(ref, rel=1e-9) and ours.kind == "upper"
    assert ours.value == pytest.approx(2.5967, abs=1e-4)


def test_mnist_pld_bracket_holds_dp_accounting_poisson_event() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    s = _run()
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(s.rate, dp_accounting.GaussianDpEvent(Z)), s.step_count)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    ref = acc.compose(event).get_epsilon(DELTA)  # pessimistic: above the true ε, close to it
    ours = account(s, delta=DELTA, accountant="pld")
    lo, hi = ours.lower, ours.upper
    assert lo is not None and hi is not None
    assert lo <= ref and abs(ref - hi) <= 2e-3 * hi and ours.value == hi
    assert 2.380 < lo <= hi < 2.383
    assert dpcalc.epsilon(s, delta=DELTA) == ours  # the headline: the PLD's bracket


def test_mnist_fixed_rdp_equals_dp_accounting_without_replacement_event() -> None:
    # dpcalc's replace-one moves the clipped sum by 2C (the old example leaves, the new one arrives); dp-accounting
    # 0.6's RDP accountant shifts by C under REPLACE_ONE: the same numbers at half the noise multiplier
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant

    s = _run(sampling="fixed")
    acc = rdp_privacy_accountant.RdpAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.SampledWithoutReplacementDpEvent(N, B, dp_accounting.GaussianDpEvent(Z / 2)), s.step_count))
    ours = account(s, delta=DELTA, neighbours=relation_of("fixed"))
    assert ours.value == pytest.approx(acc.get_epsilon(DELTA), rel=1e-9)
    pld = account(s, delta=DELTA, accountant="pld", neighbours="replace_one")
    assert pld.lower is not None and pld.lower <= pld.value <= ours.value  # the PLD's bracket is below the RDP bound
    poisson = account(_run(), delta=DELTA, accountant="pld")
    assert pld.value > 5 * poisson.value  # the two samplers' numbers differ: the statement shows both
    assert dpcalc.epsilon(s, delta=DELTA, accountant="rdp") == ours  # the relation follows the sampler


def test_fixed_refuses_an_accountant_without_a_form_for_it() -> None:
    s = _run(sampling="fixed")
    with pytest.raises(DomainError, match="gdp-clt cannot account TrainingRunDpEvent"):
        dpcalc.epsilon(s, delta=DELTA, accountant="gdp-clt")
    assert relation_of("fixed") == "replace_one" and relation_of("poisson") == "add_remove"


def test_a_full_batch_fixed_sample_is_the_gaussian_shifted_by_twice_the_clipping_norm() -> None:
    s = TrainingRun(Z, dataset_size=100, batch_size=100, epochs=3, sampling="fixed")
    exact = schedule.epsilon(Z / 2, 1.0, 3, DELTA, accountant="analytic")  # shift 2C with noise zC
    res = dpcalc.epsilon(s, delta=DELTA, accountant="pld")
    assert s.rate == 1.0 and res.lower is not None and res.lower <= exact <= res.value


# ---------------------------------------------------------------------------------------- any knob, safe and tight

#: the terms each knob is solved with (the rest of the run fixed)
NEEDS = {"noise_multiplier": ("dataset_size", "batch_size", "epochs"), "steps": ("dataset_size", "batch_size"),
         "epochs": ("dataset_size", "batch_size"), "batch_size": ("dataset_size", "epochs"),
         "q": ("steps",), "clients_per_round": ("clients", "rounds"), "rounds": ("clients", "clients_per_round")}


def _grid(n: int) -> list[dict[str, float]]:
    rng = np.random.default_rng(20261127)
    return [{"eps": float(rng.choice([0.5, 1.0, 3.0, 8.0])), "sigma": float(rng.uniform(0.7, 2.0)),
             "dataset_size": int(rng.integers(5_000, 100_000)), "batch_size": int(rng.integers(16, 512)),
             "epochs": int(rng.integers(1, 40)), "clients": int(rng.integers(100, 5000)),
             "clients_per_round": int(rng.integers(5, 100)), "rounds": int(rng.integers(10, 2000)),
             "steps": int(rng.integers(100, 5000))} for _ in range(n)]


def _calibrate(knob: str, eps: float, terms: dict[str, float], sigma: float | None, accountant: str = "rdp",
               sampling: str = "poisson") -> dpcalc.Calibration:
    run = TrainingRun(None if knob == "noise_multiplier" else sigma, sampling=sampling,
                      **{k: x for k, x in terms.items()})  # type: ignore[arg-type]
    return dpcalc.calibrate(run, eps=eps, delta=DELTA, solve_for=knob, accountant=accountant)


def _check(c: dpcalc.Calibration, target: float, knob: str) -> None:
    assert c.result.value <= target, (knob, c)  # safe
    if c.next_value is None:  # the whole range meets the target: the knob is at its largest
        assert knob in ("batch_size", "q", "clients_per_round")
        return
    assert c.next_result is not None and c.next_result.value > target, (knob, c)  # tight: one step past exceeds it
    if knob == "noise_multiplier":
        assert c.next_value == pytest.approx(c.value * (1 - 1e-9), rel=1e-12)
    elif knob == "q":
        assert c.next_value == pytest.approx(c.value * (1 + 1e-9), rel=1e-12)
    else:
        assert c.next_value == c.value + 1 and float(c.value).is_integer()


@pytest.mark.parametrize("knob", list(NEEDS))
def test_every_knob_is_safe_and_tight_on_a_seeded_grid(knob: str) -> None:
    done = 0
    for g in _grid(6):
        try:
            c = _calibrate(knob, g["eps"], {n: g[n] for n in NEEDS[knob]}, g["sigma"])
        except InfeasibleError as exc:  # e.g. even one step exceeds eps = 0.5: says which knob and why
            assert "unreachable" in str(exc) and "\n" not in str(exc)
            continue
        _check(c, g["eps"], knob)
        # the answer's ε is the accountant's ε of the run it gives
        run = c.event
        assert isinstance(run, TrainingRun)
        assert c.result.value == schedule.epsilon(run.noise_multiplier, run.rate, run.step_count, DELTA)
        done += 1
    assert done >= 3


@pytest.mark.parametrize("knob", ["steps", "batch_size", "q"])
def test_pld_knobs_are_safe_and_tight_on_the_certified_upper_bound(knob: str) -> None:
    terms = {"steps": {"q": 0.01}, "batch_size": {"dataset_size": N, "epochs": 5}, "q": {"steps": 1000}}[knob]
    c = _calibrate(knob, 2.0, terms, 1.0, accountant="pld")
    assert c.next_result is not None and c.result.value <= 2.0 < c.next_result.value


def test_mnist_epochs_for_eps_3() -> None:
    c = _calibrate("epochs", 3.0, {"dataset_size": N, "batch_size": B}, Z)
    assert c.value == 78 and c.event.step_count == math.ceil(78 * N / B)  # type: ignore[attr-defined]
    assert c.next_result is not None and c.result.value <= 3.0 < c.next_result.value


def test_a_bounded_knob_whose_whole_range_meets_the_target_returns_its_largest_value() -> None:
    c = _calibrate("clients_per_round", 50.0, {"clients": 20, "rounds": 5}, 3.0)
    assert c.value == 20 and c.next_value is None and c.event.rate == 1.0  # type: ignore[attr-defined]


def test_infeasible_says_which_knob_and_why() -> None:
    with pytest.raises(InfeasibleError, match=r"unreachable .* even steps = 1 gives a larger eps"):
        _calibrate("steps", 0.01, {"q": 0.5}, 0.5)
    with pytest.raises(DomainError, match="needs epochs or steps"):
        _calibrate("batch_size", 1.0, {"dataset_size": N}, 1.0)
    with pytest.raises(DomainError, match="gdp-clt"):
        _calibrate("steps", 1.0, {"dataset_size": N, "batch_size": B}, 1.0, sampling="fixed", accountant="gdp-clt")


@pytest.mark.parametrize(("knob", "terms"), [
    ("noise_multiplier", {"dataset_size": 6000, "batch_size": 60, "steps": 200}),
    ("batch_size", {"dataset_size": 6000, "steps": 200}),
    ("rounds", {"clients": 500, "clients_per_round": 20}),
])
def test_fixed_knobs_are_safe_and_tight(knob: str, terms: dict[str, float]) -> None:
    c = _calibrate(knob, 2.0, terms, 3.0, accountant="pld", sampling="fixed")
    assert c.event.sampling == "fixed" and c.next_result is not None  # type: ignore[attr-defined]
    assert c.result.value <= 2.0 < c.next_result.value


@pytest.mark.parametrize("knob", ["noise-multiplier", "noise_multiplier"])
def test_knob_names_take_dashes_or_underscores(knob: str) -> None:
    c = dpcalc.calibrate(eps=2.0, delta=DELTA, solve_for=knob, q=0.01, steps=1000, accountant="rdp")
    assert c.field == "noise_multiplier" and c.value == schedule.sigma_for_eps(2.0, DELTA, 0.01, 1000)
