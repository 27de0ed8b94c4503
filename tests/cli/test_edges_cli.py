"""Bad input, bounded work and sweeps across a domain edge: each reproducer of the audit as a regression test.

Tracebacks are reproduced as real subprocesses (the console entry point in a fresh interpreter); the rest runs
in-process through the same entry point (:mod:`tests.support.cli_runner`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import processes
from tests.support.cli_runner import run, run_json

REPO = Path(__file__).resolve().parents[2]


def dpcalc(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``dpcalc *args`` as a real process (this tree's dpcalc; no progress bar)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "DPCALC_PROGRESS": "0"}
    return processes.run([sys.executable, "-c", "from dpcalc.cli.main import main; main()", *args],
                         capture_output=True, text=True, env=env, cwd=cwd or REPO, cpu_seconds=120)


def one_error_line(p: subprocess.CompletedProcess[str] | tuple[int, str, str]) -> str:
    """The single ``dpcalc: error:`` line of a refused call (exit code 2, no traceback)."""
    code, err = (p.returncode, p.stderr) if isinstance(p, subprocess.CompletedProcess) else (p[0], p[2])
    lines = err.strip("\n").split("\n")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("dpcalc: error: "), err
    return lines[0]


# ------------------------------------------------------------------------------------------ tracebacks (subprocess)

@pytest.mark.parametrize("argv", [
    ["secagg", "span-check", "--gradients", "1,2;3", "--g-new", "1,2"],
    ["secagg", "rdp", "--gradients", "1,2;3", "--normalization", "sec4", "--B", "32", "--C", "10", "--data-size",
     "1200", "--delta", "1e-4"],
    ["secagg", "waterfill", "--cov", "1,2;3", "--normalization", "sec5", "--sigma2", "0.1"],
    ["secagg", "divergence", "--cov1", "1,2;3", "--cov2", "1,0;0,1", "--mu1", "0,0", "--mu2", "0,0", "--alpha", "2"],
], ids=["span-check", "rdp", "waterfill", "divergence"])
def test_ragged_inline_matrix_is_one_line(argv: list[str]) -> None:
    assert "different lengths" in one_error_line(dpcalc(*argv))


def test_deeply_nested_toml_spec_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "nested.toml"
    spec.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    assert "nested too deeply" in one_error_line(dpcalc("table", str(spec)))


def test_plot_sweep_published_without_a_published_form_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    line = one_error_line(dpcalc("plot", "sweep", "gauss.case3_sigma2", "--x", "eps=1:3", "--set", "var=30", "--set",
                                 "cov=2", "--set", "n=101", "--published", "-o", str(tmp_path / "p.png")))
    assert "gauss.case3_sigma2 has no published form" in line
    assert not (tmp_path / "p.png").exists()


def test_personalized_at_huge_clipping_bound_has_a_finite_gain() -> None:
    p = dpcalc("midp", "personalized", "--eps", "1,2,5", "--d", "10", "--C", "1e308", "--json")
    assert p.returncode == 0, p.stderr
    gain = json.loads(p.stdout)["summary"]["gain"]
    # α_k is proportional to the common C, so the gain U*/U_baseline does not depend on it: the value at C = 1
    unit = run_json("midp", "personalized", "--eps", "1,2,5", "--d", "10", "--C", "1")["summary"]
    assert gain == pytest.approx(unit["u_star"] / unit["u_baseline"], rel=1e-12)


def test_personalized_gain_unchanged_at_the_documented_example() -> None:
    doc = run_json("midp", "personalized", "--eps", "1,2,5", "--C", "1,2,4", "--d", "10")
    assert doc["summary"]["gain"] == pytest.approx(doc["summary"]["u_star"] / doc["summary"]["u_baseline"], rel=1e-12)


# ------------------------------------------------------------------------------------------ infinities and messages

def test_secagg_table1_improved_runs() -> None:
    doc = run_json("secagg", "table1", "--n", "100", "--sigma2", "0.01", "--B", "32", "--C", "10", "--data-size",
                   "1200", "--delta", "1e-5", "--method", "improved")
    finite = [r["eps"] for r in doc["rows"] if r["eps"] is not None]
    assert len(finite) == 4 and all(0 < e < 1 for e in finite)


def test_nbafl_optimal_t_with_an_infinite_bound_says_why() -> None:
    line = one_error_line(run("nbafl", "optimal-t", "--eps", "5e-324", "-f", "csv"))
    assert "overflows float64 at every T" in line and "--eps" in line


@pytest.mark.parametrize(("argv", "start"), [
    (["cuag", "sigma", "--mu", "0.25", "--lam", "0.1", "--B", "50", "--data-size", "2.5", "--P", "25", "--t", "1"],
     "--data-size must be"),
    (["nbafl", "noise", "--eps", "6", "--rounds", "0:0"], "--rounds must be"),
    (["secagg", "mi-bound", "--c-const", "1", "--d", "100", "--n", "1", "--B", "32"], "--n must be"),
    (["secagg", "rdp", "--gradients", "1,2;3,4", "--gradients", "1,2,3;4,5,6", "--normalization", "sec4", "--B", "32",
      "--C", "10", "--data-size", "1200", "--delta", "1e-4"], "--gradients: user 2"),
], ids=["data-size", "rounds", "n", "gradients"])
def test_messages_name_the_option_typed(argv: list[str], start: str) -> None:
    assert one_error_line(run(*argv)).removeprefix("dpcalc: error: ").startswith(start)


def test_rdp_slope_overflow_names_sigma2() -> None:
    line = one_error_line(run("secagg", "table1", "--n", "100", "--sigma2", "1e-320", "--B", "32", "--C", "0.5",
                              "--data-size", "1200", "--delta", "1e-5"))
    assert "sigma2" in line and "slope must be finite" not in line


def test_a_long_value_is_not_echoed_whole() -> None:
    line = one_error_line(run("sigma", "--eps", "x" * 100_000, "--d", "10"))
    assert len(line) < 400 and "characters]" in line


def test_max_memory_does_not_block_reading_the_catalog() -> None:
    code, out, err = run("--max-memory", "1e-3G", "formulas", "list")
    assert code == 0, err
    assert "midp.server_sigma" in out


# ------------------------------------------------------------------------------------------ bounded work

@pytest.mark.parametrize("argv", [
    ["nbafl", "simulate", "--eps", "1,20", "--n", "20", "--repeats", "2", "--t-max", "2147483648"],
    # 3·10⁶ items, ~3.4 min at the real pace (0.067 ms an item): the refusal rests on a measured pace, and one
    # million items (1.1 min) came out under the minute on a loaded CI machine and ran for 47 s
    ["eval", "midp.server_sigma", "--eps", "1:1e6:1", "--d", "1000,2000,3000", "--C", "1", "--p_max", "1"],
    ["cuag", "uplink", "--model", "vgg16-cifar10", "--rate", "0.000001:1:0.000001"],
    ["account", "-z", ",".join(str(i) for i in range(1, 3001)), "--q", "0.01", "--steps", "100", "--delta", "1e-5"],
    ["plot", "sweep", "midp.server_sigma_equal", "--x", "eps=0.1:10:0.1", "--by", "N=1:100000:1", "--set", "d=1000",
     "--set", "C=1"],
], ids=["simulate", "eval", "uplink", "account", "plot-sweep"])
def test_work_over_a_minute_is_refused_before_it_starts(argv: list[str], tmp_path: Path) -> None:
    """Refused before the work: at most 10 s of this process's CPU time (CPU, not wall time: a loaded machine must
    pass; measured 0.005–0.8 s, imports included, against minutes of work for the calls themselves)."""
    import time

    start = time.process_time()
    line = one_error_line(run(*argv, "-o", str(tmp_path / "out.csv")) if argv[0] != "plot" else
                          run(*argv, "-o", str(tmp_path / "out.png")))
    assert time.process_time() - start < 10
    assert ("min per call" in line or "exceeds" in line), line


# ------------------------------------------------------------------------------------------ a sweep across an edge

SWEEP = ["nbafl", "bound", "--eps", "10", "--rounds", "1:30:1", "--sampled", "20"]


def test_sweep_across_a_domain_edge_keeps_the_rows_that_exist() -> None:
    doc = run_json(*SWEEP)
    rows = doc["rows"]
    assert [r["T"] for r in rows] == list(range(1, 31))
    missing = [r for r in rows if r["bound"] is None]
    assert [r["T"] for r in missing] == list(range(1, 20))  # T <= 19: K = 20 <= N(1 - e^(-eps/T))
    assert all("--sampled must be >" in r["reason"] for r in missing)
    assert all(r["reason"] is None and r["bound"] > 0 for r in rows if r["bound"] is not None)
    assert doc["meta"]["not_computable"] == 19
    # the computed rows equal the sweep that stays inside the domain
    inside = run_json("nbafl", "bound", "--eps", "10", "--rounds", "20:30:1", "--sampled", "20")["rows"]
    assert [r["bound"] for r in rows[19:]] == [r["bound"] for r in inside]


def test_sweep_table_shows_a_dash_and_the_reason_once() -> None:
    code, out, err = run(*SWEEP)
    assert code == 0, err
    assert sum(line.rstrip().endswith("— │") for line in out.splitlines()) == 19
    assert out.count("Not computable (—): 19 of 30 rows") == 1


def test_sweep_csv_leaves_the_cells_empty_and_says_why_on_stderr() -> None:
    code, out, err = run(*SWEEP, "-f", "csv")
    assert code == 0
    assert out.splitlines()[1] == "10.0,1,"
    assert err.count("Not computable") == 1


def test_sweep_with_no_computable_row_or_a_single_point_fails_in_one_line() -> None:
    for argv in (["nbafl", "bound", "--eps", "10", "--rounds", "1:5:1", "--sampled", "20"],
                 ["nbafl", "bound", "--eps", "10", "--rounds", "1", "--sampled", "20"]):
        assert "--sampled must be >" in one_error_line(run(*argv))


def test_work_limits_are_not_split_into_parts() -> None:
    line = one_error_line(run("nbafl", "accounting", "--eps", "1:60:1", "--data-size", "100"))
    assert "grid points" in line


def test_a_two_option_sweep_keeps_grid_order_and_marks_each_point() -> None:
    doc = run_json("nbafl", "bound", "--eps", "10,50", "--rounds", "1:30:1", "--sampled", "20")
    rows = doc["rows"]
    assert [(r["eps"], r["T"]) for r in rows] == [(e, t) for e in (10.0, 50.0) for t in range(1, 31)]
    # eq. 7 needs K = 20 > 50(1 - e^(-eps/T)): T >= 20 at eps = 10, T >= 98 at eps = 50
    computed = [(r["eps"], r["T"]) for r in rows if r["bound"] is not None]
    assert computed == [(10.0, t) for t in range(20, 31)]
    assert doc["meta"]["not_computable"] == 49


def test_paced_work_is_refused_after_its_first_items() -> None:
    import time

    from dpcalc._limits import LimitError
    from dpcalc._progress import PROBE, paced

    done = []
    with pytest.raises(LimitError, match=r"--x \(10000 values\) would take about .* min"):
        for item in paced(range(10_000), 10_000, "test", "--x (10000 values)"):
            time.sleep(0.01)  # 10,000 items at >= 10 ms: over the minute
            done.append(item)
    assert len(done) == PROBE + 1
    assert list(paced(range(5), 5, "test", "--x")) == [0, 1, 2, 3, 4]


def test_simulation_work_sums_the_rounds_in_closed_form() -> None:
    from dpcalc.nbafl.simulate import SimulationConfig

    cfg = SimulationConfig(eps=(1.0, 20.0), t_max=2**31, N=20, repeats=2)
    rounds = (2**31) * (2**31 + 1) / 2  # Σ_{T=1}^{t_max} T
    assert cfg.work == pytest.approx(2 * 2 * rounds * 20 * cfg.local_steps * cfg.m * cfg.d, rel=1e-15)
    small = SimulationConfig(eps=(50.0,), K=20, t_max=120)  # t_min = 98 (eq. 7's domain)
    assert small.work == pytest.approx(small.repeats * sum(range(small.t_min, 121)) * small.N * small.local_steps
                                       * small.m * small.d, rel=1e-15)


def test_simulation_estimate_counts_noise_and_per_round_work() -> None:
    """The time model behind the work check (`SimulationConfig.seconds`): with one sample a client the run is the
    per-coordinate work and per-round work, not the products. Measured (CPU, idle core, ``bench/fit_nbafl_simulate.py``
    era): m = 1, d = 1000, 4 repeats 18.1 s; N = 10, t_max = 300, d = 1, 1 repeat 1.68 s."""
    from dpcalc.nbafl.simulate import SimulationConfig

    assert SimulationConfig(m=1, d=1000).seconds >= 18.1
    assert SimulationConfig(m=1, d=1, N=10, t_max=300, repeats=1).seconds >= 1.68
    base = SimulationConfig(m=1, d=1000)
    assert SimulationConfig(m=1, d=2000).seconds > 1.9 * base.seconds  # linear in d here
    assert SimulationConfig(m=1, d=1000, repeats=8).seconds == pytest.approx(2 * base.seconds, rel=1e-12)


def test_a_simulation_over_a_minute_is_refused_before_it_starts() -> None:
    """Found by the CLI fuzz: ``--eps 1,20 --t-max 12 --n 20 --repeats 1537`` took 92 s of CPU on an idle core
    (more than 120 s on a loaded one) while the old model estimated 53 s, under the one-minute cap; it missed the
    per-task loop and per-local-step work that dominate small models (m = 100, d = 10)."""
    from dpcalc.nbafl.simulate import SimulationConfig

    assert SimulationConfig(eps=(1.0, 20.0), t_max=12, N=20, repeats=1537).seconds > 92.0
    line = one_error_line(run("nbafl", "simulate", "--eps", "1,20", "--t-max", "12", "--n", "20", "--repeats", "1537",
                              "--workers", "1"))
    assert "--repeats" in line and "min per call" in line


def test_audit_of_a_slow_schedule_is_refused_before_it_starts() -> None:
    line = one_error_line(run("cuag", "audit", "--rounds", "1000", "--lam", "0.1", "--B", "1", "--data-size", "5000",
                              "--P", "10", "--mu", "0.25"))
    assert "--rounds up to 1000" in line and "min per call" in line
