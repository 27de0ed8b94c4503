"""NbAFL (Wei et al. 2020): reference tables, public vectors, properties, errors, warnings, T*/K*, accounting.

Reference values: the public doctests of ckinateder/flower-dp (privacy.py: c(δ) and σ_D of eq. (5)) and tables
derived from the closed forms at the paper's Table 1 defaults and at the assumed bound constants A1 of
formulas/003_nbafl.toml, written to 6 significant digits: rtol 5e-6 unless stated.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpcalc import catalog, nbafl
from dpcalc.errors import DomainError, ErratumWarning, OutOfDomainWarning
from dpcalc.verify import run_check

TABLE1 = dict(delta=0.01, C=20, m=100, c_scale=1.25)
SET1 = dict(pl=0.1, lipschitz=1, smoothness=0.2, dissimilarity=1, prox_mu=1, theta=2.3, C=20, m=100, N=50, c_scale=1.25)
SIX = 5e-6  # the reference tables have 6 significant digits


# --- public vectors (doctests of ckinateder/flower-dp, privacy.py) --------------------------------------------

def test_public_vectors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # per-release ε/L = 0.4, ε/T = 0.27: inside Def. 2, no warning
        assert nbafl.c_constant(2e-5, c_scale=1.0) == pytest.approx(4.699557816587533, rel=1e-15)
        got = nbafl.server_sigma(0.8, 1e-5, C=1.5, L=2, T=3, N=2, m=1e4, c_scale=1.0)
    assert got == pytest.approx(0.0009084009867385104, rel=1e-15)


# --- noise at the Table-1 defaults (N = 50, T = 25, δ = 0.01, c = 1.25·√(2 ln 125), m = 100, C = 20) ----------

@pytest.mark.parametrize(("eps", "su1", "su25", "sd", "total"), [
    (6, 0.258959, 6.47398, 0.124193, 0.12948),
    (10, 0.155376, 3.88439, 0.0745155, 0.0776878),
    (50, 0.0310751, 0.776878, 0.0149031, 0.0155376),
    (60, 0.0258959, 0.647398, 0.0124193, 0.012948),
    (100, 0.0155376, 0.388439, 0.00745155, 0.00776878),
])
def test_table1_noise(eps: float, su1: float, su25: float, sd: float, total: float) -> None:
    with pytest.warns(OutOfDomainWarning, match="per-release eps"):
        s1 = nbafl.client_sigma(eps, L=1, **TABLE1)
        s25 = nbafl.client_sigma(eps, L=25, **TABLE1) if eps / 25 >= 1 else None
        d = nbafl.server_sigma(eps, T=25, L=1, N=50, **TABLE1)
    if s25 is None:
        s25 = nbafl.client_sigma(eps, L=25, **TABLE1)
    assert s1 == pytest.approx(su1, rel=SIX)
    assert s25 == pytest.approx(su25, rel=SIX)
    assert d == pytest.approx(sd, rel=SIX)
    assert nbafl.aggregate_noise_std(s1, K=50, sigma_d=d) == pytest.approx(total, rel=SIX)


def test_c_table1() -> None:
    assert nbafl.c_constant(0.01, c_scale=1.25) == pytest.approx(3.884389, rel=SIX)
    assert nbafl.c_constant(0.01, c_scale=1.0) == pytest.approx(3.107511, rel=SIX)
    with pytest.raises(DomainError, match="c_scale must be"):
        nbafl.c_constant(0.01, c_scale=0.9)


def test_sensitivities() -> None:
    assert nbafl.client_sensitivity(20, 100) == pytest.approx(0.4)
    assert nbafl.server_sensitivity(20, 100, 50) == pytest.approx(0.008)
    assert nbafl.server_sensitivity(20, 100, weights=[0.5, 0.25, 0.25]) == pytest.approx(0.2)
    equal = nbafl.server_sensitivity(20, 100, 4)
    assert nbafl.server_sensitivity(20, 100, 4, weights=[0.25] * 4) == pytest.approx(equal)
    with pytest.raises(DomainError, match="N must equal"):
        nbafl.server_sensitivity(20, 100, 3, weights=[0.5, 0.5])


# --- partial participation (eq. 7; N = 50, T = 25, C = 20, m = 100) -------------------------------------------

def test_partial_participation_table() -> None:
    base = dict(C=20, m=100, N=50, T=25, delta=0.01, c_scale=1.25)
    assert nbafl.sampling_b(1, T=25, N=50, K=20) == pytest.approx(2.57925, rel=SIX)
    assert nbafl.sampling_gamma(1, L=1, N=50, K=20) == pytest.approx(0.0835427, rel=SIX)
    assert 1 / nbafl.sampling_gamma(1, L=1, N=50, K=20) == pytest.approx(11.9699, rel=SIX)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OutOfDomainWarning)  # ε/L = 1 and ε = 6 are outside Def. 2
        assert nbafl.server_sigma(1, L=1, K=20, **base) == pytest.approx(0.668066, rel=SIX)
        assert nbafl.sampling_b(6, T=25, N=50, K=20) == pytest.approx(3.17645, rel=SIX)
        assert nbafl.sampling_gamma(6, L=2, N=50, K=20) == pytest.approx(0.217515, rel=SIX)
        assert nbafl.server_sigma(6, L=2, K=20, **base) == 0.0  # T = 25 <= ε/γ = 27.58
        assert nbafl.sampling_b(50, T=25, N=50, K=45) == pytest.approx(1.61876, rel=SIX)
        assert nbafl.server_sigma(50, L=2, K=45, **base) == pytest.approx(0.00528246, rel=SIX)


def test_fig4_setting_is_outside_eq7_domain() -> None:
    with pytest.raises(DomainError, match=r"K must be > N\(1 - e\^\(-eps/T\)\) = 43.2332.*Fig. 4") as err:
        nbafl.sampling_b(50, T=25, N=50, K=20)
    assert "\n" not in str(err.value)
    with pytest.raises(DomainError, match=r"Fig\. 4"), warnings.catch_warnings():
        warnings.simplefilter("ignore", OutOfDomainWarning)
        nbafl.server_sigma(50, 0.01, C=20, m=100, T=25, L=2, N=50, K=20)


# --- properties -----------------------------------------------------------------------------------------------

def test_sigma_d_zero_iff_t_at_most_l_sqrt_n() -> None:
    T, L, N = np.meshgrid(np.arange(1, 41.0), np.arange(1, 6.0), np.arange(1, 30.0), indexing="ij")
    ok = L <= T
    sd = np.asarray(nbafl.server_sigma(0.5, 1e-5, C=1, m=100, T=T[ok], L=L[ok], N=N[ok]))
    assert np.array_equal(sd == 0.0, T[ok] <= L[ok] * np.sqrt(N[ok]))
    assert np.all(sd >= 0)


def test_sigma_d_sampled_positive_iff_t_above_eps_over_gamma() -> None:
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(400):
        n = int(rng.integers(2, 80))
        k = int(rng.integers(1, n + 1))
        eps = float(np.exp(rng.uniform(np.log(0.01), np.log(0.99))))
        L = int(rng.integers(1, 4))
        T = int(rng.integers(L, 200))
        if k <= -n * math.expm1(-eps / T):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OutOfDomainWarning)  # b·ε/T can exceed 1 near the boundary
            sd = nbafl.server_sigma(eps, 1e-5, C=1, m=100, T=T, L=L, N=n, K=k)
        threshold = eps / nbafl.sampling_gamma(eps, L=L, N=n, K=k)
        if abs(T - threshold) < 1e-9 * T:
            continue
        assert (sd > 0) == (threshold < T), (n, k, eps, L, T)
        checked += 1
    assert checked > 200


def test_sampled_reduces_to_full_at_k_equals_n() -> None:
    full = nbafl.server_sigma(0.8, 1e-5, C=1.5, m=1e4, T=np.arange(3, 40.0), L=2, N=5)
    part = nbafl.server_sigma(0.8, 1e-5, C=1.5, m=1e4, T=np.arange(3, 40.0), L=2, N=5, K=5)
    np.testing.assert_allclose(part, full, rtol=1e-13, atol=0)
    assert nbafl.sampling_b(3, T=7, N=9, K=9) == pytest.approx(1.0, rel=1e-14)


def test_sigma_d_is_sqrt_of_variance_gap() -> None:
    kw = dict(C=1.5, m=1e4, delta=1e-5)
    su = nbafl.client_sigma(0.8, L=2, **kw)
    sa = nbafl.server_required_sigma(0.8, T=30, N=20, **kw)
    sd = nbafl.server_sigma(0.8, T=30, L=2, N=20, **kw)
    assert sd == pytest.approx(math.sqrt(sa ** 2 - su ** 2 / 20), rel=1e-13)
    with pytest.warns(OutOfDomainWarning):
        sa_k = nbafl.server_required_sigma(5.0, T=25, N=50, K=30, **kw)
        su_k = nbafl.client_sigma(5.0, L=2, **kw)
        sd_k = nbafl.server_sigma(5.0, T=25, L=2, N=50, K=30, **kw)
    assert sd_k == pytest.approx(math.sqrt(max(sa_k ** 2 - su_k ** 2 / 30, 0)), rel=1e-12)


def test_analytic_calibration_is_exact_and_silent() -> None:
    from dpcalc.accounting import gaussian_mechanism as gm

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        su = nbafl.client_sigma(6, L=1, calibration="analytic", **TABLE1)
        sd = nbafl.server_sigma(6, T=25, L=1, N=50, calibration="analytic", **TABLE1)
    assert su == pytest.approx(float(gm.sigma_analytic(6, 0.01, 0.4)), rel=1e-14)
    assert float(gm.delta(su, 6, 0.4)) <= 0.01  # safe side
    sa = float(gm.sigma_analytic(6 / 25, 0.01, 0.008))
    assert sd == pytest.approx(math.sqrt(sa ** 2 - su ** 2 / 50), rel=1e-12)
    with pytest.raises(DomainError, match="calibration must be"):
        nbafl.client_sigma(6, L=1, calibration="exact", **TABLE1)


# --- bounds, T*, K* (assumed constants: set 1 is A1 of the catalog) -------------------------------------------

@pytest.mark.parametrize(("consts", "p", "k1", "k0", "t_stars"), [
    (dict(pl=0.1, lipschitz=1, smoothness=0.2, dissimilarity=1, theta=2.3), 0.86, 0.751382, 0.00862199,
     (7, 9, 20, 21, 25)),
    (dict(pl=0.05, lipschitz=1, smoothness=0.2, dissimilarity=1, theta=2.3), 0.93, 1.50276, 0.017244,
     (4, 7, 22, 24, 31)),
    (dict(pl=0.1, lipschitz=0.5, smoothness=0.5, dissimilarity=0.5, theta=1.0), 0.8625, 0.39846, 0.0219469,
     (5, 8, 19, 20, 24)),
])
def test_t_star_assumption_sets(consts: dict[str, float], p: float, k1: float, k0: float,
                                t_stars: tuple[int, ...]) -> None:
    base = dict(prox_mu=1, C=20, m=100, N=50, c_scale=1.25)
    got_p = nbafl.contraction_p(consts["pl"], consts["smoothness"], consts["dissimilarity"], 1)
    assert got_p == pytest.approx(p, rel=1e-12)
    with pytest.warns(ErratumWarning, match="lambda1"):
        got = nbafl.kappas(0.01, **{k: v for k, v in consts.items() if k != "theta"}, **base)
    assert got[0] == pytest.approx(k1, rel=SIX)
    assert got[1] == pytest.approx(k0, rel=SIX)
    for eps, want in zip((6, 10, 50, 60, 100), t_stars, strict=True):
        with pytest.warns(ErratumWarning):
            res = nbafl.optimal_t(eps, 0.01, **consts, **base)
        assert res.t_star == want
        assert res.local_minima == (want,)
        f = res.curve
        assert f[want - 1] <= f[want - 2] and (want == len(f) or f[want - 1] <= f[want])  # bound(T*) <= T*±1


def test_t_star_continuous_set1() -> None:
    for eps, want in zip((6, 10, 50, 60, 100), (6.62, 9.39, 20.14, 21.41, 24.96), strict=True):
        with pytest.warns(ErratumWarning):
            res = nbafl.optimal_t(eps, 0.01, **SET1)
        assert res.t_continuous == pytest.approx(want, abs=0.006)
        assert res.bound_continuous <= res.bound + 1e-15


@pytest.mark.parametrize("y", [-800.0, -700.0, -30.0, -5.0, 0.0, 0.5, 1.0, 2.0, 3.3, 10.0, 50.0, 700.0, 1e3, 1e10,
                               1e300])
def test_lambert_w0_exp_against_mpmath(y: float) -> None:
    """W₀(e^y) (the root of x + ln x = y, through the shared root finder) to 2 ulps of the 40-digit value; e^y itself
    where it is below the double range's resolution of W₀ (y < −700; e^−800 underflows to 0)."""
    import mpmath

    with mpmath.workdps(40):
        exact = float(mpmath.lambertw(mpmath.exp(mpmath.mpf(y))).real)
    assert nbafl.optimal.lambert_w0_exp(y) == pytest.approx(exact, rel=4.5e-16, abs=0.0)


