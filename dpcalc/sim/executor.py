"""The executor seam: where seeded, pure tasks run — in this process, a local process pool, or a Dask cluster.

Every heavy job of dpcalc (the Monte Carlo chunks of `dpcalc.sim.parallel.run_moments`, the checks of
``verify``, the runs of ``nbafl simulate``, the blocks of a sweep) is a list of tasks ``fn(item)`` that are pure
functions of their inputs (their seeds included). An `Executor` maps ``fn`` over the items and yields the
results **in item order** (`Executor.imap`), so a caller that reduces them in that order gets the same bits
whichever executor ran them and however many workers it had:

* `SerialExecutor` — in this process (``workers = 1``);
* `LocalExecutor` — a ``concurrent.futures`` process pool on this machine (the default of the CLI);
* `dpcalc.sim.cluster.DaskExecutor` — a ``dask.distributed`` client (``--scheduler ADDRESS``,
  ``DASK_SCHEDULER_ADDRESS``, or a ``distributed.Client`` passed to the library); needs the extra ``dask``.

`open_executor` turns what the caller has (nothing, a worker count, an address, a ``Client`` or an executor)
into one; nothing of Dask is imported unless a scheduler is given. `use` makes an executor the *current* one
for code that does not take it as an argument (the recipes of ``verify`` call ``run_moments`` deep inside).
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from dpcalc.errors import DomainError
from dpcalc.sim.taskbase import ClusterError, Done, Executor, SchedulerLike, Window, ordered

__all__ = ["ENV_SCHEDULER", "ClusterError", "Done", "Executor", "LocalExecutor", "SchedulerLike",
           "SerialExecutor", "current", "is_cluster", "open_executor", "scheduler_address", "use"]

class SerialExecutor(Executor):
    """Every task in this process, one after another."""


class LocalExecutor(Executor):
    """A process pool on this machine (``fork`` where available, else ``spawn``); ``env`` is set around the pool's
    creation so that its processes inherit it (e.g. one BLAS thread per process)."""

    def __init__(self, workers: int, *, start_method: str | None = None, env: Mapping[str, str] | None = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        method = start_method or ("fork" if "fork" in methods else "spawn")
        self.workers = max(1, int(workers))
        saved = {k: os.environ.get(k) for k in (env or {})}
        os.environ.update(env or {})
        try:  # spawned processes start when the first task is submitted: keep env until the pool is warm
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context(method))
            self._saved = saved
        except BaseException:
            _restore(saved)
            raise

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], *, done: Done | None = None,
             window: Window | None = None, total: int | None = None) -> Iterator[Any]:
        return ordered(lambda item: self._pool.submit(fn, item), _local_wait, items, done,
                       window or 4 * self.workers, total)

    def close(self, abandon: bool = False) -> None:
        if abandon:  # no waiting for tasks nobody will read: cancel the queued ones, end the running ones
            processes = getattr(self._pool, "_processes", None) or {}
            manager = getattr(self._pool, "_executor_manager_thread", None)
            self._pool.shutdown(wait=False, cancel_futures=True)
            # the pool's manager thread replaces a worker that exits (CPython 3.11), also while it shuts down: end
            # the replacements too until the thread is gone (a left-over worker was seen in 1 run of ~10)
            while True:
                for process in list(processes.values()):
                    if process.is_alive():
                        process.terminate()
                if manager is None or not manager.is_alive():
                    break
                manager.join(0.05)
            for process in list(processes.values()):
                process.join()
        self._pool.shutdown()
        _restore(self._saved)


def _restore(saved: Mapping[str, str | None]) -> None:
    for k, val in saved.items():
        if val is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = val


def _local_wait(pending: Iterable[Any]) -> set[Any]:
    from concurrent.futures import FIRST_COMPLETED, wait

    return wait(list(pending), return_when=FIRST_COMPLETED).done


_current: contextvars.ContextVar[Executor | None] = contextvars.ContextVar("dpcalc_executor", default=None)


def current() -> Executor | None:
    """The executor set by `use` (None outside one)."""
    return _current.get()


@contextmanager
def use(executor: Executor | None) -> Iterator[Executor | None]:
    """Make ``executor`` the current one inside the block (``run_moments`` then ships its chunks to it)."""
    token = _current.set(executor)
    try:
        yield executor
    finally:
        _current.reset(token)


def is_cluster(executor: Executor | None) -> bool:
    return bool(executor is not None and executor.cluster)


ENV_SCHEDULER = "DASK_SCHEDULER_ADDRESS"


def scheduler_address(option: str | None) -> str | None:
    """The scheduler the command line asks for: ``--scheduler``, else Dask's ``DASK_SCHEDULER_ADDRESS``, else
    None (this machine)."""
    return option or os.environ.get(ENV_SCHEDULER) or None


@contextmanager
def open_executor(scheduler: SchedulerLike = None, *, workers: int = 1, **local: Any) -> Iterator[Executor]:
    """The executor for ``scheduler``: given an `Executor`, itself; a ``distributed.Client``, a Dask executor
    on it (left open); an address, a client connected to it (closed at the end); None, the local pool of
    ``workers`` processes (``local``: `LocalExecutor` options), or this process when ``workers <= 1``."""
    if isinstance(scheduler, Executor):
        yield scheduler
        return
    if isinstance(scheduler, str) and (not scheduler.strip() or len(scheduler.split()) > 1):
        raise DomainError(f"scheduler must be an address without spaces, e.g. tcp://10.0.0.5:8786 (got "
                          f"{scheduler[:40]!r}); None runs on this machine")
    if scheduler is not None:
        from dpcalc.sim.cluster import connect

        with connect(scheduler) as dask:
            yield dask
        return
    ex: Executor = SerialExecutor() if workers <= 1 else LocalExecutor(workers, **local)
    try:
        yield ex
    except BaseException:  # an error, an interrupt, or the consumer of a generator left early (GeneratorExit)
        ex.close(abandon=True)
        raise
    ex.close()
