"""Exact recipe of the exponential mechanism's RDP (``events.exponential_mechanism_rdp``).

``events_bounded_range_max`` (exact-numeric): the Rényi divergence of every two-point ε-bounded-range pair (losses t
and t + ε, mass p on the larger under P) evaluated at 40 digits on a grid of p, the maximum refined by a ternary
search (the function is concave in p) — the definition's supremum, not the closed-form maximiser; tolerance 1e-11
(relative, the closed form's cancellation near α = 1 costs ~1e-13). It also checks the maximum lies below ε (pure DP).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks._util import exact_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["bounded_range_rdp_mp"]


def bounded_range_rdp_mp(alpha: float, eps: float) -> Any:
    """max over p of D_α of the two-point ε-bounded-range pair, at 40 digits (grid, then ternary search)."""
    import mpmath as mp

    with mp.workdps(40):
        e, a = mp.mpf(eps), mp.mpf(alpha)

        def f(p: Any) -> Any:
            t = mp.log1p(-p * (1 - mp.e ** (-e)))  # Q sums to 1
            return mp.log(p * mp.e ** ((a - 1) * (t + e)) + (1 - p) * mp.e ** ((a - 1) * t)) / (a - 1)

        grid = [mp.mpf(i) / 400 for i in range(401)]
        best = max(grid, key=f)
        lo, hi = max(best - mp.mpf(1) / 400, mp.mpf(0)), min(best + mp.mpf(1) / 400, mp.mpf(1))
        for _ in range(150):
            m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
            lo, hi = (m1, hi) if f(m1) < f(m2) else (lo, m2)
        return f((lo + hi) / 2)


@recipe("events_bounded_range_max")
def _bounded_range(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    alpha, eps = value_of(values, "alpha"), value_of(values, "epsilon")
    closed = float(formula.call(values, published=ctx.published))
    exact = float(bounded_range_rdp_mp(alpha, eps))
    if exact > eps * (1 + 1e-12):  # pragma: no cover - would contradict pure ε-DP
        return CheckResult("exact-numeric", closed, exact, eps, eps, "maximum above ε")
    return exact_result(closed, exact, 1e-11, "max over two-point ε-bounded-range pairs of D_α (40 digits, grid "
                                               "and ternary search)")
