"""Rendering of a command's result: rich table, JSON, CSV, Markdown or LaTeX, to stdout or a file.

JSON shape (stable, for programs): ``{"rows": [{input: value, …, output: value}], "warnings": […],
"meta": {"formula": id, "units": {column: unit, …}, "dpcalc_version": …, …}}``; a command may add ``"summary"``.
``meta.units`` is always a dict: the units of the columns (from the catalog, see :mod:`dpcalc.report.columns`)
updated by :attr:`Result.units`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from dpcalc import __version__
from dpcalc.errors import DomainError
from dpcalc.report.files import write_atomic

__all__ = ["Column", "Format", "Result", "emit", "render", "write_atomic"]


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    latex = "latex"


@dataclass(frozen=True)
class Column:
    """One output column: ``key`` in JSON/CSV, ``label`` (with unit) in tables, ``latex`` in LaTeX.

    ``unit`` goes to ``meta.units`` (JSON); build columns of catalog quantities with
    :func:`dpcalc.report.columns.column` / :func:`~dpcalc.report.columns.columns_for` rather than by hand.
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


@dataclass
class Result:
    """What a command computed, before rendering."""

    columns: list[Column]
    rows: Sequence[dict[str, Any]]  # a list of dicts, or column-stored grid.Rows (a sweep)
    title: str = ""
    note: str = ""
    formula: str | list[str] = ""
    units: dict[str, str] = field(default_factory=dict)  # overrides/additions to the columns' units
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] | None = None
    exit_code: int = 0  # the process exit code after rendering (e.g. 1 when a verification failed)


def _clean(value: Any, integer: bool = False) -> Any:
    if isinstance(value, float) and integer and value.is_integer():
        return int(value)
    if hasattr(value, "item"):
        return _clean(value.item(), integer)
    return value


def _fmt(value: Any, integer: bool = False, number: str = "") -> str:
    value = _clean(value, integer)
    if value is None:
        return "—"  # not applicable to this row (e.g. no Rényi order for a non-RDP accountant)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return format(value, number or ".10g")
    if number and isinstance(value, int) and not isinstance(value, bool):
        return format(value, number)
    return str(value)


def _latex_num(value: Any, integer: bool = False, number: str = "") -> str:
    s = _fmt(value, integer, number)
    if s == "—":
        return "--"
    if s in ("inf", "-inf"):
        return f"${'-' if s[0] == '-' else ''}\\infty$"
    if s in ("nan", "-nan"):
        return "--"
    if "e" in s:
        mant, exp = s.split("e")
        return f"${mant} \\times 10^{{{int(exp)}}}$"
    return f"${s}$"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma sigma tau "
          "upsilon phi chi psi omega").split()
_LATEX_UNICODE: dict[str, str] = {
    **{chr(0x3B1 + i): f"$\\{name}$" for i, name in enumerate(_GREEK) if name != "omicron"},
    "ο": "o", "ς": r"$\varsigma$", "ϵ": r"$\epsilon$", "ε": r"$\varepsilon$",
    "Γ": r"$\Gamma$", "Δ": r"$\Delta$", "Θ": r"$\Theta$", "Λ": r"$\Lambda$", "Ξ": r"$\Xi$", "Π": r"$\Pi$",
    "Σ": r"$\Sigma$", "Φ": r"$\Phi$", "Ψ": r"$\Psi$", "Ω": r"$\Omega$", "Υ": r"$\Upsilon$",
    **{ch: f"\\textsuperscript{{{d}}}" for d, ch in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")},
    **{ch: f"\\textsubscript{{{d}}}" for d, ch in enumerate("₀₁₂₃₄₅₆₇₈₉")},
    "⁻": r"\textsuperscript{-}", "ᵀ": r"\textsuperscript{T}", "*": "*",
    "√": r"$\surd$", "‖": r"$\|$", "≤": r"$\leq$", "≥": r"$\geq$", "×": r"$\times$", "·": r"$\cdot$",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "→": r"$\to$", "←": r"$\leftarrow$", "∞": r"$\infty$",
    "∑": r"$\sum$", "≈": r"$\approx$", "±": r"$\pm$", "≠": r"$\neq$", "∈": r"$\in$", "′": "'", "°": r"$^\circ$",
    "‰": r"\textperthousand{}", "µ": r"$\mu$", "ℓ": r"$\ell$", "∂": r"$\partial$", "∇": r"$\nabla$",
    "⌈": r"$\lceil$", "⌉": r"$\rceil$", "⌊": r"$\lfloor$", "⌋": r"$\rfloor$", "̂": "", "̄": "",
    "̃": "", "̇": "",
}


def latex_text(text: str) -> str:
    """Plain (possibly Unicode) text as LaTeX that compiles with pdflatex: specials escaped, Greek letters,
    super/subscript digits and common symbols converted; anything else reduced to ASCII (accents dropped) or ``?``.
    """
    import unicodedata

    out = []
    for ch in str(text).replace("\r", " ").replace("\n", " "):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch if ch.isprintable() else " ")
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        else:
            ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append("".join(_LATEX_SPECIAL.get(c, c) for c in ascii_ if c.isprintable()) or "?")
    return "".join(out)


