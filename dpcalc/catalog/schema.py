"""Catalog loading: a TOML file validated into `Formula` entries, and lookup by id.

Each ``[[formula]]`` entry carries an id, its source (the paper's equation), LaTeX, a SymPy expression
string over the input names, typed inputs with domains and units, the output, assumptions, a status
(``verified`` / ``corrected`` / ``disputed``) with erratum text and evidence, the dotted path of the
library implementation, and examples. Inputs shared by several entries of a paper are declared once in the
file's ``[inputs.NAME]`` tables and referenced by name (``inputs = ["eps", "d", …]``, or ``{ ref = "eps", … }``
to override a key). See ``docs/catalog.md``.

Loading needs only the standard library; SymPy and mpmath are imported by `dpcalc.catalog.symbolic`,
NumPy by `dpcalc.catalog.sampling`, when they are used.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from dpcalc import _validate as v
from dpcalc.catalog import raw, sampling
from dpcalc.catalog.formula import Formula
from dpcalc.catalog.types import (
    INPUT_KINDS,
    STATUSES,
    CatalogError,
    Domain,
    Erratum,
    Example,
    Input,
    Output,
    Paper,
    split_domain_warning,
)
from dpcalc.errors import UnknownNameError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


__all__ = ["Formula", "by_paper", "catalog_dir", "find", "get", "load", "load_file"]

_PAPER_KEYS = {"id", "short", "title", "doi", "family", "units", "notes"}
_FILE_KEYS = {"paper", "formula", "inputs"}
_FORMULA_REQUIRED = {"id", "title", "equation", "latex", "sympy", "implementation", "status", "output", "inputs"}
_FORMULA_OPTIONAL = {"assumptions", "notes", "erratum", "examples", "check", "call_kwargs", "sample_length",
                     "sample_where", "length", "rtol", "domain_warning"}
_INPUT_KEYS = {"name", "symbol", "unit", "domain", "kind", "description", "sample", "default", "option"}
_OUTPUT_KEYS = {"name", "symbol", "unit", "kind", "index", "element", "description"}
_ERRATUM_KEYS = {"text", "evidence", "published_sympy", "published_latex", "published_implementation",
                 "published_call_kwargs", "reference"}
_EXAMPLE_KEYS = {"inputs", "expected", "rtol", "atol", "source", "published_expected"}


# -- loading ---------------------------------------------------------------------------------------

def catalog_dir() -> Path:
    """Where the TOML files are (see `dpcalc.catalog.raw.catalog_dir`)."""
    return raw.catalog_dir()


def _check_keys(where: str, table: Mapping[str, Any], allowed: set[str], required: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    unknown = set(table) - allowed
    if unknown:
        raise CatalogError(f"{where}: unknown key(s) {sorted(unknown)}")
    missing = set(required) - set(table)
    if missing:
        raise CatalogError(f"{where}: missing key(s) {sorted(missing)}")


def _resolve_input(raw_in: Any, shared: Mapping[str, Mapping[str, Any]], where: str) -> Mapping[str, Any]:
    """An entry's input: a table, the name of a paper-level ``[inputs.NAME]``, or ``{ref = NAME, …overrides}``."""
    ref = raw_in if isinstance(raw_in, str) else raw_in.get("ref")
    if ref is not None and ref not in shared:
        raise CatalogError(f"{where}: input {ref!r} is not declared in the file's [inputs] (has {sorted(shared)})")
    return raw.resolve_input(raw_in, dict(shared))


