"""Declared options: each command option once, its name, help and default read from where they live.

An `Opt` names a quantity by its library name (``m``, ``N``, ``eps``) and says what kind of value it takes
(`KINDS`). `resolve` completes it from one place:

* a catalog input (the command's formula, or ``Opt.formula``): the option name (the input's ``option`` key, else
  ``--{name}``), the help (the input's description, symbol, unit and domain) and the default (the input's
  ``default``, which is the implementation's signature default — ``tests/cli/test_defaults.py``);
* or a library function or dataclass (``Opt.default_from``): the default of its parameter or field;
* or the declaration itself, for options that are the command line's own (``--side``, ``--accountant``).

A default of several values (a list or range that a command sweeps when nothing is given, e.g. ``--alpha 2:64:1``)
is an ``Opt.sweep``: the library has no scalar to agree with. `Resolved.parse` turns the command-line text into
the value the command's body receives (a list of floats for a grid axis, a vector, one number, a matrix, …).
"""

from __future__ import annotations

import enum
import importlib
import inspect
from dataclasses import MISSING, fields, is_dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from dpcalc.errors import DomainError

__all__ = ["AS_PUBLISHED", "IN_BLOCKS", "KINDS", "SCHEDULER", "Opt", "Resolved", "argument", "axis", "choice", "flag",
           "integer", "library_default", "many", "matrix", "one", "path", "real", "resolve", "source_default", "text",
           "units", "vector"]

#: axis: a value, a comma list or a range, one axis of the sweep (list of floats); vector: a comma list or a file of
#: numbers (list); one: exactly one number (float); matrix: a file or inline rows 'a,b;c,d' (ndarray); units: nats or
#: bits; int, float, choice, flag, text, path: Typer's own types; address: a network address (non-empty text, no
#: spaces); many: a repeatable option (list of str); argument, arguments: positional (str, list of str).
KINDS = ("axis", "vector", "one", "matrix", "units", "int", "float", "choice", "flag", "text", "path", "many",
         "argument", "arguments", "address")
_NUMERIC = ("axis", "vector", "one")


class _FromSource:
    """The default comes from the catalog input or ``default_from`` (the marker of `Opt.default`)."""

    def __repr__(self) -> str:
        return "FROM_SOURCE"


FROM_SOURCE: Any = _FromSource()


class Opt:
    """One option (or argument) of a command, declared once. The fields and their defaults are the class
    attributes below; ``Opt(name, kind, **fields)`` sets the ones that differ (a plain class: cheap at start-up)."""

    kind = "axis"  # one of KINDS
    option = ""  # "--data-size"; default: the catalog input's option, else --{name}
    short = ""  # "-z"
    help = ""  # default: the catalog input's description
    note = ""  # appended to the help
    default: Any = FROM_SOURCE  # the catalog's or default_from's; a value; None: optional and absent
    sweep = ""  # a default of several values (a list or a range) the command sweeps
    formula = ""  # the catalog entry declaring the input (default: the command's formula); "-": none
    default_from: Any = None  # a library function or dataclass (or "module:name") whose parameter ``name`` holds it
    param = ""  # the parameter or field of default_from, if not ``name``
    choices: type[enum.Enum] | None = None
    required = False  # required even though the source has a default
    positional = False  # an argument (kinds argument and arguments are always positional)

    def __init__(self, name: str, kind: str = "axis", **fields: Any) -> None:
        unknown = [k for k in fields if not hasattr(Opt, k) or callable(getattr(Opt, k))]
        if kind not in KINDS or unknown:
            raise TypeError(f"Opt {name!r}: kind must be one of {KINDS} (got {kind!r}); unknown fields {unknown}")
        self.name, self.kind = name, kind  # name: the library's name (the body's keyword, row key, catalog input)
        self.__dict__.update(fields)

    def _replace(self, **changes: Any) -> Opt:
        fields = {**self.__dict__, **changes}
        return Opt(fields.pop("name"), fields.pop("kind"), **fields)

    def __repr__(self) -> str:
        return f"Opt({self.name!r}, {self.kind!r}, {', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


axis = partial(Opt, kind="axis")  # a sweep axis: a value, a list a,b or a range a:b:step
vector = partial(Opt, kind="vector")  # a per-client (per-layer, …) list: a comma list or a file of numbers
one = partial(Opt, kind="one")  # exactly one number (value syntax of axis)
matrix = partial(Opt, kind="matrix")  # a file (.npy, text table) or inline rows a,b;c,d
integer = partial(Opt, kind="int")
real = partial(Opt, kind="float")
flag = partial(Opt, kind="flag")  # default: the source's, else False
text = partial(Opt, kind="text")
path = partial(Opt, kind="path")
many = partial(Opt, kind="many", default=None)
argument = partial(Opt, kind="argument")


