"""``dpcalc table SPEC.toml [SPEC.toml …]``: publication tables of catalog formulas over a parameter grid (see
docs/tables.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dpcalc.cli.command import Args, command
from dpcalc.cli.options import SCHEDULER, Opt, choice, path
from dpcalc.errors import DomainError
from dpcalc.report.render import Result

__all__ = ["ENTRIES"]


@command("table", Opt("spec", "arguments", formula="-", option="SPEC",
                      help="Table spec(s) (TOML): grid, inputs, columns, format; several give one table each"),
         choice("float_env", ("table", "table*"), option="--float", formula="-", default="table",
                help="LaTeX float: table (one column of the page) or table* (across both columns of a "
                     "two-column paper)"),
         choice("scale", ("auto", "none", "small", "footnotesize", "fit"), formula="-", default="auto",
                help="LaTeX size: auto (natural if it fits the line, else \\footnotesize with narrower column gaps, "
                     "else scaled to the line width; needs graphicx), none, small, footnotesize, or fit (always "
                     "scaled to the line width)"),
         choice("numbers", ("plain", "siunitx"), formula="-", default="plain",
                help="LaTeX numbers: plain (math mode, any LaTeX) or siunitx (S columns aligned on the decimal "
                     "marker; needs siunitx)"),
         path("stream", formula="-", default=None, help="Evaluate the grid in blocks (on this machine's cores, or the "
              "cluster of --scheduler) and write its raw values to this CSV file as they complete"), SCHEDULER,
         formula="-")
def table_command(a: Args) -> Result:
    """Build tables from specs: formulas (catalog ids), a parameter grid, columns, digits, caption and label.

    LaTeX output is a booktabs table float with \\caption and \\label that compiles as is and fits one column of a
    two-column paper (--scale auto): the symbol on the first header line, the unit on the second; published and
    corrected forms side by side under one header. Several specs give one table (one float) each, in order.
    Example: dpcalc table docs/examples/midp_sigma.toml docs/examples/gauss_erratum.toml --format latex
    """
    from dpcalc.report import table
    from dpcalc.report.render import check_finite

    specs = [Path(s) for s in (a.spec or [])]
    if not specs:
        raise DomainError("SPEC: give at least one table spec file (TOML)")
    for spec in specs:
        try:
            is_dir = spec.is_dir()
        except OSError as exc:  # e.g. a name over the system's limit (ENAMETOOLONG): is_dir raises, not False
            raise DomainError(f"SPEC: {str(spec)[:60]!r}… cannot be a file ({exc.strerror}); give the table spec "
                              "file (TOML)") from None
        if not spec.name or is_dir:
            raise DomainError(f"SPEC: {str(spec)!r} is a directory (or an empty name); give the table spec file (TOML)")
    if a.stream is not None or a.scheduler:
        if len(specs) > 1:
            raise DomainError("--stream: one table spec at a time (it writes one CSV file)")
        return _streamed(table.read(specs[0]), a)
    results = []
    for spec in specs:
        result = table.build(table.read(spec))
        result.meta["latex_float"] = {"env": str(a.float_env), "scale": str(a.scale), "numbers": str(a.numbers)}
        check_finite(result)
        results.append(result)
    if len(results) == 1:
        return results[0]
    warnings = list(dict.fromkeys(w for r in results for w in r.warnings))
    return Result(columns=[], rows=[], formula=[f for r in results for f in r.formula], warnings=warnings,
                  meta={"parts": results})


def _streamed(spec: Any, a: Args) -> Result:
    """``--stream``: the grid in blocks, written as they complete; the result is a one-row summary."""
    import time

    from dpcalc.cli.blocks import stream_summary
    from dpcalc.report.grid import stream_csv
    from dpcalc.report.table_blocks import TableBlock
    from dpcalc.sim.executor import scheduler_address
    from dpcalc.sim.parallel import default_workers

    if a.stream is None:
        raise DomainError("--scheduler needs --stream FILE.csv (a table evaluated on a cluster is written in blocks)")
    start = time.perf_counter()
    rows = stream_csv(TableBlock(spec), spec.grid, a.stream, scheduler=scheduler_address(a.scheduler),
                      workers=default_workers(), force=a.force)
    return stream_summary(rows, a.stream, time.perf_counter() - start, spec.title)


ENTRIES = (table_command,)
