"""RDP of the (subsampled) Gaussian and RDP → (ε, δ) (dpcalc.accounting.rdp).

Oracles: a 40-digit mpmath quadrature of A_α − 1 (fractional orders) and the exact 40-digit binomial sum (integer
orders), tolerance 1e-12 relative on RDP; dp-accounting as a test-only peer at integer orders (1e-9 relative on a seeded
random grid with q >= 1e-3, where its float64 log A is itself accurate); peers' reference vectors (dp-accounting 0.6.0,
Opacus's and TF-Privacy's tests, autodp 0.2.3.1) to the digits given (or, where a peer's value is biased, the documented
direction of the bias).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcalc.accounting import rdp
from dpcalc.checks import oracles
from dpcalc.errors import DomainError, OutOfDomainWarning

TF_ORDERS = [1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5, *range(5, 64), 128, 256, 512]


# the shared 40-digit oracle (exact binomial sum at integer α, mpmath quadrature at fractional α)
log_a_quad = log_a_int = oracles.rdp_log_a


@pytest.mark.parametrize(("q", "sigma", "alpha"), [
    (0.04, 1.5, 3.9), (0.04, 1.5, 3.5), (0.01, 2.5, 1.5), (0.01, 2.5, 2.5), (0.01, 1.0, 7.8), (0.01, 1.0, 1.01),
    (1e-6, 0.8, 5.5), (0.5, 0.5, 1.3), (0.9, 3.0, 10.9), (0.2, 0.3, 2.2), (1e-3, 20.0, 60.5), (0.05, 1.1, 1.1),
])
def test_fractional_orders_match_mpmath_quadrature(q: float, sigma: float, alpha: float) -> None:
    """Fractional α: RDP agrees with the 40-digit mpmath quadrature oracle to 1e-12 relative."""
    want = float(log_a_quad(q, sigma, alpha)) / (alpha - 1)
    assert rdp.sampled_gaussian(q, sigma, alpha) == pytest.approx(want, rel=1e-12)


def test_integer_orders_match_exact_sum_at_tiny_q() -> None:
    """Integer α at q = 1e-7..1e-4 (where log A ≈ 1e-14): 1e-12 relative to the exact 40-digit sum (A − 1 is
    summed directly, so tiny q loses nothing)."""
    for q, sigma, alpha in [(1e-7, 1.0, 2), (1e-5, 0.7, 32), (1e-4, 5.0, 256), (3e-6, 2.0, 1024)]:
        want = float(log_a_int(q, sigma, alpha)) / (alpha - 1)
        assert rdp.sampled_gaussian(q, sigma, alpha) == pytest.approx(want, rel=1e-12)


def test_integer_orders_agree_with_dp_accounting_on_random_grid() -> None:
    """dp-accounting 0.6.0 integer orders on 150 seeded points (q in [1e-3, 0.99], σ in [0.3, 50], α in 2..256):
    1e-9 relative."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as ra

    rng = np.random.default_rng(7)
    for _ in range(150):
        q = float(np.exp(rng.uniform(np.log(1e-3), np.log(0.99))))
        sigma = float(np.exp(rng.uniform(np.log(0.3), np.log(50))))
        alpha = int(rng.integers(2, 257))
        theirs = float(ra._compute_rdp_poisson_subsampled_gaussian(q, sigma, [alpha])[0])
        assert rdp.sampled_gaussian(q, sigma, alpha) == pytest.approx(theirs, rel=1e-9)


def test_exact_log_a_values() -> None:
    """Exact log A at (q = 0.04, σ = 1.5) for α = 3.9, 4.0, 3.5 (mpmath quadrature; dp-accounting 0.6.0 is off at the
    fractional orders), to 1e-14 relative."""
    for alpha, log_a in [(3.9, 0.0053162863787931897766), (4.0, 0.0056560201933373390411),
                         (3.5, 0.004068948540108226588)]:
        assert rdp.sampled_gaussian(0.04, 1.5, alpha) * (alpha - 1) == pytest.approx(log_a, rel=1e-14)


def test_subsampled_eps_vectors() -> None:
    """Exact-RDP ε (mpmath quadrature of A_α at 30 digits, Opacus orders): q=0.01, σ=1, T=1000, δ=1e-5 →
    2.101365271648395 at α = 7.8; Opacus test (σ=1.5, q=0.04, T=2250) → 7.329111171484174 at α = 3.9; 1e-13 relative."""
    eps, order = rdp.eps_subsampled_gaussian(0.01, 1.0, 1000, 1e-5, orders=rdp.OPACUS_ORDERS)
    assert (eps, order) == (pytest.approx(2.101365271648395, rel=1e-13), 7.8)
    eps, order = rdp.eps_subsampled_gaussian(0.04, 1.5, 2250, 1e-5, orders=rdp.OPACUS_ORDERS)
    assert (eps, order) == (pytest.approx(7.329111171484174, rel=1e-13), 3.9)
    assert round(eps, 7) == round(7.32911117143, 7)  # Opacus asserts 7 places


