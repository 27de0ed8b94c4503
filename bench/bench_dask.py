"""The executor seam at scale: the local pool vs a Dask ``LocalCluster`` of 1, 2 and 4 workers (not a timed test).

Run: ``python -u bench/bench_dask.py [--samples 2097152] [--paper 000] [--n-clients 1000] [--rows 1e7]
[--workers 1,2,4] [--jobs verify,nbafl,sweep]`` (needs ``pip install -e '.[dask]'``; ``cd /tmp`` first).

Jobs (each is run on every configuration; the first configuration's result is the reference and every other
must equal it bit for bit — a column of the table says so):

* ``verify`` — ``verify(select(all_=True), samples=S)`` (or one ``--paper``): on the cluster, with S ≥ 2 chunks per
  worker, the checks run one after another in this process and their Monte Carlo chunks go to the cluster (tasks of
  ≤ 16 chunks of 2**17).
* ``nbafl`` — ``nbafl simulate`` with N clients (ε ∈ {2, 10, 20} + the non-private baseline, T ≤ 12, repeats 4:
  16 tasks).
* ``sweep`` — a table spec of ``rows`` grid points (ε × d, ``midp.server_sigma_equal``), written in blocks of
  2**18 rows to a CSV file (the files' SHA-256 are compared).

Measured: wall seconds; throughput (samples, tasks or rows per second) and per worker; the per-task overhead
(``o``: 2,000 no-op tasks through the same executor, divided by 2,000); and the 64-worker time on paper,
``T64 = S + W / p + n64 · o``, with ``W`` the job's work (the 1-worker cluster time minus ``n · o`` and ``S``),
``S`` the part that stays in this process (verify: its exact-numeric checks), ``p`` the tasks that can run side by
side (nbafl, sweep: all of them, at most 64; verify: one check's tasks, since checks run one after another) and
``n64`` the task count on 64 workers (verify's tasks hold fewer chunks on a larger cluster: ``n`` scaled by the
chunks per task on 1 worker over those on 64).
The machine is shared (2 cores for several developers): the load average is printed; more workers than cores
cannot be faster here, so the 4-worker line measures overhead, not speed-up.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from dpcalc import verify as V
from dpcalc.nbafl.simulate import SimulationConfig, simulate
from dpcalc.report import table
from dpcalc.report.table_blocks import TableBlock
from dpcalc.sim.cluster import DaskExecutor
from dpcalc.sim.executor import Executor, LocalExecutor
from dpcalc.sim.parallel import DEFAULT_CHUNK, chunks_per_task, default_workers
from dpcalc.sim.sweep import write_csv


def _noop(x: int) -> int:
    return x


class Counting(Executor):
    """Wraps an executor and counts the tasks sent through it."""

    def __init__(self, inner: Executor) -> None:
        self.inner, self.tasks = inner, 0
        self.workers, self.cluster = inner.workers, inner.cluster

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], **kw: Any) -> Iterator[Any]:
        def counted() -> Iterator[Any]:
            for item in items:
                self.tasks += 1
                yield item

        return self.inner.imap(fn, counted(), **kw)


def _spec(rows: int, folder: Path) -> Path:
    d_values = 1000
    eps_values = max(1, rows // d_values)
    path = folder / "sweep.toml"
    path.write_text(f'title = "bench"\n[grid]\neps = "0.5:{0.5 + (eps_values - 1) * 0.001:.3f}:0.001"\n'
                    f'd = "1000:{1000 + d_values - 1}:1"\n[inputs]\nC = 1\nN = 10\n[[column]]\ninput = "eps"\n'
                    '[[column]]\ninput = "d"\n[[column]]\nformula = "midp.server_sigma_equal"\nkey = "sigma"\n',
                    encoding="utf-8")
    return path


def _warm() -> None:
    """Import what the jobs need on a worker before the clock starts (a cold worker imports NumPy, SciPy, dpcalc)."""
    import dpcalc.nbafl.simulate
    import dpcalc.report.table_blocks
    import dpcalc.verify  # noqa: F401
    from dpcalc import catalog
    from dpcalc.sim.blas import single_threaded_blas

    catalog.load()
    with single_threaded_blas():  # loads SciPy's BLAS and threadpoolctl
        pass


def _overhead(ex: Executor, n: int = 2000) -> float:
    t0 = time.perf_counter()
    for _ in ex.imap(_noop, range(n)):
        pass
    return (time.perf_counter() - t0) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=1 << 21)
    ap.add_argument("--paper", default=None, help="verify one paper instead of --all")
    ap.add_argument("--n-clients", type=int, default=1000)
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--jobs", default="verify,nbafl,sweep")
    args = ap.parse_args()
    jobs = args.jobs.split(",")
    from distributed import Client, LocalCluster

    folder = Path(tempfile.mkdtemp(prefix="bench_dask_"))
    spec = table.read(_spec(int(args.rows), folder))
    rows = int(np.prod([len(v) for v in spec.grid.values()]))
    formulas = V.select(paper=args.paper) if args.paper else V.select(all_=True)
    mc_checks = sum(f.check.get("method", "monte-carlo") == "monte-carlo" for f in formulas)
    sim_cfg = SimulationConfig(eps=(2.0, 10.0, 20.0), t_max=12, N=args.n_clients, repeats=4, seed=1)
    print(f"load {os.getloadavg()[0]:.1f}; verify {len(formulas)} entries at {args.samples:,} samples; nbafl "
          f"N={args.n_clients}; sweep {rows:,} rows; {default_workers()} usable cores")
    reference: dict[str, Any] = {}
    lines: list[tuple[Any, ...]] = []
    one_worker: dict[str, tuple[float, int, float]] = {}
    serial_verify = 0.0

    def run_jobs(name: str, ex: Counting, workers: int, overhead: float) -> None:
        nonlocal serial_verify
        for job in jobs:
            ex.tasks = 0
            t0 = time.perf_counter()
            if job == "verify":
                res = V.verify(formulas, samples=args.samples, scheduler=ex)
                out: Any = [{k: v for k, v in r.as_dict().items() if k != "seconds"} for r in res]
                units = args.samples * mc_checks
                if name.startswith("cluster") and workers == 1:
                    serial_verify = sum(r.seconds for r in res if r.method != "monte-carlo")
            elif job == "nbafl":
                r = simulate(sim_cfg, scheduler=ex)
                out, units = (r.loss.tobytes(), r.loss_se.tobytes(), r.nonprivate.tobytes()), 16
            else:
                path = folder / f"{name}.csv"
                units = write_csv(TableBlock(spec), spec.grid, path, scheduler=ex)
                out = hashlib.sha256(path.read_bytes()).hexdigest()
                path.unlink()
            dt = time.perf_counter() - t0
            same = reference.setdefault(job, out) == out
            lines.append((name, job, dt, ex.tasks, units / dt, units / dt / workers, same, overhead))
            if name.startswith("cluster") and workers == 1:
                one_worker[job] = (dt, ex.tasks, overhead)
            print(f"  {name:10s} {job:7s} {dt:8.2f} s  tasks {ex.tasks:5d}  identical {same}", flush=True)

    local = LocalExecutor(default_workers())
    try:
        counted = Counting(local)
        run_jobs(f"local x{default_workers()}", counted, default_workers(), _overhead(local))
    finally:
        local.close()
    for w in [int(x) for x in args.workers.split(",")]:
        with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as lc, \
                Client(lc) as client:
            client.run(_warm)
            dask = DaskExecutor(client)
            o = _overhead(dask)
            run_jobs(f"cluster x{w}", Counting(dask), w, o)
    print(f"\nload {os.getloadavg()[0]:.1f} at the end\n")
    print("| executor | job | seconds | tasks | throughput /s | per worker /s | overhead/task ms | identical |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for name, job, dt, tasks, thr, per, same, o in lines:
        print(f"| {name} | {job} | {dt:.2f} | {tasks} | {thr:.4g} | {per:.4g} | {o * 1e3:.2f} | {same} |")
    print("\nExtrapolated 64-worker cluster, T64 = S + W/p + n64*o (from the 1-worker cluster run):")
    chunks = -(-args.samples // DEFAULT_CHUNK)  # a check's chunks (most recipes use the default chunk)
    for job, (dt, n, o) in one_worker.items():
        s = serial_verify if job == "verify" else 0.0
        w = max(dt - n * o - s, 0.0)
        if job == "verify":  # checks run one after another; a check's tasks run side by side
            n64 = n * chunks_per_task(chunks, 1) // chunks_per_task(chunks, 64)  # smaller tasks on more workers
            p = min(64, -(-chunks // chunks_per_task(chunks, 64)))
        else:
            n64, p = n, min(64, n)
        print(f"  {job:7s}: S = {s:.2f} s, W = {w:.2f} s, p = {p}, n64 = {n64}, o = {o * 1e3:.2f} ms -> T64 = "
              f"{s + w / p + n64 * o:.2f} s")

if __name__ == "__main__":
    main()
