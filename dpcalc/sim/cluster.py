"""Running dpcalc's tasks on a ``dask.distributed`` cluster (the optional extra ``dask``).

`connect` gives a `DaskExecutor` for a scheduler address or an existing ``distributed.Client``; the
executor submits every task with one retry (``retries=1``) and yields results in task order, so the callers'
in-order reductions give the same bits as on the local pool. Its window of tasks in flight (four per worker thread)
follows the cluster's current size, re-read as tasks complete (at most every `REFRESH_SECONDS`): an adaptive
cluster that grows gets the extra tasks to run. A worker lost mid-run is harmless: Dask reschedules its
tasks elsewhere and, since each task is a pure function of its seed and inputs, they return the same values.

Errors are one line (`ClusterError`): the extra is not installed; the address's protocol is not usable here (``tls://``
without Dask's TLS settings, ``ucx://``); no Dask scheduler answers there within `CONNECT_TIMEOUT` seconds (nothing
listens, or another server does: `dpcalc.sim.probe`, before Dask's client sees the address); or a task failed twice
(an exception raised twice, or workers dying under it more often than the scheduler's ``allowed-failures``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from dpcalc.sim.taskbase import ClusterError, Done, Executor, Window, ordered

__all__ = ["CONNECT_TIMEOUT", "EXTRA", "REFRESH_SECONDS", "TASKS_PER_THREAD", "DaskExecutor", "connect", "require"]

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the scheduler before giving up with one line."""
EXTRA = "pip install 'dpcalc[dask]'"
TASKS_PER_THREAD = 4
"""Tasks in flight (or done, waiting to be yielded in order) per worker thread: enough to keep every thread busy."""
REFRESH_SECONDS = 0.5
"""Most often the cluster's thread count is asked of the scheduler (one round trip) while tasks complete."""


def require() -> ModuleType:
    """The ``distributed`` module, or a one-line `ClusterError` naming the extra to install."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"a Dask scheduler needs the optional extra 'dask': {EXTRA}") from None
    return distributed


class DaskExecutor(Executor):
    """An `Executor` on a ``distributed.Client``; ``workers`` is the cluster's thread count (at least 1), as last
    read: when the executor is made and, during `imap`, as tasks complete (`refresh`)."""

    cluster = True

    def __init__(self, client: Any) -> None:
        self.client = client
        self._read_at = -math.inf
        self.refresh(0.0)

    def refresh(self, every: float = REFRESH_SECONDS) -> int:
        """Re-read ``workers`` from the scheduler unless it was read less than ``every`` seconds ago; return it."""
        now = time.monotonic()
        if now - self._read_at >= every:
            self._read_at = now
            try:
                self.workers = max(1, sum(self.client.nthreads().values()))
            except (OSError, TimeoutError):  # the scheduler busy or briefly away: keep the last count
                pass
        return self.workers

    def window(self) -> int:
        """The in-flight window for the cluster's current size: `TASKS_PER_THREAD` tasks per thread."""
        return TASKS_PER_THREAD * self.refresh()

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], *, done: Done | None = None,
             window: Window | None = None, total: int | None = None) -> Iterator[Any]:
        distributed = require()
        finished = distributed.as_completed(loop=self.client.loop)  # this client's, not a default one

        def submit(item: Any) -> Any:
            future = self.client.submit(fn, item, pure=False, retries=1)
            finished.add(future)
            return future

        def wait_any(pending: Iterable[Any]) -> set[Any]:
            return {next(finished), *finished.next_batch(block=False)}

        return ordered(submit, wait_any, items, done, window or self.window, total, result=_result)


def _result(future: Any) -> Any:
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker as exc:
        raise ClusterError(f"a task was lost with its worker too often on the cluster ({exc})") from None
    except ClusterError:
        raise
    except Exception as exc:
        last = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ClusterError(f"a task failed twice on the cluster: {last}") from None


@contextmanager
def connect(scheduler: Any, *, timeout: float = CONNECT_TIMEOUT) -> Iterator[DaskExecutor]:
    """A `DaskExecutor` on ``scheduler``: a ``distributed.Client`` (used as is, left open) or an address
    such as ``tcp://10.0.0.5:8786`` (a client opened here and closed at the end)."""
    distributed = require()
    if isinstance(scheduler, distributed.Client):
        yield DaskExecutor(scheduler)
        return
    from dpcalc.sim import probe

    address = str(scheduler).strip()
    if not address:
        raise ClusterError("scheduler: the address is empty (give e.g. tcp://127.0.0.1:8786)")
    probe.check(distributed, address, timeout)
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:  # the scheduler went away since the probe
        why = " ".join(str(exc).split()) or type(exc).__name__
        raise ClusterError(f"scheduler: cannot reach the Dask scheduler at {address} within {timeout:g} s "
                           f"({why[:160]})") from None
    try:
        yield DaskExecutor(client)
    finally:
        client.close()
