"""A result's cells column by column and chunk by chunk, in one format (`Cells`); the rows joined in one
``str.join`` (`join_rows`); cell widths on a terminal. Shared by the table (`dpcalc.report.render`) and
the other formats (`dpcalc.report.formats`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.report import cells
from dpcalc.report._text import display_width, join_rows, noop, pad, widest
from dpcalc.report.cells import Kind

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from dpcalc.report.result import Column, Result

__all__ = ["CHUNK", "Cells", "chunks", "table_body"]

CHUNK = 65_536  # rows formatted at a time: output streams, memory stays ~ tens of MB beyond the columns


class Cells:
    """The cells of one column in one format (`Kind`), chunk by chunk.

    A sweep input broadcast over the grid (`distinct`) is formatted once per
    distinct value and repeated by NumPy, a constant column (`constants`) once;
    other columns are formatted a chunk at a time.
    """

    def __init__(self, result: Result, column: Column, kind: Kind) -> None:
        from dpcalc.report.grid import Rows

        self.rows, self.column, self.kind = result.rows, column, kind
        self.grid = result.rows if isinstance(result.rows, Rows) else None
        self.distinct: tuple[NDArray[np.float64], tuple[int, ...]] | None = None
        self._flat: NDArray[np.object_] | None = None
        self._distinct_cells: list[str] = []
        self._fixed: tuple[list[Any], bool] | None = None  # a constant column's one cell, and whether plain
        # CSV of a sweep: every cell is final text (no csv module); an empty one-field row is written ""
        self._empty = "" if len(result.columns) > 1 else '""'
        if self.grid is not None and column.key in self.grid.constants:
            value = self.grid.constants[column.key]
            if kind == "csv":  # quoted here, once, if it must be
                from dpcalc.report._exact import csv_cell

                text = self._empty if value is None or value == "" else csv_cell(value, column.integer)
                self._fixed = [text], True
            else:
                plain = cells.is_plain([value])
                self._fixed = self._format([value], plain), plain
        elif self.grid is not None and column.key not in self.grid.missing:
            self.distinct = self.grid.distinct(column.key)

    def _format(self, values: Any, plain: bool) -> list[Any]:
        c = self.column
        if plain:
            return cells.float_cells(np.asarray(values, dtype=np.float64).ravel(), self.kind, c.integer, c.number)
        if self.kind == "csv":
            from dpcalc.report._exact import csv_value

            return [csv_value(x, c.integer) for x in values]  # the csv module quotes them
        return cells.cells_of(values, self.kind, c.integer, c.number)

    def _values(self, start: int, stop: int) -> list[Any]:
        block, key = self.rows[start:stop], self.column.key
        try:
            return list(map(dict.get, block, repeat(key)))
        except TypeError:  # rows that are mappings but not dicts
            return [r.get(key) for r in block]

    def _with_missing(self, a: NDArray[np.float64]) -> list[Any]:
        """Cells of a column whose NaN means "no value" (`missing`)."""
        gone = np.isnan(a)
        out = np.empty(a.size, dtype=object)
        out[gone] = self._empty if self.kind == "csv" else self._format([None], False)[0]
        out[~gone] = np.array(self._format(a[~gone], True), dtype=object)
        return out.tolist()

    def pad(self, width: int) -> None:
        """From now on, give a broadcast or constant column's cells padded to ``width`` (padded once)."""
        if self._fixed is not None:
            self._fixed = pad(self._fixed[0], width, self.column.text, self._fixed[1]), self._fixed[1]
        elif self.distinct is not None:
            self.chunk(0, 0)
            self._spread(pad(self._distinct_cells, width, self.column.text, True))

    def _spread(self, texts: list[str]) -> None:
        base, shape = self.distinct  # type: ignore[misc]
        table = np.array(texts, dtype=object).reshape(base.shape)
        self._flat = np.broadcast_to(table, shape).reshape(-1)

    def chunk(self, start: int, stop: int) -> tuple[list[Any], bool]:
        """(cells of rows ``start:stop``, whether they are all plain-float cells: ASCII, nothing to quote)."""
        if self._fixed is not None:
            return self._fixed[0] * (stop - start), self._fixed[1]
        if self.distinct is not None:
            if self._flat is None:
                self._distinct_cells = self._format(self.distinct[0].ravel(), True)
                self._spread(self._distinct_cells)
            return self._flat[start:stop].tolist(), True  # type: ignore[index]
        if self.grid is None:
            values = self._values(start, stop)
            plain = cells.is_plain(values)
            return self._format(values, plain), plain
        if self.column.key in self.grid.texts:  # strings: the csv module quotes them if it must
            texts = self.grid.texts[self.column.key][start:stop]
            return (texts if self.kind == "csv" else self._format(texts, False)), False
        a = self.grid.array(self.column.key, start, stop)
        csv_ = self.kind == "csv"
        if isinstance(a, list):  # the key is absent: no value in any row
            return ([self._empty] * len(a), True) if csv_ else (self._format(a, False), False)
        if self.column.key in self.grid.missing and np.isnan(a).any():
            return self._with_missing(a), csv_
        return self._format(a, True), True

    def widest(self) -> int | None:
        """The widest cell of a broadcast or constant column (its distinct values), None for other columns."""
        if self._fixed is not None:
            return widest(*self._fixed)
        if self.distinct is None:
            return None
        if self._flat is None:
            self.chunk(0, 0)
        return max(map(len, self._distinct_cells), default=0)