@pytest.mark.parametrize(("n", "batch", "sigma", "epochs", "delta", "want", "order"), [
    (60000, 150, 1.3, 15, 1e-5, 0.7242234026106222, 19.0),
    (1e5, 100, 1.0, 30, 1e-7, 1.4154988495445144, 13.0),
])
def test_tf_privacy_cli_vectors(n, batch, sigma, epochs, delta, want, order) -> None:  # type: ignore[no-untyped-def]
    """TF-Privacy compute_dp_sgd_privacy test vectors (its test file; integer optimal orders): 1e-12 relative."""
    q, steps = batch / n, math.ceil(epochs * n / batch)
    eps, got_order = rdp.eps_subsampled_gaussian(q, sigma, steps, delta, orders=TF_ORDERS)
    assert eps == pytest.approx(want, rel=1e-12)
    assert got_order == order


def test_tf_extreme_vector_warns_at_grid_edge() -> None:
    """(1e8, 1024, σ = 0.1, 10 epochs, δ = 1e-7) → 5907982.3113978775 at order 1.25 (1e-11 relative; fractional
    order, huge RDP) with an edge-of-grid warning, as TF-Privacy's CLI warns."""
    q, steps = 1024 / 1e8, math.ceil(10 * 1e8 / 1024)
    with pytest.warns(OutOfDomainWarning, match="smallest order"):
        eps, order = rdp.eps_subsampled_gaussian(q, 0.1, steps, 1e-7, orders=TF_ORDERS)
    assert eps == pytest.approx(5907982.3113978775, rel=1e-11)
    assert order == 1.25


def test_dp_accounting_hard_coded_vector() -> None:
    """dp-accounting's test vector (q=0.01, σ=2.5, 50 steps): integer orders 5, 50, 100 agree to its 9 digits;
    at fractional 1.5 and 2.5 its values (6.70579741e-4, 1.08548710e-3) are over-estimates of the exact ones
    (mpmath quadrature), which we reproduce to 1e-12."""
    got = rdp.subsampled_gaussian_curve(0.01, 2.5, 50, [1.5, 2.5, 5, 50, 100])
    assert got[2:] == pytest.approx([2.18075656e-03, 2.38460375e-02, 1.67416308e02], rel=1e-8)
    for i, alpha in enumerate([1.5, 2.5]):
        exact = 50 * float(log_a_quad(0.01, 2.5, alpha)) / (alpha - 1)
        assert got[i] == pytest.approx(exact, rel=1e-12)
    assert got[0] < 6.70579741e-04 and got[1] < 1.08548710e-03
    assert 6.70579741e-04 / got[0] - 1 > 0.03  # dp-accounting 0.6.0's absolute-value series: +3.2 % at α = 1.5


def test_gaussian_rdp_conversions() -> None:
    """dp-accounting 0.6.0 RdpAccountant (σ = 1, δ = 1e-5): default grid → 4.728507067217623 at α = 5.4; 6300-order
    linspace → 4.728387387137021; δ at ε = 1 on the default grid 0.24703451231409326; all 1e-13 relative."""
    grid = rdp.orders_array(None)
    assert rdp.eps_from_curve(grid, rdp.gaussian(grid, 1.0), 1e-5) == (pytest.approx(4.728507067217623, rel=1e-13),
                                                                       5.4)
    fine = np.linspace(1.01, 64, 6300)
    assert rdp.eps_from_curve(fine, rdp.gaussian(fine, 1.0), 1e-5)[0] == pytest.approx(4.728387387137021, rel=1e-13)
    assert rdp.delta_from_curve(grid, rdp.gaussian(grid, 1.0), 1.0)[0] == pytest.approx(0.24703451231409326,
                                                                                        rel=1e-13)
    # classic (Lemma 1) on a fine grid approaches the closed form 1/2 + √(2 ln 1e5) = 5.298525912188081 from above
    e1 = rdp.eps_from_curve(fine, rdp.gaussian(fine, 1.0), 1e-5, method="lemma1")[0]
    assert 5.298525912188081 <= e1 <= 5.298525912188081 + 1e-5


