"""The shared output options (-o FILE: the format from the suffix; never a box table in a .csv) and the answer to a
mistyped option (its synonym's right name, derived from the declarations)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from dpcalc.cli.command import resolved
from dpcalc.cli.main import FAMILIES, entries, find
from dpcalc.cli.messages import aliases, suggest
from tests.support.cli_runner import run

SIGMA = ("sigma", "--eps", "1,5", "--d", "1000")


@pytest.mark.parametrize(("suffix", "check"), [
    (".csv", lambda text: list(csv.DictReader(text.splitlines()))[1]["eps"] == "5.0"),
    (".json", lambda text: json.loads(text)["rows"][1]["eps"] == 5.0),
    (".md", lambda text: text.startswith("| ε (nats) |")),
    (".tex", lambda text: r"\begin{tabular}" in text),
    (".txt", lambda text: text.startswith("Minimum Gaussian") and "┏" in text),  # no known suffix: the table
])
def test_output_format_follows_the_suffix(tmp_path: Path, suffix: str, check) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / f"out{suffix}"
    code, out, err = run(*SIGMA, "-o", str(target))
    assert code == 0 and out == "", err
    assert check(target.read_text(encoding="utf-8"))


def test_format_option_wins_over_the_suffix(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    assert run(*SIGMA, "-o", str(target), "--format", "json")[0] == 0
    assert json.loads(target.read_text())["rows"][0]["eps"] == 1.0
    assert run(*SIGMA, "-o", str(target), "--force", "--json")[0] == 0 and target.read_text().startswith("{")


def test_a_box_table_never_lands_in_a_csv(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    code, out, err = run(*SIGMA, "-o", str(target), "--format", "table")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--format csv" in err
    assert not target.exists()


@pytest.mark.parametrize(("argv", "wanted"), [
    (["account", "--sigma", "1"], "--noise-multiplier/-z"),  # the catalog's library name of the noise multiplier
    (["account", "--noise", "1"], "--noise-multiplier/-z"),
    (["account", "--sampling-rate", "0.01"], "--q"),
    (["account", "--rate", "0.01"], "--q"),
    (["account", "--T", "100"], "--steps"),  # the catalog symbol of steps
    (["account", "--d", "1e-5"], "--delta or --dataset-size"),  # no --d here: the options it starts
    (["gdp", "clt", "--sigma", "1"], "--noise-multiplier/-z"),
    (["midp", "leakage", "--noise", "0.3"], "--sigma"),  # here σ is a noise std
    (["sigma", "--N", "10"], "--n"),
    (["sigma", "--epsilon", "1"], "--eps"),
    (["nbafl", "noise", "--m", "100"], "--data-size"),
    (["nbafl", "noise", "--T", "25"], "--rounds"),
    (["nbafl", "noise", "--K", "20"], "--sampled"),
    (["nbafl", "noise", "--d", "0.01"], "--delta or --data-size"),
    (["cuag", "audit", "--T", "300"], "--rounds"),
    (["cuag", "sigma", "--lambda", "0.1"], "--lam"),
    (["secagg", "mi-bound", "--D", "1200"], None),  # not an option of this command: no suggestion
])
def test_a_synonym_is_answered_with_the_right_name(argv: list[str], wanted: str | None) -> None:
    code, out, err = run(*argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("dpcalc: error: ")
    if wanted is None:
        assert "did you mean --d" not in err  # D (samples) is not d (model dimension)
    else:
        assert f"did you mean {wanted}?" in err, err


def test_every_option_answers_to_its_library_name() -> None:
    """The table is derived: every option bound to a catalog input answers to the input's name and symbol."""
    seen = 0
    for family in FAMILIES:
        for entry in entries(family):
            for cmd in getattr(entry, "commands", (entry,)):
                for r in resolved(cmd, with_help=False):
                    if r.input is not None and r.option.startswith("--"):
                        names = aliases(r)
                        library = r.input["name"].replace("_", "-")
                        assert (library if len(library) == 1 else library.lower()) in names, (cmd.name, r.option)
                        seen += 1
    assert seen > 100


def test_suggest_prefers_the_alias_to_the_prefix() -> None:
    options = resolved(find(["nbafl", "noise"]))  # type: ignore[arg-type]
    assert suggest("--N", options) == ["--n"] and suggest("--del", options) == ["--delta"]
    assert suggest("--zzz", options) == []
