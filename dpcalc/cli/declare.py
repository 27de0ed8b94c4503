"""The declarations of the command line: a `Command` (its name, options, catalog formula, output kind, body and work
estimate), a `Group`, the `command` decorator, and `Args`, the parsed values of one call. Nothing here runs a command
(`dpcalc.cli.command` does), so the modules that run parts of one (`dpcalc.cli.blocks`, `dpcalc.cli.sweep`) import
these types without importing the runner.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

from dpcalc.cli.options import Opt, Resolved
from dpcalc.report.render import Format

__all__ = ["ITEM_SECONDS", "POINT_SECONDS", "Args", "Command", "Group", "Work", "command"]


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
