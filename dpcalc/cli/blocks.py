"""``--stream FILE.csv`` and ``--scheduler ADDRESS`` on every table command with a sweep axis: its grid in blocks.

`dpcalc.cli.command.callback` adds the two options (`dpcalc.cli.options.IN_BLOCKS`) to every table command that has
an axis option and declares neither itself; when one is given, `dpcalc.cli.command.execute` hands the parsed call to
`run` instead of running the body once. The grid (the product of the axes, first option slowest) is cut into product
sub-grids (`dpcalc.sim.sweep.plan`); each block is one task, `BlockTask`, which runs the command's own body on
its part of the grid — in this process, the local process pool, or on a Dask cluster (`dpcalc.sim.executor`).

* ``--scheduler ADDRESS`` alone: the blocks run on the cluster and their rows are merged here, in row order, into
  the result the command gives without it (same rows, same output; the in-memory row cap applies).
* ``--stream FILE.csv``: each task renders its rows as the CSV the command writes with ``--format csv`` and the
  blocks are appended to FILE as they complete (up to `dpcalc.sim.sweep.MAX_SWEEP_ROWS` rows, on the cluster of
  ``--scheduler`` or ``$DASK_SCHEDULER_ADDRESS``, else this machine's cores); the output is a one-row summary.

Rows outside a formula's domain keep the sweep convention of `dpcalc.cli.sweep` (``—`` in a table, JSON ``null`` and
a ``reason``, empty CSV cells with the reason on stderr): a block whose body refuses is split into its computable
parts and failing points inside the task. The work limit (`dpcalc.cli.command.estimate`) applies to one block
(what a task does; a block whose work the body refuses is halved), the row caps to the whole grid. Warnings raised in
the tasks are raised again here, those that differ only in their numbers once. A command that sums its sweep up (a
summary) runs as one block, or is refused when its grid needs several.
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, closing
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from dpcalc.errors import DomainError, DpcalcError
from dpcalc.report.render import Column, Format, Result

if TYPE_CHECKING:
    from dpcalc.cli.declare import Args, Command
    from dpcalc.cli.options import Resolved

__all__ = ["BlockTask", "Kit", "block_rows", "run", "stream_summary"]


class Kit(NamedTuple):
    """What the blocks need of `dpcalc.cli.command`, given by it (this module does not import it): the parsed-call
    class ``Args``, ``capture_warnings`` and ``estimate``. Module-level names, so a task carrying them pickles."""

    args: Callable[..., Args]
    capture: Callable[[], AbstractContextManager[list[str]]]
    estimate: Callable[[Command, Args], None]


def block_rows() -> int:
    """Rows per block: `dpcalc.sim.sweep.BLOCK_ROWS` (read at call time, so a test can make blocks small)."""
    from dpcalc.sim import sweep

    return sweep.BLOCK_ROWS


# ------------------------------------------------------------------------------------------ in a task


@dataclasses.dataclass(frozen=True)
class Refused:
    """The body refused a block as a whole: the one-line message (the command's own, raised again here)."""

    message: str


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A block's rows — the pieces to merge (`dpcalc.cli.sweep.split`), or with ``--stream`` its CSV lines (header
    apart) and the failed points (``pieces``) — and the warnings raised computing them."""

    pieces: list[Any]
    warnings: list[str]
    columns: tuple[Column, ...] = ()
    text: str = ""
    summary: bool = False  # the block's result had a summary (of the block only, unless it is the whole sweep)


@dataclasses.dataclass(frozen=True)
class BlockTask:
    """One block of a command's sweep: the command (by ``ref``, found again in the worker), the parsed values of
    its other options, the inputs that vary over the whole sweep, and whether it returns CSV lines (``csv``)."""

    ref: tuple[str, str]
    kit: Kit
    values: dict[str, Any]
    inputs: tuple[str, ...]
    fmt: Format | None
    csv: bool

    def __call__(self, axes: dict[str, list[float]]) -> Outcome | Refused:
        cmd, options = _command(self.ref)
        args = self.kit.args({**self.values, **axes}, options, None if self.csv else self.fmt, [])
        with self.kit.capture() as warns:
            try:
                outcome = self._evaluate(cmd, args, options)
            except DpcalcError as exc:
                return Refused(str(exc))
        return dataclasses.replace(outcome, warnings=[*warns, *outcome.warnings])

    def _evaluate(self, cmd: Command, args: Args, options: dict[str, Resolved]) -> Outcome:
        pieces = list(_within_limits(cmd, args, options))
        return self._csv(pieces, args) if self.csv else Outcome(pieces, [])

    def _csv(self, pieces: list[Any], args: Args) -> Outcome:
        """The block's rows as the command writes them with ``--format csv`` (its header apart)."""
        from dpcalc.cli.sweep import Failure, merge
        from dpcalc.report.formats import iter_csv
        from dpcalc.report.render import check_finite

        if not any(isinstance(p, Result) for p in pieces):
            return Outcome(pieces, [])
        result = merge(pieces, args, list(self.inputs))
        check_finite(result)
        chunks = iter_csv(result)
        next(chunks)  # the header: the client writes it once
        return Outcome([p for p in pieces if isinstance(p, Failure)], list(result.warnings), tuple(result.columns),
                       "".join(chunks), bool(result.summary))


