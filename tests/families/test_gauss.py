"""Zeng, Yang & Dai, Entropy 2022: reference tables, closed forms vs the exact engine, SymPy determinant identities,
Monte Carlo, properties, errata and errors.

Tolerances are stated per test. Reference tables: the paper's Fig. 5 and Fig. 6/7 parameters, values from exact
log-determinants of the covariances (NumPy), written to 6-7 significant digits, so rtol 5e-6 on the values with
6 decimals, 5e-4 on the 4-digit ones.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcalc import gaussian_mi as gauss
from dpcalc.checks import gauss as chk
from dpcalc.errors import DomainError, ErratumWarning, InfeasibleError, OutOfDomainWarning

EPS = [1, 2, 3, 5, 10]

# Fig 5 parameters (σ_m²=2, σ_k²=1.8, n=101), exact log-det values:
# ε, σ² published, U(18) at published σ², σ² corrected, U_max corrected, true I at published σ²
FIG5 = [
    (1, 1.266, 0.140288, 0.0673326, 1.041222, 0.106786),
    (2, 0.2532, 0.462765, 0.0134665, 2.041478, 0.423108),
    (3, 0.0602857, 1.101886, 0.00320631, 3.041491, 1.060619),
    (5, 0.00371261, 2.937509, 1.97456e-4, 5.041492, 2.896018),
    (10, 3.62206e-6, 7.925090, 1.9264e-7, 10.041492, 7.883598),
]
# Fig 6/7 parameters (σ_m²=30, σ_k²=2, n=101): ε, σ² published, U(18) at published, σ² corrected,
# U_max (Case 2 corrected = Case 3 with σ_e² >= 0), U_max Case 3 free
FIG67 = [
    (1, 10.5848, 0.946091, 9.4152, 1.008537, 1.008740),
    (2, 2.11696, 1.929841, 1.88304, 2.008729, 2.008740),
    (3, 0.504038, 2.925674, 0.448343, 3.008740, 3.008740),
    (5, 0.0310405, 4.924363, 0.0276106, 5.008740, 5.008740),
    (10, 3.02834e-5, 9.924276, 2.69371e-5, 10.008740, 10.008740),
]


def _rel(printed: float) -> float:
    """Half a unit in the last printed digit, relative (the table's own precision)."""
    s = f"{printed:.6g}"
    mant = s.split("e")[0]
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    exp = int(s.split("e")[1]) if "e" in s else 0
    return 0.5 * 10.0 ** (exp - decimals) / abs(printed) * 1.0001


def _published(fn, *args, **kw):  # type: ignore[no-untyped-def]
    with pytest.warns(ErratumWarning):
        return fn(*args, as_published=True, **kw)


# --- reference tables -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("row", FIG5, ids=[f"eps={r[0]}" for r in FIG5])
def test_fig5_table(row: tuple[float, ...]) -> None:
    """The Fig-5 table, every column, to the digits written (±½ unit in the last place)."""
    eps, s_pub, u_pub, s_cor, u_cor, leak_pub = row
    assert gauss.case2_sigma2(eps, 2, 1.8, 101) == pytest.approx(s_cor, rel=_rel(s_cor))
    assert gauss.case2_u_max(eps, 2, 1.8, 101) == pytest.approx(u_cor, rel=_rel(u_cor))
    pub = _published(gauss.case2_sigma2, eps, 2, 1.8, 101)
    assert pub == pytest.approx(s_pub, rel=_rel(s_pub))
    assert _published(gauss.case2_u_max, eps, 2, 1.8, 101) == pytest.approx(u_pub, rel=_rel(u_pub))
    assert gauss.case2_privacy(pub, 2, 1.8, 101) == pytest.approx(leak_pub, rel=_rel(leak_pub))


@pytest.mark.parametrize("row", FIG67, ids=[f"eps={r[0]}" for r in FIG67])
def test_fig67_table(row: tuple[float, ...]) -> None:
    """The Fig-6/7 table, every column, to the digits written."""
    eps, s_pub, u_pub, s_cor, u_nonneg, u_free = row
    assert _published(gauss.case2_sigma2, eps, 30, 2, 101) == pytest.approx(s_pub, rel=_rel(s_pub))
    assert _published(gauss.case2_u_max, eps, 30, 2, 101) == pytest.approx(u_pub, rel=_rel(u_pub))
    assert gauss.case2_sigma2(eps, 30, 2, 101) == pytest.approx(s_cor, rel=_rel(s_cor))
    assert gauss.case2_u_max(eps, 30, 2, 101) == pytest.approx(u_nonneg, rel=_rel(u_nonneg))
    assert gauss.case3_u_max(eps, 30, 2, 101, nonneg=True) == pytest.approx(u_nonneg, rel=_rel(u_nonneg))
    assert gauss.case3_u_max(eps, 30, 2, 101) == pytest.approx(u_free, rel=_rel(u_free))


def test_fig67_case3_free_point_and_leakage_of_published_sigma() -> None:
    """The free optimum at ε=1 is (9.421, −0.02136) (SLSQP on the exact constraint, 4 digits); the published (14)
    leaks 0.107 bits at ε = 1 (Fig. 5 parameters)."""
    opt = gauss.case3_optimum(1, 30, 2, 101)
    assert float(opt.sigma2) == pytest.approx(9.421, abs=5e-4)
    assert float(opt.sigma_e2) == pytest.approx(-0.02136, abs=5e-6)
    with pytest.warns(ErratumWarning, match=r"gauss\.case2_sigma2.*leaks only 0\.106786 bits"):
        gauss.case2_sigma2(1, 2, 1.8, 101, as_published=True)
    assert float(gauss.conditional_variance(2, 1.8, 101)) == pytest.approx(0.201998, rel=3e-6)


def test_errata_numbers_eq17_and_eq24() -> None:
    """The numbers of the errata of (17) and (24) (exact log-det values, 6 digits)."""
    assert gauss.case2_utility(0.7, 2, 0.5, 3) == pytest.approx(0.951042, rel=1e-6)
    assert _published(gauss.case2_utility, 0.7, 2, 0.5, 3) == pytest.approx(1.208329, rel=1e-6)
    assert gauss.case2_utility(0.3, 2, 1.8, 101) == pytest.approx(0.410612, rel=2e-6)
    assert _published(gauss.case2_utility, 0.3, 2, 1.8, 101) == pytest.approx(1.279095, rel=1e-6)
    assert gauss.case3_privacy(3, 1, 30, 2, 101) == pytest.approx(1.95276, rel=3e-6)
    assert _published(gauss.case3_privacy, 3, 1, 30, 2, 101) == pytest.approx(1.72242, rel=3e-6)


# --- closed forms vs the exact engine ---------------------------------------------------------------------------

def _random_equi(rng: np.random.Generator) -> tuple[int, float, float]:
    n = int(rng.integers(2, 60))
    a = float(np.exp(rng.uniform(np.log(0.1), np.log(10))))
    b = float(rng.uniform(-a / (n - 1), a) * 0.98)
    return n, a, b


def test_case2_closed_forms_match_engine(rng: np.random.Generator) -> None:
    """30 random (n, σ_m², σ_k², σ²): leakage (13), utility (17 corrected), V_x vs the dense engine, rtol 1e-10."""
    for _ in range(30):
        n, a, b = _random_equi(rng)
        s = float(np.exp(rng.uniform(-5, 3)))
        sx = gauss.equicorrelated_matrix(n, a, b)
        r = gauss.evaluate(sx, s * np.eye(n))
        assert r.privacy == pytest.approx(gauss.case2_privacy(s, a, b, n), rel=1e-10)
        assert r.utility == pytest.approx(gauss.case2_utility(s, a, b, n), rel=1e-10)
        assert np.allclose(gauss.conditional_variances(sx), gauss.conditional_variance(a, b, n), rtol=1e-10)
        assert np.ptp(r.leakages) <= 1e-12 * r.privacy  # Lemma 1: symmetric in i


def test_case3_closed_forms_match_engine(rng: np.random.Generator) -> None:
    """30 random points: Case-3 leakage ½log2(1+V_x/V_z) and utility (27) vs the engine, rtol 1e-10."""
    for _ in range(30):
        n, a, b = _random_equi(rng)
        s = float(np.exp(rng.uniform(-3, 3)))
        e = float(rng.uniform(-s / (n - 1), s) * 0.98)
        r = gauss.evaluate(gauss.equicorrelated_matrix(n, a, b), gauss.equicorrelated_matrix(n, s, e))
        assert r.privacy == pytest.approx(gauss.case3_privacy(s, e, a, b, n), rel=1e-10)
        assert r.utility == pytest.approx(gauss.case3_utility(s, e, a, b, n), rel=1e-10)


def test_case1_closed_forms_match_engine(rng: np.random.Generator) -> None:
    """Case 1: (5), (7), (8), (9) vs the engine on diag(σ_i²) (Fig-4 style σ_i² ~ U(0,1)), rtol 1e-10."""
    var = rng.uniform(0, 1, 101)
    for eps in (0.5, 1.0, 4.0):
        s2 = gauss.case1_sigma2(eps, var.max())
        r = gauss.evaluate(np.diag(var), s2 * np.eye(var.size))
        assert r.privacy == pytest.approx(eps, rel=1e-10)
        assert r.utility == pytest.approx(gauss.case1_u_max(eps, var), rel=1e-10)
        assert r.utility == pytest.approx(gauss.case1_utility(s2, var), rel=1e-10)
        assert gauss.case1_privacy(s2, var) == pytest.approx(eps, rel=1e-12)


def test_engine_matches_paper_determinant_route(rng: np.random.Generator) -> None:
    """The engine's Schur/determinant-lemma leakage equals the paper's route (19): ½ log(|COV(Y,X^-i)| /
    (|COV(X^-i)| |COV(Z)|)) by slogdet of the (2n−1)-dim joint covariance, for every i; random dense PD
    covariances, n = 2..7, rtol 1e-9."""
    for n in range(2, 8):
        gx, gz = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        sx, sz = gx @ gx.T + 0.3 * np.eye(n), gz @ gz.T + 0.2 * np.eye(n)
        r = gauss.evaluate(sx, sz, units="nats")
        for i in range(n):
            keep = [j for j in range(n) if j != i]
            joint = np.block([[sx + sz, sx[:, keep]], [sx[keep, :], sx[np.ix_(keep, keep)]]])
            ref = 0.5 * (np.linalg.slogdet(joint)[1] - np.linalg.slogdet(sx[np.ix_(keep, keep)])[1]
                         - np.linalg.slogdet(sz)[1])
            assert r.leakages[i] == pytest.approx(ref, rel=1e-9)
        mi = 0.5 * (np.linalg.slogdet(sx + sz)[1] - np.linalg.slogdet(sz)[1])
        assert r.mutual_information == pytest.approx(mi, rel=1e-10)


def test_engine_n2000_accuracy_and_no_overflow() -> None:
    """n = 2000: raw det overflows/underflows, the engine matches the O(1) closed forms to rtol 1e-10."""
    n, a, b, s = 2000, 2.0, 1.8, 0.3
    sx = gauss.equicorrelated_matrix(n, a, b)
    with np.errstate(all="ignore"):
        raw = np.linalg.det(0.1 * sx)
    assert raw == 0.0 or not math.isfinite(raw)  # the naive route is useless here
    r = gauss.evaluate(sx, s * np.eye(n))
    assert r.privacy == pytest.approx(gauss.case2_privacy(s, a, b, n), rel=1e-10)
    assert r.utility == pytest.approx(gauss.case2_utility(s, a, b, n), rel=1e-10)


# --- SymPy determinant identities -----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_sympy_determinants(n: int) -> None:
    """Exact SymPy identities (n = 2..6): (11), (12), (16), (23), (26) and V_x symbolically; the corrected
    numerator N* of |COV(Y^n, X^-1)| and the falsity of the published (22) in exact
    rational arithmetic at random points."""
    import sympy as sp

    a, b, s, e = sp.symbols("a b s e")

    def equi(m: int, d: sp.Expr, o: sp.Expr) -> sp.Matrix:
        return sp.Matrix(m, m, lambda i, j: d if i == j else o)

    sx = equi(n, a, b)
    assert sp.expand(equi(n - 1, a, b).det(method="berkowitz") - (a + (n - 2) * b) * (a - b) ** (n - 2)) == 0  # (12)
    m11 = sx.copy()
    m11[0, 0] = a + s
    eq11 = (a - b) ** (n - 1) * (a + s) - (n - 1) * (b - a - s) * b * (a - b) ** (n - 2)
    assert sp.expand(m11.det(method="berkowitz") - eq11) == 0  # (11)
    eq16 = (a + s + (n - 1) * b) * (a + s - b) ** (n - 1)
    assert sp.expand(equi(n, a + s, b).det(method="berkowitz") - eq16) == 0  # (16)
    assert sp.expand(equi(n, s, e).det(method="berkowitz") - (s + (n - 1) * e) * (s - e) ** (n - 1)) == 0  # (23)
    assert sp.expand(equi(n, a + s, b + e).det()
                     - (a + s + (n - 1) * (b + e)) * (a + s - b - e) ** (n - 1)) == 0  # (26)
    vx = sp.cancel(sx.det(method="berkowitz") / equi(n - 1, a, b).det(method="berkowitz"))
    assert sp.cancel(vx - (a - (n - 1) * b**2 / (a + (n - 2) * b))) == 0
    # |COV(Y^n, X^-1)| (a (2n−1)-square determinant): a polynomial identity of bounded degree, checked exactly
    # at 4 random rational points (Schwartz-Zippel; symbolic expansion of the 11 x 11 case takes minutes)
    nstar = (a + (n - 2) * b) * (s - e) * (s + (n - 1) * e) + (a - b) * (a + (n - 1) * b) * (s + (n - 2) * e)
    published_22 = ((a + s) * (s - e) ** (n - 1) * (a - b) ** (n - 1)
                    + (-1) ** (n + 1) * (e - a - s) * (n - 1) * e * (e - s) ** (n - 2) * (a - b) ** (n - 1)
                    + b * ((n - 1) * e + (e - s) * b / (-b - e + a + s)) * (e - s) ** (n - 2)
                    * ((n - 1) * (-b - e + a + s)) * (b - a) ** (n - 2))
    rng = np.random.default_rng(1299 + n)
    keep = list(range(1, n))
    differs = 0
    for _ in range(4):
        point = {sym: sp.Rational(int(rng.integers(1, 97)), int(rng.integers(1, 31))) for sym in (a, b, s, e)}
        sxp, syp = sx.subs(point), equi(n, a + s, b + e).subs(point)
        cross = sxp[:, keep]
        joint = sp.BlockMatrix([[syp, cross], [cross.T, sxp.extract(keep, keep)]]).as_explicit()
        det = joint.det(method="bareiss")
        assert det == (nstar * (a - b) ** (n - 2) * (s - e) ** (n - 2)).subs(point)
        pub = published_22.subs(point)
        differs += int(pub != det)
    assert differs >= 3  # the published (22) is not the determinant


# --- Monte Carlo ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "a", "b", "s", "e"), [(5, 2.0, 1.8, 0.3, 0.0), (8, 3.0, 1.0, 2.0, 0.7),
                                                    (6, 1.0, -0.1, 0.5, -0.05)])
