"""He & He 2023 (ε-MI-DP): reference values, properties, Theorem 3 vs a numerical optimiser, precision, errors.

Tolerances: reference values (the closed forms in mpmath at 30 digits, written to 10 significant digits: rtol 5e-10);
precision vs mpmath at 50 digits <= 1e-12 relative; SLSQP optimum to 1e-6 relative (optimiser tolerance).
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpcalc import DomainError, midp
from dpcalc.checks.midp import slsqp_5_26

# He & He 2023 reference setting N=100, C=10, p_i = 1/N, nats; d = 199210 is the 784-200-200-10 MNIST network
REFERENCE = [
    # d, eps, sigma_s, sigma_c, U
    (100, 5, 0.03083558325, 0.3083558325, 10.51709181),
    (100, 10, 0.02125242472, 0.2125242472, 22.14027582),
    (100, 20, 0.01425918925, 0.1425918925, 49.18246976),
    (199210, 5, 0.03162237975, 0.3162237975, 0.005019954317),
    (199210, 10, 0.02236011854, 0.2236011854, 0.01004016063),
    (199210, 20, 0.0158105946, 0.158105946, 0.02008132932),
]


@pytest.mark.parametrize(("d", "eps", "sigma_s", "sigma_c", "utility"), REFERENCE)
def test_reference_values(d: int, eps: float, sigma_s: float, sigma_c: float, utility: float) -> None:
    n, c = 100, 10.0
    assert midp.server_sigma_equal(eps, d, C=c, N=n) == pytest.approx(sigma_s, rel=5e-10)
    assert midp.client_sigma_equal(eps, d, C=c, N=n) == pytest.approx(sigma_c, rel=5e-10)
    assert midp.utility_at_budget(eps, d, C=c, p_max=1 / n) == pytest.approx(utility, rel=5e-10)
    s_s, s_c = midp.server_sigma_equal(eps, d, C=c, N=n), midp.client_sigma_equal(eps, d, C=c, N=n)
    assert midp.utility_server(s_s, d) == pytest.approx(utility, rel=5e-10)
    assert midp.utility_client(s_c, d, 1 / n) == pytest.approx(utility, rel=5e-10)


def test_gaussian_channel_example_and_vectorisation() -> None:
    """σ = 1/√(1000·expm1(0.01)) = 0.315437526828918134 (mpmath, 30 digits) at ε = 5, d = 1000; arrays broadcast."""
    assert midp.server_sigma_equal(5, 1000) == pytest.approx(0.31543752682891, rel=1e-13)
    grid = midp.server_sigma(np.array([[1.0], [5.0]]), np.array([10, 1000]), C=1.0, p_max=1.0)
    assert isinstance(grid, np.ndarray) and grid.shape == (2, 2)
    assert grid[1, 1] == pytest.approx(0.31543752682891, rel=1e-13)
    assert isinstance(midp.server_sigma(5, 1000), float)


def test_pmidp_reference_example() -> None:
    """Three-client example d=10, C=(1,2,4), ε=(1,2,5): α, p* ∝ 1/α, σ = α/√3, U* = (Σ1/α)²/d (hand, 6 digits)."""
    plan = midp.personalized([1, 2, 5], [1, 2, 4], 10)
    np.testing.assert_allclose(plan.alpha, [0.672061, 0.901830, 0.964968], rtol=2e-6)
    np.testing.assert_allclose(plan.weights, [0.409554, 0.305208, 0.285238], rtol=2e-6)
    np.testing.assert_allclose(plan.sigma, [0.388014, 0.520672, 0.557124], rtol=2e-6)
    assert plan.utility == pytest.approx(1.319957, rel=1e-6)


def _mp_server_sigma(eps: float, d: float, c: float, p: float) -> mpmath.mpf:
    with mpmath.workdps(50):
        e, dd = mpmath.mpf(eps), mpmath.mpf(d)
        return mpmath.mpf(c) * mpmath.mpf(p) / mpmath.sqrt(dd * mpmath.expm1(2 * e / dd))


@pytest.mark.parametrize("d", [1, 1e3, 1e6, 1e9, 1e12])
@pytest.mark.parametrize("eps_over_d", [1e-15, 1e-9, 1e-3, 1.0, 50.0])
def test_precision_extremes(d: float, eps_over_d: float) -> None:
    """d up to 1e12 and ε/d down to 1e-15 agree with mpmath (50 digits) to <= 1e-12 relative."""
    eps = eps_over_d * d
    got = midp.server_sigma(eps, d, C=3.0, p_max=0.25)
    want = _mp_server_sigma(eps, d, 3.0, 0.25)
    assert abs(got - float(want)) <= 1e-12 * float(want)
    back = midp.server_leakage(got, d, C=3.0, p_max=0.25)
    assert back == pytest.approx(eps, rel=1e-12)
    u = midp.utility_at_budget(eps, d, C=3.0, p_max=0.25)
    with mpmath.workdps(50):
        u_mp = mpmath.expm1(2 * mpmath.mpf(eps) / mpmath.mpf(d)) / mpmath.mpf(9 * 0.0625)
    assert abs(u - float(u_mp)) <= 1e-12 * float(u_mp)


def test_naive_formula_loses_digits_where_expm1_does_not() -> None:
    """The reason for expm1: at d = 1e12 the naive exp(2ε/d) − 1 is off by ~1e-5 relative at ε/d = 1e-12."""
    d, eps = 1e12, 1.0
    naive = 1.0 / math.sqrt(d * (math.exp(2 * eps / d) - 1.0))
    exact = float(_mp_server_sigma(eps, d, 1.0, 1.0))
    assert abs(naive - exact) / exact > 1e-6
    assert 0 <= (midp.server_sigma(eps, d) - exact) / exact < 1e-13  # safe side, within the outward SAFE_UP


def test_units_bits() -> None:
    assert midp.server_sigma(1.0, 100, units="bits") == pytest.approx(midp.server_sigma(math.log(2), 100))
    s = midp.server_sigma(3.0, 50, C=2.0, p_max=0.5, units="bits")
    assert midp.server_leakage(s, 50, C=2.0, p_max=0.5, units="bits") == pytest.approx(3.0, rel=1e-13)


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(1e-3, 1e3), d=st.integers(1, 10**9), c=st.floats(1e-2, 1e2), p=st.floats(0.01, 1.0))
def test_sigma_decreasing_in_eps_and_increasing_in_c(eps: float, d: int, c: float, p: float) -> None:
    assume(eps / d < 300)  # beyond, σ ~ e^{-ε/d} underflows float64 and the library raises (tested below)
    s = midp.server_sigma(eps, d, C=c, p_max=p)
    assert midp.server_sigma(eps * 1.01, d, C=c, p_max=p) < s
    assert midp.server_sigma(eps, d, C=c * 1.01, p_max=p) > s
    assert midp.server_leakage(s, d, C=c, p_max=p) == pytest.approx(eps, rel=1e-11)


@settings(max_examples=60, deadline=None)
@given(weights=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), eps=st.floats(1e-2, 1e2),
       d=st.integers(1, 10**6))
def test_theorem2_ldp_equals_cdp_for_any_weights(weights: list[float], eps: float, d: int) -> None:
    p = np.asarray(weights) / np.sum(weights)
    p_max, sum_p2 = midp.weight_stats(p)
    s_s = midp.server_sigma(eps, d, C=1.5, p_max=p_max)
    s_c = midp.client_sigma(eps, d, C=1.5, p_max=p_max, sum_p2=sum_p2)
    u_cdp, u_ldp = midp.utility_server(s_s, d), midp.utility_client(s_c, d, sum_p2)
    assert u_ldp == pytest.approx(u_cdp, rel=1e-12)
    assert u_cdp == pytest.approx(midp.utility_at_budget(eps, d, C=1.5, p_max=p_max), rel=1e-12)
    # (4.10): client-side σ is at least σ_s·√N-fold... max p/√Σp² >= 1/√N, equality iff equal weights
    assert p_max / math.sqrt(sum_p2) >= 1 / math.sqrt(len(p)) - 1e-12


@settings(max_examples=40, deadline=None)
@given(eps=st.lists(st.floats(0.05, 20), min_size=2, max_size=10), d=st.integers(1, 10**5), data=st.data())
def test_corollary2_properties(eps: list[float], d: int, data: st.DataObject) -> None:
    cs = data.draw(st.lists(st.floats(0.1, 10), min_size=len(eps), max_size=len(eps)))
    plan = midp.personalized(eps, cs, d)
    # Σ σ_k²/α_k² = 1 (the optimal set of (5.30))
    assert float(np.sum(plan.sigma**2 / plan.alpha**2)) == pytest.approx(1.0, rel=1e-12)
    # every client's leakage bound equals its own budget at Corollary 2
    leak = midp.personalized_leakage(plan.weights, plan.sigma, cs, d)
    np.testing.assert_allclose(leak, eps, rtol=1e-9)
    # U* at the plan equals 1/(dΣp²σ²) and beats both baselines
    u_direct = 1.0 / (d * float(np.sum(plan.weights**2 * plan.sigma**2)))
    assert plan.utility == pytest.approx(u_direct, rel=1e-12)
    assert plan.utility >= plan.baseline_utility * (1 - 1e-12)
    n = len(eps)
    assert plan.baseline_utility == pytest.approx(
        midp.utility_server(plan.baseline_sigma_server, d), rel=1e-12)
    assert plan.baseline_utility == pytest.approx(
        midp.utility_client(plan.baseline_sigma_client, d, 1.0 / n), rel=1e-12)


def test_product_form_equals_stable_form_and_overflows_for_large_n() -> None:
    rng = np.random.default_rng(7)
    a = rng.uniform(0.2, 5.0, 6)
    assert midp.optimal_utility_product_form(a, 10) == pytest.approx(midp.optimal_utility(a, 10), rel=1e-12)
    big = np.full(400, 1e-3)  # Π α underflows to 0 in float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(DomainError):
            midp.optimal_utility_product_form(big, 10)
    assert midp.optimal_utility(big, 10) == pytest.approx((400 / 1e-3) ** 2 / 10, rel=1e-12)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_theorem3_against_slsqp(n: int) -> None:
    """Theorem 3's U* and p* equal SLSQP's optimum of (5.26) from 30 seeded random starts (rtol 1e-6, p atol 1e-6).

    The optimiser is the one ``dpcalc verify`` uses (dpcalc.checks.midp.slsqp_5_26), here with more starts.
    """
    rng = np.random.default_rng(100 + n)
    eps, cs, d = rng.uniform(0.5, 5, n), rng.uniform(0.5, 3, n), 20
    a = np.asarray(midp.alpha(eps, d, C=cs))
    u, p = slsqp_5_26(a, d, rng, starts=30)
    assert u == pytest.approx(midp.optimal_utility(a, d), rel=1e-6)
    assert p == pytest.approx(midp.optimal_weights(a), abs=1e-6)


def test_clip_schedule_matches_closed_form() -> None:
    norms = np.array([2.0, 0.5, 1.5, 3.0])
    sched = midp.clip_schedule(1.0, norms, 0.3)
    c = 1.0
    for t, w in enumerate(norms):
        assert sched[t] == pytest.approx(c)
        c = midp.clip_update(c, w, 0.3)
    assert sched[-1] == pytest.approx(c)
    per_client = midp.clip_schedule(np.array([1.0, 2.0]), np.tile(norms[:, None], (1, 2)), 0.3)
    assert per_client.shape == (5, 2)
    # fixed point: constant norm w attracts C geometrically at rate (1-η)
    long = midp.clip_schedule(5.0, np.full(200, 2.0), 0.1)
    assert long[-1] == pytest.approx(2.0, rel=1e-8)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: midp.server_sigma(-1, 10), r"eps must be a finite number > 0 \(got -1\)"),
        (lambda: midp.server_sigma(0, 10), "eps must be"),
        (lambda: midp.server_sigma(float("nan"), 10), "eps must be finite"),
        (lambda: midp.server_sigma(1, 0), "d must be an integer >= 1"),
        (lambda: midp.server_sigma(1, 2.5), "d must be an integer"),
        (lambda: midp.server_sigma(1, 10, C=0), "C must be"),
        (lambda: midp.server_sigma(1, 10, p_max=1.5), r"p_max must be a finite number in \(0, 1\]"),
        (lambda: midp.server_sigma("abc", 10), "eps must be a number"),
        (lambda: midp.server_sigma([1, -2, 3], 10), "item 2 of the list"),
        (lambda: midp.server_sigma_equal(1, 10, N=0), "N must be an integer >= 1"),
        (lambda: midp.client_sigma(1, 10, C=1, p_max=0.9, sum_p2=0.5), "sum_p2 must be >= p_max"),
        (lambda: midp.weight_stats([0.5, 0.6]), "weights must sum to 1"),
        (lambda: midp.weight_stats([1.2, -0.2]), "weights must be"),
        (lambda: midp.server_sigma(1e6, 1), "underflows"),
        (lambda: midp.server_sigma(1, 10, units="dits"), "units must be"),  # type: ignore[arg-type]
        (lambda: midp.personalized([1, 2], [1, 2, 3], 10), "one entry per client"),
        (lambda: midp.clip_update(1, 1, 1.5), r"eta must be a finite number in \(0, 1\]"),
        (lambda: midp.server_leakage(0, 10), "sigma must be"),
    ],
)
def test_bad_input_raises_one_line_value_error(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match) as info:
        call()
    assert isinstance(info.value, DomainError)
    assert "\n" not in str(info.value)


def test_optimal_weights_no_nan_for_tiny_alpha() -> None:
    """Regression: ``optimal_weights([1e-310, 1.0])`` was ``[nan, 0]`` (1/α overflowed)."""
    w = midp.optimal_weights([1e-310, 1.0])
    assert np.all(np.isfinite(w)) and w[0] == 1.0 and w[1] == pytest.approx(1e-310, rel=1e-6)
    with pytest.raises(DomainError, match="overflows"):
        midp.optimal_utility([1e-310, 1.0], 1)
    assert midp.optimal_utility([1e-150, 1.0], 1) == pytest.approx(1e300, rel=1e-15)


def test_personalized_utility_5_24() -> None:
    u = midp.personalized_utility([0.5, 0.3, 0.2], [0.1, 0.2, 0.3], 10)
    assert u == pytest.approx(1 / (10 * (0.25 * 0.01 + 0.09 * 0.04 + 0.04 * 0.09)), rel=1e-15)
    a = np.array([0.3, 0.7, 1.1])  # at the Theorem-3 optimum (5.24) equals U* (5.29)
    assert midp.personalized_utility(midp.optimal_weights(a), midp.corollary2_sigmas(a), 7) == pytest.approx(
        midp.optimal_utility(a, 7), rel=1e-14)
    assert midp.personalized_utility([1.0, 0.0], [1e-150, 1.0], 1) == pytest.approx(1e300, rel=1e-15)
    with pytest.raises(DomainError, match="too small"):
        midp.personalized_utility([1.0, 0.0], [1e-200, 1.0], 1)


def test_ragged_per_client_bounds_are_one_line() -> None:
    """C = [[1, 2], [3]] reached np.ndim first: NumPy's 'inhomogeneous shape' naming no parameter (library fuzz)."""
    with pytest.raises(DomainError, match=r"^C must be a number \(got \[\[1, 2\], \[3\]\]\)$"):
        midp.baseline_client_sigma([45.3], [[1, 2], [3]], 100.0)
