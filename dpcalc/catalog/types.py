"""The catalog's shared types: the entry's parts as frozen dataclasses and the catalog's own error.

A leaf module (standard library only): the loader (`dpcalc.catalog.schema`), the SymPy side
(`dpcalc.catalog.symbolic`), the samplers (`dpcalc.catalog.sampling`) and the raw reader
(`dpcalc.catalog.raw`) all import from here, and nothing here imports them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["INPUT_KINDS", "STATUSES", "WARNINGS", "CatalogError", "Domain", "EntryLike", "Erratum", "Example",
           "Input", "Output", "Paper", "split_domain_warning"]


class CatalogError(ValueError):
    """The catalog itself is malformed (a developer error, not a user input error)."""


STATUSES = ("verified", "corrected", "disputed")
INPUT_KINDS = ("scalar", "vector", "index")
WARNINGS = ("EstimateWarning", "OutOfDomainWarning", "ErratumWarning")

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
    #: the value the implementation uses when the input is not given (its signature's default; the CLI's too);
    #: None: no default (required, or an optional input whose absence means something else)
    default: float | None = None
    #: the command-line option naming this input where it is not ``--{name}`` (e.g. ``data-size`` for m)
    option: str = ""


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
    short: str
    title: str
    doi: str = ""
    family: str = ""
    units: str = ""
    notes: str = ""



def split_domain_warning(text: str) -> tuple[str, str]:
    """``"Category if COND"`` → (Category, COND); ``"Category"`` → (Category, ""); ``"COND"`` →
    ("OutOfDomainWarning", COND)."""
    head, sep, cond = text.partition(" if ")
    if head.strip() in WARNINGS:
        return head.strip(), cond.strip() if sep else ""
    return "OutOfDomainWarning", text.strip()


class EntryLike(Protocol):
    """What the SymPy side and the samplers read of an entry (`dpcalc.catalog.formula.Formula`): declared here so
    that they need not import the module that imports them."""

    @property
    def id(self) -> str: ...
    @property
    def sympy(self) -> str: ...
    @property
    def erratum(self) -> Erratum | None: ...
    @property
    def inputs(self) -> tuple[Input, ...]: ...
    @property
    def length(self) -> str: ...
    @property
    def sample_length(self) -> tuple[int, int]: ...
    @property
    def sample_where(self) -> str: ...
