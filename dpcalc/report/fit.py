"""The table fitted to a terminal of a given width, every value whole.

`fit_table` tries, in order, and prints the first layout that fits:

1. the box table as it is (`dpcalc.report.render.iter_plain_table`);
2. the box table with headers wrapped between words and text cells wrapped between words (a number, an
   identifier or a word is never cut: a column is never narrower than its widest number or longest word);
3. the same after moving the columns that hold one value in every row above the table as ``label: value``
   lines (the setting every row shares);
4. one block per row: ``label: value`` lines, the labels aligned.

Notes, the summary and warnings are wrapped between words too (`wrap`). Pipes and files get the plain table
unchanged (`dpcalc.report.render`): the fitting is for people reading a terminal.
"""

from __future__ import annotations

import math
import numbers
import re
import textwrap
from collections.abc import Sequence
from typing import Any

from dpcalc.errors import DomainError
from dpcalc.report._text import display_width, text_cell
from dpcalc.report.result import Column, Result

__all__ = ["fit_table", "wrap"]

_BOLD, _ITALIC, _RESET = "\x1b[1m", "\x1b[3m", "\x1b[0m"


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` terminal cells, broken between words only (a word longer than
    the line stays whole on a line of its own); continuation lines start with ``indent``; blank lines kept."""
    for name, value in (("text", text), ("indent", indent)):
        if not isinstance(value, str):
            raise DomainError(f"{name} must be a string (got {_brief(value)})")
    if isinstance(width, bool) or not isinstance(width, numbers.Real) or not math.isfinite(width) \
            or width != int(width):
        raise DomainError(f"width must be an integer number of terminal cells (got {_brief(width)})")
    width = int(width)
    out: list[str] = []
    for para in text.split("\n"):
        body = para.lstrip(" ")
        lead = para[:len(para) - len(body)]
        hang = lead + ("  " if body.startswith("- ") else indent)
        out += _unglued(textwrap.wrap(_glued(body), max(width, 1), initial_indent=lead, subsequent_indent=hang,
                                      break_long_words=False, break_on_hyphens=False)) or [""]
    return out


def _brief(value: object) -> str:
    from dpcalc._validate import brief

    return brief(value)


_NBSP = "\u00a0"


_CITED = re.compile(r"\b(Thm|Thms|Theorem|Prop\.|Cor\.|Lemma|Def\.|eqs?\.|Eqs?\.|Fig\.|Alg\.|Sec\.|§) (?=\w|\()")


def _glued(text: str) -> str:
    """``n = 101`` and ``Thm 9`` kept on one line when wrapped (no-break spaces; textwrap breaks at ASCII spaces)."""
    return _CITED.sub(lambda m: m.group(1) + _NBSP, text.replace(" = ", f"{_NBSP}={_NBSP}"))


def _unglued(lines: list[str]) -> list[str]:
    return [x.replace(_NBSP, " ") for x in lines]


_BREAKS = re.compile(r"[ \t\n\r\x0b\x0c]+")


def _words(text: str) -> list[str]:
    """The pieces textwrap keeps whole: split at ASCII whitespace only (a no-break space of `_glued` joins)."""
    return [w for w in _BREAKS.split(text) if w] or [""]


def _cells(result: Result) -> list[list[str]]:
    return [[text_cell(r.get(c.key), c.integer, c.number) for r in result.rows] for c in result.columns]


class _Col:
    """One column of the fitted table: its header, cells, and the narrowest and natural widths."""

    def __init__(self, column: Column, cells: list[str]) -> None:
        self.column, self.cells, self.wraps = column, cells, column.text
        header = column.header
        self.header = header
        # the header wraps as `_lines` does (glued: "ε = 2.382," is one piece; a column narrower than it
        # overflowed the box by two cells on `dpcalc risk attack` at 80 columns)
        word = max(display_width(w) for w in _words(_glued(header)))
        widest = max(map(display_width, cells), default=0)
        if self.wraps:  # text: wrapped between words
            widest_word = max((display_width(w) for x in cells for w in _words(_glued(x))), default=0)
            self.min = max(word, widest_word)
        else:
            self.min = max(word, widest)
        self.body = max(self.min, widest)  # every cell on one line (the header may still wrap)
        self.natural = max(display_width(header), widest)
        self.width = self.min


def _lines(text: str, width: int, wraps: bool = True) -> list[str]:
    if not wraps or display_width(text) <= width:
        return [text]
    return _unglued(textwrap.wrap(_glued(text), width, break_long_words=False, break_on_hyphens=False)) or [""]


def _boxed(cols: list[_Col], nrows: int, styled: bool) -> list[str]:
    """The box table of ``cols`` at their widths; a header or text cell spreads over several lines if it must."""
    bold, reset = (_BOLD, _RESET) if styled else ("", "")

    def line(parts: Sequence[list[str]], bar: str, style: str = "") -> list[str]:
        height = max(len(p) for p in parts)
        out = []
        for k in range(height):
            padded = []
            for p, c in zip(parts, cols, strict=True):
                x = p[k] if k < len(p) else ""
                gap = " " * (c.width - display_width(x))
                text = f"{style}{x}{reset}" if style and x else x
                padded.append(f" {text}{gap} " if c.column.text else f" {gap}{text} ")
            out.append(bar + bar.join(padded) + bar)
        return out

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (c.width + 2) for c in cols) + right

    out = [rule("┏", "━", "┳", "┓")]
    out += line([_lines(c.header, c.width) for c in cols], "┃", bold)
    out.append(rule("┡", "━", "╇", "┩"))
    for i in range(nrows):
        out += line([_lines(c.cells[i], c.width, c.wraps) if c.wraps else [c.cells[i]] for c in cols], "│")
    out.append(rule("└", "─", "┴", "┘"))
    return out


def _table_width(cols: Sequence[_Col]) -> int:
    return sum(c.width + 3 for c in cols) + 1


def _widen(cols: list[_Col], width: int) -> bool:
    """Set the columns' widths within ``width`` (each at least its narrowest): False if even that is too wide.
    The room left goes first to cells on one line, then to headers on one line: each time to the columns it
    makes whole (fewest extra cells first), then to the rest."""
    for c in cols:
        c.width = c.min
    room = width - _table_width(cols)
    if room < 0:
        return False
    for target in ("body", "natural"):
        for c in sorted(cols, key=lambda c: getattr(c, target) - c.width):
            need = getattr(c, target) - c.width
            if 0 < need <= room:
                c.width, room = c.width + need, room - need
        for c in cols:
            more = max(min(room, getattr(c, target) - c.width), 0)
            c.width, room = c.width + more, room - more
    return True


def _shared(result: Result, cols: list[_Col]) -> tuple[list[_Col], list[_Col]]:
    """The columns with one value in every row (2 rows or more), and the others."""
    if len(result.rows) < 2:
        return [], cols
    same = [c for c in cols if len(set(c.cells)) == 1]
    if len(same) == len(cols):
        return same[:-1], same[-1:]
    return same, [c for c in cols if c not in same]


def _pairs(items: Sequence[tuple[str, str]], width: int, styled: bool, indent: str = "") -> list[str]:
    """``label: value`` lines, the values aligned; a value that does not fit beside its label goes below it."""
    if not items:
        return []
    bold, reset = (_BOLD, _RESET) if styled else ("", "")
    tab = max(display_width(k) for k, _ in items) + 2 + len(indent)
    out = []
    for k, v in items:
        label = f"{indent}{bold}{k}{reset}:"
        gap = " " * (tab - len(indent) - display_width(k) - 1)
        if tab + display_width(v) <= width:
            out.append(label + gap + v)
            continue
        rest = _lines(v, max(width - len(indent) - 4, 1))
        if tab + display_width(rest[0]) <= width and len(rest) == 1:
            out.append(label + gap + rest[0])
        else:
            out.append(label)
            out += [f"{indent}    {x}" for x in rest]
    return out


def _blocks(result: Result, shared: list[_Col], cols: list[_Col], width: int, styled: bool) -> list[str]:
    """One block of ``label: value`` lines per row, after the shared setting."""
    out = _pairs([(c.header, c.cells[0]) for c in shared], width, styled)
    n = len(result.rows)
    for i in range(n):
        mark = f"── {i + 1} of {n} "
        out.append(mark + "─" * max(width - display_width(mark), 0) if n > 1 else "─" * width)
        out += _pairs([(c.header, c.cells[i]) for c in cols], width, styled, "")
    return out


def fit_lines(result: Result, width: int, styled: bool = False) -> list[str]:
    """The lines of ``result`` on a terminal ``width`` cells wide (see the module): no value is ever cut."""
    italic, reset = (_ITALIC, _RESET) if styled else ("", "")
    cols = [_Col(c, cells) for c, cells in zip(result.columns, _cells(result), strict=True)]
    title = [f"{italic}{x}{reset}" for x in wrap(result.title, width)] if result.title else []
    nrows = len(result.rows)
    if cols and _widen(cols, width):
        body = _boxed(cols, nrows, styled)
    else:
        shared, rest = _shared(result, cols)
        if shared and rest and _widen(rest, width):
            body = _pairs([(c.header, c.cells[0]) for c in shared], width, styled) + _boxed(rest, nrows, styled)
        else:
            body = _blocks(result, shared, rest, width, styled)
    tail = [f"{k}: {text_cell(v)}" for k, v in (result.summary or {}).items()]
    if result.note:
        tail.append(result.note)
    return title + body + [x for t in tail for x in wrap(t, width)]


def fit_table(result: Result, width: int, styled: bool = False) -> str:
    """`fit_lines` as one text."""
    return "\n".join(fit_lines(result, width, styled)) + "\n"


def wrapped_warnings(messages: Sequence[Any], width: int) -> list[str]:
    """``warning: …`` lines wrapped between words, continuation lines indented by two."""
    return [x for w in messages for x in wrap(f"warning: {w}", width, indent="  ")]
