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
import math
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from dpcalc.cli import output
from dpcalc.cli.options import IN_BLOCKS, Opt, Resolved, resolve
from dpcalc.errors import DpcalcError
from dpcalc.report.render import Format

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_VERIFY_FAILED", "ITEM_SECONDS", "POINT_SECONDS", "Args", "Command",
           "Group", "Work", "callback", "capture_warnings", "command", "estimate", "fail", "resolved"]

EXIT_OK, EXIT_VERIFY_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class Command:
    """A declared command: ``dpcalc [group] name`` with ``options``, evaluated by ``body``."""

    def __init__(self, name: str, body: Callable[[Args], Any], options: tuple[Opt, ...] = (), formula: str = "",
                 output: str = "table", extra_args: bool = False, work: Work = None) -> None:
        self.name, self.body, self.options = name, body, options
        self.formula = formula  # the catalog entry the options' inputs come from (unless an option names its own)
        self.output = output  # table | figure | document
        self.extra_args = extra_args  # --<input> VALUES pairs beyond the declared options (dpcalc eval)
        self.work = work  # the work estimate (`estimate`)

    @property
    def help(self) -> str:
        return inspect.getdoc(self.body) or ""


class Group:
    """A command group (``dpcalc midp …``)."""

    def __init__(self, name: str, help: str, commands: tuple[Command, ...]) -> None:
        self.name, self.help, self.commands = name, help, commands


#: A command's work estimate: seconds per grid point (a number), or ``work(args)`` → (the options responsible,
#: estimated seconds, what one unit costs); None: `POINT_SECONDS` per grid point.
Work = float | Callable[["Args"], tuple[str, float, str]] | None

POINT_SECONDS = 1e-5
"""Default cost of one grid point: a vectorised closed form, its row computed and written (measured 5–10 µs a row on
two busy cores: 10^6 rows in ~10 s; the minute is ~6·10^6 rows)."""

ITEM_SECONDS = 1e-4
"""Default cost of one value of a list option (``vector``: a client, a layer, a norm — usually a row of its own and
Python work per value): measured ~5 µs of CPU, counted 20× for cores shared with other work."""


def command(name: str, *options: Opt, formula: str = "", output: str = "table", extra_args: bool = False,
            work: Work = None) -> Callable[[Callable[[Args], Any]], Command]:
    """Declare the decorated body as command ``name`` (nothing is registered here); ``work``: its estimate."""

    def declare(body: Callable[[Args], Any]) -> Command:
        return Command(name, body, options, formula, output, extra_args, work)

    return declare


class Args:
    """The parsed values of one call, by library name (``a.eps``, ``a["m"]``), and what they came from."""

    def __init__(self, values: dict[str, Any], options: dict[str, Resolved], fmt: Format | None,
                 extra: list[str], force: bool = False) -> None:
        self._values, self._options, self.format, self.extra = values, options, fmt, extra
        self.force = force  # --force: the files the command writes (--output, --stream) may replace existing ones

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

    def axes(self) -> dict[str, list[float]]:
        """The values of every sweep axis given (or defaulted), by name, in declaration order."""
        return {n: v for n, r in self._options.items() if r.opt.kind == "axis" and (v := self._values[n]) is not None}

    def points(self) -> int:
        """The number of grid points: the product of the axes' value counts."""
        return math.prod(len(v) for v in self.axes().values())

    def items(self) -> dict[str, int]:
        """The number of values of every list option (kind ``vector``) given, by name."""
        return {n: len(v) for n, r in self._options.items()
                if r.opt.kind == "vector" and (v := self._values[n]) is not None}

    def describe(self, *names: str) -> str:
        """``--eps × --rounds (30 × 20 values)``: the options (default: every axis) with several values."""
        axes = self.axes()
        many = [n for n in (names or axes) if n in axes and len(axes[n]) > 1]
        if not many:
            return "the options"
        return f"{' × '.join(self.option(n) for n in many)} ({' × '.join(str(len(axes[n])) for n in many)} values)"

    def outside(self, name: str) -> list[bool]:
        """For each value of the list option ``name``: is it outside its catalog input's domain (`Resolved.outside`)?"""
        return self._options[name].outside(self._values[name])

    def replace(self, **values: Any) -> Args:
        """The same call with the values of some options replaced (a part of a sweep)."""
        return Args({**self._values, **values}, self._options, self.format, self.extra, self.force)

    def reformat(self, fmt: Format | None) -> Args:
        """The same call rendered as ``fmt``."""
        return Args(self._values, self._options, fmt, self.extra, self.force)

    def parsed(self) -> dict[str, Any]:
        """Every option's parsed value, by name."""
        return dict(self._values)

    def row_keys(self, name: str) -> tuple[str, ...]:
        """The row keys an input may have: its library name and its option's (``sigma``, ``noise_multiplier``)."""
        return (name, self.option(name).lstrip("-").replace("-", "_"))

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
    in_blocks = (cmd.output == "table" and any(r.opt.kind == "axis" for r in options)
                 and not {o.name for o in IN_BLOCKS} & {r.name for r in options})
    if in_blocks:  # --stream, --scheduler: a sweep in blocks, on this machine or a cluster (dpcalc.cli.blocks)
        options += [resolve(o, cmd.formula, with_help) for o in IN_BLOCKS]
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
        code = execute(cmd, by_name, given, list(ctx.args), in_blocks)
        if code:
            raise typer.Exit(code)

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__doc__ = cmd.help
    run.__name__ = run.__qualname__ = cmd.body.__name__
    return run


