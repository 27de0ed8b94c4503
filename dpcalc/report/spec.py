"""Reading small TOML specs (table specs, figure presets) with one-line errors that name the key and its place.

A `Spec` wraps the parsed document and the file's text. Every accessor takes the *path* of the key
(``("column", 2, "formula")``) and on a bad value raises `SpecError`, a
`DomainError` whose message reads like::

    tables.toml:14: [[column]] #2 key 'formula': unknown formula id 'midp.sigma'; did you mean midp.server_sigma?

so the CLI prints it on one line and exits with code 2. Line numbers are found by scanning the text for the
table header and the key (TOML parsers keep no positions); when a key is missing, the line is its table's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dpcalc.errors import DomainError

KeyPath = tuple[str | int, ...]
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*(\]\]?)\s*(#.*)?$")
_MAX_VALUES = 100_000


class SpecError(DomainError):
    """A bad spec: the message is one line naming the file, the line, the table and the key."""


def describe(path: KeyPath) -> str:
    """``("column", 2, "formula")`` → ``[[column]] #2 key 'formula'`` (1-based table numbers)."""
    parts: list[str] = []
    i = 0
    while i < len(path):
        name = path[i]
        if i + 1 < len(path) and isinstance(path[i + 1], int):
            parts.append(f"[[{name}]] #{int(path[i + 1]) + 1}")
            i += 2
            continue
        if i == len(path) - 1:
            parts.append(f"key {name!r}")
        else:
            parts.append(f"[{name}]")
        i += 1
    return " ".join(parts) if parts else "top level"


