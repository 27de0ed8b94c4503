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
import sys
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from dpcalc import __version__
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
    unit: str = ""

    @property
    def header(self) -> str:
        return self.label or self.key


@dataclass
class Result:
    """What a command computed, before rendering."""

    columns: list[Column]
    rows: list[dict[str, Any]]
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


def _fmt(value: Any, integer: bool = False) -> str:
    value = _clean(value, integer)
    if value is None:
        return "—"  # not applicable to this row (e.g. no Rényi order for a non-RDP accountant)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return f"{value:.10g}"
    return str(value)


def _latex_num(value: Any, integer: bool = False) -> str:
    s = _fmt(value, integer)
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


def _latex_cell(value: Any, integer: bool = False) -> str:
    """A body cell: numbers in math mode (``$1.5 \\times 10^{-5}$``), text escaped by :func:`latex_text`."""
    v = _clean(value, integer)
    if v is None:
        return "--"
    if isinstance(v, int | float) and not isinstance(v, bool):
        return _latex_num(v, integer)
    return latex_text(str(v))


def units_of(result: Result) -> dict[str, str]:
    """``meta.units``: every column's unit, then the result's own entries (always a dict)."""
    if not isinstance(result.units, dict):
        raise TypeError(f"Result.units must be a dict (got {type(result.units).__name__})")
    return {**{c.key: c.unit for c in result.columns if c.unit}, **result.units}


def to_json(result: Result) -> str:
    meta = {"formula": result.formula, "units": units_of(result), "dpcalc_version": __version__, **result.meta}
    rows = [{c.key: _clean(r.get(c.key), c.integer) for c in result.columns} for r in result.rows]
    doc: dict[str, Any] = {"rows": rows, "warnings": result.warnings, "meta": meta}
    if result.summary is not None:
        doc["summary"] = {k: _clean(v) for k, v in result.summary.items()}
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def to_csv(result: Result) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.key for c in result.columns])
    for r in result.rows:
        w.writerow([repr(_clean(r.get(c.key), c.integer)) if isinstance(_clean(r.get(c.key), c.integer), float)
                    else _clean(r.get(c.key), c.integer) for c in result.columns])
    return buf.getvalue()


def to_markdown(result: Result) -> str:
    lines = ["| " + " | ".join(c.header for c in result.columns) + " |",
             "|" + "|".join("---:" for _ in result.columns) + "|"]
    lines += ["| " + " | ".join(_fmt(r.get(c.key), c.integer) for c in result.columns) + " |" for r in result.rows]
    if result.note:
        lines += ["", result.note]
    lines += [f"\n> warning: {w}" for w in result.warnings]
    return "\n".join(lines) + "\n"


def to_latex(result: Result) -> str:
    cols = "".join("l" if c.text else "r" for c in result.columns)
    head = " & ".join(c.latex or latex_text(c.header) for c in result.columns)
    body = "\n".join("  " + " & ".join(_latex_cell(r.get(c.key), c.integer) for c in result.columns) + r" \\"
                     for r in result.rows)
    caption = " ".join((result.title + (f" ({result.note})" if result.note else "")).split())
    formula = " ".join(str(result.formula).split())
    return (f"% dpcalc {__version__}: {formula}\n% {caption}\n"
            f"\\begin{{tabular}}{{{cols}}}\n\\toprule\n  {head} \\\\\n\\midrule\n{body}\n\\bottomrule\n"
            "\\end{tabular}\n")


def _text_width(text: str) -> int:
    """Terminal cells taken by ``text``: combining marks take none, East-Asian wide characters two."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _plain_table(result: Result, styled: bool = False) -> str:
    """The table in rich's default heavy-head box style, without rich's ~45 ms import.

    Plain for pipes, files and tests; ``styled`` adds rich's italic title and bold headers (ANSI) for a terminal.
    """
    head = [c.header for c in result.columns]
    body = [[_fmt(r.get(c.key), c.integer) for c in result.columns] for r in result.rows]
    widths = [max(_text_width(x) for x in col) for col in zip(head, *body, strict=True)]

    bold, italic, reset = ("\x1b[1m", "\x1b[3m", "\x1b[0m") if styled else ("", "", "")

    def line(cells: list[str], bar: str, style: str = "") -> str:
        padded = []
        for x, w, c in zip(cells, widths, result.columns, strict=True):
            gap, text = " " * (w - _text_width(x)), f"{style}{x}{reset if style else ''}"
            padded.append(f" {text}{gap} " if c.text else f" {gap}{text} ")
        return bar + bar.join(padded) + bar

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    out = [f"{italic}{result.title}{reset}"] if result.title else []
    out += [rule("┏", "━", "┳", "┓"), line(head, "┃", bold), rule("┡", "━", "╇", "┩")]
    out += [line(row, "│") for row in body]
    out.append(rule("└", "─", "┴", "┘"))
    out += [f"{k}: {_fmt(v)}" for k, v in (result.summary or {}).items()]
    if result.note:
        out.append(result.note)
    return "\n".join(out) + "\n"


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


def _table(result: Result, file: Any) -> None:
    """Plain when not a terminal; on a terminal our styled box if it fits the width, else rich (which fits it)."""
    isatty = getattr(file, "isatty", None)
    if isatty is None or not isatty():
        file.write(_plain_table(result))
        return
    import shutil

    styled = _plain_table(result, styled="NO_COLOR" not in os.environ)
    plain_width = max(_text_width(x) for x in _plain_table(result).splitlines()[:4])
    if plain_width <= shutil.get_terminal_size().columns:
        file.write(styled)
    else:
        _rich_table(result, file)


def render(result: Result, fmt: Format) -> str:
    """Render to text in any format (the table is rendered without colour)."""
    if fmt is Format.json:
        return to_json(result)
    if fmt is Format.csv:
        return to_csv(result)
    if fmt is Format.markdown:
        return to_markdown(result)
    if fmt is Format.latex:
        return to_latex(result)
    return _plain_table(result)


def emit(result: Result, fmt: Format, output: Path | None = None, force: bool = False) -> None:
    """Print (or write) the result; warnings go to stderr for human formats and into JSON otherwise."""
    if output is not None:
        write_atomic(output, render(result, fmt), force)
    elif fmt is Format.table:
        _table(result, sys.stdout)
    else:
        sys.stdout.write(render(result, fmt))
    if fmt in (Format.table, Format.markdown, Format.latex, Format.csv) or output is not None:
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
