"""``dpcalc plot preset|sweep|list``: figures to PNG/SVG/PDF (optional extra ``plot``: matplotlib, Agg backend).

Nothing heavy is imported at start-up: the plotting modules load inside the commands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from dpcalc.cli._common import ForceOpt, FormatOpt, JsonOpt, OutputOpt, handle_errors, pick_format
from dpcalc.errors import DomainError
from dpcalc.report.render import Format

plot_app = typer.Typer(help="Figures: the seeds' figures as presets (published and corrected side by side) and "
                            "sweeps of any catalog formula. Needs the 'plot' extra (matplotlib).",
                       no_args_is_help=True)

FigOutOpt = Annotated[Path | None, typer.Option("--output", "-o", dir_okay=False,
                                                help="Figure file (.png, .svg or .pdf); default ID.png.")]
FigFormatOpt = Annotated[str | None, typer.Option("--format", "-f",
                                                  help="png, svg or pdf (default: from the file suffix, else png).")]


def _report(path: Path, drawn: object) -> None:
    from dpcalc.plot import Drawn

    assert isinstance(drawn, Drawn)
    for w in drawn.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"wrote {path} ({len(drawn.lines)} lines, {len(drawn.data)} bytes)")


@plot_app.command("preset")
@handle_errors
def preset_command(name: Annotated[str, typer.Argument(help="Preset id, e.g. 001-fig5 (see `dpcalc plot list`).")],
                   output: FigOutOpt = None, fmt: FigFormatOpt = None, force: ForceOpt = False) -> None:
    """Draw one of the seeds' figures (published and corrected curves side by side).

    Example: dpcalc plot preset 001-fig5 -o fig5.png
    """
    from dpcalc.plot import figure as draw_mod
    from dpcalc.plot import preset

    spec = preset(name)
    chosen = draw_mod.format_of(output, fmt)
    path = output or Path(f"{name}.{chosen}")
    _report(path, draw_mod.save(spec, path, fmt=chosen, force=force))


@plot_app.command("list")
@handle_errors
def list_command(fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None,
                 force: ForceOpt = False) -> None:
    """List the figure presets (id, paper, lines, title).

    Example: dpcalc plot list
    """
    from dpcalc.plot import presets
    from dpcalc.report.render import Column, Result, emit

    rows = [{"id": f.id, "paper": f.paper, "lines": f.line_count, "title": f.title} for f in presets().values()]
    formulas = sorted({s.step.formula for f in presets().values() for s in f.series if s.step.formula})
    result = Result(columns=[Column("id", "preset", text=True), Column("paper", "paper", text=True),
                             Column("lines", "lines", integer=True), Column("title", "title", text=True)],
                    rows=rows, title="Figure presets (dpcalc plot preset ID)", formula=formulas)
    emit(result, pick_format(fmt, json_), output, force)


def _assignments(option: str, items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise DomainError(f"{option} takes NAME=VALUES (got {item!r})")
        out[name.strip()] = value.strip()
    return out


@plot_app.command("sweep")
@handle_errors
def sweep_command(
    formula: Annotated[str, typer.Argument(help="Catalog formula id, e.g. midp.server_sigma.")],
    x: Annotated[str, typer.Option("--x", help="Swept input and its values: NAME=VALUES, e.g. eps=1:10:0.5.")],
    by: Annotated[str | None, typer.Option("--by", help="One line per value: NAME=VALUES, e.g. d=1e3,1e6.")] = None,
    fixed: Annotated[list[str] | None, typer.Option("--set", help="A fixed input NAME=VALUE (repeatable).")] = None,
    published: Annotated[bool, typer.Option("--published", help="Draw the published (erroneous) form as well.")]
    = False,
    logx: Annotated[bool, typer.Option("--logx", help="Logarithmic x axis.")] = False,
    logy: Annotated[bool, typer.Option("--logy", help="Logarithmic y axis.")] = False,
    title: Annotated[str, typer.Option("--title", help="Figure title (default: the formula's title).")] = "",
    output: FigOutOpt = None, fmt: FigFormatOpt = None, force: ForceOpt = False,
) -> None:
    """Draw any catalog formula over a sweep: x = one input, one line per value of another.

    Example: dpcalc plot sweep midp.server_sigma_equal --x eps=0.1:10:0.1 --by N=1,10,100 --set d=1000 --set C=1
    --logy -o sigma.png
    """
    from dpcalc.plot import figure as draw_mod
    from dpcalc.plot.sweep import sweep_spec

    (x_axis,) = _assignments("--x", [x]).items()
    lines = next(iter(_assignments("--by", [by]).items())) if by else None
    spec = sweep_spec(formula, x_axis, lines, _assignments("--set", fixed or []), published=published, logx=logx,
                      logy=logy, title=title)
    chosen = draw_mod.format_of(output, fmt)
    path = output or Path(f"{formula}.{chosen}")
    _report(path, draw_mod.save(spec, path, fmt=chosen, force=force))


def register(app: typer.Typer) -> None:
    """Attach the ``plot`` group to the root app."""
    app.add_typer(plot_app, name="plot")
