"""The simulation core against exact values.

Tolerance convention: every Monte Carlo comparison requires the exact value inside the estimator's two-sided
99.9 % interval (|z| <= 3.29) at a fixed seed; deterministic helpers are compared to 1e-12 relative.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from dpcalc import sim
from dpcalc.sim import estimators as est
from dpcalc.sim import parallel, scenarios
from dpcalc.sim.roots import bisect_log
from dpcalc.sim.stats import from_moments, normal_cdf, normal_quantile


def _inside(e: sim.Estimate, exact: float) -> None:
    assert e.ci_low <= exact <= e.ci_high, (e, exact)
    assert e.se > 0


@pytest.mark.parametrize("snr", [1e-2, 0.3, 1.0, 10.0])
def test_scalar_gaussian_channel_mi(snr: float) -> None:
    """I(X; X+Z) = ½ ln(1 + snr) inside the 99.9 % CI (200k samples)."""
    e = sim.gaussian_channel_mi(snr, 1.0, 200_000, 11)
    _inside(e, 0.5 * math.log1p(snr))
    e10 = sim.gaussian_channel_mi(snr, 1.0, 200_000, 11, dims=10)
    assert e10.value == pytest.approx(10 * e.value, rel=1e-12)


def test_vector_gaussian_mi_logdet() -> None:
    """Correlated 3-d channel against ½ln det(Σx+Σz) − ½ln det Σz (99.9 % CI, 200k samples)."""
    a = np.array([[1.0, 0.4, 0.1], [0.4, 2.0, -0.3], [0.1, -0.3, 0.5]])
    sz = np.diag([0.5, 1.0, 0.2])
    exact = 0.5 * (np.linalg.slogdet(a + sz)[1] - np.linalg.slogdet(sz)[1])
    _inside(sim.gaussian_vector_mi(a, sz, 200_000, 12), float(exact))


@pytest.mark.parametrize("client", [False, True])
def test_aggregation_cmi(client: bool) -> None:
    """I(w_i; w̄_dp | w^-i) of a 4-client aggregation = ½ln(1 + p_i²s_i²/τ²) per coordinate (99.9 % CI)."""
    p = np.array([0.4, 0.3, 0.2, 0.1])
    s = np.array([1.0, 0.5, 2.0, 1.0])
    kw = {"client_sigmas": [0.3, 0.2, 0.5, 0.1]} if client else {"server_sigma": 0.25}
    tau2 = float(np.sum(p**2 * np.array([0.3, 0.2, 0.5, 0.1]) ** 2)) if client else 0.0625
    for i in (0, 2):
        e = sim.aggregation_cmi(p, i, s, 200_000, 13 + i, dims=7, **kw)
        _inside(e, 7 * 0.5 * math.log1p(p[i] ** 2 * s[i] ** 2 / tau2))


def test_aggregation_distortion() -> None:
    """E‖w̄ − w̄_dp‖² = d(σ_s² + Σp²σ_c²) (99.9 % CI)."""
    p = np.array([0.5, 0.25, 0.25])
    e = sim.aggregation_distortion(p, 200_000, 14, server_sigma=0.3, client_sigmas=0.4, dims=50)
    _inside(e, 50 * (0.09 + 0.16 * 0.375))


@pytest.mark.parametrize(("eps", "m"), [(0.5, 1.0), (2.0, 1.0), (6.0, 1.0), (3.0, 2.5)])
def test_hockey_stick_delta_gaussian(eps: float, m: float) -> None:
    """δ(ε) of the Gaussian mechanism vs the exact Φ formula (99.9 % CI); importance sampling keeps the relative
    SE below 2 % even where δ ~ 1e-4."""
    pair = sim.GaussianPair(m, 1.0)
    exact = sim.exact_gaussian_delta(eps, m)
    e = sim.hockey_stick_delta(pair, eps, 100_000, 15)
    _inside(e, exact)
    assert e.se / exact < 0.02


def test_hockey_stick_plain_vs_importance() -> None:
    """Without importance sampling the small δ is much noisier (same budget): the proposal matters."""
    pair = sim.GaussianPair(1.0, 1.0)
    plain = sim.hockey_stick_delta(pair, 4.0, 100_000, 16, importance=False)
    weighted = sim.hockey_stick_delta(pair, 4.0, 100_000, 16)
    assert weighted.se < plain.se / 5


def test_hockey_stick_subsampled_against_quadrature() -> None:
    """Poisson-subsampled Gaussian δ(ε) vs scipy quadrature of ∫(p − e^ε q)₊ (99.9 % CI)."""
    from scipy import integrate, stats

    q, sigma, eps = 0.2, 0.8, 0.4
    pair = sim.SubsampledGaussianPair(q, sigma)

    def integrand(x: float) -> float:
        p = (1 - q) * stats.norm.pdf(x, 0, sigma) + q * stats.norm.pdf(x, 1, sigma)
        return max(p - math.exp(eps) * stats.norm.pdf(x, 0, sigma), 0.0)

    exact = integrate.quad(integrand, -10, 12, points=[0.5, 1.0, 2.0], limit=200, epsabs=1e-13)[0]
    _inside(sim.hockey_stick_delta(pair, eps, 200_000, 17), exact)
    # its log-density is the log of the mixture, also far in the tail
    x = np.array([-3.0, 0.0, 0.7, 40.0])
    ref = np.logaddexp(math.log(1 - q) + stats.norm.logpdf(x, 0, sigma), math.log(q) + stats.norm.logpdf(x, 1, sigma))
    ref += math.log(sigma * math.sqrt(2 * math.pi))  # log_p omits the normalising constant (shared with log_q)
    np.testing.assert_allclose(pair.log_p(x), ref, rtol=1e-10)


def test_renyi_divergence_gaussian() -> None:
    """D_α(N(m,1)‖N(0,1)) = α m²/2 for a moderate α (99.9 % CI)."""
    e = sim.renyi_divergence(sim.GaussianPair(0.5, 1.0), 2.0, 200_000, 18)
    _inside(e, 2.0 * 0.25 / 2)


def test_channel_curve_solves_for_noise() -> None:
    """The σ at which the simulated MI equals ½ln(1 + s²/σ₀²) is σ₀ (99.9 % CI), and the curve is decreasing."""
    curve = est.gaussian_channel_curve(0.2, 400_000, 19)
    target = 0.5 * math.log1p(0.04 / 0.09)
    root = curve.solve_noise(target, 1e-3, 1e3)
    assert root is not None
    _inside(root, 0.3)
    assert curve.mi(0.1) > curve.mi(0.3) > curve.mi(1.0)
    assert curve.solve_noise(100.0, 1.0, 2.0) is None


def _uniform_terms(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.random(size)


def test_same_seed_same_numbers_any_workers() -> None:
    """Chunk i always uses child seed i: 1 worker in-process == 2 worker processes, bit for bit."""
    one = parallel.run_moments(_uniform_terms, 50_000, 5, workers=1, chunk=7_000)
    two = parallel.run_moments(_uniform_terms, 50_000, 5, workers=2, chunk=7_000, process_threshold=0)
    assert one.n == two.n == 50_000
    np.testing.assert_array_equal(one.total, two.total)
    np.testing.assert_array_equal(one.cross, two.cross)
    other = parallel.run_moments(_uniform_terms, 50_000, 6, workers=1, chunk=7_000)
    assert other.total[0] != one.total[0]


def test_chunks_and_moments() -> None:
    assert parallel.chunk_sizes(10, 4) == [4, 4, 2]
    assert parallel.chunk_sizes(8, 4) == [4, 4]
    with pytest.raises(ValueError):
        parallel.chunk_sizes(0)
    a = parallel.Moments.of(np.array([[1.0, 2.0], [3.0, 5.0]]))
    b = parallel.Moments.of(np.array([[4.0], [0.0]]))
    s = a + b
    assert s.n == 3
    np.testing.assert_allclose(s.mean, [7 / 3, 8 / 3])
    with pytest.raises(FloatingPointError):
        parallel.Moments.of(np.array([1.0, math.nan]))
    assert parallel.default_workers() >= 1


def test_mean_estimate_matches_from_moments() -> None:
    """mean_estimate's SE is the usual sample SE (checked against stats.from_moments on the same draws)."""
    fn = partial(_uniform_terms)
    e = sim.mean_estimate(fn, 10_000, 3, chunk=10_000)
    x = np.random.default_rng(np.random.SeedSequence(3).spawn(1)[0]).random(10_000)
    ref = from_moments(float(x.sum()), float((x * x).sum()), x.size)
    assert e.value == pytest.approx(ref.value, rel=1e-12)
    assert e.se == pytest.approx(ref.se, rel=1e-9)
    _inside(e, 0.5)