def test_lambert_equals_scan_when_kappa0_is_zero() -> None:
    for eps in (0.5, 3, 10, 60, 400):
        for consts in (dict(pl=0.1, lipschitz=1, dissimilarity=1, prox_mu=1),
                       dict(pl=0.3, lipschitz=2, dissimilarity=0.5, prox_mu=2)):
            res = nbafl.optimal_t(eps, 0.01, smoothness=0.0, theta=2.3, C=20, m=100, N=50, c_scale=1.25, t_max=5000,
                                  as_published=False, **consts)
            assert res.t_lambert is not None
            # the scan and its golden-section refinement live on [1, t_max]: T* < 1 is reported as 1
            assert max(res.t_lambert, 1.0) == pytest.approx(res.t_continuous, rel=1e-6)
            assert res.t_star in (max(math.floor(res.t_lambert), 1), math.ceil(res.t_lambert))
    with pytest.warns(ErratumWarning):
        assert nbafl.optimal_t(10, 0.01, **SET1).t_lambert is None  # κ0 > 0: no closed form


def test_bound_nonconvex_counterexample_still_unique_minimiser() -> None:
    """The paper calls eq. (6) convex in T; with A1 but Θ = 0.1, f'' < 0 on T in [20.4, 48.1] at ε = 50 (the
    continuous second derivative); the minimiser stays unique."""
    with pytest.warns(ErratumWarning):
        res = nbafl.optimal_t(50, 0.01, **{**SET1, "theta": 0.1})
    f = res.curve
    second = f[2:] - 2 * f[1:-1] + f[:-2]  # second difference at T = 2 … t_max − 1
    concave = np.flatnonzero(second < 0) + 2
    assert concave.min() == pytest.approx(21, abs=1) and concave.max() == pytest.approx(48, abs=1)
    assert len(res.local_minima) == 1


