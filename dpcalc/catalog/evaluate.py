"""One catalog entry over a grid of inputs: the library side of ``dpcalc eval``.

Scalar and index inputs take lists (one grid axis each, rows in ``itertools.product`` order, first input
slowest); vector inputs take one vector. Each grid point calls the implementation (and, if asked, the published
form) exactly as the catalog does; ``precision`` adds the SymPy form evaluated by mpmath at that many digits.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dpcalc.catalog.formula import Formula
from dpcalc.errors import DomainError

__all__ = ["Evaluation", "evaluate", "missing_inputs"]


@dataclass(frozen=True)
class Evaluation:
    """Rows ``{input: value, …, output: value[, output_published][, output_digits]}`` of one entry."""

    formula: Formula
    rows: list[dict[str, Any]]
    published: bool
    precision: int | None


def missing_inputs(formula: Formula, given: Mapping[str, Any]) -> list[str]:
    """The entry's inputs absent from ``given``."""
    return [i.name for i in formula.inputs if i.name not in given]


def evaluate(formula: Formula, values: Mapping[str, Sequence[Any]], *, published: bool = False,
             precision: int | None = None) -> Evaluation:
    """Evaluate ``formula`` at every combination of ``values`` (name → list; a vector input → its one vector).

    ``published`` adds the published form (``<output>_published``; requires a published implementation or
    SymPy form); ``precision`` adds ``<output>_digits``: the SymPy form by mpmath at that many significant digits,
    as a decimal string.
    """

    missing = missing_inputs(formula, values)
    unknown = [k for k in values if k not in {i.name for i in formula.inputs}]
    if unknown:
        raise DomainError(f"{formula.id} has no input {unknown[0]!r} (inputs: "
                          f"{', '.join(i.name for i in formula.inputs)})")
    if missing:
        raise DomainError(f"{formula.id} needs {', '.join('--' + m for m in missing)}")
    if published and not formula.has_published:
        raise DomainError(f"published=True (--as-published): {formula.id} has no published form (status "
                          f"{formula.status}); only formulas with an erratum have one")
    if precision is not None and not 1 <= precision <= 10_000:
        raise DomainError(f"--precision must be an integer in [1, 10000] (got {precision})")
    axes = [i for i in formula.inputs if i.kind != "vector"]
    vectors = {i.name: list(values[i.name]) for i in formula.inputs if i.kind == "vector"}
    out = formula.output.name
    from dpcalc._progress import paced

    rows = []
    counts = {i.name: len(values[i.name]) for i in axes}
    total = math.prod(counts.values())
    many = [n for n, c in counts.items() if c > 1]
    what = f"{' × '.join('--' + n for n in many)} ({' × '.join(str(counts[n]) for n in many)} values)"
    for point in paced(itertools.product(*(values[i.name] for i in axes)), total, formula.id, what):
        row: dict[str, Any] = {**dict(zip((i.name for i in axes), point, strict=True)), **vectors}
        row[out] = _scalar(formula.call(row))
        if published:
            row[f"{out}_published"] = _published(formula, row)
        if precision is not None:
            row[f"{out}_digits"] = _digits(formula, row, precision)
        rows.append(row)
    return Evaluation(formula, rows, published, precision)


def _digits(formula: Formula, row: Mapping[str, Any], precision: int) -> str:
    """The SymPy form at ``row`` by mpmath, ``precision`` significant digits; a one-line `DomainError` naming
    ``--precision`` where mpmath's own arithmetic fails (its erfc converts x² to a float: OverflowError above
    x ≈ 1.3e154, e.g. gdp.tradeoff at μ = 1e308)."""
    import mpmath

    try:
        with mpmath.workdps(precision):
            return str(mpmath.nstr(formula.evaluate_mp(row, dps=precision + 10), precision, strip_zeros=False))
    except ArithmeticError as exc:
        at = ", ".join(f"{i.name} = {row[i.name]:g}" for i in formula.inputs if i.kind != "vector")
        raise DomainError(f"--precision: mpmath cannot evaluate the SymPy form of {formula.id} at {at} "
                          f"({type(exc).__name__}: {exc}); leave --precision out for the double-precision value"
                          ) from None


def _published(formula: Formula, row: Mapping[str, Any]) -> float:
    assert formula.erratum is not None
    if formula.erratum.published_implementation:
        return _scalar(formula.call(row, published=True))
    return float(formula.evaluate_mp(row, dps=30, published=True))


def _scalar(value: Any) -> Any:
    return float(value) if hasattr(value, "__float__") and not isinstance(value, str) else value
