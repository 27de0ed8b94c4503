"""Symbolic side of the catalog: parse an entry's SymPy string without ``eval`` of arbitrary code, and evaluate
it with mpmath at any precision.

The string is parsed by SymPy's own parser (`sympy.parsing.sympy_parser.parse_expr`) with a *restricted*
namespace: the entry's input symbols, the summation indices it introduces, and the functions listed in
`ALLOWED` — nothing else (no builtins, no attribute access), so a TOML string cannot run code.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from dpcalc.catalog.types import CatalogError, EntryLike

if TYPE_CHECKING:
    import mpmath
    import sympy

__all__ = ["ALLOWED", "SymbolicError", "evaluate_mp", "expression", "parse"]

#: SymPy names a catalog expression may use (besides its inputs and summation indices).
ALLOWED = ("sqrt", "exp", "log", "erf", "erfc", "erfinv", "Sum", "Product", "Max", "Min", "Abs", "Rational",
           "binomial", "floor", "ceiling", "Piecewise", "pi", "E", "oo", "LambertW", "gamma", "loggamma", "sign",
           "Heaviside", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh")


class SymbolicError(ValueError):
    """A SymPy string uses something outside the allowed grammar or namespace."""


_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Constant, ast.Tuple, ast.Load,
          ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd, ast.Subscript, ast.Compare,
          ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.BoolOp, ast.And, ast.Or)


def _check_grammar(text: str, names: set[str]) -> None:
    """Reject anything but arithmetic, calls of allowed functions, indexing of vector inputs and comparisons."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise SymbolicError(f"not an expression: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise SymbolicError(f"{type(node).__name__} is not allowed")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in names):
            raise SymbolicError(f"call of {ast.unparse(node.func)!r} is not allowed")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise SymbolicError(f"name {node.id!r} is not allowed")


@cache
def _max_over(minimum: bool = False) -> Any:
    """A SymPy function ``MaxOver(expr, (k, lo, hi))`` (or ``MinOver``) that expands once ``hi`` is a number."""
    import sympy

    reduce = sympy.Min if minimum else sympy.Max

    def _eval(cls: Any, expr: Any, limits: Any) -> Any:
        k, lo, hi = limits
        if lo.is_Integer and hi.is_Integer:
            return reduce(*[expr.subs(k, i) for i in range(int(lo), int(hi) + 1)])
        return None

    return type("MinOver" if minimum else "MaxOver", (sympy.Function,), {"eval": classmethod(_eval)})


def parse(text: str, inputs: Mapping[str, str], length: str = "N", where: str = "") -> sympy.Expr:
    """Parse ``text`` over ``inputs`` (name → kind: scalar/vector/index); vectors are ``IndexedBase``."""
    import sympy
    from sympy.parsing.sympy_parser import auto_number, auto_symbol, parse_expr

    from dpcalc.catalog.solve_for import solve_for

    local: dict[str, Any] = {"MaxOver": _max_over(), "MinOver": _max_over(minimum=True), "SolveFor": solve_for()}
    for name, kind in inputs.items():
        local[name] = sympy.IndexedBase(name) if kind == "vector" else sympy.Symbol(name)
    if "vector" in inputs.values():
        local.setdefault(length, sympy.Symbol(length, integer=True, positive=True))
    allowed: dict[str, Any] = {name: getattr(sympy, name) for name in ALLOWED}
    try:
        _check_grammar(text, set(allowed) | set(local))
        namespace = {"__builtins__": {}, "Symbol": sympy.Symbol, "Integer": sympy.Integer, "Float": sympy.Float,
                     **allowed}
        return parse_expr(text, local_dict=local, global_dict=namespace, transformations=(auto_symbol, auto_number))
    except (SymbolicError, sympy.SympifyError, SyntaxError, TypeError, NameError) as exc:
        raise CatalogError(f"{where}: SymPy form {text!r} does not parse: {exc}") from exc


def expression(formula: EntryLike, published: bool = False) -> sympy.Expr:
    """The entry's SymPy form (the published one if asked) as an expression."""
    text = formula.sympy
    if published:
        if formula.erratum is None or not formula.erratum.published_sympy:
            raise CatalogError(f"{formula.id} has no published SymPy form")
        text = formula.erratum.published_sympy
    return parse(text, {i.name: i.kind for i in formula.inputs}, formula.length, formula.id)


def evaluate_mp(formula: EntryLike, values: Mapping[str, Any], dps: int = 50,
                published: bool = False) -> mpmath.mpf:
    """Evaluate the SymPy form with mpmath at ``dps`` digits (inside ``mpmath.workdps``); an ``mpmath.mpf``."""
    import mpmath
    import sympy

    expr = expression(formula, published)
    first: dict[Any, Any] = {sympy.Symbol(i.name): sympy.Integer(int(values[i.name]))
                             for i in formula.inputs if i.kind == "index"}
    subs: dict[Any, Any] = {}
    vectors = [i for i in formula.inputs if i.kind == "vector"]
    with mpmath.workdps(dps):
        if vectors:
            first[sympy.Symbol(formula.length, integer=True, positive=True)] = len(values[vectors[0].name])
            for vin in vectors:
                base = sympy.IndexedBase(vin.name)
                for k, val in enumerate(values[vin.name], start=1):
                    subs[base[k]] = sympy.Float(mpmath.mpf(float(val)), dps)
        for i in formula.inputs:
            if i.kind == "scalar":
                subs[sympy.Symbol(i.name)] = sympy.Float(mpmath.mpf(float(values[i.name])), dps)
        if first:
            expr = expr.subs(first).doit()
        val = expr.xreplace(subs).doit()
        return mpmath.mpf(sympy.N(val, dps))