def test_multiple_local_minima_are_reported() -> None:
    """Eq. 8 over K at ε = 6 (set 1, T = 25) has two local minima: the scan reports both."""
    res = nbafl.optimal_k(6, 0.01, T=25, **SET1)
    assert res.local_minima == (11, 50)
    assert res.k_star == 50 and res.at_full and not res.at_lower_boundary
    assert nbafl.optimal.local_minima([3, 1, 2, 0, 5], [1, 2, 3, 4, 5]) == (2, 4)


@pytest.mark.parametrize(("eps", "k_star", "boundary", "full"), [(1, 50, False, True), (6, 50, False, True),
                                                                  (10, 17, True, False), (50, 44, True, False)])
def test_k_star_reference(eps: float, k_star: int, boundary: bool, full: bool) -> None:
    res = nbafl.optimal_k(eps, 0.01, T=25, **SET1)
    assert (res.k_star, res.at_lower_boundary, res.at_full) == (k_star, boundary, full)
    if eps == 10:
        assert res.bound == pytest.approx(0.557, abs=5e-4)
        curve = dict(zip(res.ks.astype(int).tolist(), res.curve.tolist(), strict=True))
        assert curve[25] == pytest.approx(0.627, abs=5e-4)
        assert curve[50] == pytest.approx(0.596, abs=5e-4)
        assert res.k_min == nbafl.k_domain_min(10, 25, 50) == 17


