"""Rendering of a command's result: the table here; JSON, CSV, Markdown, LaTeX and the terminal-fitted (rich)
table in `dpcalc.report.formats`, imported only for those formats; to stdout or a file.

JSON shape (stable, for programs): ``{"rows": [{input: value, …, output: value}], "warnings": […],
"meta": {"formula": id, "units": {column: unit, …}, "dpcalc_version": …, …}}``; a command may add ``"summary"``.
``meta.units`` is always a dict: the units of the columns (from the catalog, see `dpcalc.report.columns`)
updated by `Result.units`.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpcalc.errors import DomainError
from dpcalc.report._text import display_width, join_rows, noop, pad, text_cell
from dpcalc.report.result import Column, Format, Result

__all__ = ["Column", "Format", "Result", "emit", "render"]




_SMALL = 200  # rows a table formats cell by cell (text_cell); larger ones go through report._chunks


def iter_plain_table(result: Result, styled: bool = False, advance: Callable[..., None] = noop) -> Iterator[str]:
    """The table in rich's default heavy-head box style, without rich's ~45 ms import, in chunks.

    Plain for pipes, files and tests; ``styled`` adds rich's italic title and bold headers (ANSI) for a terminal.
    A small result is formatted cell by cell here; a larger one streams through
    `dpcalc.report._chunks.table_body` (the same cells, in bounded memory).
    """
    head = [c.header for c in result.columns]
    if len(result.rows) > _SMALL:
        from dpcalc.report._chunks import table_body

        widths, body = table_body(result, head, advance)
    else:
        cols = [[text_cell(r.get(c.key), c.integer, c.number) for r in result.rows] for c in result.columns]
        widths = [max(map(display_width, [h, *col])) for h, col in zip(head, cols, strict=True)]
        lits = ["│ ", *[" │ "] * (len(result.columns) - 1), " │\n"]
        padded = [pad(col, w, c.text, False) for col, w, c in zip(cols, widths, result.columns, strict=True)]
        body = iter([join_rows(padded, lits)] if result.rows else [])
        advance(2 * len(result.rows))

    bold, italic, reset = ("\x1b[1m", "\x1b[3m", "\x1b[0m") if styled else ("", "", "")

    def line(cells_: tuple[str, ...] | list[str], bar: str, style: str = "") -> str:
        padded = []
        for x, w, c in zip(cells_, widths, result.columns, strict=True):
            gap, text = " " * (w - display_width(x)), f"{style}{x}{reset if style else ''}"
            padded.append(f" {text}{gap} " if c.text else f" {gap}{text} ")
        return bar + bar.join(padded) + bar

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    top = [f"{italic}{result.title}{reset}"] if result.title else []
    top += [rule("┏", "━", "┳", "┓"), line(head, "┃", bold), rule("┡", "━", "╇", "┩")]
    yield "\n".join(top) + "\n"
    yield from body
    out = [rule("└", "─", "┴", "┘")]
    out += [f"{k}: {text_cell(v)}" for k, v in (result.summary or {}).items()]
    if result.note:
        out.append(result.note)
    yield "\n".join(out) + "\n"


def _plain_table(result: Result, styled: bool = False) -> str:
    return "".join(iter_plain_table(result, styled))


_FIT_MAX_ROWS = 2_000  # the fitted table is laid out in memory: only for tables a terminal can show


def _isatty(file: Any) -> bool:
    isatty = getattr(file, "isatty", None)
    return bool(isatty is not None and isatty())


def _table(result: Result, file: Any, advance: Callable[..., None] = noop) -> None:
    """Plain when not a terminal; on a terminal fitted to its width, every value whole (`dpcalc.report.fit`)."""
    if not _isatty(file):
        file.writelines(iter_plain_table(result, advance=advance))
        return
    styled = "NO_COLOR" not in os.environ
    if len(result.rows) > _FIT_MAX_ROWS:
        file.writelines(iter_plain_table(result, styled=styled))
        return
    from dpcalc.report.fit import fit_table

    file.write(fit_table(result, terminal_width(), styled=styled))


def terminal_width() -> int:
    """The terminal's width in cells: ``$COLUMNS``, else the terminal's own size, else 80."""
    import shutil

    return shutil.get_terminal_size().columns


def with_digits(result: Result, digits: int) -> Result:
    """``result`` with ``digits`` significant digits in every number column (``--digits``): a column's own
    notation is kept (``.4g`` → ``.{digits}g``, ``.3e`` → ``.{digits - 1}e``); fixed decimals (``.2f``) stay."""
    from dpcalc.report._text import number_with_digits

    columns = [c._replace(number=number_with_digits(c.number, digits)) for c in result.columns]
    parts = result.meta.get("parts")
    meta = {**result.meta, "parts": [with_digits(p, digits) for p in parts]} if parts else result.meta
    return result.replace(columns=columns, meta=meta)


def iter_render(result: Result, fmt: Format, advance: Callable[..., None] = noop) -> Iterator[str]:
    """Render in chunks (streamed to stdout or the --output file); the table without colour.

    ``advance(rows)`` is called after each chunk of rows (twice per row for the table: widths, then lines).
    """
    if result.meta.get("parts"):  # several results, one after another (dpcalc table a.toml b.toml)
        return _iter_parts(result.meta["parts"], fmt, advance)
    if fmt is Format.table:
        return iter_plain_table(result, advance=advance)
    from dpcalc.report import formats

    return formats.WRITERS[fmt.value](result, advance)


def _iter_parts(parts: Sequence[Result], fmt: Format, advance: Callable[..., None]) -> Iterator[str]:
    """Each part rendered in turn, a blank line between; JSON: one document ``{"tables": [each part's document],
    "warnings": […], "meta": {"formula": [every part's ids], "units": {}}}``."""
    texts = ["".join(iter_render(part, fmt, advance)).rstrip("\n") for part in parts]
    if fmt is not Format.json:
        yield "\n\n".join(texts) + "\n"
        return
    import json

    docs = [json.loads(t) for t in texts]
    formulas = [f for d in docs for f in ([d["meta"].get("formula")] if isinstance(d["meta"].get("formula"), str)
                                          else d["meta"].get("formula") or [])]
    warnings = list(dict.fromkeys(w for d in docs for w in d.get("warnings", [])))
    yield json.dumps({"tables": docs, "warnings": warnings, "meta": {"formula": formulas, "units": {}}},
                     indent=2, ensure_ascii=False) + "\n"


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
            at = ", ".join(f"{k.key}={text_cell(row.get(k.key), k.integer)}" for k in result.columns
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
    elif fmt is Format.table and not result.meta.get("parts"):
        _table(result, sys.stdout, advance)
    elif fmt is Format.table and _isatty(sys.stdout):  # several tables (dpcalc table a.toml b.toml), each fitted
        for k, part in enumerate(result.meta["parts"]):
            sys.stdout.write("\n" if k else "")
            _table(part, sys.stdout, advance)
    else:
        sys.stdout.writelines(iter_render(result, fmt, advance))


def emit(result: Result, fmt: Format, output: Path | None = None, force: bool = False) -> None:
    """Print (or write) the result; warnings go to stderr for human formats and into JSON otherwise.

    Checked first by `check_finite` (no silent NaN/inf in any format).
    """
    check_finite(result)
    if fmt in (Format.table, Format.markdown, Format.latex) and any(c.detail for c in result.columns):
        result = result.replace(columns=[c for c in result.columns if not c.detail])  # for people: no detail columns
    total = _progress_total(result, fmt, output)
    if total:  # a large sweep: the progress bar (imported only then)
        from dpcalc._progress import progress

        with progress(total, f"writing {len(result.rows):,} rows") as advance:
            _write(result, fmt, output, force, advance)
    else:
        _write(result, fmt, output, force, noop)
    if fmt in (Format.table, Format.markdown, Format.latex, Format.csv) or output is not None:
        print_warnings(result.warnings)


def print_warnings(messages: Sequence[str]) -> None:
    """``warning: …`` on stderr, one line each; on a terminal wrapped between words to its width."""
    if messages and _isatty(sys.stderr):
        from dpcalc.report.fit import wrapped_warnings

        lines = wrapped_warnings(messages, terminal_width())
    else:
        lines = [f"warning: {w}" for w in messages]
    for line in lines:
        print(line, file=sys.stderr)
