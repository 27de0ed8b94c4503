"""dpcalc's PLD accountant (dpcalc.accounting.pld): certified brackets against reference values, peers and properties.

Reference values: the consensus tight ε 1.82824 ± 1e-5 at q = 0.01, σ = 1, T = 1000, δ = 1e-5 (dp-accounting 0.6.0 PLD
at vdi 1e-5, pessimistic, and prv-accountant 0.2.0's estimate agree); the analytic Gaussian ε (dp-accounting 0.6.0,
tol 1e-15).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc.accounting import gdp, pld
from dpcalc.accounting import schedule as sched
from dpcalc.accounting.pld import common, passes, schedule
from dpcalc.errors import DomainError


def _check(br: pld.EpsBracket, rtol: float = pld.RTOL) -> None:
    assert 0.0 <= br.eps_lower <= br.eps_upper
    assert br.width <= rtol * br.eps_upper + 1e-12
    assert br.details["converged"] == 1.0


def test_dpsgd_consensus_value() -> None:
    br = pld.epsilon_subsampled_gaussian(1.0, 0.01, 1000, 1e-5)
    _check(br)
    assert br.eps_lower <= 1.82824 - 1e-5 and br.eps_upper >= 1.82824 + 1e-5


def test_analytic_gaussian_single_release() -> None:
    br = pld.epsilon([pld.Step(1.0, 1.0, 1)], 1e-5)
    _check(br)
    assert br.eps_lower <= 4.377178095681224 <= br.eps_upper


@pytest.mark.parametrize(("sigma", "steps", "delta"), [(1.0, 10, 1e-5), (2.0, 1000, 1e-6), (5.0, 100, 1e-3),
                                                        (0.5, 3, 1e-10), (1.0, 1, 1e-30), (0.1, 1, 1e-5)])
def test_full_batch_contains_exact_gaussian(sigma: float, steps: int, delta: float) -> None:
    exact = float(gdp.eps_from_mu(math.sqrt(steps) / sigma, delta))
    br = pld.epsilon([pld.Step(sigma, 1.0, steps)], delta)
    _check(br)
    assert br.eps_lower <= exact <= br.eps_upper


def test_sigma_eff_point_one_reference() -> None:
    """Analytic ε(σ = 0.1, δ = 1e-5) = 91.81728962466377 (dp-accounting 0.6.0) (σ_eff = 0.1 as 100 steps of σ = 1)."""
    br = pld.epsilon([pld.Step(1.0, 1.0, 100)], 1e-5)
    assert br.eps_lower <= 91.81728962466377 <= br.eps_upper


def test_heterogeneous_full_batch_is_one_gaussian() -> None:
    sched = [pld.Step(10.0, 1.0, 50), pld.Step(5.0, 1.0, 50)]
    exact = float(gdp.eps_from_mu(math.sqrt(50 / 100 + 50 / 25), 1e-5))
    br = pld.epsilon(sched, 1e-5)
    assert br.eps_lower <= exact <= br.eps_upper


def test_equal_steps_schedule_equals_homogeneous() -> None:
    hom = pld.epsilon([pld.Step(1.0, 0.01, 1000)], 1e-5)
    het = pld.epsilon([(1.0, 0.01, 100)] * 10, 1e-5)
    assert het == hom


def test_heterogeneous_between_its_homogeneous_ends() -> None:
    het = pld.epsilon([pld.Step(1.0, 0.02, 200), pld.Step(2.0, 0.02, 200)], 1e-5)
    _check(het)
    lo = pld.epsilon([pld.Step(2.0, 0.02, 400)], 1e-5)
    hi = pld.epsilon([pld.Step(1.0, 0.02, 400)], 1e-5)
    assert lo.eps_lower <= het.eps_upper and het.eps_lower <= hi.eps_upper
    assert lo.eps_upper < het.eps_lower < het.eps_upper < hi.eps_lower


@pytest.mark.parametrize(("param", "small", "large"), [("steps", 500, 1000), ("q", 0.01, 0.012),
                                                        ("inv_sigma", 1 / 1.1, 1.0)])
def test_monotone(param: str, small: float, large: float) -> None:
    base = {"sigma": 1.0, "q": 0.01, "steps": 1000}

    def run(value: float) -> pld.EpsBracket:
        kw = dict(base)
        if param == "inv_sigma":
            kw["sigma"] = 1.0 / value
        else:
            kw[param] = value
        return pld.epsilon_subsampled_gaussian(kw["sigma"], kw["q"], kw["steps"], 1e-5)

    a, b = run(small), run(large)
    assert a.eps_upper < b.eps_lower  # certified: ε(small) < ε(large)


def test_rtol_controls_width() -> None:
    br = pld.epsilon_subsampled_gaussian(1.0, 0.01, 1000, 1e-5, rtol=1e-2)
    _check(br, 1e-2)
    fine = pld.epsilon_subsampled_gaussian(1.0, 0.01, 1000, 1e-5, rtol=1e-4)
    _check(fine, 1e-4)
    assert br.eps_lower <= fine.eps_lower <= fine.eps_upper <= br.eps_upper + 1e-9


def test_tiny_delta_below_rdp() -> None:
    from dpcalc.accounting import rdp

    br = pld.epsilon_subsampled_gaussian(1.0, 0.01, 1000, 1e-18)
    _check(br)
    eps_rdp, _ = rdp.eps_subsampled_gaussian(0.01, 1.0, 1000, 1e-18)
    assert br.eps_upper <= eps_rdp


def test_delta_bracket_contains_exact() -> None:
    exact = float(gdp.delta(1.0, 1.0))  # 0.12693673750664392 (SciPy; mpmath agrees)
    br = pld.delta_for_eps([pld.Step(1.0, 1.0, 1)], 1.0)
    assert br.delta_lower <= exact <= br.delta_upper
    assert br.delta_upper - br.delta_lower <= 1e-3 * exact


def test_delta_bracket_subsampled_matches_dp_accounting_vector() -> None:
    """dp-accounting 0.6.0's test vector: Poisson q=0.2, σ=0.5, 3 steps: δ(ε=1) = 0.15594 (±1e-3)."""
    br = pld.delta_for_eps([pld.Step(0.5, 0.2, 3)], 1.0)
    assert br.delta_lower <= br.delta_upper
    assert abs(0.5 * (br.delta_lower + br.delta_upper) - 0.15594) <= 1e-3


