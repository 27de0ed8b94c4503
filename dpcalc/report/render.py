"""Rendering of a command's result: the table here; JSON, CSV, Markdown, LaTeX and the terminal-fitted (rich)
table in :mod:`dpcalc.report.formats`, imported only for those formats; to stdout or a file.

JSON shape (stable, for programs): ``{"rows": [{input: value, …, output: value}], "warnings": […],
"meta": {"formula": id, "units": {column: unit, …}, "dpcalc_version": …, …}}``; a command may add ``"summary"``.
``meta.units`` is always a dict: the units of the columns (from the catalog, see :mod:`dpcalc.report.columns`)
updated by :attr:`Result.units`.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from dpcalc.errors import DomainError
from dpcalc.report import cells
from dpcalc.report.cells import Kind

__all__ = ["Column", "Format", "Result", "emit", "render"]


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    latex = "latex"


class Column(NamedTuple):
    """One output column: ``key`` in JSON/CSV, ``label`` (with unit) in tables, ``latex`` in LaTeX.

    ``unit`` goes to ``meta.units`` (JSON); build columns of catalog quantities with
    :func:`dpcalc.report.columns.column` / :func:`~dpcalc.report.columns.columns_for` rather than by hand.
    (A named tuple rather than a dataclass: defining one costs microseconds at start-up, a dataclass ~1.5 ms.)
    """

    key: str
    label: str = ""
    latex: str = ""
    integer: bool = False
    text: bool = False  # left-aligned (ids, names); numbers are right-aligned
    number: str = ""  # format spec of the shown number (e.g. ".4g", ".3e"); default ".10g"; JSON/CSV keep all digits
    unit: str = ""

    @property
    def header(self) -> str:
        return self.label or self.key


class Result:
    """What a command computed, before rendering (a plain class: cheap to define at start-up)."""

    __slots__ = ("columns", "exit_code", "formula", "latex_float", "meta", "note", "rows", "summary", "title",
                 "units", "warnings")

    def __init__(self, columns: list[Column], rows: Sequence[dict[str, Any]], title: str = "", note: str = "",
                 formula: str | list[str] = "", units: dict[str, str] | None = None, warnings: list[str] | None = None,
                 meta: dict[str, Any] | None = None, summary: dict[str, Any] | None = None, exit_code: int = 0,
                 latex_float: bool = False) -> None:
        self.columns = columns
        self.rows = rows  # a list of dicts, or column-stored grid.Rows (a sweep)
        self.title, self.note, self.formula = title, note, formula
        self.units: dict[str, str] = {} if units is None else units  # overrides/additions to the columns' units
        self.warnings: list[str] = [] if warnings is None else warnings
        self.meta: dict[str, Any] = {} if meta is None else meta
        self.summary = summary
        self.exit_code = exit_code  # the process exit code after rendering (e.g. 1 when a verification failed)
        self.latex_float = latex_float  # LaTeX: a ``table`` float with \caption, \label (meta["label"]) and the note

    def replace(self, **changes: Any) -> Result:
        """A copy with ``changes`` (as :func:`dataclasses.replace`)."""
        return Result(**{**{k: getattr(self, k) for k in self.__slots__}, **changes})

    def __repr__(self) -> str:
        return (f"Result(title={self.title!r}, columns={[c.key for c in self.columns]}, rows={len(self.rows)}, "
                f"formula={self.formula!r}, warnings={len(self.warnings)})")


_clean = cells.clean
_fmt = cells.text_cell


_CHUNK = 65_536  # rows formatted at a time: output streams, memory stays ~ tens of MB beyond the columns


_TABLE_KEEP = 64 * 1024**2  # characters of number cells kept between the table's two passes (else formatted again)


def _noop(steps: int = 1, description: str = "") -> None:
    return None


class _Cells:
    """The cells of one column in one format (:class:`~dpcalc.report.cells.Kind`), chunk by chunk.

    A sweep input broadcast over the grid (:meth:`~dpcalc.report.grid.Rows.distinct`) is formatted once per
    distinct value and repeated by NumPy, a constant column (:attr:`~dpcalc.report.grid.Rows.constants`) once;
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
                from dpcalc.report.formats import csv_cell

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
            from dpcalc.report.formats import csv_value

            return [csv_value(x, c.integer) for x in values]  # the csv module quotes them
        return cells.cells_of(values, self.kind, c.integer, c.number)

    def _values(self, start: int, stop: int) -> list[Any]:
        block, key = self.rows[start:stop], self.column.key
        try:
            return list(map(dict.get, block, repeat(key)))
        except TypeError:  # rows that are mappings but not dicts
            return [r.get(key) for r in block]

    def _with_missing(self, a: NDArray[np.float64]) -> list[Any]:
        """Cells of a column whose NaN means "no value" (:attr:`~dpcalc.report.grid.Rows.missing`)."""
        gone = np.isnan(a)
        out = np.empty(a.size, dtype=object)
        out[gone] = self._empty if self.kind == "csv" else self._format([None], False)[0]
        out[~gone] = np.array(self._format(a[~gone], True), dtype=object)
        return out.tolist()

    def pad(self, width: int) -> None:
        """From now on, give a broadcast or constant column's cells padded to ``width`` (padded once)."""
        if self._fixed is not None:
            self._fixed = _pad(self._fixed[0], width, self.column.text, self._fixed[1]), self._fixed[1]
        elif self.distinct is not None:
            self.chunk(0, 0)
            self._spread(_pad(self._distinct_cells, width, self.column.text, True))

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
            return _widest(*self._fixed)
        if self.distinct is None:
            return None
        if self._flat is None:
            self.chunk(0, 0)
        return max(map(len, self._distinct_cells), default=0)


