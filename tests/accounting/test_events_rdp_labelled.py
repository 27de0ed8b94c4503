"""RDP of the labelled dominating pairs (sampling with replacement, truncated Poisson sampling): the label-by-label
sum against numerical integration of E_Q[(P/Q)^α] over the pair itself, its special cases, and the order against
the PLD bracket of the same event."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcalc.accounting import events as ev
from dpcalc.accounting.events.base import NotAccountable
from dpcalc.accounting.pld.losses import truncation_label
from tests.support.accounting import account

ALPHAS = np.array([1.5, 2.0, 3.0, 4.5])


def _moment(log_p: object, log_q: object, alpha: float, lo: float = -30.0, hi: float = 30.0) -> float:
    """∫ p^α q^{1−α} by adaptive quadrature, the integrand in log space (relative error ~1e-11 here)."""
    return float(integrate.quad(lambda x: math.exp(alpha * log_p(x) + (1.0 - alpha) * log_q(x)),  # type: ignore
                                lo, hi, epsabs=0.0, epsrel=1e-12, limit=400)[0])


def _mix(g: float, shift: float, z: float) -> object:
    """log of (1 − g)N(0, z²) + gN(shift, z²)."""
    return lambda x: float(np.logaddexp(math.log1p(-g) + stats.norm.logpdf(x, 0, z),
                                        math.log(g) + stats.norm.logpdf(x, shift, z)))


@pytest.mark.parametrize(("rel", "f"), [("replace_one", 2.0), ("replace_special", 1.0)])
def test_with_replacement_gaussian_against_quadrature(rel: str, f: float) -> None:
    """b = 3 draws from n = 5 records, z = 2: the pair Σₖ P(K = k)(k, N(kf, z²)) against Σₖ P(K = k)(k, N(0, z²)).
    With the label shown, E_Q[(P/Q)^α] = Σₖ wₖ ∫ φ_k^α φ_0^{1−α}: each integral by quadrature."""
    b, n, z = 3, 5, 2.0
    curve = (ev.SampledWithReplacement(n, b, ev.Gaussian(z))).rdp(ALPHAS, rel)
    assert not curve.exact
    w = stats.binom.pmf(np.arange(b + 1), b, 1.0 / n)
    for a, got in zip(ALPHAS, curve.rdp, strict=True):
        parts = [_moment(lambda x, k=k: stats.norm.logpdf(x, k * f, z), lambda x: stats.norm.logpdf(x, 0, z), a,
                         -40.0, 40.0 + k * f) for k in range(b + 1)]
        want = math.log(float(np.dot(w, parts))) / (a - 1.0)
        assert got == pytest.approx(want, rel=1e-8)


def test_with_replacement_from_one_record_is_a_group_of_b() -> None:
    """n = 1: every draw is the changed record, so the output moves by b·f: the Gaussian RDP α(bf)²/(2z²)."""
    curve = (ev.SampledWithReplacement(1, 4, ev.Gaussian(3.0))).rdp(ALPHAS, "replace_one")
    assert curve.rdp == pytest.approx(ALPHAS * (4 * 2.0 / 3.0) ** 2 / 2.0, rel=1e-13)


def test_with_replacement_laplace_against_quadrature() -> None:
    b, n, scale = 2, 3, 1.5
    curve = (ev.SampledWithReplacement(n, b, ev.Laplace(scale))).rdp(ALPHAS, "replace_special")
    w = stats.binom.pmf(np.arange(b + 1), b, 1.0 / n)
    for a, got in zip(ALPHAS, curve.rdp, strict=True):
        parts = [integrate.quad(lambda x, k=k, a=a: stats.laplace.pdf(x, k, scale) ** a
                                * stats.laplace.pdf(x, 0, scale) ** (1 - a), -80, 80, points=[0.0, float(k)],
                                epsabs=0.0, epsrel=1e-11, limit=400)[0] for k in range(b + 1)]
        assert got == pytest.approx(math.log(float(np.dot(w, parts))) / (a - 1.0), rel=1e-8)


def test_truncated_against_quadrature() -> None:
    """n = 40, q = 0.3, B = 10, z = 1.2 (the cut is likely): (1 − r)·E[(P₀/Q₀)^α] + r·E[(P₁/Q₁)^α] with the Poisson
    pair P₀ = (1 − q)N(0) + qN(1), the cut pair P₁ = γ̄N(2) + (1 − γ̄)N(0), Q = N(0), by quadrature."""
    n, q, bb, z = 40, 0.3, 10, 1.2
    r, g = truncation_label(q, n, bb)
    assert 0.3 < r < 1.0
    curve = (ev.TruncatedSubsampledGaussian(n, q, bb, z)).rdp(ALPHAS, "add_remove")
    assert not curve.exact
    log_q = stats.norm(0, z).logpdf
    for a, got in zip(ALPHAS, curve.rdp, strict=True):
        e0 = _moment(_mix(q, 1.0, z), log_q, a)
        e1 = _moment(_mix(g, 2.0, z), log_q, a)
        assert got == pytest.approx(math.log((1 - r) * e0 + r * e1) / (a - 1.0), rel=1e-7)


def test_truncated_without_a_cut_is_poisson() -> None:
    uncut = (ev.TruncatedSubsampledGaussian(1000, 0.01, 1000, 1.1)).rdp(ALPHAS, "add_remove")
    poisson = (ev.PoissonSampled(0.01, ev.Gaussian(1.1))).rdp(ALPHAS, "add_remove")
    assert uncut.exact and np.array_equal(uncut.rdp, poisson.rdp)


@pytest.mark.parametrize(("event", "rel"), [
    (ev.SelfComposed(ev.SampledWithReplacement(60000, 256, ev.Laplace(2.0)), 10), "replace_one"),
    (ev.SelfComposed(ev.SampledWithReplacement(60000, 256, ev.Gaussian(1.1)), 10), "replace_one"),
    (ev.SelfComposed(ev.TruncatedSubsampledGaussian(60000, 0.01, 650, 1.1), 100), "add_remove"),
    (ev.SelfComposed(ev.TruncatedSubsampledGaussian(60000, 0.01, 500, 1.1), 100), "replace_special")])
def test_rdp_is_above_the_pld_lower_end(event: ev.Event, rel: str) -> None:
    """Both accountants bound the same pair: the RDP ε (an upper bound) is never below the PLD's ε_lower. Measured:
    Laplace ×10 2.475 vs [1.9677, 1.9677]; truncated B = 650 ×100 3.922 vs [2.6006, 2.6011]; Gaussian with
    replacement ×10 18.11 vs [10.5629, 10.5629] (with every draw count kept: 47,922, see the next test)."""
    r = account(event, delta=1e-5, accountant="rdp", neighbours=rel)
    p = account(event, delta=1e-5, accountant="pld", neighbours=rel)
    assert r.kind == "upper" and p.lower is not None
    assert r.value >= p.lower


@pytest.mark.parametrize(("event", "rel", "message"), [
    (ev.SampledWithReplacement(100, 3, ev.Gaussian(1.0)), "add_remove", "replace-one"),
    (ev.SampledWithReplacement(100, 3, ev.RandomizedResponse(0.5, 2)), "replace_one",
     "no form at a multiple of its sensitivity"),
    (ev.TruncatedSubsampledGaussian(100, 0.1, 5, 1.0), "replace_one", "add-remove or replace-special")])
def test_refusals_name_the_event_and_the_way_out(event: ev.Event, rel: str, message: str) -> None:
    with pytest.raises(NotAccountable, match=message) as info:
        (event).rdp(ALPHAS, rel)  # type: ignore[arg-type]
    assert event.CLASS_NAME in str(info.value) and "\n" not in str(info.value)


def test_with_replacement_cut_spends_a_share_of_delta() -> None:
    """The with-replacement sum is ruled by the largest draw counts (k² in the exponent): kept whole, 10 releases of
    b = 256 of 60,000 at z = 1.1 give ε = 47,922. The accountant leaves out the counts above the first k₀ with
    P(K > k₀) ≤ 1e-3·δ/releases and spends that probability of δ (`Curve.slack`): ε = 18.11."""
    from dpcalc.accounting import conversion, rdp

    event = ev.SelfComposed(ev.SampledWithReplacement(60000, 256, ev.Gaussian(1.1)), 10)
    grid = rdp.orders_array(None)
    whole = (event).rdp(grid, "replace_one")
    assert whole.slack == 0.0
    assert conversion.best_over_grid(grid, whole.rdp, math.log(1e-5))[0] > 4e4
    assert event.releases_with_replacement() == 10
    tail = 1e-3 * 1e-5 / 10
    cut = (event).rdp(grid, "replace_one", tail)
    assert 0.0 < cut.slack <= 10 * tail
    k0 = int(np.argmax(stats.binom.sf(np.arange(257), 256, 1 / 60000) <= tail))
    assert cut.slack == pytest.approx(10 * stats.binom.sf(k0, 256, 1 / 60000), rel=1e-12)
    r = account(event, delta=1e-5, accountant="rdp", neighbours="replace_one")
    assert r.value == pytest.approx(conversion.best_over_grid(grid, cut.rdp, math.log(1e-5 - cut.slack))[0], rel=1e-12)
    assert 10.5 < r.value < 20.0
