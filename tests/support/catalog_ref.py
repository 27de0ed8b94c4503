"""The catalog's SymPy form of an entry as a fast mpmath reference for domain sweeps.

``catalog_ref(fid)`` returns ``ref(values) -> mpf``: the entry's SymPy expression (the published one with
``published=True``) compiled once per vector length with ``sympy.lambdify(..., "mpmath")`` and evaluated at
``dps`` digits or more — the precision is doubled until two evaluations agree to ``dps`` digits, so forms such
as ``exp(2ε/d) − 1`` at ε/d = 1e-300 are resolved rather than cancelled. Independent of the library's float64
code (it only reads the catalog string).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import mpmath

from dpcalc import catalog


@cache
def _expr(fid: str, published: bool, length: int, index: int) -> tuple[Any, tuple[Any, ...], tuple[str, ...]]:
    """The entry's SymPy form with the index and length substituted, over one plain symbol per scalar input and
    per vector element; with those symbols and the input names (``x[k]`` for vector elements)."""
    import sympy

    f = catalog.get(fid)
    expr = f.sympy_expr(published)
    first: dict[Any, Any] = {}
    names: list[str] = []
    symbols: list[Any] = []
    for i in f.inputs:
        if i.kind == "index":
            first[sympy.Symbol(i.name)] = sympy.Integer(index)
    if any(i.kind == "vector" for i in f.inputs):
        first[sympy.Symbol(f.length, integer=True, positive=True)] = sympy.Integer(length)
    if first:
        expr = expr.subs(first).doit()
    repl: dict[Any, Any] = {}
    for i in f.inputs:
        if i.kind == "scalar":
            names.append(i.name)
            symbols.append(sympy.Symbol(i.name))
        elif i.kind == "vector":
            base = sympy.IndexedBase(i.name)
            for k in range(1, length + 1):
                sym = sympy.Symbol(f"{i.name}__{k}")
                repl[base[k]] = sym
                names.append(f"{i.name}[{k}]")
                symbols.append(sym)
    return expr.xreplace(repl), tuple(symbols), tuple(names)


@cache
def _compiled(fid: str, published: bool, length: int, index: int) -> tuple[Callable[..., Any], tuple[str, ...]]:
    import sympy

    expr, symbols, names = _expr(fid, published, length, index)
    if expr.has(sympy.Sum, sympy.Product):  # a sum over a scalar input (e.g. H_T): evaluated per point
        return _unsupported, names
    return sympy.lambdify(symbols, expr, modules="mpmath"), names


def _exact(fid: str, published: bool, length: int, index: int, values: Mapping[str, Any], dps: int,
           binary: bool = False) -> Any:
    """The SymPy form at the decimals the inputs print as (``binary=True``: at their exact float64 values), in
    exact rational arithmetic (then ``dps`` digits)."""
    import sympy

    f = catalog.get(fid)
    expr, symbols, _ = _expr(fid, published, length, index)
    flat: list[Any] = []
    for i in f.inputs:
        if i.kind == "scalar":
            flat.append(values[i.name])
        elif i.kind == "vector":
            flat.extend(values[i.name])
    def rational(x: Any) -> Any:
        return sympy.Rational(float(x)) if binary else sympy.Rational(repr(float(x)))

    exact = expr.xreplace({s: rational(x) for s, x in zip(symbols, flat, strict=True)}).doit()
    if not exact.is_real:
        return None
    return mpmath.mpf(str(sympy.N(exact, dps + 10)))


def _unsupported(*args: Any) -> Any:
    raise NotImplementedError


def _args(f: catalog.Formula, values: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []
    for i in f.inputs:
        if i.kind == "scalar":
            out.append(mpmath.mpf(float(values[i.name])))
        elif i.kind == "vector":
            out.extend(mpmath.mpf(float(x)) for x in values[i.name])
    return out


def catalog_ref(fid: str, *, published: bool = False, dps: int = 40, max_dps: int = 5000,
                decimal: bool = False) -> Callable[[Mapping[str, Any]], Any]:
    """``ref(values)`` evaluating the catalog SymPy form of ``fid`` at >= ``dps`` correct digits (``None`` if
    the form is undefined there, e.g. a log of a non-positive number). ``decimal=True`` reads every input as the
    decimal it prints as (exact rationals, ``Rational(repr(x))``), for implementations that do so themselves
    (the CUAG compression rates, ``Fraction(repr(r))``: 0.2 is 1/5 there, so I − ⌊1/r⌋·r·I is exactly 0)."""
    f = catalog.get(fid)
    vectors = [i for i in f.inputs if i.kind == "vector"]
    index = next((i.name for i in f.inputs if i.kind == "index"), None)

    def ref(values: Mapping[str, Any]) -> Any:
        length = len(values[vectors[0].name]) if vectors else 0
        if decimal:
            return _exact(fid, published, length, int(values[index]) if index else 0, values, dps)
        fn, _ = _compiled(fid, published, length, int(values[index]) if index else 0)
        if fn is _unsupported:
            return f.evaluate_mp(values, dps=dps + 10, published=published)
        args = _args(f, values)
        work = dps + 10
        prev = None
        while work <= max_dps:
            with mpmath.workdps(work):
                try:
                    val = mpmath.mpf(fn(*args))
                except (ValueError, ZeroDivisionError, TypeError):
                    return None
            if prev is not None and (val == prev or abs(val - prev) <= abs(val) * mpmath.mpf(10) ** (-dps)):
                return val
            prev = val
            work *= 2
        # an exact cancellation (e.g. Max(T²/b² − L²K, 0) at K = N = 1, T = L, where log(e^{−ε/T}) = −ε/T): no
        # precision settles a value that is 0 ± 10^−work; exact rational arithmetic at the float64 inputs does
        exact = _exact(fid, published, length, int(values[index]) if index else 0, values, dps, binary=True)
        if exact is not None and exact == 0:
            return exact
        raise AssertionError(f"{fid}: the SymPy form did not settle below {max_dps} digits at {dict(values)}")

    return ref
