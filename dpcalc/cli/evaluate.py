"""``dpcalc eval ID --<input> VALUES…``: any catalog formula over a grid of its inputs.

The options are the entry's input names (``dpcalc formulas show ID`` lists them): scalar and index inputs take
a value, a comma list or a range (one grid axis each); a vector input takes a comma list or a file.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dpcalc.cli._common import AsPublishedOpt, output_command
from dpcalc.errors import DomainError
from dpcalc.report.columns import column
from dpcalc.report.grid import parse_values, parse_vector
from dpcalc.report.render import Column, Result


def _pairs(args: list[str]) -> dict[str, str]:
    """``["--eps", "1,5", "--d=10"]`` → ``{"eps": "1,5", "d": "10"}``."""
    out: dict[str, str] = {}
    items = iter(args)
    for token in items:
        if not token.startswith("--") or token == "--":
            raise DomainError(f"expected --<input> VALUES, got {token!r}")
        name, eq, value = token[2:].partition("=")
        if not eq:
            value = next(items, None)  # type: ignore[assignment]
            if value is None:
                raise DomainError(f"--{name} needs a value")
        if name in out:
            raise DomainError(f"--{name} is given twice")
        out[name] = value
    return out


def eval_command(
    ctx: typer.Context,
    formula_id: Annotated[str, typer.Argument(help="Catalog formula id (dpcalc formulas list).", show_default=False)],
    as_published: AsPublishedOpt = False,
    precision: Annotated[int | None, typer.Option(
        "--precision", help="Also evaluate the catalog's SymPy form with mpmath at this many significant digits "
                            "and print them.")] = None,
) -> Result:
    """Evaluate any catalog formula over a grid of its inputs (--<input> VALUES, one option per input).

    Example: dpcalc eval midp.server_sigma --eps 1,5 --d 1000 --C 1 --p_max 1;
    dpcalc eval gdp.delta_from_eps --eps 1 --mu 0.5 --precision 40
    """
    from dpcalc import catalog
    from dpcalc.catalog.evaluate import evaluate

    try:
        formula = catalog.get(formula_id)
    except KeyError as exc:
        raise DomainError(str(exc.args[0])) from None
    given = _pairs(list(ctx.args))
    kinds = {i.name: i.kind for i in formula.inputs}
    values: dict[str, Any] = {}
    for name, text in given.items():
        if kinds.get(name) == "vector":
            values[name] = parse_vector(f"--{name}", text)
        else:
            values[name] = parse_values(f"--{name}", text)
    ev = evaluate(formula, values, published=as_published, precision=precision)
    out = formula.output.name
    cols = [column(formula.id, i.name) if i.kind != "vector" else Column(i.name, i.name, text=True)
            for i in formula.inputs]
    cols.append(column(formula.id, out))
    if as_published:
        cols.append(column(formula.id, out, key=f"{out}_published", label=f"{out} (published)"))
    if precision is not None:
        cols.append(Column(f"{out}_digits", f"{out} ({precision} digits, SymPy/mpmath)", text=True,
                           unit=formula.output.unit))
    return Result(columns=cols, rows=ev.rows, title=f"{formula.id}: {formula.title}",
                  note=f"{formula.paper.short}, eq. {formula.equation}; status {formula.status}.",
                  formula=formula.id, meta={"precision": precision, "as_published": as_published})


def register(app: typer.Typer) -> None:
    """Attach ``eval`` to the root app."""
    app.command("eval", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(
        output_command(eval_command))
