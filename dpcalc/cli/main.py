"""The ``dpcalc`` command: a Typer app whose commands live in one module per family.

Each family module defines ``register(app)``; list it in ``FAMILIES``. Family modules must not import
SciPy or SymPy at import time (import them inside the command), so that start-up stays fast.
"""

from __future__ import annotations

import copy
import importlib
import sys
from typing import Annotated, Any

import typer
import typer.main

from dpcalc import __version__
from dpcalc.cli import _fastparse

FAMILIES = ("midp", "formulas", "verify", "account", "gdp", "cuag", "gauss")

app = typer.Typer(
    name="dpcalc",
    help="Privacy accounting and privacy-utility calculator for differentially private federated learning.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"dpcalc {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """dpcalc: privacy accounting and privacy-utility analysis for DP federated learning."""


for _family in FAMILIES:
    importlib.import_module(f"dpcalc.cli.{_family}").register(app)


def _name(info: Any) -> str:
    """The command-line name of a registered command or group."""
    if info.name:
        return str(info.name)
    callback = info.callback if hasattr(info, "callback") else None
    return typer.main.get_command_name(callback.__name__) if callback else ""


def _only(name: str) -> typer.Typer | None:
    """A copy of ``app`` holding just the command or group ``name`` (None if there is none).

    Typer builds the parameters of every command of a group before dispatching; with one entry per family
    that is most of the start-up time, so the console script builds only the command it will run.
    """
    commands = [c for c in app.registered_commands if _name(c) == name]
    groups = [g for g in app.registered_groups if _name(g) == name]
    if not commands and not groups:
        return None
    trimmed = copy.copy(app)
    trimmed.registered_commands = commands
    trimmed.registered_groups = groups
    return trimmed


def build_command(argv: list[str] | None = None) -> Any:
    """The Click command for ``argv`` (the full app if ``argv`` names no command), with fast coercion."""
    first = next((a for a in (argv or []) if not a.startswith("-")), None)
    chosen = (_only(first) if first else None) or app
    command = typer.main.get_command(chosen)
    _fastparse.install(command)
    return command


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``argv`` defaults to ``sys.argv[1:]``; tests pass it explicitly)."""
    args = sys.argv[1:] if argv is None else list(argv)
    build_command(args)(args=args, prog_name="dpcalc")


if __name__ == "__main__":  # pragma: no cover
    main()
