"""Declared commands: the options once, one body; parsing, errors, warnings and output shared by all.

A command is a `Command` — a name, its options (`dpcalc.cli.options`), the catalog formula its options
are read from, its output kind (`dpcalc.cli.output`) and a body that receives the parsed values (`Args`)
and returns what is shown::

    @command("leakage", axis("sigma"), axis("d"), axis("C"), formula="midp.server_leakage")
    def leakage(a: Args) -> Result:
        \"""The ε-MI-DP level guaranteed by a given σ. Example: dpcalc midp leakage --sigma 0.3154 --d 1000\"""
        axes = a.grid()
        return Result(columns_for("midp.server_leakage", ["sigma", "d", "C", "eps"]),
                      flatten(axes, {"eps": midp.server_leakage(axes["sigma"], axes["d"], C=axes["C"])}),
                      formula="midp.server_leakage")

The decorator only declares: a family module lists its commands in ``ENTRIES`` and `dpcalc.cli.main`
registers every one the same way (`callback`). Input errors (``DpcalcError``) become one stderr line naming the
option and exit code 2; warnings raised while the command runs are collected into its output.
See docs/conventions.md ("How to add a command").
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from dpcalc.cli import output
from dpcalc.cli.options import Opt, Resolved, resolve
from dpcalc.errors import DpcalcError
from dpcalc.report.render import Format

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_VERIFY_FAILED", "Args", "Command", "Group", "callback",
           "capture_warnings", "command", "fail", "resolved"]

EXIT_OK, EXIT_VERIFY_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class Command:
    """A declared command: ``dpcalc [group] name`` with ``options``, evaluated by ``body``."""

    def __init__(self, name: str, body: Callable[[Args], Any], options: tuple[Opt, ...] = (), formula: str = "",
                 output: str = "table", extra_args: bool = False) -> None:
        self.name, self.body, self.options = name, body, options
        self.formula = formula  # the catalog entry the options' inputs come from (unless an option names its own)
        self.output = output  # table | figure | document
        self.extra_args = extra_args  # --<input> VALUES pairs beyond the declared options (dpcalc eval)

    @property
    def help(self) -> str:
        return inspect.getdoc(self.body) or ""


class Group:
    """A command group (``dpcalc midp …``)."""

    def __init__(self, name: str, help: str, commands: tuple[Command, ...]) -> None:
        self.name, self.help, self.commands = name, help, commands


def command(name: str, *options: Opt, formula: str = "", output: str = "table",
            extra_args: bool = False) -> Callable[[Callable[[Args], Any]], Command]:
    """Declare the decorated body as command ``name`` (nothing is registered here)."""

    def declare(body: Callable[[Args], Any]) -> Command:
        return Command(name, body, options, formula, output, extra_args)

    return declare


class Args:
    """The parsed values of one call, by library name (``a.eps``, ``a["m"]``), and what they came from."""

    def __init__(self, values: dict[str, Any], options: dict[str, Resolved], fmt: Format | None,
                 extra: list[str]) -> None:
        self._values, self._options, self.format, self.extra = values, options, fmt, extra

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def option(self, name: str) -> str:
        """The command-line name of ``name`` (``m`` → ``--data-size``)."""
        return self._options[name].option

    def source_default(self, name: str) -> Any:
        """The default ``name`` has in its source (the catalog input or the library), e.g. N = 1."""
        from dpcalc.cli.options import source_default

        r = self._options[name]
        return source_default(r.opt, r.input)

    def given(self, *names: str) -> dict[str, Any]:
        """The values of ``names`` that were given (or have a default), by name."""
        return {n: self._values[n] for n in names if self._values[n] is not None}

    def grid(self, *names: str) -> dict[str, Any]:
        """The broadcast sweep grid (`dpcalc.report.grid.grid`) of ``names`` (default: every grid option
        given, in declaration order): one axis each, first slowest."""
        from dpcalc.report.grid import grid

        chosen = names or tuple(n for n, r in self._options.items() if r.opt.kind == "axis")
        return grid(self.given(*chosen))


def resolved(cmd: Command, with_help: bool = True) -> list[Resolved]:
    """The command's options completed from the catalog and the library (see `dpcalc.cli.options.resolve`)."""
    return [resolve(o, cmd.formula, with_help) for o in cmd.options]


def callback(cmd: Command, with_help: bool = True) -> Callable[..., None]:
    """The Typer callback of ``cmd``: its options, then the output options of its kind."""
    options = resolved(cmd, with_help)
    shared = [p.name for p in output.parameters(cmd.output)]
    names = [r.name for r in options] + shared
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        raise TypeError(f"{cmd.name}: options {clash} are declared twice or are the output options {shared}")
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context),
              *(r.parameter() for r in options), *output.parameters(cmd.output)]
    by_name = {r.name: r for r in options}

    def run(ctx: typer.Context, **given: Any) -> None:
        """Typer's callback: the click context says which options the command line gave."""
        source = ctx.get_parameter_source("fmt")
        given["fmt_given"] = cmd.output == "table" and source is not None and source.name != "DEFAULT"
        code = execute(cmd, by_name, given, list(ctx.args))
        if code:
            raise typer.Exit(code)

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__doc__ = cmd.help
    run.__name__ = run.__qualname__ = cmd.body.__name__
    return run


def execute(cmd: Command, options: dict[str, Resolved], given: dict[str, Any], extra: list[str]) -> int:
    """Parse, run the body, render; a dpcalc input error is one stderr line and exit code 2."""
    try:
        if given.get("output") is not None:  # exists without --force, a directory, …: before any computation
            from dpcalc.files import check_output

            check_output(Path(given["output"]), bool(given.get("force")))
        chosen = (output.table_format(given["fmt"], given["json_"], given["output"], given.get("fmt_given", True))
                  if cmd.output == "table" else None)
        with capture_warnings() as warns:
            args = Args({n: r.parse(given[n]) for n, r in options.items()}, options, chosen, extra)
            value = cmd.body(args)
        return output.write(cmd.output, value, given, chosen, warns)
    except DpcalcError as exc:
        from dpcalc.cli.messages import with_option_names

        raise fail(with_option_names(str(exc), options.values())) from None
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise fail(f"{exc.strerror}: {exc.filename}") from None


def fail(message: str) -> typer.Exit:
    """Print one line to stderr and return the Exit(2) to raise."""
    print(f"dpcalc: error: {' '.join(message.split())}", file=sys.stderr)
    return typer.Exit(EXIT_BAD_INPUT)


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
