"""Every command's sweep in blocks (``--scheduler``, ``--stream``; `dpcalc.cli.blocks`), locally and on a cluster.

The blocks are made small (`dpcalc.sim.sweep.BLOCK_ROWS` patched) so that a grid of a few dozen rows is cut into
several blocks, some inside a formula's domain, some across its edge, some wholly outside. The commands are from
three families (MI-DP σ, GDP, NbAFL); each is compared with its own local output: the streamed file with
``--format csv`` byte for byte, the cluster's rows with the local ``--json`` document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dpcalc.cli.options import IN_BLOCKS
from dpcalc.sim import sweep
from tests.sim.conftest import needs_cluster
from tests.support.cli_runner import run

EDGE = ["nbafl", "bound", "--eps", "10,50", "--rounds", "1:30:1", "--sampled", "20"]  # 49 of 60 rows outside
SWEEPS = [
    ["sigma", "--eps", "0.5:3:0.5", "--d", "1e3,1e4,1e6", "--n", "1,10"],
    ["gdp", "delta", "--mu", "0.25:3:0.25", "--eps", "0,0.5,1,2"],
    ["nbafl", "noise", "--eps", "1:4:1", "--delta", "1e-5,1e-3", "--rounds", "5,50"],
    EDGE,
]


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sweep, "BLOCK_ROWS", 7)
    return 7


def _doc(argv: list[str]) -> dict[str, Any]:
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_every_table_command_with_an_axis_has_both_options() -> None:
    """The hook gives --stream and --scheduler to the table commands with a sweep axis, and to no other."""
    from dpcalc.cli.command import Group, resolved
    from dpcalc.cli.main import FAMILIES, entries

    names = {o.name for o in IN_BLOCKS}
    hooked, own = [], []
    for family in FAMILIES:
        for entry in entries(family):
            for cmd in entry.commands if isinstance(entry, Group) else (entry,):
                options = resolved(cmd, with_help=False)
                if any(r.name in names for r in options):
                    own.append(cmd.name)
                elif cmd.output == "table" and any(r.opt.kind == "axis" for r in options):
                    hooked.append(cmd.name)
    assert len(hooked) >= 25 and {"sigma", "account", "delta", "bound", "audit", "noise"} <= set(hooked)
    assert sorted(own) == ["simulate", "table", "verify"]
    for argv in (["sigma", "--help"], ["gdp", "delta", "--help"], ["cuag", "audit", "--help"]):
        out = run(*argv)[1]
        assert "--stream" in out and "--scheduler" in out, argv
    assert "--stream" not in run("midp", "plan", "--help")[1]  # no sweep axis


@pytest.mark.parametrize("argv", SWEEPS, ids=lambda a: " ".join(a[:2]))
def test_streamed_sweep_is_the_local_csv(argv: list[str], small_blocks: int, tmp_path: Path) -> None:
    """--stream on this machine: the file is the command's --format csv output byte for byte, the warnings and
    the note on rows outside the domain are said once on stderr."""
    code, local, local_err = run(*argv, "--format", "csv")
    assert code == 0, local_err
    path = tmp_path / "s.csv"
    code, out, err = run(*argv, "--stream", str(path), "--format", "csv")
    assert code == 0, err
    assert path.read_text(encoding="utf-8") == local
    rows = len(local.splitlines()) - 1
    assert rows > 2 * small_blocks  # several blocks
    assert out.splitlines() == ["rows,path,seconds", out.splitlines()[1]] and out.splitlines()[1].startswith(
        f"{rows},{path},")
    said = [line for line in err.splitlines() if "Not computable" in line]
    assert said == [line for line in local_err.splitlines() if "Not computable" in line]


def test_a_sweep_wholly_outside_the_domain_fails_in_one_line_and_leaves_no_file(tmp_path: Path,
                                                                                 small_blocks: int) -> None:
    argv = ["nbafl", "bound", "--eps", "10", "--rounds", "1:15:1", "--sampled", "20"]
    local = run(*argv)
    path = tmp_path / "none.csv"
    code, out, err = run(*argv, "--stream", str(path))
    assert (code, out, err) == local and code == 2 and err.count("\n") == 1
    assert not path.exists()


def test_a_summary_of_the_sweep_needs_the_sweep_in_one_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """secagg rdp sums its order sweep up (the best order): streamed as one block it runs, and its rows are the local
    CSV; cut into blocks, it is refused in one line (a block's summary is not the sweep's)."""
    argv = ["secagg", "rdp", "--eig-min-sum", "5", "--normalization", "sec4", "--B", "32", "--C", "10",
            "--data-size", "1200", "--delta", "1e-4"]
    path = tmp_path / "rdp.csv"
    code, _, err = run(*argv, "--stream", str(path))
    assert code == 0, err
    first = path.read_text(encoding="utf-8")
    assert first == run(*argv, "--format", "csv")[1]
    monkeypatch.setattr(sweep, "BLOCK_ROWS", 10)
    code, out, err = run(*argv, "--stream", str(path), "--force")
    assert code == 2 and out == "" and err.count("\n") == 1 and "summary" in err
    assert path.read_text(encoding="utf-8") == first  # the refused run left the existing file as it was
    code, out, err = run(*argv, "--stream", str(tmp_path / "new.csv"))
    assert code == 2 and not (tmp_path / "new.csv").exists()  # and creates nothing


def test_a_block_whose_work_is_refused_is_halved_until_each_call_is_within_the_limit() -> None:
    """A body that refuses more than 3 points (a `LimitError`) gets the 15 points of a block in parts of at most 3,
    halving the first option with several values; the rows come back complete and in grid order."""
    from itertools import product

    from dpcalc._limits import LimitError
    from dpcalc.cli import blocks
    from dpcalc.cli.command import Args, Command
    from dpcalc.cli.options import axis, resolve
    from dpcalc.report.render import Column, Result

    calls: list[int] = []

    def body(a: Args) -> Result:
        calls.append(len(a.x) * len(a.y))
        if calls[-1] > 3:
            raise LimitError(f"{calls[-1]} points take too long")
        return Result([Column("x"), Column("y")], [{"x": x, "y": y} for x in a.x for y in a.y])

    opts = (axis("x", formula="-", default=None), axis("y", formula="-", default=None))
    options = {o.name: resolve(o, "-", False) for o in opts}
    grid = {"x": [1.0, 2.0, 3.0], "y": [10.0, 20.0, 30.0, 40.0, 50.0]}
    pieces = list(blocks._within_limits(Command("fake", body, opts, formula="-"), Args(grid, options, None, []),
                                        options))
    assert [(r["x"], r["y"]) for p in pieces for r in p.rows] == list(product(grid["x"], grid["y"]))
    assert max(len(p.rows) for p in pieces) <= 3 and calls[0] == 15


def test_the_stream_and_the_output_are_two_files(tmp_path: Path) -> None:
    out = tmp_path / "same.csv"
    code, _, err = run("sigma", "--eps", "1,2", "--d", "1e3", "--stream", str(out), "-o", str(out))
    assert code == 2 and "--stream" in err and err.count("\n") == 1
    assert not out.exists()


def test_blocks_without_a_sweep_axis_option_are_refused_by_typer() -> None:
    code, _, err = run("midp", "plan", "--stream", "x.csv")
    assert code == 2 and "--stream" in err and err.count("\n") == 1


def test_a_sweep_on_a_cluster_without_the_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, out, err = run("gdp", "delta", "--mu", "1,2", "--eps", "1", "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2 and out == "" and err.count("\n") == 1 and "dpcalc[dask]" in err


# ------------------------------------------------------------------------------------------ on a LocalCluster


@needs_cluster
def test_a_sweep_sent_to_an_unreachable_scheduler_is_one_line() -> None:
    import socket

    with socket.socket() as s:  # a free port, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = run("sigma", "--eps", "1,2", "--d", "1e3", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"dpcalc: error: --scheduler: nothing listens at tcp://127.0.0.1:{port}")


@needs_cluster
@pytest.mark.parametrize("argv", SWEEPS, ids=lambda a: " ".join(a[:2]))
def test_sweep_on_the_cluster_equals_the_local_run(cluster: Any, argv: list[str], small_blocks: int,
                                                   tmp_path: Path) -> None:
    """--scheduler: the cluster's blocks merged give the local JSON document (rows, nulls and reasons, meta);
    --stream --scheduler: the file is the local CSV."""
    lc, _ = cluster
    local = _doc(argv)
    on = _doc([*argv, "--scheduler", lc.scheduler_address])
    assert on["rows"] == local["rows"]
    assert on["meta"] == local["meta"]
    assert set(on["warnings"]) <= set(local["warnings"]) | {w for w in on["warnings"] if "more like it" in w}
    code, csv_local, _ = run(*argv, "--format", "csv")
    path = tmp_path / "c.csv"
    code, _, err = run(*argv, "--stream", str(path), "--scheduler", lc.scheduler_address)
    assert code == 0, err
    assert path.read_text(encoding="utf-8") == csv_local


@needs_cluster
def test_the_edge_sweep_keeps_the_convention_on_the_cluster(cluster: Any, small_blocks: int) -> None:
    """Rows outside the domain: JSON null + reason and the count in meta, '—' and the note once in the table."""
    lc, _ = cluster
    doc = _doc([*EDGE, "--scheduler", lc.scheduler_address])
    missing = [r for r in doc["rows"] if r["bound"] is None]
    assert len(missing) == doc["meta"]["not_computable"] == 49
    assert all("--sampled must be >" in r["reason"] for r in missing)
    code, out, err = run(*EDGE, "--scheduler", lc.scheduler_address)
    assert code == 0, err
    assert out == run(*EDGE)[1]
    assert out.count("Not computable (—): 49 of 60 rows") == 1
