"""The one RDP → (ε, δ) conversion (dpcalc.accounting.conversion): pointwise against 40-digit mpmath (never below,
within its stated margin), the Bretagnolle–Huber zero, the two minimisers against brute force and closed forms."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc._numerics import SAFE_UP
from dpcalc.accounting import conversion, zcdp
from dpcalc.errors import DomainError, InfeasibleError

U = 2.0**-53


def _exact(r: float, alpha: float, delta: float, method: str) -> mpmath.mpf:
    with mpmath.workdps(40):
        r, a, d = mpmath.mpf(r), mpmath.mpf(alpha), mpmath.mpf(delta)
        if method == "lemma1":
            return r + mpmath.log(1 / d) / (a - 1)
        if d * d + mpmath.expm1(-r) >= 0:
            return mpmath.mpf(0)
        return max(r + mpmath.log1p(-1 / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1), mpmath.mpf(0))


@pytest.mark.parametrize("method", ["improved", "lemma1"])
def test_pointwise_against_mpmath_never_below(rng: np.random.Generator, method: str) -> None:
    """400 seeded (r, α, δ), near the Bretagnolle–Huber boundary too: ε >= the 40-digit value and above it by at most
    the stated margin 4u·Σ|terms| (plus 2 ulps of ε)."""
    r = np.exp(rng.uniform(np.log(1e-6), np.log(100.0), 400))
    alpha = 1.0 + np.exp(rng.uniform(np.log(1e-3), np.log(1e4), 400))
    delta = np.exp(rng.uniform(np.log(1e-300), np.log(0.9), 400))
    got = conversion.eps_at_order(r, alpha - 1.0, np.log(delta), method)
    scale = conversion.rounding_scale(r, alpha - 1.0, np.log(delta), method)
    for i in range(r.size):
        want = _exact(float(r[i]), float(alpha[i]), float(delta[i]), method)
        assert got[i] >= want, (r[i], alpha[i], delta[i])
        assert got[i] - want <= 4.0 * U * scale[i] + 4.0 * U * got[i] + 1e-300, (r[i], alpha[i], delta[i])


def test_bretagnolle_huber_zero_and_infinite_orders() -> None:
    r = 1e-3
    boundary = math.sqrt(-math.expm1(-r))  # δ = √(1 − e^{−r})
    assert conversion.eps_at_order(r, 1.0, math.log(boundary * 1.001), "improved") == 0.0
    assert conversion.eps_at_order(r, 1.0, math.log(boundary * 0.5), "improved") > 0.0
    assert conversion.eps_at_order(r, 1.0, math.log(boundary * 1.001), "lemma1") > 0.0  # as printed: no zero test
    assert np.isinf(conversion.eps_at_order(math.inf, 1.0, math.log(1e-5)))
    assert bool(conversion.bretagnolle_huber_zero(r, math.log(boundary * 1.001)))


def test_grid_minimiser_is_the_brute_force_minimum_moved_outward() -> None:
    orders = np.array([1.5, 2.0, 4.0, 8.0, 16.0, 32.0])
    curve = 0.05 * orders
    eps, i = conversion.best_over_grid(orders, curve, math.log(1e-5))
    pointwise = conversion.eps_at_order(curve, orders - 1.0, math.log(1e-5))
    assert i == int(np.argmin(pointwise)) and eps == float(pointwise[i]) * SAFE_UP
    assert conversion.best_over_grid(orders, np.full(orders.shape, np.inf), math.log(1e-5)) == (math.inf, -1)
    with pytest.raises(DomainError, match="one value per order"):
        conversion.best_over_grid(orders, curve[:3], math.log(1e-5))


@pytest.mark.parametrize("slope", [1e-4, 0.01, 3.0])
def test_continuous_minimiser_against_the_closed_forms(slope: float) -> None:
    """An RDP curve ρα: Lemma 1's optimum is ρ + 2√(ρ log(1/δ)); the improved one is zCDP's ε(ρ, δ) (the same
    minimisation, solved there by its own root), both reached from above to 1e-9."""
    lemma1, _ = conversion.best_over_range(lambda a: slope * a, math.log(1e-6), method="lemma1")
    assert lemma1 == pytest.approx(slope + 2.0 * math.sqrt(slope * math.log(1e6)), rel=1e-9)
    improved, alpha = conversion.best_over_range(lambda a: slope * a, math.log(1e-6))
    exact = float(zcdp.eps_from_rho(slope, 1e-6))
    assert exact * (1 - 1e-13) <= improved <= exact * (1 + 1e-9)
    assert alpha == pytest.approx(float(zcdp.optimal_order(slope, 1e-6)), rel=1e-3)
    with pytest.raises(InfeasibleError, match="empty"):
        conversion.best_over_range(lambda a: slope * a, math.log(1e-6), alpha_max=1.0)


def test_delta_at_order_inverts_the_improved_conversion() -> None:
    r, x, delta = 0.3, 4.0, 1e-7
    eps = float(conversion.eps_at_order(r, x, math.log(delta), "improved"))
    back = float(conversion.log_delta_at_order(r, x, eps))
    assert back == pytest.approx(math.log(delta), abs=1e-12) and back <= math.log(delta)  # ε rounded up: δ below


def test_bad_method_and_rdp_are_one_line_errors() -> None:
    with pytest.raises(DomainError, match=r"^method must be 'improved'"):
        conversion.eps_at_order(0.1, 1.0, -1.0, "nope")
    with pytest.raises(DomainError, match=r"^rdp must be >= 0"):
        conversion.eps_at_order(-0.1, 1.0, -1.0)
    with pytest.raises(DomainError, match=r"^x must be"):
        conversion.eps_at_order(0.1, 0.0, -1.0)