def _latex_cell(value: Any, integer: bool = False, number: str = "") -> str:
    """A body cell: numbers in math mode (``$1.5 \\times 10^{-5}$``), text escaped by :func:`latex_text`."""
    v = _clean(value, integer)
    if v is None:
        return "--"
    if isinstance(v, int | float) and not isinstance(v, bool):
        return _latex_num(v, integer, number)
    return latex_text(str(v))


def units_of(result: Result) -> dict[str, str]:
    """``meta.units``: every column's unit, then the result's own entries (always a dict)."""
    if not isinstance(result.units, dict):
        raise TypeError(f"Result.units must be a dict (got {type(result.units).__name__})")
    return {**{c.key: c.unit for c in result.columns if c.unit}, **result.units}


def _json_value(value: Any, integer: bool = False) -> Any:
    """A cell for JSON: a documented ±inf (stated in "warnings") is written as the string "inf"/"-inf"."""
    v = _clean(value, integer)
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


_CHUNK = 20_000  # rows formatted at a time: output streams, memory stays ~ a few MB beyond the columns


def _columns_of(result: Result, start: int, stop: int) -> list[list[Any]]:
    """The cells of rows ``start:stop``, column by column (column slices when the rows are column-stored)."""
    from dpcalc.report.grid import Rows

    rows = result.rows
    if isinstance(rows, Rows):
        return [rows.column(c.key, start, stop) for c in result.columns]
    block = rows[start:stop]
    return [[r.get(c.key) for r in block] for c in result.columns]


def _chunks(result: Result) -> Iterator[tuple[int, list[list[Any]]]]:
    for start in range(0, len(result.rows), _CHUNK):
        yield start, _columns_of(result, start, start + _CHUNK)


def _fmt_column(values: list[Any], integer: bool, number: str = "") -> list[str]:
    """:func:`_fmt` of a whole column (``number``: the column's format spec); plain Python floats take a fast path."""
    if number:
        return [_fmt(x, integer, number) for x in values]
    if values and all(type(x) is float for x in values):
        if integer:
            return [str(int(x)) if x.is_integer() else f"{x:.10g}" for x in values]
        return [f"{x:.10g}" for x in values]
    return [_fmt(x, integer) for x in values]


def _json_cell(value: Any, integer: bool) -> str:
    v = _json_value(value, integer)
    return repr(v) if type(v) is float else json.dumps(v, allow_nan=False)


def _json_column(values: list[Any], integer: bool) -> list[str]:
    if values and all(type(x) is float and math.isfinite(x) for x in values):
        if integer:
            return [str(int(x)) if x.is_integer() else repr(x) for x in values]
        return [repr(x) for x in values]
    return [_json_cell(x, integer) for x in values]


def iter_json(result: Result) -> Iterator[str]:
    """The JSON document in chunks, laid out exactly as ``json.dumps(doc, indent=2)``."""
    meta = {"formula": result.formula, "units": units_of(result), "dpcalc_version": __version__, **result.meta}
    tail: dict[str, Any] = {"warnings": result.warnings, "meta": meta}
    if result.summary is not None:
        tail["summary"] = {k: _json_value(v) for k, v in result.summary.items()}
    if not result.rows:
        yield json.dumps({"rows": [], **tail}, indent=2, allow_nan=False) + "\n"
        return
    keys = [json.dumps(c.key) for c in result.columns]
    yield '{\n  "rows": [\n'
    for start, cols in _chunks(result):
        cells = [_json_column(col, c.integer) for col, c in zip(cols, result.columns, strict=True)]
        lines = []
        for row in zip(*cells, strict=True):
            body = ",\n".join(f"      {k}: {v}" for k, v in zip(keys, row, strict=True))
            lines.append("    {\n" + body + "\n    }")
        yield ("" if start == 0 else ",\n") + ",\n".join(lines)
    rest = json.dumps(tail, indent=2, allow_nan=False)
    yield "\n  ],\n" + rest[2:] + "\n"