def test_calibration_safe_side() -> None:
    s = sched.sigma_for_eps(2.0, 1e-5, 0.01, 1000, accountant="pld")
    assert pld.epsilon_subsampled_gaussian(s, 0.01, 1000, 1e-5).eps_upper <= 2.0
    # dp-accounting 0.6.0 PLD at vdi 1e-3 gives 0.95924; the tight σ is a little above 0.9592
    assert 0.955 < s < 0.965
    assert pld.epsilon_subsampled_gaussian(s / (1 + 2e-3), 0.01, 1000, 1e-5).eps_lower > 1.99


def test_calibration_where_eps_reaches_zero() -> None:
    """Large δ: ε(σ) is 0 beyond a finite σ (q = 1, δ = 0.9: ε = 0 from σ ≈ 0.4 on). The secant steps used to land
    on ε = 0 and flail (log 0); the safeguarded search bisects there and stays on the safe side."""
    s = sched.sigma_for_eps(0.05, 0.9, 1.0, 1, accountant="pld")
    assert pld.epsilon_subsampled_gaussian(s, 1.0, 1, 0.9).eps_upper <= 0.05
    assert pld.epsilon_subsampled_gaussian(s * (1 - 3e-3), 1.0, 1, 0.9).eps_lower > 0.05


def test_memory_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "MAX_FFT", 1000)  # read at call time
    with pytest.raises(pld.MemoryCapError, match="cap"):
        pld.epsilon_subsampled_gaussian(1.0, 0.01, 1000, 1e-5)


def test_memory_cap_of_dpcalc_limits() -> None:
    """The PLD sizes its FFT against the user-settable cap (--max-memory / DPCALC_MAX_MEMORY) and names it."""
    from dpcalc import _limits

    _limits.set_max_memory("1M")
    try:
        with pytest.raises(pld.MemoryCapError, match="max-memory"):
            pld.epsilon_subsampled_gaussian(1.0, 0.01, 10_000, 1e-5)  # about 1.03 MiB for one step's lattice
    finally:
        _limits.set_max_memory(None)


