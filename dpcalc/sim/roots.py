"""Dependency-free root bracketing (bisection in log space) for positive scale parameters."""

from __future__ import annotations

import math
from collections.abc import Callable


def bisect_log(f: Callable[[float], float], lo: float, hi: float, *, rtol: float = 1e-13,
               max_iter: int = 200) -> float | None:
    """A root of ``f`` on [lo, hi] (0 < lo < hi) by bisection on log x; None if f(lo), f(hi) have the same sign."""
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if (flo > 0) == (fhi > 0):
        return None
    a, b = math.log(lo), math.log(hi)
    for _ in range(max_iter):
        m = 0.5 * (a + b)
        fm = f(math.exp(m))
        if fm == 0:
            return math.exp(m)
        if (fm > 0) == (flo > 0):
            a, flo = m, fm
        else:
            b = m
        if b - a < rtol:
            break
    return math.exp(0.5 * (a + b))
