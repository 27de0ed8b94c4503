"""The one declarative round-trip recipe shared by every inverse / calibration entry of the catalog.

An inverse entry names its forward entry in its ``check`` table::

    check = { method = "exact-numeric", recipe = "inverse_round_trip", forward = "gdp.log_delta_from_eps",
              solve = "eps", target = "delta", transform = "log", side = "below" }

The recipe evaluates the inverse at the check point, puts the result in the forward entry's input ``solve`` (the
other inputs are taken from the same point), evaluates the forward entry there and compares it with the target input
(``transform = "log"``: with its log, for forward entries that return log δ). Pass iff
``forward(inverse(x))`` lies within the entry's ``rtol`` of the target **and** on the safe side: ``side = "below"``
(e.g. δ at the returned ε must not exceed δ) or ``"above"``; ``"both"`` where the two maps' safe sides point
opposite ways (a δ bound read back through an ε bound), so only the tolerance is checked. The interval is thus
one-sided, ``[target − tol, target]`` for ``below`` (unbounded on the safe side when the inverse is clamped at
the edge of the solved input's domain, e.g. ε = 0 once δ >= δ(0; μ)); ``tol = rtol·|target| + atol``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks._util import value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


@recipe("inverse_round_trip")
def _round_trip(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc import catalog

    spec = formula.check
    forward = catalog.get(str(spec["forward"]))
    solve, target_name = str(spec["solve"]), str(spec["target"])
    side = str(spec.get("side", "below"))
    x = float(formula.call(values, published=ctx.published))
    fvals = {**{k: v for k, v in values.items() if k != target_name}, **dict(spec.get("fixed", {})), solve: x}
    fvals = {i.name: fvals[i.name] for i in forward.inputs if i.name in fvals}
    back = float(forward.call(fvals))
    target = value_of(values, target_name)
    if spec.get("transform") == "log":
        target = math.log(target)
    # tolerance on the forward value: the check's rtol (default 1e-12) relative to the target (absolute, at least,
    # on a log scale, where the target log δ can be near 0)
    rtol = float(spec.get("rtol", 1e-12))
    tol = rtol * (max(abs(target), 1.0) if spec.get("transform") == "log" else abs(target))
    tol += float(spec.get("atol", 0.0))
    lo, hi = {"below": (target - tol, target), "above": (target, target + tol),
              "both": (target - tol, target + tol)}[side]
    edge = forward.input(solve).domain
    if x == edge.lo and not edge.lo_open:  # clamped at the domain edge (e.g. ε = 0 once δ >= δ(0)): one-sided
        lo, hi = (-math.inf, target) if side == "below" else (target, math.inf)
    return CheckResult("exact-numeric", back, target, lo, hi,
                       f"round trip: {forward.id}({solve} = {formula.id}(…) = {x:.17g}) vs the target "
                       f"{'log ' if spec.get('transform') == 'log' else ''}{target_name}, safe side '{side}'",
                       {solve: x, "forward": forward.id})
