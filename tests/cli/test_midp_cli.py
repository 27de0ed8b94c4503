"""CLI of the ε-MI-DP family (He & He 2023) and the shared CLI conventions (formats, lists/ranges, --output, errors,
exit codes)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from dpcalc import __version__, midp
from tests.support import processes
from tests.support.cli_runner import run, run_json


def test_sigma_default_example() -> None:
    code, out, _ = run("sigma", "--eps", "5", "--d", "1000")
    assert code == 0
    assert "0.315438" in out and "Guarantee" in out
    doc = run_json("sigma", "--eps", "5", "--d", "1000")
    assert doc["rows"] == [{"eps": 5.0, "d": 1000, "N": 1, "C": 1.0, "sigma": pytest.approx(0.31543752682891, 1e-13)}]
    assert doc["meta"]["formula"] == "midp.server_sigma"
    assert doc["meta"]["dpcalc_version"] == __version__
    assert doc["warnings"] == []


def test_lists_and_ranges_give_one_row_per_combination() -> None:
    doc = run_json("sigma", "--eps", "1:2:0.5", "--d", "10,100", "--n", "3")
    rows = doc["rows"]
    assert [(r["eps"], r["d"]) for r in rows] == [(1.0, 10), (1.0, 100), (1.5, 10), (1.5, 100), (2.0, 10), (2.0, 100)]
    for r in rows:
        assert r["sigma"] == pytest.approx(midp.server_sigma_equal(r["eps"], r["d"], C=1.0, N=3), rel=1e-15)


def test_range_with_decimal_step_prints_clean_values() -> None:
    doc = run_json("sigma", "--eps", "0.1:0.5:0.1", "--d", "10")
    assert [r["eps"] for r in doc["rows"]] == [0.1, 0.2, 0.3, 0.4, 0.5]


def test_side_both_and_client() -> None:
    doc = run_json("sigma", "--eps", "5", "--d", "100", "--n", "100", "--C", "10", "--side", "both")
    row = doc["rows"][0]
    assert row["sigma_server"] == pytest.approx(0.03083558325, rel=5e-10)
    assert row["sigma_client"] == pytest.approx(0.3083558325, rel=5e-10)
    doc = run_json("sigma", "--eps", "5", "--d", "100", "--n", "100", "--C", "10", "--side", "client")
    assert doc["rows"][0]["sigma"] == pytest.approx(0.3083558325, rel=5e-10)


def test_weights_list_and_file(tmp_path: Path) -> None:
    doc = run_json("sigma", "--eps", "2", "--d", "50", "--weights", "0.5,0.3,0.2", "--side", "both")
    row = doc["rows"][0]
    assert row["N"] == 3
    assert row["sigma_server"] == pytest.approx(midp.server_sigma(2, 50, C=1, p_max=0.5), rel=1e-15)
    assert row["sigma_client"] == pytest.approx(midp.client_sigma(2, 50, C=1, p_max=0.5, sum_p2=0.38), rel=1e-14)
    f = tmp_path / "w.csv"
    f.write_text("0.5\n0.3\n0.2\n")
    assert run_json("sigma", "--eps", "2", "--d", "50", "--weights", str(f))["rows"][0]["sigma"] == \
        pytest.approx(row["sigma_server"], rel=1e-15)


def test_units_bits() -> None:
    doc = run_json("sigma", "--eps", "1", "--d", "10", "--units", "bits")
    assert doc["meta"]["units"]["eps"] == "bits"
    assert doc["rows"][0]["sigma"] == pytest.approx(midp.server_sigma(1, 10, units="bits"), rel=1e-15)


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown", "latex"])
def test_every_format_renders(fmt: str) -> None:
    code, out, _ = run("sigma", "--eps", "1,5", "--d", "1000", "--format", fmt)
    assert code == 0
    if fmt == "json":
        assert len(json.loads(out)["rows"]) == 2
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [float(r["sigma"]) for r in rows][1] == midp.server_sigma(5, 1000)  # round-trip exact (repr)
    elif fmt == "markdown":
        assert out.startswith("| ε (nats) |") and "0.315438" in out  # 6 significant digits (JSON/CSV: every digit)
    elif fmt == "latex":
        assert r"\begin{tabular}" in out and r"\toprule" in out and "$0.315438$" in out
    else:
        assert "0.315438" in out
    if fmt in ("table", "markdown", "latex"):  # --digits N: N significant digits
        code, out, _ = run("sigma", "--eps", "1,5", "--d", "1000", "--format", fmt, "--digits", "10")
        assert code == 0 and "0.3154375268" in out


def test_output_file_is_atomic_and_refuses_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code, _, _ = run("sigma", "--eps", "5", "--d", "1000", "--json", "--output", str(target))
    assert code == 0 and json.loads(target.read_text())["rows"][0]["d"] == 1000
    code, _, err = run("sigma", "--eps", "4", "--d", "1000", "--json", "--output", str(target))
    assert code == 2 and "exists" in err and "--force" in err
    assert json.loads(target.read_text())["rows"][0]["eps"] == 5.0
    code, _, _ = run("sigma", "--eps", "4", "--d", "1000", "--json", "--output", str(target), "--force")
    assert code == 0 and json.loads(target.read_text())["rows"][0]["eps"] == 4.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temp files left


def test_a_list_with_a_value_outside_the_domain_keeps_the_other_rows() -> None:
    """The sweep convention (docs/cli.md): the row of ε = -3 is not computable, the others are; exit 0."""
    doc = run_json("sigma", "--eps", "1,2,-3", "--d", "1000")
    assert [r["eps"] for r in doc["rows"]] == [1.0, 2.0, -3.0]
    assert doc["rows"][2]["sigma"] is None and doc["rows"][2]["reason"].startswith("--eps must be a finite number > 0")
    assert all(r["sigma"] > 0 and r["reason"] is None for r in doc["rows"][:2])
    code, _, err = run("sigma", "--eps", "-3", "--d", "1000")
    assert code == 2 and err.startswith("dpcalc: error: --eps must be a finite number > 0")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--eps", "-1", "--d", "1000"], "eps must be a finite number > 0"),
        (["--eps", "0", "--d", "1000"], "eps must be"),
        (["--eps", "nan", "--d", "1000"], "--eps must be finite"),
        (["--eps", "inf", "--d", "1000"], "--eps must be finite"),
        (["--eps", "abc", "--d", "1000"], "--eps must be a number"),
        (["--eps", "1,,2", "--d", "1000"], "empty element"),
        (["--eps", "5:1", "--d", "1000"], "start <= stop"),
        (["--eps", "5", "--d", "0"], "d must be an integer >= 1"),
        (["--eps", "5", "--d", "10.5"], "d must be an integer"),
        (["--eps", "5", "--d", "10", "--n", "0"], "--n must be an integer >= 1"),
        (["--eps", "5", "--d", "10", "--C", "-2"], "C must be"),
        (["--eps", "5", "--d", "10", "--weights", "0.5,0.6"], "weights must sum to 1"),
        (["--eps", "5", "--d", "10", "--weights", "1.5,-0.5"], "weights must be"),
        (["--eps", "5", "--d", "10", "--weights", "0.5,0.5", "--n", "3"], "--n must equal"),
        (["--eps", "5", "--d", "10", "--units", "dits"], "--units must be"),
        (["--eps", "1e6", "--d", "1"], "underflows"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    code, out, err = run("sigma", *args)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_leakage_inverts_sigma() -> None:
    s = midp.server_sigma(3.0, 200, C=2.0, p_max=0.25)
    doc = run_json("midp", "leakage", "--sigma", repr(s), "--d", "200", "--C", "2", "--n", "4")
    assert doc["rows"][0]["eps"] == pytest.approx(3.0, rel=1e-13)
    doc = run_json("midp", "leakage", "--sigma", "0.5", "--d", "200", "--n", "4", "--side", "both")
    assert set(doc["rows"][0]) >= {"eps_server", "eps_client"}


def test_utility_theorem2() -> None:
    doc = run_json("midp", "utility", "--eps", "5", "--d", "100", "--n", "100", "--C", "10")
    row = doc["rows"][0]
    assert row["u_server"] == pytest.approx(10.51709181, rel=5e-10)
    assert row["u_client"] == pytest.approx(row["u_server"], rel=1e-13)


def test_personalized_from_lists_and_csv(tmp_path: Path) -> None:
    doc = run_json("midp", "personalized", "--eps", "1,2,5", "--C", "1,2,4", "--d", "10")
    assert [r["p"] for r in doc["rows"]] == pytest.approx([0.409554, 0.305208, 0.285238], rel=2e-6)
    assert [r["leakage"] for r in doc["rows"]] == pytest.approx([1, 2, 5], rel=1e-10)
    assert doc["summary"]["u_star"] == pytest.approx(1.319957, rel=1e-6)
    assert doc["summary"]["u_star"] >= doc["summary"]["u_baseline"]
    f = tmp_path / "clients.csv"
    f.write_text("eps,C\n1,1\n2,2\n5,4\n")
    doc2 = run_json("midp", "personalized", "--file", str(f), "--d", "10")
    assert doc2["rows"] == doc["rows"]
    code, _, err = run("midp", "personalized", "--eps", "1,2", "--C", "1,2,3", "--d", "10")
    assert code == 2 and "one entry per client" in err
    code, _, err = run("midp", "personalized", "--d", "10")
    assert code == 2 and "--eps or --file" in err


def test_clip_schedule_command() -> None:
    doc = run_json("midp", "clip", "--c0", "1", "--eta", "0.5", "--norms", "2,2,2")
    assert [r["threshold"] for r in doc["rows"]] == [1.0, 1.5, 1.75, 1.875]
    code, _, err = run("midp", "clip", "--c0", "1", "--eta", "1.5", "--norms", "2")
    assert code == 2 and "eta must be" in err


def test_formulas_list_and_show() -> None:
    doc = run_json("formulas", "list", "--paper", "000")
    ids = {r["id"] for r in doc["rows"]}
    assert {"midp.server_sigma", "midp.optimal_utility", "midp.alpha"} <= ids
    code, out, _ = run("formulas", "show", "midp.alpha")
    assert code == 0 and "(5.31)" in out and "erratum" in out and "C_{k,t}" in out
    code, _, err = run("formulas", "show", "midp.nosuch")
    assert code == 2 and "unknown formula id" in err
    code, _, err = run("formulas", "list", "--paper", "999")
    assert code == 2 and "--paper must be one of" in err


def test_version_and_help_have_examples() -> None:
    code, out, _ = run("--version")
    assert code == 0 and __version__ in out
    for cmd in (["sigma"], ["midp", "leakage"], ["midp", "utility"], ["midp", "personalized"], ["midp", "clip"],
                ["formulas", "list"], ["formulas", "show"]):
        code, out, _ = run(*cmd, "--help")
        assert code == 0 and "Example: dpcalc" in out, cmd


def test_installed_console_script_subprocess() -> None:
    exe = shutil.which("dpcalc")
    cmd = [exe] if exe else [sys.executable, "-m", "dpcalc.cli.main"]
    ok = processes.run([*cmd, "sigma", "--eps", "5", "--d", "1000", "--json"], capture_output=True, text=True,
                       cpu_seconds=60, check=False)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["rows"][0]["sigma"] == pytest.approx(0.31543752682891, rel=1e-13)
    bad = processes.run([*cmd, "sigma", "--eps", "-1", "--d", "1000"], capture_output=True, text=True,
                        cpu_seconds=60, check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


def test_cli_start_path_imports_neither_scipy_nor_sympy() -> None:
    code = ("import sys, dpcalc.cli.main as m\n"
            "from typer.testing import CliRunner\n"
            "r = CliRunner().invoke(m.app, ['sigma', '--eps', '5', '--d', '1000'])\n"
            "assert r.exit_code == 0, r.output\n"
            "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('scipy', 'sympy', 'matplotlib'))\n"
            "print(bad)\n")
    out = processes.run([sys.executable, "-c", code], capture_output=True, text=True, cpu_seconds=60, check=True)
    assert out.stdout.strip() == "[]"


def test_plan_leakage_and_utility_for_any_weights_and_noise() -> None:
    """(5.24)/(5.25) for arbitrary (p_k, σ_k): hand values, Σp²σ² = 0.0097 → U = 1/(10·0.0097)."""
    import math

    doc = run_json("midp", "plan", "--weights", "0.5,0.3,0.2", "--sigmas", "0.1,0.2,0.3", "--C", "1,2,1.5",
                   "--d", "10")
    assert doc["summary"]["utility"] == pytest.approx(1 / (10 * 0.0097), rel=1e-13)
    leak = [r["leakage"] for r in doc["rows"]]
    hand = [5 * math.log1p(p * p * c * c / (10 * 0.0097)) for p, c in ((0.5, 1), (0.3, 2), (0.2, 1.5))]
    assert leak == pytest.approx(hand, rel=1e-12)
    assert all(x >= h for x, h in zip(leak, hand, strict=True))  # outward (safe side)
    assert doc["meta"]["formula"] == ["midp.personalized_leakage", "midp.personalized_utility"]
    code, _, err = run("midp", "plan", "--weights", "0.5,0.5", "--sigmas", "0.1,0.2,0.3", "--C", "1", "--d", "10")
    assert code == 2 and err.count("\n") == 1 and "same length" in err
