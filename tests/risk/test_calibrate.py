"""Calibration to a risk target: the answer meets it on the certified upper end, one step further does not (or only
barely: within the search tolerance), and the μ-GDP closed form agrees where the run is exactly Gaussian."""

from __future__ import annotations

import pytest

from dpcalc.errors import DomainError, InfeasibleError
from dpcalc.risk import gaussian, noise_for_risk, steps_for_risk
from dpcalc.risk.calibrate import dpsgd_tpr


def test_noise_for_tpr_target_is_safe_and_tight() -> None:
    c = noise_for_risk(0.01, 1000, max_tpr=0.1, at_fpr=0.01)
    assert c.achieved <= 0.1 and dpsgd_tpr(c.value, 0.01, 1000, 0.01) <= 0.1
    assert c.next_achieved > 0.1 - 1e-3


def test_noise_for_full_batch_matches_the_gdp_closed_form() -> None:
    """q = 1: T Gaussian steps at z are √T/z-GDP, so z = √T/μ with μ = Φ⁻¹(t) − Φ⁻¹(α)."""
    c = noise_for_risk(1.0, 100, max_tpr=0.3, at_fpr=0.05)
    want = 10.0 / float(gaussian.mu_for_tpr(0.3, 0.05))
    assert c.value == pytest.approx(want, rel=2e-3) and c.value >= want * (1 - 1e-12)


def test_noise_for_advantage() -> None:
    c = noise_for_risk(1.0, 1, max_advantage=0.2)
    # μ-GDP advantage 2Φ(μ/2) − 1 = 0.2 at μ = 2Φ⁻¹(0.6) = 0.506694
    assert c.value == pytest.approx(1 / 0.5066942062, rel=2e-3) and c.achieved <= 0.2


def test_steps_for_tpr_target_is_the_largest() -> None:
    c = steps_for_risk(2.0, 0.05, max_tpr=0.2, at_fpr=0.05)
    assert c.achieved <= 0.2 < c.next_achieved and c.next_value == c.value + 1


def test_bad_targets() -> None:
    with pytest.raises(InfeasibleError, match="max_tpr must be > at_fpr"):
        noise_for_risk(0.01, 100, max_tpr=0.01, at_fpr=0.05)
    with pytest.raises(DomainError, match="exactly one target"):
        noise_for_risk(0.01, 100)
    with pytest.raises(DomainError, match="at_fpr"):
        noise_for_risk(0.01, 100, max_tpr=0.2)
    with pytest.raises(DomainError, match="at_fpr"):
        noise_for_risk(0.01, 100, max_tpr=0.2, at_fpr=0.0)
    with pytest.raises(InfeasibleError, match="even one step"):
        steps_for_risk(0.3, 1.0, max_tpr=0.2, at_fpr=0.01)
