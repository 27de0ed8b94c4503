"""Numbers as people read them, on a chosen side: a format spec ending in `ROUND_UP` (``↑``) or `ROUND_DOWN`
(``↓``) rounds toward +∞ or −∞ instead of to the nearest, so a shown upper bound is never below the value and a
shown lower bound never above it (``.6g↑``: 2.3818397 → 2.38184, ``.6g↓``: 2.3808273 → 2.38082). One helper for the
tables, the privacy statement and the results' ``repr``.
"""

from __future__ import annotations

import math

__all__ = ["DEFAULT_NUMBER", "ROUND_DOWN", "ROUND_UP", "format_number"]

DEFAULT_NUMBER = ".6g"  # a number in a table, Markdown or LaTeX: 6 significant digits (JSON and CSV keep all)
ROUND_UP, ROUND_DOWN = "↑", "↓"


def format_number(x: float, number: str = "") -> str:
    """``format(x, number or DEFAULT_NUMBER)``; a spec ending in `ROUND_UP` (``↑``) or `ROUND_DOWN` (``↓``) rounds
    toward +inf or -inf instead of to the nearest (g, e and f notations)."""
    way = number[-1:] if number[-1:] in (ROUND_UP, ROUND_DOWN) else ""
    spec = (number[:-1] if way else number) or DEFAULT_NUMBER
    s = format(x, spec)
    if not way or not math.isfinite(x) or spec[-1:] not in "gGeEf":
        return s
    shown = float(s.replace(",", "").replace("_", ""))
    if (shown >= x) if way == ROUND_UP else (shown <= x):
        return s
    from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

    exact = Decimal(x)
    digits = int(spec.rsplit(".", 1)[1][:-1] or 6) if "." in spec else 6
    if spec[-1] in "fF":
        step = -digits
    else:
        step = exact.adjusted() - (max(digits, 1) if spec[-1] in "gG" else digits + 1) + 1
    rounded = exact.quantize(Decimal(1).scaleb(step), rounding=ROUND_CEILING if way == ROUND_UP else ROUND_FLOOR)
    return format(float(rounded), spec)
