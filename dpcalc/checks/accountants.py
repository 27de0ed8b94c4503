"""Verification recipes for the accountants' ε and the noise calibration entries (``formulas/accountants.toml``).

* ``accountant_rdp_oracle`` — ε of the RDP accountant recomputed independently: each order's RDP by the 40-digit
  mpmath oracle (`dpcalc.checks.oracles.subsampled_rdp`), T·RDP converted by Balle et al. 2020 Thm 21 in mpmath,
  minimised over the entry's grid; agreement to 1e-10 relative.
* ``accountant_exact_gaussian`` — q = 1: T Gaussian steps are one Gaussian with μ = √T/σ, whose exact ε(μ, δ) is the
  40-digit root `dpcalc.checks.oracles.gaussian_eps`. The ``analytic`` accountant must equal it (1e-12); any
  other (``zcdp``) is an upper bound and must not be below it.

The calibration entries (σ for a target ε) use the shared ``inverse_round_trip`` recipe with these ε entries as the
forward map.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks import oracles
from dpcalc.checks._util import exact_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def rdp_accountant_mp(sigma: float, q: float, steps: float, delta: float, orders: Any) -> Any:
    """ε of the RDP accountant at 40 digits: min over ``orders`` of Thm 21 applied to T·RDP(α) (mpmath)."""
    import mpmath

    with mpmath.workdps(oracles.DPS):
        ld = mpmath.log(mpmath.mpf(delta))
        best = mpmath.inf
        for a in orders:
            alpha = mpmath.mpf(float(a))
            r = steps * oracles.subsampled_rdp(float(a), q, sigma)
            if mpmath.mpf(delta) ** 2 + mpmath.exp(-r) - 1 >= 0:
                return mpmath.mpf(0)
            eps = r + mpmath.log(1 - 1 / alpha) - (ld + mpmath.log(alpha)) / (alpha - 1)
            best = min(best, max(eps, mpmath.mpf(0)))
        return best


@recipe("accountant_rdp_oracle")
def _rdp_oracle(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    sigma, q = value_of(values, "sigma"), value_of(values, "q")
    steps, delta = value_of(values, "steps"), value_of(values, "delta")
    closed = float(formula.call(values, published=ctx.published))
    orders = list(formula.call_kwargs.get("orders") or [])
    exact = float(rdp_accountant_mp(sigma, q, steps, delta, orders))
    return exact_result(closed, exact, 1e-10, f"min over {len(orders)} orders of Thm 21 at T·RDP(α), RDP by the "
                                              "40-digit mpmath oracle")


@recipe("accountant_exact_gaussian")
def _exact_gaussian(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    sigma, steps, delta = value_of(values, "sigma"), value_of(values, "steps"), value_of(values, "delta")
    closed = float(formula.call(values, published=ctx.published))
    mu = math.sqrt(steps) / sigma
    exact = float(oracles.gaussian_eps(mu, math.log(delta)))
    detail = f"exact ε of one Gaussian with μ = √T/σ = {mu:.6g} (40-digit root)"
    if formula.call_kwargs.get("accountant") == "analytic":
        return exact_result(closed, exact, 1e-12, detail)
    return CheckResult("exact-numeric", closed, exact, exact * (1 - 1e-12), math.inf, detail + "; upper bound")
