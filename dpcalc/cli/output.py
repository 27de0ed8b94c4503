"""What every command's output shares: the output options, the format, rendering, warnings on stderr.

Three kinds of command output, each with its own option set (added once, by `dpcalc.cli.command`):

* ``table`` — a `Result`: ``--format/-f``, ``--json``, ``--output/-o``, ``--force``, ``--digits`` (significant
  digits of the table, Markdown and LaTeX; JSON and CSV keep every digit).
  The format is ``--json``, else ``--format``, else the ``--output`` file's suffix (`SUFFIX_FORMATS`), else
  the table; a box-drawn table never lands in a ``.csv`` file.
* ``figure`` — a `Figure` (``dpcalc plot``): ``--output/-o`` (.png, .svg,
  .pdf), ``--format/-f``, ``--force``, ``--width`` (inches), ``--dpi``, ``--font serif|sans``.
* ``document`` — a `Document` (``dpcalc formulas show``): its text, or its
  JSON with ``--json``; ``--output/-o``, ``--force``.
"""

from __future__ import annotations

import inspect
from enum import Enum
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
_DIGITS = Annotated[int | None, typer.Option("--digits", metavar="N", help=(
    "Significant digits of the numbers in the table, Markdown and LaTeX (default 6, or the column's own); JSON and "
    "CSV keep every digit."))]
_FORCE = Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")]
_FIG_OUTPUT = Annotated[Path | None, typer.Option("--output", "-o", dir_okay=False,
                                                  help="Figure file (.png, .svg or .pdf); default ID.png.")]
_FIG_FORMAT = Annotated[str | None, typer.Option("--format", "-f",
                                                 help="png, svg or pdf (default: from the file suffix, else png).")]


_WIDTH = Annotated[float, typer.Option("--width", metavar="INCHES", help=(
    "Figure width in inches, at which its text is 7-8 pt (default 3.5: one column of a two-column paper; 7.16 "
    "across both)."))]
_DPI = Annotated[int, typer.Option("--dpi", help="PNG resolution in dots per inch (default 300).")]


class Font(str, Enum):
    sans = "sans"
    serif = "serif"


_FONT = Annotated[Font, typer.Option("--font", case_sensitive=False,
                                     help="sans (DejaVu Sans) or serif (STIX: a Times-like text and TeX-like math "
                                         "font, for papers)")]


def _keyword(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


_PARAMETERS = {
    "table": (_keyword("fmt", Format.table, _FORMAT), _keyword("json_", False, _JSON),
              _keyword("output", None, _OUTPUT), _keyword("force", False, _FORCE), _keyword("digits", None, _DIGITS)),
    "figure": (_keyword("output", None, _FIG_OUTPUT), _keyword("fmt", None, _FIG_FORMAT),
               _keyword("force", False, _FORCE), _keyword("width", 3.5, _WIDTH), _keyword("dpi", 300, _DPI),
               _keyword("font", Font.sans, _FONT)),
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


def check_figure(given: dict[str, Any]) -> None:
    """``--width`` and ``--dpi`` in range (one line naming the option)."""
    if not 1.0 <= given["width"] <= 20.0:
        raise DomainError(f"--width must be in [1, 20] inches (got {given['width']:g})")
    if not 20 <= given["dpi"] <= 1200:
        raise DomainError(f"--dpi must be an integer in [20, 1200] (got {given['dpi']})")


def write(kind: str, value: Any, given: dict[str, Any], chosen: Format | None, warns: list[str]) -> int:
    """Render a command's ``value`` as its output ``kind`` asks; return the exit code (a Result may set one)."""
    if kind in ("figure", "document"):
        from dpcalc.cli.artifacts import WRITERS

        if kind == "figure":
            check_figure(given)
        return WRITERS[kind](value, given, warns)
    if not isinstance(value, Result):
        raise TypeError(f"a table command returns a Result (got {type(value).__name__})")
    value.warnings = [*warns, *(w for w in value.warnings if w not in warns)]
    if given.get("digits") is not None:
        from dpcalc.report.render import with_digits

        if not 1 <= given["digits"] <= 17:
            raise DomainError(f"--digits must be an integer in [1, 17] (got {given['digits']})")
        value = with_digits(value, given["digits"])
    emit(value, chosen or Format.table, given["output"], given["force"])
    return value.exit_code
