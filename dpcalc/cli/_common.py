"""What every command shares: output options, error handling (exit 2, one line), warning capture.

A command is written as::

    @app.command()
    @handle_errors
    def sigma(eps: EpsOpt = "5", ..., fmt: FormatOpt = Format.table, json_: JsonOpt = False,
              output: OutputOpt = None, force: ForceOpt = False) -> None:
        with capture_warnings() as warns:
            result = ...
        result.warnings = warns
        emit(result, pick_format(fmt, json_), output, force)
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from dpcalc.errors import DpcalcError
from dpcalc.report.render import Format

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_VERIFY_FAILED, EXIT_BAD_INPUT = 0, 1, 2

FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.", case_sensitive=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Shorthand for --format json.")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE (atomically).",
                                                  dir_okay=False)]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")]
UnitsOpt = Annotated[str, typer.Option("--units", help="Information units of ε: nats or bits.")]
AsPublishedOpt = Annotated[bool, typer.Option("--as-published",
                                              help="Also show the paper's published (erroneous) form.")]


def pick_format(fmt: Format, json_flag: bool) -> Format:
    """``--json`` wins over ``--format``."""
    return Format.json if json_flag else fmt


def fail(message: str) -> typer.Exit:
    """Print one line to stderr and return the Exit(2) to raise."""
    print(f"dpcalc: error: {message}", file=sys.stderr)
    return typer.Exit(EXIT_BAD_INPUT)


def handle_errors(func: F) -> F:
    """Turn dpcalc input errors (``ValueError`` subclasses) into one stderr line and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except DpcalcError as exc:
            raise fail(str(exc)) from None
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            raise fail(f"{exc.strerror}: {exc.filename}") from None

    return wrapper  # type: ignore[return-value]


@contextmanager
def capture_warnings() -> Iterator[list[str]]:
    """Collect the messages of warnings raised inside (deduplicated, in order)."""
    collected: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield collected
    for w in caught:
        msg = str(w.message)
        if msg not in collected:
            collected.append(msg)


def check_units(units: str) -> str:
    """Validate a --units value."""
    u = units.lower()
    if u not in ("nats", "bits"):
        raise fail(f"--units must be 'nats' or 'bits' (got {units!r})")
    return u
