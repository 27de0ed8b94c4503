"""ε lower bounds from counts and scores: the peers' test vectors (TF-Privacy research/audit_2020/audit_test.py,
jax_privacy auditing/canary_score_auditor_test.py), mpmath on the catalog's SymPy forms, and simulated audits
(validity: the bound stays below the true ε at the stated confidence)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.accounting import gdp
from dpcalc.audit import audit_counts, audit_scores, cp_upper, eps_lower, mu_lower, read_scores
from dpcalc.errors import DomainError
from tests.support.mp_cache import evaluate_mp


def test_tf_privacy_audit_2020_vectors() -> None:
    """compute_epsilon_and_acc Test0–Test2 (alpha = 0.01 two-sided: confidence 0.99 here; pois_ct = group size)."""
    assert eps_lower(500, 500, 0, 500, confidence=0.99) == pytest.approx(4.541915810224092, rel=1e-12)
    assert eps_lower(500, 500, 0, 500, confidence=0.99, group_size=2) == pytest.approx(2.27095790511, abs=1e-9)
    assert eps_lower(500, 500, 500, 500, confidence=0.99) == 0.0
    # compute_results Test0: in-scores all 1, out-scores half 0 half 0.5: the best threshold flags only the 1s
    scores = np.array([1.0] * 500 + [0.0] * 250 + [0.5] * 250)
    labels = np.array([1] * 500 + [0] * 500)
    r = audit_scores(scores, labels, confidence=0.99, method="best")
    assert r.threshold == 1.0 and r.eps_lower == pytest.approx(4.541915810224092, rel=1e-12)


@pytest.mark.parametrize(("n", "k_frac", "alpha"), [(10, 0.3, 0.1), (100, 0.5, 0.03), (1000, 0.9, 0.01)])
def test_clopper_pearson_upper_coverage(n: int, k_frac: float, alpha: float) -> None:
    """jax_privacy's test_clopper_pearson_upper: P(Binomial(n, p̄) ≤ k) = α, within 5 % relative (10^6 draws)."""
    k = int(k_frac * n)
    p = float(cp_upper(k, n, 1 - alpha))
    rng = np.random.default_rng(0xBAD5EED)
    assert np.mean(rng.binomial(n, p, 1_000_000) <= k) == pytest.approx(alpha, rel=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("fid", ["audit.counts_eps_lower", "audit.counts_mu_lower"])
def test_counts_against_sympy_at_random_points(fid: str) -> None:
    """The entries skip the generic 25-point sweep (seconds a point): 4 random points here, 50 digits."""
    f = catalog.get(fid)
    rng = np.random.default_rng(zlib.crc32(fid.encode()))
    for _ in range(4):
        vals = f.sample_inputs(rng)
        assert float(f.call(vals)) == pytest.approx(float(evaluate_mp(f, vals, dps=50)), rel=1e-9)


def test_counts_audit_is_valid_on_simulated_gaussian_attacks() -> None:
    """200 audits of a μ = 1 attack (1000 + 1000 trials at the NP threshold for FPR 0.05): ε_lower above the true
    ε(δ) at most in (1 − confidence) of them, μ_lower above 1 likewise (binomial slack: ≤ 10 of 200 at 0.95)."""
    rng = np.random.default_rng(3)
    mu, delta, n = 1.0, 1e-5, 1000
    e_true = float(gdp.eps_from_mu(mu, delta))
    thr = 1.6448536269514722
    over_e = over_mu = 0
    for _ in range(200):
        tp = int(np.sum(rng.normal(mu, 1.0, n) > thr))
        fp = int(np.sum(rng.normal(0.0, 1.0, n) > thr))
        r = audit_counts(tp, n, fp, n, confidence=0.95, delta=delta)
        over_e += r.eps_lower > e_true
        over_mu += r.mu_lower > mu
    assert over_e <= 10 and over_mu <= 10


def test_mu_lower_closed_form() -> None:
    assert float(mu_lower(900, 1000, 100, 1000)) == pytest.approx(2.3470972323259196, rel=1e-12)


def test_split_audit_is_seeded_and_valid() -> None:
    rng = np.random.default_rng(1)
    labels = np.repeat([1, 0], 5000)
    scores = rng.normal(2.0 * labels, 1.0)
    a = audit_scores(scores, labels, delta=1e-5, seed=4)
    b = audit_scores(scores, labels, delta=1e-5, seed=4)
    assert a == b and a.method == "split" and a.thresholds_tested == 1
    assert 0 < a.eps_lower <= float(gdp.eps_from_mu(2.0, 1e-5))
    bon = audit_scores(scores, labels, delta=1e-5, method="bonferroni")
    best = audit_scores(scores, labels, delta=1e-5, method="best")
    assert bon.eps_lower <= best.eps_lower and "optimistic" in best.caveat and "Bonferroni" in bon.caveat


@pytest.mark.slow
def test_jax_privacy_tight_gaussian_audit() -> None:
    """jax_privacy's test_epsilon_lower_bound_tight idea: 200,000 samples a side, δ = 0.05, significance 0.1: the
    Bonferroni bound is within 10 % below the true ε of the Gaussian attack (μ = 1)."""
    rng = np.random.default_rng(0xBAD5EED)
    n = 200_000
    scores = np.concatenate([rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)])
    labels = np.repeat([1, 0], n)
    r = audit_scores(scores, labels, confidence=0.9, delta=0.05, method="bonferroni")
    e_true = float(gdp.eps_from_mu(1.0, 0.05))
    assert 0.9 * e_true <= r.eps_lower <= e_true


def test_bad_input_is_one_line_naming_the_option(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match="tp must be <= positives"):
        eps_lower(11, 10, 0, 10)
    for c in (0.0, 1.0, 1.5):
        with pytest.raises(DomainError, match="confidence"):
            eps_lower(5, 10, 0, 10, confidence=c)
    with pytest.raises(DomainError, match="both classes"):
        audit_scores([0.1, 0.2], [1, 1])
    with pytest.raises(DomainError, match="group_size > 1 needs delta = 0"):
        eps_lower(5, 10, 0, 10, delta=1e-5, group_size=2)
    bad = tmp_path / "s.csv"
    bad.write_text("score,label\n0.5,1\nx,0\n")
    with pytest.raises(DomainError, match="line 3"):
        read_scores(bad)
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(DomainError, match="score and label"):
        read_scores(bad)
    ok = tmp_path / "ok.csv"
    ok.write_text("id,score,label\n1,0.9,1\n2,0.1,0\n")
    s, lab = read_scores(ok)
    assert s.tolist() == [0.9, 0.1] and lab.tolist() == [1.0, 0.0]


def test_audit_counts_documents_its_inf_and_takes_one_attack() -> None:
    """The library fuzz: ``eps_gaussian`` is inf at δ = 0 (a Gaussian curve has no finite pure ε) — now stated in the
    docstring, as the contract asks of an inf; counts as arrays raised NumPy's TypeError from ``float()``."""
    r = audit_counts(4, 12, 1, 22, confidence=0.7367797741948223)
    assert r.mu_lower > 0.0 and r.eps_gaussian == np.inf and "inf" in (audit_counts.__doc__ or "")
    with pytest.raises(DomainError, match=r"^tp must be a scalar here") as info:
        audit_counts(np.array([[10.0], [10.0]]), 461, np.array([[10.0], [10.0]]), 482)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
