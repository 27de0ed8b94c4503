"""``dpcalc statement``: the pasteable privacy statement. Its numbers are ``account``'s for the same inputs; the
same content in text, JSON, Markdown and LaTeX; user level >= example level and equal at k = 1; bad input one
line, exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dpcalc.report.statement import shown
from tests.support.cli_runner import run, run_json

MNIST = ("--dataset-size", "60000", "--batch-size", "256", "--epochs", "60", "-z", "1.1", "--delta", "1e-5")
FEDAVG = ("--clients", "1000", "--clients-per-round", "50", "--rounds", "200", "-z", "1.1", "--delta", "1e-5")
KEYS = ("eps", "eps_lower", "eps_upper", "kind")


def _rows(doc: dict, level: str, sampling: str) -> dict[str, dict]:  # type: ignore[type-arg]
    return {r["accountant"]: r for r in doc["guarantees"] if r["level"] == level and r["sampler"] == sampling
            and r["method"] is None}


@pytest.mark.parametrize("sampling", ["poisson", "fixed"])
def test_statement_numbers_equal_account(sampling: str) -> None:
    other = "fixed" if sampling == "poisson" else "poisson"
    statement = run_json("statement", *MNIST, "-a", "rdp", "-a", "pld", "--sampling", sampling, "--compare", other)
    account = run_json("account", *MNIST, "-a", "rdp", "-a", "pld", "--sampling", sampling)
    mine = _rows(statement, "example", sampling)
    for row in account["rows"]:
        assert {k: row.get(k) for k in KEYS} == {k: mine[row["accountant"]][k] for k in KEYS}
    shown_too = run_json("account", *MNIST, "-a", "rdp", "-a", "pld", "--sampling", other)
    theirs = _rows(statement, "example", other)  # both samplers' numbers, each equal to account's
    for row in shown_too["rows"]:
        assert row["eps"] == theirs[row["accountant"]]["eps"]


def test_statement_content() -> None:
    doc = run_json("statement", *MNIST, "-a", "rdp", "-a", "pld")
    assert doc["training"]["q"] == 256 / 60000 and doc["training"]["steps"] == 14063
    assert doc["unit"] == "one example" and doc["neighbouring"] == "add or remove one example"
    assert doc["headline"]["accountant"] == "pld" and doc["headline"]["eps"] == _rows(doc, "example",
                                                                                      "poisson")["pld"]["eps"]
    assert any("Abadi et al. 2016" in r for r in doc["references"])
    assert any("Koskela et al. 2020" in r for r in doc["references"])
    assert any("C_l = ‖Δŵ_l‖" in x for x in doc["not_covered"])
    assert any("hyperparameter tuning" in x for x in doc["not_covered"])
    assert any("implemented sampler" in x for x in doc["not_covered"])


def test_the_four_formats_carry_the_same_statement(tmp_path: Path) -> None:
    code, text, err = run("statement", *MNIST, "-a", "rdp", "-a", "pld")
    assert code == 0 and err == ""
    first = text.splitlines()[2]
    assert first.startswith("Trained with DP-SGD on 60,000 examples, batch size 256 (q = 0.00426667), 60 epochs = "
                            "14,063 steps, noise multiplier 1.1. It satisfies (ε = 2.383, δ = 1e-05)")
    assert "pld: ε = 2.383 (certified bracket [2.381, 2.383])" in text
    assert "rdp: ε = 2.597 (upper bound)" in text and "fixed-size batches" not in text  # Poisson alone by default
    code, md, _ = run("statement", *MNIST, "-a", "rdp", "-a", "pld", "--format", "markdown")
    assert code == 0 and md.startswith("## Differential privacy statement") and "- pld: ε = 2.383" in md
    code, tex, _ = run("statement", *MNIST, "-a", "rdp", "-a", "pld", "-f", "latex")
    assert code == 0 and r"\begin{itemize}" in tex and all(ord(c) < 128 for c in tex)  # pdflatex-safe
    assert r"$\varepsilon$ = 2.383" in tex
    code, js, _ = run("statement", *MNIST, "-a", "rdp", "-a", "pld", "--format", "json")
    assert code == 0 and json.loads(js) == run_json("statement", *MNIST, "-a", "rdp", "-a", "pld")
    target = tmp_path / "statement.md"
    code, out, _ = run("statement", *MNIST, "-a", "rdp", "-a", "pld", "-f", "markdown", "-o", str(target))
    assert code == 0 and out == "" and target.read_text() == md


def test_user_level_equals_example_level_at_k_1_and_is_larger_above() -> None:
    one = run_json("statement", *MNIST, "-a", "rdp", "-a", "pld", "--max-examples-per-user", "1")
    example = _rows(one, "example", "poisson")
    user = [r for r in one["guarantees"] if r["level"] == "user"]
    for r in user:
        if r["method"] in ("vadhan", "rdp-group"):
            assert r["eps"] == example[r["accountant"]]["eps"], r
    assert one["headline"]["eps"] == example["pld"]["eps"]
    four = run_json("statement", *MNIST, "-a", "rdp", "-a", "pld", "--max-examples-per-user", "4")
    for r in four["guarantees"]:
        if r["level"] == "user" and r["eps"] is not None:
            assert r["eps"] >= example[r["accountant"]]["eps"] and r["kind"] in ("upper", "bracket")
    assert four["unit"] == "one user, who contributes at most 4 examples"
    assert four["headline"]["eps"] > one["headline"]["eps"]
    methods = {r["method"] for r in four["guarantees"] if r["level"] == "user"}
    assert methods == {"vadhan", "rdp-group", "mixture"}  # the mixture row: a number or its one-line reason


def test_federated_statement_is_at_client_level() -> None:
    doc = run_json("statement", *FEDAVG, "-a", "rdp")
    assert doc["mechanism"] == "DP-FedAvg" and doc["unit"] == "one client, with all of its data"
    assert doc["training"]["q"] == 0.05 and doc["training"]["steps"] == 200
    code, text, _ = run("statement", *FEDAVG, "-a", "rdp")
    assert code == 0 and "at the level of one client, with all of its data" in text


@pytest.mark.parametrize(("argv", "names"), [
    ((*FEDAVG, "--max-examples-per-user", "3"), "--max-examples-per-user"),
    ((*MNIST, "--max-examples-per-user", "0"), "--max-examples-per-user"),
    ((*MNIST, "-z", "1,2"), "one value"),
    ((*MNIST, "--format", "html"), "--format"),
    (("-z", "1", "--delta", "1e-5"), "give --q and --steps"),
    ((*MNIST, "--q", "0.2"), "--q conflicts"),
])
def test_bad_statement_input_is_one_line_exit_2(argv: tuple[str, ...], names: str) -> None:
    code, out, err = run("statement", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and names in err, err


def test_shown_rounds_outward() -> None:
    assert shown(2.381839745) == "2.382" and shown(2.380827256, down=True) == "2.380"
    assert shown(14.718403) == "14.72" and shown(3.0) == "3.000" and shown(None) == "—"
    rng = np.random.default_rng(7)
    for x in 10.0 ** rng.uniform(-6, 3, 500):
        assert float(shown(x)) >= x and float(shown(x, down=True)) <= x
