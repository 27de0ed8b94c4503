"""Distributed discrete Gaussian and Skellam (dpcalc.distributed): the RDP bounds against the exact divergences of
the aggregate noise, the Gaussian limit, the rounding and modular-clipping terms by seeded Monte Carlo, ε over rounds
with Poisson sampling, the calibrations (safe side), the connection with the noise secure aggregation already
carries (Zhang et al. 2024), and the one-line errors.

Tolerances: exact divergences are numerical to ~1e-12 relative (a bound "holds" when bound >= exact·(1 − 1e-9));
Monte Carlo estimates use seeded NumPy generators and 99.9 % normal intervals; calibrations are checked on the safe
side (ε(σ) <= target) and to 1e-6 relative from above.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from dpcalc import distributed as dd
from dpcalc.accounting import rdp
from dpcalc.distributed.exact import rdp_exact
from dpcalc.errors import DomainError, InfeasibleError, OutOfDomainWarning

# --- the bounds against exact divergences ----------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.5, 0.8, 1.0, 2.0])
def test_ddg_bound_holds_above_sigma_one_half(sigma: float) -> None:
    worst = 0.0
    for n in (1, 2, 5, 20):
        for shift in (1, 3, 10):
            for alpha in (1.5, 2.0, 8.0, 32.0):
                exact = rdp_exact(alpha, [shift], "ddg", sigma=sigma, n=n)
                bound = dd.ddg_rdp(alpha, shift, sigma, n, 1, shift)
                assert exact <= bound * (1 + 1e-9), (sigma, n, shift, alpha, exact, bound)
                worst = max(worst, exact / bound)
    assert worst > 0.99  # tight at large noise (the sum is nearly one discrete Gaussian)


def test_ddg_bound_fails_for_tiny_sigma() -> None:
    """Below the proposition's hypothesis the bound is not valid: our exact sum exceeds it (and it warns)."""
    exact = rdp_exact(16.0, [1], "ddg", sigma=0.15, n=2)
    with pytest.warns(OutOfDomainWarning, match="sigma >= 1/2"):
        bound = dd.ddg_rdp(16.0, 1.0, 0.15, 2, 1, 1.0)
    assert exact == pytest.approx(187.5012107796, rel=1e-9) and bound == pytest.approx(185.786402041, rel=1e-9)


def test_ddg_single_client_is_the_discrete_gaussian() -> None:
    """n = 1: the exact sum is one discrete Gaussian; dpcalc's event formula (Canonne, Kamath & Steinke 2020) is
    an independent computation of the same divergence."""
    from dpcalc.accounting.events.mechanisms.discrete_gaussian import discrete_gaussian_rdp

    for alpha, sigma, shift in [(2.5, 0.7, 1), (4.0, 1.3, 3), (9.0, 2.0, 2)]:
        assert rdp_exact(alpha, [shift], "ddg", sigma=sigma, n=1) == pytest.approx(
            discrete_gaussian_rdp(alpha, sigma, shift), rel=1e-9)


def test_skellam_bound_and_exact() -> None:
    worst = 0.0
    for var in (1.0, 2.0, 6.0, 20.0, 100.0):
        for shift in (1, 2, 5):
            for alpha in (1.1, 1.5, 2.0, 3.0, 4.5, 8.0, 32.0):
                exact = rdp_exact(alpha, [shift], "skellam", variance=var)
                bound = dd.skellam_rdp(alpha, shift, var, shift)
                assert exact <= bound * (1 + 1e-9), (var, shift, alpha)
                worst = max(worst, exact / bound)
    assert worst > 0.95
    # the exact pmf against SciPy's Skellam (an independent implementation), in its body
    from dpcalc.distributed.exact import skellam_logpmf

    k = np.arange(-20, 21)
    assert np.allclose(skellam_logpmf(6.0, 20), stats.skellam.logpmf(k, 3.0, 3.0), rtol=1e-10, atol=0)


def test_multidimensional_shift_is_the_sum() -> None:
    assert rdp_exact(3.0, [2, 1], "ddg", sigma=1.0, n=3) == pytest.approx(
        rdp_exact(3.0, [2], "ddg", sigma=1.0, n=3) + rdp_exact(3.0, [1], "ddg", sigma=1.0, n=3), rel=1e-12)
    # the bound for (Δ₂, Δ₁) of that vector covers it
    assert rdp_exact(3.0, [2, 1], "ddg", sigma=1.0, n=3) <= dd.ddg_rdp(3.0, math.sqrt(5.0), 1.0, 3, 2, 3.0)


