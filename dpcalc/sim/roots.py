"""Scalar root bracketing for the verification recipes: a thin front end of the one root finder (dpcalc._roots)."""

from __future__ import annotations

from collections.abc import Callable

from dpcalc._roots import scalar_root

__all__ = ["bisect_log"]


def bisect_log(f: Callable[[float], float], lo: float, hi: float, *, rtol: float = 1e-13,
               max_iter: int = 200) -> float | None:
    """A root of ``f`` on [lo, hi] (0 < lo < hi), bracketed in log x to ``rtol``; None if f(lo), f(hi) have the
    same sign (`dpcalc._roots.scalar_root`)."""
    return scalar_root(f, lo, hi, rtol=rtol, log=True, max_iter=max_iter)
