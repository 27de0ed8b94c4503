"""One catalog entry as plain TOML data, parsed from its own block of its file (no dataclasses, no validation).

The start-up path of the CLI: column labels, symbols and units of a command come from here, so ``dpcalc sigma``
parses one small TOML fragment instead of the catalog (`dpcalc.catalog.find` validates the same fragment
into a `Formula`).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["catalog_dir", "entry", "fragment", "resolve_input"]


def catalog_dir() -> Path:
    """Where the TOML files are: inside the installed wheel, else the source tree's ``formulas/``."""
    package = Path(__file__).resolve().parent.parent  # dpcalc/
    for candidate in (package / "_catalog_data", package.parent / "formulas"):
        if candidate.is_dir():
            return candidate
    from dpcalc.catalog.types import CatalogError  # here: the start-up path builds none of the types' dataclasses

    raise CatalogError("formula catalog not found (expected dpcalc/_catalog_data or formulas/)")


_BLOCK = "[[formula]]"  # the line that opens an entry's block


@cache
def fragment(formula_id: str) -> tuple[str, str] | None:
    """(file name, the file's header plus the entry's ``[[formula]]`` block) for ``formula_id``, or None."""
    needle = f'id = "{formula_id}"'
    for path in sorted(catalog_dir().glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        head = _line_at(text, _BLOCK)  # the header ends where the first block starts
        at = _line_at(text, needle, head) if head >= 0 else -1
        if at < 0:
            continue
        start = text.rfind(f"\n{_BLOCK}", 0, at) + 1
        end = text.find(f"\n{_BLOCK}", at) + 1 or len(text)
        return path.name, text[:head] + text[start:end]
    return None


def _line_at(text: str, line: str, start: int = 0) -> int:
    """Where ``line`` stands alone on a line of ``text`` (trailing blanks allowed), from ``start`` on; or -1."""
    at = text.find(line, start)
    while at >= 0:
        eol = text.find("\n", at)
        if (at == 0 or text[at - 1] == "\n") and not text[at + len(line):eol if eol >= 0 else len(text)].strip():
            return at
        at = text.find(line, at + 1)
    return -1


@cache
def _shared_inputs(header: str) -> dict[str, Any]:
    """The file-level ``[inputs.NAME]`` tables of a file's ``header`` (parsed once per file)."""
    shared: dict[str, Any] = tomllib.loads(header).get("inputs", {})
    return shared


def resolve_input(raw_in: Any, shared: dict[str, Any]) -> dict[str, Any]:
    """An entry's input: a table, the name of a file-level ``[inputs.NAME]``, or ``{ref = NAME, …overrides}``
    (an unknown reference is left to the schema's validation: returned as ``{"name": ref}``)."""
    ref = raw_in if isinstance(raw_in, str) else raw_in.get("ref")
    if ref is None:
        return dict(raw_in)
    overrides = {} if isinstance(raw_in, str) else {k: v for k, v in raw_in.items() if k != "ref"}
    return {"name": ref, **shared.get(ref, {}), **overrides}


@cache
def entry(formula_id: str) -> dict[str, Any] | None:
    """The entry's TOML table with its inputs resolved (``inputs``: list of tables), or None if unknown."""
    found = fragment(formula_id)
    if found is None:
        return None
    cut = _line_at(found[1], _BLOCK)  # the header, then the entry's block
    (raw,) = tomllib.loads(found[1][cut:])["formula"]
    shared = _shared_inputs(found[1][:cut])
    return {**raw, "inputs": [resolve_input(i, shared) for i in raw["inputs"]]}