@pytest.mark.parametrize(("kw", "match"), [({"delta": 0.0}, "delta"), ({"delta": 1.0}, "delta"),
                                           ({"q": 0.0}, "q"), ({"sigma": -1.0}, "sigma"), ({"steps": 0}, "steps")])
def test_bad_input(kw: dict[str, float], match: str) -> None:
    args = {"sigma": 1.0, "q": 0.01, "steps": 10, "delta": 1e-5} | kw
    with pytest.raises(DomainError, match=match):
        pld.epsilon_subsampled_gaussian(args["sigma"], args["q"], args["steps"], args["delta"])


def test_empty_schedule() -> None:
    with pytest.raises(DomainError, match="schedule"):
        pld.epsilon([], 1e-5)


# --- the peer: dp-accounting's PLD (pessimistic, value_discretization_interval 1e-4) -------------------------

_GRID = [(1.0, 0.01, 1000, 1e-5), (1.1, 256 / 60000, 14062, 1e-5), (0.8, 0.001, 100, 1e-6),
         (2.0, 0.2, 100, 1e-6), (0.6, 0.05, 50, 1e-3)]


def _dpa(sigma: float, q: float, steps: int, delta: float) -> float:
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    return float(acc.get_epsilon(delta))


@pytest.mark.slow
@pytest.mark.parametrize(("sigma", "q", "steps", "delta"), _GRID)
def test_against_dp_accounting(sigma: float, q: float, steps: int, delta: float) -> None:
    ref = _dpa(sigma, q, steps, delta)
    br = pld.epsilon_subsampled_gaussian(sigma, q, steps, delta)
    _check(br)
    assert br.eps_lower <= ref  # its pessimistic value is an upper bound
    assert br.eps_upper <= ref + 2e-4 + 1e-3 * ref  # its discretisation error at vdi 1e-4 (~2e-4 in ε)


def test_seeded_random_grid_brackets_are_consistent(rng: np.random.Generator) -> None:
    """Random (q, σ, T, δ): a finite, ordered, converged bracket below the RDP bound."""
    from dpcalc.accounting import rdp

    for _ in range(4):
        q = float(10 ** rng.uniform(-3, 0))
        sigma = float(10 ** rng.uniform(-0.2, 0.7))
        steps = int(10 ** rng.uniform(0, 3))
        delta = float(10 ** rng.uniform(-12, -2))
        br = pld.epsilon_subsampled_gaussian(sigma, q, steps, delta)
        _check(br)
        assert br.eps_upper <= rdp.eps_subsampled_gaussian(q, sigma, steps, delta)[0] + 1e-9


@pytest.mark.parametrize(("sigma", "q", "steps", "eps"), [(1.0, 0.1, 5, 0.3), (0.8, 0.2, 3, 1.0), (2.0, 1.0, 4, 0.5)])
def test_bracket_against_monte_carlo_of_the_privacy_loss(rng: np.random.Generator, sigma: float, q: float,
                                                         steps: int, eps: float) -> None:
    """δ(ε) = E_P[(1 − e^{ε−L})₊], L the summed privacy loss sampled directly (remove neighbours: x ~ P, the
    mixture); 4e5 samples, 5-σ Monte Carlo interval must meet the certified bracket (remove direction)."""
    from dpcalc.checks.pld import mc_delta

    mc, se = mc_delta(sigma, q, steps, eps, 400_000, rng)
    br = passes.run(schedule.normalise([pld.Step(sigma, q, steps)]), "remove", 2e-3, 1e-6, None, eps)
    assert br.lo is not None
    lo, up = br.lo.delta(eps), br.up.delta(eps)
    assert lo <= up
    assert mc - 5 * se <= up and lo <= mc + 5 * se


@pytest.mark.parametrize("sigma", [0.019, 0.03])
def test_large_eps_single_gaussian_contains_exact(sigma: float) -> None:
    """ε ≈ 700–1600 (NbAFL-like L = 1, z ≈ 0.02): the Q-masses at large losses no longer underflow (the lower bound
    used to fail its internal check here); the bracket contains the exact Gaussian ε."""
    exact = float(gdp.eps_from_mu(1.0 / sigma, 1e-5))
    br = pld.epsilon([pld.Step(sigma, 1.0, 1)], 1e-5)
    _check(br)
    assert br.eps_lower <= exact <= br.eps_upper