def test_k_domain_min_is_the_smallest_valid_k() -> None:
    for eps, T, N in [(10, 25, 50), (50, 25, 50), (1, 1, 7), (100, 3, 20), (0.01, 100, 1000)]:
        k = nbafl.k_domain_min(eps, T, N)
        assert k > -N * math.expm1(-eps / T) >= k - 1


def test_lambda1_published_vs_comment() -> None:
    with pytest.warns(ErratumWarning, match="2406.05858"):
        pub = nbafl.lambda1(0.2, 1, 2)
    assert pub == pytest.approx(0.5 + 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nbafl.lambda1(0.2, 1, 2, as_published=False) == pytest.approx(1.1)
        b = nbafl.convergence_bound(10, 0.01, T=9, as_published=False, **{**SET1, "prox_mu": 2})
    with pytest.warns(ErratumWarning):
        b_pub = nbafl.convergence_bound(10, 0.01, T=9, **{**SET1, "prox_mu": 2})
    assert b > b_pub  # the comment's λ1 = 1 + ρB/μ exceeds 1/μ + ρB/μ for μ > 1


def test_bound_limits() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        f = np.asarray(nbafl.convergence_bound(10, 0.01, T=np.arange(1, 400.0), **SET1))
    # T → ∞: the noise term dominates and grows like κ0T²/ε²
    assert f[-1] > f[100] > f.min()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        assert nbafl.convergence_bound(1e12, 0.01, T=1, **SET1) == pytest.approx(0.86 * 2.3, rel=1e-9)


# --- errors: one line naming the parameter and the range ------------------------------------------------------

@pytest.mark.parametrize(("call", "match"), [
    (lambda: nbafl.contraction_p(0.1, 0.9, 1, 1), r"P must be in \(0, 1\).*prox_mu > smoothness\*dissimilarity"),
    (lambda: nbafl.contraction_q(0.1, 0.2, 1, 1, K=1), r"Q must be in \(0, 1\)"),
    (lambda: nbafl.client_sigma(0.5, 0.01, C=1, m=0.5), r"m must be an integer >= 1"),
    (lambda: nbafl.client_sigma(0.5, 0.01, C=1, m=0), r"m must be an integer >= 1"),
    (lambda: nbafl.server_sigma(0.5, 0.01, C=1, m=10, T=3, L=4, N=5), r"L must be an integer in \[1, T\]"),
    (lambda: nbafl.sampling_b(0.5, T=3, N=5, K=6), r"K must be an integer in \[1, N\]"),
    (lambda: nbafl.sampling_b(0.5, T=3.5, N=5, K=5), r"T must be an integer >= 1"),
    (lambda: nbafl.optimal_t(1, 0.01, t_max=0, **SET1), r"t_max must be an integer >= 1"),
    (lambda: nbafl.optimal_k(1, 0.01, T=25, **{**SET1, "dissimilarity": 3}), r"Q must be in \(0, 1\) for some K"),
    (lambda: nbafl.client_sigma(-1, 0.01, C=1, m=10), r"eps must be a finite number > 0"),
])
def test_errors_are_one_line(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        with pytest.raises(DomainError, match=match) as err:
            call()
    assert "\n" not in str(err.value)


# --- what a tight accountant saves ----------------------------------------------------------------------------

def test_accounting_comparison_table1() -> None:
    res = nbafl.compare_accountants(10, 0.01, C=20, m=100, L=25, c_scale=1.25, accountants=(
        "linear", "rdp", "analytic", "gdp"))  # ε/L = 0.4: inside Def. 2, no warning
    assert res.sigma_u_paper == pytest.approx(3.88439, rel=SIX)
    lin, rdp, ana, gdp = (res.row(n) for n in ("linear", "rdp", "analytic", "gdp"))
    assert lin.eps == 10 and lin.noise_saved == 0
    assert ana.eps == pytest.approx(gdp.eps, rel=1e-9)  # both exact for a Gaussian composition
    assert ana.eps <= rdp.eps < 10
    assert ana.sigma_u == pytest.approx(gdp.sigma_u, rel=1e-8)
    assert ana.sigma_u <= rdp.sigma_u < res.sigma_u_paper
    assert ana.noise_saved == pytest.approx(1 - ana.sigma_u / res.sigma_u_paper)
    from dpcalc.accounting import gaussian_mechanism as gm

    z = ana.sigma_u / res.sensitivity  # safe side: the needed σ really gives ε <= 10 at δ
    assert float(gm.delta(z / math.sqrt(25), 10)) <= 0.01 * (1 + 1e-12)
    assert float(gm.eps_analytic(res.noise_multiplier / 5, 0.01)) == pytest.approx(ana.eps, rel=1e-12)


def test_accounting_rdp_matches_dp_accounting() -> None:
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc

    res = nbafl.compare_accountants(0.9, 1e-5, C=20, m=100, L=3, accountants=("rdp",))
    acc = rdp_acc.RdpAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(res.noise_multiplier), 3)
    assert res.row("rdp").eps == pytest.approx(acc.get_epsilon(1e-5), rel=2e-3)  # order grids differ


def test_accounting_pld_row_is_certified_and_tight() -> None:
    """dpcalc's PLD (certified upper end) is >= the exact ε and within its 1e-3 bracket of it; dp_accounting's
    PLD (a test-only peer) agrees to 2e-3."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    with pytest.warns(OutOfDomainWarning):
        res = nbafl.compare_accountants(50, 0.01, C=20, m=100, L=25, c_scale=1.25, accountants=("analytic", "pld"))
    exact, pld = res.row("analytic"), res.row("pld")
    assert exact.eps <= pld.eps <= exact.eps * (1 + 1e-3)
    assert exact.sigma_u <= pld.sigma_u <= exact.sigma_u * (1 + 3e-3)  # safe side: PLD's σ certifies ε
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.GaussianDpEvent(res.noise_multiplier), 25)
    assert acc.get_epsilon(0.01) == pytest.approx(pld.eps, rel=2e-3)


def test_accounting_failure_of_one_accountant_keeps_the_others(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dpcalc.nbafl import accounting

    real = accounting._core_eps

    def broken(name: str, *args: float) -> float:
        if name == "pld":
            raise RuntimeError("pld: internal error")
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(accounting, "_core_eps", broken)
    res = nbafl.compare_accountants(0.5, 1e-5, C=1, m=10, accountants=("analytic", "pld"))
    assert res.row("analytic").eps is not None
    assert res.row("pld").eps is None and res.row("pld").failure == "pld: internal error"


def test_accounting_unknown_name() -> None:
    with pytest.raises(DomainError, match="accountants must each be one of"):
        nbafl.compare_accountants(0.5, 1e-5, C=1, m=10, accountants=("moments",))


# --- catalog three-way: independent checks at their points ------------------------------------------------------

@pytest.mark.parametrize("fid", [f.id for f in catalog.by_paper("003")])
def test_catalog_check_passes(fid: str) -> None:
    row = run_check(catalog.get(fid), samples=100_000, seed=1)
    assert row.verdict == "pass", (fid, row.detail, row.closed_form, row.estimate, row.ci_low, row.ci_high)


def test_published_bound_also_reproduced_by_recursion() -> None:
    row = run_check(catalog.get("nbafl.convergence_bound"), samples=100_000, seed=2, published=True)
    assert row.verdict == "pass"  # the recursion with the published λ1 reproduces the published bound


def test_sampled_bound_safe_near_eq7_boundary() -> None:
    """Regression (10,000-point sweep): at N/K = 13 the argument 1 + (N/K)·expm1(−ε/T) of g is 4e-4, so float64
    g carries ~2e-13 relative error; the bound was 2.1e-13 below the exact (50-digit SymPy) value. g is now
    rounded down by its error bound, so the bound stays above."""
    from dpcalc import nbafl

    got = nbafl.convergence_bound_sampled(
        8.564498788031091, 1.5233550349730132e-05, T=107, K=1, pl=0.0019400888099756766,
        lipschitz=1.7144466601165862, smoothness=0.0237962476853358, dissimilarity=0.8768544638423154,
        prox_mu=9.104076503755925, theta=0.01665268174964995, C=6.980962126330058, m=66433, N=13,
        c_scale=1.4548372445810815)
    exact = 0.025653686373515446  # tests/support/catalog_ref.py at 40 digits
    assert exact <= got <= exact * (1 + 1e-10)
