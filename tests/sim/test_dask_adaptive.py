"""An adaptive cluster: the Dask executor's window of tasks in flight follows the cluster's current size."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tests.sim.conftest import DASK_TIMEOUTS, needs_cluster, wait_for_workers


def _seeded(i: int) -> float:
    """A task of ~40 ms whose value depends only on its input."""
    time.sleep(0.04)
    return float(np.random.default_rng(i).standard_normal(5).sum())


@needs_cluster
def test_the_window_follows_a_cluster_that_grows() -> None:
    """A LocalCluster of 1 worker scaled to 2 mid-run: the in-flight window grows from 4 to 8 tasks, the second
    worker runs tasks, and the results are those of the serial run."""
    import warnings

    import dask
    from distributed import Client, LocalCluster, get_task_stream

    from dpcalc.sim.cluster import TASKS_PER_THREAD, DaskExecutor

    items = list(range(120))
    expected = [_seeded(i) for i in items]
    dask.config.set(DASK_TIMEOUTS)  # for the worker that joins later too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lc = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(lc, set_as_default=False)
    try:
        ex = DaskExecutor(client)
        taken: list[int] = []
        ahead: list[int] = []
        state: dict[str, int] = {}

        def source() -> Any:
            for i in items:
                taken.append(i)
                yield i

        def grow(done: int, total: int) -> None:
            if done >= 8 and "scaled" not in state:
                state["scaled"] = done
                lc.scale(2)
                wait_for_workers(client, 2)

        got = []
        with get_task_stream(client=client) as stream:
            for value in ex.imap(_seeded, source(), done=grow, total=len(items)):
                ahead.append(len(taken) - len(got))
                got.append(value)
        assert got == expected
        before, after = ahead[:state["scaled"] - 4], ahead[-40:-10]
        assert max(before) <= TASKS_PER_THREAD and max(ahead) <= 2 * TASKS_PER_THREAD
        assert max(after) > TASKS_PER_THREAD  # the window grew with the cluster
        assert len({t["worker"] for t in stream.data}) == 2 and ex.workers == 2
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            lc.close()
