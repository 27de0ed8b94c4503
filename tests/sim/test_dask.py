"""The executor seam on a Dask cluster: the same bits as the local run, a lost worker included; one-line errors.

A ``LocalCluster`` (2 worker processes, 1 thread each: `tests.sim.conftest.cluster`) is started once; the cluster
tests skip, saying why, when ``distributed`` is not installed (``pip install -e '.[test]'`` installs it). The tests of
the missing extra and of the default path importing nothing of Dask run without it.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpcalc import verify as V
from dpcalc.checks import nbafl as nbafl_checks
from dpcalc.nbafl.simulate import SimulationConfig, simulate
from dpcalc.sim import parallel
from dpcalc.sim.executor import ClusterError, LocalExecutor, SerialExecutor, open_executor
from tests.sim.conftest import needs_cluster, wait_for_workers
from tests.support import processes
from tests.support.cli_runner import run

_SIM = SimulationConfig(eps=(2.0, 20.0), t_max=6, N=8, m=40, d=6, repeats=4, seed=3)


def _rows(rows: list[V.CheckRow]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.as_dict().items() if k != "seconds"} for r in rows]


# ------------------------------------------------------------------------------------------ executors, no Dask


def _square(x: int) -> int:
    return x * x


@pytest.mark.parametrize("make", [SerialExecutor, partial(LocalExecutor, 2)])
def test_executors_yield_in_item_order_through_a_bounded_window(make: Any) -> None:
    """Results in item order whatever completes first; items are taken lazily; done() counts every task."""
    ex = make()
    taken: list[int] = []

    def items() -> Iterator[int]:
        for i in range(40):
            taken.append(i)
            yield i

    seen: list[tuple[int, int]] = []
    try:
        out = []
        for value in ex.imap(_square, items(), done=lambda d, t: seen.append((d, t)), window=3, total=40):
            out.append(value)
            assert len(taken) <= len(out) + 3  # never more than the window ahead of what was yielded
    finally:
        ex.close()
    assert out == [i * i for i in range(40)]
    assert seen[-1] == (40, 40)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_run_moments_same_bits_serial_pool_and_current_pool() -> None:
    """Chunk sums in chunk order: the serial run, a 2-process pool and a pool given as the executor agree exactly."""
    fn = partial(nbafl_checks._abs_sq_terms, s=1.3)
    a = parallel.run_moments(fn, 600_000, 5, chunk=1 << 15)
    b = parallel.run_moments(fn, 600_000, 5, chunk=1 << 15, workers=2, process_threshold=1)
    with open_executor(workers=2) as ex:
        c = parallel.run_moments(fn, 600_000, 5, chunk=1 << 15, executor=ex, process_threshold=1)
    for m in (b, c):
        assert m.n == a.n and np.array_equal(m.total, a.total) and np.array_equal(m.cross, a.cross)


def test_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without dask.distributed, --scheduler is one line naming the extra, exit 2, no traceback."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ClusterError, match=r"pip install 'dpcalc\[dask\]'"):
        V.verify(["midp.server_sigma"], samples=2_000, scheduler="tcp://127.0.0.1:8786")
    code, out, err = run("verify", "midp.server_sigma", "--samples", "2000", "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2 and out == ""
    assert err.startswith("dpcalc: error: ") and err.count("\n") == 1 and "dpcalc[dask]" in err


def test_without_scheduler_nothing_of_dask_is_imported(tmp_path: Path) -> None:
    """verify, nbafl simulate, a streamed table and a command's streamed sweep on this machine import neither dask
    nor distributed."""
    spec = tmp_path / "t.toml"
    spec.write_text('title = "t"\n[grid]\neps = [1, 2]\nd = [1e3]\n[inputs]\nC = 1\nN = 10\n'
                    '[[column]]\nformula = "midp.server_sigma_equal"\nkey = "s"\n', encoding="utf-8")
    code = (
        "import sys\nfrom dpcalc.cli.main import main\n"
        "for argv in (['verify', 'midp.server_sigma', '--samples', '2000', '--workers', '2'],"
        " ['nbafl', 'simulate', '--eps', '5', '--t-max', '2', '--n', '4', '--repeats', '2', '--workers', '2'],"
        f" ['table', {str(spec)!r}, '--stream', {str(tmp_path / 'o.csv')!r}],"
        f" ['sigma', '--eps', '1:40:1', '--d', '1e3,1e4', '--stream', {str(tmp_path / 's.csv')!r}]):\n"
        "    try:\n        main(argv)\n    except SystemExit as e:\n        assert not e.code, (argv, e.code)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "assert not bad, bad\nprint('clean')\n")
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    done = processes.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cpu_seconds=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("clean"), done.stderr[-2000:]


def test_table_scheduler_needs_stream(tmp_path: Path) -> None:
    code, _, err = run("table", "docs/examples/midp_sigma.toml", "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2 and "--stream" in err and err.count("\n") == 1


# ------------------------------------------------------------------------------------------ on a LocalCluster


@needs_cluster
def test_unreachable_scheduler_is_one_line() -> None:
    """Nothing listens on the port: one line naming --scheduler and the address, exit 2 (refused at once: see
    tests/sim/test_scheduler_address.py)."""
    import socket

    with socket.socket() as s:  # a free port, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = run("verify", "--paper", "000", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert code == 2 and out == ""
    assert err.startswith(f"dpcalc: error: --scheduler: nothing listens at tcp://127.0.0.1:{port}")
    assert err.count("\n") == 1


@needs_cluster
def test_verify_paper_000_bit_identical_on_the_cluster(cluster: Any) -> None:
    """verify --paper 000: the CLI on the cluster (one task per check) equals the local run (1 and 2 processes)
    field by field; a larger sample count (chunks spread over the cluster) equals the in-process run too."""
    lc, client = cluster
    local = run("verify", "--paper", "000", "--workers", "1", "--json")
    pool = run("verify", "--paper", "000", "--workers", "2", "--json")
    dask = run("verify", "--paper", "000", "--scheduler", lc.scheduler_address, "--json")
    assert local[0] == pool[0] == dask[0] == 0, dask[2]

    def rows(out: str) -> list[dict[str, Any]]:
        import json

        return [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(out)["rows"]]

    assert rows(local[1]) == rows(pool[1]) == rows(dask[1])
    formulas = V.select(paper="000")[:6]
    big = 2 * 2 * parallel.DEFAULT_CHUNK + 12_345  # >= 2 chunks per cluster thread: the chunks go to the cluster
    assert _rows(V.verify(formulas, samples=big, scheduler=client)) == _rows(V.verify(formulas, samples=big))


@needs_cluster
def test_nbafl_simulate_bit_identical_on_the_cluster(cluster: Any) -> None:
    lc, client = cluster
    one = simulate(_SIM, workers=1)
    two = simulate(_SIM, workers=2)
    on = simulate(_SIM, scheduler=client)
    for r in (two, on):
        assert np.array_equal(r.loss, one.loss) and np.array_equal(r.loss_se, one.loss_se)
        assert np.array_equal(r.nonprivate, one.nonprivate) and r.best_t == one.best_t
    args = ("nbafl", "simulate", "--eps", "2,20", "--t-max", "4", "--n", "6", "--repeats", "2", "--json")
    code, out, err = run(*args, "--scheduler", lc.scheduler_address)
    assert code == 0, err
    import json

    assert json.loads(out)["rows"] == json.loads(run(*args, "--workers", "1")[1])["rows"]


@pytest.fixture
def watchdog() -> Iterator[None]:
    """Ends the test process with every thread's traceback if the test runs past 10 minutes (it takes seconds): a
    hung cluster then fails one test instead of holding the suite until CI's limit. Once, in a fresh clone's suite
    run on a loaded machine, this test waited on a result for more than 8 minutes (three runs alone passed)."""
    import faulthandler

    faulthandler.dump_traceback_later(600, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@needs_cluster
def test_killed_worker_still_gives_identical_results(cluster: Any, watchdog: None) -> None:
    """A worker process is killed (SIGKILL) after the first tasks complete: Dask reruns its tasks elsewhere and
    the result is the same bits as the local run."""
    lc, client = cluster
    cfg = SimulationConfig(eps=(2.0, 5.0, 20.0), t_max=10, N=20, m=80, d=10, repeats=6, seed=11)
    expected = simulate(cfg, workers=1)
    pids = {n.worker_address: n.process.process.pid for n in lc.workers.values() if n.process is not None}
    state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if "killed" not in state and done >= 2:
            busy = [a for a, keys in client.processing().items() if keys and a in pids]
            if busy:  # a worker with a task running right now
                os.kill(pids[busy[0]], signal.SIGKILL)
                state["killed"] = (done, total, busy[0])

    got = simulate(cfg, scheduler=client, progress=progress)
    assert "killed" in state and state["killed"][0] < state["killed"][1]  # killed mid-run, with a task running
    assert np.array_equal(got.loss, expected.loss) and np.array_equal(got.loss_se, expected.loss_se)
    wait_for_workers(client, 2)  # the nanny restarts it for the tests that follow
    assert state["killed"][2] not in client.scheduler_info()["workers"]  # a new worker took its place


@needs_cluster
def test_streamed_table_on_the_cluster_equals_the_local_grid(cluster: Any, tmp_path: Path) -> None:
    """A table grid written in blocks by the cluster holds exactly the values of the in-memory build."""
    from dpcalc.report import table
    from dpcalc.report.table_blocks import TableBlock
    from dpcalc.sim.sweep import write_csv

    lc, client = cluster
    spec_path = tmp_path / "big.toml"
    spec_path.write_text('title = "sweep"\n[grid]\neps = "0.5:5:0.01"\nd = [1e3, 1e4, 1e6]\nN = [2, 10]\n'
                         '[inputs]\nC = 1\n[[column]]\ninput = "eps"\n[[column]]\ninput = "d"\n'
                         '[[column]]\nformula = "midp.server_sigma_equal"\nkey = "sigma"\n', encoding="utf-8")
    spec = table.read(spec_path)
    full = table.build(spec).rows
    path = tmp_path / "out.csv"
    assert write_csv(TableBlock(spec), spec.grid, path, scheduler=client, block_rows=97) == len(full)
    got = np.loadtxt(path, delimiter=",", skiprows=1)
    assert path.read_text().splitlines()[0] == "eps,d,sigma"
    for j, key in enumerate(("eps", "d", "sigma")):
        assert np.array_equal(got[:, j], full.data[key]), key
    code, _, err = run("table", str(spec_path), "--stream", str(tmp_path / "cli.csv"), "--scheduler",
                         lc.scheduler_address, "--json")
    assert code == 0, err
    assert (tmp_path / "cli.csv").read_text() == path.read_text()


@needs_cluster
def test_a_task_failing_twice_is_one_line(cluster: Any) -> None:
    """A task that raises is retried once; failing again, the run stops with one line naming the error."""
    import math

    from dpcalc.sim.cluster import DaskExecutor

    _, client = cluster
    ex = DaskExecutor(client)
    assert ex.map(math.sqrt, [4.0, 9.0]) == [2.0, 3.0]
    with pytest.raises(ClusterError, match=r"^a task failed twice on the cluster: ValueError: math domain error$"):
        ex.map(math.sqrt, [4.0, -1.0])