def _within_limits(cmd: Command, args: Args, options: dict[str, Resolved]) -> Iterator[Any]:
    """The pieces of a block: the body's result; if the body refuses the block's work (`LimitError`: more than one
    call may do), the pieces of its halves, down to single points; if it refuses some of its points, the computable
    parts and the failing points (`dpcalc.cli.sweep.split`)."""
    from dpcalc._limits import LimitError
    from dpcalc.cli.messages import with_option_names
    from dpcalc.cli.sweep import split

    try:
        yield cmd.body(args)
    except LimitError:
        halved = next((n for n, v in args.axes().items() if len(v) > 1), None)
        if halved is None:
            raise
        values = args[halved]
        for part in (values[:len(values) // 2], values[len(values) // 2:]):
            yield from _within_limits(cmd, args.replace(**{halved: part}), options)
    except DpcalcError as exc:
        yield from split(cmd, args, exc, lambda e: with_option_names(str(e), options.values()))


@cache
def _command(ref: tuple[str, str]) -> tuple[Command, dict[str, Resolved]]:
    """The command ``ref`` names (the module and name its declaration is bound to) and its resolved options."""
    from dpcalc.cli.options import resolve

    cmd = getattr(importlib.import_module(ref[0]), ref[1])
    return cmd, {o.name: resolve(o, cmd.formula, False) for o in cmd.options}


def _ref(cmd: Command) -> tuple[str, str]:
    """Where a worker finds ``cmd`` again: the module and name of its body, which the declaration replaced."""
    ref = (cmd.body.__module__, cmd.body.__name__)
    if getattr(importlib.import_module(ref[0]), ref[1], None) is not cmd:
        raise LookupError(f"command {cmd.name} is not bound to {'.'.join(ref)}: a worker could not find it")
    return ref


class _Summed(DomainError):
    """A block's result has a summary, and the sweep has several blocks."""


def _summary_check(summary: bool, many: bool) -> None:
    """A command that sums its sweep up cannot be cut into blocks: one line (the summary of a block is not the
    sweep's)."""
    if many and summary:
        raise _Summed("--stream/--scheduler: this command sums up its whole sweep (a summary), which a block "
                          "cannot give; run it without them")


# ------------------------------------------------------------------------------------------ here


def run(cmd: Command, args: Args, kit: Kit) -> Result:
    """The command's sweep in blocks (module doc): its result, or with ``--stream`` the summary of the written file
    (checked with ``--output`` before it runs, `dpcalc.cli.command.execute`)."""
    from dpcalc.cli.sweep import varying
    from dpcalc.sim.sweep import block_options, plan

    stream, scheduler = args.stream, args.scheduler or None
    axes = args.axes()
    if not axes:  # nothing to cut into blocks (e.g. an audit of one set of counts)
        option = "--stream" if stream is not None else "--scheduler"
        raise DomainError(f"{option}: this command has no sweep axis here (one row); write it with --output "
                          "FILE.csv instead")
    values = {n: v for n, v in args.parsed().items() if n not in axes and n not in ("stream", "scheduler")}
    task = BlockTask(_ref(cmd), kit, values, tuple(varying(args)), args.format, stream is not None)
    first = plan([len(v) for v in axes.values()], block_rows())[0]
    kit.estimate(cmd, args.replace(**block_options(axes, first)))  # the limit on one task's work
    if stream is None:
        from dpcalc.report.grid import check_grid

        check_grid(axes)
    for spread in (True, False):  # a sweep summed up (a summary) that fits one block runs as one block
        try:
            return (_in_memory(task, args, scheduler, spread) if stream is None
                    else _streamed(task, args, stream, scheduler, spread))
        except _Summed:
            if not spread or args.points() > block_rows():
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _in_memory(task: BlockTask, args: Args, scheduler: str | None, spread: bool) -> Result:
    """``--scheduler`` alone: every block's pieces, merged here into the command's result."""
    from dpcalc._progress import tracker
    from dpcalc.cli.sweep import Failure, merge
    from dpcalc.sim.sweep import run_blocks

    pieces: list[Any] = []
    said: list[str] = []
    with tracker("sweep blocks") as update, closing(run_blocks(
            task, args.axes(), scheduler=scheduler, block_rows=block_rows(), done=update, spread=spread)) as outcomes:
        for outcome in outcomes:  # closed here, not by the garbage collector, if the loop stops early
            block = _unwrap(outcome)
            pieces.extend(block.pieces)
            said.extend(block.warnings)
    _warn(said)
    results = [p for p in pieces if isinstance(p, Result)]
    if not results:
        raise DomainError(next(p.reason for p in pieces if isinstance(p, Failure)))
    _summary_check(any(r.summary for r in results), len(pieces) > 1)
    return merge(pieces, args, list(task.inputs))


def _streamed(task: BlockTask, args: Args, path: Path, scheduler: str | None, spread: bool) -> Result:
    """``--stream``: the blocks' CSV lines written as they complete; a one-row summary (and the failures' note)."""
    import time

    from dpcalc._progress import tracker
    from dpcalc.cli.sweep import not_computable
    from dpcalc.files import open_atomic
    from dpcalc.sim.executor import scheduler_address
    from dpcalc.sim.parallel import default_workers
    from dpcalc.sim.sweep import run_blocks

    start = time.perf_counter()
    writer = _Writer(args.reformat(None), list(task.inputs))
    said: list[str] = []
    summed = blocks = 0
    # written atomically: a sweep that stops leaves no partial file behind and an existing file untouched
    with tracker("sweep blocks") as update, open_atomic(path, args.force, "--stream") as out, closing(run_blocks(
            task, args.axes(), scheduler=scheduler_address(scheduler), workers=default_workers(),
            block_rows=block_rows(), done=update, spread=spread)) as outcomes:
        for outcome in outcomes:
            block = _unwrap(outcome)
            summed, blocks = summed + block.summary, blocks + 1
            _summary_check(bool(summed), blocks > 1)
            out.write(writer.text(block))
            out.flush()
            said.extend(block.warnings)
        if not writer.columns:  # no row of the sweep is computable: the command's error, as without --stream
            raise DomainError(writer.reasons[0])
    _warn(said)
    rows = args.points()
    notes = [not_computable(writer.failed, rows, writer.reasons)] if writer.failed else []
    return stream_summary(rows, path, time.perf_counter() - start, warnings_=notes)


class _Writer:
    """The CSV text of the blocks in row order: the header once (every block must have the same columns); the rows
    of a block with no computable row rendered here, with the columns of the others (held until they are known)."""

    def __init__(self, args: Args, inputs: list[str]) -> None:
        self.args, self.inputs = args, inputs
        self.columns: tuple[Column, ...] = ()
        self.held: list[Any] = []
        self.failed = 0
        self.reasons: list[str] = []

    def text(self, outcome: Outcome) -> str:
        self.failed += len(outcome.pieces)
        self.reasons.extend(p.reason for p in outcome.pieces)
        if not outcome.columns:
            if not self.columns:
                self.held.extend(outcome.pieces)
                return ""
            return self._failed_rows(outcome.pieces)
        if not self.columns:
            self.columns = outcome.columns
            head = _header(self.columns) + (self._failed_rows(self.held) if self.held else "")
            self.held = []
            return head + outcome.text
        if [c.key for c in outcome.columns] != [c.key for c in self.columns]:
            raise DomainError(f"a block of the sweep has the columns {','.join(c.key for c in outcome.columns)}, an "
                              f"earlier one {','.join(c.key for c in self.columns)}: they cannot share one CSV file")
        return outcome.text

    def _failed_rows(self, failures: list[Any]) -> str:
        from dpcalc.cli.sweep import merge
        from dpcalc.report.formats import iter_csv

        chunks = iter_csv(merge([Result(list(self.columns), []), *failures], self.args, self.inputs))
        next(chunks)
        return "".join(chunks)


def _header(columns: tuple[Column, ...]) -> str:
    from dpcalc.report.formats import iter_csv

    return next(iter_csv(Result(list(columns), [])))


def _unwrap(outcome: Outcome | Refused) -> Outcome:
    """The outcome of a block; a refused block stops the sweep with the command's one-line error."""
    if isinstance(outcome, Refused):
        raise DomainError(outcome.message)
    return outcome


def _warn(messages: list[str]) -> None:
    """Raise the blocks' warnings here, in order; those that differ only in their numbers (the same warning about
    another block's values) once, saying how many more there were."""
    import re

    shapes: dict[str, list[str]] = {}
    for m in dict.fromkeys(messages):
        shapes.setdefault(re.sub(r"[-+]?\d[\d.]*(?:e[-+]?\d+)?", "#", m), []).append(m)
    for first, *more in shapes.values():
        tail = f" (and {len(more)} more like it for other values of the sweep)" if more else ""
        warnings.warn(first + tail, UserWarning, stacklevel=2)


def stream_summary(rows: int, path: Path, seconds: float, title: str = "", warnings_: list[str] | None = None
                   ) -> Result:
    """The result of a streamed sweep: one row saying how many rows went to which file, in how many seconds."""
    return Result(columns=[Column("rows"), Column("path"), Column("seconds")],
                  rows=[{"rows": rows, "path": str(path), "seconds": round(seconds, 3)}], title=title,
                  warnings=list(warnings_ or []))
