"""Parsing of numeric CLI options: a value, a comma list (``1,2,5``) or an inclusive range (``1:10:0.5``).

Each option becomes its own axis of a broadcast grid (``np.ix_``), so the library validates every
option's list with element positions that match what the user typed, and rows come out in
``itertools.product`` order (first option slowest).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from dpcalc.errors import DomainError

_MAX_RANGE = 1_000_000


def _number(option: str, token: str) -> float:
    try:
        x = float(token)
    except ValueError:
        raise DomainError(f"{option} must be a number, a comma list or start:stop:step (got {token!r})") from None
    if math.isnan(x) or math.isinf(x):
        raise DomainError(f"{option} must be finite (got {token!r})")
    return x


def _range(option: str, item: str) -> list[float]:
    parts = item.split(":")
    if len(parts) not in (2, 3):
        raise DomainError(f"{option}: a range is start:stop or start:stop:step (got {item!r})")
    start, stop = _number(option, parts[0]), _number(option, parts[1])
    step = _number(option, parts[2]) if len(parts) == 3 else 1.0
    if step <= 0 or stop < start:
        raise DomainError(f"{option}: a range needs start <= stop and step > 0 (got {item!r})")
    count = math.floor((stop - start) / step * (1 + 1e-12) + 1e-9) + 1
    if count > _MAX_RANGE:
        raise DomainError(f"{option}: the range {item!r} has {count} values (at most {_MAX_RANGE})")
    # start + i*step, rounded to the step's decimals so 0.1 steps print as 0.3, not 0.30000000000000004
    decimals = max(_decimals(parts[0]), _decimals(parts[2]) if len(parts) == 3 else 0)
    return [round(start + i * step, decimals) if decimals < 15 else start + i * step for i in range(count)]


def _decimals(token: str) -> int:
    token = token.strip().lower()
    if "e" in token:
        return 15
    return len(token.split(".")[1]) if "." in token else 0


def parse_values(option: str, text: str | float | int) -> list[float]:
    """Parse one option's text into a list of floats (a value, ``a,b,c``, ``start:stop[:step]``, or mixes)."""
    if isinstance(text, int | float):
        return [_number(option, str(text))]
    items = [t.strip() for t in str(text).split(",")]
    if not items or any(t == "" for t in items):
        raise DomainError(f"{option} has an empty element in {text!r}")
    out: list[float] = []
    for item in items:
        out.extend(_range(option, item) if ":" in item else [_number(option, item)])
    return out


def parse_vector(option: str, text: str) -> list[float]:
    """A per-client vector: a comma list, or the path of a file with numbers (CSV, one column or row)."""
    path = Path(text)
    if "," not in text and ":" not in text and path.suffix and path.is_file():
        tokens = path.read_text(encoding="utf-8").replace(",", " ").split()
        tokens = [t for t in tokens if _is_number(t)]
        if not tokens:
            raise DomainError(f"{option}: file {text!r} holds no numbers")
        return [_number(option, t) for t in tokens]
    items = [t.strip() for t in text.split(",")]
    if any(t == "" for t in items):
        raise DomainError(f"{option} has an empty element in {text!r}")
    return [_number(option, t) for t in items]


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def grid(options: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
    """Give each option its own broadcast axis (``np.ix_``): shapes (n1,1,..), (1,n2,..), …"""
    names = list(options)
    axes = np.ix_(*[np.asarray(options[n], dtype=np.float64) for n in names])
    return dict(zip(names, axes, strict=True))


def flatten(shape_like: Mapping[str, np.ndarray], results: Mapping[str, object]) -> list[dict[str, float]]:
    """Broadcast inputs and results to one grid and return one row dict per grid point (C order)."""
    arrays = {**shape_like, **{k: np.asarray(v, dtype=np.float64) for k, v in results.items()}}
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    flat = {k: np.broadcast_to(a, shape).ravel() for k, a in arrays.items()}
    n = int(np.prod(shape)) if shape else 1
    return [{k: float(a[i]) for k, a in flat.items()} for i in range(n)]