def _join_rows(columns: Sequence[list[str]], lits: Sequence[str], between: str = "") -> str:
    """Rows ``lits[0] + c0 + lits[1] + … + c[k-1] + lits[k]`` joined by ``between``, in one ``str.join``.

    No per-row Python work: the cells and separators are laid out in one list by slice assignment.
    """
    k = len(columns)
    n = len(columns[0]) if k else 0
    if not n:
        return ""
    parts: list[str] = [""] * (2 * k * n)
    for i, col in enumerate(columns):
        parts[2 * i::2 * k] = col
        if i < k - 1:
            parts[2 * i + 1::2 * k] = [lits[i + 1]] * n
    parts[2 * k - 1::2 * k] = [lits[k] + between + lits[0]] * n
    parts[-1] = lits[k]
    return lits[0] + "".join(parts)


def _text_width(text: str) -> int:
    """Terminal cells taken by ``text``: combining marks take none, East-Asian wide characters two."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _width(text: str) -> int:
    return len(text) if text.isascii() else _text_width(text)


def _widest(texts: list[str], plain: bool) -> int:
    """The widest of a column's cells (number cells are ASCII: their length)."""
    return max(map(len, texts) if plain else map(_width, texts), default=0)


def _pad(texts: list[str], width: int, left: bool, plain: bool) -> list[str]:
    """Cells padded to ``width`` terminal cells: text left-aligned, numbers right-aligned."""
    if plain:
        return list(map(str.ljust if left else str.rjust, texts, repeat(width)))
    gaps = [" " * (width - _width(x)) for x in texts]
    return [x + g for x, g in zip(texts, gaps, strict=True)] if left else list(map(str.__add__, gaps, texts))


