"""Random in-domain points for the generic catalog tests: ``sample`` specs and ``sample_where`` conditions.

Specs: ``uniform(a, b)``, ``loguniform(a, b)``, ``intuniform(a, b)``, ``intloguniform(a, b)``, ``choice(a, b, …)``,
``simplex`` (vector weights summing to 1). Conditions (``sample_where``, and the ``if`` part of
``domain_warning``) are arithmetic comparisons over the inputs joined by ``and``/``or``/``not``, evaluated by
`condition` — a small interpreter of Python's ``ast``, never ``eval``.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.catalog.types import CatalogError, EntryLike

if TYPE_CHECKING:
    from dpcalc.typing import FloatOrArray

__all__ = ["check_condition", "condition", "draw", "sample_inputs"]

_SAMPLE_RE = re.compile(r"^\s*(\w+)\s*(?:\((.*)\))?\s*$")

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Pow: operator.pow, ast.Mod: operator.mod,
}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "max": max, "min": min, "abs": abs, "sum": sum, "len": len,
    **{name: getattr(math, name) for name in ("sqrt", "exp", "log", "log1p", "expm1", "erf", "erfc", "floor", "ceil",
                                               "fabs", "log2", "log10")},
}


def condition(text: str, values: Mapping[str, Any]) -> bool:
    """Evaluate a condition such as ``"cov < var and cov > -var/(n - 1)"`` over ``values`` (no ``eval``)."""
    return bool(_value(ast.parse(text, mode="eval").body, values, text))


def check_condition(text: str, names: set[str]) -> None:
    """Raise ``ValueError`` unless ``text`` is a condition over ``names`` that `condition` can evaluate."""
    if not text:
        return
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not a condition: {exc.msg}") from None
    unknown = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - names - set(_FUNCTIONS) - {"math"}
    if unknown:
        raise ValueError(f"unknown name(s) {sorted(unknown)}")
    try:
        condition(text, {n: 1.0 for n in names})
    except ArithmeticError:
        pass  # allowed syntax; the value at the dummy point does not matter


def _value(node: ast.AST, values: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise ValueError(f"{text!r}: unknown name {node.id!r}")
        return values[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_value(node.left, values, text), _value(node.right, values, text))
    if isinstance(node, ast.UnaryOp):
        operand = _value(node.operand, values, text)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Not):
            return not operand
    if isinstance(node, ast.BoolOp):
        parts = (_value(v, values, text) for v in node.values)
        return all(parts) if isinstance(node.op, ast.And) else any(parts)
    if isinstance(node, ast.Compare):
        left = _value(node.left, values, text)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _value(right_node, values, text)
            if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call) and not node.keywords and _function_name(node.func) in _FUNCTIONS:
        return _FUNCTIONS[_function_name(node.func)](*(_value(a, values, text) for a in node.args))
    raise ValueError(f"{text!r}: {ast.unparse(node)!r} is not allowed in a condition")


def _function_name(func: ast.AST) -> str:
    """``f`` or ``math.f`` → ``"f"`` (anything else → ``""``)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math":
        return func.attr
    return ""


def draw(spec: str, rng: Any, size: int | None, where: str) -> FloatOrArray:
    """One value (or a vector of ``size``) from a ``sample`` spec."""
    import numpy as np

    m = _SAMPLE_RE.match(spec)
    if not m:
        raise CatalogError(f"{where}: bad sample spec {spec!r}")
    kind, args = m.group(1), [float(a) for a in (m.group(2) or "").split(",") if a.strip()]
    if kind == "simplex":
        x = rng.dirichlet(np.ones(size or 1))
    elif kind == "uniform":
        x = rng.uniform(args[0], args[1], size)
    elif kind == "loguniform":
        x = np.exp(rng.uniform(np.log(args[0]), np.log(args[1]), size))
    elif kind == "intuniform":
        x = rng.integers(int(args[0]), int(args[1]) + 1, size).astype(float)
    elif kind == "intloguniform":
        x = np.floor(np.exp(rng.uniform(np.log(args[0]), np.log(args[1] + 1), size)))
    elif kind == "choice":
        x = rng.choice(args, size)
    else:
        raise CatalogError(f"{where}: unknown sample kind {kind!r}")
    return x.tolist() if size is not None else float(x)


def sample_inputs(formula: EntryLike, rng: Any, max_tries: int = 200) -> dict[str, Any]:
    """One random in-domain point from the inputs' ``sample`` specs, honouring ``sample_where``."""
    n = int(rng.integers(formula.sample_length[0], formula.sample_length[1] + 1))
    for _ in range(max_tries):
        values: dict[str, Any] = {}
        for i in formula.inputs:
            if i.kind == "index":
                values[i.name] = int(rng.integers(1, n + 1))
                continue
            if not i.sample:
                raise CatalogError(f"{formula.id}: input {i.name!r} has no sample spec")
            size = n if i.kind == "vector" else None
            values[i.name] = draw(i.sample, rng, size, f"{formula.id}.{i.name}")
        if not formula.sample_where or condition(formula.sample_where, values):
            return values
    raise CatalogError(f"{formula.id}: sample_where {formula.sample_where!r} rejected {max_tries} draws")