def to_json(result: Result) -> str:
    return "".join(iter_json(result))


def _csv_column(values: list[Any], integer: bool) -> list[Any]:
    if values and all(type(x) is float for x in values):
        if integer:
            return [int(x) if x.is_integer() else repr(x) for x in values]
        return [repr(x) for x in values]
    out = []
    for x in values:
        v = _clean(x, integer)
        out.append(repr(v) if isinstance(v, float) else v)
    return out


def iter_csv(result: Result) -> Iterator[str]:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.key for c in result.columns])
    yield buf.getvalue()
    for _, cols in _chunks(result):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows(zip(*[_csv_column(col, c.integer) for col, c in zip(cols, result.columns, strict=True)],
                        strict=True))
        yield buf.getvalue()


def to_csv(result: Result) -> str:
    return "".join(iter_csv(result))


def iter_markdown(result: Result) -> Iterator[str]:
    yield ("| " + " | ".join(c.header for c in result.columns) + " |\n"
           + "|" + "|".join("---:" for _ in result.columns) + "|\n")
    for _, cols in _chunks(result):
        cells = [_fmt_column(col, c.integer, c.number) for col, c in zip(cols, result.columns, strict=True)]
        yield "".join("| " + " | ".join(row) + " |\n" for row in zip(*cells, strict=True))
    tail = (["", result.note] if result.note else []) + [f"\n> warning: {w}" for w in result.warnings]
    if tail:
        yield "\n".join(tail) + "\n"


def to_markdown(result: Result) -> str:
    return "".join(iter_markdown(result))


def _latex_column(values: list[Any], integer: bool, number: str = "") -> list[str]:
    if values and all(type(x) is float for x in values):
        out = []
        for s in _fmt_column(values, integer, number):
            if "e" in s and s[-1].isdigit():
                mant, exp = s.split("e")
                out.append(f"${mant} \\times 10^{{{int(exp)}}}$")
            elif s in ("inf", "-inf"):
                out.append(f"${'-' if s[0] == '-' else ''}\\infty$")
            else:
                out.append(f"${s}$")
        return out
    return [_latex_cell(x, integer, number) for x in values]


def iter_latex(result: Result) -> Iterator[str]:
    cols = "".join("l" if c.text else "r" for c in result.columns)
    head = " & ".join(c.latex or latex_text(c.header) for c in result.columns)
    caption = " ".join((result.title + (f" ({result.note})" if result.note else "")).split())
    formula = " ".join(str(result.formula).split())
    yield (f"% dpcalc {__version__}: {formula}\n% {caption}\n"
           f"\\begin{{tabular}}{{{cols}}}\n\\toprule\n  {head} \\\\\n\\midrule\n")
    for _, cells in _chunks(result):
        body = [_latex_column(col, c.integer, c.number) for col, c in zip(cells, result.columns, strict=True)]
        yield "".join("  " + " & ".join(row) + " \\\\\n" for row in zip(*body, strict=True))
    yield "\\bottomrule\n\\end{tabular}\n"


def to_latex(result: Result) -> str:
    return "".join(iter_latex(result))