def test_forms_are_ordered() -> None:
    a = np.array([1.5, 2.0, 8.0, 64.0])
    prop = dd.ddg_rdp(a, 40.0, 0.6, 50, 4096, 1000.0)
    two = dd.ddg_rdp(a, 40.0, 0.6, 50, 4096, 1000.0, form="two_term")
    zcdp = dd.ddg_rdp(a, 40.0, 0.6, 50, 4096, 1000.0, form="zcdp")
    assert np.all(prop <= two) and np.all(two <= zcdp * (1 + 1e-15))
    assert dd.ddg_zcdp_rho(40.0, 0.6, 50, 4096) * 2.0 == pytest.approx(float(zcdp[1]), rel=1e-14)


def test_gaussian_limit() -> None:
    """Large noise on a fine grid (τ → 0, no rounding): the distributed discrete Gaussian is the Gaussian mechanism
    with noise multiplier σ√n/c, with and without Poisson sampling (to the general amplification bound)."""
    p = dd.Pipeline("ddg", c=1.0, sigma=0.25, gamma=1e-5, n=100, d=1000, rounding=False)
    z = 0.25 * 10
    orders = np.array(rdp.DEFAULT_ORDERS)
    assert np.allclose(dd.rdp_curve(p, orders), rdp.gaussian(orders, z), rtol=1e-12)
    assert dd.epsilon(p, 1e-5).eps == pytest.approx(rdp.eps_from_curve(orders, rdp.gaussian(orders, z), 1e-5)[0],
                                                    rel=1e-12)
    sampled = dd.Pipeline("ddg", c=1.0, sigma=0.25, gamma=1e-5, n=100, d=1000, q=0.1, rounds=2000, rounding=False)
    ours = dd.epsilon(sampled, 1e-5).eps
    exact_gaussian = rdp.eps_subsampled_gaussian(0.1, z, 2000, 1e-5)[0]
    assert exact_gaussian < ours < 1.5 * exact_gaussian  # 13.30 against 9.97: the price of the general bound
    assert ours == pytest.approx(13.2985078, rel=1e-6)


# --- rounding and modular clipping by Monte Carlo ---------------------------------------------------------------------


def test_rounding_failure_probability_mc() -> None:
    """Unconditional randomized rounding of a worst-variance input (every coordinate at a half-integer): the
    fraction of roundings with ‖x̃‖₂ > Δ₂ is at most β (99.9 % interval), and Δ₂ is not far above the
    quantile (the bound is informative)."""
    rng = np.random.default_rng(11)
    for c, d, beta in [(20.0, 64, 0.05), (3.0, 16, 0.3), (100.0, 1024, 0.01)]:
        x = np.full(d, math.floor(c / math.sqrt(d) - 0.5) + 0.5)
        bound = dd.rounded_l2_bound(c, d, beta)
        n = 20000
        norms = np.linalg.norm(np.floor(x) + (rng.random((n, d)) < 0.5), axis=1)
        p = float(np.mean(norms > bound))
        assert p - 3.29 * math.sqrt(max(p * (1 - p), 1e-12) / n) <= beta
        assert np.quantile(norms, 1 - beta) > 0.6 * bound


def test_modular_failure_bound_mc() -> None:
    """The pipeline simulated (aligned updates, sign flip + Hadamard, rounding, discrete Gaussian noise, integer sum):
    the wrap-around frequency stays below the bound, which is within a factor 30 of it here."""
    from dpcalc.checks.distributed import _wrap_terms

    rng = np.random.default_rng(5)
    args = dict(bits=5, c=0.05, gamma=1.0, sigma=1.0, n=20, d=2, beta=0.0)
    wraps = np.concatenate([_wrap_terms(rng, 20000, **args) for _ in range(5)])
    p = float(wraps.mean())
    bound = dd.modular_failure_bound(5, 0.05, 1.0, 1.0, 20, 2, beta=0.0)
    assert p <= bound and bound < 30 * p
    # conditional rounding (β > 0) simulated too: still below its bound (the bias term nβ/(1 − β))
    args_b = dict(args, beta=0.3, c=1.0, gamma=0.05, sigma=0.05, bits=7)
    p_b = float(np.concatenate([_wrap_terms(rng, 20000, **args_b) for _ in range(2)]).mean())
    assert p_b <= dd.modular_failure_bound(7, 1.0, 0.05, 0.05, 20, 2, beta=0.3)