def execute(cmd: Command, options: dict[str, Resolved], given: dict[str, Any], extra: list[str],
            in_blocks: bool = False) -> int:
    """Parse, run the body (or with ``--stream``/``--scheduler``, `dpcalc.cli.blocks`), render; a dpcalc input error
    is one stderr line and exit code 2."""
    try:
        _check_files(given)  # --output and --stream: exists without --force, a directory, …: before any computation
        chosen = (output.table_format(given["fmt"], given["json_"], given["output"], given.get("fmt_given", True))
                  if cmd.output == "table" else None)
        with capture_warnings() as warns:
            args = Args({n: r.parse(given[n]) for n, r in options.items()}, options, chosen, extra,
                        bool(given.get("force")))
            if in_blocks and (args.stream is not None or args.scheduler):
                from dpcalc.cli import blocks

                value = blocks.run(cmd, args, blocks.Kit(Args, capture_warnings, estimate))
            else:
                estimate(cmd, args)
                try:
                    value = cmd.body(args)
                except DpcalcError as exc:  # a sweep crossing a domain edge keeps the rows that exist (cli.sweep)
                    from dpcalc.cli.messages import with_option_names
                    from dpcalc.cli.sweep import after_failure

                    value = after_failure(cmd, args, exc, lambda e: with_option_names(str(e), options.values()))
        return output.write(cmd.output, value, given, chosen, warns)
    except DpcalcError as exc:
        from dpcalc.cli.messages import with_option_names

        raise fail(with_option_names(str(exc), options.values())) from None
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise fail(f"{exc.strerror}: {exc.filename}") from None


def _check_files(given: dict[str, Any]) -> None:
    """The files a call writes (``--output``, ``--stream``), checked before any computation: an existing file only
    with ``--force``, never a directory or a device, and never the same file twice."""
    from dpcalc.errors import DomainError
    from dpcalc.files import check_output

    force = bool(given.get("force"))
    paths = {o: Path(given[k]) for o, k in (("--output", "output"), ("--stream", "stream")) if given.get(k) is not None}
    for option, p in paths.items():
        check_output(p, force, option)
    if len(paths) == 2 and paths["--output"].resolve() == paths["--stream"].resolve():
        raise DomainError(f"--stream {paths['--stream']}: the same file as --output; the rows and the summary need "
                          "two files")


def estimate(cmd: Command, args: Args) -> None:
    """Refuse in one line, before any work, a call whose estimated work exceeds `dpcalc._limits.MAX_SECONDS`
    (what stays within it runs; long work shows progress on a terminal, `dpcalc._progress`)."""
    from dpcalc import _limits

    if callable(cmd.work):
        what, seconds, each = cmd.work(args)
    else:
        each_point = POINT_SECONDS if cmd.work is None else float(cmd.work)
        what, seconds, each = args.describe(), args.points() * each_point, f"~{_duration(each_point)} a point"
        items = {n: k for n, k in args.items().items() if k > 1}
        if sum(items.values()) * ITEM_SECONDS > seconds:  # a long list costs more than the grid
            what = f"{' + '.join(args.option(n) for n in items)} ({' + '.join(map(str, items.values()))} values)"
            seconds, each = sum(items.values()) * ITEM_SECONDS, f"~{_duration(ITEM_SECONDS)} a value"
    _limits.check_seconds(what, seconds, each)


def _duration(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def fail(message: str) -> typer.Exit:
    """Print one line to stderr (`dpcalc.cli.messages.one_line`) and return the Exit(2) to raise."""
    from dpcalc.cli.messages import one_line

    print(f"dpcalc: error: {one_line(message)}", file=sys.stderr)
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