def _text_width(text: str) -> int:
    """Terminal cells taken by ``text``: combining marks take none, East-Asian wide characters two."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _width(text: str) -> int:
    return len(text) if text.isascii() else _text_width(text)


def iter_plain_table(result: Result, styled: bool = False) -> Iterator[str]:
    """The table in rich's default heavy-head box style, without rich's ~45 ms import, in chunks.

    Plain for pipes, files and tests; ``styled`` adds rich's italic title and bold headers (ANSI) for a terminal.
    Two passes over the rows (widths, then lines), so a million rows stream in bounded memory.
    """
    head = [c.header for c in result.columns]
    widths = [_width(h) for h in head]
    for _, cols in _chunks(result):
        for i, (col, c) in enumerate(zip(cols, result.columns, strict=True)):
            widths[i] = max(widths[i], max((_width(x) for x in _fmt_column(col, c.integer, c.number)), default=0))

    bold, italic, reset = ("\x1b[1m", "\x1b[3m", "\x1b[0m") if styled else ("", "", "")

    def line(cells: tuple[str, ...] | list[str], bar: str, style: str = "") -> str:
        padded = []
        for x, w, c in zip(cells, widths, result.columns, strict=True):
            gap, text = " " * (w - _width(x)), f"{style}{x}{reset if style else ''}"
            padded.append(f" {text}{gap} " if c.text else f" {gap}{text} ")
        return bar + bar.join(padded) + bar

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    top = [f"{italic}{result.title}{reset}"] if result.title else []
    top += [rule("┏", "━", "┳", "┓"), line(head, "┃", bold), rule("┡", "━", "╇", "┩")]
    yield "\n".join(top) + "\n"
    for _, cols in _chunks(result):
        cells = [_fmt_column(col, c.integer, c.number) for col, c in zip(cols, result.columns, strict=True)]
        yield "".join(line(row, "│") + "\n" for row in zip(*cells, strict=True))
    out = [rule("└", "─", "┴", "┘")]
    out += [f"{k}: {_fmt(v)}" for k, v in (result.summary or {}).items()]
    if result.note:
        out.append(result.note)
    yield "\n".join(out) + "\n"


def _plain_table(result: Result, styled: bool = False) -> str:
    return "".join(iter_plain_table(result, styled))


def _rich_table(result: Result, file: Any) -> None:
    """The table for a terminal: rich, fitted to the terminal width."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=file, highlight=False, soft_wrap=True)
    table = Table(title=result.title or None, title_justify="left")
    for c in result.columns:
        table.add_column(c.header, justify="left" if c.text else "right", no_wrap=not c.text)
    for r in result.rows:
        table.add_row(*[_fmt(r.get(c.key), c.integer) for c in result.columns])
    console.print(table)
    for k, v in (result.summary or {}).items():
        console.print(f"{k}: {_fmt(v)}")
    if result.note:
        console.print(result.note)


_RICH_MAX_ROWS = 2_000  # rich lays out the whole table in memory: only for tables a terminal can show


def _table(result: Result, file: Any) -> None:
    """Plain when not a terminal; on a terminal our styled box if it fits the width, else rich (which fits it)."""
    isatty = getattr(file, "isatty", None)
    if isatty is None or not isatty():
        file.writelines(iter_plain_table(result))
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
        _rich_table(result, file)


def iter_render(result: Result, fmt: Format) -> Iterator[str]:
    """Render in chunks (streamed to stdout or the --output file); the table without colour."""
    if fmt is Format.json:
        return iter_json(result)
    if fmt is Format.csv:
        return iter_csv(result)
    if fmt is Format.markdown:
        return iter_markdown(result)
    if fmt is Format.latex:
        return iter_latex(result)
    return iter_plain_table(result)


def render(result: Result, fmt: Format) -> str:
    """Render to text in any format (the table is rendered without colour)."""
    return "".join(iter_render(result, fmt))


def _is_nonfinite(value: Any) -> bool:
    return isinstance(value, float | np.floating) and not math.isfinite(float(value))


def check_finite(result: Result) -> None:
    """Never a silent NaN/inf: a NaN cell, or an infinite one without a warning or note stating why, is an error.

    The one-line message names the column and the row's other numeric values (the inputs that led there).
    """
    # a stated reason: a warning (NumPy's "overflow encountered in …" states none), or a note that explains the inf
    reasons = [w for w in result.warnings if " encountered in " not in w]
    if re.search(r"(?<![A-Za-z])inf(?![A-Za-z])|∞|infinite", result.note):
        reasons.append(result.note)
    from dpcalc.report.grid import Rows

    rows: Sequence[dict[str, Any]] = result.rows
    if isinstance(rows, Rows):  # column-wise: one vectorised test per column, then only the first bad row
        bad = [int(np.flatnonzero(np.isnan(a) if reasons else ~np.isfinite(a))[0]) for a in rows.data.values()
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


def emit(result: Result, fmt: Format, output: Path | None = None, force: bool = False) -> None:
    """Print (or write) the result; warnings go to stderr for human formats and into JSON otherwise.

    Checked first by :func:`check_finite` (no silent NaN/inf in any format).
    """
    check_finite(result)
    if output is not None:
        write_atomic(output, iter_render(result, fmt), force)
    elif fmt is Format.table:
        _table(result, sys.stdout)
    else:
        sys.stdout.writelines(iter_render(result, fmt))
    if fmt in (Format.table, Format.markdown, Format.latex, Format.csv) or output is not None:
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
