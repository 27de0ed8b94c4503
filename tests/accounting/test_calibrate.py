"""Calibration (dpcalc.accounting.calibrate; its (σ, q, T) form dpcalc.accounting.schedule.sigma_for_eps):
conservative σ for a target (ε, δ) under each accountant.

Tolerance: the returned σ has ε(σ) <= target (exact float comparison, the property the function guarantees) and
σ·(1 − 1e-8) has ε > target (tight to the stated rtol 1e-9 plus margin); peers' calibrations
(dp-accounting 0.6.0, Opacus's get_noise_multiplier) as reference values.
"""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcalc.accounting import gaussian_mechanism as gaussian
from dpcalc.accounting import rdp, schedule, search
from dpcalc.errors import DomainError, InfeasibleError


def test_dp_accounting_rdp_calibration() -> None:
    """q = 0.01, T = 1000, ε = 2, δ = 1e-5: dp-accounting 0.6.0 calibrate_dp_mechanism with RDP gives 1.0222898455164913
    (its own Brent tolerance); ours is the exact root within 1e-6 relative."""
    s = schedule.sigma_for_eps(2.0, 1e-5, 0.01, 1000)
    assert s == pytest.approx(1.0222898455164913, rel=1e-6)
    assert schedule.epsilon(s, 0.01, 1000, 1e-5) <= 2.0


