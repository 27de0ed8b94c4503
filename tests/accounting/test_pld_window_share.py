"""The FFT window is sized for the asked tolerance (`common.window_tau`): at the default its truncation and aliasing
terms widen the bracket by at most 1 % of the asked width, and a tighter request keeps the old share."""

from __future__ import annotations

import pytest

from dpcalc.accounting.pld import accountant
from dpcalc.accounting.pld.common import RTOL, TAU, WINDOW_SHARE, window_tau
from dpcalc.accounting.pld.schedule import Step


def test_the_share_follows_the_asked_tolerance() -> None:
    assert window_tau(RTOL) == pytest.approx(WINDOW_SHARE * RTOL) == pytest.approx(1e-5)
    assert window_tau(1e-6) == TAU  # never below the share the accountant always had
    assert window_tau(0.1) == pytest.approx(1e-3)


@pytest.mark.parametrize("sched", [[(1.1, 256 / 60000, 1000)], [(0.8, 0.1, 300)], [(2.0, 0.02, 5000)],
                                   [(1.0, 0.01, 200), (3.0, 0.05, 100)]])
def test_at_the_default_the_window_costs_at_most_a_percent_of_the_asked_width(
        sched: list[tuple[float, float, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    steps = [Step(*s) for s in sched]
    sized = accountant.epsilon(steps, 1e-5)
    monkeypatch.setattr(accountant, "window_tau", lambda rtol: TAU)
    old = accountant.epsilon(steps, 1e-5)
    assert sized.met and old.met
    assert sized.eps_lower <= old.eps_upper and old.eps_lower <= sized.eps_upper  # both hold ε
    assert sized.width - old.width <= WINDOW_SHARE * (sized.rtol * sized.eps_upper + sized.atol)
    assert sized.fft_len <= old.fft_len
