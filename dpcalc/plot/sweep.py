"""A `FigureSpec` for an ad-hoc sweep of one catalog formula (``dpcalc plot sweep``), any entry of scalar inputs.

Inputs are named as the catalog names them (``sigma``) or as the command line does (``noise-multiplier``,
``noise_multiplier``). An input without values takes the catalog's: its default, else its value in the entry's
first test vector; a swept input without values spans a decade either side of that value (within its domain, on a
logarithmic axis). Axis labels come from the catalog: the input's and the output's LaTeX symbol (drawn by
matplotlib's mathtext) and unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcalc.errors import DomainError
from dpcalc.plot.spec import FigureSpec, SeriesSpec, Step
from dpcalc.report.grid import parse_values

__all__ = ["POINTS", "default_values", "eligible", "input_name", "sweep_spec"]

POINTS = 25  # points of a default x range (odd: the catalog's value is the middle one)


def _axis_label(symbol: str, unit: str) -> str:
    shown = unit.split(" (")[0].strip()
    return f"${symbol}$" + ("" if shown in ("", "dimensionless") else f" ({shown})")


def _key(name: str) -> str:
    return name.strip().lstrip("-").replace("-", "_").lower()


def input_name(entry: Any, name: str, option: str) -> str:
    """The catalog input ``name`` designates: its catalog name or its command-line option's (``noise-multiplier``,
    ``--noise-multiplier``, ``noise_multiplier``); a one-line `DomainError` listing both otherwise."""
    for i in entry.inputs:
        if name == i.name or _key(name) in {_key(i.name), _key(i.option or i.name)}:
            return str(i.name)
    known = ", ".join(i.name + (f" (--{i.option})" if i.option else "") for i in entry.inputs)
    raise DomainError(f"{option}: {entry.id} has no input {name!r} (inputs: {known})")


def _reference(entry: Any, name: str) -> float:
    """The value an input takes when none is given: its default, else its value in the first test vector."""
    i = entry.input(name)
    if i.default is not None:
        return float(i.default)
    for example in entry.examples:
        value = example.inputs.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    raise DomainError(f"{entry.id} has no default for {name!r}: give --set {name}=VALUE")


def default_values(entry: Any, name: str, points: int = POINTS) -> tuple[list[float], bool]:
    """An x range for input ``name`` (and whether it is logarithmic): a decade either side of its reference value
    (`_reference`), clipped to the input's domain, integers rounded; around 0, a linear ±1."""
    import numpy as np

    i = entry.input(name)
    v = _reference(entry, name)
    log = v > 0
    xs = np.geomspace(v / 10, v * 10, points) if log else np.linspace(v - 1, v + 1, points)
    d = i.domain
    if d.integer:
        xs = np.unique(np.round(xs))
    inside = [float(x) for x in xs if d.contains(float(x)) or (d.integer and d.contains(float(round(x))))]
    if len(inside) < 2:
        lo = d.lo if not d.lo_open else (d.lo + (abs(v) or 1) * 1e-3)
        hi = d.hi if not d.hi_open else (d.hi - (abs(v) or 1) * 1e-3)
        inside = [float(x) for x in np.linspace(max(lo, v - 1), min(hi, v + 1), points) if d.contains(float(x))]
    if len(inside) < 2:
        raise DomainError(f"--x {name}: no default range inside its domain {d}; give --x {name}=VALUES")
    return inside, log and inside[-1] / inside[0] >= 10


def _math_value(x: float) -> str:
    text = f"{x:.4g}"
    if "e" in text:
        mant, exp = text.split("e")
        return (f"10^{{{int(exp)}}}" if mant == "1" else f"{mant} \\times 10^{{{int(exp)}}}")
    return text


def sweep_spec(formula_id: str, x: tuple[str, str], by: tuple[str, str] | None, fixed: Mapping[str, str], *,
               published: bool = False, logx: bool = False, logy: bool = False, title: str = "",
               points: int = POINTS) -> FigureSpec:
    """Sweep input ``x = (name, values text)``, one line per value of ``by``, other inputs from ``fixed``.

    Values left empty (``""``) take the catalog's (see the module). ``published`` adds the published (erroneous)
    form of a corrected formula as dashed lines.
    """
    from dpcalc import catalog

    try:
        entry = catalog.get(formula_id)
    except KeyError as exc:
        raise DomainError(str(exc.args[0])) from None
    if any(i.kind != "scalar" for i in entry.inputs):
        raise DomainError(f"{formula_id} has vector or index inputs; sweeps take formulas of scalar inputs only")
    x_name = input_name(entry, x[0], "--x")
    by_name = input_name(entry, by[0], "--by") if by else None
    chosen = {input_name(entry, k, "--set"): v for k, v in fixed.items()}
    used = [x_name, *([by_name] if by_name else []), *chosen]
    if len(set(used)) != len(used) or len(chosen) != len(fixed):
        raise DomainError("each input may be given once among --x, --by and --set")
    if published and entry.erratum is None:
        raise DomainError(f"--published: {formula_id} has no published (erroneous) form")
    inputs: dict[str, float] = {}
    for i in entry.inputs:
        if i.name in (x_name, by_name):
            continue
        if i.name in chosen:
            values = parse_values(f"--set {i.name}", chosen[i.name])
            if len(values) != 1:
                raise DomainError(f"--set {i.name} takes one value (use --by for several)")
            inputs[i.name] = values[0]
        else:
            inputs[i.name] = _reference(entry, i.name)
    if x[1]:
        x_values, auto_log = parse_values(f"--x {x_name}", x[1]), False
    else:
        x_values, auto_log = default_values(entry, x_name, points)
    by_values = None
    if by_name and by:
        if by[1]:
            by_values = (by_name, tuple(parse_values(f"--by {by_name}", by[1])))
        else:
            v = _reference(entry, by_name)
            near = [v / 2, v, v * 2] if v > 0 else [v - 1, v, v + 1]
            d = entry.input(by_name).domain
            by_values = (by_name, tuple(dict.fromkeys(float(round(b)) if d.integer else b for b in near
                                                      if d.contains(float(round(b)) if d.integer else b))))
    x_in = entry.input(x_name)
    label = f"${entry.input(by_name).symbol} = {{{by_name}:g}}$" if by_name else entry.output.symbol
    if not by_name:
        label = f"${label}$"
    series = [SeriesSpec(label=label, step=Step(formula=formula_id, inputs=inputs), by=by_values)]
    if published:
        series.append(SeriesSpec(label=label, step=Step(formula=formula_id, inputs=inputs, published=True),
                                 by=by_values))
    setting = ", ".join(f"${entry.input(k).symbol} = {_math_value(v)}$" for k, v in inputs.items())
    heading = title or (f"{entry.title} ({entry.id}" + (f"; {setting})" if setting else ")"))
    return FigureSpec(id=f"sweep-{formula_id}", paper=entry.paper.id, title=heading,
                      x=x_name, x_values=tuple(x_values), series=tuple(series),
                      x_label=_axis_label(x_in.symbol, x_in.unit),
                      y_label=_axis_label(entry.output.symbol, entry.output.unit), logx=logx or auto_log, logy=logy)


def eligible(entry: Any) -> bool:
    """Whether ``dpcalc plot sweep`` takes ``entry``: every input a scalar."""
    return all(i.kind == "scalar" for i in entry.inputs)
