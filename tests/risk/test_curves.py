"""Trade-off curves: the exact G_μ, the (ε, δ) curve and the certified PLD band, with the duality's two ends.

Tolerances: exact forms to 1e-12 relative; the PLD band's ends bracket independent computations (dp-accounting's
δ(ε), riskcal's β) to the band's own width plus the peers' discretisation (stated per test)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dpcalc.accounting import gdp, pld
from dpcalc.errors import DomainError
from dpcalc.risk import (
    ApproxDpCurve,
    GaussianCurve,
    PldCurve,
    advantage,
    approx,
    approx_dp_curve,
    attack_risk,
    bayes_success,
    dpsgd_components,
    gaussian,
    gaussian_curve,
    tpr_at,
    tradeoff_curve,
)

ALPHA = np.array([1e-6, 1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0])


def test_gaussian_components_give_the_exact_curve() -> None:
    curve = tradeoff_curve([(pld.gaussian(2.0), 4), (pld.gaussian(1.0, relation="replace_one"), 1)])
    assert isinstance(curve, GaussianCurve)
    assert curve.mu == pytest.approx(np.sqrt(4 / 4 + 4.0), rel=1e-15)  # replace_one: shift 2
    lo, up = curve.beta(ALPHA)
    np.testing.assert_array_equal(lo, up)
    np.testing.assert_allclose(lo, gdp.tradeoff(ALPHA, curve.mu), rtol=1e-15)


def test_approx_curve_closed_form_and_profile() -> None:
    c = approx_dp_curve(1.0, 1e-3)
    b = c.beta(ALPHA)[0]
    want = np.maximum.reduce([1 - 1e-3 - np.e * ALPHA, np.exp(-1.0) * (1 - 1e-3 - ALPHA), np.zeros_like(ALPHA)])
    np.testing.assert_allclose(b, want, rtol=1e-14, atol=1e-16)
    # its profile: δ(0) is the advantage, δ(ε) = δ at ε' ≥ ε
    assert c.delta(np.zeros(1))[0][0] == pytest.approx(approx.advantage(1.0, 1e-3), rel=1e-14)
    assert c.delta(np.array([1.0, 3.0]))[1].tolist() == [1e-3, 1e-3]


@pytest.mark.parametrize(("sigma", "q", "steps"), [(1.0, 0.01, 1000), (2.0, 0.2, 50), (0.8, 0.05, 3)])
def test_pld_band_is_ordered_and_brackets_the_profile(sigma: float, q: float, steps: int) -> None:
    comps = [(pld.poisson(pld.gaussian(sigma), q), steps)]
    curve = tradeoff_curve(comps)
    assert isinstance(curve, PldCurve) and curve.kind == "certified"
    for o in ("symmetric", "membership", "non_membership"):
        lo, up = curve.beta(ALPHA, o)
        assert np.all(lo <= up) and np.all(np.diff(lo) <= 1e-12) and np.all(up <= 1 - ALPHA + 1e-15)
    # the symmetric curve is below each test's (both orderings of a neighbouring pair): its certified lower end is
    # below each test's certified upper end
    s_lo = curve.beta(ALPHA)[0]
    assert np.all(s_lo <= curve.beta(ALPHA, "membership")[1] + 1e-15)
    assert np.all(s_lo <= curve.beta(ALPHA, "non_membership")[1] + 1e-15)
    # δ(ε) bracket overlaps the accountant's own certified bracket at the same ε
    for e in (0.0, 0.5, 2.0):
        d_lo, d_up = curve.delta(np.array([e]))
        b = pld.delta_composed(comps, e)
        assert d_lo[0] <= b.delta_upper * (1 + 1e-9) and b.delta_lower <= d_up[0] * (1 + 1e-9)


def test_band_contains_dp_accounting_profile_line() -> None:
    """Independent: every line 1 − δ(ε) − e^ε α of dp-accounting's (pessimistic) δ(ε) lies below the band's upper end
    (it is a lower bound on β), and the best such line is within the band's width + 2e-3 of its lower end."""
    from dp_accounting.pld import privacy_loss_distribution as pldm

    dpl = pldm.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=1e-3).self_compose(1000)
    eps = np.linspace(0.0, 8.0, 801)
    d = np.array([dpl.get_delta_for_epsilon(float(e)) for e in eps])
    curve = tradeoff_curve(dpsgd_components(1.0, 0.01, 1000))
    a = np.array([1e-3, 1e-2, 0.1])
    lo, up = curve.beta(a)
    lines = np.max(np.maximum(1 - d[:, None] - np.exp(eps)[:, None] * a, np.exp(-eps)[:, None] * (1 - d[:, None] - a)),
                   axis=0)
    assert np.all(lines <= up + 1e-9)
    assert np.all(lo - lines <= 2e-3)