def test_distinct_steps_compose_like_the_homogeneous_run() -> None:
    """Two nearly equal mechanisms (not merged: the batched multi-spectrum path) give the homogeneous bracket."""
    hom = pld.epsilon([pld.Step(1.0, 0.01, 1000)], 1e-5)
    het = pld.epsilon([(1.0, 0.01, 300), (1.0 + 1e-12, 0.01, 700)], 1e-5)
    _check(het)
    assert het.eps_lower <= hom.eps_upper and hom.eps_lower <= het.eps_upper
    assert het.eps_lower <= 1.82824 <= het.eps_upper
    mixed = pld.epsilon([(1.0, 0.01, 300), (1.0 + 1e-12, 0.01, 300), (1.0 + 2e-12, 0.01, 400)], 1e-5)
    assert mixed.eps_lower <= 1.82824 <= mixed.eps_upper


@pytest.mark.slow
def test_ten_million_steps_within_the_memory_cap() -> None:
    """T = 1e7 (q = 0.01, σ = 1): a converged bracket within the default memory cap, near the CLT/GDP-limit value
    (μ = q·√(T(e^{1/σ²} − 1)) = 41.45, ε_GDP ≈ 1037; the CLT ignores the skew, measured 2% above)."""
    br = pld.epsilon_subsampled_gaussian(1.0, 0.01, 10_000_000, 1e-5)
    _check(br)
    clt = float(gdp.eps_from_mu(0.01 * math.sqrt(1e7 * math.expm1(1.0)), 1e-5))
    assert abs(br.eps_upper / clt - 1.0) < 0.05


@pytest.mark.parametrize("q", [0.01, 1.0])
@pytest.mark.parametrize("sigma", [1e18, 1e100, 1e300])
def test_huge_noise_is_exactly_zero_eps(sigma: float, q: float) -> None:
    # the dominating Gaussian (q = 1, mu = sqrt(T)/sigma) already has delta(0) = erf(mu/(2 sqrt 2)) <= delta: eps = 0
    # exactly (sigma = 1e20 at q = 0.01 used to raise a bare NumPy ValueError from the lattice sizing)
    br = pld.epsilon([(sigma, q, 10), (2 * sigma, q, 3)], 1e-5)
    assert (br.eps_lower, br.eps_upper) == (0.0, 0.0)
    assert gdp.delta_at_zero(math.sqrt(10 + 3 / 4) / sigma) <= 1e-5


@pytest.mark.parametrize("sigma", [1e-10, 1e-100, 1e-300])
def test_tiny_noise_is_a_memory_cap_error_before_allocating(sigma: float) -> None:
    # the per-step lattice size is checked in float (an int64 cast wrapped to negative sizes past 2**63)
    with pytest.raises(pld.MemoryCapError, match=r"(one step|the composed privacy loss) .* needs .* grid points"):
        pld.epsilon([(sigma, 0.01, 10)], 1e-5)


@pytest.mark.parametrize("sigma", [1e-10, 1e-100])
def test_tiny_noise_without_sampling_is_the_exact_gaussian(sigma: float) -> None:
    """q = 1 needs no lattice: ten Gaussians are one with μ = √10/σ, ε ≈ μ²/2 in closed form (5e20 at σ = 1e-10)."""
    br = pld.epsilon([(sigma, 1.0, 10)], 1e-5)
    mu = math.sqrt(10.0) / sigma
    assert br.details["exact"] == 1.0 and br.eps_lower <= gdp.eps_from_mu(mu, 1e-5) <= br.eps_upper
    assert br.eps_upper - br.eps_lower <= 1e-13 * br.eps_upper


def test_noise_beyond_the_double_range_is_one_line() -> None:
    with pytest.raises(DomainError, match="mu is too large"):
        pld.epsilon([(1e-300, 1.0, 10)], 1e-5)


