"""NbAFL (Wei et al., IEEE TIFS 2020) closed forms at the edges of their domain, against references written from the
paper's formulas in mpmath (not from dpcalc's code):

* T* of Theorem 2 when κ0 = 0: ``[1 + a − W₀(e^{1+a})]/λ``, λ = −ln P, a = λΘε/κ1 — mpmath's ``lambertw`` at
  40 digits plus the digits the subtraction cancels;
* eq. (6): ``P^TΘ + (κ1T/ε + κ0T²/ε²)(1 − P^T)`` with P, κ1, κ0 of Theorem 2 (as published, λ1 = 1/μ + ρB/μ);
* :func:`optimal_t` refuses in one line where eq. (6) overflows at every T (as :func:`convergence_bound` does).

``DPCALC_SWEEP_POINTS`` sets the deep budget.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import mpmath
import pytest

from dpcalc import nbafl
from dpcalc.errors import DomainError, ErratumWarning
from tests.support.sweep import Axis, Point, sweep


def mp_t_star(eps: float, theta: float, p: float, kappa1: float) -> mpmath.mpf:
    """Wei et al. 2020, Theorem 2 (κ0 = 0): T* = [1 + a − W₀(e^{1+a})]/λ, at the precision the subtraction needs."""
    e, th, pp, k1 = (mpmath.mpf(x) for x in (eps, theta, p, kappa1))
    lam = -mpmath.log(pp)
    a = lam * th * e / k1
    extra = int(abs(mpmath.log10(a))) + 10 if a > 0 else 0
    with mpmath.extradps(extra):
        return (1 + a - mpmath.lambertw(mpmath.exp(1 + a)).real) / lam


@pytest.mark.parametrize(("eps", "theta", "p", "kappa1", "want"), [
    (0.01, 1e-3, 0.999999, 100.0, None), (1000.0, 1000.0, 1e-6, 1e-4, None), (1.0, 0.0, 0.5, 1.0, 0.0)])
def test_t_star_lambert_reproducers(eps: float, theta: float, p: float, kappa1: float, want: float | None) -> None:
    """1 + a − W₀(e^{1+a}) cancelled at both ends: a = 1e-13 gave 4.996e-8 for 5.0e-8, a = 1.4e11 gave 1.85672775
    for 1.85672782. Now 1e-15 relative (T* = ln W₀(e^{1+a})/λ, the root of expm1(u) + u = a)."""
    got = nbafl.t_star_lambert(eps, theta=theta, p=p, kappa1=kappa1)
    if want is None:
        with mpmath.workdps(40):
            want = float(mp_t_star(eps, theta, p, kappa1))
    assert got == pytest.approx(want, rel=1e-15, abs=0.0)


def _p(pt: Point) -> float:
    return math.exp(-pt["lam"])


def test_t_star_lambert_sweep() -> None:
    """ε in [1e-3, 1e3], Θ in [1e-4, 1e4], λ = −ln P in [1e-12, 40], κ1 in [1e-6, 1e4] (a from ~1e-25 to ~1e15)."""
    sweep("nbafl.t_star_lambert[wide]", [Axis("eps", 1e-3, 1e3), Axis("theta", 1e-4, 1e4), Axis("lam", 1e-12, 40.0),
                                          Axis("kappa1", 1e-6, 1e4)],
          fn=lambda pt: nbafl.t_star_lambert(pt["eps"], theta=pt["theta"], p=_p(pt), kappa1=pt["kappa1"]),
          ref=lambda pt: mp_t_star(pt["eps"], pt["theta"], _p(pt), pt["kappa1"]), rtol=8e-15, n=80)


@pytest.mark.parametrize("eps", [5e-324, 1e-300, 1e-160])
def test_optimal_t_refuses_an_overflowing_bound(eps: float) -> None:
    """ε = 5e-324 returned an inf bound with no reason (convergence_bound and optimal_k refuse it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        with pytest.raises(DomainError, match="eps is too small") as info:
            nbafl.optimal_t(eps, t_max=50)
        with pytest.raises(DomainError):
            nbafl.convergence_bound(eps, T=10)
    assert "\n" not in str(info.value)


def mp_bound(p: Point) -> mpmath.mpf:
    """Wei et al. 2020, eq. (6) with Theorem 2's P, κ1, κ0 (λ1 = 1/μ + ρB/μ as published); c = c_scale·√(2 ln(1.25/δ))
    (Def. 2)."""
    ll, beta, rho, b, mu = (mpmath.mpf(p[k]) for k in ("pl", "lipschitz", "smoothness", "dissimilarity", "prox_mu"))
    th, cc, m, n, t, e = (mpmath.mpf(p[k]) for k in ("theta", "C", "m", "N", "T", "eps"))
    c = mpmath.mpf(p["c_scale"]) * mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / mpmath.mpf(p["delta"])))
    pp = 1 + 2 * ll * (-1 / mu + rho * b / mu**2 + rho * b * b / (2 * mu**2))
    lam1 = 1 / mu + rho * b / mu
    k1 = lam1 * beta * c * cc / (m * (1 - pp)) * mpmath.sqrt(2 / (n * mpmath.pi))
    k0 = rho * c * c * cc * cc / (2 * m * m * (1 - pp) * n)
    return pp**t * th + (k1 * t / e + k0 * t * t / e**2) * (1 - pp**t)


