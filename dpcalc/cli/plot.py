"""``dpcalc plot preset|sweep|list``: figures to PNG/SVG/PDF (optional extra ``plot``: matplotlib, Agg backend).

Nothing heavy is imported at start-up: the plotting modules load inside the commands.
"""

from __future__ import annotations

from dpcalc.cli.artifacts import Figure
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import Opt, argument, flag, many, text
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]


@command("preset", argument("name", formula="-", option="NAME", help="Preset id, e.g. 001-fig5 (see `dpcalc plot "
                                                                      "list`)"),
         formula="-", output="figure")
def preset_command(a: Args) -> Figure:
    """Draw one of the papers' figures (published and corrected curves side by side).

    Example: dpcalc plot preset 001-fig5 -o fig5.png
    """
    from dpcalc.plot import preset

    return Figure(preset(a.name), a.name)


@command("list", formula="-")
def list_command(a: Args) -> Result:
    """List the figure presets (id, paper, lines, title).

    Example: dpcalc plot list
    """
    from dpcalc.plot import presets
    from dpcalc.plot.text import plain_text

    rows = [{"id": f.id, "paper": f.paper, "lines": f.line_count, "title": plain_text(f.title)}
            for f in presets().values()]
    formulas = sorted({s.step.formula for f in presets().values() for s in f.series if s.step.formula})
    return Result(columns=[Column("id", "preset", text=True), Column("paper", "paper", text=True),
                           Column("lines", "lines", integer=True), Column("title", "title", text=True)],
                  rows=rows, title="Figure presets (dpcalc plot preset ID)", formula=formulas)


def _assignments(option: str, items: list[str], bare: bool = False) -> dict[str, str]:
    """``NAME=VALUES`` items by name; with ``bare``, a ``NAME`` alone too (its values: ``""``, the catalog's)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not name.strip() or ((sep or not bare) and not value.strip()):
            raise DomainError(f"{option} takes NAME{'[=VALUES]' if bare else '=VALUES'} (got {item!r})")
        out[name.strip()] = value.strip()
    return out


@command("sweep", argument("formula", formula="-", option="FORMULA", help="Catalog formula id, e.g. "
                                                                          "midp.server_sigma"),
         text("x", formula="-", help="Swept input, by its catalog or option name, and its values: NAME=VALUES, e.g. "
              "eps=1:10:0.5; NAME alone: a decade either side of the catalog's value"),
         text("by", formula="-", default=None, help="One line per value: NAME=VALUES, e.g. d=1e3,1e6 (NAME alone: "
              "half, once and twice the catalog's value)"),
         many("fixed", option="--set", formula="-", help="A fixed input NAME=VALUE (repeatable; inputs not given "
              "take the catalog's default or test-vector value)"),
         flag("published", formula="-", help="Draw the published (erroneous) form as well"),
         flag("logx", formula="-", help="Logarithmic x axis"), flag("logy", formula="-", help="Logarithmic y axis"),
         Opt("title", "text", formula="-", default="", help="Figure title (default: the formula's title)"),
         formula="-", output="figure", work=lambda a: _sweep_work(a))
def sweep_command(a: Args) -> Figure:
    """Draw any catalog formula of scalar inputs over a sweep: x = one input, one line per value of another.

    Inputs go by their catalog names or the command line's (sigma or noise-multiplier).
    Example: dpcalc plot sweep midp.server_sigma_equal --x eps=0.1:10:0.1 --by N=1,10,100 --set d=1000 --set C=1
    --logy -o sigma.png; dpcalc plot sweep accountant.eps_rdp --x steps --set noise-multiplier=1.1
    """
    from dpcalc.plot.sweep import sweep_spec

    (x_axis,) = _assignments("--x", [a.x], bare=True).items()
    lines = next(iter(_assignments("--by", [a.by], bare=True).items())) if a.by else None
    spec = sweep_spec(a.formula, x_axis, lines, _assignments("--set", a.fixed or []), published=a.published,
                      logx=a.logx, logy=a.logy, title=a.title)
    return Figure(spec, a.formula)


_LINE_SECONDS, _POINT_SECONDS = 5e-3, 1e-4  # matplotlib per line; the catalog formula per point (measured)


def _sweep_work(a: Args) -> tuple[str, float, str]:
    """The sweep's work before drawing: lines (--by values) × points (--x values)."""
    from dpcalc.plot.sweep import POINTS
    from dpcalc.report.grid import parse_values

    (x_name, x_text), = _assignments("--x", [a.x], bare=True).items()
    xs = len(parse_values(f"--x {x_name}", x_text)) if x_text else POINTS
    by_text = next(iter(_assignments("--by", [a.by], bare=True).values())) if a.by else ""
    lines = (len(parse_values(f"--by {a.by}", by_text)) if by_text else 3) if a.by else 1
    return (f"--x ({xs} values) × --by ({lines} lines)", lines * (_LINE_SECONDS + xs * _POINT_SECONDS),
            f"~{_LINE_SECONDS * 1e3:g} ms a line and {_POINT_SECONDS * 1e3:g} ms a point")


ENTRIES = (Group("plot", "Figures: the papers' figures as presets (published and corrected side by side) and sweeps "
                         "of any catalog formula. Needs the 'plot' extra (matplotlib).",
                 (preset_command, sweep_command, list_command)),)
