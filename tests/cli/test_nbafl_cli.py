"""``dpcalc nbafl …`` through the console entry point: the T* example, every command's JSON, errors (one line,
exit 2, no traceback), progress bar only on a terminal, option names."""

from __future__ import annotations

import pytest

from dpcalc import catalog
from tests.support.cli_runner import run, run_json

EXAMPLE = ["nbafl", "optimal-t", "--eps", "6,10,50", "--n", "50", "--data-size", "100", "--C", "20",
           "--delta", "0.01", "--c-scale", "1.25", "--pl", "0.1", "--lipschitz", "1", "--smoothness", "0.2",
           "--dissimilarity", "1", "--prox-mu", "1", "--theta", "2.3"]


def _formulas(doc: dict) -> list[str]:  # type: ignore[type-arg]
    f = doc["meta"]["formula"]
    return f if isinstance(f, list) else [f]


def test_optimal_t_example() -> None:
    doc = run_json(*EXAMPLE)
    assert [r["t_star"] for r in doc["rows"]] == [7, 9, 20]  # assumed constants A1 of formulas/003_nbafl.toml
    assert [round(r["t_continuous"], 2) for r in doc["rows"]] == [6.62, 9.39, 20.14]
    assert all(r["t_lambert"] is None for r in doc["rows"])
    assert any("lambda1" in w for w in doc["warnings"])  # published λ1: erratum warning
    assert "disputed" in doc["meta"]["bound_status"]
    for fid in _formulas(doc):
        catalog.get(fid)
    code, out, err = run(*EXAMPLE)
    assert code == 0 and "T*" in out and "warning: lambda1" in err


def test_optimal_t_comment_lambda1_and_curve() -> None:
    doc = run_json("nbafl", "optimal-t", "--eps", "10", "--lambda1", "comment", "--prox-mu", "2")
    assert not any("lambda1" in w for w in doc["warnings"])
    curve = run_json("nbafl", "optimal-t", "--eps", "10", "--t-max", "30", "--curve")
    assert [r["T"] for r in curve["rows"]] == list(range(1, 31))
    assert min(curve["rows"], key=lambda r: r["bound"])["T"] == 9


def test_noise_table1_and_both_calibrations() -> None:
    doc = run_json("nbafl", "noise", "--eps", "6,10", "--calibration", "both")
    r = doc["rows"][0]
    assert r["sigma_u_classic"] == pytest.approx(0.258959, rel=5e-6)
    assert r["sigma_d_classic"] == pytest.approx(0.124193, rel=5e-6)
    assert r["sigma_u_analytic"] < r["sigma_u_classic"]
    assert any("per-release eps" in w for w in doc["warnings"])
    sampled = run_json("nbafl", "noise", "--eps", "1", "--sampled", "20")
    assert sampled["rows"][0]["b"] == pytest.approx(2.57925, rel=5e-6)
    assert sampled["rows"][0]["sigma_d"] == pytest.approx(0.668066, rel=5e-6)
    for fid in _formulas(sampled):
        catalog.get(fid)


def test_bound_optimal_k_accounting() -> None:
    b = run_json("nbafl", "bound", "--eps", "10", "--rounds", "25", "--sampled", "17,25,50")
    assert [round(r["bound"], 3) for r in b["rows"]] == [0.557, 0.627, 0.596]
    k = run_json("nbafl", "optimal-k", "--eps", "10,50")
    assert [(r["k_star"], r["where"].split(" (")[0]) for r in k["rows"]] == [(17, "lower boundary"),
                                                                              (44, "lower boundary")]
    a = run_json("nbafl", "accounting", "--eps", "10", "--exposures", "25", "--accountants", "linear,analytic,pld")
    rows = {r["accountant"]: r for r in a["rows"]}
    assert rows["analytic"]["eps_actual"] == pytest.approx(0.9561, abs=1e-4)
    assert rows["analytic"]["eps_actual"] <= rows["pld"]["eps_actual"] <= rows["analytic"]["eps_actual"] * 1.001
    assert rows["pld"]["saved"] == pytest.approx(0.82, abs=0.005)


