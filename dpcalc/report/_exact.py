"""Cells that keep every digit: CSV (``repr`` of a float, quoted by the ``csv`` module when it must be) and JSON
(``repr``; a documented ±inf as the string "inf"; no NaN). Used by `dpcalc.report.formats` and, for a chunk of
a column, `dpcalc.report.cells`."""

from __future__ import annotations

import math
from typing import Any

from dpcalc.errors import DomainError
from dpcalc.report._text import clean

__all__ = ["csv_cell", "csv_value", "json_cell", "json_value"]


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