def test_opacus_get_noise_multiplier_vectors() -> None:
    """Opacus's get_noise_multiplier (Opacus orders, ε = 8, δ = 1e-5, q = 0.04; bisection with tol 0.01 on ε, as in
    opacus/tests/accountants_test.py) returns 1.416015625 (2250 steps) and 1.3562 (2000 steps), both on the safe side;
    our exact roots are below them and within 3e-4 relative. GDP: Opacus 1.3232421875, ours within 1e-3."""
    for steps, theirs in [(2250, 1.416015625), (2000, 1.3562)]:
        s = schedule.sigma_for_eps(8.0, 1e-5, 0.04, steps, orders=rdp.OPACUS_ORDERS)
        assert s <= theirs and s == pytest.approx(theirs, rel=3e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = schedule.sigma_for_eps(8.0, 1e-5, 0.04, 2250, accountant="gdp-clt")
    assert g == pytest.approx(1.3232421875, rel=1e-3)


def test_full_batch_accountants_match_closed_forms() -> None:
    """q = 1: the 'analytic' accountant's σ equals √T·σ_analytic(ε, δ) (1e-9) and zCDP's σ is larger."""
    s = schedule.sigma_for_eps(1.0, 1e-5, 1.0, 4, accountant="analytic")
    assert s == pytest.approx(2.0 * gaussian.sigma_analytic(1.0, 1e-5), rel=1e-9)
    assert schedule.sigma_for_eps(1.0, 1e-5, 1.0, 4, accountant="zcdp") > s


def test_pld_calibration_matches_dp_accounting() -> None:
    """q = 0.01, T = 1000, ε = 2, δ = 1e-5: dp-accounting 0.6.0 PLD at value_discretization_interval 1e-3 →
    0.959240438035819; dpcalc's PLD (certified ε_upper <= 2 at the returned σ) agrees to 1e-3."""
    s = schedule.sigma_for_eps(2.0, 1e-5, 0.01, 1000, accountant="pld")
    assert s == pytest.approx(0.959240438035819, abs=1e-3)
    assert schedule.epsilon(s, 0.01, 1000, 1e-5, accountant="pld") <= 2.0


def test_unreachable_and_trivial_targets() -> None:
    """Below the classic conversion's floor log(1/δ)/(α_max − 1) → InfeasibleError; a target met even at σ = 1e-3
    → InfeasibleError naming the calibrated range; q outside (0, 1] → DomainError."""
    with pytest.raises(InfeasibleError, match="unreachable"):
        schedule.sigma_for_eps(0.01, 1e-5, 0.01, 1000, accountant="rdp-lemma1")
    with pytest.raises(InfeasibleError, match="so large"):
        schedule.sigma_for_eps(1e7, 1e-5, 0.5, 10)
    with pytest.raises(DomainError, match="q"):
        schedule.sigma_for_eps(1.0, 1e-5, 0.0, 10)
    with pytest.raises(DomainError, match="q = 1"):
        schedule.sigma_for_eps(1.0, 1e-5, 0.5, 10, accountant="zcdp")
    with pytest.raises(DomainError, match="accountant must be one of"):
        schedule.sigma_for_eps(1.0, 1e-5, 0.5, 10, accountant="nope")


@settings(max_examples=25, deadline=None)
@given(eps=st.floats(0.2, 20), log_q=st.floats(math.log(1e-3), 0.0), steps=st.integers(1, 5000),
       log_delta=st.floats(-25, -3), name=st.sampled_from(["rdp", "rdp-lemma1", "gdp-clt"]))
def test_calibration_always_conservative_and_tight(eps: float, log_q: float, steps: int, log_delta: float,
                                                   name: str) -> None:
    """ε(σ) <= target exactly, and ε(σ(1 − 1e-8)) > target (no σ 1e-8 smaller would do)."""
    q, delta = min(math.exp(log_q), 1.0), math.exp(log_delta)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            s = schedule.sigma_for_eps(eps, delta, q, steps, accountant=name)
        except InfeasibleError:
            return  # a target outside [ε(1e6), ε(1e-3)]: reported, not silently wrong
        assert schedule.epsilon(s, q, steps, delta, accountant=name) <= eps
        assert schedule.epsilon(s * (1 - 1e-8), q, steps, delta, accountant=name) > eps


@pytest.mark.parametrize(("eps", "delta", "q", "steps", "most"),
                         [(1.0, 1e-5, 0.01, 1000, 10), (0.5, 1e-8, 0.3, 50, 10)])
def test_rdp_calibration_evaluation_count(eps: float, delta: float, q: float, steps: int, most: int) -> None:
    """A calibration once took 36-37 accountant evaluations at these points (an Illinois step halved the wrong end),
    then 16 (bracketing in factors of 4 from σ = 1, then false position to 1e-9); the one knob search (secant steps
    in log σ that overshoot the predicted root by 1/256 of the tolerance, bracketing it from both sides) takes 8-9,
    the final evaluation with warnings on included."""
    from dpcalc.accounting.accountants.rdp import Rdp

    calls = []
    original = Rdp._epsilon

    def counted(self: Rdp, *args: object, **kw: object) -> object:
        calls.append(args[0])
        return original(self, *args, **kw)  # type: ignore[arg-type]

    Rdp._epsilon = counted  # type: ignore[method-assign,assignment]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = schedule.sigma_for_eps(eps, delta, q, steps, accountant="rdp")
    finally:
        Rdp._epsilon = original  # type: ignore[method-assign]
    assert len(calls) <= most
    assert schedule.epsilon(s, q, steps, delta) <= eps < schedule.epsilon(s * (1 - 1e-9), q, steps, delta)


def test_integer_knob_is_solved_by_the_same_search() -> None:
    """The knob search behind sigma_for_eps takes any monotone knob: here the number of steps (an integer along
    which ε grows) — the largest T whose RDP ε is <= the target — and a synthetic integer knob along which ε falls."""
    forward = search.Forward(upper=lambda n, _accuracy: schedule.epsilon(1.0, 0.01, n, 1e-5))
    steps = search.Knob("steps", 1, 1e7, eps_increases=True, integer=True, start=100)
    n = int(search.solve(forward, 2.0, steps, rtol=0.0, what="rdp"))
    assert schedule.epsilon(1.0, 0.01, n, 1e-5) <= 2.0 < schedule.epsilon(1.0, 0.01, n + 1, 1e-5)
    falling = search.Forward(upper=lambda n, _accuracy: 10.0 / n)
    knob = search.Knob("batch", 1, 1000, eps_increases=False, integer=True, start=500)
    assert search.solve(falling, 0.3, knob, rtol=0.0, what="test") == 34.0  # 10/34 <= 0.3 < 10/33
    with pytest.raises(InfeasibleError, match="unreachable"):
        search.solve(falling, 1e-3, knob, rtol=0.0, what="test")
    with pytest.raises(InfeasibleError, match="so large"):
        search.solve(falling, 20.0, knob, rtol=0.0, what="test")
    with pytest.raises(InfeasibleError, match="unreachable"):
        search.solve(forward, 1e-3, steps, rtol=0.0, what="rdp")


def test_failures_of_one_kind_are_one_note() -> None:
    """Ten probes refused for the memory cap were ten near-identical sentences in the table's note: one note now
    lists the values once, with the first reason."""
    from dpcalc.accounting.calibrate import _failure_notes

    failures = [f"{v}: pld: needs {1.1 + v / 1e5:.3g}e+08 grid points, about {11 + v / 1e4:.3g} GiB" for v in
                (18400, 17601, 18000)] + ["3: rdp: another reason"]
    notes = _failure_notes(failures)
    assert notes[0].startswith("not certified at 17601, 18000, 18400: pld: needs ")
    assert notes[1] == "not certified at 3: rdp: another reason" and len(notes) == 2
