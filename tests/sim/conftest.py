"""The Dask cluster the cluster tests share: a ``LocalCluster`` of 2 worker processes (1 thread each), started once
per test process; the tests that need it skip, saying why, when ``distributed`` is not installed."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

HAVE_DISTRIBUTED = True
try:
    import distributed  # noqa: F401
except ImportError:
    HAVE_DISTRIBUTED = False
needs_cluster = pytest.mark.skipif(not HAVE_DISTRIBUTED, reason="dask.distributed is not installed "
                                   "(pip install -e '.[test]' or '.[dask]'): the cluster tests need a LocalCluster")


#: Dask's connect timeout for the test clusters, well above what a loaded machine needs to reach a starting worker
#: (the default, 30 s, is wall time).
DASK_TIMEOUTS = {"distributed.comm.timeouts.connect": "600s"}


def wait_for_workers(client: Any, n: int) -> None:
    """``client.wait_for_workers(n)``, bounded by a stall, not by wall time: it waits while this process and its
    children (the cluster's nannies and workers) compute, and fails when they stop computing before ``n`` workers
    are there (`tests.support.call_limits.STALL_CPU` seconds of CPU per `~.STALL_SECONDS`)."""
    import psutil

    from tests.support.call_limits import STALL_CPU, STALL_SECONDS

    def cpu() -> float:
        total = 0.0
        for proc in [psutil.Process(), *psutil.Process().children(recursive=True)]:
            try:
                times = proc.cpu_times()
            except psutil.Error:  # ended meanwhile
                continue
            total += times.user + times.system
        return total

    used = cpu()
    while True:
        try:
            client.wait_for_workers(n, timeout=STALL_SECONDS)
            return
        except TimeoutError:
            now = cpu()
            if now - used < STALL_CPU:
                raise AssertionError(f"the cluster stalled before {n} workers joined ({now - used:.3g} s of CPU in "
                                     f"{STALL_SECONDS:g} s)") from None
            used = now


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    """A LocalCluster of 2 worker processes (1 thread each) and a client on it."""
    import dask
    from distributed import Client, LocalCluster

    dask.config.set(DASK_TIMEOUTS)  # for this process and, inherited, the cluster's processes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Dask's own start-up notices are not the code under test
        lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(lc, set_as_default=False)
    try:
        yield lc, client
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            lc.close()
