"""Parsing of numeric CLI options: a value, a comma list (``1,2,5``) or an inclusive range (``1:10:0.5``)
(vectors and matrices that may come from files: `dpcalc.report.vectors`).

Each option becomes its own axis of a broadcast grid (``np.ix_``), so the library validates every
option's list with element positions that match what the user typed, and rows come out in
``itertools.product`` order (first option slowest).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from dpcalc import _limits
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
    span = (stop - start) / step * (1 + 1e-12) + 1e-9  # may be inf (1e308 / 1e-308): checked before floor
    if not span < _MAX_RANGE:
        raise DomainError(f"{option}: the range {item!r} has {span + 1:.4g} values (at most {_MAX_RANGE:,})")
    count = math.floor(span) + 1
    if start + (count - 1) * step == start and count > 1:
        raise DomainError(f"{option}: the step of {item!r} is below the floating-point resolution at {start:g}")
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


def _size(values: Sequence[float] | np.ndarray) -> int:
    return int(np.size(values))


def check_grid(options: Mapping[str, Sequence[float] | np.ndarray], outputs: int = 4) -> int:
    """Raise a one-line DomainError before allocating if the sweep over ``options`` is too large.

    The sweep has the product of every option's value count as rows; it must stay within
    `dpcalc._limits.MAX_ROWS` and, at about ``16 * (inputs + outputs)`` bytes a row for the arrays and
    their temporaries, within the memory cap. Returns the row count.
    """
    rows = math.prod(_size(v) for v in options.values())
    names = ", ".join(f"--{k}" for k, v in options.items() if _size(v) > 1) or "the options"
    _limits.check_rows(f"{names} ({' x '.join(str(_size(v)) for v in options.values() if _size(v) > 1)} values)",
                       rows, 16.0 * (len(options) + outputs))
    return rows


def product(options: Mapping[str, Sequence[float]]) -> Iterator[tuple[float, ...]]:
    """Rows of the sweep in ``itertools.product`` order (first option slowest), after `check_grid`."""
    check_grid(options)
    return itertools.product(*options.values())


def grid(options: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
    """Give each option its own broadcast axis (``np.ix_``): shapes (n1,1,..), (1,n2,..), …"""
    check_grid(options)
    names = list(options)
    axes = np.ix_(*[np.asarray(options[n], dtype=np.float64) for n in names])
    return dict(zip(names, axes, strict=True))


class Rows(Sequence[dict[str, Any]]):
    """The rows of a sweep, stored column-wise (one 1-D float64 array per key); row dicts are built on demand.

    A million rows take 8 MB a column instead of ~1 GB of dicts, and the renderers read whole column slices
    (`array`) to format and stream them in chunks. Iterating yields fresh dicts: to change rows, make a
    ``list(rows)`` first — or, rather than changing a million dicts, give ``constants`` (a value every row has,
    e.g. the units text), ``missing`` (keys whose NaN means "no value": ``None`` in the row, ``—`` in a table)
    and ``texts`` (a text cell per row, e.g. a number written beyond the double range: `with_texts`).
    """

    def __init__(self, columns: Mapping[str, np.ndarray], constants: Mapping[str, Any] | None = None,
                 missing: Iterable[str] = ()) -> None:
        self.data = {k: np.ascontiguousarray(v, dtype=np.float64).ravel() for k, v in columns.items()}
        self._distinct = {k: d for k, v in columns.items() if (d := _distinct(v)) is not None}
        self.constants: dict[str, Any] = dict(constants or {})
        self.missing = frozenset(missing)
        sizes = {a.size for a in self.data.values()}
        if len(sizes) > 1:
            raise ValueError(f"columns of different lengths: {sorted(sizes)}")
        self._n = sizes.pop() if sizes else 0
        self.texts: dict[str, list[str]] = {}

    def with_constants(self, **values: Any) -> Rows:
        """The same rows (sharing the arrays) with constant columns added: ``rows.with_constants(units="bits")``."""
        new = Rows({}, {**self.constants, **values}, self.missing)
        new.data, new._distinct, new._n, new.texts = self.data, self._distinct, self._n, self.texts
        return new

    def with_texts(self, **columns: list[str]) -> Rows:
        """The same rows (sharing the arrays) with text columns added, one string per row."""
        if any(len(t) != self._n for t in columns.values()):
            raise ValueError(f"text columns must have {self._n} rows")
        new = self.with_constants()
        new.texts = {**self.texts, **columns}
        return new

    def __len__(self) -> int:
        return self._n

    def _row(self, i: int) -> dict[str, Any]:
        row: dict[str, Any] = {k: float(a[i]) for k, a in self.data.items()}
        for k in self.missing & row.keys():
            if row[k] != row[k]:
                row[k] = None
        for k, t in self.texts.items():
            row[k] = t[i]
        return {**row, **self.constants} if self.constants else row

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._row(j) for j in range(*i.indices(self._n))]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._row(i % self._n)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._row(i) for i in range(self._n))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def array(self, key: str, start: int, stop: int) -> NDArray[np.float64] | list[Any]:
        """Values of ``key`` for rows ``start:stop``: a view of its array (NaN where a `missing` key has no
        value), else a list (the constant, or ``None`` where the key is absent)."""
        if key not in self.data:
            return [self.constants.get(key)] * max(0, min(stop, self._n) - start)
        return self.data[key][start:stop]

    def distinct(self, key: str) -> tuple[NDArray[np.float64], tuple[int, ...]] | None:
        """For a column broadcast over the grid (a sweep input): its values along the axes it varies on (1 on
        the others) and the grid's shape, so ``np.broadcast_to(values, shape).ravel()`` is the column; else None.
        """
        return self._distinct.get(key)

    def column(self, key: str, start: int, stop: int) -> list[Any]:
        """Values of ``key`` for rows ``start:stop`` as in the row dicts (floats, None, or the constant)."""
        if key not in self.data:
            return [self.constants.get(key)] * max(0, min(stop, self._n) - start)
        values = self.data[key][start:stop].tolist()
        return [None if x != x else x for x in values] if key in self.missing else values


def _distinct(values: Any) -> tuple[NDArray[np.float64], tuple[int, ...]] | None:
    """(values along the varying axes, shape) of an array broadcast along some axes (stride 0), else None."""
    if not isinstance(values, np.ndarray) or values.size < 2:
        return None
    if not any(st == 0 and n > 1 for st, n in zip(values.strides, values.shape, strict=True)):
        return None
    base = values[tuple(slice(0, 1) if st == 0 else slice(None) for st in values.strides)]
    return np.ascontiguousarray(base, dtype=np.float64), values.shape


def flatten(shape_like: Mapping[str, np.ndarray], results: Mapping[str, object], missing: Iterable[str] = ()
            ) -> Rows:
    """Broadcast inputs and results to one grid; one row per grid point (C order), stored column-wise.

    ``missing``: result keys whose NaN means "no value here" (``None`` in the row), e.g. an optimum not attained.
    """
    arrays = {**shape_like, **{k: np.asarray(v, dtype=np.float64) for k, v in results.items()}}
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    return Rows({k: np.broadcast_to(a, shape) for k, a in arrays.items()}, missing=missing)


def stream_csv(evaluate: Any, options: Mapping[str, Sequence[float]], path: Any, *, scheduler: Any = None,
               workers: int = 1, force: bool = False) -> int:
    """The block hook: evaluate a sweep too large for memory in blocks (``evaluate(block options) -> columns``, see
    `dpcalc.sim.sweep.write_csv`) on this machine or a Dask cluster, written to ``path`` as it completes;
    the row cap is `dpcalc.sim.sweep.MAX_SWEEP_ROWS`, not the in-memory one. Returns the row count."""
    from dpcalc._progress import tracker
    from dpcalc.sim.sweep import write_csv

    with tracker("sweep blocks") as update:
        return write_csv(evaluate, options, path, scheduler=scheduler, workers=workers, done=update, force=force)