def test_dp_accounting_scaling_vectors_are_upper_by_its_fractional_bias() -> None:
    """q = 0.01, σ = 1, δ = 1e-5 at T = 100, 1e4, 1e5 (dp-accounting 0.6.0 RDP, default orders): ours is <= theirs and
    within 3e-4 relative; the T = 1e5 gap (2.2e-4) is dp-accounting's bias at α = 2.1, confirmed by the mpmath oracle
    (1e-12)."""
    for steps, theirs in [(100, 1.2141452944480204), (10000, 6.712756664482653), (100000, 27.237904933772548)]:
        eps, order = rdp.eps_subsampled_gaussian(0.01, 1.0, steps, 1e-5)
        assert eps <= theirs and eps == pytest.approx(theirs, rel=3e-4)
    eps, order = rdp.eps_subsampled_gaussian(0.01, 1.0, 100000, 1e-5)
    r = 100000 * float(log_a_quad(0.01, 1.0, order)) / (order - 1)
    assert eps == pytest.approx(float(rdp.eps_improved(r, order, 1e-5)), rel=1e-12)
    mnist, _ = rdp.eps_subsampled_gaussian(256 / 60000, 1.1, 14062, 1e-5)
    assert mnist == pytest.approx(2.5965558697943036, rel=1e-9)


def test_q_one_is_the_gaussian() -> None:
    """q = 1 gives α/(2σ²) at integer and fractional orders (exact)."""
    a = np.array([1.5, 2.0, 7.3, 64.0])
    assert rdp.sampled_gaussian(1.0, 1.3, a) == pytest.approx(a / (2 * 1.3**2), rel=1e-15)


def test_edge_of_grid_warning_only_at_edges() -> None:
    """OutOfDomainWarning when the optimum is the grid's largest/smallest order; none in the interior."""
    with pytest.warns(OutOfDomainWarning, match="largest order"):
        rdp.eps_subsampled_gaussian(0.01, 10.0, 10, 1e-5, orders=[2, 3, 4])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rdp.eps_subsampled_gaussian(0.01, 1.0, 1000, 1e-5)


def test_improved_never_above_lemma1() -> None:
    """Balle et al. 2020's ε <= Mironov's at every order (difference log(1−1/α) − log α/(α−1) < 0)."""
    r = np.exp(np.linspace(-8, 4, 50))
    for a in [1.01, 1.5, 3, 32, 1000]:
        assert np.all(rdp.eps_improved(r, a, 1e-6) <= rdp.eps_lemma1(r, a, 1e-6))


def test_extreme_parameters_stay_finite() -> None:
    """σ = 0.1, q = 0.5, α up to 1024 and σ = 1e4: finite values (no NaN/inf, no overflow)."""
    vals = rdp.subsampled_gaussian_curve(0.5, 0.1, 1)
    assert np.all(np.isfinite(vals)) and np.all(vals > 0)
    tiny = rdp.subsampled_gaussian_curve(0.5, 1e4, 1)
    assert np.all(np.isfinite(tiny)) and np.all(tiny > 0)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"alpha": 1.0, "q": 0.1, "sigma": 1.0}, "alpha"), ({"alpha": 2, "q": 0.0, "sigma": 1.0}, "q"),
    ({"alpha": 2, "q": 1.5, "sigma": 1.0}, "q"), ({"alpha": 2, "q": 0.1, "sigma": -1.0}, "sigma"),
    ({"alpha": float("nan"), "q": 0.1, "sigma": 1.0}, "alpha"),
])
def test_bad_input(kwargs, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match):
        rdp.sampled_gaussian(**kwargs)


def test_conventions_order_and_no_legacy_name() -> None:
    """sampled_gaussian(q, sigma, alpha) is the conventions order (docs/conventions.md §1), e.g. at α = 97.25, q = 0.9,
    σ = 20 (a library-fuzz reproducer); the pre-conventions subsampled_gaussian(alpha, q, sigma) is gone (0.x)."""
    want = 0.10051913832930419
    assert rdp.sampled_gaussian(0.9, 20.0, 97.25) == pytest.approx(want, rel=1e-12)
    assert rdp.sampled_gaussian(alpha=97.25, q=0.9, sigma=20.0) == rdp.sampled_gaussian(0.9, 20.0, 97.25)
    assert not hasattr(rdp, "subsampled_gaussian")


def test_bad_conversion_input() -> None:
    with pytest.raises(DomainError, match="delta"):
        rdp.eps_from_curve([2, 3], [0.1, 0.2], 1.0)
    with pytest.raises(DomainError, match="orders"):
        rdp.eps_subsampled_gaussian(0.1, 1.0, 10, 1e-5, orders=[0.5, 2])
    with pytest.raises(DomainError, match="one value per order"):
        rdp.eps_from_curve([2, 3], [0.1], 1e-5)
    with pytest.raises(DomainError, match="steps"):
        rdp.subsampled_gaussian_curve(0.1, 1.0, 2.5)


