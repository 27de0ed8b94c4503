"""User level: group privacy of (ε, δ)-DP (Vadhan 2017, Lemma 2.2) and of RDP (Mironov 2017, Prop. 2).

Three ways: the implementation, the lemma's sum Σ_{i<k} e^{iε}·δ at high precision (mpmath), and the exact
user-level ε of the full-batch Gaussian (a user's k examples shift the sum by k: the analytic Gaussian with σ/k),
which every group bound must be >= to be an upper bound."""

from __future__ import annotations

import math

import mpmath
import pytest

from dpcalc.accounting import accountants, gaussian_mechanism, group, training
from dpcalc.errors import DomainError

Z, DELTA = 1.1, 1e-5


@pytest.mark.parametrize("k", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("eps", [0.0, 1e-12, 0.3, 2.0, 9.0])
def test_group_delta_is_the_lemmas_sum_rounded_up(eps: float, k: int) -> None:
    with mpmath.workdps(50):
        exact = mpmath.mpf(1e-6) * mpmath.fsum(mpmath.e ** (i * mpmath.mpf(eps)) for i in range(k))
    got = group.group_delta(eps, 1e-6, k)
    assert got >= exact * (1 - 1e-15) and got <= exact * (1 + 1e-13)


def test_group_delta_overflow_is_inf_not_nan() -> None:
    assert group.group_delta(50.0, 1e-6, 100) == math.inf


def test_k_one_is_example_level_exactly() -> None:
    s = training.from_examples(60_000, 256, epochs=60)
    for name in ("rdp", "pld"):
        example = accountants.epsilon(Z, s.q, s.steps, DELTA, accountant=name)
        user, de, ee = group.eps_user_vadhan(lambda d, n=name: accountants.epsilon(Z, s.q, s.steps, d, accountant=n),
                                             DELTA, 1)
        assert user == example == ee and de == DELTA
    assert group.eps_user_rdp(s.q, Z, s.steps, DELTA, 1)[0] == accountants.epsilon(Z, s.q, s.steps, DELTA)


@pytest.mark.parametrize("k", [2, 4, 8])
def test_user_level_is_at_least_example_level_and_grows_with_k(k: int) -> None:
    s = training.from_examples(60_000, 256, epochs=60)

    def at(d: float) -> float:
        return accountants.epsilon(Z, s.q, s.steps, d)

    example = at(DELTA)
    user, de, ee = group.eps_user_vadhan(at, DELTA, k)
    smaller, _, _ = group.eps_user_vadhan(at, DELTA, k // 2)
    assert user >= example and user >= smaller and user == k * ee
    assert group.group_delta(ee, de, k) <= DELTA  # safe: the example δ it rests on meets the user's δ
    assert group.eps_user_rdp(s.q, Z, s.steps, DELTA, k)[0] >= example


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize(("sigma", "steps"), [(4.0, 1), (8.0, 10), (20.0, 100)])
def test_group_bounds_are_above_the_exact_full_batch_user_level_eps(k: int, sigma: float, steps: int) -> None:
    # q = 1: T Gaussian steps of a sum that a user's k examples shift by k are one Gaussian with σ/(k·√T), exactly
    exact = gaussian_mechanism.eps_analytic(sigma / (k * math.sqrt(steps)), DELTA)
    vadhan, _, _ = group.eps_user_vadhan(
        lambda d: accountants.epsilon(sigma, 1.0, steps, d, accountant="analytic"), DELTA, k)
    rdp_group, _ = group.eps_user_rdp(1.0, sigma, steps, DELTA, k)
    assert vadhan >= exact and rdp_group >= exact


def test_bad_k_is_one_line() -> None:
    with pytest.raises(DomainError, match="k must be an integer"):
        group.group_size(0)
    with pytest.raises(DomainError, match="k must be an integer"):
        group.group_delta(1.0, 1e-5, 2.5)
