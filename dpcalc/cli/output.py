"""What every command's output shares: the output options, the format, rendering, warnings on stderr.

Three kinds of command output, each with its own option set (added once, by `dpcalc.cli.command`):

* ``table`` — a `Result`: ``--format/-f``, ``--json``, ``--output/-o``, ``--force``, ``--digits`` (significant
  digits of the table, Markdown and LaTeX; JSON and CSV keep every digit).
  The format is ``--json``, else ``--format``, else the ``--output`` file's suffix (`SUFFIX_FORMATS`), else
  the table; a box-drawn table never lands in a ``.csv`` file.
* ``figure`` — a `Figure` (``dpcalc plot``): ``--output/-o`` (.png, .svg,
  .pdf), ``--format/-f``, ``--force``.
* ``document`` — a `Document` (``dpcalc formulas show``): its text, or its
  JSON with ``--json``; ``--output/-o``, ``--force``.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any

import typer

from dpcalc.errors import DomainError
from dpcalc.report.render import Format, Result, emit

__all__ = ["OUTPUT_KINDS", "SUFFIX_FORMATS", "parameters", "table_format", "write"]

OUTPUT_KINDS = ("table", "figure", "document")
SUFFIX_FORMATS = {".csv": Format.csv, ".json": Format.json, ".md": Format.markdown, ".markdown": Format.markdown,
                  ".tex": Format.latex}


_FORMAT = Annotated[Format, typer.Option("--format", "-f", case_sensitive=False, help=(
    "Output format (not given: the --output file's suffix .csv, .json, .md or .tex, else table)."))]
_JSON = Annotated[bool, typer.Option("--json", help="Shorthand for --format json.")]
_OUTPUT = Annotated[Path | None, typer.Option("--output", "-o", dir_okay=False, help="Write to FILE (atomically).")]
_DIGITS = Annotated[int | None, typer.Option("--digits", min=1, max=17, metavar="N", help=(
    "Significant digits of the numbers in the table, Markdown and LaTeX (default 6, or the column's own); JSON and "
    "CSV keep every digit."))]
_FORCE = Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")]
_FIG_OUTPUT = Annotated[Path | None, typer.Option("--output", "-o", dir_okay=False,
                                                  help="Figure file (.png, .svg or .pdf); default ID.png.")]
_FIG_FORMAT = Annotated[str | None, typer.Option("--format", "-f",
                                                 help="png, svg or pdf (default: from the file suffix, else png).")]


def _keyword(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


_PARAMETERS = {
    "table": (_keyword("fmt", Format.table, _FORMAT), _keyword("json_", False, _JSON),
              _keyword("output", None, _OUTPUT), _keyword("force", False, _FORCE), _keyword("digits", None, _DIGITS)),
    "figure": (_keyword("output", None, _FIG_OUTPUT), _keyword("fmt", None, _FIG_FORMAT),
               _keyword("force", False, _FORCE)),
    "document": (_keyword("json_", False, _JSON), _keyword("output", None, _OUTPUT), _keyword("force", False, _FORCE)),
}


def parameters(kind: str) -> tuple[inspect.Parameter, ...]:
    """The output options of a command of output ``kind`` (appended to its own)."""
    return _PARAMETERS[kind]


def table_format(fmt: Format, json_flag: bool, output: Path | None, given: bool = True) -> Format:
    """``--json``, else ``--format`` if ``given`` on the command line, else the suffix of ``--output``, else the
    table (``fmt``'s default)."""
    if json_flag:
        return Format.json
    suffix = output.suffix.lower() if output is not None else ""
    chosen = fmt if given else SUFFIX_FORMATS.get(suffix, fmt)
    if chosen is Format.table and suffix == ".csv":
        raise DomainError(f"--output {output}: a .csv file gets --format csv, not the box-drawn table (drop "
                          "--format table, or name the file .txt)")
    return chosen


def write(kind: str, value: Any, given: dict[str, Any], chosen: Format | None, warns: list[str]) -> int:
    """Render a command's ``value`` as its output ``kind`` asks; return the exit code (a Result may set one)."""
    if kind in ("figure", "document"):
        from dpcalc.cli.artifacts import WRITERS

        return WRITERS[kind](value, given, warns)
    if not isinstance(value, Result):
        raise TypeError(f"a table command returns a Result (got {type(value).__name__})")
    value.warnings = [*warns, *(w for w in value.warnings if w not in warns)]
    if given.get("digits") is not None:
        from dpcalc.report.render import with_digits

        value = with_digits(value, given["digits"])
    emit(value, chosen or Format.table, given["output"], given["force"])
    return value.exit_code