def test_monte_carlo_cmi_matches_engine(n: int, a: float, b: float, s: float, e: float) -> None:
    """Seeded Monte Carlo I(X_1; Y | X^-1) from log-density ratios (regression for p(Y|X^-1)), 200k samples:
    the engine's value lies in the 99.9 % interval."""
    sx, sz = gauss.equicorrelated_matrix(n, a, b), gauss.equicorrelated_matrix(n, s, e)
    est = chk.conditional_mi_estimate(sx, sz, 0, 200_000, np.random.SeedSequence(4001 + n))
    exact = gauss.evaluate(sx, sz, units="nats").leakages[0]
    assert est.ci_low <= exact <= est.ci_high, (est, exact)
    assert est.se < 0.02 * exact


def test_monte_carlo_rejects_published_case2_sigma() -> None:
    """At the published σ² (ε = 1 bit, n = 8) the simulated leakage's 99.9 % CI excludes ε: the '+' of (14)
    is not the noise that attains ε (it leaks less)."""
    n, a, b = 8, 2.0, 1.8
    with pytest.warns(ErratumWarning):
        s_pub = float(gauss.case2_sigma2(1.0, a, b, n, as_published=True))
    est = chk.conditional_mi_estimate(gauss.equicorrelated_matrix(n, a, b), s_pub * np.eye(n), 0, 200_000,
                                      np.random.SeedSequence(77))
    assert est.ci_high < math.log(2)  # ε = 1 bit = ln 2 nats


