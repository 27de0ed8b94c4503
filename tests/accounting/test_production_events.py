"""Federated production mechanisms through the front door: DP-FTRL-TreeRestart as a training run's mechanism and
distributed discrete noise as an event, against the families' own functions (`dpcalc.matrix`, `dpcalc.distributed`,
whose tests check them against the papers and Monte Carlo)."""

from __future__ import annotations

import json

import pytest

import dpcalc
from dpcalc.accounting import gdp
from dpcalc.accounting.events import (
    DistributedNoise,
    PoissonSampled,
    SelfComposed,
    SingleEpochTreeAggregation,
    TrainingRun,
)
from dpcalc.distributed import Pipeline
from dpcalc.distributed import epsilon as pipeline_epsilon
from dpcalc.errors import DomainError
from dpcalc.matrix.strategy import tree_restart_delta, tree_restart_sensitivity
from tests.support.cli_runner import run


@pytest.mark.parametrize(("epochs", "n", "b"), [(4, 160, 10), (1, 1000, 100), (60, 60000, 256)])
def test_dp_ftrl_run_is_the_restarted_tree(epochs: int, n: int, b: int) -> None:
    r = TrainingRun(10.0, dataset_size=n, batch_size=b, epochs=epochs, mechanism="dp-ftrl")
    t = n // b
    assert r.expand() == SelfComposed(SingleEpochTreeAggregation(10.0, t), epochs)
    assert r.relation == "replace_special" and r.step_count == epochs * t
    got = dpcalc.epsilon(r, delta=1e-5)
    assert got.kind == "exact"
    assert got.value == pytest.approx(gdp.eps_from_mu(tree_restart_sensitivity(epochs, t) / 10.0, 1e-5), rel=1e-12)
    assert dpcalc.delta(r, eps=1.0).value == pytest.approx(tree_restart_delta(1.0, 10.0, epochs, t), rel=1e-12)


def test_dp_ftrl_needs_whole_epochs_in_order() -> None:
    with pytest.raises(DomainError, match="no sampling"):
        TrainingRun(1.0, dataset_size=100, batch_size=10, epochs=2, mechanism="dp-ftrl", sampling="shuffle")
    with pytest.raises(DomainError, match="whole number under mechanism dp-ftrl"):
        dpcalc.epsilon(noise_multiplier=1.0, dataset_size=100, batch_size=10, epochs=2.5, mechanism="dp-ftrl",
                       delta=1e-5)
    with pytest.raises(DomainError, match="mechanism must be 'dp-sgd' or 'dp-ftrl'"):
        TrainingRun(1.0, dataset_size=100, batch_size=10, epochs=2, mechanism="dp-sgd2")


def test_account_takes_the_mechanism_in_training_terms() -> None:
    code, out, err = run("account", "--dataset-size", "160", "--batch-size", "10", "--epochs", "4", "-z", "10",
                         "--delta", "1e-5", "--mechanism", "dp-ftrl", "-a", "exact", "--json")
    assert code == 0, err
    row, = json.loads(out)["rows"]
    assert row["relation"] == "replace-special" and row["kind"] == "exact"
    assert row["eps"] == pytest.approx(gdp.eps_from_mu(tree_restart_sensitivity(4, 16) / 10.0, 1e-5), rel=1e-12)


@pytest.mark.parametrize(("mechanism", "sigma", "q", "rounds"), [("skellam", 0.3, 0.1, 1000), ("ddg", 0.1, 1.0, 10)])
def test_distributed_noise_event_is_the_pipeline(mechanism: str, sigma: float, q: float, rounds: int) -> None:
    inner = DistributedNoise(mechanism, 1.0, sigma, 1e-3, 100, 1000)
    event = SelfComposed(PoissonSampled(q, inner) if q < 1.0 else inner, rounds)
    got = dpcalc.epsilon(event, delta=1e-5, accountant="rdp")
    want = pipeline_epsilon(Pipeline(mechanism, c=1.0, sigma=sigma, gamma=1e-3, n=100, d=1000, q=q, rounds=rounds),
                            1e-5)
    assert got.kind == "upper" and got.value == pytest.approx(want.eps, rel=1e-12)


def test_distributed_noise_reads_its_dictionary_and_calibrates() -> None:
    data = {"class_name": "DistributedNoiseDpEvent", "mechanism": "ddg", "l2_norm_bound": 1.0, "noise_stddev": 0.1,
            "granularity": 1e-3, "num_clients": 100, "dimension": 1000}
    assert dpcalc.event_of(data) == DistributedNoise("ddg", 1.0, 0.1, 1e-3, 100, 1000)
    c = dpcalc.calibrate(SelfComposed(dpcalc.event_of(data), 10), eps=5.0, delta=1e-5,
                         solve_for="event.noise_stddev", accountant="rdp")
    assert c.result.value <= 5.0 < c.next_result.value  # type: ignore[union-attr]
    with pytest.raises(DomainError, match="mechanism must be 'ddg' or 'skellam'"):
        DistributedNoise("gauss", 1.0, 0.1, 1e-3, 100, 1000)


def test_calibrate_takes_an_attack_risk_target() -> None:
    """Done when (attack risk): a calibration to TPR <= 0.1 at FPR 0.01 returns a noise multiplier whose curve meets
    it — through the main calibrate command, equal to dpcalc risk calibrate."""
    from dpcalc.risk.calibrate import dpsgd_tpr

    args = ("--dataset-size", "60000", "--batch-size", "256", "--epochs", "60", "--max-tpr", "0.1", "--at-fpr", "0.01")
    code, out, err = run("calibrate", *args, "--json")
    assert code == 0, err
    row, = json.loads(out)["rows"]
    code, out2, err = run("risk", "calibrate", *args, "--json")
    assert code == 0, err
    assert json.loads(out2)["rows"][0]["noise_multiplier"] == row["noise_multiplier"]
    z = row["noise_multiplier"]
    assert dpsgd_tpr(z, 256 / 60000, 14063, 0.01) <= 0.1 < dpsgd_tpr(row["next_value"], 256 / 60000, 14063, 0.01)
    code, _, err = run("calibrate", *args, "--eps", "3")
    assert code == 2 and "two targets" in err and err.count("\n") == 1
    code, _, err = run("calibrate", "--dataset-size", "60000", "--batch-size", "256", "--epochs", "60")
    assert code == 2 and "give the target" in err


def test_statement_carries_the_membership_sentence() -> None:
    s = dpcalc.statement(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60, delta=1e-5,
                         membership_fpr=0.01)
    m = s.to_dict()["membership"]
    assert m["kind"] == "certified" and 0.03 < m["tpr_upper"] < 0.05
    assert "An attacker testing membership at 1 % false-positive rate succeeds at most" in str(s)
