"""Exact recipes of the event accountant's entries for the discrete mechanisms, randomized response, zCDP, the
Laplace privacy profile and the two RDP bounds (Zhu & Wang 2019, Papernot & Steinke 2022): each computes the
quantity from its definition with mpmath at 40 digits, not from the closed form.

* ``events_discrete_renyi_sum`` (exact-numeric): D_α of the discrete Laplace or discrete Gaussian pair summed term
  by term, Σₖ p(k)^α q(k)^{1−α} over the integers within 100/a (Laplace) or 16σ + 2 (Gaussian) of where the
  terms peak (the rest is below e^{−100} relative); tolerance 1e-9 relative.
* ``events_discrete_profile_sum`` and ``events_laplace_profile_quadrature`` (exact-numeric, one-sided): δ(ε) =
  Σₖ (p(k) − e^ε q(k))₊ term by term (discrete Laplace or discrete Gaussian), or ∫ (p − e^ε q)₊ by quadrature split
  at 0, Δ and the root of L(x) = ε (found by mpmath's root finder); the implementation is the PLD accountant's
  certified upper end, so it must lie in [exact, exact·(1 + 1e-3)] (1e-3 is the accountant's default bracket width).
* ``events_kov_pld_upper`` (exact-numeric, one-sided): the Kairouz, Oh & Viswanath 2015 sum over the composed
  privacy loss (`dpcalc.checks.events.kov_delta_mp`); the PLD accountant's upper end must lie in
  [exact, exact·(1 + 1e-3)].
* ``events_rr_convolution`` (exact-numeric): the T-fold composed privacy loss of randomized response by T
  convolutions of the three-point loss distribution in mpmath, then δ(ε) = Σ P(l)(1 − e^{ε−l})₊; tolerance 1e-9.
* ``events_zcdp_gaussian_quadrature`` (exact-numeric): ξ + D_α(N(√(2ρ), 1) ‖ N(0, 1)) by quadrature (the Gaussian
  that attains ρα); tolerance 1e-10.
* ``events_poisson_bound_valid`` / ``events_selection_bound_valid`` (exact-numeric): the theorem summed in mpmath
  (tolerance 1e-10), and the bound must lie above the exact RDP of a mechanism it covers — the Poisson-subsampled
  Laplace pair in both orientations by quadrature; repeat-and-select of binary randomized response with e^ε and a
  geometric number of runs, releasing the largest output (two Bernoulli outputs in closed form) — else the check
  fails.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks._util import exact_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)

_DPS = 40
_PROFILE_RTOL = 1e-3


def _upper_result(closed: float, exact: float, detail: str) -> CheckResult:
    """The implementation is a certified upper end: it must lie in [exact, exact·(1 + 1e-3)]."""
    return CheckResult("exact-numeric", closed, exact, exact, exact * (1.0 + _PROFILE_RTOL) + 1e-300,
                       f"{detail}; upper end within {_PROFILE_RTOL:g} relative", {"rtol": _PROFILE_RTOL})


def _below_covered(closed: float, covered: float, what: str) -> CheckResult | None:
    if closed < covered * (1 - 1e-12):
        return CheckResult("exact-numeric", closed, covered, covered, math.inf,
                           f"bound below the RDP {covered:.6g} of {what}")
    return None


def _dlap_terms(a: Any, s: int) -> tuple[Any, Any, range]:
    """Discrete Laplace pair p(k) = c e^{−a|k − s|}, q(k) = c e^{−a|k|} on the integers that matter."""
    import mpmath as mp

    c = mp.tanh(a / 2)
    m = int(mp.ceil(100 / a)) + 1
    return (lambda k: c * mp.e ** (-a * abs(k - s))), (lambda k: c * mp.e ** (-a * abs(k))), range(-m, s + m + 1)


def _dgauss_terms(sigma: Any, s: int) -> tuple[Any, Any, range]:
    """Discrete Gaussian pair p(k) = e^{−(k − s)²/(2σ²)}/Z, q(k) = e^{−k²/(2σ²)}/Z within 16σ + 2 of both centres."""
    import mpmath as mp

    m = int(mp.ceil(16 * sigma)) + 2
    z = mp.fsum(mp.e ** (-mp.mpf(k) ** 2 / (2 * sigma**2)) for k in range(-m, m + 1))
    return ((lambda k: mp.e ** (-mp.mpf(k - s) ** 2 / (2 * sigma**2)) / z),
            (lambda k: mp.e ** (-mp.mpf(k) ** 2 / (2 * sigma**2)) / z), range(-m, s + m + 1))


@recipe("events_discrete_renyi_sum")
def _renyi(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    alpha, s = value_of(values, "alpha"), int(value_of(values, "shift"))
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        al = mp.mpf(alpha)
        if "noise_parameter" in values:
            p, q, ks = _dlap_terms(mp.mpf(value_of(values, "noise_parameter")), s)
            total = mp.fsum(p(k) ** al * q(k) ** (1 - al) for k in ks)
            what = "discrete Laplace"
        else:
            sg = mp.mpf(value_of(values, "sigma"))
            m = int(mp.ceil(16 * sg)) + 2

            def w(k: int, centre: Any) -> Any:
                return mp.e ** (-((k - centre) ** 2) / (2 * sg * sg))

            z = mp.fsum(w(k, 0) for k in range(-m, m + 1))
            peak = int(mp.nint(al * s))  # α(k − s)² + (1 − α)k² peaks (is smallest) at k = αs
            total = mp.fsum((w(k, s) / z) ** al * (w(k, 0) / z) ** (1 - al) for k in range(peak - m, peak + m + 1))
            what = "discrete Gaussian"
        est = float(mp.log(total) / (al - 1))
    return exact_result(closed, est, 1e-9, f"D_α of the {what} pair summed term by term (40 digits)")


@recipe("events_discrete_profile_sum")
def _discrete_profile(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    eps, s = value_of(values, "eps"), int(value_of(values, "shift"))
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        if "sigma" in values:
            p, q, ks = _dgauss_terms(mp.mpf(value_of(values, "sigma")), s)
        else:
            p, q, ks = _dlap_terms(mp.mpf(value_of(values, "noise_parameter")), s)
        e = mp.e ** mp.mpf(eps)
        exact = float(mp.fsum(max(p(k) - e * q(k), 0) for k in ks))
    return _upper_result(closed, exact, "Σₖ (p(k) − e^ε q(k))₊ term by term (40 digits)")


@recipe("events_laplace_profile_quadrature")
def _laplace_profile(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    eps, b, d = value_of(values, "eps"), value_of(values, "noise_multiplier"), value_of(values, "sensitivity", 1.0)
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        bb, dd, e = mp.mpf(b), mp.mpf(d), mp.mpf(eps)

        def lap(x: Any, m: Any) -> Any:
            return mp.e ** (-abs(x - m) / bb) / (2 * bb)

        cuts = [-mp.inf, 0, dd, mp.inf]
        if e < dd / bb:  # the loss (|x| − |x − Δ|)/b crosses ε inside (0, Δ)
            root = mp.findroot(lambda x: (abs(x) - abs(x - dd)) / bb - e, (mp.mpf(0), dd), solver="anderson")
            cuts = [-mp.inf, 0, root, dd, mp.inf]
        exact = float(mp.quad(lambda x: max(lap(x, dd) - mp.e**e * lap(x, 0), 0), cuts))
    return _upper_result(closed, exact, "∫ (p − e^ε q)₊ by 40-digit quadrature")


@recipe("events_kov_pld_upper")
def _kov_pld(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.checks.events import kov_delta_mp

    closed = float(formula.call(values, published=ctx.published))
    return _upper_result(closed, kov_delta_mp(values), "the optimal-composition sum over the composed loss")


@recipe("events_rr_convolution")
def _rr(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    eps, t = value_of(values, "eps"), int(value_of(values, "count"))
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        p, k = mp.mpf(value_of(values, "noise_parameter")), int(value_of(values, "num_buckets"))
        hit, miss = 1 - p + p / k, p / k
        step = {1: hit, -1: miss, 0: 1 - hit - miss}  # loss index under P: +1, −1, 0 (in units of log(h/m))
        dist = {0: mp.mpf(1)}
        for _ in range(t):
            nxt: dict[int, Any] = {}
            for lvl, w in dist.items():
                for dl, pr in step.items():
                    nxt[lvl + dl] = nxt.get(lvl + dl, 0) + w * pr
            dist = nxt
        unit = mp.log(hit / miss)
        est = float(mp.fsum(w * (1 - mp.e ** (eps - lvl * unit)) for lvl, w in dist.items() if lvl * unit > eps))
    return exact_result(closed, est, 1e-9, f"{t} convolutions of the three-point loss distribution (40 digits)")


@recipe("events_zcdp_gaussian_quadrature")
def _zcdp(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    alpha, rho, xi = value_of(values, "alpha"), value_of(values, "rho"), value_of(values, "xi", 0.0)
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        a, m = mp.mpf(alpha), mp.sqrt(2 * mp.mpf(rho))
        div = mp.quad(lambda x: mp.npdf(x, m, 1) ** a * mp.npdf(x, 0, 1) ** (1 - a), [-mp.inf, 0, m, mp.inf])
        est = float(xi + mp.log(div) / (a - 1))
    return exact_result(closed, est, 1e-10, "ξ + D_α(N(√(2ρ), 1) ‖ N(0, 1)) by 40-digit quadrature")


@recipe("events_poisson_bound_valid")
def _poisson_bound(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    alpha, b, q = int(value_of(values, "alpha")), value_of(values, "noise_multiplier"), value_of(values, "q")
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        bb, qq = mp.mpf(b), mp.mpf(q)

        def lap(x: Any, m: Any) -> Any:
            return mp.e ** (-abs(x - m) / bb) / (2 * bb)

        def mix(x: Any) -> Any:
            return qq * lap(x, 1) + (1 - qq) * lap(x, 0)

        cuts = [-mp.inf, 0, 1, mp.inf]
        rem = mp.quad(lambda x: mix(x) ** alpha * lap(x, 0) ** (1 - alpha), cuts)
        add = mp.quad(lambda x: lap(x, 0) ** alpha * mix(x) ** (1 - alpha), cuts)
        covered = float(mp.log(max(rem, add)) / (alpha - 1))

        def e_lap(j: int) -> Any:  # e^{(j − 1)ε(j)} of the Laplace mechanism, by quadrature of its own definition
            return mp.quad(lambda x: lap(x, 1) ** j * lap(x, 0) ** (1 - j), cuts)

        total = (1 - qq) ** (alpha - 1) * (alpha * qq - qq + 1)
        total += mp.binomial(alpha, 2) * qq**2 * (1 - qq) ** (alpha - 2) * e_lap(2)
        total += 3 * mp.fsum(mp.binomial(alpha, j) * (1 - qq) ** (alpha - j) * qq**j * e_lap(j)
                             for j in range(3, alpha + 1))
        est = float(min(mp.log(total), mp.log(e_lap(alpha))) / (alpha - 1))
    low = _below_covered(closed, covered, "the Poisson-subsampled Laplace mechanism")
    return low or exact_result(closed, est, 1e-10, f"Thm. 6 summed in mpmath; above the exact RDP {covered:.6g} of "
                                                   "the Poisson-subsampled Laplace (quadrature)")


@recipe("events_selection_bound_valid")
def _selection(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    lam, lam_hat = value_of(values, "order"), value_of(values, "order_hat")
    eps, mean = value_of(values, "epsilon"), value_of(values, "mean")
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(_DPS):
        la, lh, e, g = mp.mpf(lam), mp.mpf(lam_hat), mp.mpf(eps), 1 / mp.mpf(mean)
        p = mp.e**e / (1 + mp.e**e)

        def renyi(a: Any, x: Any, y: Any) -> Any:  # D_a(Bernoulli(x) ‖ Bernoulli(y))
            return mp.log(x**a * y ** (1 - a) + (1 - x) ** a * (1 - y) ** (1 - a)) / (a - 1)

        def one_seen(r: Any) -> Any:  # P(some run outputs 1) = 1 − E[(1 − r)^K], K geometric with parameter γ
            return 1 - g * (1 - r) / (1 - (1 - g) * (1 - r))

        x, y = one_seen(p), one_seen(1 - p)
        covered = float(max(renyi(la, x, y), renyi(la, y, x)))

        def rr(a: Any) -> Any:  # (a − 1)·RDP of binary randomized response with e^ε
            return mp.log((mp.e ** (a * e) + mp.e ** ((1 - a) * e)) / (1 + mp.e**e))

        est = float(rr(la) / (la - 1) + 2 * rr(lh) / lh + 2 * mp.log(mean) / lh + mp.log(mean) / (la - 1))
    low = _below_covered(closed, covered, "repeat-and-select of binary randomized response")
    return low or exact_result(closed, est, 1e-10, f"Thm. 2 in mpmath; above the exact RDP {covered:.6g} of "
                                                   "repeat-and-select of randomized response")