# --- optimiser cross-check ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("eps", "a", "b", "n"), [(1.0, 30.0, 2.0, 21), (3.0, 2.0, 1.8, 11), (0.5, 1.0, -0.1, 6)])
def test_waterfill_matches_slsqp_on_engine(eps: float, a: float, b: float, n: int) -> None:
    """SLSQP over (σ², σ_e²) on the exact engine agrees with the closed-form water-filling: U to rtol 1e-6,
    σ² to 1e-3 relative, σ_e² to 1e-3·σ²; also with σ_e² >= 0 (rtol 1e-6)."""
    opt = gauss.case3_optimum(eps, a, b, n, units="nats")
    s, e, u = chk.slsqp_case3(gauss.equicorrelated_matrix(n, a, b), eps)
    assert u == pytest.approx(float(opt.u_max), rel=1e-6)
    assert s == pytest.approx(float(opt.sigma2), rel=1e-3)
    assert e == pytest.approx(float(opt.sigma_e2), abs=1e-3 * s)
    _, e2, u2 = chk.slsqp_case3(gauss.equicorrelated_matrix(n, a, b), eps, nonneg=True)
    assert u2 == pytest.approx(float(gauss.case3_u_max(eps, a, b, n, nonneg=True, units="nats")), rel=1e-6)
    assert e2 >= -1e-8 * s


