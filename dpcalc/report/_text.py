"""The text of one cell in the table and in Markdown: ``format(x, number or ".10g")``, ``inf``/``-inf``, ``—`` for
no value; an integer column writes integer-valued floats as integers. The base of every other format's cells
(:mod:`dpcalc.report.cells`, :mod:`dpcalc.report.latex`, :mod:`dpcalc.report._exact`)."""

from __future__ import annotations

import math
from typing import Any

from dpcalc.errors import DomainError

__all__ = ["NONE_TEXT", "check_number", "clean", "text_cell"]

NONE_TEXT = "—"  # not applicable to this row (e.g. no Rényi order for a non-RDP accountant)


def check_number(number: str) -> None:
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
