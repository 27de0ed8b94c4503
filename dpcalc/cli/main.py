"""The ``dpcalc`` command: a Typer app whose commands live in one module per family.

Each family module defines ``register(app)``; list it in ``FAMILIES``. Family modules must not import
SciPy or SymPy at import time (import them inside the command), so that start-up stays fast.
"""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

from dpcalc import __version__

FAMILIES = ("midp", "formulas", "verify")

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


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
