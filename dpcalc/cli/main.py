"""The ``dpcalc`` command: a Typer app built from the commands the family modules declare.

Each family module (``dpcalc.cli.<module>``) lists its top-level commands and groups in ``ENTRIES``
(`Command`, `Group`); `COMMANDS` names the module of
each top-level name, and `register` adds every entry the same way. The console script builds only the command
it runs (and, in a group, only the named subcommand), so one family's imports never slow another's start-up; family
modules import SciPy and SymPy inside their bodies only.
"""

import copy
import importlib
import sys
from functools import cache
from typing import Annotated, Any

import typer
import typer.main

from dpcalc import __version__
from dpcalc.cli import _fastparse
from dpcalc.cli.command import Command, Group, callback, resolved
from dpcalc.cli.options import Resolved

__all__ = ["COMMANDS", "FAMILIES", "app_with", "build_command", "entries", "find", "main", "register", "run"]

#: Top-level command or group name -> the family module (``dpcalc.cli.<module>``) that declares it.
COMMANDS: dict[str, str] = {
    "sigma": "sigma", "midp": "midp", "formulas": "formulas", "verify": "verify", "account": "account",
    "calibrate": "account", "gdp": "gdp", "cuag": "cuag", "gauss": "gauss", "nbafl": "nbafl", "secagg": "secagg",
    "plot": "plot", "table": "table", "eval": "evaluate", "statement": "statement", "risk": "risk", "audit": "audit",
    "distributed": "distributed", "matrix": "matrix",
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


def entries(module: str) -> tuple[Command | Group, ...]:
    """The commands and groups ``dpcalc.cli.<module>`` declares."""
    found: tuple[Command | Group, ...] = importlib.import_module(f"dpcalc.cli.{module}").ENTRIES
    return found


def register(app: typer.Typer, entry: Command | Group, only: str | None = None, with_help: bool = True) -> None:
    """Add a declared command, or a group with its commands (just ``only`` if given), to ``app``; the options' help
    texts only ``with_help``."""
    if isinstance(entry, Group):
        group = typer.Typer(help=entry.help, no_args_is_help=True, rich_markup_mode=None)
        for cmd in entry.commands:
            if only is None or cmd.name == only:
                register(group, cmd, with_help=with_help)
        app.add_typer(group, name=entry.name)
        return
    settings = {"allow_extra_args": True, "ignore_unknown_options": True} if entry.extra_args else None
    app.command(entry.name, context_settings=settings)(callback(entry, with_help))


def _app(chosen: tuple[tuple[Command | Group, str | None], ...], with_help: bool = True) -> typer.Typer:
    app = copy.copy(_root_app)
    app.registered_commands, app.registered_groups = [], []
    for entry, only in chosen:
        register(app, entry, only, with_help)
    return app


@cache
def app_with(families: tuple[str, ...] = FAMILIES) -> typer.Typer:
    """The root app with every command of ``families`` (the full app by default)."""
    return _app(tuple((e, None) for f in families for e in entries(f)))


def __getattr__(name: str) -> Any:
    """``dpcalc.cli.main.app``: the full app (every family imported), built on first use."""
    if name == "app":
        return app_with()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def find(path: list[str] | tuple[str, ...]) -> Command | None:
    """The declared command at ``path`` (``["midp", "leakage"]``), or None."""
    if not path or path[0] not in COMMANDS:
        return None
    entry = next((e for e in entries(COMMANDS[path[0]]) if e.name == path[0]), None)
    if isinstance(entry, Group):
        return next((c for c in entry.commands if len(path) > 1 and c.name == path[1]), None)
    return entry


def _options_at(path: list[str]) -> list[Resolved] | None:
    cmd = find(path)
    return None if cmd is None else resolved(cmd, with_help=False)


def _only(argv: list[str]) -> typer.Typer | None:
    """An app holding just the command (or the group's one subcommand) ``argv`` names; None if it names none.

    Typer builds the parameters of every command it is given before dispatching; building only the one that runs
    keeps the start-up of ``dpcalc sigma`` near that of Typer and NumPy alone.
    """
    words = [a for a in argv if not a.startswith("-")]
    if not words or words[0] not in COMMANDS:
        return None
    entry = next((e for e in entries(COMMANDS[words[0]]) if e.name == words[0]), None)
    if entry is None:
        return None
    only = words[1] if isinstance(entry, Group) and len(words) > 1 else None
    if isinstance(entry, Group) and only not in {c.name for c in entry.commands}:
        only = None
    return _app(((entry, only),), with_help="--help" in argv)


def build_command(argv: list[str] | None = None) -> Any:
    """The Click command for ``argv`` (the full app if ``argv`` names no command), with fast option coercion."""
    command = typer.main.get_command(_only(list(argv or [])) or app_with())
    _fastparse.install(command)
    return command


# ------------------------------------------------------------------------------------------ running

def _ancestor(name: str) -> type[BaseException]:
    """Click's exception class ``name`` (``UsageError``, ``ClickException``), found from the public BadParameter."""
    found: type[BaseException] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)
    return found


_USAGE_ERROR = _ancestor("UsageError")
_CLICK_ERROR = _ancestor("ClickException")


def run(argv: list[str]) -> int:
    """Run ``dpcalc *argv`` and return the exit code (0 ok, 1 failed verification, 2 bad input).

    Every usage error (unknown option, missing value, wrong choice) is one stderr line ``dpcalc: error: …``,
    like every other bad input, instead of Click's usage block.
    """
    from dpcalc import _limits

    try:
        command = build_command(argv)
        code = command.main(argv, prog_name="dpcalc", standalone_mode=False)
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # `dpcalc` or `dpcalc gdp` alone: the help, as before
            exc.show()  # type: ignore[attr-defined]
            return 2
        from dpcalc.cli.messages import usage_message

        print(f"dpcalc: error: {usage_message(exc, _options_at)}", file=sys.stderr)
        return 2
    except _CLICK_ERROR as exc:
        from dpcalc.cli.messages import one_line

        print(f"dpcalc: error: {one_line(exc.format_message())}", file=sys.stderr)  # type: ignore[attr-defined]
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
    """Console-script entry point (``argv`` defaults to ``sys.argv[1:]``; tests pass it explicitly).

    When it is the program (the console script, ``python -m dpcalc.cli.main``), the process ends right after the
    command: its objects are frozen out of the garbage collector first, so that Python's exit does not traverse
    them all once more (~10 ms for NumPy's and Typer's objects alone, more than the sigma calculation). Called
    in-process (tests), it leaves the collector alone.
    """
    code = run(sys.argv[1:] if argv is None else list(argv))
    if getattr(sys.modules.get("__main__"), "main", None) is main:
        import gc

        gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
