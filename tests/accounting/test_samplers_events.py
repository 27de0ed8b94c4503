"""The samplers a training run can use, through the front door: random allocation as an event (dp-accounting's
``RandomAllocationDpEvent`` field names), a training run's ``sampling`` (poisson, fixed, shuffle, balls-in-bins) and
the ``shuffle-lower`` accountant, against `dpcalc.samplers` (whose own tests check the bounds against exact sums and
Monte Carlo) and the stored reference table (tests/data/samplers_reference.json, rtol 2e-3)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import dpcalc
from dpcalc.accounting import gdp
from dpcalc.accounting.events import Gaussian, NotAccountable, RandomAllocation, SelfComposed, TrainingRun
from dpcalc.errors import DomainError, OutOfDomainWarning
from dpcalc.samplers import epsilon as allocation_epsilon
from dpcalc.samplers import epsilon_lower
from tests.support.cli_runner import run

DATA = json.loads((Path(__file__).parents[1] / "data" / "samplers_reference.json").read_text(encoding="utf-8"))
MNIST = {"noise_multiplier": 1.1, "dataset_size": 60000, "batch_size": 256}
DELTA = 1e-5


def _ref(epochs: int) -> dict[str, float]:
    return next(r for r in DATA["regression"]["mnist"] if r["epochs"] == epochs)


def test_random_allocation_event_is_the_samplers_bound() -> None:
    event = SelfComposed(RandomAllocation(Gaussian(1.1), 1, 234), 10)
    r = dpcalc.epsilon(event, delta=DELTA, accountant="pld")
    assert r.kind == "upper" and r.lower is None and "Feldman & Shenfeld" in " ".join(r.notes)
    assert r.value == pytest.approx(allocation_epsilon(1.1, 1, 234, 10, DELTA).eps, rel=1e-9)
    assert r.value == pytest.approx(_ref(10)["allocation_upper"], rel=DATA["regression_rtol"])
    rdp = dpcalc.epsilon(event, delta=DELTA, accountant="rdp")
    assert rdp.kind == "upper" and rdp.value >= r.value  # the RDP bound of the same allocation is looser


def test_random_allocation_reads_dp_accountings_form() -> None:
    data = {"class_name": "RandomAllocationDpEvent", "event": {"class_name": "GaussianDpEvent",
                                                                "noise_multiplier": 1.1},
            "num_selected": 1, "num_steps": 234}
    assert dpcalc.event_of(data) == RandomAllocation(Gaussian(1.1), 1, 234)
    assert dpcalc.epsilon(data, delta=DELTA).value == pytest.approx(_ref(1)["allocation_upper"],
                                                                     rel=DATA["regression_rtol"])


@pytest.mark.parametrize(("make", "message"), [
    (lambda: RandomAllocation(Gaussian(1.0), 5, 4), "num_selected must be an integer in [1, 4]"),
    (lambda: RandomAllocation(Gaussian(1.0), 1, 0), "num_steps must be"),
    (lambda: RandomAllocation(1.0, 1, 10), "RandomAllocationDpEvent.event must be an event"),  # type: ignore[arg-type]
])
def test_bad_allocation_is_one_line(make, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError) as info:
        make()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_replace_one_and_non_gaussian_allocation_are_refused_with_the_reason() -> None:
    with pytest.raises(NotAccountable, match="keeps its steps"):
        dpcalc.epsilon(RandomAllocation(Gaussian(1.0), 1, 10), delta=DELTA, accountant="pld",
                       neighbours="replace-one")
    with pytest.raises(NotAccountable, match="Gaussian noise inside"):
        dpcalc.epsilon({"type": "random_allocation", "event": {"type": "laplace", "noise_multiplier": 1.0},
                        "num_selected": 1, "num_steps": 10}, delta=DELTA, accountant="rdp")


def test_balls_in_bins_run_is_the_allocation_of_one_step_per_epoch() -> None:
    run_ = TrainingRun(sampling="balls-in-bins", epochs=10, **MNIST)
    assert run_.expand() == SelfComposed(RandomAllocation(Gaussian(1.1), 1, 234), 10)
    assert run_.step_count == 2340
    assert dpcalc.epsilon(run_, delta=DELTA).value == pytest.approx(_ref(10)["allocation_upper"],
                                                                    rel=DATA["regression_rtol"])


def test_shuffled_run_lies_between_its_lower_bound_and_the_unamplified_bound() -> None:
    run_ = TrainingRun(sampling="shuffle", epochs=1, **MNIST)
    found = dpcalc.account(run_, delta=DELTA, accountants=["exact", "pld", "shuffle-lower"])
    got = {r.accountant: r for r in found.results}
    upper = gdp.eps_from_mu(math.sqrt(1) / 1.1, DELTA)  # one Gaussian release per epoch: μ = √E/z
    assert got["exact"].kind == "upper" and got["exact"].value == pytest.approx(upper, rel=1e-12)
    assert got["pld"].kind == "upper" and got["pld"].lower is None
    low = got["shuffle-lower"]
    assert low.kind == "lower" and low.value == epsilon_lower(1.1, 60000, 256, 1, DELTA).eps_lower
    assert low.value == pytest.approx(_ref(1)["shuffle_lower"], rel=DATA["regression_rtol"])
    assert low.value < got["exact"].value
    assert found.headline.accountant in ("exact", "pld")  # a lower bound never heads


def test_samplers_need_their_terms() -> None:
    with pytest.raises(DomainError, match="whole number"):
        TrainingRun(sampling="shuffle", epochs=1.5, **MNIST).step_count  # noqa: B018
    with pytest.raises(DomainError, match="needs the sizes"):
        TrainingRun(1.1, q=0.01, steps=100, sampling="balls-in-bins")
    with pytest.raises(DomainError, match="multiple of"):
        TrainingRun(sampling="shuffle", steps=300, **MNIST).step_count  # noqa: B018
    assert TrainingRun(sampling="shuffle", steps=468, **MNIST).epoch_count == 2


def test_one_command_prints_the_three_numbers() -> None:
    """Done when: Poisson ε, the shuffle lower bound and the random-allocation upper bound, each labelled."""
    code, out, err = run("statement", "--dataset-size", "60000", "--batch-size", "256", "--epochs", "1", "-z", "1.1",
                         "--delta", "1e-5", "--sampling", "shuffle", "--compare", "poisson,balls-in-bins",
                         "-a", "pld", "-a", "shuffle-lower", "--format", "json")
    assert code == 0, err
    rows = {(r["sampler"], r["accountant"]): r for r in json.loads(out)["guarantees"]}
    ref = _ref(1)
    assert rows[("poisson", "pld")]["kind"] == "bracket"
    assert rows[("shuffle", "shuffle-lower")]["kind"] == "lower"
    assert rows[("balls-in-bins", "pld")]["kind"] == "upper"
    assert rows[("shuffle", "shuffle-lower")]["eps"] == pytest.approx(ref["shuffle_lower"], rel=2e-3)
    assert rows[("balls-in-bins", "pld")]["eps"] == pytest.approx(ref["allocation_upper"], rel=2e-3)
    # Poisson is accounted at T = ⌈E·N/b⌉ = 235 steps, the stored table at the shuffled run's 234
    assert rows[("poisson", "pld")]["eps"] == pytest.approx(ref["poisson"], rel=5e-3)


def test_bad_sampler_options_are_one_line() -> None:
    code, _, err = run("account", "--q", "0.01", "--steps", "100", "-z", "1", "--delta", "1e-5", "--sampling",
                       "balls-in-bins")
    assert code == 2 and err.count("\n") == 1 and "--sampling balls-in-bins needs the sizes" in err
    code, _, err = run("statement", "--dataset-size", "600", "--batch-size", "10", "--epochs", "1", "-z", "1",
                       "--delta", "1e-5", "--compare", "bogus")
    assert code == 2 and err.count("\n") == 1 and "compare must be one of" in err


def test_orders_take_infinity_and_huge_values() -> None:
    """--orders inf (the pure ε) and 1e10 on a sampled Gaussian: a one-line refusal before; above 1e5 the unsampled
    Gaussian's α/(2z²) bounds the curve (joint quasi-convexity), labelled a bound."""
    code, out, err = run("account", "--q", "0.01", "--steps", "1000", "-z", "1", "--delta", "1e-5", "-a", "rdp",
                         "--orders", "2:64:1,1e10,inf", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["rows"][0]["order"] == 8.0 and doc["meta"]["options"]["orders"][-2:] == [1e10, "inf"]
    event = {"type": "laplace", "noise_multiplier": 1.0}
    with pytest.warns(OutOfDomainWarning, match="smallest order of the grid"):  # the optimum at the grid's edge
        r = dpcalc.epsilon(event, delta=1e-5, accountant="rdp", orders=[1e10, 1e100, float("inf")])
    assert 1.0 - 2e-9 < r.value <= 1.0  # Laplace(1): pure ε = 1, at δ = 1e-5 a hair below