def chunks(result: Result, kind: Kind, advance: Callable[..., None] = noop
            ) -> Iterator[tuple[int, list[list[Any]], list[bool]]]:
    """(first row, cells column by column, plain flags) for every chunk of rows."""
    sources = [Cells(result, c, kind) for c in result.columns]
    n = len(result.rows)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        parts = [s.chunk(start, stop) for s in sources]
        yield start, [p[0] for p in parts], [p[1] for p in parts]
        advance(stop - start)


TABLE_KEEP = 64 * 1024**2  # characters of number cells kept between the table's two passes (else formatted again)


def table_body(result: Result, head: list[str], advance: Callable[..., None] = noop
               ) -> tuple[list[int], Iterator[str]]:
    """The box table's column widths and its body lines in chunks, for a result of any size.

    Two passes over the rows (widths, then lines), so a million rows stream in bounded memory; the widths of a
    broadcast sweep input come from its distinct values alone. ``advance(rows)`` after each chunk of each pass.
    """
    widths = [display_width(h) for h in head]
    sources = [Cells(result, c, "text") for c in result.columns]
    known = [s.widest() for s in sources]
    widths = [max(w, k) if k is not None else w for w, k in zip(widths, known, strict=True)]
    rest = [i for i, k in enumerate(known) if k is None]
    n = len(result.rows)
    kept: dict[tuple[int, int], str] = {}  # number cells of the first pass, joined, while within TABLE_KEEP
    room = TABLE_KEEP
    if rest:
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            for i in rest:
                texts, plain = sources[i].chunk(start, stop)
                widths[i] = max(widths[i], widest(texts, plain))
                if plain and room > 0:
                    kept[start, i] = "\n".join(texts)
                    room -= len(kept[start, i])
            advance(stop - start)
    else:
        advance(n)
    for s, w in zip(sources, widths, strict=True):
        s.pad(w)

    def lines() -> Iterator[str]:
        lits = ["│ ", *[" │ "] * (len(result.columns) - 1), " │\n"]
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            padded = []
            for i, (s, w, c) in enumerate(zip(sources, widths, result.columns, strict=True)):
                if s.distinct is not None:
                    padded.append(s.chunk(start, stop)[0])
                    continue
                joined = kept.pop((start, i), None)
                texts, plain = (joined.split("\n"), True) if joined is not None else s.chunk(start, stop)
                padded.append(pad(texts, w, c.text, plain))
            yield join_rows(padded, lits)
            advance(stop - start)

    return widths, lines()