def test_waterfill_optimum_spends_exactly_eps() -> None:
    """At the water-filling optimum the exact leakage equals ε (rtol 1e-12), free and with σ_e² >= 0."""
    eps = np.array([0.3, 1, 2, 5, 10])
    for nonneg in (False, True):
        opt = gauss.case3_optimum(eps, 30, 2, 101, nonneg=nonneg)
        leak = gauss.case3_privacy(opt.sigma2, opt.sigma_e2, 30, 2, 101)
        assert np.allclose(leak, eps, rtol=1e-12)


def test_waterfill_not_attained_below_threshold() -> None:
    """Tiny ε (c_ε < σ_k²/(σ_m²+(n−2)σ_k²)): the supremum needs infinite noise; u_max is finite, σ² raises."""
    with pytest.warns(OutOfDomainWarning):
        opt = gauss.case3_optimum(1e-4, 30, 2, 101)
    assert not bool(opt.attained) and math.isfinite(float(opt.u_max)) and float(opt.u_max) > 0
    with pytest.raises(InfeasibleError, match="eps"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gauss.case3_sigma2(1e-4, 30, 2, 101)


# --- properties ---------------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 500), a=st.floats(0.01, 100), rho=st.floats(-0.99, 0.99), eps=st.floats(0.01, 30))
def test_properties(n: int, a: float, rho: float, eps: float) -> None:
    """U_max increasing in ε; corrected σ² <= published σ²; Case-3 optimum >= Case 2 (to 1e-12 relative);
    the corrected σ² leaks exactly ε (rtol 1e-10), the published one at most ε."""
    b = rho * a if rho >= 0 else rho * a / (n - 1)
    u1, u2 = gauss.case2_u_max([eps, eps * 1.01], a, b, n)
    assert u2 > u1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        pub = gauss.case2_sigma2(eps, a, b, n, as_published=True)
    cor = gauss.case2_sigma2(eps, a, b, n)
    assert cor <= pub * (1 + 1e-12)
    assert gauss.case2_privacy(cor, a, b, n) == pytest.approx(eps, rel=1e-10)
    assert gauss.case2_privacy(pub, a, b, n) <= eps * (1 + 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OutOfDomainWarning)
        u3 = gauss.case3_u_max(eps, a, b, n)
    assert u3 >= u1 * (1 - 1e-12)


def test_units_bits_vs_nats() -> None:
    """ε in nats = ε in bits · ln 2 gives the same σ²; information outputs scale by ln 2 (rtol 1e-14)."""
    assert gauss.case2_sigma2(1.0, 2, 1.8, 101) == pytest.approx(
        gauss.case2_sigma2(math.log(2), 2, 1.8, 101, units="nats"), rel=1e-14)
    assert gauss.case2_u_max(1.0, 2, 1.8, 101, units="nats") == pytest.approx(
        gauss.case2_u_max(1.0 / math.log(2), 2, 1.8, 101) * math.log(2), rel=1e-13)
    assert gauss.bits_to_nats(1.0) == pytest.approx(math.log(2), rel=1e-15)
    assert gauss.nats_to_bits(gauss.bits_to_nats(3.0)) == pytest.approx(3.0, rel=1e-15)


def test_large_eps_is_finite() -> None:
    """ε = 2000 bits: U_max ≈ ε + const computed in log space (no overflow); σ² underflow is an error."""
    u = gauss.case2_u_max(2000.0, 2, 1.8, 101)
    assert math.isfinite(u) and u == pytest.approx(2000.041492, rel=1e-9)
    with pytest.raises(DomainError, match="underflows"):
        gauss.case2_sigma2(2000.0, 2, 1.8, 101)


# --- errors -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "match"), [
    ((1, 2, 2, 101), "cov must be < var"),
    ((1, 2, 2.5, 101), "cov must be < var"),
    ((1, 2, -0.03, 101), r"cov must be > -var/\(n-1\)"),
    ((1, 2, 1, 1), "n must be an integer >= 2"),
    ((1, -2, 1, 5), "var must be a finite number > 0"),
    ((0, 2, 1, 5), "eps must be a finite number > 0"),
    ((float("nan"), 2, 1, 5), "eps must be finite"),
    ((1, 2, 1, 5.5), "n must be an integer"),
    (("x", 2, 1, 5), "eps must be a number"),
])
def test_bad_inputs(args: tuple, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(DomainError, match=match) as info:
        gauss.case2_sigma2(*args)
    assert "\n" not in str(info.value)


def test_covariance_validation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Non-square, 1x1, non-symmetric, non-PD, negative variance, shape mismatch, bad files: one-line errors."""
    good = gauss.equicorrelated_matrix(3, 2, 1)
    cases = [(np.ones((2, 3)), "square"), (np.ones((1, 1)), "at least 2 x 2"),
             (np.array([[2.0, 1.0], [0.5, 2.0]]), "symmetric"),
             (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive definite"),
             (np.array([[-1.0, 0.0], [0.0, 1.0]]), "positive variances")]
    for m, msg in cases:
        with pytest.raises(DomainError, match=msg):
            gauss.evaluate(m, np.eye(m.shape[0]) if m.shape[0] == m.shape[1] else np.eye(2))
    with pytest.raises(DomainError, match="same shape"):
        gauss.evaluate(good, np.eye(4))
    p = tmp_path / "x.csv"
    p.write_text("2,1\n1,2\n")
    assert np.array_equal(gauss.load_covariance(p, "sigma_x"), [[2, 1], [1, 2]])
    np.save(tmp_path / "z.npy", np.eye(2))
    assert np.array_equal(gauss.load_covariance(tmp_path / "z.npy", "sigma_z"), np.eye(2))
    (tmp_path / "bad.csv").write_text("1,2\n3\n")
    with pytest.raises(DomainError, match="rectangular"):
        gauss.load_covariance(tmp_path / "bad.csv", "sigma_x")
    with pytest.raises(DomainError, match="does not exist"):
        gauss.load_covariance(tmp_path / "nope.csv", "sigma_x")
    (tmp_path / "m.json").write_text("[]")
    with pytest.raises(DomainError, match=r"\.npy or \.csv"):
        gauss.load_covariance(tmp_path / "m.json", "sigma_x")
