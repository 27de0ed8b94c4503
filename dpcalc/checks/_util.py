"""Helpers shared by recipe modules (not a recipe module: the leading underscore skips discovery)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from dpcalc.checks.registry import CheckResult
from dpcalc.sim.stats import Estimate

__all__ = ["exact_result", "failed", "mc_result", "value_of"]


def mc_result(closed_form: Any, est: Estimate, detail: str, **extra: Any) -> CheckResult:
    """A Monte Carlo CheckResult from an Estimate of the same quantity as ``closed_form``."""
    return CheckResult("monte-carlo", float(closed_form), est.value, est.ci_low, est.ci_high, detail,
                       {"se": est.se, "n": est.n, **extra})


def exact_result(closed_form: Any, estimate: float, rtol: float, detail: str, atol: float = 0.0,
                 **extra: Any) -> CheckResult:
    """An exact-numeric CheckResult: the interval is estimate ± (rtol·|estimate| + atol)."""
    tol = rtol * abs(estimate) + atol
    return CheckResult("exact-numeric", float(closed_form), float(estimate), float(estimate - tol),
                       float(estimate + tol), detail, {"rtol": rtol, "atol": atol, **extra})


def failed(closed_form: Any, method: str, detail: str) -> CheckResult:
    """A failing result when the independent computation itself cannot produce an estimate."""
    return CheckResult(method, float(closed_form), math.nan, math.nan, math.nan, detail)  # type: ignore[arg-type]


def value_of(values: Mapping[str, Any], name: str, default: float | None = None) -> float:
    """The input ``name`` of a catalog point as a float (``default`` if absent; KeyError if no default)."""
    if name in values:
        return float(values[name])
    if default is None:
        raise KeyError(name)
    return default
