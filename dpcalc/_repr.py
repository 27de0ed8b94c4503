"""Short ``repr`` for result objects: what a notebook prints should fit on a screen.

A result dataclass may carry whole curves (a scan over 10⁶ values of T, a δ-curve); the generated ``repr`` would
print every value. `short_repr` replaces it with one that shows scalars in full (their digits matter) and
summarises arrays and long sequences::

    @short_repr
    @dataclass(frozen=True)
    class OptimalT:
        t_star: int
        curve: FloatArray

    OptimalT(t_star=9, curve=array(shape=(1000,), min=0.01231, max=0.4102))
"""

from __future__ import annotations

import dataclasses
import reprlib
from typing import Any, TypeVar

import numpy as np

__all__ = ["short", "short_repr"]

T = TypeVar("T", bound=type)

#: sequences longer than this are summarised
MAX_ITEMS = 6


def short(value: Any) -> str:
    """A short text for one field value: arrays by shape and range, long sequences by their head and length."""
    if isinstance(value, np.ndarray):
        if value.size <= MAX_ITEMS:
            return repr(value.tolist())
        if np.issubdtype(value.dtype, np.number) and value.size:
            finite = value[np.isfinite(value)] if np.issubdtype(value.dtype, np.floating) else value
            if finite.size:
                return f"array(shape={value.shape}, min={finite.min():.4g}, max={finite.max():.4g})"
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, tuple | list) and len(value) > MAX_ITEMS:
        head = ", ".join(short(x) for x in value[:3])
        left, right = "()" if isinstance(value, tuple) else "[]"
        return f"{left}{head}, … {len(value)} items{right}"
    if isinstance(value, dict) and len(value) > MAX_ITEMS:
        return reprlib.repr(value)
    return repr(value)


def short_repr(cls: T) -> T:
    """Class decorator for a dataclass: a ``__repr__`` built from `short` of each field shown in the repr."""

    def __repr__(self: Any) -> str:
        parts = (f"{f.name}={short(getattr(self, f.name))}" for f in dataclasses.fields(self) if f.repr)
        return f"{type(self).__name__}({', '.join(parts)})"

    cls.__repr__ = __repr__  # type: ignore[assignment]
    return cls
