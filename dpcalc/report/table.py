"""Publication tables from a small TOML spec (``dpcalc table SPEC.toml``): catalog formulas over a parameter grid.

A spec names the grid (one row per combination, first key slowest), fixed inputs, and the columns: inputs of
the grid, or catalog formulas (their published form with ``published = true``) with number formatting::

    title = "Minimum noise for ε-MI-DP"       # caption (LaTeX: \\caption)
    label = "tab:midp-sigma"                  # LaTeX \\label (optional)
    digits = 4                                # significant digits (default 6)
    notation = "auto"                         # auto | sci | fixed

    [grid]
    eps = [1, 5, 10]
    d = [1e3, 1e6]

    [inputs]
    C = 1
    N = 10

    [[column]]
    input = "eps"

    [[column]]
    formula = "midp.server_sigma_equal"
    key = "sigma_server"
    label = "σ_server"                        # optional: default symbol (unit) from the catalog
    latex = '$\\sigma_{\\mathrm{server}}$'

The labels, LaTeX symbols and units of the columns come from the catalog (`dpcalc.report.columns`); the
result renders in every format of `dpcalc.report.render`. Every problem in a spec is one line naming the
file, the line, the table and the key (`SpecError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dpcalc.errors import DomainError
from dpcalc.report.latex import latex_text
from dpcalc.report.render import Column, Result, render
from dpcalc.report.spec import KeyPath, Spec

_TOP_KEYS = ("title", "label", "note", "digits", "notation", "grid", "inputs", "column")
_COLUMN_KEYS = ("input", "formula", "key", "label", "latex", "unit", "digits", "notation", "published", "inputs")
NOTATIONS = ("auto", "sci", "fixed")


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a table spec: a grid input (``input``) or a catalog formula (``formula``)."""

    key: str
    input: str = ""
    formula: str = ""
    published: bool = False
    inputs: Mapping[str, Any] = field(default_factory=dict)  # number, list, or the name of a grid/fixed input
    label: str = ""
    latex: str = ""
    unit: str | None = None
    number: str = ""


@dataclass(frozen=True)
class TableSpec:
    title: str
    grid: Mapping[str, list[float]]
    inputs: Mapping[str, Any]
    columns: tuple[ColumnSpec, ...]
    label: str = ""
    note: str = ""
    source: str = ""


def number_format(notation: str, digits: int) -> str:
    """The format spec of ``digits`` significant digits in ``notation`` (auto → ``g``, sci → ``e``, fixed → ``f``)."""
    if not isinstance(notation, str):
        raise DomainError(f"notation must be 'auto', 'sci' or 'fixed' (got {type(notation).__name__})")
    if notation == "sci":
        return f".{digits - 1}e"
    if notation == "fixed":
        return f".{digits}f"
    return f".{digits}g"


def _number(spec: Spec, path: KeyPath, raw: Mapping[str, Any], default: str) -> str:
    digits = spec.get((*path, "digits"), None, within=raw)
    notation = spec.get((*path, "notation"), None, within=raw)
    if digits is None and notation is None:
        return default
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17):
        raise spec.error((*path, "digits"), f"must be an integer in [1, 17] (got {digits!r})")
    if notation is not None and notation not in NOTATIONS:
        raise spec.error((*path, "notation"), f"must be one of {', '.join(NOTATIONS)} (got {notation!r})")
    base_notation, base_digits = _split(default)
    return number_format(notation or base_notation, digits or base_digits)


def _split(fmt: str) -> tuple[str, int]:
    kind = {"e": "sci", "f": "fixed", "g": "auto"}[fmt[-1]]
    digits = int(fmt[1:-1]) + (1 if kind == "sci" else 0)
    return kind, digits