def test_simulate_json_has_no_progress_bar() -> None:
    code, out, err = run("nbafl", "simulate", "--eps", "1,20", "--t-max", "6", "--n", "8", "--repeats", "2",
                         "--json")
    assert code == 0 and err == ""  # no progress bar, warnings inside the JSON
    import json

    doc = json.loads(out)
    assert len(doc["rows"]) == 12 and "best T (eps=1)" in doc["summary"]
    assert any("outside its proven range" in w for w in doc["warnings"])


def test_simulate_progress_goes_through_the_shared_tracker(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``nbafl simulate`` reports its tasks to dpcalc._progress (the one progress bar), counting up to the total."""
    from contextlib import contextmanager

    from dpcalc import _progress

    seen: list[tuple[int, str]] = []

    @contextmanager
    def fake(total: int, label: str):  # type: ignore[no-untyped-def]
        seen.append((total, label))
        yield lambda steps=1, description="": seen.append((steps, f"{label} step"))

    monkeypatch.setattr(_progress, "progress", fake)
    code, _, _ = run("nbafl", "simulate", "--eps", "1,20", "--t-max", "6", "--n", "8", "--repeats", "2")
    assert code == 0
    assert seen[0] == (6, "simulating")  # 2 ε and the non-private baseline, 2 repeats each
    assert sum(n for n, kind in seen if kind == "simulating step") == 6


@pytest.mark.parametrize(("args", "match"), [
    (["noise", "--eps", "50", "--sampled", "20", "--exposures", "2"], "Fig. 4"),
    (["bound", "--eps", "10", "--smoothness", "0.9"], "P must be in (0, 1)"),
    (["optimal-k", "--eps", "10", "--dissimilarity", "3"], "Q must be in (0, 1)"),
    (["noise", "--eps", "1", "--data-size", "0"], "m must be an integer >= 1"),
    (["noise", "--eps", "1", "--exposures", "30"], "L must be an integer in [1, T]"),
    (["noise", "--eps", "1", "--sampled", "60"], "K must be an integer in [1, N]"),
    (["noise", "--eps", "1", "--rounds", "2.5"], "T must be an integer >= 1"),
    (["optimal-t", "--eps", "1", "--t-max", "0"], "t_max must be an integer >= 1"),
    (["noise", "--eps", "1", "--c-scale", "0.5"], "c_scale must be"),
    (["simulate", "--eps", "50", "--sampled", "20", "--t-max", "25"], "t_max must be >="),
    (["accounting", "--eps", "1", "--accountants", "moments"], "accountants must each be one of"),
])
def test_errors_one_line_exit_2(args: list[str], match: str) -> None:
    code, out, err = run("nbafl", *args)
    assert code == 2, (args, out, err)
    assert match in err and err.count("\n") == 1 and "Traceback" not in err


def test_no_option_differs_only_by_case_from_another_in_the_app() -> None:
    import click

    from dpcalc.cli.main import build_command

    app = build_command([])
    names: dict[str, set[str]] = {}

    def walk(cmd: click.Command, path: str) -> None:
        for p in cmd.params:
            for opt in getattr(p, "opts", []):
                if opt.startswith("--"):
                    names.setdefault(opt.lower(), set()).add(opt)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(app, "dpcalc")
    mine: set[str] = set()
    walk_nbafl = app.commands["nbafl"]  # type: ignore[attr-defined]
    for sub in walk_nbafl.commands.values():
        mine |= {o for p in sub.params for o in getattr(p, "opts", []) if o.startswith("--")}
    clashes = {o for o in mine if len(names[o.lower()]) > 1}
    assert not clashes, {o: names[o.lower()] for o in clashes}
