"""Read and write events: dp-accounting's nested ``to_named_tuple()`` form as dictionaries, a shorter spelling, and
dp-accounting's own event objects (duck-typed: anything with ``to_named_tuple()``; dp-accounting is never imported).

The dictionary form is ``{"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}``, nested through ``event`` /
``events`` (``module_name`` is ignored); ``json.dumps(dp_event.to_named_tuple())`` writes each named tuple as the list
``[module_name, class_name, field values…]``, which is read as well. The shorter spelling writes ``type`` (or
``class_name``) as the class name
without ``DpEvent`` in any case, with or without underscores: ``{"type": "poisson_sampled", ...}``,
``{"type": "Gaussian", ...}``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dpcalc import _validate as v
from dpcalc.accounting.events.base import EVENT_CLASSES, Event
from dpcalc.errors import DomainError

__all__ = ["as_event", "from_dict", "load", "to_dict"]

_IGNORED = ("module_name", "class_name", "type")


def _key(name: str) -> str:
    k = name.strip().lower().replace("_", "").replace("-", "").replace(" ", "")
    return k[: -len("dpevent")] if k.endswith("dpevent") else k


def _by_key() -> dict[str, type[Event]]:
    """Every registered class by its normalised class name and short spelling (the package registers them all)."""
    out: dict[str, type[Event]] = {}
    for cls in EVENT_CLASSES.values():
        out[_key(cls.CLASS_NAME)] = cls
        out[_key(cls.SHORT)] = cls
    return out


def _class_of(data: Mapping[str, Any], where: str) -> type[Event]:
    name = data.get("class_name", data.get("type"))
    if isinstance(name, bytes):
        name = name.decode()
    if not isinstance(name, str):
        raise DomainError(f"{where}: an event needs a class_name (e.g. \"GaussianDpEvent\") (got {v.brief(name)})")
    cls = _by_key().get(_key(name))
    if cls is None:
        raise DomainError(f"{where}: unknown event class {name!r}; dpcalc reads {', '.join(sorted(EVENT_CLASSES))}")
    return cls


def from_dict(data: Mapping[str, Any], *, where: str = "event") -> Event:
    """The event a nested dictionary describes (dp-accounting's ``to_named_tuple()`` form or the short spelling).
    Errors name the place in the tree: ``event.event.noise_multiplier must be > 0 (got -1)``.

    Examples:
        >>> from dpcalc.accounting.events import from_dict
        >>> from_dict({'class_name': 'SelfComposedDpEvent', 'count': 10,
        ...            'event': {'class_name': 'GaussianDpEvent', 'noise_multiplier': 2.0}})
        ...
        SelfComposed(event=Gaussian(noise_multiplier=2.0), count=10)
    """
    if not isinstance(data, Mapping):
        raise DomainError(f"{where} must be an event dictionary (got {v.brief(data)})")
    cls = _class_of(data, where)
    names = list(v.field_names(cls))
    extra = sorted(set(data) - set(names) - set(_IGNORED))
    if extra:
        raise DomainError(f"{where}: {cls.CLASS_NAME} has no field {extra[0]!r}; its fields are "
                          f"{', '.join(names) or 'none'}")
    kwargs: dict[str, Any] = {}
    for name in names:
        if name in data:
            kwargs[name] = _value(data[name], f"{where}.{name}")
    try:
        return cls(**kwargs)
    except TypeError:
        missing = [f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                   if f.name not in kwargs and f.default is dataclasses.MISSING]
        raise DomainError(f"{where}: {cls.CLASS_NAME} needs {', '.join(missing)}") from None
    except DomainError as exc:
        raise DomainError(f"{where}: {exc}") from None


def _positional(value: Any) -> dict[str, Any] | None:
    """The dictionary of an event written positionally — ``json.dumps(dp_event.to_named_tuple())`` turns each named
    tuple into ``[module_name, class_name, field values in order…]`` — or None when ``value`` is not one."""
    if (not isinstance(value, list | tuple) or _is_named_tuple(value) or len(value) < 2
            or not isinstance(value[0], str) or not isinstance(value[1], str)):
        return None
    cls = _by_key().get(_key(value[1]))
    if cls is None:
        return None
    names = list(v.field_names(cls))
    if len(value) - 2 > len(names):
        raise DomainError(f"event: {cls.CLASS_NAME} written as a list has {len(value) - 2} values for its "
                          f"{len(names)} fields ({', '.join(names) or 'none'})")
    return {"class_name": value[1], **dict(zip(names, value[2:], strict=False))}


def _value(value: Any, where: str) -> Any:
    if isinstance(value, Mapping) and ("class_name" in value or "type" in value):
        return from_dict(value, where=where)
    if _is_named_tuple(value):
        return from_dict(_named_tuple_dict(value), where=where)
    positional = _positional(value)
    if positional is not None:
        return from_dict(positional, where=where)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_value(x, f"{where}[{i}]") for i, x in enumerate(value)]
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity"):
        return math.inf  # RepeatAndSelect's Poisson shape in a JSON file
    return value


def _is_named_tuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_asdict") and hasattr(value, "class_name")


def _named_tuple_dict(value: Any) -> dict[str, Any]:
    return dict(value._asdict())


def as_event(event: Any, name: str = "event") -> Event:
    """An `Event` from a dpcalc event, a dictionary, a dp-accounting named tuple or any object with
    ``to_named_tuple()`` (a dp-accounting ``DpEvent``).

    Examples:
        >>> from dpcalc.accounting.events import as_event
        >>> as_event({'class_name': 'GaussianDpEvent', 'noise_multiplier': 1.0})
        Gaussian(noise_multiplier=1.0)
    """
    obj = event
    if isinstance(obj, Event):
        return obj
    if isinstance(obj, Mapping):
        return from_dict(obj, where=name)
    if _is_named_tuple(obj):
        return from_dict(_named_tuple_dict(obj), where=name)
    positional = _positional(obj)
    if positional is not None:
        return from_dict(positional, where=name)
    to_nt = getattr(obj, "to_named_tuple", None)
    if callable(to_nt):
        try:
            nt = to_nt()
        except ValueError as exc:
            raise DomainError(f"{name}: {type(obj).__name__} cannot be read ({exc})") from None
        return from_dict(_named_tuple_dict(nt), where=name)
    raise DomainError(f"{name} must be a dpcalc event, a dictionary (dp-accounting's to_named_tuple() form, also as "
                      f"json.dumps writes it) or a dp-accounting DpEvent (got {v.brief(obj)})")


def to_dict(event: Event) -> dict[str, Any]:
    """The nested dictionary of an event (dp-accounting's class and field names; lists for sequences).

    Examples:
        >>> from dpcalc.accounting.events import to_dict
        >>> from dpcalc.accounting.events import Gaussian, SelfComposed
        >>> to_dict(SelfComposed(Gaussian(2.0), 10))
        {'class_name': 'SelfComposedDpEvent', 'event': {'class_name': 'GaussianDpEvent', 'noise_multiplier': 2.0},
        'count': 10}
    """
    event = as_event(event)
    out: dict[str, Any] = {"class_name": event.CLASS_NAME}
    for name in v.field_names(type(event)):
        out[name] = _plain(getattr(event, name))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Event):
        return to_dict(value)
    if isinstance(value, tuple):
        return [_plain(x) for x in value]
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return value


def load(path: str | Path, name: str = "path") -> Event:
    """An event from a JSON or TOML file (``.toml`` by its suffix, else JSON); errors name ``name`` (the CLI: --event).

    Examples:
        >>> from dpcalc.accounting.events import load
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), 'event.json')
        >>> with open(path, 'w') as file:
        ...     _ = file.write('{"class_name": "LaplaceDpEvent", "noise_multiplier": 1.0}')
        ...
        >>> load(path)
        Laplace(noise_multiplier=1.0)
    """
    from dpcalc import files

    # a regular file of at most files.MAX_DOCUMENT_BYTES, nested at most files.MAX_NESTING levels (checked before the
    # parser and the event constructors, which recurse once per level, see it); one line naming `name` otherwise
    return as_event(files.read_document(name, path, "save it as UTF-8 JSON or TOML"), name)
