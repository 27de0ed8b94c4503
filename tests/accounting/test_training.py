"""Training terms -> q and T, checked against the peers' conventions and dp-accounting's events (MNIST DP-SGD:
60,000 examples, batch 256, 60 epochs, noise multiplier 1.1, δ = 1e-5), and any knob calibrated safe and tight."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcalc.accounting import accountants, knobs, training
from dpcalc.errors import DomainError, InfeasibleError

N, B, E, Z, DELTA = 60_000, 256, 60, 1.1, 1e-5


def test_mnist_terms_follow_tf_privacy() -> None:
    # TF-Privacy compute_dp_sgd_privacy_lib.py (compute_dp_sgd_privacy): q = b/N, steps = ceil(epochs·N/b)
    s = training.from_examples(N, B, epochs=E)
    assert s.q == B / N and s.steps == math.ceil(E * N / B) == 14063
    assert s.unit == "example" and s.sampling == "poisson" and s.terms["epochs"] == 60.0
    assert s.epochs == pytest.approx(14063 * B / N)
    assert training.from_examples(N, B, steps=1000).steps == 1000


@pytest.mark.parametrize(("epochs", "n", "b", "steps"), [(0.1, 1000, 100, 1), (0.3, 1000, 100, 3), (1, 10, 3, 4),
                                                         (2.5, 60000, 256, 586), (1e-9, 10, 10, 1)])
def test_steps_for_epochs_is_exact_in_the_decimal_epochs(epochs: float, n: int, b: int, steps: int) -> None:
    assert training.steps_for_epochs(epochs, n, b) == steps
    # the brute force: the smallest T with T·b >= E·N (E as its decimal fraction)
    from fractions import Fraction

    need = Fraction(repr(epochs)) * n
    assert steps == max(1, next(t for t in range(1, 10**6) if t * b >= need))


def test_client_terms() -> None:
    s = training.from_clients(1000, 50, 200)
    assert (s.q, s.steps, s.unit, s.epochs) == (0.05, 200, "client", None)


@pytest.mark.parametrize(("call", "names"), [
    (lambda: training.from_examples(N, N + 1, epochs=1), "batch_size"),
    (lambda: training.from_examples(N, B), "epochs and steps"),
    (lambda: training.from_examples(N, B, epochs=1, steps=3), "epochs and steps"),
    (lambda: training.from_examples(N, B, epochs=-1), "epochs"),
    (lambda: training.from_examples(N, 2.5, epochs=1), "batch_size"),
    (lambda: training.from_clients(10, 11, 5), "clients_per_round"),
    (lambda: training.from_clients(10, 5, 0), "rounds"),
    (lambda: training.from_examples(N, B, epochs=1, sampling="uniform"), "sampling"),
])
def test_bad_terms_are_one_line_naming_the_parameter(call, names: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError) as exc:
        call()
    assert names in str(exc.value) and "\n" not in str(exc.value)


def test_mnist_rdp_equals_dp_accounting_poisson_event() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    s = training.from_examples(N, B, epochs=E)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(s.q, dp_accounting.GaussianDpEvent(Z)), s.steps)
    ref = dp_accounting.rdp.RdpAccountant().compose(event).get_epsilon(DELTA)
    ours = training.evaluate(s, Z, DELTA, "rdp")
    assert ours.eps == pytest.approx(ref, rel=1e-9) and ours.bound == "upper"
    assert ours.eps == pytest.approx(2.5967, abs=1e-4)


def test_mnist_pld_bracket_holds_dp_accounting_poisson_event() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    s = training.from_examples(N, B, epochs=E)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(s.q, dp_accounting.GaussianDpEvent(Z)), s.steps)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    ref = acc.compose(event).get_epsilon(DELTA)  # pessimistic: above the true ε, close to it
    ours = training.evaluate(s, Z, DELTA, "pld")
    lo, hi = ours.extra["eps_lower"], ours.extra["eps_upper"]
    assert lo <= ref and abs(ref - hi) <= 2e-3 * hi and ours.eps == hi
    assert 2.380 < lo <= hi < 2.383


def test_mnist_shuffle_rdp_equals_dp_accounting_without_replacement_event() -> None:
    # dpcalc's replace-one moves the clipped sum by 2C (the old example leaves, the new one arrives); dp-accounting
    # 0.6's RDP accountant shifts by C under REPLACE_ONE: the same numbers at half the noise multiplier
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant

    s = training.from_examples(N, B, epochs=E, sampling="shuffle")
    acc = rdp_privacy_accountant.RdpAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.SampledWithoutReplacementDpEvent(N, B, dp_accounting.GaussianDpEvent(Z / 2)), s.steps))
    ours = training.evaluate(s, Z, DELTA, "rdp")
    assert ours.eps == pytest.approx(acc.get_epsilon(DELTA), rel=1e-9)
    pld = training.evaluate(s, Z, DELTA, "pld")
    assert pld.extra["eps_lower"] <= pld.eps <= ours.eps  # the PLD's bracket sits below the RDP bound
    poisson = training.evaluate(training.from_examples(N, B, epochs=E), Z, DELTA, "pld")
    assert pld.eps > 5 * poisson.eps  # the two samplers' numbers differ: the statement shows both


def test_shuffle_refuses_an_accountant_without_a_form_for_it() -> None:
    s = training.from_examples(N, B, epochs=E, sampling="shuffle")
    res = training.evaluate(s, Z, DELTA, "gdp-clt")
    assert res.eps is None and "accountant 'gdp-clt'" in str(res.failure) and "rdp, pld" in str(res.failure)
    assert training.relation("shuffle") == "replace one record"
    assert training.relation("poisson") == "add/remove one record"
    with pytest.raises(DomainError, match="not q alone"):
        training.evaluate(training.Schedule(0.01, 10, "shuffle"), Z, DELTA, "rdp")


def test_a_full_batch_shuffle_is_the_gaussian_shifted_by_twice_the_clipping_norm() -> None:
    s = training.from_examples(100, 100, epochs=3, sampling="shuffle")
    exact = accountants.epsilon(Z / 2, 1.0, 3, DELTA, accountant="analytic")  # shift 2C with noise zC
    res = training.evaluate(s, Z, DELTA, "pld")
    assert s.q == 1.0 and res.extra["eps_lower"] <= exact <= res.eps


# ---------------------------------------------------------------------------------------- any knob, safe and tight

def _grid(n: int) -> list[dict[str, float]]:
    rng = np.random.default_rng(20261127)
    return [{"eps": float(rng.choice([0.5, 1.0, 3.0, 8.0])), "sigma": float(rng.uniform(0.7, 2.0)),
             "dataset_size": int(rng.integers(5_000, 100_000)), "batch_size": int(rng.integers(16, 512)),
             "epochs": int(rng.integers(1, 40)), "clients": int(rng.integers(100, 5000)),
             "clients_per_round": int(rng.integers(5, 100)), "rounds": int(rng.integers(10, 2000)),
             "steps": int(rng.integers(100, 5000))} for _ in range(n)]


def _terms(knob: str, g: dict[str, float]) -> dict[str, float | None]:
    alt = next(a for a in knobs.NEEDS[knob] if all(n in g for n in a))
    return {n: g[n] for n in alt}


def _check(c: knobs.Calibration, target: float, knob: str) -> None:
    assert c.eps <= target, (knob, c)  # safe
    if c.next_value is None:  # the whole range meets the target: the knob is at its largest
        assert knob in ("batch-size", "sampling-rate", "clients-per-round")
        return
    assert c.next_eps > target, (knob, c)  # tight: one step past the answer exceeds it
    if knob == "noise-multiplier":
        assert c.next_value == pytest.approx(c.value / (1 + 1e-9), rel=1e-12)
    elif knob == "sampling-rate":
        assert c.next_value == pytest.approx(c.value * (1 + 1e-9), rel=1e-12)
    else:
        assert c.next_value == c.value + 1 and float(c.value).is_integer()


@pytest.mark.parametrize("knob", knobs.KNOBS)
def test_every_knob_is_safe_and_tight_on_a_seeded_grid(knob: str) -> None:
    done = 0
    for g in _grid(6):
        try:
            c = knobs.solve_knob(knob, g["eps"], DELTA, terms=_terms(knob, g), sigma=g["sigma"], accountant="rdp")
        except InfeasibleError as exc:  # e.g. even one step exceeds eps = 0.5: says which knob and why
            assert "unreachable" in str(exc) and "\n" not in str(exc)
            continue
        _check(c, g["eps"], knob)
        # the answer's ε is the accountant's ε of the schedule it gives
        assert c.eps == accountants.epsilon(c.sigma, c.schedule.q, c.schedule.steps, DELTA, accountant="rdp")
        done += 1
    assert done >= 3


@pytest.mark.parametrize("knob", ["steps", "batch-size", "sampling-rate"])
def test_pld_knobs_are_safe_and_tight_on_the_certified_upper_bound(knob: str) -> None:
    terms = {"steps": {"q": 0.01}, "batch-size": {"dataset_size": N, "epochs": 5},
             "sampling-rate": {"steps": 1000}}[knob]
    c = knobs.solve_knob(knob, 2.0, DELTA, terms=terms, sigma=1.0, accountant="pld")
    assert c.eps <= 2.0 < c.next_eps  # type: ignore[operator]


def test_mnist_epochs_for_eps_3() -> None:
    c = knobs.solve_knob("epochs", 3.0, DELTA, terms={"dataset_size": N, "batch_size": B}, sigma=Z)
    assert c.value == 78 and c.schedule.steps == math.ceil(78 * N / B)
    assert c.eps <= 3.0 < c.next_eps  # type: ignore[operator]


def test_a_bounded_knob_whose_whole_range_meets_the_target_returns_its_largest_value() -> None:
    c = knobs.solve_knob("clients-per-round", 50.0, DELTA, terms={"clients": 20, "rounds": 5}, sigma=3.0)
    assert c.value == 20 and c.next_value is None and c.schedule.q == 1.0


def test_infeasible_says_which_knob_and_why() -> None:
    with pytest.raises(InfeasibleError, match=r"unreachable .* even steps = 1 gives a larger eps"):
        knobs.solve_knob("steps", 0.01, DELTA, terms={"q": 0.5}, sigma=0.5)
    with pytest.raises(DomainError, match="solving for batch-size needs"):
        knobs.solve_knob("batch-size", 1.0, DELTA, terms={"dataset_size": N}, sigma=1.0)
    with pytest.raises(DomainError, match="accountant 'gdp-clt'"):
        knobs.solve_knob("steps", 1.0, DELTA, terms={"q": 0.01}, sigma=1.0, sampling="shuffle", accountant="gdp-clt")


@pytest.mark.parametrize(("knob", "terms"), [
    ("noise-multiplier", {"dataset_size": 6000, "batch_size": 60, "steps": 200}),
    ("batch-size", {"dataset_size": 6000, "steps": 200}),
    ("rounds", {"clients": 500, "clients_per_round": 20}),
])
def test_shuffle_knobs_are_safe_and_tight(knob: str, terms: dict[str, float]) -> None:
    c = knobs.solve_knob(knob, 2.0, DELTA, terms=terms, sigma=3.0, accountant="pld", sampling="shuffle")
    assert c.schedule.sampling == "shuffle" and c.eps <= 2.0 < c.next_eps  # type: ignore[operator]