_BOUND_AXES = [Axis("eps", 1e-3, 1e3), Axis("delta", 1e-12, 0.5), Axis("T", 1, 1e5, "logint"),
               Axis("pl", 1e-4, 0.3), Axis("lipschitz", 1e-2, 1e2), Axis("smoothness", 1e-4, 1.0),
               Axis("dissimilarity", 1e-2, 2.0), Axis("prox_mu", 0.5, 20.0), Axis("theta", 1e-3, 1e3),
               Axis("C", 1e-2, 1e2), Axis("m", 1, 1e5, "logint"), Axis("N", 1, 1e4, "logint"),
               Axis("c_scale", 1.0, 3.0, "linear")]


def _bound(p: Point) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        kw: dict[str, Any] = {k: p[k] for k in ("T", "pl", "lipschitz", "smoothness", "dissimilarity", "prox_mu",
                                                "theta", "C", "m", "N", "c_scale")}
        return float(nbafl.convergence_bound(p["eps"], p["delta"], **kw))


def _p_in_unit(p: Point) -> bool:
    mu, rho, b = p["prox_mu"], p["smoothness"], p["dissimilarity"]
    pm1 = 2.0 * p["pl"] * (-1.0 / mu + rho * b / mu**2 + rho * b * b / (2.0 * mu**2))
    return -1.0 < pm1 < -1e-12


def _outward(p: Point, want: mpmath.mpf) -> float:
    """The documented outward factor of the bound, 1 + 16u(4 + T|log P|) (its float64 rounding, P^T to
    ~T|log P|·u), as an absolute term: it dominates the error at large T|log P| (5e-11 at T = 64510)."""
    mu, rho, b = (mpmath.mpf(p[k]) for k in ("prox_mu", "smoothness", "dissimilarity"))
    log_p = mpmath.log1p(2 * mpmath.mpf(p["pl"]) * (-1 / mu + rho * b / mu**2 + rho * b * b / (2 * mu**2)))
    return float(want * 16 * 2 * mpmath.mpf(2) ** -53 * (4 + p["T"] * abs(log_p)))


def test_convergence_bound_sweep() -> None:
    """eq. (6) over a wide box (T to 1e5, P from ~0.4 to 1 − 1e-12): an upper bound, never below the reference,
    within 1e-12 plus its documented outward factor."""
    sweep("nbafl.convergence_bound[wide]", _BOUND_AXES, fn=_bound, ref=mp_bound, rtol=1e-12, atol=_outward, n=60,
          safe="above", where=_p_in_unit)
