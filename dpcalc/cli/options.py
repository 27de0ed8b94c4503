"""Declared options: each command option once, its name, help and default read from where they live.

An :class:`Opt` names a quantity by its library name (``m``, ``N``, ``eps``) and says what kind of value it takes
(:data:`KINDS`). :func:`resolve` completes it from one place:

* a catalog input (the command's formula, or ``Opt.formula``): the option name (the input's ``option`` key, else
  ``--{name}``), the help (the input's description, symbol, unit and domain) and the default (the input's
  ``default``, which is the implementation's signature default — ``tests/cli/test_defaults.py``);
* or a library function or dataclass (``Opt.default_from``): the default of its parameter or field;
* or the declaration itself, for options that are the command line's own (``--side``, ``--accountant``).

A default of several values (a list or range that a command sweeps when nothing is given, e.g. ``--alpha 2:64:1``)
is an ``Opt.sweep``: the library has no scalar to agree with. :meth:`Resolved.parse` turns the command-line text into
the value the command's body receives (a list of floats for a grid axis, a vector, one number, a matrix, …).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import re
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from dpcalc.errors import DomainError

__all__ = ["AS_PUBLISHED", "KINDS", "Opt", "Resolved", "argument", "axis", "choice", "flag", "integer",
           "library_default", "many", "matrix", "one", "path", "real", "resolve", "source_default", "text", "units",
           "vector"]

#: axis: a value, a comma list or a range, one axis of the sweep (list of floats); vector: a comma list or a file of
#: numbers (list); one: exactly one number (float); matrix: a file or inline rows 'a,b;c,d' (ndarray); units: nats or
#: bits; int, float, choice, flag, text, path: Typer's own types; many: a repeatable option (list of str);
#: argument, arguments: positional (str, list of str).
KINDS = ("axis", "vector", "one", "matrix", "units", "int", "float", "choice", "flag", "text", "path", "many",
         "argument", "arguments")
_NUMERIC = ("axis", "vector", "one")
_SYNTAX = {"axis": "A value, a list a,b or a range a:b:step", "vector": "A comma list or a file of numbers",
           "one": "One value", "matrix": "A file (.npy, .csv) or inline rows 'a,b;c,d'"}


class _FromSource:
    """The default comes from the catalog input or ``default_from`` (the marker of :attr:`Opt.default`)."""

    def __repr__(self) -> str:
        return "FROM_SOURCE"


FROM_SOURCE: Any = _FromSource()


class Opt(NamedTuple):
    """One option (or argument) of a command, declared once (a named tuple: cheap to define at start-up)."""

    name: str  # the library's name: keyword of the body's arguments, row key, catalog input name
    kind: str = "axis"  # one of KINDS
    option: str = ""  # "--data-size"; default: the catalog input's option, else --{name}
    short: str = ""  # "-z"
    help: str = ""  # default: the catalog input's description
    note: str = ""  # appended to the help
    default: Any = FROM_SOURCE  # the catalog's or default_from's; a value; None: optional and absent
    sweep: str = ""  # a default of several values (a list or a range) the command sweeps
    formula: str = ""  # the catalog entry declaring the input (default: the command's formula); "-": none
    default_from: Any = None  # a library function or dataclass (or "module:name") whose parameter ``name`` holds it
    param: str = ""  # the parameter or field of default_from, if not ``name``
    choices: type[enum.Enum] | None = None
    required: bool = False  # required even though the source has a default
    positional: bool = False  # an argument (kinds argument and arguments are always positional)


def axis(name: str, **kw: Any) -> Opt:
    """A sweep axis: a value, a list a,b or a range a:b:step."""
    return Opt(name, "axis", **kw)


def vector(name: str, **kw: Any) -> Opt:
    """A per-client (per-layer, …) list: a comma list or a file of numbers."""
    return Opt(name, "vector", **kw)


def one(name: str, **kw: Any) -> Opt:
    """Exactly one number (value syntax of :func:`grid`)."""
    return Opt(name, "one", **kw)


def matrix(name: str, **kw: Any) -> Opt:
    """A matrix: a file (.npy, text table) or inline rows ``a,b;c,d``."""
    return Opt(name, "matrix", **kw)


def units(default_from: Any, **kw: Any) -> Opt:
    """``--units nats|bits``, its default the library function's."""
    return Opt("units", "units", formula="-", default_from=default_from,
               **{"help": "Information units of ε and of the results: nats or bits", **kw})


def integer(name: str, **kw: Any) -> Opt:
    return Opt(name, "int", **kw)


def real(name: str, **kw: Any) -> Opt:
    return Opt(name, "float", **kw)


def choice(name: str, choices: type[enum.Enum], **kw: Any) -> Opt:
    return Opt(name, "choice", choices=choices, **kw)


