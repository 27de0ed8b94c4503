"""The text of output cells: one cell (the reference) or a whole column chunk at once (the fast path).

Every format writes a number its own way (:class:`Kind`):

* ``text`` (table, Markdown) — ``format(x, number or ".10g")``; ``inf``/``-inf``; ``—`` for no value;
* ``latex`` — the ``text`` number in math mode, ``$1.5 \\times 10^{-5}$``, ``$\\infty$``; text escaped;
* ``csv`` and ``json`` — every digit: ``repr(x)``, the shortest string that reads back as the same float;
  a documented ±inf is ``"inf"`` in JSON.

An integer column writes integer-valued floats as integers (``str(int(x))``, in its ``number`` format if any).
:func:`cell` formats one value; :func:`column_cells` gives the same strings, byte for byte, for a whole column
chunk: a chunk of plain floats is formatted as a NumPy array — each distinct value once (grid inputs repeat),
integers through ``int64``, the LaTeX rewriting as one regular expression over the joined chunk — with no
per-row Python objects beyond the strings. Anything else (text, ``None``, ints, mixed) takes :func:`cell`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import repeat
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpcalc.errors import DomainError

__all__ = ["Kind", "cell", "column_cells", "latex_text"]

Kind = Literal["text", "latex", "csv", "json"]

NONE_TEXT = "—"  # not applicable to this row (e.g. no Rényi order for a non-RDP accountant)


# ------------------------------------------------------------------------------------------ one cell

def _check_number(number: str) -> None:
    """A column's number format must format a float (``.4g``, ``.3e``, ``,.2f`` …): one-line error otherwise."""
    if number:
        try:
            format(1.5, number)
        except (ValueError, TypeError):
            raise DomainError(f"number must be a float format spec such as '.4g'; got {number!r}") from None


def clean(value: Any, integer: bool = False) -> Any:
    """A NumPy scalar as a Python number; an integer-valued float of an integer column as an int."""
    if isinstance(value, float) and integer and value.is_integer():
        return int(value)
    if hasattr(value, "item"):
        return clean(value.item(), integer)
    return value


def text_cell(value: Any, integer: bool = False, number: str = "") -> str:
    """A cell of the table and of Markdown: ``number`` (default ``.10g``) for floats, ``—`` for no value."""
    value = clean(value, integer)
    if value is None:
        return NONE_TEXT
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return format(value, number or ".10g")
    if number and isinstance(value, int) and not isinstance(value, bool):
        return format(value, number)
    return str(value)


def latex_number(value: Any, integer: bool = False, number: str = "") -> str:
    """A number in math mode: ``$1.5 \\times 10^{-5}$``, ``$-\\infty$``; ``--`` for no value or NaN."""
    s = text_cell(value, integer, number)
    if s == NONE_TEXT:
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


def latex_cell(value: Any, integer: bool = False, number: str = "") -> str:
    """A LaTeX body cell: numbers in math mode (:func:`latex_number`), text escaped by :func:`latex_text`."""
    v = clean(value, integer)
    if v is None:
        return "--"
    if isinstance(v, int | float) and not isinstance(v, bool):
        return latex_number(v, integer, number)
    return latex_text(str(v))


def json_value(value: Any, integer: bool = False) -> Any:
    """A cell for JSON: a documented ±inf (stated in "warnings") is written as the string "inf"/"-inf"."""
    v = clean(value, integer)
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def json_cell(value: Any, integer: bool = False) -> str:
    """A JSON cell's text, as ``json.dumps(…, allow_nan=False)`` writes it (NaN raises ValueError: JSON has none)."""
    import json

    v = json_value(value, integer)
    if type(v) is float and math.isnan(v):
        raise ValueError("Out of range float values are not JSON compliant: nan")
    if type(v) is float:
        return repr(v)
    try:
        return json.dumps(v, allow_nan=False)
    except TypeError:  # a complex number, an arbitrary object
        raise DomainError(f"value must be a number, a text, a list or None in JSON (got {type(v).__name__})") from None


def csv_value(value: Any, integer: bool = False) -> Any:
    """What the CSV writer gets for a cell: ``repr`` of a float (every digit), else the value (None → empty)."""
    v = clean(value, integer)
    return repr(v) if isinstance(v, float) else v


def csv_cell(value: Any, integer: bool = False) -> str:
    """A CSV cell as the ``csv`` module writes it in a row of several fields (quoted when it must be)."""
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([csv_value(value, integer), ""])
    return buf.getvalue()[:-2]


