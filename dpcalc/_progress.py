"""Progress display for long work (verify, PLD, sweeps, calibration): a bar on stderr, only on a terminal.

Usage::

    with progress(total, "account") as advance:
        for item in work:
            ...
            advance(1, item_name)

Work that counts its own steps (``simulate(..., progress=update)`` calls ``update(done, total)``) takes
`tracker`, which opens the same bar on the first call::

    with tracker("simulate") as update:
        simulate(config, progress=update)

Work of many like items that cannot be estimated beforehand (a catalog formula evaluated row by row) takes
`paced`: progress, and the measured pace of the first items times their number checked against the
one-minute work cap (`dpcalc._limits.check_seconds`) before the rest runs::

    for point in paced(points, len(points), "eval", "--eps (1e6 values)"):
        ...

Nothing is shown when stderr is not a terminal, when ``DPCALC_PROGRESS=0``, or for ``total < 2``; the bar
disappears when the work ends (transient), so it never mixes with the results on stdout.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["PROBE", "Advance", "enabled", "paced", "progress", "tracker"]

PROBE = 3
"""Items `paced` times (after the first, which may pay for imports and caches) to estimate the rest."""

Advance = Callable[..., None]
_active = False  # a bar is on screen


def _noop(steps: int = 1, description: str = "") -> None:
    return None


def enabled() -> bool:
    """True when a progress bar would be shown (stderr is a terminal and DPCALC_PROGRESS is not 0)."""
    if os.environ.get("DPCALC_PROGRESS", "") == "0":
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def progress(total: int, label: str) -> Iterator[Advance]:
    """Yield ``advance(steps=1, description="")``; draws a rich bar on stderr when `enabled`."""
    global _active
    if total < 2 or _active or not enabled():  # one bar at a time: nested work (e.g. a PLD inside verify) is silent
        yield _noop
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.description}"), console=Console(file=sys.stderr), transient=True,
                   redirect_stdout=False, redirect_stderr=False)  # rich would send stdout to the terminal
    task = bar.add_task("", total=total)

    def advance(steps: int = 1, description: str = "") -> None:
        bar.update(task, advance=steps, description=description)

    _active = True
    try:
        with bar:
            yield advance
    finally:
        _active = False


@contextmanager
def tracker(label: str) -> Iterator[Callable[[int, int], None]]:
    """Yield ``update(done, total)``: the `progress` bar for work that reports its own count, opened at the
    first update (when the total is known) and closed with the block."""
    with ExitStack() as stack:
        state: dict[str, Any] = {}

        def update(done: int, total: int) -> None:
            if "advance" not in state:
                state["advance"], state["done"] = stack.enter_context(progress(total, label)), 0
            state["advance"](done - state["done"])
            state["done"] = done

        yield update


def paced(items: Iterable[T], total: int, label: str, what: str) -> Iterator[T]:
    """Yield ``items`` (``total`` of them) with a `progress` bar; once `PROBE` items after the first
    have run, raise a one-line `LimitError` if their pace times ``total`` exceeds the work
    cap (``what`` names the options responsible)."""
    from dpcalc import _limits

    with progress(total, label) as advance:
        start = 0.0
        for i, item in enumerate(items):
            if i == 1:
                start = time.perf_counter()
            elif i == PROBE + 1:
                pace = (time.perf_counter() - start) / PROBE
                _limits.check_seconds(what, pace * total, f"~{pace * 1e3:.3g} ms an item, measured")
            yield item
            advance()
