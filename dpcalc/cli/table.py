"""``dpcalc table SPEC.toml [SPEC.toml …]``: publication tables of catalog formulas over a parameter grid (see
docs/tables.md)."""

from __future__ import annotations

from pathlib import Path

from dpcalc.cli.command import Args, command
from dpcalc.cli.options import Opt, choice
from dpcalc.errors import DomainError
from dpcalc.report.render import Result

__all__ = ["ENTRIES"]


@command("table", Opt("spec", "arguments", formula="-", option="SPEC",
                      help="Table spec(s) (TOML): grid, inputs, columns, format; several give one table each"),
         choice("float_env", ("table", "table*"), option="--float", formula="-", default="table",
                help="LaTeX float: table (one column of the page) or table* (across both columns of a "
                     "two-column paper)"),
         choice("scale", ("none", "small", "footnotesize", "fit"), formula="-", default="none",
                help="LaTeX size: none, small, footnotesize, or fit (scaled to the line width; needs graphicx)"),
         formula="-")
def table_command(a: Args) -> Result:
    """Build tables from specs: formulas (catalog ids), a parameter grid, columns, digits, caption and label.

    LaTeX output is a booktabs table float with \\caption and \\label that compiles as is and fits one column of an
    article: the symbol on the first header line, the unit on the second; published and corrected forms side by
    side under one header. Several specs give one table (one float) each, in order.
    Example: dpcalc table docs/examples/midp_sigma.toml docs/examples/gauss_erratum.toml --format latex
    """
    from dpcalc.report import table
    from dpcalc.report.render import check_finite

    specs = [Path(s) for s in (a.spec or [])]
    if not specs:
        raise DomainError("SPEC: give at least one table spec file (TOML)")
    results = []
    for spec in specs:
        if not spec.name or spec.is_dir():
            raise DomainError(f"SPEC: {str(spec)!r} is a directory (or an empty name); give the table spec file (TOML)")
        result = table.build(table.read(spec))
        result.meta["latex_float"] = {"env": str(a.float_env), "scale": str(a.scale)}
        check_finite(result)
        results.append(result)
    if len(results) == 1:
        return results[0]
    warnings = list(dict.fromkeys(w for r in results for w in r.warnings))
    return Result(columns=[], rows=[], formula=[f for r in results for f in r.formula], warnings=warnings,
                  meta={"parts": results})


ENTRIES = (table_command,)
