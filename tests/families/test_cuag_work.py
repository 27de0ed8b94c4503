"""`dpcalc cuag audit` with the actual schedule: its work is counted, not fitted. Before any work, the least work of
the certified PLD (the first passes' lattice points of every distinct step) is counted and a call over the minute is
refused; what is admitted runs under a work budget that books each pass before it runs, so the call finishes or
refuses in one line within the minute."""

from __future__ import annotations

import warnings

import pytest

from dpcalc import _limits, cuag
from dpcalc.accounting import pld
from dpcalc.accounting.pld import accountant, passes
from tests.support.cli_runner import run


def _schedule(mu: float, lam: float, b: int, d: int, t: int, p: int) -> list[tuple[float, float, int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sig = cuag.sigma_schedule(mu, lam, b, d, t, p)
        rho = float(cuag.sampling_rate(lam, b, d))
    return [(float(s), rho, p) for s in sig]


def _booked(schedule: list[tuple[float, float, int]], delta: float) -> float:
    with _limits.work_budget("test", 1e4):
        left = _limits._budget.get()
        assert left is not None
        try:
            pld.epsilon(schedule, delta)
        except pld.MemoryCapError:
            pass
        except Exception as exc:  # an unconverged bracket is refused after its passes: they were booked
            assert "stays wider" in str(exc)
        return 1e4 - left[0]


def test_the_slow_audit_is_refused_before_any_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """--rounds 1000 at ρ = 4e-5 ran past 75 s; its least work alone (1,000 distinct steps) is over the minute."""
    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("a PLD pass ran before the refusal")

    monkeypatch.setattr(passes, "discretise_many", no_work)
    monkeypatch.setattr(accountant, "eps_pass", no_work)
    code, out, err = run("cuag", "audit", "--mu", "0.25", "--rounds", "1000", "--lam", "0.1", "--B", "1",
                         "--data-size", "5000", "--P", "10")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("dpcalc: error: --rounds up to 1000") and "min per call" in err
    assert accountant.least_work(_schedule(0.25, 0.1, 1, 5000, 1000, 10), 1e-5) > _limits.MAX_SECONDS


@pytest.mark.parametrize(("schedule", "delta"), [
    (_schedule(0.25, 0.1, 10, 500, 10, 25), 1e-5),
    (_schedule(0.25, 0.1, 1, 5000, 3, 10), 1e-5),
    ([(1.0, 0.01, 1000)], 1e-5),
    ([(0.8, 0.1, 100), (2.0, 1.0, 3)], 1e-8),
    ([(1.5, 3e-4, 2)], 1e-20),
    ([(4.0, 1.0, 1)], 1e-5),
])
def test_least_work_is_a_lower_bound_of_the_booked_work(schedule: list[tuple[float, float, int]],
                                                        delta: float) -> None:
    least = accountant.least_work(schedule, delta)
    booked = _booked(schedule, delta)
    if all(q == 1.0 for _, q, _ in schedule):  # Gaussians without sampling: closed form, nothing booked
        assert least == booked == 0.0
        return
    assert 0.0 < least <= booked * (1 + 1e-9)  # equal when the first passes are all there is


def test_budget_refuses_the_pass_that_would_exceed_it() -> None:
    schedule = _schedule(0.25, 0.1, 1, 5000, 10, 10)
    with _limits.work_budget("the test's schedule", 0.2), \
            pytest.raises(_limits.LimitError, match=r"^the test's schedule would take over 0\.00333 min") as info:
        pld.epsilon(schedule, 1e-5)
    assert "\n" not in str(info.value)


def test_charge_outside_a_budget_is_free_and_budgets_nest() -> None:
    _limits.charge(1e300, "nothing")  # no budget: no-op
    with _limits.work_budget("outer", 2.0):
        _limits.charge(1.5, "a")
        with _limits.work_budget("inner", 100.0):  # shares the outer budget
            with pytest.raises(_limits.LimitError, match=r"^outer would take over"):
                _limits.charge(1.0, "b")
    _limits.charge(1e300, "nothing")


def test_admitted_audit_runs_under_its_budget() -> None:
    """A small actual schedule runs and gives the certified bracket beside the CLT columns."""
    code, out, err = run("cuag", "audit", "--mu", "0.25", "--rounds", "3", "--lam", "0.1", "--B", "10",
                         "--data-size", "500", "--P", "25", "-f", "csv")
    assert code == 0, err
    assert "eps_pld_upper" in out.splitlines()[0]
