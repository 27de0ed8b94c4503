"""The bracketed mpmath root finder: the high-precision counterpart of `dpcalc._roots`.

Used where an inverse must be known to tens of digits: the catalog's ``SolveFor`` forms (an inverse stated as the
root of its forward formula, `dpcalc.catalog.solve_for`) and the verification oracles
(`dpcalc.checks.oracles`). Illinois false position (regula falsi with halving; Dahlquist & Björck 1974 §6.2)
with a bisection fallback, in log x when the bracket is positive. mpmath is imported inside the function; the
precision is set with ``mpmath.workdps`` (no global state).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["DPS", "root"]

DPS = 40


def root(f: Callable[[Any], Any], lo: Any, hi: Any, *, dps: int = DPS, log: bool = True) -> Any:
    """A root of ``f`` on ``[lo, hi]`` where ``f(lo)``, ``f(hi)`` differ in sign (mpmath bisection then Illinois,
    in log x when ``log`` and lo > 0), to ``dps`` digits. Raises ``ValueError`` if the bracket is not one."""
    import mpmath as mp

    with mp.workdps(dps + 5):
        lo, hi = mp.mpf(lo), mp.mpf(hi)
        use_log = log and lo > 0
        to_x = (lambda t: mp.exp(t)) if use_log else (lambda t: t)
        a, b = (mp.log(lo), mp.log(hi)) if use_log else (lo, hi)
        fa, fb = f(to_x(a)), f(to_x(b))
        if fa == 0:
            return to_x(a)
        if fb == 0:
            return to_x(b)
        if (fa > 0) == (fb > 0):
            raise ValueError("root: f(lo) and f(hi) have the same sign")
        tol = mp.mpf(10) ** (-dps)
        side = 0
        for _ in range(400):
            # Illinois (regula falsi with halving), falling back to bisection when it stalls
            c = (a * fb - b * fa) / (fb - fa)
            if not (min(a, b) < c < max(a, b)):
                c = (a + b) / 2
            fc = f(to_x(c))
            if fc == 0:
                return to_x(c)
            if (fc > 0) == (fb > 0):
                b, fb = c, fc
                if side == -1:
                    fa /= 2
                side = -1
            else:
                a, fa = c, fc
                if side == 1:
                    fb /= 2
                side = 1
            scale = 1 if use_log else max(abs(a), abs(b), mp.mpf(10) ** (-300))
            if abs(b - a) <= tol * scale:
                break
        return to_x((a + b) / 2)
