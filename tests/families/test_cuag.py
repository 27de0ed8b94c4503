"""CUAG-PFL (dpcalc.cuag; Li, Xiao & Chen 2024): the paper's numbers (the ε of its Tables 1-2 and of each μ it uses)
and reference values of eq. (16) and the audit (computed from the closed forms with SciPy, 6-7 digits) to the digits
given, the audit of the "fixed budget" claim (E15) recomposed from the actual σ schedule, eq. (3) round trips, errata
E1/E3/E15, errors.

Tolerances: half a unit in the last digit given unless stated; closed forms 1e-12 relative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcalc import cuag
from dpcalc.accounting import gdp
from dpcalc.errors import DomainError, ErratumWarning, EstimateWarning

pytestmark = pytest.mark.filterwarnings("ignore::dpcalc.errors.EstimateWarning")

SIGMA_TABLE = {500: (0.710489, 1.435165, 6.964071), 1000: (0.554011, 0.893440, 3.534591),
               5000: (0.394075, 0.490819, 0.942386)}


@pytest.mark.parametrize("D", sorted(SIGMA_TABLE))
def test_sigma_schedule_table(D: int) -> None:
    """Eq. (16): σ at t = 1, 10, 300 (the paper's μ = 0.25, λ = 0.1, B = 50, P = 25; |D_n| assumed, the paper never
    gives it), 6 decimals (|diff| <= 5e-7)."""
    got = cuag.sigma(0.25, 0.1, 50, D, [1, 10, 300], 25)
    np.testing.assert_allclose(got, SIGMA_TABLE[D], atol=5e-7, rtol=0)


def test_sigma_is_clt_inverse_and_ln_argument() -> None:
    """|D| = 500: the ln argument is 6.25/t + 1, and σ_t is the σ whose CLT μ over tP steps at ρ = 0.02 is μ
    (independent: math.log and gdp.clt_mu; rtol 1e-13)."""
    for t in (1, 7, 300):
        s = cuag.sigma(0.25, 0.1, 50, 500, t, 25)
        assert s == pytest.approx(1.0 / math.sqrt(math.log1p(6.25 / t)), rel=1e-14)
        assert gdp.clt_mu(0.02, s, t * 25) == pytest.approx(0.25, rel=1e-13)
    sched = cuag.sigma_schedule(0.25, 0.1, 50, 500, 300, 25)
    assert sched.shape == (300,) and np.all(np.diff(sched) > 0)


def test_noise_variance_vector_and_identity() -> None:
    """ξ = 0.000807672 (|D| = 500, t = 1, C = 1, B = 50) by eq. (15) and by (2Cσ/B)² (rtol 1e-13 between them)."""
    xi = cuag.noise_variance(0.25, 0.1, 50, 500, 1, 25, 1.0)
    assert abs(xi - 0.000807672) <= 5e-10
    s = cuag.sigma(0.25, 0.1, 50, 500, 1, 25)
    assert xi == pytest.approx(cuag.noise_variance_from_sigma(s, 50, 1.0), rel=1e-13)
    assert cuag.noise_variance(0.25, 0.1, 50, 500, 1, 25, 3.0) == pytest.approx(9 * xi, rel=1e-14)


def test_t_zero_is_erratum_e3() -> None:
    """t = 0 divides by zero in (16): rejected with a one-line message naming E3."""
    with pytest.raises(DomainError, match="E3"):
        cuag.sigma(0.25, 0.1, 50, 500, 0, 25)
    with pytest.raises(DomainError, match="E3"):
        cuag.noise_variance(0.25, 0.1, 50, 500, [1, 0], 25)


def test_sampling_rate() -> None:
    """ρ = 2λB/|D| = 0.02 for (0.1, 50, 500); ρ > 1 rejected."""
    assert cuag.sampling_rate(0.1, 50, 500) == pytest.approx(0.02, rel=1e-15)
    with pytest.raises(DomainError, match="must be <= 1"):
        cuag.sampling_rate(1.0, 50, 60)


# --- audit (E15) ---------------------------------------------------------------------------------------

def test_audit_headline() -> None:
    """μ = 0.25, T = 300, δ = 1e-5: μ_eff = 0.626631 (6 d.p.), ε_eff = 2.5675 (4 d.p.), claimed ε = 0.926342."""
    a = cuag.audit(0.25, 300, 1e-5)
    assert abs(a.mu_effective - 0.626631) <= 5e-7
    assert abs(a.eps_effective - 2.5675) <= 5e-5
    assert abs(a.eps_claimed - 0.926342) <= 5e-7
    assert a.ratio > 2.7
    assert abs(cuag.harmonic(300) - 6.28266) <= 5e-6


@pytest.mark.parametrize(("mu", "eps"), [(0.1, 0.929), (0.5, 5.697), (1.0, 13.25), (2.0, 33.22)])
def test_audit_other_defaults(mu: float, eps: float) -> None:
    """E15: ε of μ√H_300 for the paper's other μ at δ = 1e-5 (reference values, SciPy), to the digits given."""
    digits = len(str(eps).split(".")[1])
    assert abs(cuag.audit(mu, 300).eps_effective - eps) <= 0.5 * 10 ** -digits


