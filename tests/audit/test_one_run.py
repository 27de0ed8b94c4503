"""The one-run audit (Steinke, Nasr & Jagielski 2023) and its Gaussian f-DP refinement (Mahloujifar, Melis &
Chaudhuri 2024): the p-value against the paper's Algorithm 2 written as a plain loop, ε_lower against an mpmath
bisection of it, and simulated one-run games (validity: never above the truth more often than the confidence
allows; the refinement at least as tight)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc.accounting import gdp
from dpcalc.audit import eps_lower_fdp, eps_lower_one_run, mu_lower_fdp, one_run_audit, p_value
from dpcalc.errors import DomainError


def _p_loop(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """Alg. 2 of the paper as printed (a running sum of binomial masses), in mpmath at 40 digits."""
    with mpmath.workdps(40):
        q = 1 / (1 + mpmath.exp(-eps))

        def pmf(i: int) -> mpmath.mpf:
            return mpmath.binomial(r, i) * q**i * (1 - q) ** (r - i)

        beta = mpmath.fsum(pmf(i) for i in range(v, r + 1))
        alpha, total = mpmath.mpf(0), mpmath.mpf(0)
        for i in range(1, v + 1):
            total += pmf(v - i)
            if total > i * alpha:
                alpha = total / i
        return float(min(beta + alpha * delta * 2 * m, 1))


@pytest.mark.parametrize(("m", "r", "v", "eps", "delta"), [(1000, 100, 100, 1.0, 0.0), (1000, 100, 90, 1.5, 1e-5),
                                                           (100, 10, 9, 1.0, 1e-3), (10_000, 300, 200, 0.5, 1e-6)])
def test_p_value_is_algorithm_2(m: int, r: int, v: int, eps: float, delta: float) -> None:
    assert p_value(m, r, v, eps, delta) == pytest.approx(_p_loop(m, r, v, eps, delta), rel=1e-10)


def test_eps_lower_is_the_root_of_the_p_value() -> None:
    m, r, v, d = 1000, 200, 180, 1e-5
    e = eps_lower_one_run(m, r, v, 0.95, d)
    assert _p_loop(m, r, v, e, d) <= 0.05 < _p_loop(m, r, v, e + 1e-5, d)


def test_simulated_games_stay_below_the_truth() -> None:
    """100 games, m = 1000 canaries with independent μ-Gaussian scores, 200 guesses (top and bottom 100)."""
    rng = np.random.default_rng(11)
    m, k, mu, d = 1000, 200, 1.5, 1e-5
    e_true = float(gdp.eps_from_mu(mu, d))
    mus, eps_s, eps_f = [], [], []
    for _ in range(100):
        s = rng.integers(0, 2, m)
        order = np.argsort(mu * s + rng.normal(size=m))
        correct = int(s[order[-k // 2:]].sum() + (1 - s[order[: k // 2]]).sum())
        r = one_run_audit(m, k, correct, confidence=0.95, delta=d)
        assert r.mu_lower is not None and r.eps_lower_fdp is not None
        mus.append(r.mu_lower)
        eps_s.append(r.eps_lower)
        eps_f.append(r.eps_lower_fdp)
    assert np.mean(np.array(mus) > mu) <= 0.05 and np.mean(np.array(eps_s) > e_true) <= 0.05
    assert np.median(eps_f) >= np.median(eps_s)  # the f-DP analysis is the tighter one (their Sec. 6)


def test_fdp_bound_values() -> None:
    mu = mu_lower_fdp(1000, 100, 100)
    assert eps_lower_fdp(1000, 100, 100, 0.95, 1e-5) == pytest.approx(float(gdp.eps_from_mu(mu, 1e-5)), rel=1e-12)
    assert mu_lower_fdp(1000, 100, 50) == 0.0  # chance-level guesses reject nothing
    assert math.isclose(eps_lower_one_run(1000, 100, 50), 0.0)


def test_bad_games() -> None:
    with pytest.raises(DomainError, match="correct must be <= guesses"):
        p_value(100, 10, 11, 1.0)
    with pytest.raises(DomainError, match="guesses must be <= canaries"):
        eps_lower_one_run(10, 11, 5)
    with pytest.raises(DomainError, match="confidence"):
        eps_lower_one_run(100, 10, 5, confidence=1.0)


def test_a_confidence_whose_significance_rounds_to_one_is_refused() -> None:
    """The library fuzz: at confidence 1.5e-179 the significance 1 − confidence is 1.0 in float64, every ε is
    rejected and the error named no parameter ("the one-run observation rejects every ε up to 1e4"); the f-DP
    search refused its internal ``significance``. Confidence now starts at 2⁻⁵³."""
    for call in (lambda: one_run_audit(10**20, 146019161964718, 0, confidence=1.5067634711639791e-179, delta=0.5,
                                       fdp=False),
                 lambda: mu_lower_fdp(1000, 100, 0, 1e-300)):
        with pytest.raises(DomainError, match=r"^confidence must be a finite number in \[1.11022e-16, 1\)"):
            call()
    assert one_run_audit(10**20, 146019161964718, 0, confidence=1e-15, delta=0.5, fdp=False).eps_lower == 0.0
