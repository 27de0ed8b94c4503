"""ρ-zCDP (dpcalc.accounting.zcdp): OpenDP's vectors (its zCDP → (ε, δ) test, ρ = 1/32) and dp-accounting 0.6.0's (RDP
of a zCDP event at its default orders), the Bun–Steinke bound, a Monte Carlo Rényi divergence of the Gaussian, and the
tight conversion against a dense order grid."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcalc.accounting import gaussian_mechanism as gaussian
from dpcalc.accounting import rdp, zcdp
from dpcalc.errors import DomainError


def test_opendp_vectors() -> None:
    """OpenDP (Gaussian scale 4 → ρ = 1/32): ε(δ = 1e-3) = 0.6880024554878085, δ(ε = 0) = 0.1508457845622862;
    1e-12 relative (continuous-α Brent minimum)."""
    rho = zcdp.gaussian_rho(4.0)
    assert rho == 1 / 32
    assert zcdp.eps_from_rho(rho, 1e-3) == pytest.approx(0.6880024554878085, rel=1e-12)
    assert zcdp.delta_from_rho(rho, 0.0) == pytest.approx(0.1508457845622862, rel=1e-12)


@pytest.mark.parametrize(("rho", "dpa", "bun_steinke"), [
    (0.1, 1.9142498748403742, 2.2459660262893473), (0.5, 4.728507067217623, 5.298525912188081),
    (1.0, 7.077391578166641, 7.786140424415112)])
def test_zcdp_table(rho: float, dpa: float, bun_steinke: float) -> None:
    """ρ → ε at δ = 1e-5 (dp-accounting 0.6.0, default orders): Bun–Steinke to 1e-14; the tight value is <=
    dp-accounting's grid value and within 3e-5 of it (a continuous α beats the grid); ρ = 0.5 equals autodp's continuous
    4.728386984943314 (1e-12)."""
    assert zcdp.eps_bun_steinke(rho, 1e-5) == pytest.approx(bun_steinke, rel=1e-14)
    tight = zcdp.eps_from_rho(rho, 1e-5)
    assert tight <= dpa and tight == pytest.approx(dpa, rel=3e-5)
    if rho == 0.5:
        assert tight == pytest.approx(4.728386984943314, rel=1e-12)


def test_tight_equals_dense_grid_minimum() -> None:
    """eps_from_rho equals the minimum of the CKS conversion over 200k orders in (1, 2000] to 1e-9 relative."""
    orders = np.exp(np.linspace(np.log(1.0005), np.log(2000), 200_000))
    for rho, delta in [(1e-4, 1e-6), (0.03, 1e-3), (2.0, 1e-10), (50.0, 1e-5)]:
        grid = float(np.min(rdp.eps_improved(rho * orders, orders, delta)))
        assert zcdp.eps_from_rho(rho, delta) == pytest.approx(grid, rel=1e-9)


def test_gaussian_rho_by_monte_carlo_renyi() -> None:
    """D_2(N(Δ,σ²) ‖ N(0,σ²)) = 2ρ: log E_Q[(p/q)²] by 400k seeded samples; |MC − 2ρ| <= 5 SE (delta method)."""
    rng = np.random.default_rng(99)
    for sigma in [1.5, 3.0]:
        x = rng.normal(0.0, sigma, 400_000)
        ratio2 = np.exp(2.0 * (2.0 * x - 1.0) / (2.0 * sigma * sigma))
        mean = ratio2.mean()
        se = ratio2.std(ddof=1) / math.sqrt(x.size) / mean
        assert abs(math.log(mean) - 2.0 * zcdp.gaussian_rho(sigma)) <= 5 * se


def test_conversions_are_valid_for_the_gaussian() -> None:
    """Both conversions are upper bounds: for the Gaussian with ρ = 1/(2σ²), ε_zCDP >= the exact analytic ε."""
    for sigma in [0.5, 1.0, 4.0]:
        for delta in [1e-3, 1e-8]:
            exact = gaussian.eps_analytic(sigma, delta)
            rho = zcdp.gaussian_rho(sigma)
            assert exact <= zcdp.eps_from_rho(rho, delta) <= zcdp.eps_bun_steinke(rho, delta)


def test_composition_and_errors() -> None:
    assert zcdp.compose([0.1, 0.2, 0.3]) == pytest.approx(0.6, rel=1e-15)
    assert zcdp.eps_from_rho(0.0, 1e-5) == 0.0
    with pytest.raises(DomainError, match="delta"):
        zcdp.eps_from_rho(0.1, 0.0)
    with pytest.raises(DomainError, match="rho"):
        zcdp.eps_bun_steinke(-0.1, 1e-5)
    with pytest.raises(DomainError, match="sigma"):
        zcdp.gaussian_rho(float("nan"))


@settings(max_examples=30, deadline=None)
@given(rho=st.floats(1e-5, 100), log_delta=st.floats(-200, -1))
def test_round_trip_delta_eps(rho: float, log_delta: float) -> None:
    """δ(ε(ρ, δ)) = δ to 1e-6 relative (both are Brent minima of the same bound) when ε > 0."""
    delta = math.exp(log_delta)
    eps = zcdp.eps_from_rho(rho, delta)
    if eps > 0:
        assert zcdp.delta_from_rho(rho, eps) == pytest.approx(delta, rel=1e-6)


def test_delta_from_rho_subnormal_rho() -> None:
    """Fuzz finding: ρ = 5e-324 made the search's upper end (ε + 1)/(2ρ) overflow and the library reported a generic
    NaN error. The optimum x = α − 1 ≈ ε/(2ρ) lies beyond 1e300 there; δ at α = 1 + 1e300 is a valid bound and
    underflows to 0 like the optimum's. At ε = 0 it stays above the exact GDP δ(0) = erf(μ/(2√2)), μ = √(2ρ)."""
    assert zcdp.delta_from_rho(5e-324, 2.6e10) == 0.0
    assert zcdp.delta_from_rho(5e-324, 1.0) == 0.0
    mu = math.sqrt(2 * 5e-324)
    exact = math.erf(mu / (2 * math.sqrt(2)))
    got = zcdp.delta_from_rho(5e-324, 0.0)
    assert exact <= got <= 2 * exact
    arr = zcdp.delta_from_rho(np.array([5e-324, 0.5]), np.array([2.6e10, 1.0]))
    assert arr[0] == 0.0 and arr[1] == pytest.approx(zcdp.delta_from_rho(0.5, 1.0), rel=1e-15)


def test_subnormal_rho_is_solved_in_log_space() -> None:
    """ρ = δ = 1e-320 gave NaN (√(L/ρ) overflowed); 60-digit bisection of the optimum: α* = 1.9117194003063519e161,
    ε = 3.8181653417729617e-159 (found by the library fuzz)."""
    eps = zcdp.eps_from_rho(1e-320, 1e-320)
    assert 3.8181653417729617e-159 <= eps <= 3.8181653417729617e-159 * (1 + 1e-13)
    assert zcdp.optimal_order(1e-320, 1e-320) == pytest.approx(1.9117194003063519e161, rel=1e-12)


def test_eps_near_the_bretagnolle_huber_boundary_is_safe() -> None:
    """ρ = 3.1926971659644114e-05, δ = 0.004846611525818637: ε = 1.12660202973322e-7 (50-digit bisection of the
    optimum) from terms of ~0.04; the relative margin alone left it 2.6e-11 below (the 10,000-point sweep: unsafe).
    Now above, within the documented absolute term."""
    exact = 1.1266020297332211799e-7
    eps = zcdp.eps_from_rho(3.1926971659644114e-05, 0.004846611525818637)
    assert exact <= eps <= exact * (1 + 1e-9)
