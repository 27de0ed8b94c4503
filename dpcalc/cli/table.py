"""``dpcalc table SPEC.toml``: a publication table of catalog formulas over a parameter grid (see docs/tables.md)."""

from __future__ import annotations

from dpcalc.cli.command import Args, command
from dpcalc.cli.options import path
from dpcalc.errors import DomainError
from dpcalc.report.render import Result

__all__ = ["ENTRIES"]


@command("table", path("spec", positional=True, formula="-", option="SPEC",
                       help="Table spec (TOML): grid, inputs, columns, format"), formula="-")
def table_command(a: Args) -> Result:
    """Build a table from a spec: formulas (catalog ids), a parameter grid, columns, digits, caption and label.

    LaTeX output is a booktabs table float with \\caption and \\label that compiles as-is.
    Example: dpcalc table docs/examples/midp_sigma.toml --format latex
    """
    from dpcalc.report import table

    if not a.spec.name:  # "" (which Typer turns into "."), "." or "/": a directory, and no name of the user's to show
        raise DomainError(f"SPEC: {str(a.spec)!r} is a directory (or an empty name); give the table spec file (TOML)")
    return table.build(table.read(a.spec))


ENTRIES = (table_command,)
