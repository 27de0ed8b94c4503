"""Catalog schema and loading: the dataclasses of a TOML entry, validation, and lookup by id.

Each ``[[formula]]`` entry carries an id, its source (seed file, equation), LaTeX, a SymPy expression
string over the input names, typed inputs with domains and units, the output, assumptions, a status
(``verified`` / ``corrected`` / ``disputed``) with erratum text and evidence, the dotted path of the
library implementation, and examples. Inputs shared by several entries of a paper are declared once in the
file's ``[inputs.NAME]`` tables and referenced by name (``inputs = ["eps", "d", …]``, or ``{ ref = "eps", … }``
to override a key). See ``docs/catalog.md``.

Loading needs only the standard library; SymPy and mpmath are imported by :mod:`dpcalc.catalog.symbolic`,
NumPy by :mod:`dpcalc.catalog.sampling`, when they are used.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from dpcalc import _validate as v
from dpcalc.errors import UnknownNameError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class CatalogError(ValueError):
    """The catalog itself is malformed (a developer error, not a user input error)."""


STATUSES = ("verified", "corrected", "disputed")
INPUT_KINDS = ("scalar", "vector", "index")
_PAPER_KEYS = {"id", "seed", "short", "title", "doi", "family", "units", "notes"}
_FILE_KEYS = {"paper", "formula", "inputs"}
_FORMULA_REQUIRED = {"id", "title", "equation", "latex", "sympy", "implementation", "status", "output", "inputs"}
_FORMULA_OPTIONAL = {"assumptions", "notes", "erratum", "examples", "check", "call_kwargs", "sample_length",
                     "sample_where", "length", "rtol", "domain_warning"}
_INPUT_KEYS = {"name", "symbol", "unit", "domain", "kind", "description", "sample"}
_WARNINGS = ("EstimateWarning", "OutOfDomainWarning", "ErratumWarning")
_OUTPUT_KEYS = {"name", "symbol", "unit", "kind", "index", "element", "description"}
_ERRATUM_KEYS = {"text", "evidence", "published_sympy", "published_latex", "published_implementation",
                 "published_call_kwargs", "reference"}
_EXAMPLE_KEYS = {"inputs", "expected", "rtol", "atol", "source", "published_expected"}

_DOMAIN_RE = re.compile(r"^\s*([\[(])\s*([^,\s]+)\s*,\s*([^\]\)\s]+)\s*([\])])\s*(integer)?\s*$")


@dataclass(frozen=True)
class Domain:
    """An interval domain parsed from strings like ``(0, inf)``, ``[1, inf) integer``, ``(0, 1]``."""

    lo: float
    hi: float
    lo_open: bool
    hi_open: bool
    integer: bool = False

    @classmethod
    def parse(cls, text: str) -> Domain:
        m = _DOMAIN_RE.match(text)
        if not m:
            raise CatalogError(f"bad domain {text!r}; expected e.g. '(0, inf)' or '[1, inf) integer'")
        lo, hi = float(m.group(2)), float(m.group(3))
        return cls(lo, hi, m.group(1) == "(", m.group(4) == ")", m.group(5) is not None)

    def contains(self, x: float) -> bool:
        ok_lo = x > self.lo if self.lo_open else x >= self.lo
        ok_hi = x < self.hi if self.hi_open else x <= self.hi
        return ok_lo and ok_hi and (not self.integer or float(x).is_integer())

    def __str__(self) -> str:
        def f(x: float) -> str:
            return "inf" if x == float("inf") else ("-inf" if x == float("-inf") else f"{x:g}")

        s = f"{'(' if self.lo_open else '['}{f(self.lo)}, {f(self.hi)}{')' if self.hi_open else ']'}"
        return s + (" integer" if self.integer else "")


@dataclass(frozen=True)
class Input:
    name: str
    symbol: str
    unit: str
    domain: Domain
    kind: str = "scalar"
    description: str = ""
    sample: str = ""


@dataclass(frozen=True)
class Output:
    name: str
    symbol: str
    unit: str
    kind: str = "scalar"
    index: str = ""
    #: position (0-based) of this output in the implementation's tuple result, for a function returning several
    element: int | None = None
    description: str = ""


@dataclass(frozen=True)
class Erratum:
    text: str
    evidence: str
    published_sympy: str = ""
    published_latex: str = ""
    published_implementation: str = ""
    published_call_kwargs: Mapping[str, Any] = field(default_factory=dict)
    reference: str = ""


@dataclass(frozen=True)
class Example:
    inputs: Mapping[str, Any]
    expected: Any
    rtol: float = 1e-9
    atol: float = 0.0
    source: str = ""
    published_expected: Any = None


@dataclass(frozen=True)
class Paper:
    id: str
    seed: str
    short: str
    title: str
    doi: str = ""
    family: str = ""
    units: str = ""
    notes: str = ""


@dataclass(frozen=True)
class Formula:
    """One catalog entry. ``sympy`` is an expression over the input names (vector inputs are
    ``IndexedBase`` objects indexed 1..``length``; ``Sum``/``Product`` over them are allowed)."""

    id: str
    title: str
    paper: Paper
    equation: str
    latex: str
    sympy: str
    implementation: str
    status: str
    output: Output
    inputs: tuple[Input, ...]
    assumptions: tuple[str, ...] = ()
    notes: str = ""
    erratum: Erratum | None = None
    examples: tuple[Example, ...] = ()
    check: Mapping[str, Any] = field(default_factory=dict)
    call_kwargs: Mapping[str, Any] = field(default_factory=dict)
    sample_length: tuple[int, int] = (2, 8)
    sample_where: str = ""
    length: str = "N"
    rtol: float = 1e-12
    domain_warning: str = ""

    # -- library side -------------------------------------------------------------------------------
    def function(self, published: bool = False) -> Callable[..., Any]:
        """Import and return the implementation (or the published-form implementation)."""
        path = self.implementation
        if published:
            if self.erratum is None or not self.erratum.published_implementation:
                raise CatalogError(f"{self.id} has no published implementation")
            path = self.erratum.published_implementation
        module, _, name = path.rpartition(".")
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise CatalogError(f"{self.id}: implementation {path!r} is not importable: {exc}") from exc

    def call(self, values: Mapping[str, Any], published: bool = False) -> Any:
        """Call the implementation with the catalog inputs (index inputs select an output element)."""
        kwargs = {i.name: values[i.name] for i in self.inputs if i.kind != "index"}
        extra = self.call_kwargs
        if published and self.erratum is not None:
            extra = {**extra, **self.erratum.published_call_kwargs}
        result = self.function(published)(**kwargs, **extra)
        if self.output.element is not None:
            result = result[self.output.element]
        for i in self.inputs:
            if i.kind == "index":
                result = result[int(values[i.name]) - 1]
        return result

    # -- symbolic side (dpcalc.catalog.symbolic) ---------------------------------------------------
    def sympy_expr(self, published: bool = False) -> Any:
        """Parse the SymPy string (the published one if asked) into an expression (restricted namespace)."""
        from dpcalc.catalog import symbolic

        return symbolic.expression(self, published)

    def evaluate_mp(self, values: Mapping[str, Any], dps: int = 50, published: bool = False) -> Any:
        """Evaluate the SymPy form with mpmath at ``dps`` digits; returns an ``mpmath.mpf``."""
        from dpcalc.catalog import symbolic

        return symbolic.evaluate_mp(self, values, dps, published)

    # -- sampling (dpcalc.catalog.sampling) ----------------------------------------------------------
    def sample_inputs(self, rng: Any, max_tries: int = 200) -> dict[str, Any]:
        """Draw one random in-domain point from the inputs' ``sample`` specs (honouring ``sample_where``)."""
        from dpcalc.catalog import sampling

        return sampling.sample_inputs(self, rng, max_tries)

    def expected_warning(self, values: Mapping[str, Any]) -> type[Warning] | None:
        """The warning category the implementation emits at ``values`` (from ``domain_warning``), or None.

        ``domain_warning`` is ``"Category"`` (always), ``"Category if CONDITION"`` (a condition over the inputs,
        e.g. ``"OutOfDomainWarning if eps >= 1"``) or a bare ``"CONDITION"`` (an ``OutOfDomainWarning``).
        """
        if not self.domain_warning:
            return None
        from dpcalc import errors
        from dpcalc.catalog import sampling

        category, cond = split_domain_warning(self.domain_warning)
        if cond and not sampling.condition(cond, values):
            return None
        found: type[Warning] = getattr(errors, category)
        return found

    def input(self, name: str) -> Input:
        for i in self.inputs:
            if i.name == name:
                return i
        raise KeyError(name)


