"""``dpcalc formulas list|show``: browse the formula catalog."""

from __future__ import annotations

from typing import Any

from dpcalc.cli.artifacts import Document
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import argument, text
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]


@command("list", text("paper", formula="-", default_from="dpcalc.catalog:by_paper", param="paper_id",
                      help="Only this paper, e.g. 000"), formula="-")
def list_command(a: Args) -> Result:
    """List catalog formulas: id, equation, status, title.

    Example: dpcalc formulas list --paper 000
    """
    from dpcalc import catalog

    items = catalog.by_paper(a.paper)
    if not items:
        papers = sorted({f.paper.id for f in catalog.load().values()})
        raise DomainError(f"--paper must be one of {', '.join(papers)} (got {a.paper!r})")
    rows = [{"id": f.id, "paper": f.paper.id, "equation": f.equation, "status": f.status, "title": f.title}
            for f in items]
    return Result(columns=[Column(k, text=True) for k in ("id", "paper", "equation", "status", "title")],
                  rows=rows, title="dpcalc formula catalog", formula=[f.id for f in items])


def _text(f: Any) -> str:
    """One entry as text: source, LaTeX, the SymPy form (plain and pretty), inputs, errata, examples."""
    import sympy

    doi = f"  (doi:{f.paper.doi})" if f.paper.doi else ""
    lines = [f"{f.id} — {f.title}", f"source: {f.paper.short}, eq. {f.equation}{doi}", f"status: {f.status}",
             f"LaTeX:  {f.latex}", f"plain:  {f.output.name} = {sympy.sstr(f.sympy_expr())}",
             sympy.pretty(f.sympy_expr(), use_unicode=True), f"implementation: {f.implementation}", "inputs:"]
    for i in f.inputs:
        extra = ([f"({i.kind})"] if i.kind != "scalar" else []) + \
            ([f"default {i.default:g}"] if i.default is not None else []) + \
            ([f"option --{i.option}"] if i.option else [])
        lines.append(f"  {i.name:<10} {i.symbol:<14} {i.unit:<22} domain {i.domain} {' '.join(extra)}".rstrip())
    lines.append(f"output: {f.output.name} [{f.output.unit}]")
    lines += ["assumptions:", *(f"  - {x}" for x in f.assumptions)] if f.assumptions else []
    lines += [f"notes: {f.notes}"] if f.notes else []
    if f.erratum is not None:
        lines += [f"erratum: {f.erratum.text}", f"evidence: {f.erratum.evidence}"]
        lines += [f"published form: {f.erratum.published_sympy}"] if f.erratum.published_sympy else []
    lines += [f"example: {dict(e.inputs)} -> {e.expected}" for e in f.examples]
    return "\n".join(lines) + "\n"


@command("show", argument("formula_id", formula="-", option="FORMULA_ID", help="Formula id, e.g. midp.server_sigma"),
         formula="-", output="document")
def show_command(a: Args) -> Document:
    """Show one formula: source, LaTeX, plain-text form, inputs, assumptions, errata, examples.

    Example: dpcalc formulas show midp.server_sigma
    """
    from dpcalc import catalog

    try:
        f = catalog.get(a.formula_id)
    except KeyError as exc:
        raise DomainError(str(exc.args[0])) from None
    doc = {
        "id": f.id, "title": f.title, "paper": f.paper.short, "doi": f.paper.doi, "equation": f.equation,
        "status": f.status, "latex": f.latex, "sympy": f.sympy, "implementation": f.implementation,
        "inputs": [{"name": i.name, "symbol": i.symbol, "unit": i.unit, "domain": str(i.domain), "kind": i.kind,
                    "default": i.default, "option": f"--{i.option or i.name}"} for i in f.inputs],
        "output": {"name": f.output.name, "symbol": f.output.symbol, "unit": f.output.unit},
        "assumptions": list(f.assumptions), "notes": f.notes,
        "erratum": None if f.erratum is None else {"text": f.erratum.text, "evidence": f.erratum.evidence,
                                                   "published_sympy": f.erratum.published_sympy},
        "examples": [{"inputs": dict(e.inputs), "expected": e.expected} for e in f.examples],
        "check": dict(f.check),
    }
    return Document(doc, lambda: _text(f))


ENTRIES = (Group("formulas", "Browse the formula catalog (paper, equation, LaTeX, SymPy, errata).",
                 (list_command, show_command)),)
