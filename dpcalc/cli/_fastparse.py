"""Start-up speed: coerce plain CLI option values without Typer's Pydantic layer.

Typer (>= 0.2x) coerces every parameter through a Pydantic ``TypeAdapter``, and importing Pydantic plus
building the adapters costs ~100 ms on each ``dpcalc`` call, more than the whole calculation. dpcalc's
options are plain strings (numbers are parsed by :mod:`dpcalc.report.grid`), booleans, enums, paths and
integers, whose coercion is trivial. :func:`install` pre-sets a light coercer on each such parameter of the
built (Typer-vendored) Click command; anything else keeps Typer's own coercion.

This touches two private Typer names (``_TyperParameter._runtime_param`` and ``_coercion.RuntimeParam``).
If a Typer release renames them, :func:`install` does nothing and dpcalc runs unchanged, only slower
(``tests/cli/test_cli_fastparse.py`` then fails, so the regression is noticed).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer import BadParameter


def _runtime_base() -> type | None:
    try:
        from typer._coercion import RuntimeParam
    except ImportError:  # pragma: no cover - a Typer without the private layer
        return None
    return RuntimeParam


def _make_coercer_class(base: type) -> type:
    @dataclass(frozen=True)
    class PlainRuntimeParam(base):
        """Coerce a command-line string to str/int/float/Path/Enum without Pydantic."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            kind = self.annotation
            if isinstance(value, kind):
                return value
            if kind is bool:
                text = str(value).strip().lower()
                if text in _TRUE or text in _FALSE:
                    return text in _TRUE
                raise BadParameter(f"{value!r} is not a valid boolean.", ctx=ctx, param=param)
            if issubclass(kind, enum.Enum):
                for member in kind:
                    if value == member.value or value == member.name:
                        return member
                allowed = ", ".join(repr(m.value) for m in kind)
                raise BadParameter(f"{value!r} is not one of {allowed}.", ctx=ctx, param=param)
            try:
                return kind(value)
            except (TypeError, ValueError):
                raise BadParameter(f"{value!r} is not a valid {kind.__name__}.", ctx=ctx, param=param) from None

    return PlainRuntimeParam


_PLAIN = (str, int, float, Path)  # bool is a subclass of int
_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})


def _is_plain(annotation: Any) -> bool:
    if not isinstance(annotation, type):
        return False
    return issubclass(annotation, _PLAIN) or issubclass(annotation, enum.Enum)


def _commands(command: Any) -> list[Any]:
    found = [command]
    for sub in getattr(command, "commands", {}).values():
        found.extend(_commands(sub))
    return found


def _params_with_help(cmd: Any) -> list[Any]:
    """The command's parameters plus its (lazily created, then cached) ``--help`` option."""
    params = list(cmd.params)
    try:
        from typer._click import Context

        help_option = cmd.get_help_option(Context(cmd))
    except Exception:  # pragma: no cover - private API changed: the help flag just keeps Typer's coercion
        help_option = None
    return params if help_option is None else [*params, help_option]


def install(command: Any) -> int:
    """Give every plain parameter of ``command`` (and its subcommands) the light coercer; return how many."""
    base = _runtime_base()
    if base is None:  # pragma: no cover
        return 0
    coercer = _make_coercer_class(base)
    count = 0
    for cmd in _commands(command):
        for param in _params_with_help(cmd):
            desc = getattr(param, "type_descriptor", None)
            if desc is None or getattr(param, "_runtime_param", False) is not None:
                continue
            if param.multiple or param.nargs != 1 or getattr(desc, "file_annotation", None) is not None:
                continue
            if _is_plain(desc.annotation):
                param._runtime_param = coercer(parameter_info=desc.parameter_info, annotation=desc.annotation)
                count += 1
    return count
