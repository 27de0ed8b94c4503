"""Truncated Poisson subsampling (``pld.truncated_poisson``; dp-accounting 0.6's
``TruncatedSubsampledGaussianDpEvent``): Poisson sampling at q from n records, the batch cut to at most B.

Properties: B ≥ n is Poisson sampling; ε does not grow with B (a cut batch turns a removal into a replacement);
dp-accounting's PLD (pessimistic, a larger pair for the cut case) never lies below dpcalc's ε_lower; the event
model accounts the event through this loss."""

from __future__ import annotations

import itertools

import pytest

from dpcalc.accounting import events as ev
from dpcalc.accounting import pld
from dpcalc.errors import DomainError
from tests.support.accounting import account

DELTA = 1e-5
N, Q, Z, STEPS = 60000, 0.01, 1.1, 100


def _eps(b: int, relation: str = "add_remove", steps: int = STEPS) -> pld.EpsBracket:
    return pld.epsilon_composed([(pld.truncated_poisson(pld.gaussian(Z, 1.0, relation), Q, N, b), steps)], DELTA)


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
def test_no_cut_is_poisson(relation: str) -> None:
    poisson = pld.epsilon_composed([(pld.poisson(pld.gaussian(Z, 1.0, relation), Q), STEPS)], DELTA)
    assert _eps(N, relation) == poisson
    near = _eps(1000, relation)  # P(Binomial(n − 1, q) ≥ 1000) ~ 1e-50: charged, not seen
    assert near.eps_lower <= poisson.eps_upper and poisson.eps_lower <= near.eps_upper


def test_epsilon_does_not_grow_with_the_batch_cap() -> None:
    """n = 60,000, q = 0.01 (mean batch 600), 100 steps: ε at B = 500, 600, 650, 700, 800 falls to Poisson's."""
    brackets = [_eps(b) for b in (500, 600, 650, 700, 800)]
    for smaller, larger in itertools.pairwise(brackets):
        assert smaller.eps_upper >= larger.eps_lower
    assert round(brackets[0].eps_upper, 2) == 4.47
    assert brackets[0].eps_lower > 8 * brackets[-1].eps_upper


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
@pytest.mark.parametrize("cap", [500, 650, 700])
def test_dp_accounting_never_below_our_lower_end(relation: str, cap: int) -> None:
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    nr = dpa.privacy_accountant.NeighboringRelation
    acc = pld_privacy_accountant.PLDAccountant(nr.ADD_OR_REMOVE_ONE if relation == "add_remove" else nr.REPLACE_ONE,
                                               value_discretization_interval=1e-3)
    acc.compose(dpa.TruncatedSubsampledGaussianDpEvent(N, Q, cap, Z), 10)
    ours = _eps(cap, relation, 10)
    assert acc.get_epsilon(DELTA) >= ours.eps_lower


def test_event_model_accounts_it() -> None:
    event = ev.SelfComposed(ev.TruncatedSubsampledGaussian(N, Q, 650, Z), STEPS)
    res = account(event, delta=DELTA, accountant="pld")
    assert res.value == _eps(650).eps_upper


def test_refusals() -> None:
    with pytest.raises(DomainError, match=r"^truncated_poisson: additive-noise mechanisms only"):
        pld.truncated_poisson(pld.randomized_response(0.5, 4), Q, N, 10)
    with pytest.raises(DomainError, match=r"^max_batch"):
        pld.truncated_poisson(pld.gaussian(1.0), Q, N, 0)
