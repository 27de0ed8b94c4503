"""``SolveFor(expr, x, lo, hi)``: the SymPy form of an inverse in the catalog.

An inverse (ε(μ, δ), σ(ε, δ), the zCDP optimum, …) has no closed form; its catalog entry states it as the root
``x`` in ``(lo, hi)`` of ``expr = 0``, where ``expr`` is the forward formula minus its target. When every other
symbol has a value, ``evalf`` solves it with the bracketed mpmath root finder of `dpcalc._roots_mp` at the
requested precision (sign change certified), so ``Formula.evaluate_mp`` gives the inverse to 50 digits like any
other entry. The caller must give a bracket with a sign change (entries use a known bound).
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["solve_for"]


@cache
def solve_for() -> type:
    """The SymPy function class ``SolveFor`` (created on first use: SymPy is imported lazily)."""
    import sympy
    from mpmath.libmp import prec_to_dps

    def _eval_evalf(self: Any, prec: int) -> Any:
        import mpmath

        from dpcalc._roots_mp import root

        expr, x, lo, hi = self.args
        if (expr.free_symbols - {x}) or lo.free_symbols or hi.free_symbols:
            return None
        dps = prec_to_dps(prec) + 5
        fn = sympy.lambdify(x, expr, modules="mpmath")
        with mpmath.workdps(dps + 10):
            lo_v = mpmath.mpf(sympy.N(lo, dps + 10))
            hi_v = mpmath.mpf(sympy.N(hi, dps + 10))
            r = root(fn, lo_v, hi_v, dps=dps, log=bool(lo_v > 0))
        return sympy.Float(r, dps)

    return type("SolveFor", (sympy.Function,), {"nargs": 4, "_eval_evalf": _eval_evalf})
