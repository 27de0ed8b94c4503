"""``dpcalc formulas list|show``: browse the formula catalog."""

from __future__ import annotations

from typing import Annotated

import typer

from dpcalc.cli._common import JsonOpt, command, handle_errors
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

formulas_app = typer.Typer(help="Browse the formula catalog (paper, equation, LaTeX, SymPy, errata).",
                           no_args_is_help=True)


@command(formulas_app, "list")
def list_command(
    paper: Annotated[str | None, typer.Option("--paper", help="Only this paper, e.g. 000.")] = None,
) -> Result:
    """List catalog formulas: id, equation, status, title.

    Example: dpcalc formulas list --paper 000
    """
    from dpcalc import catalog

    items = catalog.by_paper(paper)
    if not items:
        papers = sorted({f.paper.id for f in catalog.load().values()})
        raise DomainError(f"--paper must be one of {', '.join(papers)} (got {paper!r})")
    rows = [{"id": f.id, "paper": f.paper.id, "equation": f.equation, "status": f.status, "title": f.title}
            for f in items]
    return Result(columns=[Column(k, text=True) for k in ("id", "paper", "equation", "status", "title")],
                  rows=rows, title="dpcalc formula catalog", formula=[f.id for f in items])


@formulas_app.command("show")
@handle_errors
def show_command(
    formula_id: Annotated[str, typer.Argument(help="Formula id, e.g. midp.server_sigma.")],
    json_: JsonOpt = False,
) -> None:
    """Show one formula: source, LaTeX, plain-text form, inputs, assumptions, errata, examples.

    Example: dpcalc formulas show midp.server_sigma
    """
    import json

    from dpcalc import catalog

    try:
        f = catalog.get(formula_id)
    except KeyError as exc:
        raise DomainError(str(exc.args[0])) from None
    doc = {
        "id": f.id, "title": f.title, "paper": f.paper.short, "doi": f.paper.doi, "equation": f.equation,
        "status": f.status, "latex": f.latex, "sympy": f.sympy, "implementation": f.implementation,
        "inputs": [{"name": i.name, "symbol": i.symbol, "unit": i.unit, "domain": str(i.domain), "kind": i.kind}
                   for i in f.inputs],
        "output": {"name": f.output.name, "symbol": f.output.symbol, "unit": f.output.unit},
        "assumptions": list(f.assumptions), "notes": f.notes,
        "erratum": None if f.erratum is None else {"text": f.erratum.text, "evidence": f.erratum.evidence,
                                                   "published_sympy": f.erratum.published_sympy},
        "examples": [{"inputs": dict(e.inputs), "expected": e.expected} for e in f.examples],
        "check": dict(f.check),
    }
    if json_:
        print(json.dumps(doc, indent=2))
        return
    import sympy
    from rich.console import Console

    con = Console(highlight=False, soft_wrap=True, markup=False)  # catalog text has brackets: print it verbatim
    con.print(f.id, style="bold", end="")
    con.print(f" — {f.title}")
    con.print(f"source: {f.paper.short}, eq. {f.equation}" + (f"  (doi:{f.paper.doi})" if f.paper.doi else ""))
    con.print(f"status: {f.status}")
    con.print(f"LaTeX:  {f.latex}")
    con.print("plain:  " + f"{f.output.name} = " + sympy.sstr(f.sympy_expr()))
    con.print(sympy.pretty(f.sympy_expr(), use_unicode=True))
    con.print(f"implementation: {f.implementation}")
    con.print("inputs:")
    for i in f.inputs:
        con.print(f"  {i.name:<10} {i.symbol:<14} {i.unit:<22} domain {i.domain}"
                  + (f" ({i.kind})" if i.kind != "scalar" else ""))
    con.print(f"output: {f.output.name} [{f.output.unit}]")
    if f.assumptions:
        con.print("assumptions:")
        for a in f.assumptions:
            con.print(f"  - {a}")
    if f.notes:
        con.print(f"notes: {f.notes}")
    if f.erratum is not None:
        con.print("erratum:", style="bold", end="")
        con.print(f" {f.erratum.text}")
        con.print(f"evidence: {f.erratum.evidence}")
        if f.erratum.published_sympy:
            con.print(f"published form: {f.erratum.published_sympy}")
    for e in f.examples:
        con.print(f"example: {dict(e.inputs)} -> {e.expected}")


def register(app: typer.Typer) -> None:
    """Attach the ``formulas`` group."""
    app.add_typer(formulas_app, name="formulas")