def iter_plain_table(result: Result, styled: bool = False, advance: Callable[..., None] = _noop) -> Iterator[str]:
    """The table in rich's default heavy-head box style, without rich's ~45 ms import, in chunks.

    Plain for pipes, files and tests; ``styled`` adds rich's italic title and bold headers (ANSI) for a terminal.
    Two passes over the rows (widths, then lines), so a million rows stream in bounded memory; the widths of a
    broadcast sweep input come from its distinct values alone.
    """
    head = [c.header for c in result.columns]
    widths = [_width(h) for h in head]
    sources = [_Cells(result, c, "text") for c in result.columns]
    known = [s.widest() for s in sources]
    widths = [max(w, k) if k is not None else w for w, k in zip(widths, known, strict=True)]
    rest = [i for i, k in enumerate(known) if k is None]
    n = len(result.rows)
    kept: dict[tuple[int, int], str] = {}  # number cells of the first pass, joined, while within _TABLE_KEEP
    room = _TABLE_KEEP
    if rest:
        for start in range(0, n, _CHUNK):
            stop = min(start + _CHUNK, n)
            for i in rest:
                texts, plain = sources[i].chunk(start, stop)
                widths[i] = max(widths[i], _widest(texts, plain))
                if plain and room > 0:
                    kept[start, i] = "\n".join(texts)
                    room -= len(kept[start, i])
            advance(stop - start)
    else:
        advance(n)
    for s, w in zip(sources, widths, strict=True):
        s.pad(w)

    bold, italic, reset = ("\x1b[1m", "\x1b[3m", "\x1b[0m") if styled else ("", "", "")

    def line(cells_: tuple[str, ...] | list[str], bar: str, style: str = "") -> str:
        padded = []
        for x, w, c in zip(cells_, widths, result.columns, strict=True):
            gap, text = " " * (w - _width(x)), f"{style}{x}{reset if style else ''}"
            padded.append(f" {text}{gap} " if c.text else f" {gap}{text} ")
        return bar + bar.join(padded) + bar

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    top = [f"{italic}{result.title}{reset}"] if result.title else []
    top += [rule("┏", "━", "┳", "┓"), line(head, "┃", bold), rule("┡", "━", "╇", "┩")]
    yield "\n".join(top) + "\n"
    lits = ["│ ", *[" │ "] * (len(result.columns) - 1), " │\n"]
    for start in range(0, n, _CHUNK):
        stop = min(start + _CHUNK, n)
        padded = []
        for i, (s, w, c) in enumerate(zip(sources, widths, result.columns, strict=True)):
            if s.distinct is not None:
                padded.append(s.chunk(start, stop)[0])
                continue
            joined = kept.pop((start, i), None)
            texts, plain = (joined.split("\n"), True) if joined is not None else s.chunk(start, stop)
            padded.append(_pad(texts, w, c.text, plain))
        yield _join_rows(padded, lits)
        advance(stop - start)
    out = [rule("└", "─", "┴", "┘")]
    out += [f"{k}: {_fmt(v)}" for k, v in (result.summary or {}).items()]
    if result.note:
        out.append(result.note)
    yield "\n".join(out) + "\n"


def _plain_table(result: Result, styled: bool = False) -> str:
    return "".join(iter_plain_table(result, styled))


_RICH_MAX_ROWS = 2_000  # rich lays out the whole table in memory: only for tables a terminal can show


def _isatty(file: Any) -> bool:
    isatty = getattr(file, "isatty", None)
    return bool(isatty is not None and isatty())


def _table(result: Result, file: Any, advance: Callable[..., None] = _noop) -> None:
    """Plain when not a terminal; on a terminal our styled box if it fits the width, else rich (which fits it)."""
    if not _isatty(file):
        file.writelines(iter_plain_table(result, advance=advance))
        return
    import shutil

    styled = "NO_COLOR" not in os.environ
    if len(result.rows) > _RICH_MAX_ROWS:
        file.writelines(iter_plain_table(result, styled=styled))
        return
    text = _plain_table(result, styled=styled)
    plain_width = max(_text_width(x) for x in _plain_table(result).splitlines()[:4])
    if plain_width <= shutil.get_terminal_size().columns:
        file.write(text)
    else:
        from dpcalc.report.formats import rich_table

        rich_table(result, file)


def iter_render(result: Result, fmt: Format, advance: Callable[..., None] = _noop) -> Iterator[str]:
    """Render in chunks (streamed to stdout or the --output file); the table without colour.

    ``advance(rows)`` is called after each chunk of rows (twice per row for the table: widths, then lines).
    """
    if fmt is Format.table:
        return iter_plain_table(result, advance=advance)
    from dpcalc.report import formats

    return formats.WRITERS[fmt.value](result, advance)


