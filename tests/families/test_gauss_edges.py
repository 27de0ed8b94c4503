"""Regressions of a precision audit of the Gaussian-MI family (Zeng, Yang & Dai 2022) and the published forms at
their edges: the engine's utility at low SNR (defect 5), tiny ε raising instead of returning inf (defect 6), the
published (24) and U_max at extreme n and ε (defect 10).

References are exact: mpmath log-determinants at 60 digits, exact rationals, closed forms in mpmath.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc import gaussian_mi as g
from dpcalc.errors import DomainError, ErratumWarning


def _mp_mi(sx: np.ndarray, sz: np.ndarray) -> mpmath.mpf:
    with mpmath.workdps(60):
        x, z = mpmath.matrix(sx.tolist()), mpmath.matrix(sz.tolist())
        return (mpmath.log(mpmath.det(x + z)) - mpmath.log(mpmath.det(z))) / 2


def test_defect5_engine_utility_low_snr_is_exact() -> None:
    """Σ_X = I₄, Σ_Z = 1e14·(I + 0.3 off-diagonal in the first 2×2 block): exact 5.2473e-15 nats (was 3.5527e-15)."""
    sz = np.eye(4)
    sz[0, 1] = sz[1, 0] = 0.3
    sz *= 1e14
    r = g.evaluate(np.eye(4), sz, units="nats")
    want = _mp_mi(np.eye(4), sz) / 4
    assert float(want) == pytest.approx(5.2473e-15, rel=1e-4)
    assert abs(r.utility - float(want)) <= 1e-14 * float(want)


@pytest.mark.parametrize("log_snr", [-14, -10, -6, -2, 0, 2, 6, 10])
def test_engine_mutual_information_every_snr(log_snr: int, rng: np.random.Generator) -> None:
    for _ in range(3):
        n = int(rng.integers(2, 7))
        a = rng.normal(size=(n, n))
        b = rng.normal(size=(n, n))
        sx = a @ a.T + 0.1 * np.eye(n)
        sz = (b @ b.T + 0.1 * np.eye(n)) * 10.0 ** (-log_snr)
        want = _mp_mi(sx, sz)
        got = g.evaluate(sx, sz, units="nats").mutual_information
        assert abs(got - float(want)) <= 1e-13 * float(want)


def test_engine_leakage_is_finite_for_tiny_noise() -> None:
    r = g.evaluate(np.eye(3), 1e-300 * np.eye(3), units="nats")
    assert np.all(np.isfinite(r.leakages))
    assert r.privacy == pytest.approx(0.5 * math.log1p(1e300), rel=1e-15)


def test_defect6_tiny_eps_raises_instead_of_inf() -> None:
    with pytest.raises(DomainError, match="overflows"):
        g.case1_sigma2(1e-300, 1e10)
    with pytest.raises(DomainError, match="overflows"):
        g.case2_sigma2(1e-310, 2, 1.8, 101)
    # representable neighbours still work (rel 1e-13: σ² is rounded outward by SAFE_UP)
    assert g.case1_sigma2(1e-300, 1e-10) == pytest.approx(1e-10 / math.expm1(2e-300 * math.log(2)), rel=1e-13)


def test_tiny_noise_leakage_and_utility_are_finite() -> None:
    assert g.case1_privacy(1e-320, [1.0, 2.0]) == pytest.approx(0.5 * (math.log(2.0) - math.log(1e-320)) / math.log(2))
    assert math.isfinite(g.case2_utility(1e-320, 2, 1.8, 5))
    assert math.isfinite(g.case3_utility(1e-320, 0.0, 2, 1.8, 5))


def test_defect10_published_24_exact_at_huge_n() -> None:
    from fractions import Fraction as F

    s, e, a, b, n = 25.104733499457904, 0.7487713792154338, 0.10884810244551274, 0.09670004031085133, 1e9
    with pytest.warns(ErratumWarning):
        got = g.case3_privacy(s, e, a, b, n, as_published=True)
    fs, fe, fa, fb, nn = F(s), F(e), F(a), F(b), 10**9
    num = ((fa + fs) * (fs - fe) * (fa - fb) - (nn - 1) * fe * (fe - fa - fs) * (fa - fb)
           + (nn - 1) * fb * fb * (fe - fs) + (nn - 1) ** 2 * fe * fb * (fa + fs - fb - fe))
    den = (fa + (nn - 2) * fb) * (fs + (nn - 1) * fe) * (fs - fe)
    with mpmath.workdps(50):
        want = mpmath.log(mpmath.mpf(num.numerator) / num.denominator * den.denominator / den.numerator) / (
            2 * mpmath.log(2))
    assert abs(got - float(want)) <= 4e-16 * abs(float(want)) + 1e-300


def test_defect10_published_u_max_at_400_nats() -> None:
    with pytest.warns(ErratumWarning):
        u = g.case2_u_max(400, 2, 1.8, 101, units="nats", as_published=True)
    # σ² = P e^{-800}/(1 − e^{-800}) underflows, U does not: (1/2n)[log(λ₁/σ²) + (n−1) log(λ₂/σ²)] to 1e-16
    p = 2 + 100 * 1.8**2 / (2 + 99 * 1.8)
    want = (math.log(2 + 100 * 1.8) + 100 * math.log(0.2) - 101 * (math.log(p) - 800)) / 202
    assert u == pytest.approx(want, rel=1e-14)


def test_case3_determinant_true_and_published() -> None:
    s, e, a, b = 3.0, 1.0, 30.0, 2.0
    for n in (2, 3, 4, 5):
        sx = g.equicorrelated_matrix(n, a, b)
        sz = g.equicorrelated_matrix(n, s, e)
        cov = np.block([[sx + sz, sx[:, 1:]], [sx[1:, :], sx[1:, 1:]]])  # COV(Y^n, X^{-1})
        assert g.case3_determinant(s, e, a, b, n) == pytest.approx(np.linalg.det(cov), rel=1e-12)
        printed = ((a + s) * (s - e) ** (n - 1) * (a - b) ** (n - 1)
                   + (-1) ** (n + 1) * (e - a - s) * (n - 1) * e * (e - s) ** (n - 2) * (a - b) ** (n - 1)
                   + b * ((n - 1) * e + (e - s) * b / (-b - e + a + s)) * (e - s) ** (n - 2)
                   * ((n - 1) * (-b - e + a + s)) * (b - a) ** (n - 2))
        with pytest.warns(ErratumWarning, match="gauss.case3_determinant"):
            assert g.case3_determinant(s, e, a, b, n, as_published=True) == pytest.approx(printed, rel=1e-12)
    with pytest.raises(DomainError, match="float64 range"):
        g.case3_determinant(3.0, 1.0, 30.0, 2.0, 10**6)
