"""Noise calibration: the smallest noise multiplier σ whose ε (under a chosen accountant) is <= a target.

Always on the safe side: the returned σ satisfies ``accountant.eps(σ, q, steps, δ) <= eps`` (checked by a final
evaluation), and it exceeds the exact root by at most the stated relative tolerance ``rtol`` (default 1e-9;
1e-3 for ``pld``, which uses its own calibration :func:`dpcalc.accounting.pld.sigma_for_eps` on the certified
ε_upper). ε(σ) is non-increasing in σ for every accountant here, so the root is bracketed in log σ over
[1e-3, 1e6] and refined by the shared safe-side root finder (:mod:`dpcalc._roots`,
Illinois false position in log σ; the returned end of the bracket is an evaluated point with ε <= target).
An unreachable target (e.g. below the floor log(1/δ)/(α_max − 1) of the classic RDP conversion) raises
:class:`~dpcalc.errors.InfeasibleError`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._roots import scalar_root
from dpcalc.accounting.accountants import Accountant, get
from dpcalc.errors import DomainError, InfeasibleError

SIGMA_MIN, SIGMA_MAX = 1e-3, 1e6


def _safe_eps(acc: Accountant, sigma: float, q: float, steps: float, delta: float, **opts: Any) -> float:
    """ε during the search, warnings silenced (the final σ is re-evaluated with warnings on)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return acc.eps(sigma, q, steps, delta, **opts)[0]
    except DomainError:
        return math.inf  # e.g. RDP not representable at a tiny σ: certainly above any target


@v.named_shapes
def sigma_for_eps(eps: ArrayLike, delta: ArrayLike, q: ArrayLike, steps: ArrayLike, *, accountant: str = "rdp",
                  rtol: float | None = None, **opts: Any) -> float | v.FloatArray:
    """Smallest σ (to ``rtol``, safe side) with ε_accountant(σ, q, steps, δ) <= ``eps``.

    Broadcasts like the rest of the library: scalar inputs give a float, arrays an ndarray (one calibration per
    point of the broadcast of eps, delta, q and steps).
    """
    named = {"eps": v.positive("eps", eps), "delta": v.probability("delta", delta),
             "q": v.check_range("q", q, 0.0, 1.0, lo_open=True), "steps": v.integer_at_least("steps", steps, 1)}
    acc = get(accountant)
    tol = v.scalar("rtol", v.check_range("rtol", rtol, 1e-15, 0.1)) if rtol is not None else (1e-3 if acc.name == "pld"
                                                                                   else 1e-9)
    return v.elementwise(lambda eps, delta, q, steps: _sigma_for_eps(acc, eps, delta, q, steps, tol, opts), **named)


def _sigma_for_eps(acc: Accountant, target: float, d: float, qq: float, t: float, tol: float,
                   opts: dict[str, Any]) -> float:
    """The scalar kernel of :func:`sigma_for_eps` (validated inputs)."""
    reason = acc.applicable(qq)
    if reason is not None:
        raise DomainError(reason)
    if acc.name == "pld" and opts.get("backend", "dpcalc") == "dpcalc":
        from dpcalc.accounting import pld  # certified ε_upper at the returned σ (safe side), σ to rtol

        return pld.sigma_for_eps(target, d, qq, t, sigma_rtol=max(tol, 1e-6))

    seen: dict[float, float] = {}  # each σ is evaluated once (bracketing and root finding share the ends)

    def f(log_sigma: float) -> float:
        if log_sigma not in seen:
            seen[log_sigma] = _safe_eps(acc, math.exp(log_sigma), qq, t, d, **opts) - target
        return seen[log_sigma]

    # bracket: hi with ε <= target, lo with ε > target
    hi = 0.0
    while f(hi) > 0.0:
        hi += math.log(4.0)
        if hi > math.log(SIGMA_MAX):
            raise InfeasibleError(f"eps = {target:g} is unreachable under accountant {acc.name!r}: even sigma = "
                                  f"{SIGMA_MAX:g} gives a larger eps at delta = {d:g}")
    lo = hi - math.log(4.0)
    while f(lo) <= 0.0:
        hi = lo
        lo -= math.log(4.0)
        if lo < math.log(SIGMA_MIN):
            raise InfeasibleError(f"eps = {target:g} is so large that sigma below {SIGMA_MIN:g} meets it under "
                                  f"{acc.name!r}; dpcalc calibrates sigma in [{SIGMA_MIN:g}, {SIGMA_MAX:g}]")
    # shrink [lo, hi] in log σ with the shared safe-side root finder: hi always has ε <= target as evaluated
    root = scalar_root(f, lo, hi, increasing=False, safe="hi", rtol=0.0, atol=tol / 2.0)
    log_sigma = hi if root is None else root
    sigma = math.exp(log_sigma)
    acc.eps(sigma, qq, t, d, **opts)  # once more with warnings on (e.g. the CLT's EstimateWarning)
    return sigma
