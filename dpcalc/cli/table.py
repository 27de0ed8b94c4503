"""``dpcalc table SPEC.toml``: a publication table of catalog formulas over a parameter grid (see docs/tables.md)."""

from __future__ import annotations

from typing import Any

from dpcalc.cli.command import Args, command
from dpcalc.cli.options import SCHEDULER, path
from dpcalc.errors import DomainError
from dpcalc.report.render import Result

__all__ = ["ENTRIES"]


@command("table", path("spec", positional=True, formula="-", option="SPEC",
                       help="Table spec (TOML): grid, inputs, columns, format"),
         path("stream", formula="-", default=None, help="Evaluate the grid in blocks (on this machine's cores, or the "
              "cluster of --scheduler) and write its raw values to this CSV file as they complete"), SCHEDULER,
         formula="-")
def table_command(a: Args) -> Result:
    """Build a table from a spec: formulas (catalog ids), a parameter grid, columns, digits, caption and label.

    LaTeX output is a booktabs table float with \\caption and \\label that compiles as-is.
    Example: dpcalc table docs/examples/midp_sigma.toml --format latex
    """
    from dpcalc.report import table

    if not a.spec.name:  # "" (which Typer turns into "."), "." or "/": a directory, and no name of the user's to show
        raise DomainError(f"SPEC: {str(a.spec)!r} is a directory (or an empty name); give the table spec file (TOML)")
    spec = table.read(a.spec)
    if a.stream is not None or a.scheduler:
        return _streamed(spec, a)
    return table.build(spec)


def _streamed(spec: Any, a: Args) -> Result:
    """``--stream``: the grid in blocks, written as they complete; the result is a one-row summary."""
    import time

    from dpcalc.report.grid import stream_csv
    from dpcalc.report.render import Column
    from dpcalc.report.table_blocks import TableBlock
    from dpcalc.sim.executor import scheduler_address
    from dpcalc.sim.parallel import default_workers

    if a.stream is None:
        raise DomainError("--scheduler needs --stream FILE.csv (a table evaluated on a cluster is written in blocks)")
    start = time.perf_counter()
    rows = stream_csv(TableBlock(spec), spec.grid, a.stream, scheduler=scheduler_address(a.scheduler),
                      workers=default_workers())
    return Result(columns=[Column("rows"), Column("path"), Column("seconds")],
                  rows=[{"rows": rows, "path": str(a.stream), "seconds": round(time.perf_counter() - start, 3)}],
                  title=spec.title)


ENTRIES = (table_command,)
