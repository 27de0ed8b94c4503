"""The numbers behind a figure: evaluate every series of a `FigureSpec` over its x grid.

No plotting here (and no matplotlib): `lines` returns plain arrays, so the data can be tested, tabulated
or drawn by any tool.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpcalc.errors import DomainError
from dpcalc.plot.spec import FigureSpec, SeriesSpec, Step

__all__ = ["KIND_SUFFIX", "Line", "lines", "x_grid"]

KIND_SUFFIX = {"published": "published", "corrected": "corrected", "disputed": "disputed", "estimate": "estimate",
               "bound": "bound", "verified": "verified"}


@dataclass(frozen=True)
class Line:
    """One drawn line: legend ``label``, points ``x``/``y``, ``kind`` (`KINDS`) and its
    formula; ``by``: the value of the series' ``by`` parameter that gave it (None without one)."""

    label: str
    x: np.ndarray
    y: np.ndarray
    kind: str
    formula: str
    by: tuple[str, float] | None = None

    @property
    def legend(self) -> str:
        return f"{self.label} — {self.kind}" if self.kind else self.label


def _catalog_entry(step: Step) -> Any:
    from dpcalc import catalog

    return catalog.get(step.formula) if step.formula else None


def _x_is_integer(fig: FigureSpec) -> bool:
    """True when any series feeds x into an integer-domain catalog input (then the grid is rounded)."""
    for s in fig.series:
        entry = _catalog_entry(s.step)
        name = s.x_input or fig.x
        if entry is not None and not s.x_transform and any(i.name == name and i.domain.integer for i in entry.inputs):
            return True
    return False


def x_grid(fig: FigureSpec) -> np.ndarray:
    """The x values (rounded to distinct integers when the swept input is an integer)."""
    x = np.asarray(fig.x_values, dtype=np.float64)
    if _x_is_integer(fig):
        x = np.unique(np.round(x))
    return x


def _call(step: Step, values: Mapping[str, Any], where: str) -> Any:
    entry = _catalog_entry(step)
    if entry is not None:
        names = [i.name for i in entry.inputs if i.kind != "index"]
        unknown = sorted(set(values) - set(names))
        missing = [n for n in names if n not in values]
        if unknown or missing:
            raise DomainError(f"{where}: {step.formula} takes inputs {', '.join(names)}"
                              + (f"; unknown {', '.join(unknown)}" if unknown else "")
                              + (f"; missing {', '.join(missing)}" if missing else ""))
        return entry.call(values, published=step.published)
    module, _, name = step.function.rpartition(".")
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise DomainError(f"{where}: function {step.function!r} does not exist") from None
    return fn(**values)


def _evaluate(s: SeriesSpec, values: dict[str, Any], x_name: str, where: str, shape: tuple[int, ...]) -> np.ndarray:
    """The series' y over the x grid: one vectorised call; a formula that takes scalars only (or fails somewhere
    on the grid) point by point, NaN (a gap in the line, with a warning) where a point is outside its domain."""
    def once(v: dict[str, Any]) -> np.ndarray:
        y = _call(s.step, v, where)
        if s.then is not None:
            y = _call(s.then, {**s.then.inputs, s.then.input: np.asarray(y, dtype=np.float64)}, where)
        return np.asarray(y, dtype=np.float64)

    try:
        return np.broadcast_to(once(values), shape).copy()
    except DomainError as exc:
        first = exc
    xs = np.asarray(values[x_name], dtype=np.float64).ravel()
    out = np.full(shape, np.nan)
    failed: list[str] = []
    for k, xk in enumerate(xs.tolist()):
        try:
            out.flat[k] = float(once({**values, x_name: xk}))
        except DomainError as exc:
            failed.append(str(exc))
    if len(failed) == xs.size:
        raise first
    if failed:
        warnings.warn(f"{where}: no value at {len(failed)} of {xs.size} points (a gap in the line): {failed[0]}",
                      stacklevel=2)
    return out


def _series_lines(fig: FigureSpec, s: SeriesSpec, x: np.ndarray) -> list[Line]:
    entry = _catalog_entry(s.step)
    kind = s.kind or ("" if entry is None else "disputed" if entry.status == "disputed" else
                      "verified" if entry.erratum is None else "published" if s.step.published else "corrected")
    where = f"figure {fig.id!r}, series {s.label!r}"
    fixed: dict[str, Any] = dict(s.step.inputs)
    for name, rnd in s.random.items():
        lo, hi = rnd["uniform"]
        fixed[name] = np.random.default_rng(int(rnd["seed"])).uniform(float(lo), float(hi), int(rnd["size"]))
    x_in = 1.0 / x if s.x_transform == "reciprocal" else x
    out = []
    for value in (s.by[1] if s.by else (None,)):
        values = {**fixed, (s.x_input or fig.x): x_in}
        label = s.label
        if s.by is not None:
            values[s.by[0]] = value
            label = s.label.format(**{s.by[0]: value})
        y = _evaluate(s, values, s.x_input or fig.x, where, x.shape)
        out.append(Line(label=label, x=x, y=y, kind=kind, formula=s.step.name,
                        by=None if s.by is None or value is None else (s.by[0], float(value))))
    return out


def lines(fig: FigureSpec) -> tuple[list[Line], list[str]]:
    """Every line of ``fig`` and the messages of the warnings raised while computing them (deduplicated)."""
    x = x_grid(fig)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = [line for s in fig.series for line in _series_lines(fig, s, x)]
    if fig.y_transform == "minus_x":
        out = [replace(line, y=line.y - line.x) for line in out]
    elif fig.y_transform == "ratio_to_first":
        out = [replace(line, y=line.y / out[0].y) for line in out]
    messages: list[str] = []
    for w in caught:
        if str(w.message) not in messages:
            messages.append(str(w.message))
    return out, messages