def test_normal_helpers() -> None:
    for p in (1e-10, 0.01, 0.3, 0.5, 0.9995):
        assert normal_cdf(normal_quantile(p)) == pytest.approx(p, rel=1e-12)
    assert sim.z_for(0.999) == pytest.approx(3.290526731, rel=1e-9)


def test_scenarios(rng: np.random.Generator) -> None:
    w = scenarios.clipped_clients(rng, 200, 10, 1.5, scale=1.0)
    assert np.all(np.linalg.norm(w, axis=1) <= 1.5 + 1e-12)
    small = scenarios.clip(np.array([[0.3, 0.4]]), 1.0)
    np.testing.assert_array_equal(small, [[0.3, 0.4]])
    np.testing.assert_array_equal(scenarios.clip(np.zeros((1, 3)), 1.0), np.zeros((1, 3)))
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = scenarios.gaussian_params(rng, 100_000, cov)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.03)
    g = scenarios.gaussian_params(rng, 50_000, 4.0 / 8, 8)
    assert np.mean(np.sum(g * g, axis=1)) == pytest.approx(4.0, rel=0.02)  # E‖w‖² = C²
    with pytest.raises(ValueError):
        scenarios.gaussian_params(rng, 3, 1.0)
    mask = scenarios.poisson_subsample(rng, 100_000, 0.1)
    assert mask.mean() == pytest.approx(0.1, abs=0.004)
    with pytest.raises(ValueError):
        scenarios.poisson_subsample(rng, 3, 1.5)
    for pm in (1.0, 0.5, 0.3, 0.01):
        wts = scenarios.weights_with_max(pm)
        assert wts.sum() == pytest.approx(1.0) and wts.max() == pytest.approx(pm)
    for s2 in (1.0, 0.6, 0.3, 0.01):
        wts = scenarios.weights_with_sum_sq(s2)
        assert wts.sum() == pytest.approx(1.0) and np.sum(wts**2) == pytest.approx(s2, rel=1e-12)
        assert np.all(wts >= 0)


