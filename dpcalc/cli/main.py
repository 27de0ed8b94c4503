"""The ``dpcalc`` command: a Typer app whose commands live in one module per family.

Each family module defines ``register(app)``; list the top-level names it registers in ``COMMANDS``
(``tests/cli/test_cli_fastparse.py`` checks the map against what the modules register). The console script imports
only the family module that owns the command it runs, so one family's imports never slow another's start-up.
Family modules must not import SciPy or SymPy at import time (import them inside the command).
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

#: Top-level command or group name -> the family module (``dpcalc.cli.<module>``) that registers it.
COMMANDS: dict[str, str] = {
    "sigma": "midp", "midp": "midp", "formulas": "formulas", "verify": "verify", "account": "account",
    "calibrate": "account", "gdp": "gdp", "cuag": "cuag", "gauss": "gauss", "nbafl": "nbafl", "secagg": "secagg",
    "plot": "plot", "table": "table", "eval": "evaluate",
}
FAMILIES = tuple(dict.fromkeys(COMMANDS.values()))

_root_app = typer.Typer(
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


def _max_memory(value: str | None) -> str | None:
    if value is not None:
        from dpcalc import _limits
        from dpcalc.errors import DomainError

        try:
            _limits.set_max_memory(value)
        except DomainError as exc:
            raise typer.BadParameter(str(exc).removeprefix("--max-memory ")) from None
    return value


@_root_app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    max_memory: Annotated[str | None, typer.Option(
        "--max-memory", callback=_max_memory, is_eager=True, metavar="SIZE",
        help="Cap on one computation's memory, e.g. 500M or 4G (default 2G, or $DPCALC_MAX_MEMORY); larger "
             "work stops with a one-line error before allocating.")] = None,
) -> None:
    """dpcalc: privacy accounting and privacy-utility analysis for DP federated learning."""


_registered: dict[tuple[str, ...], typer.Typer] = {}


def app_with(families: tuple[str, ...] = FAMILIES) -> typer.Typer:
    """The root app with the commands of ``families`` registered (cached; the full app by default)."""
    if families not in _registered:
        chosen = copy.copy(_root_app)
        chosen.registered_commands, chosen.registered_groups = [], []
        for family in families:
            importlib.import_module(f"dpcalc.cli.{family}").register(chosen)
        _registered[families] = chosen
    return _registered[families]


def __getattr__(name: str) -> Any:
    """``dpcalc.cli.main.app``: the full app (every family imported), built on first use."""
    if name == "app":
        return app_with()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _name(info: Any) -> str:
    """The command-line name of a registered command or group."""
    if info.name:
        return str(info.name)
    callback = info.callback if hasattr(info, "callback") else None
    return typer.main.get_command_name(callback.__name__) if callback else ""


def _only(name: str) -> typer.Typer | None:
    """A copy of the app holding just the command or group ``name`` (None if there is none).

    Typer builds the parameters of every command of a group before dispatching; with one entry per family
    that is most of the start-up time, so the console script builds only the command it will run.
    """
    family = COMMANDS.get(name)
    if family is None:
        return None
    owner = app_with((family,))
    commands = [c for c in owner.registered_commands if _name(c) == name]
    groups = [g for g in owner.registered_groups if _name(g) == name]
    if not commands and not groups:
        return None
    trimmed = copy.copy(owner)
    trimmed.registered_commands = commands
    trimmed.registered_groups = groups
    return trimmed


def build_command(argv: list[str] | None = None) -> Any:
    """The Click command for ``argv`` (the full app if ``argv`` names no command), with fast coercion."""
    first = next((a for a in (argv or []) if not a.startswith("-")), None)
    chosen = (_only(first) if first else None) or app_with()
    command = typer.main.get_command(chosen)
    _fastparse.install(command)
    return command


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def _usage_message(exc: Any) -> str:
    """Click's usage error as one line, naming the command when it has a context (``sigma: Missing option …``)."""
    message = _one_line(exc.format_message())
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path.removeprefix("dpcalc").strip() if ctx is not None else ""
    return f"{path}: {message}" if path else message


def run(argv: list[str]) -> int:
    """Run ``dpcalc *argv`` and return the exit code (0 ok, 1 failed verification, 2 bad input).

    Every usage error (unknown option, missing value, wrong choice) is one stderr line ``dpcalc: error: …``,
    like every other bad input, instead of Click's usage block.
    """
    from typer._click import exceptions as click_exc

    from dpcalc import _limits

    try:
        command = build_command(argv)
        code = command.main(argv, prog_name="dpcalc", standalone_mode=False)
    except click_exc.NoArgsIsHelpError as exc:  # `dpcalc` or `dpcalc gdp` alone: the help, as before
        exc.show()
        return 2
    except click_exc.UsageError as exc:
        print(f"dpcalc: error: {_usage_message(exc)}", file=sys.stderr)
        return 2
    except click_exc.ClickException as exc:
        print(f"dpcalc: error: {_one_line(exc.format_message())}", file=sys.stderr)
        return 2
    except typer.Abort:
        print("dpcalc: error: aborted", file=sys.stderr)
        return 1
    except MemoryError:
        print(f"dpcalc: error: out of memory; use fewer values or a smaller problem (cap "
              f"{_limits.human(_limits.max_memory())}, --max-memory)", file=sys.stderr)
        return 2
    finally:
        _limits.set_max_memory(None)
    return code if isinstance(code, int) else 0


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``argv`` defaults to ``sys.argv[1:]``; tests pass it explicitly)."""
    sys.exit(run(sys.argv[1:] if argv is None else list(argv)))


if __name__ == "__main__":  # pragma: no cover
    main()
