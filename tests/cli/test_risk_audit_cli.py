"""``dpcalc risk`` and ``dpcalc audit``: the documented runs and their numbers, and bad input as one line."""

from __future__ import annotations

import pytest

from tests.support.cli_runner import run, run_json

MNIST = ["--dataset-size", "60000", "--batch-size", "256", "--epochs", "60", "-z", "1.1", "--delta", "1e-5"]


def test_attack_prints_pld_and_eps_delta_side_by_side() -> None:
    out = run_json("risk", "attack", *MNIST)
    rows = {r["measure"]: r for r in out["rows"]}
    want = {"TPR at FPR 0.001": (0.00603, 0.00606, 0.01083), "TPR at FPR 0.01": (0.04006, 0.04022, 0.1083),
            "TPR at FPR 0.1": (0.2388, 0.2397, 0.9169)}
    for name, (lo, up, weak) in want.items():
        r = rows[name]
        assert lo <= r["lower"] <= r["upper"] <= up, (name, r)
        assert r["eps_delta"] == pytest.approx(weak, rel=1e-3)
    assert out["meta"]["eps"] == pytest.approx(2.382, rel=1e-3)
    assert out["meta"]["sentence"].startswith("An attacker testing membership at 1 % false-positive rate succeeds at "
                                              "most 4.03 % of the time")


def test_calibrate_meets_the_target() -> None:
    row = run_json("risk", "calibrate", "--dataset-size", "60000", "--batch-size", "256", "--epochs", "60",
                   "--max-tpr", "0.1", "--at-fpr", "0.01")["rows"][0]
    assert row["achieved"] <= 0.1 < row["next_achieved"]
    assert row["noise_multiplier"] == pytest.approx(0.7774, rel=2e-3)


def test_audit_counts_beside_the_accountant() -> None:
    out = run_json("audit", "counts", "--tp", "140", "--positives", "1000", "--fp", "10", "--negatives", "1000",
                   *MNIST)
    rows = {r["quantity"]: r["value"] for r in out["rows"]}
    assert rows["ε lower"] == pytest.approx(1.87207, rel=1e-4)
    assert rows["ε upper (accountant)"] == pytest.approx(2.3818, rel=1e-3)
    assert out["meta"]["comparison"]["consistent"]


def test_audit_scores_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    rng = np.random.default_rng(0)
    f = tmp_path / "scores.csv"
    lines = ["score,label"] + [f"{rng.normal(2.0 * lab):.6f},{lab}" for lab in [1] * 500 + [0] * 500]
    f.write_text("\n".join(lines) + "\n")
    out = run_json("audit", "scores", str(f), "--delta", "1e-5")
    assert out["meta"]["method"] == "split" and out["rows"][0]["value"] > 0.5


@pytest.mark.parametrize(("args", "message"), [
    (["audit", "counts", "--tp", "11", "--positives", "10", "--fp", "0", "--negatives", "5"], "tp must be <="),
    (["audit", "counts", "--tp", "1", "--positives", "10", "--fp", "0", "--negatives", "5", "--confidence", "1.5"],
     "--confidence"),
    (["audit", "one-run", "--canaries", "10", "--guesses", "5", "--correct", "6"], "correct must be <="),
    (["risk", "attack", "--q", "0.01", "--steps", "100", "-z", "1", "--fpr", "0"], "--fpr"),
    (["risk", "attack", "--q", "0.01", "--steps", "100"], "--noise-multiplier"),
    (["risk", "calibrate", "--q", "0.01", "--steps", "100", "--max-tpr", "0.2"], "at_fpr"),
])
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_scores_with_one_class_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "one.csv"
    f.write_text("score,label\n0.1,1\n0.2,1\n")
    code, _, err = run("audit", "scores", str(f))
    assert code == 2 and "both classes" in err and err.count("\n") == 1
