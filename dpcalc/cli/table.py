"""``dpcalc table SPEC.toml``: a publication table of catalog formulas over a parameter grid (see docs/tables.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from dpcalc.cli._common import ForceOpt, FormatOpt, JsonOpt, OutputOpt, capture_warnings, handle_errors, pick_format
from dpcalc.errors import DomainError
from dpcalc.report.render import Format


@handle_errors
def table_command(spec: Annotated[Path, typer.Argument(help="Table spec (TOML): grid, inputs, columns, format.",
                                                        dir_okay=False)],
                  fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None,
                  force: ForceOpt = False) -> None:
    """Build a table from a spec: formulas (catalog ids), a parameter grid, columns, digits, caption and label.

    LaTeX output is a booktabs table float with \\caption and \\label that compiles as-is.
    Example: dpcalc table docs/examples/midp_sigma.toml --format latex
    """
    from dpcalc.report import table
    from dpcalc.report.render import emit, write_atomic

    if not spec.name:  # "" (which Typer turns into "."), "." or "/": a directory, and no name of the user's to show
        raise DomainError(f"SPEC: {str(spec)!r} is a directory (or an empty name); give the table spec file (TOML)")
    chosen = pick_format(fmt, json_)
    with capture_warnings() as warns:
        result = table.build(table.read(spec))
    result.warnings = [*warns, *(w for w in result.warnings if w not in warns)]
    if chosen is not Format.latex:
        emit(result, chosen, output, force)
        return
    text = table.render_table(result, chosen)
    if output is not None:
        write_atomic(output, text, force)
    else:
        sys.stdout.write(text)
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)


def register(app: typer.Typer) -> None:
    """Attach ``dpcalc table``."""
    app.command("table")(table_command)
