"""Zhang et al. 2024 (secure aggregation without added noise): the closed forms evaluated by hand at stated settings
(Lemma 1, eqs. (9), (19), (30), (35), Table 1), exact divergence vs independent numerics, the two covariance
normalisations, bounds vs exact divergences, WF-NA properties, errors.

Tolerances: reference vectors at their written digits (rtol 1e-9 … 1e-12); closed form vs full-matrix route 1e-10
relative; KL limit 1e-6 at α = 1 + 1e-7.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpcalc import catalog, secagg, verify
from dpcalc.accounting import rdp as acc
from dpcalc.checks.secagg import wfna_change
from dpcalc.errors import DomainError, ErratumWarning, InfeasibleError

# --- reference vectors (the closed forms by hand) --------------------------------------------------------------


@pytest.mark.parametrize(("r", "a", "d", "want"), [(0.5, 10, 1e-5, 1.779213940552), (1.0, 2, 1e-5, 12.512925464970),
                                                    (0.1, 32, 1e-4, 0.397107753935)])
def test_lemma1_vectors(r: float, a: float, d: float, want: float) -> None:
    g = secagg.dp_from_rdp([a], [r], d, method="lemma1")
    assert g.eps == pytest.approx(want, rel=1e-11) and g.alpha == a
    assert float(acc.eps_lemma1(r, a, d)) == pytest.approx(want, rel=1e-11)


def test_eq9_vectors_and_domain() -> None:
    assert secagg.mi_leakage_bound(1, 100, 10, 32) == pytest.approx(5.615248005114, rel=1e-12)
    assert secagg.mi_leakage_bound(1, 1000, 50, 32) == pytest.approx(10.739108760801, rel=1e-12)
    assert secagg.mi_leakage_bound(0.5, 10, 2, 1) == pytest.approx(8.465735902800, rel=1e-12)
    with pytest.raises(DomainError, match="N must be"):
        secagg.mi_leakage_bound(1, 10, 1, 1)


@pytest.mark.parametrize(("a", "b", "c", "d", "s", "e19", "e30", "dp"), [
    (2, 32, 1, 1000, 0.1, 0.021714285714, 0.021510204082, 11.5346397507),
    (5, 1, 1, 100, 0.5, 0.03, 0.028611111111, 2.9082313662),
    (1.5, 10, 2, 500, 0.2, 0.130212765957, 0.126382978723, 23.1560636959),
    (10, 32, 1, 1000, 0.1, 0.019456790123, None, 1.2986707307)])
def test_theorem2_vectors(a: float, b: float, c: float, d: float, s: float, e19: float, e30: float | None,
                          dp: float) -> None:
    eps = secagg.theorem2_rdp(a, s, b, c, d, normalization="sec4")
    assert eps == pytest.approx(e19, rel=1e-10)
    if e30 is not None:
        assert secagg.theorem2_rdp(a, s, b, c, d, normalization="sec4", form="unsimplified") == pytest.approx(e30,
                                                                                                               rel=1e-10)
    assert secagg.dp_from_rdp([a], [eps], 1e-5, method="lemma1").eps == pytest.approx(dp, rel=1e-10)
    assert secagg.theorem2_alpha_max(s, c, d, normalization="sec4") == pytest.approx(d * s / c ** 2)


@pytest.mark.parametrize(("a", "b", "c", "d", "n", "s2", "e35", "printed", "paper_hi", "pos_hi"), [
    (2, 32, 10, 1200, 50, 0.01, 0.0218439716312, 0.0110877192982, 3, 96),
    (3, 8, 1, 100, 10, 0.05, 0.00883248730964, 0.00498740554156, 25, 200),
    (1.5, 1, 1, 10, 5, 0.1, 3.15, 0.942857142857, 2.5, 2.5),
    (2, 32, 10, 1200, 50, 0.001, 0.270175438596, 0.122480620155, 0.3, 9.6)])
def test_theorem4_and_table1_wf_row(a: float, b: float, c: float, d: float, n: float, s2: float, e35: float,
                                    printed: float, paper_hi: float, pos_hi: float) -> None:
    assert secagg.theorem4_rdp(a, n, s2, b, c, d) == pytest.approx(e35, rel=1e-11)
    assert secagg.table1_rdp("gsgd_wfna", a, n, s2, b, c, d) == pytest.approx(e35, rel=1e-11)
    with pytest.warns(ErratumWarning, match="E1"):
        assert secagg.table1_rdp("gsgd_wfna", a, n, s2, b, c, d, as_published=True) == pytest.approx(printed,
                                                                                                     rel=1e-11)
    assert secagg.table1_rdp("gsgd_iso", a, n, s2, b, c, d) == pytest.approx(printed, rel=1e-11)
    # order ranges: positivity (default) vs the printed one (E2)
    assert math.isinf(secagg.theorem4_rdp(pos_hi * 1.0001, n, s2, b, c, d))
    with pytest.warns(ErratumWarning, match="E2"):
        pub = secagg.theorem4_rdp(a, n, s2, b, c, d, as_published=True)
    assert (math.isinf(pub) if a >= paper_hi else pub == pytest.approx(e35, rel=1e-12))


TABLE1_FIG5 = {  # σ²: (row 1 ε, ε', α*), row 3 (ε, α*), row 5 (ε, α*), row 6 (ε, α*)
    1.0: ((0.01237811051, 0.3832630323, 49.558), (0.01011895864, 1821.91), (0.01065627485, 1663.35),
          (0.01120352279, 1528.93)),
    0.1: ((0.06331535596, 1.238693978, 16.355), (0.03201795053, 576.82), (0.03751272972, 442.10),
          (0.04332232939, 356.27)),
    0.01: ((1.002008345, 4.184192823, 5.856), (0.1014395864, 183.09), (0.1603876394, 91.75),
           (0.2287771964, 59.56)),
    0.001: ((12.27822838, 15.90256478, 2.536), (0.3226795053, 58.58), (1.05226743, 13.35), (2.049375143, 7.216)),
}


@pytest.mark.parametrize("s2", sorted(TABLE1_FIG5))
def test_table1_fig5_setting(s2: float) -> None:
    rows = {r.row: r for r in secagg.table1(50, s2, 1e-4, 32, 10, 1200)}
    (e1, ep1, a1), (e3, a3), (e5, a5), (e6, a6) = TABLE1_FIG5[s2]
    assert rows["sgd_iid_iso"].eps == pytest.approx(e1, rel=1e-9)
    assert rows["sgd_iid_iso"].eps_prime == pytest.approx(ep1, rel=1e-9)
    assert rows["sgd_iid_iso"].alpha == pytest.approx(a1, abs=1e-3)
    assert rows["gd_iso"].eps == pytest.approx(e3, rel=1e-9) and rows["gd_iso"].alpha == pytest.approx(a3, abs=0.01)
    assert rows["gsgd_iso"].eps == pytest.approx(e5, rel=1e-9)
    assert rows["gsgd_iso"].alpha == pytest.approx(a5, rel=1e-3)
    assert rows["gsgd_wfna"].eps == pytest.approx(e6, rel=1e-9)
    assert rows["gsgd_wfna"].alpha == pytest.approx(a6, rel=1e-3)
    for row in ("sgd_iid_wfna", "gd_wfna"):
        assert not rows[row].guarantee and rows[row].eps is None and "No DP guarantee" in rows[row].note
        with pytest.raises(InfeasibleError, match="No DP guarantee"):
            secagg.table1_eps(row, 50, s2, 1e-4, 32, 10, 1200)


def test_table1_row_order_and_published_row() -> None:
    rows = {r.row: r for r in secagg.table1(100, 0.01, 1e-5, 32, 10, 1200)}
    assert rows["gsgd_wfna"].eps > rows["gsgd_iso"].eps > rows["gd_iso"].eps
    with pytest.warns(ErratumWarning, match="E1"):
        pub = {r.row: r for r in secagg.table1(100, 0.01, 1e-5, 32, 10, 1200, as_published=True)}
    assert pub["gsgd_wfna"].eps == pytest.approx(rows["gsgd_iso"].eps, rel=1e-12)


def test_closed_form_alpha_matches_numeric_minimum() -> None:
    for slope in (1e-4, 0.01, 3.0):
        eps, al = secagg.gaussian_closed_form_eps(slope, 1e-6)
        g = secagg.optimal_dp(lambda a, s=slope: s * a, 1e-6, method="lemma1")
        assert g.eps == pytest.approx(eps, rel=1e-10) and g.alpha == pytest.approx(al, rel=1e-4)


def test_improved_conversion_and_rounds() -> None:
    a = np.arange(2.0, 65.0)
    curve = secagg.theorem2_rdp(a, 5.0, 32, 10, 1200, normalization="sec4")
    assert np.isinf(curve[a >= 60]).all() and np.isfinite(curve[a < 60]).all()
    lem = secagg.dp_from_rdp(a, curve, 1e-4, method="lemma1")
    imp = secagg.dp_from_rdp(a, curve, 1e-4)  # the library's default conversion
    assert imp.method == "improved"
    assert imp.eps < lem.eps
    assert lem.eps == pytest.approx(float(np.min(curve[a < 60] - np.log(1e-4) / (a[a < 60] - 1))), rel=1e-14)
    ten = secagg.dp_from_rdp(a, curve, 1e-4, method="lemma1", rounds=10)
    assert ten.rdp == pytest.approx(10 * curve[int(ten.alpha) - 2], rel=1e-14) and ten.eps > lem.eps
    with pytest.raises(InfeasibleError):
        secagg.dp_from_rdp([70.0], [math.inf], 1e-4)


# --- normalisations -----------------------------------------------------------------------------------------------

def test_sec4_and_sec5_give_the_same_eps(rng: np.random.Generator) -> None:
    b = 8
    g = rng.standard_normal((4, 50))
    g /= np.maximum(np.linalg.norm(g, axis=0), 1.0)
    s4 = secagg.second_moment(g, normalization="sec4")
    s5 = secagg.second_moment(g, normalization="sec5", B=b)
    np.testing.assert_allclose(s4, b * s5, rtol=1e-14)
    l4 = secagg.eigenvalues(g, normalization="sec4")
    l5 = secagg.eigenvalues(g, normalization="sec5", B=b)
    np.testing.assert_allclose(l4, b * l5, rtol=1e-12)
    s = 3 * l4[0]
    e4 = secagg.theorem2_rdp(3.0, s, b, 1.0, 50, normalization="sec4")
    e5 = secagg.theorem2_rdp(3.0, s / b, b, 1.0, 50, normalization="sec5")
    assert e4 == pytest.approx(e5, rel=1e-14)
    assert secagg.to_sec4(l5, normalization="sec5", B=b) == pytest.approx(l4, rel=1e-12)
    with pytest.raises(DomainError, match="B is required"):
        secagg.to_sec4(1.0, normalization="sec5", B=None, name="x")
    with pytest.raises(DomainError, match="normalization"):
        secagg.theorem2_rdp(3.0, s, b, 1.0, 50, normalization="sec6")


def test_table1_gsgd_iso_is_theorem2_with_s_equal_nb_sigma2() -> None:
    a = np.linspace(1.1, 90, 50)
    t1 = secagg.table1_rdp("gsgd_iso", a, 50, 0.01, 32, 10, 1200)
    t2 = secagg.theorem2_rdp(a, 50 * 32 * 0.01, 32, 10, 1200, normalization="sec4")
    np.testing.assert_array_equal(t1, t2)


# --- exact divergence ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("m1", "s1", "m2", "s2", "a", "want"), [
    (0, 1, 1, 1, 2, 1.0), (0, 2, 0.5, 1.2, 1.5, 0.3844272962), (1, 0.7, 0, 1, 1.3, 0.6310382535),
    (0, 1, 0, 2, 4, 0.1938584683), (0, 1, 0.2, 1.1, 10, 0.1144419232)])
def test_divergence_1d_vectors(m1: float, s1: float, m2: float, s2: float, a: float, want: float) -> None:
    assert float(secagg.renyi_gaussian_codiagonal([m1 - m2], [s1], [s2], a)) == pytest.approx(want, rel=1e-9)
    assert float(secagg.renyi_gaussian([m1], [[s1]], [m2], [[s2]], a)) == pytest.approx(want, rel=1e-9)


def test_divergence_not_pd_is_inf_with_reason() -> None:
    d = secagg.renyi_gaussian_codiagonal([0.5], [1.5], [1.0], 3.0)
    assert math.isinf(d.value) and "not positive definite" in d.reason
    full = secagg.renyi_gaussian([0.3], [[1.5]], [-0.2], [[1.0]], [2.0, 3.0, 4.0])
    assert np.isfinite(full.value[0]) and np.isinf(full.value[1:]).all() and "alpha = 3" in full.reason


def test_divergence_2d_vectors_both_routes() -> None:
    mu1, s1, s2 = [0.1, -0.2], [[1, 0.3], [0.3, 0.5]], [[1.2, 0.1], [0.1, 0.6]]
    want = {1.5: 0.1524053247698, 2.0: 0.1793630967055, 5.0: 0.2828779168193}
    for a, w in want.items():
        assert float(secagg.renyi_gaussian(mu1, s1, [0, 0], s2, a)) == pytest.approx(w, rel=1e-12)
    many = secagg.renyi_gaussian(mu1, s1, [0, 0], s2, np.array([1.5, 2.0, 5.0] + [3.0] * 8))  # eigen route
    np.testing.assert_allclose(many.value[:3], list(want.values()), rtol=1e-12)


def test_full_matrix_equals_codiagonal_in_random_bases(rng: np.random.Generator) -> None:
    for k in (1, 3, 40, 120):
        q, _ = np.linalg.qr(rng.standard_normal((k, k)))
        l1 = rng.uniform(0.5, 2.0, k)
        l2 = l1 * rng.uniform(0.8, 1.25, k)
        dmu = rng.standard_normal(k) * 0.1
        alphas = np.array([0.5, 1.5, 3.0, 7.0])
        want = secagg.renyi_gaussian_codiagonal(dmu, l1, l2, alphas).value
        chol = secagg.renyi_gaussian(q @ dmu, (q * l1) @ q.T, np.zeros(k), (q * l2) @ q.T, alphas).value
        eig = secagg.renyi_gaussian(q @ dmu, (q * l1) @ q.T, np.zeros(k), (q * l2) @ q.T,
                                    np.concatenate([alphas, np.full(8, 2.0)])).value[:4]
        np.testing.assert_allclose(chol, want, rtol=1e-10)
        np.testing.assert_allclose(eig, want, rtol=1e-10)


def test_small_differences_and_kl_limit() -> None:
    # tiny covariance change: closed form keeps full relative accuracy (series branch)
    r = 1e-9
    d = secagg.renyi_gaussian_codiagonal([0.0], [1.0], [1.0 + r], 3.0)
    assert d.value == pytest.approx(0.75 * r * r, rel=1e-6)
    # α → 1 tends to KL(P‖Q) = ½[λ1/λ2 − 1 − ln(λ1/λ2) + Δμ²/λ2]
    l1, l2, dm = 0.7, 1.3, 0.4
    kl = 0.5 * (l1 / l2 - 1 - math.log(l1 / l2) + dm * dm / l2)
    assert float(secagg.renyi_gaussian_codiagonal([dm], [l1], [l2], 1 + 1e-7)) == pytest.approx(kl, rel=1e-6)


def test_divergence_input_errors() -> None:
    good = [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(DomainError, match="symmetric"):
        secagg.renyi_gaussian([0, 0], [[1, 0.5], [0.1, 1]], [0, 0], good, 2.0)
    with pytest.raises(DomainError, match=r"square|2 × 2"):
        secagg.renyi_gaussian([0, 0], [[1, 0, 0]], [0, 0], good, 2.0)
    with pytest.raises(DomainError, match="finite"):
        secagg.renyi_gaussian([0, np.nan], good, [0, 0], good, 2.0)
    with pytest.raises(DomainError, match="positive definite"):
        secagg.renyi_gaussian([0, 0], [[1, 1], [1, 1]], [0, 0], good, 2.0)
    with pytest.raises(DomainError, match="alpha"):
        secagg.renyi_gaussian([0, 0], good, [0, 0], good, 1.0)
    with pytest.raises(DomainError, match="lam1"):
        secagg.renyi_gaussian_codiagonal([0], [-1e-3], [1], 2.0)


# --- from data, Theorem 1, Theorem 3 ----------------------------------------------------------------------------------

def _clipped(rng: np.random.Generator, k: int, d: int, c: float = 1.0) -> np.ndarray:
    g = rng.standard_normal((k, d))
    return g * (c * rng.uniform(0.3, 1.0, d) / np.linalg.norm(g, axis=0))


def test_gradients_to_rdp_and_npy(tmp_path, rng: np.random.Generator) -> None:  # type: ignore[no-untyped-def]
    users = [_clipped(rng, 3, 40) for _ in range(5)]
    path = tmp_path / "g.npy"
    np.save(path, np.stack(users))
    loaded = secagg.load_gradients(path)
    assert len(loaded) == 5 and np.array_equal(loaded[2], users[2])
    res = secagg.theorem2_from_gradients(loaded, np.array([2.0, 4.0]), 8, 1.0)
    lam = [np.linalg.eigvalsh(g @ g.T / 40)[0] for g in users]
    assert res.eig_min_sum_sec4 == pytest.approx(sum(lam), rel=1e-12)
    np.testing.assert_allclose(res.rdp, secagg.theorem2_rdp([2.0, 4.0], sum(lam), 8, 1.0, 40, normalization="sec4"))
    # D < K: the Gram route pads zeros (Σ singular: Assumption 3 fails)
    wide = _clipped(rng, 6, 4)
    ev = secagg.eigenvalues(wide, normalization="sec4")
    assert ev.shape == (6,) and ev[0] == 0.0
    np.testing.assert_allclose(ev[2:], np.linalg.eigvalsh(wide @ wide.T / 4)[2:], rtol=1e-10)


def test_gradient_file_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not an npy file")
    with pytest.raises(DomainError, match="not a readable"):
        secagg.load_gradients(bad)
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(DomainError, match="not a readable"):
        secagg.load_gradients(obj)
    txt = tmp_path / "s.npy"
    np.save(txt, np.array(["a", "b"]))
    with pytest.raises(DomainError, match="must hold numbers"):
        secagg.load_gradients(txt)
    one = tmp_path / "v.npy"
    np.save(one, np.ones(3))
    with pytest.raises(DomainError, match="K × D"):
        secagg.load_gradients(one)
    with pytest.raises(DomainError, match="does not exist"):
        secagg.load_gradients(tmp_path / "missing.npy")
    with pytest.raises(DomainError, match="clip"):
        secagg.theorem2_from_gradients([np.full((2, 3), 5.0)], 2.0, 1, 1.0)


def test_span_check_and_threshold(rng: np.random.Generator) -> None:
    g = rng.standard_normal((5, 3))
    inside = g @ rng.standard_normal(3)
    outside = inside + 1e-3 * np.linalg.svd(np.column_stack([g, rng.standard_normal(5)]))[0][:, -1]
    assert secagg.span_check(g, inside).in_span and secagg.span_check(g, inside).rank == 3
    assert not secagg.span_check(g, outside).in_span
    assert secagg.theorem1_delta_threshold("iid", 32, 1200) == pytest.approx(32 / 1200)
    assert secagg.theorem1_delta_threshold("gaussian", 32, 1200) == 1.0
    with pytest.raises(DomainError, match="B must be <= D"):
        secagg.theorem1_delta_threshold("iid", 64, 32)


def test_projected_eigenvalues_recover_the_subspace(rng: np.random.Generator) -> None:
    low = _clipped(rng, 2, 30)
    basis = np.linalg.qr(rng.standard_normal((6, 2)))[0]
    emb = basis @ low
    found = secagg.gradient_subspace(emb)
    assert found.shape == (6, 2)
    np.testing.assert_allclose(secagg.projected_eigenvalues(emb, found, normalization="sec4"),
                               np.linalg.eigvalsh(low @ low.T / 30), rtol=1e-10)
    assert secagg.eigenvalues(emb, normalization="sec4")[0] == pytest.approx(0.0, abs=1e-14)


# --- WF-NA ------------------------------------------------------------------------------------------------------------

def test_wfna_vector() -> None:
    g = np.array([[1, 0, 0.6], [0, 0.5, 0.8]])
    cov = secagg.second_moment(g, normalization="sec5", B=2)
    np.testing.assert_allclose(g.mean(axis=1), [0.533333, 0.433333], atol=1e-6)
    np.testing.assert_allclose(cov, [[0.2266667, 0.08], [0.08, 0.1483333]], atol=1e-7)
    wf = secagg.water_filling(cov, 0.1, normalization="sec5")
    np.testing.assert_allclose(wf.eigenvalues, [0.0984268, 0.2765732], atol=1e-7)
    np.testing.assert_allclose(cov + wf.noise_cov, [[0.2271074, 0.0792935], [0.0792935, 0.1494658]], atol=1e-7)
    np.testing.assert_allclose(wf.noise_cov, [[0.00044071, -0.00070646], [-0.00070646, 0.00113245]], atol=1e-8)
    assert wf.added_power == pytest.approx(0.0015731597, abs=1e-10)
    sec4 = secagg.water_filling(2 * cov, 0.1, normalization="sec4", B=2)
    np.testing.assert_allclose(sec4.noise_cov, wf.noise_cov, atol=1e-15)


def test_wfna_floor_and_power(rng: np.random.Generator) -> None:
    for k in (2, 5, 30):
        g = _clipped(rng, k, 3 * k)
        cov = secagg.second_moment(g, normalization="sec5", B=4)
        s2 = float(np.median(np.linalg.eigvalsh(cov)))
        wf = secagg.water_filling(cov, s2, normalization="sec5")
        assert np.linalg.eigvalsh(cov + wf.noise_cov)[0] >= s2 * (1 - 1e-10)
        assert wf.min_eigenvalue_after >= s2 * (1 - 1e-10)
        assert wf.added_power <= wf.isotropic_power and wf.power_ratio <= 1
        assert wf.added_power == pytest.approx(secagg.added_power(wf.eigenvalues, s2), rel=1e-10)


def test_block_variant_warns_and_breaks_the_floor() -> None:
    with pytest.warns(ErratumWarning, match="E8"):
        wf = secagg.water_filling([[1, 0.9], [0.9, 1]], 1.0, normalization="sec5", blocks=2)
    assert wf.added_power == 0.0 and wf.min_eigenvalue_after == pytest.approx(0.1)


# --- bounds vs exact divergences (the verify recipes) ----------------------------------------------------------------

BOUND_IDS = ["secagg.theorem2_rdp", "secagg.theorem2_rdp_unsimplified", "secagg.theorem3_rdp", "secagg.theorem4_rdp",
             "secagg.table1_gsgd_iso_rdp", "secagg.table1_gsgd_wfna_rdp"]


@pytest.mark.parametrize("fid", BOUND_IDS)
def test_bounds_dominate_exact_divergence(fid: str) -> None:
    row = verify.run_check(catalog.get(fid))
    assert row.verdict == "pass", row.detail
    assert 0.8 < row.estimate / row.closed_form <= 1.0  # the adversarial instance comes close


@pytest.mark.parametrize(("fid", "name"), [("secagg.theorem2_rdp", "theorem2_rdp"),
                                           ("secagg.theorem4_rdp", "theorem4_rdp")])
def test_bound_recipe_flags_a_halved_bound(fid: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = getattr(secagg, name)
    monkeypatch.setattr(secagg, name, lambda *a, **k: 0.5 * np.asarray(real(*a, **k)))
    row = verify.run_check(catalog.get(fid))
    assert row.verdict == "fail" and row.estimate > row.closed_form


def test_e7_counterexample_and_published_inequality_fails() -> None:
    f = catalog.get("secagg.wfna_covariance_change_bound")
    assert verify.run_check(f).verdict == "pass"
    pub = verify.run_check(f, published=True)
    assert pub.verdict == "fail"
    rest = np.column_stack([[1.0, 0.0], [math.cos(math.pi / 6), 0.5]])
    g1 = np.array([math.cos(5 * math.pi / 12), math.sin(5 * math.pi / 12)])
    _, excess = wfna_change(rest, g1, rest[:, 1], 0.25, 1.0)  # erratum E7: eq. (38) claims <= 0
    assert excess == pytest.approx(0.0907, abs=5e-5)


def test_exact_aggregate_divergence_is_symmetric_in_the_pair(rng: np.random.Generator) -> None:
    users = [_clipped(rng, 2, 6) for _ in range(3)]
    pair = secagg.exact_aggregate_divergence(users, 1, 2, -users[1][:, 2], 3.0, 4)
    assert pair.value == max(float(pair.forward), float(pair.backward)) > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        secagg.exact_aggregate_divergence(users, 0, 0, users[0][:, 0] * 0.5, 2.0, 4, noise="wfna", sigma2=0.05)


def test_fig4_spectra_wfna_floor_and_power() -> None:
    """Fig. 4: WF-NA lifts every eigenvalue to >= σ² with added power Σ max(σ² − λ, 0) <= isotropic Kσ²."""
    lam = [2.0, 1.4, 1.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.12, 0.08, 0.05, 0.03]
    k = np.arange(1, len(lam) + 1, dtype=float)
    alone = secagg.wfna_spectrum(k, lam, 0.0)
    wf = secagg.wfna_spectrum(k, lam, 0.4)
    iso = secagg.isotropic_spectrum(k, lam, 0.4)
    assert list(alone) == sorted(lam, reverse=True)
    assert wf.min() >= 0.4 and np.all(iso >= wf) and np.all(wf >= alone)
    assert float(np.sum(wf - alone)) == pytest.approx(secagg.added_power(lam, 0.4), rel=1e-15)
    assert float(np.sum(iso - alone)) == pytest.approx(len(lam) * 0.4, rel=1e-15)
    with pytest.raises(DomainError, match="index"):
        secagg.wfna_spectrum(13, lam, 0.4)


def test_table1_iid_row_no_overflow_at_large_eps_prime() -> None:
    """Regression found by the domain sweep of secagg.table1_sgd_iid_iso_eps (point 95 of its sample): ε' = 2090
    overflowed expm1 and the row returned a silent inf; log(1 + (B/D)(e^{ε'} − 1)) is now evaluated in log space.
    Against the entry's SymPy form at 50 digits, on the safe side."""
    from dpcalc import catalog

    vals = {"N": 17.0, "sigma2": 0.0034686494166911593, "B": 1.0, "C": 7.178447634741984, "D": 363.0,
            "delta": 5.223046951159716e-08}
    f = catalog.get("secagg.table1_sgd_iid_iso_eps")
    got = float(f.call(vals))
    want = float(f.evaluate_mp(vals, dps=50))
    assert want <= got <= want * (1 + f.rtol)
    assert got == pytest.approx(2084.2437420286907, rel=2e-13)  # two outward factors 1 + 5e-14 (ε' and ε)


def test_table1_row_without_an_order_range_is_a_row_with_a_note() -> None:
    """N = 10, σ² = 1e-3, B = 199, C = 310, D = 438: α_max < 1 for the GSGD rows; the table still has its six rows
    (it raised 'the order range (1, 0.009) is empty', naming no parameter; found by the library fuzz)."""
    rows = {e.row: e for e in secagg.table1(10, 1e-3, 1e-3, 199, 310, 438)}
    assert len(rows) == 6 and rows["gd_iso"].eps is not None
    for r in ("gsgd_iso", "gsgd_wfna"):
        assert rows[r].eps is None and not rows[r].guarantee
        assert "sigma2 = 0.001" in rows[r].note and "alpha_max" in rows[r].note


def test_codiagonal_divergence_at_a_huge_order_with_equal_spectra() -> None:
    """α = 1e300 with λ₂ = λ₁: the small-r series multiplied α^{n−1} (inf) by rⁿ (0): NaN (library fuzz). Term II
    is exactly 0 there and Term I = αΔμ²/(2λ) = 5e299."""
    d = secagg.renyi_gaussian_codiagonal([1.0, 0.0], [1.0, 2.0], [1.0, 2.0], 1e300)
    assert d.logdet_term == 0.0 and d.value == 5e299
