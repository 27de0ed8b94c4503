"""ρ-zCDP → (ε, δ) at large ρ (up to 1e6) and ε up to ρ and beyond, against a 40-digit reference written from
Canonne, Kamath & Steinke 2020, Prop. 12 (ρ-zCDP is (α, ρα)-RDP for every α > 1; the bound minimised over a
continuous α by bisection of its derivative in mpmath), not from dpcalc's code.

* δ(ε): ``min_x exp(x(ρ(1 + x) − ε) − log(1 + x) − x log(1 + 1/x))``, x = α − 1; the optimum solves
  ``ρ(1 + 2x) − ε − log(1 + 1/x) = 0``. Where ε < ρ the optimum x is far below the smallest double (ρ = 1000,
  ε = 1: x = e^{−999}) and δ = 1 − e^{−…}: the library once returned 0 there (unsafe).
* ε(δ): ``min_x ρ(1 + x) − log(1 + 1/x) − (log δ + log(1 + x))/x``, clamped at 0 where Bretagnolle–Huber gives
  ε = 0; the optimum solves ``ρx² + log(1 + x) + log δ = 0``.

δ is a guarantee: the returned δ is never below the reference (safe side). ``DPCALC_SWEEP_POINTS`` sets the deep
budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import pytest

from dpcalc.accounting import zcdp
from tests.support.backward_terms import zcdp_eps
from tests.support.sweep import Axis, Point, sweep

DELTA_RTOL = 1e-12


def delta_atol(p: Point, want: mpmath.mpf) -> float:
    """δ's documented absolute term: 1e-15·|ln δ| relative (the outward margin 4u·Σ|terms|, terms ~3|ln δ|)."""
    return 0.0 if want == 0 else float(want * 1e-15 * abs(mpmath.log(want)))


def _bisect(g: Callable[[mpmath.mpf], mpmath.mpf], lo: mpmath.mpf, hi: mpmath.mpf, iters: int = 140) -> mpmath.mpf:
    """Root of an increasing g on [lo, hi] (g(lo) < 0 <= g(hi)) by bisection."""
    for _ in range(iters):
        mid = (lo + hi) / 2
        if g(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mp_delta(rho: float, eps: float) -> mpmath.mpf:
    """CKS 2020 Prop. 12 in δ at the optimal continuous order, in y = log(α − 1)."""
    r, e = mpmath.mpf(rho), mpmath.mpf(eps)

    def g(y: mpmath.mpf) -> mpmath.mpf:
        return r * (1 + 2 * mpmath.exp(y)) - e - mpmath.log1p(mpmath.exp(-y))

    lo = -(3 * r + 1)
    hi = max(mpmath.log((e + 1) / (2 * r)), mpmath.mpf(1))
    while g(hi) < 0:
        hi *= 2
    x = mpmath.exp(_bisect(g, lo, hi, iters=120 + int(mpmath.log(hi - lo, 2))))
    log_d = x * (r * (1 + x) - e) - mpmath.log1p(x) - x * mpmath.log1p(1 / x)
    return min(mpmath.mpf(1), mpmath.exp(log_d))


def mp_eps(rho: float, delta: float) -> mpmath.mpf:
    """CKS 2020 Prop. 12 in ε at the optimal continuous order; 0 where δ >= √(1 − e^{−ρ}) (Bretagnolle–Huber)."""
    r, d = mpmath.mpf(rho), mpmath.mpf(delta)
    if d >= mpmath.sqrt(-mpmath.expm1(-r)):
        return mpmath.mpf(0)
    ld = mpmath.log(d)

    def g(y: mpmath.mpf) -> mpmath.mpf:
        x = mpmath.exp(y)
        return r * x * x + mpmath.log1p(x) + ld

    hi = mpmath.log(mpmath.sqrt(-ld / r)) + 1
    lo = hi - 60
    while g(lo) >= 0:
        lo -= 60
    x = mpmath.exp(_bisect(g, lo, hi))
    eps = r * (1 + x) - mpmath.log1p(1 / x) - (ld + mpmath.log1p(x)) / x
    return max(eps, mpmath.mpf(0))


def _delta_safe(p: Point, got: float) -> bool:
    with mpmath.workdps(40):
        return got >= mp_delta(p["rho"], p["eps"]) * (1 - mpmath.mpf(2) ** -60)  # the reference rounded to 40 digits


@pytest.mark.parametrize(("rho", "eps"), [(1000.0, 1.0), (785.0, 0.0), (785.0, 75.6), (5000.0, 4000.0),
                                          (1e6, 1e6), (1e6, 999_000.0)])
def test_delta_at_eps_up_to_rho(rho: float, eps: float) -> None:
    """The unsafe δ = 0 of ε < ρ at large ρ: the optimum x = α − 1 is subnormal or underflows (x = 5.6e-309 at
    ρ = 1000, ε = 1 made 1/x overflow); δ = 1 − e^{−…} rounds to 1 there (ρ = 1e6, ε = ρ: δ = 0.99995785823320…)."""
    with mpmath.workdps(40):
        want = mp_delta(rho, eps)
    got = float(zcdp.delta_from_rho(rho, eps))
    assert abs(got - want) <= DELTA_RTOL * want + delta_atol({}, want) and _delta_safe({"rho": rho, "eps": eps}, got)
    if eps < rho:
        assert got == 1.0


def test_delta_from_rho_sweep_eps_below_rho() -> None:
    """ε = tρ, t in [1e-6, 1] log-uniform, ρ in [1e-4, 1e6]: δ within 1e-12 of the reference and never below it."""
    sweep("zcdp.delta_from_rho[eps<=rho]", [Axis("rho", 1e-4, 1e6), Axis("t", 1e-6, 1.0)],
          fn=lambda p: zcdp.delta_from_rho(p["rho"], p["t"] * p["rho"]),
          ref=lambda p: mp_delta(p["rho"], p["t"] * p["rho"]), rtol=DELTA_RTOL, atol=delta_atol, n=60,
          safe=lambda p, got: _delta_safe({"rho": p["rho"], "eps": p["t"] * p["rho"]}, got))


def test_delta_from_rho_sweep_across_the_tail() -> None:
    """ε = ρ + 2√(ρL), L in [1e-3, 650] (δ from ~1 down to ~e^{−650}), ρ in [1e-4, 1e6]."""
    def eps(p: Point) -> float:
        return p["rho"] + 2.0 * math.sqrt(p["rho"] * p["L"])

    sweep("zcdp.delta_from_rho[tail]", [Axis("rho", 1e-4, 1e6), Axis("L", 1e-3, 650.0)],
          fn=lambda p: zcdp.delta_from_rho(p["rho"], eps(p)), ref=lambda p: mp_delta(p["rho"], eps(p)),
          rtol=DELTA_RTOL, atol=delta_atol, n=60,
          safe=lambda p, got: _delta_safe({"rho": p["rho"], "eps": eps(p)}, got))


def test_eps_from_rho_sweep_large_rho() -> None:
    """ρ in [1e-4, 1e6], δ in [1e-300, 0.5]: ε within 1e-12 plus its documented absolute term, never below."""
    sweep("zcdp.eps_from_rho[large rho]", [Axis("rho", 1e-4, 1e6), Axis("delta", 1e-300, 0.5)],
          fn=lambda p: zcdp.eps_from_rho(p["rho"], p["delta"]), ref=lambda p: mp_eps(p["rho"], p["delta"]),
          rtol=1e-12, atol=lambda p, want: zcdp_eps(p["rho"], p["delta"], float(want)), n=60, safe="above")
