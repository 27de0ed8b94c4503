"""The text of output cells: one cell (the reference) or a whole column chunk at once (the fast path).

Every format writes a number its own way (`Kind`):

* ``text`` (table, Markdown) — ``format(x, number or ".6g")``; ``inf``/``-inf``; ``—`` for no value;
* ``latex`` — the ``text`` number in math mode, ``$1.5 \\times 10^{-5}$``, ``$\\infty$``; text escaped;
* ``csv`` and ``json`` — every digit: ``repr(x)``, the shortest string that reads back as the same float;
  a documented ±inf is ``"inf"`` in JSON.

An integer column writes integer-valued floats as integers (``str(int(x))``, in its ``number`` format if any).
`cell` formats one value; `column_cells` gives the same strings, byte for byte, for a whole column
chunk: a chunk of plain floats is formatted as a NumPy array — each distinct value once (grid inputs repeat),
integers through ``int64``, the LaTeX rewriting as one regular expression over the joined chunk — with no
per-row Python objects beyond the strings. Anything else (text, ``None``, ints, mixed) takes `cell`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpcalc.errors import DomainError
from dpcalc.report._text import check_number, format_number, text_cell

__all__ = ["Kind", "cell", "column_cells"]

Kind = Literal["text", "latex", "csv", "json"]

# ------------------------------------------------------------------------------------------ one cell

def cell(value: Any, kind: Kind, integer: bool = False, number: str = "") -> str:
    """The reference text of one cell in a format of ``kind`` (``number`` applies to text and LaTeX only)."""
    check_number(number)
    if isinstance(value, np.ndarray) and value.ndim:  # a list cell is text ("[0.5, 0.3]"); an array is a column
        raise DomainError(f"value must be one cell (a number, a text, a list or None); got an array of shape "
                          f"{value.shape} (column_cells formats a column)")
    return _cell(value, kind, integer, number)


def cells_of(values: Sequence[Any], kind: Kind, integer: bool = False, number: str = "") -> list[str]:
    """`cell` of each value, the format spec checked once (the per-cell path of mixed columns)."""
    check_number(number)
    return [_cell(x, kind, integer, number) for x in values]


def _cell(value: Any, kind: Kind, integer: bool, number: str) -> str:
    if kind == "text":
        return text_cell(value, integer, number)
    if kind == "latex":
        from dpcalc.report.latex import latex_cell

        return latex_cell(value, integer, number)
    from dpcalc.report import _exact

    return _exact.json_cell(value, integer) if kind == "json" else _exact.csv_cell(value, integer)


# ------------------------------------------------------------------------------------ a column chunk

_DEDUP_MIN = 256  # below this many cells, formatting every cell costs less than finding the distinct ones
_INT64_SAFE = 2.0**63  # |x| below this converts to int64 exactly (integer-valued floats)


def _whole_strings(a: NDArray[np.float64], number: str) -> list[str]:
    """``str(int(x))`` (or ``format(int(x), number)``) of integer-valued floats."""
    small = np.abs(a) < _INT64_SAFE
    ints: list[int] = (a.astype(np.int64).tolist() if small.all()
                       else [int(x) for x in a.tolist()])
    number = number.rstrip("↑↓")
    return list(map(format, ints, repeat(number))) if number else list(map(str, ints))


def _distinct_strings(a: NDArray[np.float64], kind: Kind, integer: bool, number: str) -> list[str]:
    """The cells of a float array, each value formatted (no deduplication)."""
    number = number if kind in ("text", "latex") else ""
    whole: NDArray[np.bool_] | None = None
    if integer:
        whole = np.isfinite(a) & (np.trunc(a) == a)
        if not whole.any():
            whole = None
    if whole is not None and whole.all():
        strs = _whole_strings(a, number)
    else:
        rest = a if whole is None else a[~whole]
        values = rest.tolist()
        if kind in ("csv", "json"):
            fractional = list(map(float.__repr__, values))
        else:
            fractional = list(map(format_number, values, repeat(number)))
        if whole is None:
            strs = fractional
        else:
            merged = np.empty(a.size, dtype=object)
            merged[whole] = _whole_strings(a[whole], number)
            merged[~whole] = fractional
            strs = merged.tolist()
    if kind == "json":
        inf = np.isinf(a)
        if inf.any():
            for i in np.flatnonzero(inf).tolist():
                strs[i] = '"inf"' if a[i] > 0 else '"-inf"'
    elif kind == "latex":
        from dpcalc.report.latex import latex_numbers

        strs = latex_numbers(strs, a)
    return strs


def float_cells(a: NDArray[np.float64], kind: Kind, integer: bool = False, number: str = "") -> list[str]:
    """The cells of a 1-D float64 array: each distinct value (by bit pattern, so -0.0 ≠ 0.0) formatted once."""
    if kind == "json" and np.isnan(a).any():
        from dpcalc.report._exact import json_cell

        return [json_cell(x, integer) for x in a.tolist()]  # raises: JSON has no NaN
    if a.size >= _DEDUP_MIN:
        bits, inverse = np.unique(a.view(np.uint64), return_inverse=True)
        if bits.size * 2 <= a.size:
            unique = np.array(_distinct_strings(bits.view(np.float64), kind, integer, number), dtype=object)
            return unique[inverse.ravel()].tolist()
    return _distinct_strings(a, kind, integer, number)


def column_cells(values: Sequence[Any] | NDArray[np.float64], kind: Kind, integer: bool = False,
                 number: str = "") -> list[str]:
    """The cells of a column chunk: a float64 array or a list of plain floats by `float_cells`,
    anything else cell by cell (`cell`). Equal, string for string, to ``[cell(x, …) for x in values]``."""
    if not isinstance(values, np.ndarray | Sequence) or isinstance(values, str | bytes):
        raise DomainError(f"values must be a column (a list or an array of cells); got {type(values).__name__}")
    check_number(number)
    if isinstance(values, np.ndarray):
        return float_cells(np.ascontiguousarray(values, dtype=np.float64).ravel(), kind, integer, number)
    if is_plain(values):
        return float_cells(np.array(values, dtype=np.float64), kind, integer, number)
    return cells_of(values, kind, integer, number)


def is_plain(values: Sequence[Any] | NDArray[np.float64]) -> bool:
    """True when `column_cells` takes the float fast path (its CSV cells then need no quoting)."""
    return isinstance(values, np.ndarray) or set(map(type, values)) == {float}