def test_add_noise_placement(rng: np.random.Generator) -> None:
    """No noise → the exact aggregate; client noise has variance Σp²σ², server noise σ_s² (99.9 % CI)."""
    w = rng.standard_normal((3, 200_000))
    p = np.array([0.5, 0.3, 0.2])
    np.testing.assert_allclose(scenarios.add_noise(rng, w, p), p @ w)
    diff = scenarios.add_noise(rng, w, p, client_sigmas=[1.0, 2.0, 3.0]) - p @ w
    var = 0.25 + 0.36 + 0.36
    assert np.var(diff) == pytest.approx(var, rel=3.29 * math.sqrt(2 / diff.size))
    diff = scenarios.add_noise(rng, w, p, server_sigma=0.7) - p @ w
    assert np.var(diff) == pytest.approx(0.49, rel=3.29 * math.sqrt(2 / diff.size))


def test_bisect_log() -> None:
    r = bisect_log(lambda x: x * x - 2.0, 1e-3, 1e3)
    assert r == pytest.approx(math.sqrt(2), rel=1e-12)
    assert bisect_log(lambda x: x + 1.0, 1.0, 2.0) is None
    assert bisect_log(lambda x: x - 1.0, 1.0, 2.0) == 1.0


def test_estimator_argument_errors() -> None:
    with pytest.raises(ValueError):
        sim.gaussian_channel_mi(1.0, 0.0, 100, 0)
    with pytest.raises(ValueError):
        sim.aggregation_cmi([0.5, 0.5], 0, [1.0, 1.0], 100, 0)
    with pytest.raises(ValueError):
        sim.aggregation_cmi([0.5, 0.5], 0, [1.0, 1.0, 1.0], 100, 0, server_sigma=1.0)
    with pytest.raises(ValueError):
        sim.renyi_divergence(sim.GaussianPair(1.0, 1.0), 1.0, 100, 0)