def _column(spec: Spec, k: int, raw: Mapping[str, Any], default_number: str, known: set[str]) -> ColumnSpec:
    from dpcalc import catalog

    path: KeyPath = ("column", k)
    spec.check_keys(path, raw, _COLUMN_KEYS)
    inp, formula = raw.get("input"), raw.get("formula")
    if (inp is None) == (formula is None):
        raise spec.error((*path, "formula"), "give exactly one of 'input' (a grid or fixed input) or 'formula' "
                                             "(a catalog id)")
    for key in ("input", "formula", "key", "label", "latex", "unit"):
        if key in raw and not isinstance(raw[key], str):
            raise spec.error((*path, key), f"must be a string (got {raw[key]!r})")
    published = raw.get("published", False)
    if not isinstance(published, bool):
        raise spec.error((*path, "published"), f"must be true or false (got {published!r})")
    number = _number(spec, path, raw, default_number)
    common = {"label": raw.get("label", ""), "latex": raw.get("latex", ""), "unit": raw.get("unit"), "number": number}
    if inp is not None:
        if inp not in known:
            have = ", ".join(sorted(known))
            raise spec.error((*path, "input"), f"{inp!r} is not in [grid] or [inputs] (have {have})")
        if published or "inputs" in raw:
            raise spec.error((*path, "published" if published else "inputs"), "applies to formula columns only")
        return ColumnSpec(key=raw.get("key", inp), input=inp, **common)
    try:
        entry = catalog.get(formula)  # type: ignore[arg-type]
    except KeyError as exc:
        raise spec.error((*path, "formula"), str(exc.args[0])) from None
    if published and entry.erratum is None:
        raise spec.error((*path, "published"), f"{formula} has no published (erroneous) form")
    overrides = spec.get((*path, "inputs"), {}, within=raw)
    if not isinstance(overrides, dict):
        raise spec.error((*path, "inputs"), "must be a table of input = number or the name of a grid input")
    names = [i.name for i in entry.inputs]
    for name, value in overrides.items():
        if name not in names:
            raise spec.error((*path, "inputs"), f"{formula} has no input {name!r} (inputs: {', '.join(names)})")
        if isinstance(value, str) and value not in known:
            raise spec.error((*path, "inputs"), f"input {name!r} = {value!r} names no grid or fixed input")
    for i in entry.inputs:
        if i.name not in overrides and i.name not in known:
            raise spec.error((*path, "formula"), f"{formula} needs input {i.name!r}: add it to [grid] or [inputs], "
                                                 "or to this column's inputs")
    default_key = entry.id.split(".", 1)[1] + ("_published" if published else "")
    return ColumnSpec(key=raw.get("key", default_key), formula=entry.id, published=published,
                      inputs=dict(overrides), **common)


def parse(spec: Spec) -> TableSpec:
    """Validate a table spec (one-line `SpecError` naming key, line and table)."""
    spec.check_keys((), spec.data, _TOP_KEYS)
    if "grid" not in spec.data:
        raise spec.error(("grid",), "is required: the parameter grid, e.g. [grid] eps = [1, 5, 10]")
    grid_raw = spec.table(("grid",))
    if not grid_raw:
        raise spec.error(("grid",), "needs at least one parameter, e.g. eps = [1, 5, 10]")
    grid = {name: spec.values(("grid", name)) for name in grid_raw}
    fixed_raw = spec.table(("inputs",), {})
    fixed: dict[str, Any] = {}
    for name, value in fixed_raw.items():
        if name in grid:
            raise spec.error(("inputs", name), "is also in [grid]; give it in one place")
        if isinstance(value, list):
            fixed[name] = spec.values(("inputs", name))  # a vector input (e.g. per-client variances)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise spec.error(("inputs", name), f"must be a number or a list of numbers (got {value!r})")
        else:
            fixed[name] = float(value)
    default_number = _number(spec, (), spec.data, number_format("auto", 6))
    known = set(grid) | set(fixed)
    columns = tuple(_column(spec, k, raw, default_number, known) for k, raw in enumerate(spec.tables(("column",))))
    seen: dict[str, int] = {}
    for k, c in enumerate(columns):
        if c.key in seen:
            raise spec.error(("column", k, "key"), f"duplicate column key {c.key!r} (also column #{seen[c.key] + 1}); "
                                                   "give each column its own key")
        seen[c.key] = k
    label = spec.string(("label",), "")
    return TableSpec(title=spec.string(("title",), ""), grid=grid, inputs=fixed, columns=columns, label=label,
                     note=spec.string(("note",), ""), source=spec.name)


