"""One catalog entry (`Formula`): its data, its implementation, its SymPy form and its sampler.

The entry's parts are the leaf types of `dpcalc.catalog.types`; the methods reach the library implementation
(by its dotted path), the SymPy form (`dpcalc.catalog.symbolic`) and the random in-domain points
(`dpcalc.catalog.sampling`). Entries are built by the loader, `dpcalc.catalog.schema`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dpcalc import errors
from dpcalc.catalog import sampling, symbolic
from dpcalc.catalog.types import CatalogError, Erratum, Example, Input, Output, Paper, split_domain_warning
from dpcalc.errors import DomainError

if TYPE_CHECKING:
    import mpmath
    from sympy import Expr

    from dpcalc.typing import FloatOrArray

__all__ = ["Formula"]


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
    @property
    def has_published(self) -> bool:
        """Whether the paper's published (erroneous) form can be computed: an implementation or a SymPy form."""
        return self.erratum is not None and bool(self.erratum.published_implementation or self.erratum.published_sympy)

    def function(self, published: bool = False) -> Callable[..., Any]:
        """Import and return the implementation (or the published-form implementation)."""
        path = self.implementation
        if published:
            if self.erratum is None or not self.erratum.published_implementation:
                raise DomainError(f"{self.id} has no published form to compute (status {self.status}): --published and "
                                  "published=True apply to formulas with an erratum (dpcalc formulas list)")
            path = self.erratum.published_implementation
        module, _, name = path.rpartition(".")
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise CatalogError(f"{self.id}: implementation {path!r} is not importable: {exc}") from exc

    def call(self, values: Mapping[str, Any], published: bool = False) -> FloatOrArray:
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
    def sympy_expr(self, published: bool = False) -> Expr:
        """Parse the SymPy string (the published one if asked) into an expression (restricted namespace)."""
        return symbolic.expression(self, published)

    def evaluate_mp(self, values: Mapping[str, Any], dps: int = 50, published: bool = False) -> mpmath.mpf:
        """Evaluate the SymPy form with mpmath at ``dps`` digits; returns an ``mpmath.mpf``."""
        return symbolic.evaluate_mp(self, values, dps, published)

    # -- sampling (dpcalc.catalog.sampling) ----------------------------------------------------------
    def sample_inputs(self, rng: Any, max_tries: int = 200) -> dict[str, Any]:
        """Draw one random in-domain point from the inputs' ``sample`` specs (honouring ``sample_where``)."""
        return sampling.sample_inputs(self, rng, max_tries)

    def expected_warning(self, values: Mapping[str, Any]) -> type[Warning] | None:
        """The warning category the implementation emits at ``values`` (from ``domain_warning``), or None.

        ``domain_warning`` is ``"Category"`` (always), ``"Category if CONDITION"`` (a condition over the inputs,
        e.g. ``"OutOfDomainWarning if eps >= 1"``) or a bare ``"CONDITION"`` (an ``OutOfDomainWarning``).
        """
        if not self.domain_warning:
            return None
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
