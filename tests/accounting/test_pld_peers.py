"""dpcalc's PLD bracket against dp-accounting 0.6's PLD accountant (pessimistic estimate) for every event it
supports: its value (an upper bound of the true ε up to its FFT round-off) must not lie below our ε_lower, and our
ε_upper must not exceed it by more than our own bracket width (its discretisation only moves it up)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dpcalc.accounting import pld

DELTA = 1e-5
VDI = 1e-4
_SLACK = 1e-9  # dp-accounting's δ-curve round-off, in ε (see test_sweep_pld.py: ~2e-13 absolute in δ)


def _dpa(events: list[tuple[Callable[[Any], Any], int]], relation: str) -> float:
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    rel = {"add_remove": dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
           "replace_one": dp_accounting.NeighboringRelation.REPLACE_ONE,
           "replace_special": dp_accounting.NeighboringRelation.REPLACE_SPECIAL}[relation]
    built = [(make(dp_event), count) for make, count in events]
    # its mixture-of-Gaussians PLD takes ~35 s at 1e-4 (a coarser lattice only raises its pessimistic value)
    slow = any(isinstance(ev, dp_event.MixtureOfGaussiansDpEvent) for ev, _ in built)
    acc = pld_privacy_accountant.PLDAccountant(rel, value_discretization_interval=1e-3 if slow else VDI)
    for ev, count in built:
        if isinstance(ev, dp_event.RandomizedResponseDpEvent):  # its count is ignored there: compose one by one
            for _ in range(count):
                acc.compose(ev)
        else:
            acc.compose(ev, count)
    return float(acc.get_epsilon(DELTA))


CASES: list[tuple[str, str, list[tuple[Callable[[Any], Any], int]], list[tuple[pld.PrivacyLoss, int]]]] = [
    ("gaussian", "add_remove", [(lambda d: d.GaussianDpEvent(3.0), 10)], [(pld.gaussian(3.0), 10)]),
    ("gaussian replace_one", "replace_one", [(lambda d: d.GaussianDpEvent(3.0), 10)],
     [(pld.gaussian(3.0, 1.0, "replace_one"), 10)]),
    ("laplace", "add_remove", [(lambda d: d.LaplaceDpEvent(5.0), 10)], [(pld.laplace(5.0), 10)]),
    ("discrete laplace", "add_remove", [(lambda d: d.DiscreteLaplaceDpEvent(0.3, 2), 5)],
     [(pld.discrete_laplace(0.3, 2), 5)]),
    ("randomized response", "replace_one", [(lambda d: d.RandomizedResponseDpEvent(0.5, 4), 10)],
     [(pld.randomized_response(0.5, 4), 10)]),
    ("randomized response special", "replace_special", [(lambda d: d.RandomizedResponseDpEvent(0.5, 4), 10)],
     [(pld.randomized_response(0.5, 4, "replace_special"), 10)]),
    ("mixture of gaussians", "add_remove", [(lambda d: d.MixtureOfGaussiansDpEvent(2.0, [1.0, 0.5], [0.5, 0.5]), 10)],
     [(pld.mixture_of_gaussians(2.0, [1.0, 0.5], [0.5, 0.5]), 10)]),
    ("poisson gaussian", "add_remove", [(lambda d: d.PoissonSampledDpEvent(0.01, d.GaussianDpEvent(1.1)), 1000)],
     [(pld.poisson(pld.gaussian(1.1), 0.01), 1000)]),
    ("poisson gaussian replace_one", "replace_one",
     [(lambda d: d.PoissonSampledDpEvent(0.01, d.GaussianDpEvent(1.1)), 300)],
     [(pld.poisson(pld.gaussian(1.1, 1.0, "replace_one"), 0.01), 300)]),
    ("poisson laplace", "add_remove", [(lambda d: d.PoissonSampledDpEvent(0.05, d.LaplaceDpEvent(2.0)), 100)],
     [(pld.poisson(pld.laplace(2.0), 0.05), 100)]),
    ("heterogeneous", "add_remove", [(lambda d: d.PoissonSampledDpEvent(0.02, d.GaussianDpEvent(1.5)), 200),
                                     (lambda d: d.LaplaceDpEvent(20.0), 3), (lambda d: d.GaussianDpEvent(8.0), 2)],
     [(pld.poisson(pld.gaussian(1.5), 0.02), 200), (pld.laplace(20.0), 3), (pld.gaussian(8.0), 2)]),
]


@pytest.mark.parametrize(("name", "relation", "events", "components"), CASES, ids=[c[0] for c in CASES])
def test_bracket_against_dp_accounting(name: str, relation: str, events: list[tuple[Callable[[Any], Any], int]],
                                       components: list[tuple[pld.PrivacyLoss, int]]) -> None:
    theirs = _dpa(events, relation)
    br = pld.epsilon_composed(components, DELTA)
    assert br.eps_lower <= theirs + _SLACK, (br, theirs)
    assert br.eps_upper <= theirs + br.width + _SLACK, (br, theirs)


def test_discrete_gaussian_against_dp_accounting() -> None:
    """Its discrete Gaussian PLD (truncated at ±σ·(bound)), one release, add/remove."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as dpa_pld

    theirs = float(dpa_pld.from_discrete_gaussian_mechanism(2.0, sensitivity=1, value_discretization_interval=VDI)
                   .self_compose(5).get_epsilon_for_delta(DELTA))
    br = pld.epsilon_composed([(pld.discrete_gaussian(2.0, 1), 5)], DELTA)
    assert br.eps_lower <= theirs + _SLACK and br.eps_upper <= theirs + br.width + _SLACK


def test_dp_accounting_ignores_the_count_of_randomized_response() -> None:
    """A peer value found wrong: dp-accounting 0.6's PLD accountant composes a ``RandomizedResponseDpEvent`` once
    whatever its count (``pld/pld_privacy_accountant.py``, the RandomizedResponseDpEvent branch composes ``rr_pld``
    without the count), so ten releases of 4-ary randomized response (p = 0.5) report the one-release ε = log 5.
    The exact value (a multinomial sum, ``test_pld_losses.py``) is 16.093; our bracket holds it."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE,
                                               value_discretization_interval=VDI)
    acc.compose(dp_accounting.dp_event.RandomizedResponseDpEvent(0.5, 4), 10)
    assert abs(acc.get_epsilon(DELTA) - 1.6094379) < 1e-3  # log 5: one release
    br = pld.epsilon_composed([(pld.randomized_response(0.5, 4), 10)], DELTA)
    assert 16.09 < br.eps_lower <= br.eps_upper < 16.1