class Spec:
    """A parsed TOML document plus what is needed to point at a key in its text."""

    def __init__(self, data: Mapping[str, Any], text: str, name: str) -> None:
        self.data = data
        self.text = text
        self.name = name

    @classmethod
    def read(cls, path: str | Path) -> Spec:
        """Read and parse ``path`` through the one file reader (`dpcalc.files.read_text`, at most
        `dpcalc.files.MAX_DOCUMENT_BYTES`): missing, unreadable, non-UTF-8 or too large files, devices, TOML syntax
        errors and deep nesting are one-line `SpecError`."""
        from dpcalc.files import MAX_DOCUMENT_BYTES, read_text

        p = Path(path)
        try:
            text = read_text("SPEC", p, hint="save it as UTF-8", most=MAX_DOCUMENT_BYTES)
        except SpecError:
            raise
        except DomainError as exc:
            raise SpecError(str(exc)) from None
        return cls.parse(text, p.name)

    @classmethod
    def parse(cls, text: str, name: str = "<spec>") -> Spec:
        """Parse TOML ``text`` (`dpcalc.files.parse_document`: nesting checked before the parser, which recurses once
        per level, sees it); a syntax error or deep nesting is a one-line `SpecError` naming ``name``."""
        from dpcalc.files import parse_document

        try:
            data = parse_document(name, text, "TOML")
        except DomainError as exc:
            raise SpecError(str(exc)) from None
        return cls(data, text, name)

    # -- locating -----------------------------------------------------------------------------------
    def line_of(self, path: KeyPath) -> int | None:
        """The 1-based line of the key at ``path`` (or of its table when the key is absent), else None."""
        tables = [p for p in path[:-1] if isinstance(p, str)]
        want_header = ".".join(tables)
        index = next((int(p) for p in path if isinstance(p, int)), 0)
        key = path[-1] if path and isinstance(path[-1], str) else None
        seen = -1
        in_table = not want_header
        table_line: int | None = None
        for lineno, line in enumerate(self.text.splitlines(), 1):
            m = _HEADER.match(line)
            if m:
                header = m.group(2).replace('"', "").replace("'", "").replace(" ", "")
                if header == want_header:
                    seen += 1 if m.group(1) == "[[" else 0
                    in_table = m.group(1) == "[" or seen == index
                    if in_table:
                        table_line = lineno
                else:
                    in_table = False
                continue
            if in_table and key is not None and re.match(rf"^\s*{re.escape(key)}\s*=", line):
                return lineno
        return table_line

    def error(self, path: KeyPath, message: str) -> SpecError:
        """A `SpecError` for the key at ``path``."""
        line = self.line_of(path)
        where = f"{self.name}:{line}" if line else self.name
        return SpecError(f"{where}: {describe(path)}: {message}")

    # -- typed access -------------------------------------------------------------------------------
    def get(self, path: KeyPath, default: Any = ..., *, within: Mapping[str, Any] | None = None) -> Any:
        """The value at ``path`` (``default`` if absent; a missing required key is an error)."""
        node: Any = self.data if within is None else within
        steps = path if within is None else path[-1:]
        for step in steps:
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                if default is ...:
                    raise self.error(path, "is required") from None
                return default
        return node

    def typed(self, path: KeyPath, kind: type | tuple[type, ...], default: Any = ..., what: str = "") -> Any:
        value = self.get(path, default)
        if value is default and default is not ...:
            return value
        bad_bool = isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
        if bad_bool or not isinstance(value, kind):
            raise self.error(path, f"must be {what or _kind_name(kind)} (got {_show(value)})")
        return value

    def string(self, path: KeyPath, default: Any = ...) -> Any:
        return self.typed(path, str, default, "a string")

    def boolean(self, path: KeyPath, default: Any = ...) -> Any:
        return self.typed(path, bool, default, "true or false")

    def integer(self, path: KeyPath, default: Any = ..., lo: int | None = None, hi: int | None = None) -> Any:
        value = self.typed(path, int, default, "an integer")
        if value is not default and ((lo is not None and value < lo) or (hi is not None and value > hi)):
            raise self.error(path, f"must be an integer in [{lo}, {hi}] (got {value})")
        return value

    def table(self, path: KeyPath, default: Any = ...) -> Any:
        return self.typed(path, dict, default, "a table")

    def tables(self, path: KeyPath, required: bool = True) -> list[Mapping[str, Any]]:
        """An array of tables (``[[name]]``); empty if absent and not required."""
        value = self.get(path, ... if required else [])
        if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
            raise self.error(path, f"must be an array of tables [[{path[-1]}]] (got {_show(value)})")
        if required and not value:
            raise self.error(path, "needs at least one entry")
        return value

    def check_keys(self, path: KeyPath, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
        """Unknown keys in ``table`` are an error naming the first one and the allowed ones."""
        for key in table:
            if key not in allowed:
                import difflib

                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(allowed)}"
                raise self.error((*path, key), f"unknown key{hint}")

    def values(self, path: KeyPath, default: Any = ...) -> list[float]:
        """A list of numbers from a number, a list, a string (``"1,2,5"``, ``"1:10:0.5"``) or a table
        ``{from = a, to = b, points = n, log = true}`` (``n`` points, geometric when ``log``)."""
        value = self.get(path, default)
        if value is default and default is not ...:
            return value
        return self.as_values(path, value)

    def as_values(self, path: KeyPath, value: Any) -> list[float]:
        """Numbers from an already-fetched ``value`` (errors point at ``path``)."""
        if isinstance(value, bool):
            raise self.error(path, f"must be numbers (got {_show(value)})")
        if isinstance(value, int | float):
            out = [float(value)]
        elif isinstance(value, list):
            if not value:
                raise self.error(path, "is an empty list")
            out = []
            for k, item in enumerate(value):
                if isinstance(item, bool) or not isinstance(item, int | float):
                    raise self.error(path, f"element {k + 1} must be a number (got {_show(item)})")
                out.append(float(item))
        elif isinstance(value, str):
            from dpcalc.report.grid import parse_values

            try:
                out = parse_values(str(path[-1]), value)
            except DomainError as exc:
                raise self.error(path, str(exc)) from None
        elif isinstance(value, dict):
            out = self._spaced(path, value)
        else:
            raise self.error(path, f"must be a number, a list, 'a:b:step' or {{from, to, points}} (got "
                                   f"{_show(value)})")
        for x in out:
            if not math.isfinite(x):
                raise self.error(path, f"values must be finite (got {x})")
        if len(out) > _MAX_VALUES:
            raise self.error(path, f"has {len(out)} values (at most {_MAX_VALUES})")
        return out

    def _spaced(self, path: KeyPath, value: Mapping[str, Any]) -> list[float]:
        import numpy as np

        self.check_keys(path, value, ("from", "to", "points", "log"))
        lo, hi = self.get((*path, "from"), within=value), self.get((*path, "to"), within=value)
        n = self.get((*path, "points"), 50, within=value)
        log = self.get((*path, "log"), False, within=value)
        for key, x in (("from", lo), ("to", hi)):
            if isinstance(x, bool) or not isinstance(x, int | float):
                raise self.error((*path, key), f"must be a number (got {_show(x)})")
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= _MAX_VALUES:
            raise self.error((*path, "points"), f"must be an integer in [2, {_MAX_VALUES}] (got {_show(n)})")
        if not isinstance(log, bool):
            raise self.error((*path, "log"), f"must be true or false (got {_show(log)})")
        if log and (lo <= 0 or hi <= 0):
            raise self.error(path, f"a log range needs from > 0 and to > 0 (got {lo}, {hi})")
        return [float(x) for x in (np.geomspace(lo, hi, n) if log else np.linspace(lo, hi, n))]


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {str: "a string", bool: "true or false", int: "an integer", float: "a number", dict: "a table",
             list: "a list"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
