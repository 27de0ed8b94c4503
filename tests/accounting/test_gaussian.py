"""Classic and analytic Gaussian mechanism (dpcalc.accounting.gaussian_mechanism).

Checks: reference vectors of dp-accounting 0.6.0's analytic Gaussian (get_sigma_gaussian / get_epsilon_gaussian at tol
1e-15; tolerance 1e-13 relative for closed forms and for the exact roots), dp-accounting's analytic Gaussian on a seeded
random grid (1e-9 relative), a Monte Carlo hockey-stick estimate of δ (within 5 standard errors), an mpmath root for ε,
hypothesis round trips and monotonicity, warnings and one-line errors.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcalc.accounting import gaussian_mechanism as g
from dpcalc.errors import DomainError, OutOfDomainWarning

SIGMA_TABLE = [((0.1, 1e-5), 30.749566131977407), ((0.5, 1e-5), 7.0318266755824865), ((1, 1e-5), 3.7306316348159414),
               ((2, 1e-6), 2.23047627118642), ((5, 1e-5), 0.8918682649515178), ((8, 1e-5), 0.6002290721989517),
               ((1, 1e-10), 5.867777749630533), ((10, 1e-12), 0.7446123229217545)]
EPS_TABLE = [((1.0, 1e-5), 4.377178095681224), ((0.5, 1e-5), 9.997256146434301), ((2, 1e-5), 1.9930914044151198),
             ((5, 1e-5), 0.7255217508577976), ((1, 1e-10), 6.5479240668649465), ((1, 1e-300), 37.448847912139016),
             ((10, 1e-12), 0.6470081259249799), ((0.1, 1e-5), 91.81728962466377)]


@pytest.mark.parametrize(("args", "want"), SIGMA_TABLE)
def test_sigma_analytic_reference_table(args: tuple[float, float], want: float) -> None:
    """Analytic σ(ε,δ) of dp-accounting 0.6.0 (get_sigma_gaussian, tol 1e-15): agreement to 1e-13 relative."""
    assert g.sigma_analytic(*args) == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize(("args", "want"), EPS_TABLE)
def test_eps_analytic_reference_table(args: tuple[float, float], want: float) -> None:
    """Analytic ε(σ,δ) of dp-accounting 0.6.0 (get_epsilon_gaussian, tol 1e-15), including δ = 1e-300 where its PLD
    returns inf: 1e-13 relative."""
    assert g.eps_analytic(*args) == pytest.approx(want, rel=1e-13)


def test_mu_from_eps_is_inverse_sigma() -> None:
    """μ from (ε,δ) = 1/σ_analytic (dp-accounting 0.6.0, tol 1e-15) to 1e-13."""
    for (e, d), mu in [((1, 1e-5), 0.26805112321129426), ((2, 1e-5), 0.5015516891696565),
                       ((8, 1e-5), 1.6660305978457177)]:
        assert 1.0 / g.sigma_analytic(e, d) == pytest.approx(mu, rel=1e-13)


def test_log_delta_far_below_float_range() -> None:
    """log δ at μ = 1, ε = 40 is −788.42341277399170614 (δ = 3.9e-343 underflows); 1e-14 relative."""
    assert g.log_delta(1.0, 40.0) == pytest.approx(-788.42341277399170614, rel=1e-14)
    assert g.delta(1.0, 40.0) == 0.0
    assert math.isfinite(g.log_delta(1.0, 1e4))


def test_delta_matches_mpmath_on_a_grid() -> None:
    """δ against a 50-digit mpmath evaluation of Φ(a) − e^ε Φ(b) at 60 seeded points; 2e-11 relative (the catalog
    test uses 1e-11 with the same reasoning: cancellation of the bracket where Δ/σ is small)."""
    rng = np.random.default_rng(5)
    for _ in range(60):
        eps, sigma, sens = np.exp(rng.uniform(np.log([1e-3, 0.05, 0.1]), np.log([30, 20, 10])))
        if eps * sigma / sens > 25:
            continue
        with mpmath.workdps(50):  # never mpmath.mp.dps = …: that would leak into every later test
            a = mpmath.mpf(sens) / (2 * sigma) - mpmath.mpf(eps) * sigma / sens
            b = -mpmath.mpf(sens) / (2 * sigma) - mpmath.mpf(eps) * sigma / sens
            want = mpmath.ncdf(a) - mpmath.exp(eps) * mpmath.ncdf(b)
        assert g.delta(sigma, eps, sens) == pytest.approx(float(want), rel=2e-11)


def test_eps_is_the_mpmath_root() -> None:
    """ε(σ, δ) equals mpmath.findroot of the 40-digit δ(ε) curve to 1e-13 relative."""
    for sigma, delta in [(0.7, 1e-6), (3.0, 1e-3), (1.3, 1e-50)]:
        def f(e: mpmath.mpf, s: float = sigma, d: float = delta) -> mpmath.mpf:
            return mpmath.ncdf(1 / (2 * mpmath.mpf(s)) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * mpmath.mpf(s))
                                                                                            - e * s) - d
        with mpmath.workdps(40):
            root = mpmath.findroot(f, g.eps_analytic(sigma, delta))
        assert g.eps_analytic(sigma, delta) == pytest.approx(float(root), rel=1e-13)


def test_agrees_with_dp_accounting_on_random_grid() -> None:
    """dp-accounting's analytic Gaussian (get_epsilon_gaussian / get_sigma_gaussian at tol 1e-15) on 40 seeded
    random points: 1e-9 relative."""
    pytest.importorskip("dp_accounting")
    from dp_accounting import gaussian_mechanism as gm
    rng = np.random.default_rng(11)
    for _ in range(40):
        sigma = float(np.exp(rng.uniform(np.log(0.2), np.log(50))))
        delta = float(np.exp(rng.uniform(np.log(1e-12), np.log(0.1))))
        eps = float(np.exp(rng.uniform(np.log(0.05), np.log(20))))
        assert g.eps_analytic(sigma, delta) == pytest.approx(gm.get_epsilon_gaussian(sigma, delta, tol=1e-15),
                                                             rel=1e-9, abs=1e-12)
        assert g.sigma_analytic(eps, delta) == pytest.approx(gm.get_sigma_gaussian(eps, delta, tol=1e-15), rel=1e-9)


def test_delta_monte_carlo_hockey_stick() -> None:
    """δ(ε) = E_{x~N(Δ,σ²)}[(1 − e^{ε − L(x)})_+], L(x) = (2xΔ − Δ²)/(2σ²): 400k seeded samples, |MC − δ| <= 5 SE."""
    rng = np.random.default_rng(2024)
    for eps, sigma in [(1.0, 1.0), (0.5, 2.0), (2.0, 0.8)]:
        x = rng.normal(1.0, sigma, 400_000)
        loss = (2.0 * x - 1.0) / (2.0 * sigma * sigma)
        terms = np.maximum(0.0, -np.expm1(eps - loss))
        mean, se = terms.mean(), terms.std(ddof=1) / math.sqrt(terms.size)
        assert abs(mean - g.delta(sigma, eps)) <= 5 * se


def test_eps_zero_when_delta_above_delta_at_zero() -> None:
    """δ >= δ(0) = 2Φ(1/(2σ)) − 1 gives ε = 0 exactly."""
    d0 = g.delta(1.0, 0.0)
    assert d0 == pytest.approx(0.3829249225480262072754092, rel=1e-14)
    assert g.eps_analytic(1.0, 0.5) == 0.0
    assert g.eps_analytic(1.0, d0 * 0.999) > 0.0


def test_sigma_is_safe_side() -> None:
    """The returned σ satisfies δ(ε; σ) <= δ up to the evaluation noise of δ itself (<= 1e-11 relative where
    Δ/σ ~ 1e-3 makes the bracket cancel; exact float comparison for moderate σ)."""
    for e in [0.01, 0.3, 1, 4, 20]:
        for d in [1e-12, 1e-5, 0.2]:
            s = g.sigma_analytic(e, d)
            assert g.delta(s, e) <= d * (1 + 1e-11)
            if s < 50:  # exact in log space (the comparison the root finder makes)
                assert g.log_delta(s, e) <= math.log(d)


def test_classic_warns_outside_eps_below_one_and_is_conservative_inside() -> None:
    """Classic σ >= analytic σ for ε < 1 (Thm A.1 valid), warns for ε >= 1; c(1e-3) = 3.7764795326590469 (§9.7)."""
    assert g.classic_c(1e-3) == pytest.approx(3.7764795326590469387, rel=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for e in [0.01, 0.5, 0.99]:
            assert g.classic_sigma(e, 1e-5) >= g.sigma_analytic(e, 1e-5)
    with pytest.warns(OutOfDomainWarning, match="eps < 1"):
        g.classic_sigma(1.5, 1e-5)
    with pytest.warns(OutOfDomainWarning):
        assert g.classic_eps(1.0, 1e-5) == pytest.approx(4.844805262605389, rel=1e-14)


@pytest.mark.parametrize(("func", "args", "match"), [
    (g.delta, (1.0, -1.0), "eps"), (g.delta, (0.0, 1.0), "sigma"),
    (g.eps_analytic, (1.0, 1.0), "delta"), (g.eps_analytic, (1.0, 0.0), "delta"),
    (g.sigma_analytic, (float("nan"), 1e-5), "eps"), (g.sigma_analytic, (1.0, float("inf")), "delta"),
    (g.classic_sigma, ("x", 1e-5), "eps"), (g.sigma_analytic, (1.0, 1e-5, -2.0), "sensitivity"),
])
def test_bad_input_is_one_line_domain_error(func, args, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match) as info:
        func(*args)
    assert "\n" not in str(info.value)


def test_vectorised_broadcasting() -> None:
    """Arrays broadcast and equal the scalar calls."""
    sig = np.array([0.5, 1.0, 2.0])
    out = g.eps_analytic(sig[:, None], np.array([1e-5, 1e-3]))
    assert out.shape == (3, 2)
    assert out[1, 0] == g.eps_analytic(1.0, 1e-5)
    assert g.sigma_analytic([1.0, 2.0], 1e-5)[0] == g.sigma_analytic(1.0, 1e-5)


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.01, 30), log_delta=st.floats(-60, -0.5))
def test_round_trip_eps_sigma(eps: float, log_delta: float) -> None:
    """ε(σ(ε, δ), δ) <= ε(1 + 1e-11) (safe side up to the δ-evaluation noise) and within 1e-9 relative."""
    d = math.exp(log_delta)
    s = g.sigma_analytic(eps, d)
    back = g.eps_analytic(s, d)
    assert back <= eps * (1 + 1e-11)
    assert back == pytest.approx(eps, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.0, 50), sigma=st.floats(0.1, 30), k=st.floats(1.001, 2))
def test_delta_monotone(eps: float, sigma: float, k: float) -> None:
    """δ(ε; σ) is non-increasing in ε and in σ (log-space values)."""
    ld = g.log_delta(sigma, eps)
    assert g.log_delta(sigma, eps * k + 1e-9) <= ld + 1e-12
    assert g.log_delta(sigma * k, eps) <= ld + 1e-12
