"""Training terms on ``account`` and ``calibrate``: q and T derived and shown, the same numbers as ``--q --steps``,
every incomplete or conflicting combination one line with exit code 2, and ``calibrate --solve-for`` for every
knob safe and tight with the achieved ε shown."""

from __future__ import annotations

import math

import pytest

from dpcalc.accounting import schedule
from tests.support.cli_runner import run, run_json

MNIST = ("--dataset-size", "60000", "--batch-size", "256", "--epochs", "60")
FEDAVG = ("--clients", "1000", "--clients-per-round", "50", "--rounds", "200")
POINT = ("-z", "1.1", "--delta", "1e-5")


def test_account_with_training_terms_equals_account_with_q_and_steps() -> None:
    terms = run_json("account", *POINT, *MNIST, "-a", "rdp", "-a", "pld")
    plain = run_json("account", *POINT, "--q", repr(256 / 60000), "--steps", "14063", "-a", "rdp", "-a", "pld")
    assert [r["eps"] for r in terms["rows"]] == [r["eps"] for r in plain["rows"]]
    assert [(r["q"], r["steps"]) for r in terms["rows"]] == [(256 / 60000, 14063)] * 2
    assert terms["meta"]["training"] == {"dataset_size": 60000, "batch_size": 256, "epochs": 60.0, "steps": 14063,
                                         "q": 256 / 60000, "sampling": "poisson", "unit": "example"}
    code, out, _ = run("account", *POINT, *MNIST, "-a", "rdp")
    assert code == 0 and "q = b/N = 0.00426667; 60 epochs: T = ⌈E·N/b⌉ = 14,063" in out  # derived q and T shown


def test_client_terms_give_q_and_rounds() -> None:
    doc = run_json("account", *POINT, *FEDAVG, "-a", "rdp")
    row = doc["rows"][0]
    assert (row["q"], row["steps"]) == (0.05, 200)
    assert row["eps"] == schedule.epsilon(1.1, 0.05, 200, 1e-5)
    assert doc["meta"]["training"]["unit"] == "client"


def test_account_fixed_rows_come_from_the_without_replacement_accountants() -> None:
    doc = run_json("account", *POINT, *MNIST, "--sampling", "fixed")
    assert [r["accountant"] for r in doc["rows"]] == ["rdp", "rdp-lemma1", "pld"]  # every accountant with a form
    assert set(doc["meta"]["not_applicable"]) == {"zcdp", "analytic", "gdp-clt", "exact"}
    assert {r["relation"] for r in doc["rows"]} == {"replace-one"}
    poisson = run_json("account", *POINT, *MNIST, "-a", "rdp", "-a", "pld")
    for s, p in zip([r for r in doc["rows"] if r["accountant"] != "rdp-lemma1"], poisson["rows"], strict=True):
        assert s["eps"] > p["eps"]  # replace-one (2C) and no Poisson amplification: both numbers differ