def read(path: str | Path) -> TableSpec:
    """Read and validate a table spec file."""
    return parse(Spec.read(path))


def _header(table: TableSpec, c: ColumnSpec) -> Column:
    """The column's label, LaTeX header and unit: the catalog's, with the spec's overrides."""
    from dpcalc import catalog
    from dpcalc.report.columns import column, make_column

    if c.formula:
        entry = catalog.get(c.formula)
        base = column(entry.id, entry.output.name, key=c.key, unit=c.unit)
    else:
        owner = next((catalog.get(o.formula) for o in table.columns if o.formula
                      and any(i.name == c.input for i in catalog.get(o.formula).inputs)
                      and c.input not in o.inputs), None)
        if owner is not None:
            base = column(owner.id, c.input, key=c.key, unit=c.unit)
        else:
            base = make_column(c.key, c.input, c.unit or "")
    if c.published:
        base = base._replace(label=f"{base.label} [published]", latex=f"{base.latex} [published]")
    if c.label:
        base = base._replace(label=c.label)
    if c.latex:
        base = base._replace(latex=c.latex)
    elif c.label:
        base = base._replace(latex=latex_text(c.label))
    return base._replace(number=c.number)


def build(table: TableSpec) -> Result:
    """Evaluate every formula column over the grid; one row per grid point (first grid key slowest)."""
    import warnings

    from dpcalc import catalog
    from dpcalc.report.grid import flatten, grid

    axes = grid(table.grid)
    shape = np.broadcast_shapes(*(a.shape for a in axes.values()))
    values: dict[str, Any] = {}
    pool = {**table.inputs, **axes}
    messages: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for c in table.columns:
            if c.input:
                values[c.key] = np.broadcast_to(np.asarray(pool[c.input], dtype=np.float64), shape)
                continue
            entry = catalog.get(c.formula)
            args = {i.name: (pool[c.inputs[i.name]] if isinstance(c.inputs.get(i.name), str)
                             else c.inputs.get(i.name, pool.get(i.name))) for i in entry.inputs}
            values[c.key] = _call(entry, args, c.published, shape)
    for w in caught:
        if str(w.message) not in messages:
            messages.append(str(w.message))
    rows = flatten({}, {k: np.broadcast_to(v, shape) for k, v in values.items()})
    formulas = list(dict.fromkeys(c.formula for c in table.columns if c.formula))
    return Result(columns=[_header(table, c) for c in table.columns], rows=rows, title=table.title,
                  note=table.note, formula=formulas, warnings=messages, latex_float=True,
                  meta={"spec": table.source, **({"label": table.label} if table.label else {})})


def _call(entry: Any, args: Mapping[str, Any], published: bool, shape: tuple[int, ...]) -> np.ndarray:
    """Evaluate a catalog entry over the grid: one vectorised call, or point by point when a vector input
    (a list, e.g. per-client variances) is given, since those implementations reduce over the vector."""
    if not any(isinstance(v, list) for v in args.values()):
        return np.broadcast_to(np.asarray(entry.call(args, published=published), dtype=np.float64), shape)
    out = np.empty(shape)
    for idx in np.ndindex(shape):
        point = {k: v if isinstance(v, list) else float(np.broadcast_to(v, shape)[idx]) for k, v in args.items()}
        out[idx] = float(entry.call(point, published=published))
    return out


#: The rendering of a table result in any format (LaTeX: the captioned ``table`` float, `Result.latex_float`).
render_table = render