def test_attack_risk_of_gdp_matches_closed_forms() -> None:
    r = attack_risk(GaussianCurve(1.0), (1e-3, 1e-2, 0.1), prior=0.3)
    np.testing.assert_allclose(r.tpr_upper, gaussian.tpr(1.0, np.array([1e-3, 1e-2, 0.1])), rtol=1e-13)
    assert r.advantage_upper == pytest.approx(float(gdp.delta_at_zero(1.0)), rel=1e-14)
    assert r.success_upper == pytest.approx(float(gaussian.bayes_success(1.0, 0.3)), rel=1e-14)


def test_bayes_success_is_symmetric_in_the_prior_for_a_symmetric_curve() -> None:
    c = GaussianCurve(2.0)
    for p in (0.1, 0.25, 0.8):
        assert bayes_success(c, p)[1] == pytest.approx(bayes_success(c, 1 - p)[1], rel=1e-13)
    # and it is never below the blind guess
    assert bayes_success(GaussianCurve(0.0), 0.3)[0] == pytest.approx(0.7, rel=1e-15)


def test_bayes_success_from_the_profile_equals_the_optimised_definition() -> None:
    """Kaissis et al. 2024 eq. (2): 1 − min_α (π·f(α) + (1 − π)·α), minimised over a fine grid of α."""
    c = tradeoff_curve(dpsgd_components(1.0, 0.05, 100))
    a = np.concatenate([np.geomspace(1e-9, 1e-2, 400), np.linspace(1e-2, 1.0, 4000)])
    lo, up = c.beta(a, "membership")
    for p in (0.2, 0.5, 0.7):
        s_lo, s_up = bayes_success(c, p, "membership")
        # π = P(in); errors: π·FNR + (1 − π)·FPR with FNR = β(FPR)
        best_up = 1 - np.min(p * lo + (1 - p) * a)  # from the guarantee end
        best_lo = 1 - np.min(p * up + (1 - p) * a)
        assert s_lo - 1e-9 <= best_up and best_lo <= s_up + 2e-3


def test_tpr_at_and_bad_input() -> None:
    c = approx_dp_curve(1.0, 0.0)
    assert tpr_at(c, 0.01)[1][0] == pytest.approx(np.e * 0.01, rel=1e-14)
    for bad, what in ((0.0, "fpr"), (1.5, "fpr"), (float("nan"), "fpr")):
        with pytest.raises(DomainError, match=what):
            tpr_at(c, bad)
    with pytest.raises(DomainError, match="orientation"):
        tpr_at(c, 0.1, "sideways")
    with pytest.raises(DomainError, match="prior"):
        bayes_success(c, 1.0)
    with pytest.raises(DomainError, match="components"):
        tradeoff_curve([])