def flag(name: str, **kw: Any) -> Opt:
    return Opt(name, "flag", **{"default": False, **kw})


def text(name: str, **kw: Any) -> Opt:
    return Opt(name, "text", **kw)


def path(name: str, **kw: Any) -> Opt:
    return Opt(name, "path", **kw)


def many(name: str, **kw: Any) -> Opt:
    return Opt(name, "many", **{"default": None, **kw})


def argument(name: str, **kw: Any) -> Opt:
    return Opt(name, "argument", **kw)


#: ``--as-published``: the switch of docs/conventions.md §3, the same in every command that has it.
AS_PUBLISHED = Opt("as_published", "flag", default=False, help="Also show the paper's published (erroneous) form")


# ------------------------------------------------------------------------------------------ resolution


class Resolved(NamedTuple):
    """An option completed from its sources: what Typer declares and how its text is parsed."""

    opt: Opt
    option: str  # "--data-size" (the argument's metavar for positional ones)
    help: str
    default: Any  # inspect.Parameter.empty: required
    input: dict[str, Any] | None  # the catalog input it is bound to

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
            return g.parse_vector(self.option, value)
        if kind == "one":
            values = g.parse_values(self.option, value)
            if len(values) != 1:
                raise DomainError(f"{self.option} takes one value here (got {len(values)})")
            return values[0]
        if kind == "matrix":
            return g.parse_matrix(self.option, value)
        if kind == "units":
            from dpcalc.units import check

            return check(value, self.option)
        return value


def resolve(opt: Opt, formula: str) -> Resolved:
    """Complete ``opt`` from the catalog input of ``formula`` (or ``opt.formula``) and ``opt.default_from``."""
    if opt.kind not in KINDS:
        raise ValueError(f"{opt.name}: kind must be one of {KINDS} (got {opt.kind!r})")
    owner = opt.formula or formula
    inp = _catalog_input(owner, opt.param or opt.name) if owner and owner != "-" else None
    if opt.positional or opt.kind in ("argument", "arguments"):
        option = opt.option or opt.name.upper()
    else:
        option = opt.option or f"--{(inp or {}).get('option') or opt.name.replace('_', '-')}"
    default = _default(opt, inp)
    return Resolved(opt, option, _help(opt, inp, default), default, inp)


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
    """The default the option's source holds (:data:`inspect.Parameter.empty` if it has none)."""
    if opt.default_from is not None:
        return library_default(opt.default_from, opt.param or opt.name)
    if inp is not None:
        return inp.get("default", inspect.Parameter.empty)
    return inspect.Parameter.empty


def library_default(source: Any, name: str) -> Any:
    """The default of parameter (or dataclass field) ``name`` of ``source`` (a function, a dataclass, or
    ``"module:name"``); :data:`inspect.Parameter.empty` if it has none."""
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


# ------------------------------------------------------------------------------------------ help text

_DOMAIN = re.compile(r"^\s*([\[(])\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*([\])])\s*(integer)?\s*$")
_PLAIN_UNITS = ("", "dimensionless", "probability")


def _help(opt: Opt, inp: dict[str, Any] | None, default: Any) -> str:
    """``{description}: {symbol} {domain} ({unit}). {syntax}. {note}.`` (the catalog's parts where there is one)."""
    parts = [opt.help or (inp or {}).get("description", "")]
    if inp is not None:
        from dpcalc.report.columns import unicode_symbol

        symbol, unit = unicode_symbol(inp["symbol"]), inp.get("unit", "").split(" (")[0]
        quantity = " ".join(x for x in (symbol, domain_text(inp.get("domain", ""))) if x)
        if unit not in _PLAIN_UNITS:
            quantity += f" ({unit})"
        parts[0] = f"{parts[0]}: {quantity}" if parts[0] else quantity
    if opt.kind in _SYNTAX:
        parts.append(_SYNTAX[opt.kind] + ("; default: all of " + opt.sweep if opt.sweep else ""))
    if opt.note:
        parts.append(opt.note)
    text = ". ".join(p.strip().rstrip(".") for p in parts if p.strip())
    return text[:1].upper() + text[1:] + "."


def domain_text(domain: str) -> str:
    """``(0, inf)`` → ``> 0``; ``[1, inf) integer`` → ``>= 1, an integer``; ``(0, 1]`` → ``in (0, 1]``."""
    m = _DOMAIN.match(domain)
    if not m:
        return ""
    lo_open, lo, hi, integer = m.group(1) == "(", m.group(2), m.group(3), m.group(5)
    if hi == "inf":
        text = f"{'>' if lo_open else '>='} {lo}" if lo != "-inf" else ""
    else:
        text = f"in {m.group(1)}{lo}, {hi}{m.group(4)}"
    return f"{text}, an integer" if integer and text else ("an integer" if integer else text)