def choice(name: str, values: tuple[str, ...], **fields: Any) -> Opt:
    """One of ``values`` (the body receives the string); Typer lists them as the choices."""
    members = enum.Enum(f"{name}_choice", [(v.replace("-", "_"), v) for v in values], type=str)  # type: ignore[misc]
    return Opt(name, "choice", choices=members, **fields)


def units(default_from: Any, **fields: Any) -> Opt:
    """``--units nats|bits``, its default the library function's."""
    return Opt("units", "units", formula="-", default_from=default_from,
               **{"help": "Information units of ε and of the results: nats or bits", **fields})


#: ``--as-published``: the switch of docs/conventions.md §3, the same in every command that has it.
AS_PUBLISHED = Opt("as_published", "flag", formula="-", help="Also show the paper's published (erroneous) form")
SCHEDULER = Opt("scheduler", "address", formula="-", default=None, option="--scheduler",
                help="Run on a Dask cluster: its scheduler address, e.g. tcp://10.0.0.5:8786 (default: "
                     "$DASK_SCHEDULER_ADDRESS, else this machine); same numbers either way. Needs dpcalc[dask]")
#: ``--stream FILE.csv`` and ``--scheduler ADDRESS`` of every table command with a sweep axis (`dpcalc.cli.blocks`).
IN_BLOCKS = (path("stream", formula="-", default=None, help="Evaluate the sweep in blocks (this machine's cores, or "
                  "the cluster of --scheduler) and write its rows to this CSV file as they complete"),
             SCHEDULER._replace(help="Evaluate the sweep in blocks on a Dask cluster: its scheduler address, e.g. "
                                "tcp://10.0.0.5:8786; same numbers as on this machine. Needs dpcalc[dask]"))


# ------------------------------------------------------------------------------------------ resolution


class Resolved:
    """An option completed from its sources: what Typer declares and how its text is parsed."""

    def __init__(self, opt: Opt, option: str, help: str, default: Any, input: dict[str, Any] | None) -> None:
        self.opt = opt
        self.option = option  # "--data-size" (the argument's metavar for positional ones)
        self.help = help
        self.default = default  # inspect.Parameter.empty: required
        self.input = input  # the catalog input it is bound to

    @property
    def name(self) -> str:
        return self.opt.name

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    @property
    def positional(self) -> bool:
        return self.opt.positional or self.opt.kind in ("argument", "arguments")

    def parameter(self) -> inspect.Parameter:
        """The keyword parameter of the Typer callback (name, ``Annotated`` type, default)."""
        return inspect.Parameter(self.name, inspect.Parameter.KEYWORD_ONLY, default=self.default,
                                 annotation=self._annotation())

    def _annotation(self) -> Any:
        o = self.opt
        kind: Any = {"int": int, "float": float, "flag": bool, "path": Path, "many": list[str],
                     "arguments": list[str], "choice": o.choices}.get(o.kind, str)
        if self.default is None or o.kind in ("many", "arguments"):
            kind = kind | None
        info: Any
        if self.positional:
            info = typer.Argument(help=self.help, show_default=not self.required and self.default is not None,
                                  metavar=self.option)
        else:
            decls = [self.option, *([o.short] if o.short else [])]
            info = typer.Option(*decls, help=self.help, case_sensitive=o.kind != "choice")
        return Annotated[kind, info]

    def parse(self, value: Any) -> Any:
        """The body's value of this option: parsed and validated command-line text (None stays None)."""
        from dpcalc.report import grid as g

        if value is None:
            return None
        kind = self.opt.kind
        if kind == "axis":
            return g.parse_values(self.option, value)
        if kind == "vector":
            from dpcalc.report.vectors import parse_vector

            return parse_vector(self.option, value)
        if kind == "one":
            values = g.parse_values(self.option, value)
            if len(values) != 1:
                raise DomainError(f"{self.option} takes one value here (got {len(values)})")
            return values[0]
        if kind == "matrix":
            from dpcalc.report.vectors import parse_matrix

            return parse_matrix(self.option, value)
        if kind == "choice":
            return value.value if isinstance(value, enum.Enum) else value
        if kind == "units":
            from dpcalc.units import check

            return check(value, self.option)
        if kind == "address" and (not value.strip() or len(value.split()) > 1):
            raise DomainError(f"{self.option} must be an address without spaces, e.g. tcp://10.0.0.5:8786 (got "
                              f"{value[:40]!r}); leave the option out to run on this machine")
        return value


    def outside(self, values: Any) -> list[bool]:
        """For each number of ``values``: is it outside the domain of the catalog input this option is bound to (its
        interval, NaN included; integrality is left to the command)? All False for an option without a domain. A
        sweep separates these values from the others before running anything (`dpcalc.cli.sweep`)."""
        domain = (self.input or {}).get("domain")
        if not domain:
            return [False] * len(values)
        import numpy as np

        from dpcalc.catalog.types import Domain

        d = Domain.parse(domain)
        x = np.asarray(values, dtype=np.float64)
        inside = (x > d.lo if d.lo_open else x >= d.lo) & (x < d.hi if d.hi_open else x <= d.hi)
        return [not ok for ok in inside.tolist()]