def test_generic_losses_give_the_symmetric_curve_only() -> None:
    curve = tradeoff_curve([(pld.laplace(2.0), 3)])
    lo, up = curve.beta(np.array([0.01, 0.1]))
    assert np.all(lo <= up) and np.all(up - lo < 0.05)
    with pytest.raises(DomainError, match="orientation 'membership'"):
        curve.beta(np.array([0.1]), "membership")
    # 3 Laplace(b = 2) releases are 1.5-DP: the band is above the pure-DP curve
    assert np.all(lo >= ApproxDpCurve(1.5, 0.0).beta(np.array([0.01, 0.1]))[0] - 1e-9)


@pytest.mark.parametrize(("sigma", "q", "steps"), [(1.1, 256 / 60000, 2000), (0.8, 0.01, 1), (4.0, 0.5, 3)])
def test_curve_deltas_is_delta_vectorised(sigma: float, q: float, steps: int) -> None:
    """`Curve.deltas` (the profile on a grid) equals `Curve.delta` point by point on the upper curve, bit for bit,
    and is at most it on the lower curve (where the direct sum's positive terms are dropped)."""
    from dpcalc.accounting.pld.passes import run
    from dpcalc.accounting.pld.schedule import Step

    e = np.linspace(0.0, 10.0, 801)
    for direction in ("remove", "add"):
        ps = run([Step(sigma, q, steps)], direction, 5e-4, 1e-30, None, 0.0)  # type: ignore[arg-type]
        assert ps.lo is not None
        assert np.array_equal(ps.up.deltas(e), [ps.up.delta(x) for x in e])
        with np.errstate(invalid="ignore"):  # the scalar direct sum's log of a rounding-negative 1 − e^{ε−x} (dropped)
            scalar_lo = np.array([ps.lo.delta(x) for x in e])
        assert np.all(ps.lo.deltas(e) <= scalar_lo)


# Calls the library fuzz found (tests/support/fuzz_library.py): a number where the curve belongs, FPRs of any shape,
# tolerances that are not one number. Each is a one-line DomainError naming the parameter, or a result.
@pytest.mark.parametrize("call", [lambda: tpr_at(0.5, 0.5), lambda: advantage(0.5),  # type: ignore[arg-type]
                                  lambda: bayes_success([0.1, 0.2]), lambda: attack_risk(0.5)])  # type: ignore[arg-type]
def test_a_curve_that_is_not_a_curve_is_named(call: Callable[[], object]) -> None:
    with pytest.raises(DomainError, match=r"^curve must be a trade-off curve") as err:
        call()
    assert "\n" not in str(err.value)


def test_fpr_of_any_shape_on_every_curve() -> None:
    fpr = np.array([[0.5, 0.5, 0.5]])  # a PLD curve's duality broadcast (1, 3) against its ε grid: bare NumPy error
    for curve in (approx_dp_curve(1.0, 1e-5), tradeoff_curve([(pld.poisson(pld.gaussian(1.0), 0.01), 100)])):
        lo, up = tpr_at(curve, fpr)
        assert lo.shape == up.shape == (1, 3) and np.all(lo <= up)
        r = attack_risk(curve, fpr, prior=0.001)
        assert r.fpr == (0.5, 0.5, 0.5) and r.tpr_upper == tuple(up.ravel())
    assert attack_risk(gaussian_curve(1.0), 0.01, prior=[0.3]).prior == 0.3  # type: ignore[arg-type]


@pytest.mark.parametrize(("rtol", "atol", "what"), [(np.array([1e-2, 1e-3]), 1e-4, "rtol"), (1e-2, 1 + 2j, "atol"),
                                                    (-1.0, 1e-4, "rtol"), (1e-2, float("nan"), "atol")])
def test_tradeoff_curve_tolerances_are_checked(rtol: object, atol: object, what: str) -> None:
    for comps in ([(pld.poisson(pld.gaussian(1.0), 0.01), 100)], [(pld.gaussian(1.0), 1)]):  # PLD and exact curve
        with pytest.raises(DomainError, match=f"^{what} must be"):
            tradeoff_curve(comps, rtol=rtol, atol=atol)  # type: ignore[arg-type]
