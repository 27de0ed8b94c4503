"""riskcal (Kulynych et al. 2024's package, a test-only oracle) and its published test values.

riskcal computes β(α) from dp-accounting's pessimistic PLD at a grid step (here 1e-3): its β is a valid lower bound
on the true β, so it must lie below dpcalc's certified upper end, and within its discretisation (2e-3 here) of
dpcalc's lower end. Its closed forms (GDP, (ε, δ)) agree to rounding."""

from __future__ import annotations

import numpy as np
import pytest

from dpcalc.risk import approx, attack_risk, dpsgd_curve, gaussian, noise_for_risk

riskcal = pytest.importorskip("riskcal")
conv = pytest.importorskip("riskcal.analysis.conversions")


def test_closed_forms_agree_with_riskcal() -> None:
    a = np.array([1e-4, 1e-3, 0.01, 0.1, 0.5])
    for mu in (0.5, 1.0, 2.0):
        np.testing.assert_allclose(1 - gaussian.tpr(mu, a), conv.get_beta_from_gdp(mu, a), rtol=1e-12)
        assert float(gaussian.bayes_success(mu, 0.2)) == pytest.approx(1 - conv.get_bayes_risk_from_gdp(mu, 0.2),
                                                                       rel=1e-12)
    for e, d in ((1.0, 1e-3), (0.0, 1e-3), (3.0, 1e-5)):
        np.testing.assert_allclose(approx.beta(e, d, a), conv.get_beta_from_adp(e, d, a), rtol=1e-12, atol=1e-15)
        assert float(approx.advantage(e, d)) == pytest.approx(conv.get_advantage_from_adp(e, d), rel=1e-12)


def test_riskcal_docstring_values() -> None:
    """riskcal 1.5.1 docstrings: get_beta_from_adp(1.0, 0.001, 0.8) rounds to 0.073; advantage(0, 0.001) to 0.001."""
    assert round(float(approx.beta(1.0, 0.001, 0.8)), 3) == 0.073
    assert round(float(approx.advantage(0.0, 0.001)), 3) == 0.001


@pytest.mark.parametrize(("z", "q", "steps"), [(1.0, 0.01, 1000), (1.5, 0.1, 100)])
def test_dpsgd_beta_and_advantage_against_riskcal(z: float, q: float, steps: int) -> None:
    from riskcal.calibration.dpsgd import get_advantage_for_dpsgd, get_beta_for_dpsgd

    a = np.array([1e-3, 1e-2, 0.1, 0.5])
    theirs = get_beta_for_dpsgd(alpha=a, noise_multiplier=z, sample_rate=q, num_steps=steps, grid_step=1e-3)
    curve = dpsgd_curve(z, q, steps)
    lo, up = curve.beta(a)
    assert np.all(theirs <= up + 1e-9)
    assert np.all(lo - theirs <= 2e-3)
    adv = get_advantage_for_dpsgd(noise_multiplier=z, sample_rate=q, num_steps=steps, grid_step=1e-3)
    r = attack_risk(curve)
    assert r.advantage_lower - 2e-3 <= adv <= r.advantage_upper + 2e-3


@pytest.mark.slow
def test_calibration_against_riskcal() -> None:
    """riskcal's calibration to (α, β) = (0.01, 0.9), i.e. TPR ≤ 0.1 at FPR 0.01 (q = 0.01, T = 1000): riskcal 1.5.1
    at grid step 1e-2 gives z = 0.63451, dpcalc 0.63360 (certified, safe side)."""
    from riskcal.calibration.dpsgd import find_noise_multiplier_for_err_rates

    theirs = find_noise_multiplier_for_err_rates(alpha=0.01, beta=0.9, sample_rate=0.01, num_steps=1000,
                                                 beta_tol=1e-3, grid_step=1e-2)
    ours = noise_for_risk(0.01, 1000, max_tpr=0.1, at_fpr=0.01)
    assert ours.achieved <= 0.1 < ours.next_achieved
    assert ours.value == pytest.approx(theirs, rel=5e-3)
