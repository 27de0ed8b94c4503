"""The text of one cell in the table and in Markdown: ``format(x, number or DEFAULT_NUMBER)`` (6 significant
digits), ``inf``/``-inf``, ``—`` for
no value; an integer column writes integer-valued floats as integers. The base of every other format's cells
(`dpcalc.report.cells`, `dpcalc.report.latex`, `dpcalc.report._exact`). Also the widths of cells on a
terminal and the joining of padded cells into rows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import repeat
from typing import Any

from dpcalc._rounding import DEFAULT_NUMBER, ROUND_DOWN, ROUND_UP, format_number
from dpcalc.errors import DomainError

__all__ = ["DEFAULT_NUMBER", "NONE_TEXT", "ROUND_DOWN", "ROUND_UP", "check_number", "clean", "display_width",
           "format_number", "join_rows", "noop", "number_with_digits", "pad", "text_cell", "text_width", "widest"]

NONE_TEXT = "—"  # not applicable to this row (e.g. no Rényi order for a non-RDP accountant)


def check_number(number: str) -> None:
    """A column's number format must format a float (``.4g``, ``.3e``, ``,.2f`` …): one-line error otherwise."""
    if number:
        try:
            format(1.5, number.rstrip(ROUND_UP + ROUND_DOWN))
        except (ValueError, TypeError):
            raise DomainError(f"number must be a float format spec such as '.4g'; got {number!r}") from None


def number_with_digits(number: str, digits: int) -> str:
    """The format spec ``number`` (a column's; ``""``: the default) with ``digits`` significant digits, its notation
    kept: ``""``/``.4g`` → ``.{digits}g``, ``.3e`` → ``.{digits - 1}e``; a fixed-decimal ``.2f`` is kept."""
    import re

    m = re.fullmatch(r"(.*?)(?:\.(\d+))?([gGeE]?)([↑↓]?)", number)
    if m is None or (number and not m.group(3)):
        return number
    head, kind = m.group(1), m.group(3) or "g"
    return f"{head}.{max(digits - 1, 0) if kind in 'eE' else digits}{kind}{m.group(4)}"


def clean(value: Any, integer: bool = False) -> Any:
    """A NumPy scalar as a Python number; an integer-valued float of an integer column as an int."""
    if isinstance(value, float) and integer and value.is_integer():
        return int(value)
    if hasattr(value, "item"):
        return clean(value.item(), integer)
    return value


def text_cell(value: Any, integer: bool = False, number: str = "") -> str:
    """A cell of the table and of Markdown: ``number`` (default `DEFAULT_NUMBER`) for floats, ``—`` for no value."""
    value = clean(value, integer)
    if value is None:
        return NONE_TEXT
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return format_number(value, number)
    if number and isinstance(value, int) and not isinstance(value, bool):
        return format(value, number.rstrip(ROUND_UP + ROUND_DOWN))
    return str(value)


def join_rows(columns: Sequence[list[str]], lits: Sequence[str], between: str = "") -> str:
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


def text_width(text: str) -> int:
    """Terminal cells taken by ``text``: combining marks take none, East-Asian wide characters two."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def display_width(text: str) -> int:
    """`text_width`, with ASCII text measured by its length."""
    return len(text) if text.isascii() else text_width(text)


def widest(texts: list[str], plain: bool) -> int:
    """The widest of a column's cells (number cells are ASCII: their length)."""
    return max(map(len, texts) if plain else map(display_width, texts), default=0)


def pad(texts: list[str], width: int, left: bool, plain: bool) -> list[str]:
    """Cells padded to ``width`` terminal cells: text left-aligned, numbers right-aligned."""
    if plain:
        return list(map(str.ljust if left else str.rjust, texts, repeat(width)))
    gaps = [" " * (width - display_width(x)) for x in texts]
    return [x + g for x, g in zip(texts, gaps, strict=True)] if left else list(map(str.__add__, gaps, texts))


def noop(steps: int = 1, description: str = "") -> None:
    """The progress callback that shows nothing (``advance(rows)`` of the writers)."""
    return None