@pytest.mark.parametrize("D", [500, 5000])
def test_audit_recomposed_from_actual_schedule(D: int) -> None:
    """Independent recomposition: μ² = ρ²P Σ_τ expm1(1/σ_τ²) summed in numpy from the σ_1..σ_300 of (16) equals
    μ√H_T (rtol 1e-12), whatever |D| is; the library's audit reports the same."""
    sig = cuag.sigma_schedule(0.25, 0.1, 50, D, 300, 25)
    rho = 2 * 0.1 * 50 / D
    direct = rho * math.sqrt(25 * float(np.sum(np.expm1(1.0 / sig**2))))
    assert direct == pytest.approx(0.25 * math.sqrt(sum(1.0 / k for k in range(1, 301))), rel=1e-12)
    a = cuag.audit(0.25, 300, lam=0.1, B=50, D=D, P=25)
    assert a.mu_from_schedule == pytest.approx(direct, rel=1e-12)
    assert a.mu_effective == pytest.approx(direct, rel=1e-12)


def test_claimed_mu_published_form() -> None:
    """The paper's claim (μ stays 0.25) is only available with an ErratumWarning naming E15."""
    with pytest.warns(ErratumWarning, match="E15"):
        assert cuag.effective_mu(0.25, 300, as_published=True) == 0.25
    with pytest.warns(ErratumWarning, match="E15"):
        np.testing.assert_array_equal(cuag.effective_mu(0.25, [1, 300], as_published=True), [0.25, 0.25])
    with pytest.raises(DomainError):
        cuag.audit(0.25, 300, lam=0.1)


def test_harmonic_large_T() -> None:
    """H_T beyond the exact-sum limit uses ψ(T+1) + γ; continuity at 1e6 (rtol 1e-13) and ln T + γ + 1/(2T)."""
    h1 = cuag.harmonic(1_000_000)
    h2 = cuag.harmonic(1_000_001)
    assert h2 - h1 == pytest.approx(1 / 1_000_001, rel=1e-6)
    t = 1e9
    assert cuag.harmonic(t) == pytest.approx(math.log(t) + np.euler_gamma + 1 / (2 * t), rel=1e-13)


# --- eq. (3), baselines and Table 1 ----------------------------------------------------------------------

def test_dpscaffold_range_and_table1() -> None:
    """DP-SCAFFOLD: √(t ln 10) at δ = 1e-5: [1.517427, 26.282609] and Table 1 t = 11, 236, 108, 101."""
    assert abs(cuag.dpscaffold_eps(1) - 1.517427) <= 5e-7
    assert abs(cuag.dpscaffold_eps(300) - 26.282609) <= 5e-7
    assert cuag.dpscaffold_eps(7) == pytest.approx(math.sqrt(7 * math.log(10)), rel=1e-14)
    got = cuag.dpscaffold_eps([11, 236, 108, 101])
    np.testing.assert_allclose(got, [5.0327, 23.3112, 15.7696, 15.2500], atol=5e-5, rtol=0)
    np.testing.assert_allclose(np.round(got, 2), [5.03, 23.31, 15.77, 15.25])