def render(result: Result, fmt: Format) -> str:
    """Render to text in any format (the table is rendered without colour)."""
    return "".join(iter_render(result, fmt))


def _is_nonfinite(value: Any) -> bool:
    return isinstance(value, float | np.floating) and not math.isfinite(float(value))


def check_finite(result: Result) -> None:
    """Never a silent NaN/inf: a NaN cell, or an infinite one without a warning or note stating why, is an error.

    The one-line message names the column and the row's other numeric values (the inputs that led there).
    """
    from dpcalc.report.grid import Rows

    rows: Sequence[dict[str, Any]] = result.rows
    if isinstance(rows, Rows):  # column-wise: one vectorised test per column, then only the first bad row
        arrays = [np.nan_to_num(a, nan=0.0, posinf=np.inf, neginf=-np.inf) if k in rows.missing else a
                  for k, a in rows.data.items()]  # a missing key's NaN is "no value", not a failure
        if all(np.isfinite(a).all() for a in arrays):
            return
    # a stated reason: a warning (NumPy's "overflow encountered in …" states none), or a note that explains the inf
    reasons = [w for w in result.warnings if " encountered in " not in w]
    if re.search(r"(?<![A-Za-z])inf(?![A-Za-z])|∞|infinite", result.note):
        reasons.append(result.note)
    if isinstance(rows, Rows):
        bad = [int(np.flatnonzero(np.isnan(a) if reasons else ~np.isfinite(a))[0]) for a in arrays
               if not (np.isfinite(a).all() or (reasons and not np.isnan(a).any()))]
        rows = [rows[min(bad)]] if bad else []
    for row in rows:
        for c in result.columns:
            value: Any = row.get(c.key)
            if not _is_nonfinite(value) or (not math.isnan(float(value)) and reasons):
                continue
            at = ", ".join(f"{k.key}={_fmt(row.get(k.key), k.integer)}" for k in result.columns
                           if k.key != c.key and isinstance(row.get(k.key), float | int | np.number)
                           and not _is_nonfinite(row.get(k.key)))
            what = "not a number" if math.isnan(float(value)) else "infinite (overflow)"
            raise DomainError(f"{c.key} is {what} at {at or 'these inputs'}: the inputs are outside the range "
                              "where it is representable")


PROGRESS_ROWS = 100_000  # a sweep this large shows progress while it is written (on a terminal)


def _progress_total(result: Result, fmt: Format, output: Path | None) -> int:
    """Progress steps for writing ``result`` (0: none): a large sweep written to a file or a pipe, in any format
    but JSON (for programs); never while the rows themselves go to the terminal."""
    n = len(result.rows)
    if n < PROGRESS_ROWS or fmt is Format.json or (output is None and _isatty(sys.stdout)):
        return 0
    return 2 * n if fmt is Format.table else n


def _write(result: Result, fmt: Format, output: Path | None, force: bool, advance: Callable[..., None]) -> None:
    if output is not None:
        from dpcalc.files import write_atomic

        write_atomic(output, iter_render(result, fmt, advance), force)
    elif fmt is Format.table:
        _table(result, sys.stdout, advance)
    else:
        sys.stdout.writelines(iter_render(result, fmt, advance))


def emit(result: Result, fmt: Format, output: Path | None = None, force: bool = False) -> None:
    """Print (or write) the result; warnings go to stderr for human formats and into JSON otherwise.

    Checked first by :func:`check_finite` (no silent NaN/inf in any format).
    """
    check_finite(result)
    total = _progress_total(result, fmt, output)
    if total:  # a large sweep: the progress bar (imported only then)
        from dpcalc._progress import progress

        with progress(total, f"writing {len(result.rows):,} rows") as advance:
            _write(result, fmt, output, force, advance)
    else:
        _write(result, fmt, output, force, _noop)
    if fmt in (Format.table, Format.markdown, Format.latex, Format.csv) or output is not None:
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