@pytest.mark.parametrize(("argv", "names"), [
    (("--dataset-size", "60000", "--epochs", "60"), "--batch-size"),
    (("--dataset-size", "60000", "--batch-size", "256"), "--epochs or --steps"),
    (("--batch-size", "256", "--epochs", "6"), "--dataset-size"),
    ((*MNIST, "--steps", "5"), "--epochs and --steps"),
    ((*MNIST, "--q", "0.1"), "--q conflicts"),
    (("--clients", "100", "--clients-per-round", "10"), "--rounds"),
    ((*FEDAVG, "--dataset-size", "5"), "describe different runs"),
    ((*FEDAVG, "--steps", "3"), "--steps conflicts with --rounds"),
    ((*FEDAVG, "--q", "0.3"), "--q conflicts"),
    (("--q", "0.01", "--steps", "100", "--sampling", "fixed"), "--sampling fixed needs"),
    ((*MNIST, "--sampling", "fixed", "-a", "gdp-clt"), "gdp-clt"),
    (("--dataset-size", "600", "--batch-size", "700", "--epochs", "1"), "--batch-size"),
    (("--dataset-size", "0", "--batch-size", "1", "--epochs", "1"), "--dataset-size"),
    (("--dataset-size", "600", "--batch-size", "6", "--epochs", "-1"), "epochs"),
    (("--dataset-size", "600", "--batch-size", "6", "--epochs", "nan"), "epochs"),
    (("--dataset-size", "600", "--batch-size", "2.5", "--epochs", "1"), "--batch-size"),
    (("--dataset-size", "600", "--batch-size", "6", "--epochs", "1", "--sampling", "uniform"), "--sampling"),
    (("--dataset-size", "600,700", "--batch-size", "6", "--epochs", "1"), "--dataset-size"),
    ((), "give --q and --steps"),
    (("--q", "0.1"), "give --q and --steps"),
])
@pytest.mark.parametrize("command", ["account", "calibrate"])
def test_every_bad_combination_is_one_line_exit_2(command: str, argv: tuple[str, ...], names: str) -> None:
    point = ("--eps", "2", "--delta", "1e-5") if command == "calibrate" else POINT
    code, out, err = run(command, *point, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("dpcalc: error: "), err
    assert names in err or names.replace("--", "") in err, err


@pytest.mark.parametrize(("argv", "names"), [
    (("--solve-for", "epochs", *MNIST), "--epochs is the unknown"),
    (("--solve-for", "epochs", "--dataset-size", "60000", "--batch-size", "256"), "--noise-multiplier"),
    (("--solve-for", "batch-size", "--dataset-size", "60000", "-z", "1"),
     "--solve-for batch-size needs --dataset-size --epochs or --dataset-size --steps"),
    (("--solve-for", "sampling-rate", "-z", "1", "--dataset-size", "600", "--batch-size", "6", "--steps", "9"),
     "solve for --batch-size instead"),
    (("--solve-for", "rounds", "-z", "1", *FEDAVG), "--rounds is the unknown"),
    (("--solve-for", "speed", "-z", "1", *MNIST), "--solve-for must be one of noise-multiplier, steps"),
    (("--event", "x.json", *MNIST), "--event describes the mechanism itself"),
    (("--solve-for", "steps", "-z", "0.3", "--q", "0.5"), "even steps = 1 gives a larger eps"),
])
def test_bad_solve_for_is_one_line_exit_2(argv: tuple[str, ...], names: str) -> None:
    code, out, err = run("calibrate", "--eps", "0.05", "--delta", "1e-5", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert names in err, err


SETTING = {  # one setting (MNIST DP-SGD, a DP-FedAvg deployment), eps = 3 at delta = 1e-5, z = 1.1
    "noise-multiplier": MNIST,
    "steps": ("--dataset-size", "60000", "--batch-size", "256"),
    "epochs": ("--dataset-size", "60000", "--batch-size", "256"),
    "batch-size": ("--dataset-size", "60000", "--epochs", "60"),
    "sampling-rate": ("--steps", "14063"),
    "clients-per-round": ("--clients", "1000", "--rounds", "200"),
    "rounds": ("--clients", "1000", "--clients-per-round", "50"),
}


@pytest.mark.parametrize("knob", list(SETTING))
def test_calibrate_solve_for_every_knob_is_safe_and_tight(knob: str) -> None:
    z = () if knob == "noise-multiplier" else ("-z", "1.1")
    doc = run_json("calibrate", "--eps", "3", "--delta", "1e-5", "--solve-for", knob, *z, *SETTING[knob],
                   "-a", "rdp", "-a", "pld")
    field = {"sampling-rate": "q"}.get(knob, knob.replace("-", "_"))
    assert [r["accountant"] for r in doc["rows"]] == ["rdp", "pld"] and doc["meta"]["solve_for"] == field
    for r in doc["rows"]:
        assert r["eps"] <= 3.0 < r["next_eps"], r  # safe, and one step past exceeds the target
        name = r["accountant"]
        assert r["noise_multiplier"] == (r["value"] if knob == "noise-multiplier" else 1.1)
        fresh = schedule.epsilon(r["noise_multiplier"], r["q"], r["steps"], 1e-5, accountant=name)
        # RDP: the same number; PLD: the calibration's own certified bracket (a warm-started lattice), within the
        # bracket's 1e-3 of a fresh evaluation
        assert r["eps"] == fresh if name == "rdp" else abs(r["eps"] - fresh) <= 1e-3 * fresh
        if knob not in ("noise-multiplier", "sampling-rate"):
            assert r["next_value"] == r["value"] + 1 and float(r["value"]).is_integer()
    if knob == "epochs":
        assert doc["rows"][0]["value"] == 78 and doc["rows"][0]["steps"] == math.ceil(78 * 60000 / 256)


def test_calibrate_noise_multiplier_with_terms_equals_q_and_steps() -> None:
    terms = run_json("calibrate", "--eps", "3", "--delta", "1e-5", *MNIST, "-a", "rdp", "-a", "pld")
    plain = run_json("calibrate", "--eps", "3", "--delta", "1e-5", "--q", repr(256 / 60000), "--steps", "14063",
                     "-a", "rdp", "-a", "pld")
    assert [r["value"] for r in terms["rows"]] == [r["value"] for r in plain["rows"]]
    assert [r["steps"] for r in terms["rows"]] == [14063, 14063]


def test_calibrate_under_fixed_batches_is_safe_and_tight() -> None:
    doc = run_json("calibrate", "--eps", "3", "--delta", "1e-5", "--solve-for", "epochs", "-z", "2.5",
                   "--dataset-size", "60000", "--batch-size", "256", "--sampling", "fixed", "-a", "pld")
    r = doc["rows"][0]
    assert r["eps"] <= 3.0 < r["next_eps"] and doc["meta"]["sampling"] == "fixed"


def test_account_user_level_rows_equal_example_level_at_k_1_and_exceed_it_above() -> None:
    for k in ("1", "4"):
        doc = run_json("account", *POINT, *MNIST, "-a", "rdp", "-a", "pld", "--max-examples-per-user", k)
        example = {r["accountant"]: r["eps"] for r in doc["rows"] if r["level"] == "example"}
        user = [r for r in doc["rows"] if r["level"] == "user"]
        assert {r["method"] for r in user} == {"vadhan", "mixture", "rdp-group"}
        assert {r["k"] for r in user} == {int(k)}
        for r in user:
            base = example[r["accountant"]]
            # k = 1: the example-level ε (the mixture's PLD is another lattice: within its 1e-3)
            assert r["kind"] in ("upper", "bracket") and (r["eps"] == pytest.approx(base, rel=2e-3) if k == "1"
                                                           else r["eps"] > base)
    code, out, err = run("account", *POINT, *FEDAVG, "--max-examples-per-user", "2")
    assert code == 2 and out == "" and err.count("\n") == 1 and "already the client" in err


def test_solve_for_noise_multiplier_with_q_and_steps_shows_the_achieved_eps() -> None:
    doc = run_json("calibrate", "--eps", "2", "--delta", "1e-5", "--q", "0.01", "--steps", "1000",
                   "--solve-for", "noise-multiplier", "-a", "rdp")
    (row,) = doc["rows"]
    assert row["value"] == pytest.approx(1.02229, rel=1e-5) and row["eps"] <= 2.0 < row["next_eps"]
    default = run_json("calibrate", "--eps", "2", "--delta", "1e-5", "--q", "0.01", "--steps", "1000", "-a", "rdp")
    assert default["rows"][0]["noise_multiplier"] == row["value"]