def test_prifedsync_range_and_table1() -> None:
    """PriFedSync: μ_t = 0.01√(138.528880·t); ε(1) = 0.406841, ε(300) = 10.235670 and Table 1 rounds."""
    assert math.expm1(1 / 0.45**2) == pytest.approx(138.528880, abs=5e-7)
    assert abs(cuag.prifedsync_mu(1) - 0.117698) <= 5e-7
    assert abs(cuag.prifedsync_mu(300) - 2.038594) <= 5e-7
    assert abs(cuag.prifedsync_eps(1) - 0.406841) <= 5e-7
    assert abs(cuag.prifedsync_eps(300) - 10.235670) <= 5e-7
    ts = [1, 18, 296, 17, 23, 22, 53, 299]
    want = [0.4068, 1.9902, 10.1513, 1.9277, 2.2828, 2.2266, 3.6637, 10.2146]
    np.testing.assert_allclose(cuag.prifedsync_eps(ts), want, atol=5e-5, rtol=0)
    paper = [0.41, 1.99, 10.15, 1.93, 2.28, 2.23, 3.66, 10.21]
    np.testing.assert_allclose(np.round(cuag.prifedsync_eps(ts), 2), paper)


def test_prifedsync_k_bracket() -> None:
    """K ∈ [0.009999, 0.010007] is what the paper's 2-decimal range [0.41, 10.24] allows."""
    for k, ok in [(0.01, True), (0.00999, False), (0.01001, False)]:
        lo = gdp.eps_from_mu(k * math.sqrt(math.expm1(1 / 0.45**2)), 1e-5)
        hi = gdp.eps_from_mu(k * math.sqrt(300 * math.expm1(1 / 0.45**2)), 1e-5)
        assert (round(lo, 2) == 0.41 and round(hi, 2) == 10.24) is ok


def test_rounds_to_eps_and_baseline_dispatch() -> None:
    """Inverse of the curves: the first t reaching ε (Table 1's implied integer rounds)."""
    assert cuag.rounds_to_eps("dp-scaffold", 5.03) == 11
    assert cuag.rounds_to_eps("prifedsync", 3.66) == 53
    assert cuag.baseline_eps("DP_SCAFFOLD", 300) == cuag.dpscaffold_eps(300)
    with pytest.raises(DomainError, match="method must be"):
        cuag.baseline_eps("udp", 3)
    with pytest.raises(DomainError, match="not reached"):
        cuag.rounds_to_eps("dp-scaffold", 1e6, t_max=100)


def test_eq3_round_trip_and_udp_schedule() -> None:
    """ζ(ε(ζ)) = ζ (rtol 1e-14); UDP reference schedule at ε = 10: ζ_t = √(t ln 10)/10
    (0.1517, 0.4799, 1.5174, 2.6283)."""
    z = cuag.classic_sigma(cuag.classic_eps(0.7, 1e-6, 0.05, 123, 2.0), 1e-6, 0.05, 123, 2.0)
    assert z == pytest.approx(0.7, rel=1e-14)
    got = cuag.classic_sigma(10.0, 1e-5, 0.1, [1, 10, 100, 300])
    np.testing.assert_allclose(got, [0.1517, 0.4799, 1.5174, 2.6283], atol=5e-5, rtol=0)


def test_e1_printed_theorem4_does_not_reproduce_prifedsync() -> None:
    """E1: with the printed form μ = ρ√T(e^{1/σ²} − 1) the PriFedSync ε range would not be [0.41, 10.24]."""
    with pytest.warns(ErratumWarning):
        mu_pub = gdp.clt_mu(0.01, 0.45, 300, as_published=True)
    assert abs(gdp.eps_from_mu(mu_pub, 1e-5) - 10.24) > 1.0


def test_estimate_warning_is_emitted() -> None:
    with pytest.warns(EstimateWarning):
        cuag.sigma(0.25, 0.1, 50, 500, 1, 25)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: cuag.sigma(0.0, 0.1, 50, 500, 1, 25), "mu must be"),
    (lambda: cuag.sigma(0.25, 1.5, 50, 500, 1, 25), "lam must be"),
    (lambda: cuag.sigma(0.25, 0.1, 50.5, 500, 1, 25), "B must be an integer"),
    (lambda: cuag.sigma(0.25, 0.1, 50, 500, 1, 0), "P must be an integer"),
    (lambda: cuag.sigma(0.25, 0.1, 50, 500, -2, 25), "t must be an integer"),
    (lambda: cuag.classic_eps(1.0, 1.0, 0.1, 10), "delta must be"),
    (lambda: cuag.classic_sigma(0.0, 1e-5, 0.1, 10), "eps must be"),
    (lambda: cuag.audit(0.25, 300, 0.0), "delta must be"),
])
def test_errors(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match) as info:
        call()
    assert "\n" not in str(info.value)