def test_skellam_tail_is_heavier_than_gaussian() -> None:
    """Same variance: the Skellam sum's Chernoff bound is never below the Gaussian one (cosh λ − 1 >= λ²/2)."""
    for bits in (10, 12, 14):
        g = dd.modular_failure_bound(bits, 1.0, 0.01, 0.05, 50, 1024)
        s = dd.modular_failure_bound(bits, 1.0, 0.01, 0.05, 50, 1024, "skellam")
        assert s >= g


# --- calibration ------------------------------------------------------------------------------------------------------


def _fl(mechanism: str) -> dd.Pipeline:
    terms = dd.training_terms(1000, 100, 2000)
    return dd.Pipeline(mechanism, c=1.0, sigma=1.0, gamma=1e-3, n=terms["n"], d=4096, q=terms["q"],
                       rounds=terms["rounds"])


@pytest.mark.parametrize("mechanism", ["ddg", "skellam"])
def test_calibrate_sigma_safe_side(mechanism: str) -> None:
    from dataclasses import replace

    p = _fl(mechanism)
    sig = dd.calibrate_sigma(p, 8.0, 1e-5)
    assert dd.epsilon(replace(p, sigma=sig), 1e-5).eps <= 8.0
    assert dd.epsilon(replace(p, sigma=sig * (1 - 1e-6)), 1e-5).eps > 8.0 * (1 - 1e-5)


@pytest.mark.slow
def test_calibrate_for_bits() -> None:
    p = _fl("ddg")
    cal = dd.calibrate_for_bits(p, 8.0, 1e-5, 16)
    assert cal.eps <= 8.0
    need = dd.scale_for_bits(16, 1.0, cal.sigma, 100, 4096)
    assert need <= cal.gamma * (1 + 1e-6)
    strict = dd.calibrate_for_bits(p, 8.0, 1e-5, 16, failure=1e-6)
    assert strict.modular_failure <= 1e-6 and strict.gamma > cal.gamma and strict.sigma >= cal.sigma
    with pytest.raises(DomainError, match="bits = 8 is too small for the noise"):
        dd.calibrate_for_bits(p, 8.0, 1e-5, 8)


def test_epsilon_decreases_with_bits() -> None:
    eps = dd.epsilon_for_bits([10, 12, 14, 16, 20], "ddg", 1.0, 0.3, 100, 4096, 1e-5, q=0.1, rounds=100)
    assert np.all(np.diff(eps) <= 1e-9)
    assert eps[0] > 1.05 * eps[-1]


# --- the secure-aggregation connection --------------------------------------------------------------------------------


def test_continuous_noise_is_table1_gsgd_row() -> None:
    """With no inherent noise (S = 0) the added isotropic Gaussian noise alone is Table 1's GSGD + isotropic row;
    inherent noise only lowers the bound."""
    from dpcalc.distributed.secagg_link import continuous_added_noise_rdp
    from dpcalc.secagg import table1_rdp

    a = np.array([1.5, 2.0, 4.0])
    row = table1_rdp("gsgd_iso", a, N=50, sigma2=0.01, B=32, C=10.0, D=1200)
    ours = continuous_added_noise_rdp(a, 0.0, 32, 10.0, 1200, 0.01, 50, normalization="sec5")
    assert np.allclose(ours, row, rtol=1e-12)
    more = continuous_added_noise_rdp(a, 0.2, 32, 10.0, 1200, 0.01, 50, normalization="sec5")
    assert np.all(more < ours)


def test_discrete_pipeline_takes_the_better_bound() -> None:
    from dpcalc.distributed.secagg_link import discrete_pipeline_rdp
    from dpcalc.secagg import theorem2_rdp

    p = dd.Pipeline("ddg", c=1.0, sigma=0.1, gamma=1e-3, n=100, d=1000)
    a = np.array([2.0, 8.0, 6000.0])  # Theorem 2 holds for α < D·S/C² = 5000
    got = discrete_pipeline_rdp(a, p, 5.0, 32, 1.0, 1000, normalization="sec4")
    own = theorem2_rdp(a, 5.0, 32, 1.0, 1000, normalization="sec4")
    from dataclasses import replace

    added = replace(p, relation="replace_one").round_rdp(a)
    assert np.allclose(got, np.minimum(own, added), rtol=0)
    assert np.isinf(own[-1]) and np.isfinite(got[-1])  # beyond Theorem 2's orders the added noise still counts


