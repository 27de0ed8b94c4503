"""The executor interface (`Executor`) and the in-order, windowed submission loop every executor shares.

Kept apart from `dpcalc.sim.executor` (which chooses an executor) so that `dpcalc.sim.cluster` can build on
it without an import circle.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any

from dpcalc.errors import DpcalcError

__all__ = ["ClusterError", "Done", "Executor", "SchedulerLike", "Window", "ordered"]

Done = Callable[[int, int], None]
"""``done(completed, total)``: called in this process as tasks complete (feeds `dpcalc._progress.tracker`)."""
SchedulerLike = Any
"""None, a scheduler address (``"tcp://host:8786"``), a ``distributed.Client`` or an `Executor`."""
Window = int | Callable[[], int]
"""Most tasks in flight: a number, or a function re-read as tasks complete (an adaptive cluster's current size)."""


class ClusterError(DpcalcError):
    """The cluster cannot run the work: the extra is missing, the scheduler cannot be reached, or a task failed
    twice (one line, like every dpcalc error; the CLI prints it and exits 2)."""


class Executor:
    """Maps a picklable ``fn`` over items; results come back in item order (the base class runs them here)."""

    workers = 1
    """Tasks that run at once (cores of the pool, threads of the cluster)."""
    cluster = False
    """True for a Dask cluster: callers size their tasks for it (fewer, larger tasks than chunks)."""

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any], *, done: Done | None = None,
             window: Window | None = None, total: int | None = None) -> Iterator[Any]:
        """Yield ``fn(item)`` for every item, in order. Items are taken from ``items`` lazily: at most ``window``
        tasks (default: 4 per worker, on a cluster its current workers) are in flight or waiting to be yielded, so
        memory stays bounded however many items there are. ``total`` (default ``len(items)``) is what
        ``done(completed, total)`` reports."""
        count = _total(items, total)
        for i, item in enumerate(items):
            yield fn(item)
            if done is not None:
                done(i + 1, count)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any], *, done: Done | None = None) -> list[Any]:
        """``list(imap(fn, items))``."""
        return list(self.imap(fn, items, done=done))

    def close(self, abandon: bool = False) -> None:
        """Release what the executor holds (a pool's processes; a client it opened itself); ``abandon``: the caller
        stopped early (an error, an interrupt, a consumer that left): stop the running tasks instead of waiting."""


def _total(items: Iterable[Any], total: int | None) -> int:
    if total is not None:
        return int(total)
    return len(items) if isinstance(items, Sized) else 0


def ordered(submit: Callable[[Any], Any], wait_any: Callable[[Iterable[Any]], set[Any]], items: Iterable[Any],
            done: Done | None, window: Window, total: int | None = None,
            result: Callable[[Any], Any] = lambda f: f.result()) -> Iterator[Any]:
    """Submit items through a sliding window of ``window`` futures; count completions as they happen (``done``),
    yield results in item order. Shared by the local pool and the Dask client. A callable ``window`` is read again
    each time the window is refilled (after every completion), so the window follows a cluster that grows or
    shrinks; which tasks run where never changes a result."""
    size = window if callable(window) else (lambda: window)
    count, completed = _total(items, total), 0
    source = iter(items)
    queue: deque[Any] = deque()  # futures from the next one to yield onwards, in item order
    pending: set[Any] = set()
    finished: set[Any] = set()
    exhausted = False
    while True:
        limit = max(1, size())
        while not exhausted and len(queue) < limit:
            try:
                item = next(source)
            except StopIteration:
                exhausted = True
                break
            fut = submit(item)
            queue.append(fut)
            pending.add(fut)
        if not queue:
            return
        if queue[0] not in finished:
            newly = wait_any(pending)
            pending -= newly
            finished |= newly
            completed += len(newly)
            if done is not None and newly:
                done(completed, count)
            continue
        fut = queue.popleft()
        finished.discard(fut)
        yield result(fut)