_OPTION = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def _default(raw_in: Mapping[str, Any], domain: Domain, where: str) -> float | None:
    """An input's ``default``: a number inside its domain (the implementation's signature default)."""
    if "default" not in raw_in:
        return None
    value = raw_in["default"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not domain.contains(float(value)):
        raise CatalogError(f"{where}: input {raw_in['name']!r} default must be a number in {domain} (got {value!r})")
    return float(value)


def _option(raw_in: Mapping[str, Any], where: str) -> str:
    """An input's ``option``: the command-line name without the dashes (``data-size``)."""
    option = raw_in.get("option", "")
    if not isinstance(option, str) or (option and not _OPTION.match(option)):
        raise CatalogError(f"{where}: input {raw_in['name']!r} option must be lowercase words joined by '-' "
                           f"(got {option!r})")
    return option


def _parse_formula(entry: Mapping[str, Any], paper: Paper, where: str,
                   shared: Mapping[str, Mapping[str, Any]] | None = None) -> Formula:
    _check_keys(where, entry, _FORMULA_REQUIRED | _FORMULA_OPTIONAL, _FORMULA_REQUIRED)
    fid = entry["id"]
    where = f"{where} [{fid}]"
    if entry["status"] not in STATUSES:
        raise CatalogError(f"{where}: status must be one of {STATUSES}")
    warning = entry.get("domain_warning", "")
    if warning:
        names = {i if isinstance(i, str) else i.get("name", i.get("ref", "")) for i in entry["inputs"]}
        try:
            sampling.check_condition(split_domain_warning(warning)[1], names)
        except ValueError as exc:
            raise CatalogError(f"{where}: domain_warning {warning!r}: {exc}") from None
    inputs = []
    for item in entry["inputs"]:
        raw_in = _resolve_input(item, shared or {}, where)
        _check_keys(f"{where} input", raw_in, _INPUT_KEYS, {"name", "symbol", "unit", "domain"})
        kind = raw_in.get("kind", "scalar")
        if kind not in INPUT_KINDS:
            raise CatalogError(f"{where}: input kind must be one of {INPUT_KINDS}")
        domain = Domain.parse(raw_in["domain"])
        inputs.append(Input(raw_in["name"], raw_in["symbol"], raw_in["unit"], domain, kind,
                            raw_in.get("description", ""), raw_in.get("sample", ""),
                            _default(raw_in, domain, where), _option(raw_in, where)))
    _check_keys(f"{where} output", entry["output"], _OUTPUT_KEYS, {"name", "symbol", "unit"})
    output = Output(**entry["output"])
    if output.element is not None and (isinstance(output.element, bool) or not isinstance(output.element, int)
                                       or output.element < 0):
        raise CatalogError(f"{where}: output element must be an integer >= 0 (got {output.element!r})")
    erratum = None
    if "erratum" in entry:
        _check_keys(f"{where} erratum", entry["erratum"], _ERRATUM_KEYS, {"text", "evidence"})
        erratum = Erratum(**entry["erratum"])
    if entry["status"] != "verified" and erratum is None:
        raise CatalogError(f"{where}: status {entry['status']!r} needs an [erratum] with text and evidence")
    examples = []
    for raw_ex in entry.get("examples", []):
        _check_keys(f"{where} example", raw_ex, _EXAMPLE_KEYS, {"inputs", "expected"})
        examples.append(Example(**raw_ex))
    return Formula(
        id=fid, title=entry["title"], paper=paper, equation=entry["equation"], latex=entry["latex"].strip(),
        sympy=entry["sympy"], implementation=entry["implementation"], status=entry["status"], output=output,
        inputs=tuple(inputs), assumptions=tuple(entry.get("assumptions", ())), notes=entry.get("notes", ""),
        erratum=erratum, examples=tuple(examples), check=entry.get("check", {}),
        call_kwargs=entry.get("call_kwargs", {}), sample_length=tuple(entry.get("sample_length", (2, 8))),
        sample_where=entry.get("sample_where", ""), length=entry.get("length", "N"),
        rtol=float(entry.get("rtol", 1e-12)), domain_warning=entry.get("domain_warning", ""),
    )


def load_file(path: Path) -> list[Formula]:
    """Load and validate one catalog file (read by the one file reader: missing, binary or non-UTF-8 files are one
    line naming the path)."""
    from dpcalc.files import read_text

    return _load_text(read_text("path", path), Path(path).name)


def _load_text(text: str, name: str) -> list[Formula]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{name}: not valid TOML: {exc}") from exc
    path = Path(name)
    _check_keys(path.name, data, _FILE_KEYS, {"paper", "formula"})
    _check_keys(f"{path.name} [paper]", data["paper"], _PAPER_KEYS, {"id", "short", "title"})
    paper = Paper(**data["paper"])
    shared = data.get("inputs", {})
    for name, raw_in in shared.items():
        _check_keys(f"{path.name} [inputs.{name}]", raw_in, _INPUT_KEYS - {"name"}, {"symbol", "unit", "domain"})
    return [_parse_formula(entry, paper, path.name, shared) for entry in data["formula"]]


@cache
def load() -> dict[str, Formula]:
    """All formulas of the catalog, by id (validated; duplicate ids are an error)."""
    out: dict[str, Formula] = {}
    for path in sorted(catalog_dir().glob("*.toml")):
        for f in load_file(path):
            if f.id in out:
                raise CatalogError(f"duplicate formula id {f.id!r} in {path.name}")
            out[f.id] = f
    return out


@cache
def find(formula_id: str) -> Formula:
    """One formula by id, parsing only its own entry (fast: CLI column labels at start-up).

    The file declaring ``id = "formula_id"`` is found by a text search; its header (``[paper]``, ``[inputs.*]``)
    and that one ``[[formula]]`` block are parsed and validated exactly as `load_file` would. Same
    result as `get`, which it falls back to (with its close-match error) when no file matches.
    """
    if load.cache_info().currsize:  # the whole catalog is loaded already
        return get(formula_id)
    found = raw.fragment(formula_id)
    if found is not None:
        entry = {f.id: f for f in _load_text(found[1], found[0])}.get(formula_id)
        if entry is not None:
            return entry
    return get(formula_id)


def get(formula_id: str) -> Formula:
    """One formula by id; raises `UnknownNameError` (a ``KeyError``) with the closest ids
    when unknown."""
    cat = load()
    if not isinstance(formula_id, str):
        raise UnknownNameError(f"formula_id must be a string (got {v.brief(formula_id)})")
    if formula_id not in cat:
        import difflib

        close = difflib.get_close_matches(formula_id, list(cat), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownNameError(f"unknown formula id {formula_id!r}{hint}")
    return cat[formula_id]


def by_paper(paper_id: str | None = None) -> list[Formula]:
    """Formulas of one paper (``'000'``…) or all, in catalog order."""
    return [f for f in load().values() if paper_id is None or f.paper.id == paper_id]