# -- loading ---------------------------------------------------------------------------------------

def catalog_dir() -> Path:
    """Where the TOML files are (see :func:`dpcalc.catalog.raw.catalog_dir`)."""
    from dpcalc.catalog import raw

    return raw.catalog_dir()


def _check_keys(where: str, table: Mapping[str, Any], allowed: set[str], required: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    unknown = set(table) - allowed
    if unknown:
        raise CatalogError(f"{where}: unknown key(s) {sorted(unknown)}")
    missing = set(required) - set(table)
    if missing:
        raise CatalogError(f"{where}: missing key(s) {sorted(missing)}")


def split_domain_warning(text: str) -> tuple[str, str]:
    """``"Category if COND"`` → (Category, COND); ``"Category"`` → (Category, ""); ``"COND"`` →
    ("OutOfDomainWarning", COND)."""
    head, sep, cond = text.partition(" if ")
    if head.strip() in _WARNINGS:
        return head.strip(), cond.strip() if sep else ""
    return "OutOfDomainWarning", text.strip()


def _resolve_input(raw_in: Any, shared: Mapping[str, Mapping[str, Any]], where: str) -> Mapping[str, Any]:
    """An entry's input: a table, the name of a paper-level ``[inputs.NAME]``, or ``{ref = NAME, …overrides}``."""
    from dpcalc.catalog import raw

    ref = raw_in if isinstance(raw_in, str) else raw_in.get("ref")
    if ref is not None and ref not in shared:
        raise CatalogError(f"{where}: input {ref!r} is not declared in the file's [inputs] (has {sorted(shared)})")
    return raw.resolve_input(raw_in, dict(shared))


def _parse_formula(raw: Mapping[str, Any], paper: Paper, where: str,
                   shared: Mapping[str, Mapping[str, Any]] | None = None) -> Formula:
    _check_keys(where, raw, _FORMULA_REQUIRED | _FORMULA_OPTIONAL, _FORMULA_REQUIRED)
    fid = raw["id"]
    where = f"{where} [{fid}]"
    if raw["status"] not in STATUSES:
        raise CatalogError(f"{where}: status must be one of {STATUSES}")
    warning = raw.get("domain_warning", "")
    if warning:
        from dpcalc.catalog import sampling

        names = {i if isinstance(i, str) else i.get("name", i.get("ref", "")) for i in raw["inputs"]}
        try:
            sampling.check_condition(split_domain_warning(warning)[1], names)
        except ValueError as exc:
            raise CatalogError(f"{where}: domain_warning {warning!r}: {exc}") from None
    inputs = []
    for item in raw["inputs"]:
        raw_in = _resolve_input(item, shared or {}, where)
        _check_keys(f"{where} input", raw_in, _INPUT_KEYS, {"name", "symbol", "unit", "domain"})
        kind = raw_in.get("kind", "scalar")
        if kind not in INPUT_KINDS:
            raise CatalogError(f"{where}: input kind must be one of {INPUT_KINDS}")
        inputs.append(Input(raw_in["name"], raw_in["symbol"], raw_in["unit"], Domain.parse(raw_in["domain"]),
                            kind, raw_in.get("description", ""), raw_in.get("sample", "")))
    _check_keys(f"{where} output", raw["output"], _OUTPUT_KEYS, {"name", "symbol", "unit"})
    output = Output(**raw["output"])
    if output.element is not None and (isinstance(output.element, bool) or not isinstance(output.element, int)
                                       or output.element < 0):
        raise CatalogError(f"{where}: output element must be an integer >= 0 (got {output.element!r})")
    erratum = None
    if "erratum" in raw:
        _check_keys(f"{where} erratum", raw["erratum"], _ERRATUM_KEYS, {"text", "evidence"})
        erratum = Erratum(**raw["erratum"])
    if raw["status"] != "verified" and erratum is None:
        raise CatalogError(f"{where}: status {raw['status']!r} needs an [erratum] with text and evidence")
    examples = []
    for raw_ex in raw.get("examples", []):
        _check_keys(f"{where} example", raw_ex, _EXAMPLE_KEYS, {"inputs", "expected"})
        examples.append(Example(**raw_ex))
    return Formula(
        id=fid, title=raw["title"], paper=paper, equation=raw["equation"], latex=raw["latex"].strip(),
        sympy=raw["sympy"], implementation=raw["implementation"], status=raw["status"], output=output,
        inputs=tuple(inputs), assumptions=tuple(raw.get("assumptions", ())), notes=raw.get("notes", ""),
        erratum=erratum, examples=tuple(examples), check=raw.get("check", {}),
        call_kwargs=raw.get("call_kwargs", {}), sample_length=tuple(raw.get("sample_length", (2, 8))),
        sample_where=raw.get("sample_where", ""), length=raw.get("length", "N"),
        rtol=float(raw.get("rtol", 1e-12)), domain_warning=raw.get("domain_warning", ""),
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
    _check_keys(f"{path.name} [paper]", data["paper"], _PAPER_KEYS, {"id", "seed", "short", "title"})
    paper = Paper(**data["paper"])
    shared = data.get("inputs", {})
    for name, raw_in in shared.items():
        _check_keys(f"{path.name} [inputs.{name}]", raw_in, _INPUT_KEYS - {"name"}, {"symbol", "unit", "domain"})
    return [_parse_formula(raw, paper, path.name, shared) for raw in data["formula"]]


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
    and that one ``[[formula]]`` block are parsed and validated exactly as :func:`load_file` would. Same
    result as :func:`get`, which it falls back to (with its close-match error) when no file matches.
    """
    if load.cache_info().currsize:  # the whole catalog is loaded already
        return get(formula_id)
    from dpcalc.catalog import raw

    found = raw.fragment(formula_id)
    if found is not None:
        entry = {f.id: f for f in _load_text(found[1], found[0])}.get(formula_id)
        if entry is not None:
            return entry
    return get(formula_id)


def get(formula_id: str) -> Formula:
    """One formula by id; raises :class:`~dpcalc.errors.UnknownNameError` (a ``KeyError``) with the closest ids
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