def test_distinct_gaussians_merge_in_log_space() -> None:
    # q = 1 steps compose into one Gaussian with 1/sigma^2 = sum count/sigma^2, here without overflow
    br = pld.epsilon([(0.5, 1.0, 10), (1.0, 1.0, 3)], 1e-5)
    exact = gdp.eps_from_mu(math.sqrt(10 / 0.25 + 3.0), 1e-5)
    assert br.eps_lower <= exact <= br.eps_upper


def test_tiny_eps_uses_the_absolute_width_floor() -> None:
    """σ = 1e3, q = 0.01, T = 10, δ = 1e-5 (ε ≈ 5.6e-6): a relative 1e-3 alone needed 3.2e7 lattice points and hit
    the memory cap after 12 s; with the 1e-6 floor it settles with a bracket that contains dp-accounting's
    pessimistic value at vdi 1e-6 (5.656006e-6)."""
    br = pld.epsilon_subsampled_gaussian(1e3, 0.01, 10, 1e-5)
    assert br.details["converged"] == 1.0
    assert br.width <= 1e-3 * br.eps_upper + pld.ATOL
    assert br.eps_lower <= 5.656006060811771e-06


def test_large_tilt_for_tiny_losses_at_tiny_delta() -> None:
    """σ = 899.4, q = 0.1, T = 10, δ = 1e-30 needs a tilt λ ≈ 2e4; with orders capped at 512 the upper bound stayed
    at 0.067 and the lattice was refined into the memory cap; at q = 1 the exact GDP value is bracketed."""
    br = pld.epsilon_subsampled_gaussian(899.4, 0.1, 10, 1e-30)
    gauss = gdp.eps_from_mu(10**0.5 / 899.4, 1e-30)  # the un-subsampled composition dominates both directions
    assert 0.0037 < br.eps_lower <= br.eps_upper <= gauss * (1 + 1e-12)
    # the add direction (orders capped at 512 there) is settled only by that bound: a wide bracket, said so
    assert br.details["converged"] == float(br.width <= 1e-3 * br.eps_upper + pld.ATOL)
    exact = gdp.eps_from_mu(1e-4, 1e-20)  # q = 1, σ = 1e4, T = 1
    br1 = pld.epsilon_subsampled_gaussian(1e4, 1.0, 1, 1e-20)
    assert br1.eps_lower <= exact <= br1.eps_upper


def test_delta_at_huge_sigma_is_bounded_by_the_dominating_gaussian() -> None:
    """σ = 1e300 overflowed (an error naming no parameter); σ = 1e140 broke the lattice. The Gaussian composition
    (μ² = Σ count/σ²) dominates every schedule: δ(0) <= erf(μ/(2√2))."""
    for sigma in (1e20, 1e140, 1e300):
        br = pld.delta_for_eps([(sigma, 0.01, 10)], 0.0)
        assert br.delta_lower == 0.0
        assert gdp.delta(10**0.5 / sigma, 0.0) <= br.delta_upper <= 1.3e-300 * (1e300 / sigma)
    assert pld.delta_for_eps([(1e300, 0.01, 10)], 1.0).delta_upper == 5e-324


def test_refinement_stops_when_the_bracket_no_longer_narrows() -> None:
    """rtol = 1e-6 at σ = 0.8, q = 0.01, T = 1 refined for 29 s into the memory cap (library fuzz): below a width of
    ~3e-6 the FFT's round-off and truncation terms held the width. One and two steps are now summed directly (no
    FFT, no floor): that bracket converges around the exact value. Where finer lattices stop narrowing an FFT
    bracket the refinement stops and the tightest bracket is returned with ``met = False``
    (test_pld_convolution.py); T = 5, q = 3e-4, δ = 3.5e-25, refused that way once, now meets the tolerance."""
    from tests.support.pld_reference import eps_subsampled_gaussian

    br = pld.epsilon_subsampled_gaussian(0.8, 0.01, 1, 1e-5, rtol=1e-6)
    with mpmath.workdps(30):
        exact = float(eps_subsampled_gaussian(0.8, 0.01, 1e-5))
    assert br.eps_lower <= exact <= br.eps_upper and br.width <= 1e-6 * br.eps_upper + pld.ATOL
    five = pld.epsilon_subsampled_gaussian(1.5, 3e-4, 5, 3.5e-25)
    assert five.met and five.details["converged"] == 1.0 and five.width <= 1e-3 * five.eps_upper + pld.ATOL