# --- errors -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "match"), [
    (lambda: dd.scale_for_bits(4, 1.0, 0.1, 100, 1000), "bits = 4 is too small for the noise"),
    (lambda: dd.scale_for_bits(63, 1.0, 0.1, 100, 1000), "bits must be an integer in"),
    (lambda: dd.min_bits(1.0, 1e-30, 0.1, 100, 1000), "modulus overflow"),
    (lambda: dd.modular.check_modulus(12, 1.0, 1e-4, 0.1, 100, 1000), "modulus overflow: bits = 12"),
    (lambda: dd.Pipeline("ddg", 1.0, 0.1, 1e-3, 100, 1000, q=0.5, relation="replace_one"), "relation must be"),
    (lambda: dd.Pipeline("gauss", 1.0, 0.1, 1e-3, 100, 1000), "mechanism must be"),
    (lambda: dd.Pipeline("ddg", 1.0, 0.1, 1e-3, 100, 1000, beta=1.0), "beta must be"),
    (lambda: dd.training_terms(10, 100, 5), "clients_per_round must be <= clients"),
    (lambda: dd.rounded_l2_bound(-1.0, 10), "c must be"),
    (lambda: rdp_exact(2.0, [0.5], "ddg", sigma=1.0, n=2), "shift must be an integer"),
])
def test_one_line_errors(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


# Calls the library fuzz found (tests/support/fuzz_library.py), each now a one-line error naming its parameter.
_P = dd.Pipeline("ddg", c=1.0, sigma=0.1, gamma=1e-3, n=100, d=1000, q=0.1, rounds=100)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: dd.rdp_curve(0.5), "^pipeline must be a dpcalc.distributed.Pipeline"),  # AttributeError
    (lambda: dd.epsilon(0.5, 1e-5), "^pipeline must be"),
    (lambda: dd.calibrate_sigma(0.5, 0.5, 1e-5), "^pipeline must be"),
    (lambda: dd.calibrate_for_bits(2.0, 203, 1e-3, 16), "^pipeline must be"),
    (lambda: dd.calibrate_sigma(_P, 7.3, 1e-3, guess=np.array([[2.0], [2.0]])), "^guess must be a scalar"),  # TypeError
    (lambda: dd.calibrate_for_bits(_P, 3.0, 1e-5, 16, failure=[1e-3, 1e-2]), "^failure must be a scalar"),
    (lambda: dd.calibrate_for_bits(_P, 3.0, 1e-5, 16, rho=[1.0, 2.0]), "^rho must be a scalar"),
    (lambda: dd.epsilon_for_bits(10.0, "ddg", np.array([[2.0, 2.0, 2.0]]), 1.0, 9, 43, 1e-3),  # TypeError
     "^c must be a scalar"),
    (lambda: dd.Pipeline("ddg", c=[1.0, 2.0], sigma=0.1, gamma=1e-3, n=100, d=1000), "^c must be a scalar"),
])
def test_fuzz_found_one_line_errors(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_unreachable_eps_names_eps() -> None:
    """The orders' floor log(1/δ)/(α_max − 1) = 1.96 at δ = 1.1e-6, α ≤ 8: ε = 0.57 is out of reach at any σ (the
    message named no parameter)."""
    p = dd.Pipeline("skellam", c=1.0, sigma=0.3, gamma=1e-3, n=100, d=1000)
    with pytest.raises(InfeasibleError, match=r"^eps = 0.5719 is out of reach at delta = 1.1e-06 with these orders"):
        dd.calibrate_sigma(p, 0.5719, 1.1e-6, orders=[2.0, 4.0, 8.0], method="lemma1", guess=10.0)


def test_amplified_curve_of_a_very_private_round_is_not_negative() -> None:
    """At σ = 9.6e6 one round's RDP is ~1e-16 and Poisson amplification (Zhu & Wang 2019, Thm. 6) rounded to
    −1.7e-16 at order 2, which the ε conversion refused naming ``rdp`` (the fuzz: calibrate_sigma with guess = 585
    bracketed up to there); the unsampled bound caps the amplified one and stands in for a rounding-negative value."""
    a = np.array([2.0, 4.0, 8.0])
    p = replace(_P, sigma=9584640.0)
    curve = dd.rdp_curve(p, a)
    assert np.all(curve >= 0.0) and np.all(curve <= p.round_rdp(a) * p.rounds)
    floor = math.log(1 / 0.001963921552084641) / 7  # lemma1's ε at α = 8 with zero RDP: 0.889
    assert dd.epsilon(p, 0.001963921552084641, orders=a, method="lemma1").eps == pytest.approx(floor, rel=1e-9)
    with pytest.raises(InfeasibleError, match=r"^eps = 0.48422 is out of reach at delta = 0.00196392"):
        dd.calibrate_sigma(_P, 0.4842199429403895, 0.001963921552084641, orders=a, method="lemma1", guess=585)