def test_composition_adds() -> None:
    """Composition = sum; T steps = T × one step."""
    one = rdp.subsampled_gaussian_curve(0.02, 1.2, 1)
    assert rdp.compose([one, one, one]) == pytest.approx(rdp.subsampled_gaussian_curve(0.02, 1.2, 3), rel=1e-15)


@settings(max_examples=30, deadline=None)
@given(q=st.floats(1e-4, 0.9), sigma=st.floats(0.4, 20), a=st.floats(1.05, 40), k=st.floats(1.01, 1.5))
def test_monotone_in_order_q_and_sigma(q: float, sigma: float, a: float, k: float) -> None:
    """RDP is non-decreasing in α and q, non-increasing in σ (relative slack 1e-12)."""
    base = rdp.sampled_gaussian(q, sigma, a)
    assert rdp.sampled_gaussian(q, sigma, a * k) >= base * (1 - 1e-12)
    assert rdp.sampled_gaussian(min(q * k, 1.0), sigma, a) >= base * (1 - 1e-12)
    assert rdp.sampled_gaussian(q, sigma * k, a) <= base * (1 + 1e-12)


def test_where_dp_accounting_series_fails() -> None:
    """q = 0.5, σ = 0.5, 1000 steps, δ = 1e-5: dp-accounting 0.6.0's fractional series fails for α = 1.1..1.6 and
    (dropping them) returns 1960.4; the exact RDP at α = 1.1 (mpmath quadrature, 1e-12) gives ε = 904.41, at the
    grid's edge (warned)."""
    with pytest.warns(OutOfDomainWarning, match="smallest order"):
        eps, order = rdp.eps_subsampled_gaussian(0.5, 0.5, 1000, 1e-5)
    assert order == 1.1
    r = 1000 * float(log_a_quad(0.5, 0.5, 1.1, dps=30)) / 0.1
    assert eps == pytest.approx(float(rdp.eps_improved(r, 1.1, 1e-5)), rel=1e-12)
    assert eps == pytest.approx(904.410037150381, rel=1e-12)


def test_tiny_sigma_fractional_orders_use_a_valid_upper_bound() -> None:
    """σ = 0.02 (quadrature grid too fine): fractional orders return the chord bound of the log-convex log A_α,
    which is >= the exact value (mpmath quadrature, 30 digits) and equals it at integer orders; fast and finite."""
    for alpha in (1.5, 2.5):
        exact = float(log_a_quad(0.1, 0.02, alpha, dps=30)) / (alpha - 1)
        got = rdp.sampled_gaussian(0.1, 0.02, alpha)
        assert math.isfinite(got) and got >= exact * (1 - 1e-12)
    assert rdp.sampled_gaussian(0.1, 0.02, 3.0) == pytest.approx(float(log_a_int(0.1, 0.02, 3)) / 2, rel=1e-12)
    assert np.all(np.isfinite(rdp.subsampled_gaussian_curve(0.5, 1e-3, 10)))


def test_integer_order_log_binomials_exact() -> None:
    """Found by a deep domain sweep: gammaln differences left the integer-order RDP up to 1.6e-12 below the 40-digit
    binomial sum at α = 904 (q = 9.8e-7, σ = 91.04), and an RDP calibration (ε = 0.16454, δ = 3.83e-7, q = 0.502,
    T = 493) 6e-15 above its target in exact arithmetic at the accountant's order 128. log C(α, k) now comes from exact
    integers: within 1e-14 of the oracle, and the calibration safe in exact arithmetic."""
    from dpcalc.accounting import schedule

    q, s, a = 9.811023181133224e-07, 91.0379133618549, 904.0
    ref = float(oracles.subsampled_rdp(a, q, s))
    assert rdp.sampled_gaussian(q, s, a) == pytest.approx(ref, rel=1e-14)
    p = {"eps": 0.1645394801543383, "delta": 3.8346173718793143e-07, "q": 0.502184486108214, "steps": 493.0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sigma = schedule.sigma_for_eps(p["eps"], p["delta"], p["q"], p["steps"], accountant="rdp")
        order = schedule.result(sigma, p["q"], p["steps"], p["delta"]).details["order"]
    assert oracles.rdp_eps(p["q"], sigma, p["steps"], p["delta"], order, dps=30) <= p["eps"]
