"""How ``verify`` cuts its Monte Carlo work for a cluster between the default sample count and 10⁹ samples.

A stand-in cluster executor (no Dask) records the tasks the real ``verify`` driver sends it and answers with empty
`Moments`, so the plan for 10⁹ samples on 64 threads is checked in milliseconds. What must hold: a check's chunks
go to the cluster only when there are at least two per thread (else one task runs the whole check, chunk by chunk);
then every thread gets at least two tasks, no task holds more than `CHUNKS_PER_TASK` chunks (its time and memory do
not grow with the sample count), and the tasks cover every chunk exactly once, in order.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpcalc import verify as V
from dpcalc.sim import parallel
from dpcalc.sim.executor import Executor, use

CHECK = "midp.server_sigma"  # a Monte Carlo check


class Recorder(Executor):
    """A cluster of ``threads`` threads that runs nothing: it records each task and returns empty results."""

    cluster = True

    def __init__(self, threads: int) -> None:
        self.workers = threads
        self.calls: list[list[list[tuple[Any, int]]]] = []  # per run_moments call: its tasks' (seed, size) chunks
        self.whole_checks = 0

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], **kw: Any) -> Iterator[Any]:
        items = list(items)
        if fn is not parallel._cluster_batch:  # one task per check (verify's _run_task): no row to give
            self.whole_checks += len(items)
            return iter([None] * len(items))
        self.calls.append([chunks for _, chunks in items])
        term = items[0][0]
        k = np.atleast_2d(np.asarray(term(np.random.default_rng(0), 2))).shape[0]
        return iter([[parallel.Moments(size, np.zeros(k), np.zeros((k, k))) for _, size in chunks]
                     for _, chunks in items])


@pytest.mark.parametrize("threads", [2, 16, 64])
@pytest.mark.parametrize("samples", [10**6, 10**7, 10**8, 10**9])
def test_mid_range_sample_counts_give_sensible_tasks(samples: int, threads: int) -> None:
    ex = Recorder(threads)
    V.verify([CHECK], samples=samples, scheduler=ex)
    chunks = math.ceil(samples / parallel.DEFAULT_CHUNK)
    if samples < 2 * threads * parallel.DEFAULT_CHUNK:  # fewer than two chunks a thread: the check is one task
        assert ex.whole_checks == 1 and not ex.calls
        return
    assert ex.calls and not ex.whole_checks
    for tasks in ex.calls:
        sizes = [size for task in tasks for _, size in task]
        assert sizes == parallel.chunk_sizes(samples)  # every chunk once, in order
        assert len(tasks) >= min(chunks, 2 * threads)  # every thread has work, twice over
        assert max(len(task) for task in tasks) <= parallel.CHUNKS_PER_TASK  # ≤ 2,097,152 samples a task
        assert len(tasks) <= max(4 * threads, math.ceil(chunks / parallel.CHUNKS_PER_TASK))


def task_peaks(repeats: int = 3) -> tuple[int, int]:
    """Peak traced memory (bytes) of one cluster task over 1 chunk and over 16 chunks of ``CHECK``, each the
    smallest of ``repeats`` runs: the check's real term function and chunk seeds, as the cluster would get them."""
    tasks: list[Any] = []

    class Keep(Recorder):
        def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], **kw: Any) -> Iterator[Any]:
            items = list(items)
            tasks.extend(items)
            return super().imap(fn, items, **kw)

    with use(Keep(1)):
        V.run_check(V.catalog.get(CHECK), samples=16 * parallel.DEFAULT_CHUNK, seed=0, workers=1)
    fn = tasks[0][0]
    chunks = [c for _, batch in tasks if _ is fn for c in batch][:16]
    assert len(chunks) == 16
    parallel._cluster_batch((fn, chunks[:1]))  # caches and lazy imports filled before measuring
    peaks: list[list[int]] = [[], []]
    for _ in range(repeats):
        for i, task in enumerate(((fn, chunks[:1]), (fn, chunks))):
            tracemalloc.start()
            try:
                parallel._cluster_batch(task)
                peaks[i].append(tracemalloc.get_traced_memory()[1])
            finally:
                tracemalloc.stop()
    return min(peaks[0]), min(peaks[1])


def test_a_task_holds_one_chunk_at_a_time() -> None:
    """The peak memory of a cluster task is that of one chunk: 16 chunks take what 1 takes, give or take a
    quarter of one chunk's doubles (a second chunk held at once would add at least a whole one, 1 MiB).

    Measured in a process of its own: tracemalloc counts every thread's allocations, and a thread another test
    left in this worker (a pool's manager, an event loop) once added 282 KB to a CI run. Alone: +7 KB here."""
    code = "from tests.sim.test_dask_chunking import task_peaks; print(*task_peaks())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    one, sixteen = map(int, out.split())
    assert parallel.DEFAULT_CHUNK * 8 <= one  # at least one chunk of doubles: the probe saw the chunk
    assert sixteen - one <= parallel.DEFAULT_CHUNK * 8 / 4
