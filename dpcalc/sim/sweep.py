"""Sweeps too large for memory: a product grid evaluated in blocks (locally or on a cluster), written as it completes.

A sweep is an ordered mapping ``{name: values}``; its rows are the points of the product grid in
``itertools.product`` order (first name slowest), as everywhere in dpcalc. `plan` cuts the rows into
contiguous blocks that are themselves product grids — one value of each of the first few names, a slice of the
next, every value of the rest — so a block is evaluated by the same vectorised code as a whole grid, on a smaller
grid. ``evaluate(options) -> {column: values}`` gets a block's options (same names, fewer values) and returns its
columns over the block's rows.

`write_csv` sends the blocks to an executor (`dpcalc.sim.executor`: this process, a local pool or a
Dask cluster); each task formats its block as CSV text itself (shortest round-trip ``repr`` of every float, so the
file holds the exact doubles) and the blocks are appended in row order as they arrive. Memory per task: one block,
about ``rows × columns × 8`` bytes times the evaluator's temporaries, plus its text (≈ 20 bytes a value); with
`BLOCK_ROWS` rows that is a few tens of MB. This process holds at most the executor's window of blocks.
`run_blocks` gives any block task's results in row order (`dpcalc.cli.blocks` writes a command's rows with it).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from dpcalc.errors import DomainError
from dpcalc.sim.executor import Done, SchedulerLike, open_executor

__all__ = ["BLOCK_ROWS", "MAX_SWEEP_ROWS", "Block", "Evaluate", "block_options", "csv_text", "plan", "run_blocks",
           "write_csv"]

BLOCK_ROWS = 1 << 18
"""Rows per block (at most; a block is a product sub-grid): 262,144."""
MAX_SWEEP_ROWS = 10**10
"""Most rows of a sweep written in blocks (about 200 GB of CSV)."""
Evaluate = Callable[[Mapping[str, list[float]]], Mapping[str, Any]]
Block = tuple[tuple[int, ...], int, int]
"""(indices of the leading names, start and stop on the next name)."""


def plan(sizes: Sequence[int], block_rows: int = BLOCK_ROWS) -> list[Block]:
    """The blocks of a product grid with axes of ``sizes`` values, in row order, each at most ``block_rows`` rows
    (unless one value of every leading name already exceeds it — never, as block_rows >= 1)."""
    sizes = [int(s) for s in sizes]
    if not sizes or min(sizes) < 1:
        raise DomainError(f"a sweep needs at least one value per option (got sizes {sizes})")
    rows = math.prod(sizes)
    if rows > MAX_SWEEP_ROWS:
        raise DomainError(f"the sweep has {rows:.4g} rows (at most {MAX_SWEEP_ROWS:.0e} in blocks)")
    block_rows = max(1, int(block_rows))
    inner = [math.prod(sizes[k + 1:]) for k in range(len(sizes))]
    k = next(i for i, n in enumerate(inner) if n <= block_rows)  # the name that is sliced
    step = max(1, block_rows // inner[k])
    return [(prefix, lo, min(lo + step, sizes[k]))
            for prefix in itertools.product(*(range(s) for s in sizes[:k]))
            for lo in range(0, sizes[k], step)]


def block_options(options: Mapping[str, Sequence[float]], block: Block) -> dict[str, list[float]]:
    """The options of one block: one value of each leading name, a slice of the next, all values of the rest."""
    prefix, lo, hi = block
    out: dict[str, list[float]] = {}
    for i, (name, values) in enumerate(options.items()):
        values = list(values)
        out[name] = [values[prefix[i]]] if i < len(prefix) else values[lo:hi] if i == len(prefix) else values
    return out


def csv_text(columns: Mapping[str, Any], rows: int) -> str:
    """CSV lines (no header) of the columns, each broadcast to ``rows`` values; floats as their shortest exact repr."""
    cells = []
    for values in columns.values():
        a = np.broadcast_to(np.asarray(values), (rows,))
        cells.append([repr(x) if isinstance(x, float) else str(x) for x in a.tolist()])
    return "".join(",".join(row) + "\n" for row in zip(*cells, strict=True))


@dataclasses.dataclass(frozen=True)
class _AsCsv:
    """A block's columns as (header, CSV lines) (`csv_text`), for an `Evaluate` (picklable if it is)."""

    evaluate: Evaluate

    def __call__(self, options: Mapping[str, list[float]]) -> tuple[list[str], str]:
        columns = self.evaluate(options)
        return list(columns), csv_text(columns, math.prod(len(v) for v in options.values()))


def write_csv(evaluate: Evaluate, options: Mapping[str, Sequence[float]], path: str | Path, *,
              scheduler: SchedulerLike = None, workers: int = 1, block_rows: int = BLOCK_ROWS,
              done: Done | None = None, force: bool = False, option: str = "--stream") -> int:
    """Evaluate the sweep over ``options`` block by block and write it to ``path`` (CSV, header = the evaluator's
    column names) as the blocks complete, in row order; return the number of rows. ``evaluate`` must be picklable
    for a pool or a cluster (a module-level function or an instance of a module-level class). The file is written
    atomically (`dpcalc.files.open_atomic`): an existing file only with ``force``, nothing left behind on failure."""
    from dpcalc.files import open_atomic

    with open_atomic(path, force, option) as out, closing(run_blocks(
            _AsCsv(evaluate), options, scheduler=scheduler, workers=workers, block_rows=block_rows,
            done=done)) as blocks:
        for i, (header, text) in enumerate(blocks):
            if i == 0:
                out.write(",".join(header) + "\n")
            out.write(text)
            out.flush()
    return math.prod(len(v) for v in options.values())


def run_blocks(task: Callable[[dict[str, list[float]]], Any], options: Mapping[str, Sequence[float]], *,
               scheduler: SchedulerLike = None, workers: int = 1, block_rows: int = BLOCK_ROWS,
               done: Done | None = None, spread: bool = True) -> Generator[Any, None, None]:
    """``task(block options)`` for every block of the sweep over ``options``, in row order, as the executor (of
    ``scheduler``, else ``workers`` local processes) completes them; the blocks' options are made as the window
    moves. Callers that write what they get (`write_csv`, `dpcalc.cli.blocks`) hold one window of blocks.
    With ``spread``, on several workers a block has at most ``rows / (4 × workers)`` rows, so that every worker gets
    blocks to run."""
    sizes = [len(v) for v in options.values()]
    plan(sizes, MAX_SWEEP_ROWS)  # the row caps, checked before any work
    rows = math.prod(sizes)
    with open_executor(scheduler, workers=min(workers, rows)) as ex:
        if spread and ex.workers > 1:
            block_rows = min(block_rows, -(-rows // (4 * ex.workers)))
        blocks = plan(sizes, block_rows)
        yield from ex.imap(task, (block_options(options, b) for b in blocks), done=done, total=len(blocks))
