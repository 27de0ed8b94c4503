"""``dpcalc eval ID --<input> VALUES…``: any catalog formula over a grid of its inputs.

The options are the entry's input names (``dpcalc formulas show ID`` lists them), or the command-line names the
catalog gives them (``--data-size`` for m): scalar and index inputs take a value, a comma list or a range (one grid
axis each); a vector input takes a comma list or a file. An input with a catalog default may be left out.
"""

from __future__ import annotations

from typing import Any

from dpcalc.cli.command import Args, command
from dpcalc.cli.options import AS_PUBLISHED, argument, integer
from dpcalc.errors import DomainError
from dpcalc.report.columns import column
from dpcalc.report.grid import parse_values
from dpcalc.report.render import Column, Result
from dpcalc.report.vectors import parse_vector

__all__ = ["ENTRIES"]


def _pairs(args: list[str]) -> dict[str, str]:
    """``["--eps", "1,5", "--d=10"]`` → ``{"--eps": "1,5", "--d": "10"}``."""
    out: dict[str, str] = {}
    items = iter(args)
    for token in items:
        if not token.startswith("--") or token == "--":
            raise DomainError(f"expected --<input> VALUES, got {token!r}")
        name, eq, value = token.partition("=")
        if not eq:
            value = next(items, None)  # type: ignore[assignment]
            if value is None:
                raise DomainError(f"{name} needs a value")
        if name in out:
            raise DomainError(f"{name} is given twice")
        out[name] = value
    return out


@command("eval", argument("formula_id", formula="-", option="FORMULA_ID", help="Catalog formula id (dpcalc formulas "
                                                                               "list)"),
         AS_PUBLISHED, integer("precision", formula="-", default=None, help=(
             "Also evaluate the catalog's SymPy form with mpmath at this many significant digits and print them")),
         formula="-", extra_args=True)
def eval_command(a: Args) -> Result:
    """Evaluate any catalog formula over a grid of its inputs (--<input> VALUES, one option per input).

    Example: dpcalc eval midp.server_sigma --eps 1,5 --d 1000 --C 1 --p_max 1;
    dpcalc eval gdp.delta_from_eps --eps 1 --mu 0.5 --precision 40
    """
    from dpcalc import catalog
    from dpcalc.catalog.evaluate import evaluate

    try:
        formula = catalog.get(a.formula_id)
    except KeyError as exc:
        raise DomainError(str(exc.args[0])) from None
    named = {f"--{i.name}": i for i in formula.inputs} | {f"--{i.option}": i for i in formula.inputs if i.option}
    values: dict[str, Any] = {}
    for option, text in _pairs(a.extra).items():
        i = named.get(option)
        name = i.name if i is not None else option.removeprefix("--")  # unknown: the evaluator names it
        if name in values:
            raise DomainError(f"{option} gives input {name!r} twice")
        values[name] = (parse_vector if i is not None and i.kind == "vector" else parse_values)(option, text)
    for i in formula.inputs:  # an input not given takes its default (the catalog's = the implementation's)
        if i.name not in values and i.default is not None:
            values[i.name] = [i.default]
    ev = evaluate(formula, values, published=a.as_published, precision=a.precision)
    out = formula.output.name
    cols = [column(formula.id, i.name) if i.kind != "vector" else Column(i.name, i.name, text=True)
            for i in formula.inputs]
    cols.append(column(formula.id, out))
    if a.as_published:
        cols.append(column(formula.id, out, key=f"{out}_published", label=f"{out} (published)"))
    if a.precision is not None:
        cols.append(Column(f"{out}_digits", f"{out} ({a.precision} digits, SymPy/mpmath)", text=True,
                           unit=formula.output.unit))
    return Result(columns=cols, rows=ev.rows, title=f"{formula.id}: {formula.title}",
                  note=f"{formula.paper.short}, eq. {formula.equation}; status {formula.status}.",
                  formula=formula.id, meta={"precision": a.precision, "as_published": a.as_published})


ENTRIES = (eval_command,)
