"""A `FigureSpec` for an ad-hoc sweep of one catalog formula (``dpcalc plot sweep``).

Axis labels come from the catalog: the input's and the output's LaTeX symbol (drawn by matplotlib's mathtext)
and unit.
"""

from __future__ import annotations

from collections.abc import Mapping

from dpcalc.errors import DomainError
from dpcalc.plot.spec import FigureSpec, SeriesSpec, Step
from dpcalc.report.grid import parse_values

__all__ = ["sweep_spec"]


def _axis_label(symbol: str, unit: str) -> str:
    shown = unit.split(" (")[0].strip()
    return f"${symbol}$" + ("" if shown in ("", "dimensionless") else f" ({shown})")


def sweep_spec(formula_id: str, x: tuple[str, str], by: tuple[str, str] | None, fixed: Mapping[str, str], *,
               published: bool = False, logx: bool = False, logy: bool = False, title: str = "") -> FigureSpec:
    """Sweep input ``x = (name, values text)``, one line per value of ``by``, other inputs from ``fixed``.

    ``published`` adds the published (erroneous) form of a corrected formula as dashed lines.
    """
    from dpcalc import catalog

    try:
        entry = catalog.get(formula_id)
    except KeyError as exc:
        raise DomainError(str(exc.args[0])) from None
    names = [i.name for i in entry.inputs if i.kind == "scalar"]
    if any(i.kind != "scalar" for i in entry.inputs):
        raise DomainError(f"{formula_id} has vector or index inputs; sweeps take formulas of scalar inputs only")
    used = [x[0], *([by[0]] if by else []), *fixed]
    options = ["--x", *(["--by"] if by else []), *(["--set"] * len(fixed))]
    for name, option in zip(used, options, strict=True):
        if name not in names:
            raise DomainError(f"{option}: {formula_id} has no input {name!r} (inputs: {', '.join(names)})")
    if len(set(used)) != len(used):
        raise DomainError("each input may be given once among --x, --by and --set")
    missing = [n for n in names if n not in used]
    if missing:
        raise DomainError(f"{formula_id} needs a value for {', '.join(missing)} (give --set NAME=VALUE)")
    if published and entry.erratum is None:
        raise DomainError(f"--published: {formula_id} has no published (erroneous) form")
    inputs = {}
    for name, text in fixed.items():
        values = parse_values(f"--set {name}", text)
        if len(values) != 1:
            raise DomainError(f"--set {name} takes one value (use --by for several)")
        inputs[name] = values[0]
    by_values = (by[0], tuple(parse_values(f"--by {by[0]}", by[1]))) if by else None
    label = f"{by[0]} = {{{by[0]}:g}}" if by else entry.id
    series = [SeriesSpec(label=label, step=Step(formula=formula_id, inputs=inputs), by=by_values)]
    if published:
        series.append(SeriesSpec(label=label, step=Step(formula=formula_id, inputs=inputs, published=True),
                                 by=by_values))
    x_in = entry.input(x[0])
    return FigureSpec(id=f"sweep-{formula_id}", paper=entry.paper.id, title=title or f"{entry.title} ({entry.id})",
                      x=x[0], x_values=tuple(parse_values(f"--x {x[0]}", x[1])), series=tuple(series),
                      x_label=_axis_label(x_in.symbol, x_in.unit),
                      y_label=_axis_label(entry.output.symbol, entry.output.unit), logx=logx, logy=logy)
