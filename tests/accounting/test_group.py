"""User level: group privacy of (ε, δ)-DP (Vadhan 2017, Lemma 2.2) and of RDP (Mironov 2017, Prop. 2).

Three ways: the implementation, the lemma's sum Σ_{i<k} e^{iε}·δ at high precision (mpmath), and the exact
user-level ε of the full-batch Gaussian (a user's k examples shift the sum by k: the analytic Gaussian with σ/k),
which every group bound must be >= to be an upper bound."""

from __future__ import annotations

import math

import mpmath
import pytest

from dpcalc.accounting import gaussian_mechanism, group, schedule
from dpcalc.accounting.events import TrainingRun
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
    s = TrainingRun(Z, dataset_size=60_000, batch_size=256, epochs=60)
    for name in ("rdp", "pld"):
        example = schedule.epsilon(Z, s.rate, s.step_count, DELTA, accountant=name)
        user, de, ee = group.eps_user_vadhan(
            lambda d, n=name: schedule.epsilon(Z, s.rate, s.step_count, d, accountant=n), DELTA, 1)
        assert user == example == ee and de == DELTA
    assert group.eps_user_rdp(s.rate, Z, s.step_count, DELTA, 1)[0] == schedule.epsilon(Z, s.rate, s.step_count, DELTA)


@pytest.mark.parametrize("k", [2, 4, 8])
def test_user_level_is_at_least_example_level_and_grows_with_k(k: int) -> None:
    s = TrainingRun(Z, dataset_size=60_000, batch_size=256, epochs=60)

    def at(d: float) -> float:
        return schedule.epsilon(Z, s.rate, s.step_count, d)

    example = at(DELTA)
    user, de, ee = group.eps_user_vadhan(at, DELTA, k)
    smaller, _, _ = group.eps_user_vadhan(at, DELTA, k // 2)
    assert user >= example and user >= smaller and user == k * ee
    assert group.group_delta(ee, de, k) <= DELTA  # safe: the example δ it rests on meets the user's δ
    assert group.eps_user_rdp(s.rate, Z, s.step_count, DELTA, k)[0] >= example


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize(("sigma", "steps"), [(4.0, 1), (8.0, 10), (20.0, 100)])
def test_group_bounds_are_above_the_exact_full_batch_user_level_eps(k: int, sigma: float, steps: int) -> None:
    # q = 1: T Gaussian steps of a sum that a user's k examples shift by k are one Gaussian with σ/(k·√T), exactly
    exact = gaussian_mechanism.eps_analytic(sigma / (k * math.sqrt(steps)), DELTA)
    vadhan, _, _ = group.eps_user_vadhan(
        lambda d: schedule.epsilon(sigma, 1.0, steps, d, accountant="analytic"), DELTA, k)
    rdp_group, _ = group.eps_user_rdp(1.0, sigma, steps, DELTA, k)
    assert vadhan >= exact and rdp_group >= exact


def test_bad_k_is_one_line() -> None:
    with pytest.raises(DomainError, match="k must be an integer"):
        group.group_size(0)
    with pytest.raises(DomainError, match="k must be an integer"):
        group.group_delta(1.0, 1e-5, 2.5)


def test_user_bounds_are_results_with_the_user_level_fields() -> None:
    """Every user-level bound of a run is a PrivacyResult at level "user" with k and its method; each is at least the
    example-level ε, and the mixture (tight) is below group privacy of the same accountant (Ganesh et al. 2024)."""
    run = TrainingRun(Z, dataset_size=60_000, batch_size=256, epochs=1)
    example = schedule.epsilon(Z, run.rate, run.step_count, DELTA, accountant="pld")
    bounds = group.user_bounds(run, DELTA, 4, ["rdp", "pld"])
    assert [(b.accountant, b.method) for b in bounds] == [("rdp", "vadhan"), ("pld", "vadhan"), ("pld", "mixture"),
                                                          ("rdp", "rdp-group")]
    for b in bounds:
        assert b.result is not None and b.result.level == "user" and b.result.k == 4 and b.result.method == b.method
        assert b.result.value >= example
    by = {(b.accountant, b.method): b.result.value for b in bounds if b.result is not None}
    assert by[("pld", "mixture")] < by[("pld", "vadhan")]


def test_too_many_examples_per_user_for_the_mixture_is_one_line() -> None:
    with pytest.raises(DomainError, match="composes at most 1000"):
        group.mixture_event(0.01, 1.0, 10, 100_000)
