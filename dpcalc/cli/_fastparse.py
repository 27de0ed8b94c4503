"""Start-up speed: coerce plain option values without Typer's Pydantic layer, where Typer lets us.

Typer (0.29) coerces every parameter through a Pydantic ``TypeAdapter``; importing Pydantic and building the
adapters costs ~100 ms on each ``dpcalc`` call, more than the whole calculation. dpcalc's options are strings
(numbers are parsed by `dpcalc.report.grid`), booleans, enums, paths and integers, and lists of those (repeated
options such as ``--accountant``, variadic arguments), whose coercion is trivial.
`install` pre-sets a light coercer on each such parameter of the built Click command.

Typer has no public hook for this: `install` uses two private names (the ``RuntimeParam`` base of
``typer._coercion`` and the parameter's ``_runtime_param`` slot). It checks for both first and does nothing when a
Typer release lacks them — every option then goes through Typer's own coercion, with the same results, only slower
(``tests/cli/test_cli_fastparse.py`` runs every command both ways).
"""

from __future__ import annotations

import enum
import importlib
import typing
from functools import cache
from pathlib import Path
from typing import Any

import typer

__all__ = ["available", "install"]

_PLAIN = (str, int, float, Path)  # bool is a subclass of int
_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})


def _runtime_base() -> type | None:
    """Typer's private ``RuntimeParam`` base class, or None if this Typer has none."""
    try:
        base = importlib.import_module("typer._coercion").RuntimeParam
    except (ImportError, AttributeError):
        return None
    return base if isinstance(base, type) else None


def available() -> bool:
    """True when this Typer has the private layer the light coercer plugs into."""
    return _runtime_base() is not None


def coerce_plain(kind: type, value: Any, param: Any = None, ctx: Any = None) -> Any:
    """A command-line string as ``kind`` (str, int, float, Path, bool or an Enum), or a one-line BadParameter."""
    if isinstance(value, kind):
        return value
    if kind is bool:
        text = str(value).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise typer.BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
    if issubclass(kind, enum.Enum):
        for member in kind:
            if value == member.value or value == member.name:
                return member
        allowed = ", ".join(repr(m.value) for m in kind)
        raise typer.BadParameter(f"{value!r} is not one of {allowed}.", ctx=ctx, param=param)
    try:
        return kind(value)  # type: ignore[call-arg]
    except (TypeError, ValueError):
        raise typer.BadParameter(f"{value!r} is not a valid {kind.__name__}.", ctx=ctx, param=param) from None


@cache
def _coercer_class(base: type) -> type:
    class PlainRuntimeParam(base):
        """Coerce a command-line string to str/int/float/Path/bool/Enum without Pydantic (the base's fields); a
        repeated option (``list[str]`` …) item by item, as a list."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            kind = _item(self.annotation)
            if kind is not None:
                return [coerce_plain(kind, x, param, ctx) for x in value]
            return coerce_plain(self.annotation, value, param, ctx)

    return PlainRuntimeParam


def _is_plain(annotation: Any) -> bool:
    return isinstance(annotation, type) and (issubclass(annotation, _PLAIN) or issubclass(annotation, enum.Enum))


def _item(annotation: Any) -> type | None:
    """The item type of ``list[X]`` with X plain, else None."""
    if typing.get_origin(annotation) is not list:
        return None
    args = typing.get_args(annotation)
    return args[0] if len(args) == 1 and _is_plain(args[0]) else None


def _commands(command: Any) -> list[Any]:
    found = [command]
    for sub in getattr(command, "commands", {}).values():
        found.extend(_commands(sub))
    return found


def _params_with_help(cmd: Any) -> list[Any]:
    """The command's parameters plus its (lazily created, then cached) ``--help`` option."""
    params = list(cmd.params)
    try:
        help_option = cmd.get_help_option(typer.Context(cmd))
    except Exception:  # pragma: no cover - the help flag then keeps Typer's coercion
        help_option = None
    return params if help_option is None else [*params, help_option]


def install(command: Any) -> int:
    """Give every plain parameter of ``command`` (and its subcommands) the light coercer; return how many.

    Does nothing (returns 0) if this Typer lacks the private layer: Typer's own coercion then runs.
    """
    base = _runtime_base()
    if base is None:
        return 0
    coercer = _coercer_class(base)
    count = 0
    for cmd in _commands(command):
        for param in _params_with_help(cmd):
            desc = getattr(param, "type_descriptor", None)
            if desc is None or not hasattr(param, "_runtime_param") or param._runtime_param is not None:
                continue
            if getattr(desc, "file_annotation", None) is not None:
                continue
            many = param.multiple or param.nargs == -1  # a repeated option or a variadic argument: list[X]
            if (_item(desc.annotation) is not None) if many else (param.nargs == 1 and _is_plain(desc.annotation)):
                param._runtime_param = coercer(parameter_info=desc.parameter_info, annotation=desc.annotation)
                count += 1
    return count