@pytest.mark.parametrize(("call", "message"), [
    (lambda: pld.epsilon_subsampled_gaussian(5e-324, 1.0, 100, 1e-5), r"^sigma is too small"),
    (lambda: pld.delta_upper(object(), 0.01, 73, 1.0), r"^sigma must be a number"),
    (lambda: pld.epsilon_subsampled_gaussian(517.9, 1 + 2j, 358, 1e-5), r"^q must be a number"),
    (lambda: sched.sigma_for_eps(3.2e-28, 3.2e-28, 3.2e-28, 100, accountant="pld"),
     r"^eps = 3.2e-28 is unreachable"),
])
def test_fuzz_reproducers_are_one_line_errors(call: object, message: str) -> None:
    """Library-fuzz findings: a math domain error, TypeErrors and an IndexError naming no parameter."""
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_a_window_beyond_the_cap_is_refused_before_discretising(monkeypatch: pytest.MonkeyPatch) -> None:
    """T = 1e9 (and 2^53 + 1) at σ = 0.8, q = 0.01: the per-step lattice was discretised for 8–12 s before the
    composed window's size was known (library fuzz: a hang); the loss's mean alone (≈ ½Σ q²(e^{1/σ²} − 1)) needs
    1.9e11 points at the lattice spacing, refused before any discretisation."""
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("discretised although the composed window cannot fit")

    monkeypatch.setattr(passes, "discretise_many", never)
    for steps in (10**9, 2**53 + 1):
        with pytest.raises(pld.MemoryCapError, match=r"the composed privacy loss of the schedule .* needs"):
            pld.delta_upper(0.8, 0.01, steps, 0.5)


def test_q_next_to_one_needs_no_add_refinement() -> None:
    """q = 1 − 1e-16: the dominating Gaussian (exact up to 1e-16) caps both directions, so the add direction needs
    no finer lattices (they ran into the memory cap after 20 s and discarded the valid bracket: library fuzz)."""
    br = pld.epsilon_subsampled_gaussian(1.5310275279745102, 0.9999999999999999, 8723, 9.528427590818217e-11)
    exact = gdp.eps_from_mu(8723**0.5 / 1.5310275279745102, 9.528427590818217e-11)
    assert br.eps_lower <= exact <= br.eps_upper <= exact * (1 + 1e-12)


def test_upper_curve_below_a_heavy_atom_stays_above_the_exact_delta() -> None:
    """Found by a deep domain sweep of the PLD: σ = 7.2628, q = 1, T = 4, δ = 1.7e-27. At the lattice 0.0251 one heavy
    atom (the tilted mass of a sparse-dot cell) sat at loss 2.7105; just below it A_m − e^t·B_m cancelled to ≤ 0 and the
    upper δ came out as the tail term alone (4.2e-35), so the pass returned ε_upper = 2.7105 below the exact 2.9178 (the
    lower bound, 2.8997, was above it: an internal error). The curve now carries the rounding of that difference."""
    sigma, steps, delta = 7.262778036466415, 4, 1.698912030930936e-27
    exact = float(gdp.eps_from_mu(math.sqrt(steps) / sigma, delta))
    sched = schedule.normalise([(sigma, 1.0, steps)])
    e_lo, e_up, _ = passes.eps_pass(sched, "remove", 0.02509756165113851, delta, None, True)
    assert e_lo <= exact <= e_up
    br = pld.epsilon([(sigma, 1.0, steps)], delta)
    assert br.eps_lower <= exact <= br.eps_upper
    # the upper curve itself, on every lattice point of the window: never below the exact δ
    ps = passes.run(sched, "remove", 0.02509756165113851, delta, 0.19325122471376655, None, True)
    mu = math.sqrt(steps) / sigma
    for x in ps.up.x[(ps.up.x > 0.5) & (ps.up.x < 3.4)]:
        assert ps.up.delta(float(x)) >= math.exp(float(gdp.log_delta(mu, float(x)))) * (1 - 1e-9)