def test_sim_imports_no_scipy() -> None:
    """The core must not pull SciPy/SymPy at import (the CLI imports it lazily, but keep it light anyway)."""
    import subprocess
    import sys

    code = "import sys, dpcalc.sim, dpcalc.checks.registry; print('scipy' in sys.modules, 'sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_vector_mi_singular_signal() -> None:
    """A rank-1 signal covariance (Cholesky would fail): MI = ½ln(1 + vᵀΣz⁻¹v) (99.9 % CI)."""
    v = np.array([1.0, 2.0])
    sz = np.diag([0.5, 2.0])
    exact = 0.5 * math.log1p(float(v @ np.linalg.solve(sz, v)))
    _inside(sim.gaussian_vector_mi(np.outer(v, v), sz, 200_000, 26), exact)


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=200, deadline=None)
    @given(st.floats(1e-4, 1.0))
    def test_weights_with_sum_sq_property(s2: float) -> None:
        w = scenarios.weights_with_sum_sq(s2)
        assert np.all(w >= 0) and math.isclose(w.sum(), 1.0, rel_tol=1e-12)
        assert math.isclose(float(np.sum(w * w)), s2, rel_tol=1e-9)

    @settings(max_examples=200, deadline=None)
    @given(st.floats(1e-3, 1.0))
    def test_weights_with_max_property(p: float) -> None:
        w = scenarios.weights_with_max(p)
        assert np.all(w >= 0) and math.isclose(w.sum(), 1.0, rel_tol=1e-12)
        assert math.isclose(float(w.max()), p, rel_tol=1e-9)
except ImportError:  # pragma: no cover - hypothesis is a test extra
    pass


def test_single_threaded_blas_restores_counts() -> None:
    """Inside the block every loaded BLAS (NumPy's and SciPy's) runs one thread; afterwards the counts are back."""
    from threadpoolctl import threadpool_info

    from dpcalc.sim import blas

    with blas.single_threaded_blas():
        inside = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    after = {p["filepath"]: p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    assert inside and all(n == 1 for n in inside)
    with blas.single_threaded_blas():
        pass
    assert {p["filepath"]: p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"} == after


def test_normal_quantile_below_1e_300() -> None:
    """p = 5e-324 overflowed e^{x²/2} in the Newton step (OverflowError, library fuzz); SciPy's ndtri agrees."""
    from scipy.special import ndtri

    from dpcalc.sim.stats import normal_quantile
    for p in (5e-324, 1e-310, 1e-300, 1e-200):
        assert normal_quantile(p) == pytest.approx(float(ndtri(p)), rel=1e-15)


def test_z_for_a_level_next_to_one() -> None:
    """level = 1 − 1e-16: 0.5 + level/2 rounded to 1 and the error named p, not level (library fuzz); now
    z = −Φ⁻¹((1 − level)/2)."""
    from scipy.special import ndtri

    from dpcalc.sim.stats import z_for
    assert z_for(0.9999999999999999) == pytest.approx(-float(ndtri(0.5 * (1 - 0.9999999999999999))), rel=1e-15)
    assert z_for(0.999) == pytest.approx(3.2905267314918945, rel=1e-15)
    with pytest.raises(ValueError, match=r"^level must be a finite number in \(0, 1\)"):
        z_for(1.0)