def resolve(opt: Opt, formula: str, with_help: bool = True) -> Resolved:
    """Complete ``opt`` from the catalog input of ``formula`` (or ``opt.formula``) and ``opt.default_from``; its help
    text only ``with_help`` (the console script builds it only when ``--help`` is asked for)."""
    if opt.kind not in KINDS:
        raise ValueError(f"{opt.name}: kind must be one of {KINDS} (got {opt.kind!r})")
    owner = opt.formula or formula
    inp = _catalog_input(owner, opt.param or opt.name) if owner and owner != "-" else None
    if opt.positional or opt.kind in ("argument", "arguments"):
        option = opt.option or opt.name.upper()
    else:
        option = opt.option or f"--{(inp or {}).get('option') or opt.name.replace('_', '-')}"
    if not with_help:
        return Resolved(opt, option, "", _default(opt, inp), inp)
    from dpcalc.cli.help import help_text

    return Resolved(opt, option, help_text(opt, inp), _default(opt, inp), inp)


def _catalog_input(formula: str, name: str) -> dict[str, Any] | None:
    from dpcalc.catalog import raw

    entry = raw.entry(formula)
    if entry is None:
        raise ValueError(f"option {name!r}: unknown formula id {formula!r}")
    for inp in entry["inputs"]:
        if inp["name"] == name:
            return dict(inp)
    return None


def source_default(opt: Opt, inp: dict[str, Any] | None) -> Any:
    """The default the option's source holds (`inspect.Parameter.empty` if it has none)."""
    if opt.default_from is not None:
        return library_default(opt.default_from, opt.param or opt.name)
    if inp is not None:
        return inp.get("default", inspect.Parameter.empty)
    return inspect.Parameter.empty


def library_default(source: Any, name: str) -> Any:
    """The default of parameter (or dataclass field) ``name`` of ``source`` (a function, a dataclass, or
    ``"module:name"``); `inspect.Parameter.empty` if it has none."""
    if isinstance(source, str):
        module, _, attr = source.partition(":")
        source = getattr(importlib.import_module(module), attr)
    if is_dataclass(source):
        field = next(f for f in fields(source) if f.name == name)
        if field.default is not MISSING:
            return field.default
        return inspect.Parameter.empty if field.default_factory is MISSING else field.default_factory()
    return inspect.signature(source).parameters[name].default


def _default(opt: Opt, inp: dict[str, Any] | None) -> Any:
    """The Typer default: the sweep, the source's (as typed text for numeric kinds), or empty (required)."""
    if opt.sweep:
        return opt.sweep
    value = source_default(opt, inp) if opt.default is FROM_SOURCE else opt.default
    if opt.kind == "flag" and value is inspect.Parameter.empty:
        return False
    if opt.required or value is inspect.Parameter.empty:
        return inspect.Parameter.empty
    if value is None:
        return None
    if opt.choices is not None:
        return opt.choices(value)
    if opt.kind in _NUMERIC and isinstance(value, tuple | list):  # a dataclass's tuple default: "2,5,20"
        return ",".join(show_number(x) for x in value)
    if opt.kind in _NUMERIC and isinstance(value, int | float) and not isinstance(value, bool):
        return show_number(value)
    return value


def show_number(x: float) -> str:
    """A default as the user would type it: ``20``, ``0.01``, ``1e-05``."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)