def test_atoms_left_out_of_the_tilt_are_charged_through_the_tilt_not_at_infinity() -> None:
    """Sweep against dp-accounting (q < 1): σ = 0.5, q = 0.001, T = 1, δ = 1e-12 returned [6.6274, 15.641] (the
    dominating Gaussian's ε, direction 'add', converged 0). The add direction's atoms at very negative losses have
    tilted weights below 1e-323 at λ = 248; their whole P-mass (1.3e-7 ≫ δ) was charged at +∞. Their effect on δ(ε)
    is at most e^{logk + log R − λε} (R: their tilted mass), which the upper curve now carries instead. The true ε
    lies in [6.6283338, 6.6283388] (dp-accounting at lattice 1e-5, optimistic and pessimistic)."""
    br = pld.epsilon_subsampled_gaussian(0.5, 0.001, 1, 1e-12)
    _check(br)
    assert br.eps_lower <= 6.6283338 and 6.6283388 <= br.eps_upper
    assert br.direction == "remove"


def test_curve_sums_term_by_term_where_the_discounted_suffix_underflows() -> None:
    """σ = 1e4, q = 1, δ = 1e-20: at the first, coarse lattice (3 atoms, λ = 2^20, λh = 1739) the discounted terms
    e^{−λh} of A_m underflow, the atom above ε vanished from δ(ε), and the pass returned ε_upper = 4.4e-5 below the
    exact 7.97e-4 (exposed once the atoms with underflowing tilted weights stopped being charged at +∞). Where A_m is
    below 1e-280 the curve now sums P_k(1 − e^{ε − x_k}) term by term in log space."""
    exact = float(gdp.eps_from_mu(1e-4, 1e-20))
    sched = schedule.normalise([(1e4, 1.0, 1)])
    for h in (0.0016583123951777001, 0.00023021948928419393, 5e-5):
        e_lo, e_up, _ = passes.eps_pass(sched, "remove", h, 1e-20, None, True)
        assert e_lo <= exact <= e_up


@pytest.mark.parametrize(("sigma", "steps", "delta"), [
    (14.557142790011198, 345, 4.1339009490285613e-29), (1.7392587025036217, 1, 7.722939487055461e-26),
    (34.03775709790559, 52, 1.948020042814559e-15), (30.429060493540085, 236, 4.0143683936397257e-20),
    (23.287020369721024, 193, 9.133423515992215e-28), (14.180389500466337, 10, 8.533233329108682e-18),
    (4.354732942813099, 23, 1.1195292791303885e-21), (26.319991688172486, 1135, 5.222061903675123e-28)])
def test_one_wider_coarse_lattice_is_not_a_stall(sigma: float, steps: int, delta: float) -> None:
    """The 7 points of the deep q = 1 sweep (10,000 points) whose bracket came back unconverged, 1e-3 to 3e-3 wide:
    the second lattice was wider than the first (coarse lattices are not monotone in h) and one such step stopped the
    refinement. Two in a row now; each converges at the third or fourth lattice and contains the exact ε. The last
    point (the deep sweep after the θ*-aware first lattice) stalled twice on 12 % steps (widths 0.0198, 0.0192,
    0.0208 against 0.0145): after a lattice that did not narrow the bracket h is now at least halved."""
    exact = float(gdp.eps_from_mu(math.sqrt(steps) / sigma, delta))
    br = pld.epsilon([(sigma, 1.0, steps)], delta)
    _check(br)
    assert br.eps_lower <= exact <= br.eps_upper


def test_eps_below_the_first_lattice_point_is_searched() -> None:
    """Sweep against dp-accounting (q < 1): σ = 4.537, q = 0.00444, T = 2, δ = 4.53e-4 has ε = 2.3389e-4 (direct
    quadrature of the 2-fold composition on 160,001 points), below the first lattice point ≥ 0 of the first pass
    (7.86e-4). The search started at that point, so both bounds came back as 7.86e-4 — the lower one above ε. It
    now starts in the cell containing 0."""
    br = pld.epsilon_subsampled_gaussian(4.53727667774888, 0.004441402810409826, 2, 0.000453015264174791)
    assert br.details["converged"] == 1.0 and br.width <= pld.RTOL * br.eps_upper + pld.ATOL  # the absolute floor
    assert br.eps_lower <= 2.338922432e-4 <= br.eps_upper