def cell(value: Any, kind: Kind, integer: bool = False, number: str = "") -> str:
    """The reference text of one cell in a format of ``kind`` (``number`` applies to text and LaTeX only)."""
    _check_number(number)
    if isinstance(value, np.ndarray) and value.ndim:  # a list cell is text ("[0.5, 0.3]"); an array is a column
        raise DomainError(f"value must be one cell (a number, a text, a list or None); got an array of shape "
                          f"{value.shape} (column_cells formats a column)")
    return _cell(value, kind, integer, number)


def cells_of(values: Sequence[Any], kind: Kind, integer: bool = False, number: str = "") -> list[str]:
    """:func:`cell` of each value, the format spec checked once (the per-cell path of mixed columns)."""
    _check_number(number)
    return [_cell(x, kind, integer, number) for x in values]


def _cell(value: Any, kind: Kind, integer: bool, number: str) -> str:
    if kind == "text":
        return text_cell(value, integer, number)
    if kind == "latex":
        return latex_cell(value, integer, number)
    if kind == "json":
        return json_cell(value, integer)
    return csv_cell(value, integer)


# ------------------------------------------------------------------------------------ a column chunk

_DEDUP_MIN = 256  # below this many cells, formatting every cell costs less than finding the distinct ones
_INT64_SAFE = 2.0**63  # |x| below this converts to int64 exactly (integer-valued floats)
_LATEX_EXP = re.compile(r"e(?:\+|(-))0*(\d+)")  # "e-05" → "-5", "e+20" → "20", "e+00" → "0" (= int(exp))


def _whole_strings(a: NDArray[np.float64], number: str) -> list[str]:
    """``str(int(x))`` (or ``format(int(x), number)``) of integer-valued floats."""
    small = np.abs(a) < _INT64_SAFE
    ints: list[int] = (a.astype(np.int64).tolist() if small.all()
                       else [int(x) for x in a.tolist()])
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
            fractional = list(map(format, values, repeat(number or ".10g")))
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
        strs = _latex_numbers(strs, a)
    return strs


def _latex_numbers(strs: list[str], a: NDArray[np.float64]) -> list[str]:
    """Text-format numbers in math mode (as :func:`latex_number`), one regular expression over the chunk."""
    if not strs:
        return []
    joined = "$" + "$\n$".join(strs) + "$"
    out = _LATEX_EXP.sub(r" \\times 10^{\1\2}", joined).split("\n")
    odd = ~np.isfinite(a)
    for i in np.flatnonzero(odd).tolist():
        out[i] = "--" if math.isnan(a[i]) else ("$\\infty$" if a[i] > 0 else "$-\\infty$")
    return out


def float_cells(a: NDArray[np.float64], kind: Kind, integer: bool = False, number: str = "") -> list[str]:
    """The cells of a 1-D float64 array: each distinct value (by bit pattern, so -0.0 ≠ 0.0) formatted once."""
    if kind == "json" and np.isnan(a).any():
        return [json_cell(x, integer) for x in a.tolist()]  # raises: JSON has no NaN
    if a.size >= _DEDUP_MIN:
        bits, inverse = np.unique(a.view(np.uint64), return_inverse=True)
        if bits.size * 2 <= a.size:
            unique = np.array(_distinct_strings(bits.view(np.float64), kind, integer, number), dtype=object)
            return unique[inverse.ravel()].tolist()
    return _distinct_strings(a, kind, integer, number)


def column_cells(values: Sequence[Any] | NDArray[np.float64], kind: Kind, integer: bool = False,
                 number: str = "") -> list[str]:
    """The cells of a column chunk: a float64 array or a list of plain floats by :func:`float_cells`,
    anything else cell by cell (:func:`cell`). Equal, string for string, to ``[cell(x, …) for x in values]``."""
    if not isinstance(values, np.ndarray | Sequence) or isinstance(values, str | bytes):
        raise DomainError(f"values must be a column (a list or an array of cells); got {type(values).__name__}")
    _check_number(number)
    if isinstance(values, np.ndarray):
        return float_cells(np.ascontiguousarray(values, dtype=np.float64).ravel(), kind, integer, number)
    if is_plain(values):
        return float_cells(np.array(values, dtype=np.float64), kind, integer, number)
    return cells_of(values, kind, integer, number)


def is_plain(values: Sequence[Any] | NDArray[np.float64]) -> bool:
    """True when :func:`column_cells` takes the float fast path (its CSV cells then need no quoting)."""
    return isinstance(values, np.ndarray) or set(map(type, values)) == {float}
