"""Verification recipes for the event accountant's entries (events_mironov2017, events_kairouz2015,
events_wang2019): each computes the same quantity from its definition, with mpmath at 40 digits.

* ``events_laplace_quadrature`` (exact-numeric): D_α(Lap(Δ, b) ‖ Lap(0, b)) by quadrature of ∫ p^α q^{1−α},
  split at the kinks 0 and Δ; tolerance 1e-10 relative.
* ``events_pure_dp_sum`` (exact-numeric): the Rényi divergence of binary randomized response with e^ε as its
  two-term sum; tolerance 1e-12 relative.
* ``events_kov_loss_sum`` (exact-numeric): δ(ε') = E_P[(1 − e^{ε' − L})₊] summed over the privacy loss of the
  k-fold composed four-outcome pair (L = (k − 2i)ε with probability (1 − δ)^k C(k, i)p^{k−i}(1 − p)^i, +∞ with
  1 − (1 − δ)^k); tolerance 1e-10 relative.
* ``events_wor_valid`` (exact-numeric): the theorem's sum term by term in mpmath (tolerance 1e-10 relative), and
  the bound must lie above the RDP of a mechanism it covers — the Gaussian on a fixed-size sample whose replaced
  record moves the sum from +C to −C, the pair ((1 − γ)N(0) + γN(1), (1 − γ)N(0) + γN(−1)) (σ in clipping norms)
  by quadrature — else the check fails. (The bound is ~4× that mechanism's RDP at small γ, so only the first part
  can notice a factor 2.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcalc.checks._util import exact_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["kov_delta_mp"]  # the recipes register themselves (checks.registry)


@recipe("events_laplace_quadrature")
def _laplace(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    alpha, b, shift = value_of(values, "alpha"), value_of(values, "noise_multiplier"), value_of(values, "sensitivity",
                                                                                                1.0)
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(40):
        a, bb, d = mp.mpf(alpha), mp.mpf(b), mp.mpf(shift)

        def density(x: Any, m: Any) -> Any:
            return mp.exp(-abs(x - m) / bb) / (2 * bb)

        total = mp.quad(lambda x: density(x, d) ** a * density(x, 0) ** (1 - a), [-mp.inf, 0, d, mp.inf])
        est = float(mp.log(total) / (a - 1))
    return exact_result(closed, est, 1e-10, "D_α(Lap(Δ, b) ‖ Lap(0, b)) by 40-digit quadrature")


@recipe("events_pure_dp_sum")
def _pure(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    alpha, eps = value_of(values, "alpha"), value_of(values, "epsilon")
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(40):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        p = mp.e**e / (1 + mp.e**e)
        est = float(mp.log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1))
    return exact_result(closed, est, 1e-12, "D_α of binary randomized response (p = e^ε/(1+e^ε)) as a finite sum")


def kov_delta_mp(values: Mapping[str, Any]) -> float:
    """δ(ε') = E_P[(1 − e^{ε'−L})₊] of ``count`` (ε, δ)-DP releases summed over the composed loss of the four-outcome
    pair in 40-digit mpmath (inputs ``epsilon``, ``delta``, ``count``, ``eps_total``)."""
    import mpmath as mp

    eps, delta = value_of(values, "epsilon"), value_of(values, "delta")
    k, eps_total = int(value_of(values, "count")), value_of(values, "eps_total")
    with mp.workdps(40):
        e, d, et = mp.mpf(eps), mp.mpf(delta), mp.mpf(eps_total)
        p = mp.e**e / (1 + mp.e**e)
        body = mp.fsum(mp.binomial(k, i) * p ** (k - i) * (1 - p) ** i * (1 - mp.e ** (et - (k - 2 * i) * e))
                       for i in range(k + 1) if (k - 2 * i) * e > et)
        return float(1 - (1 - d) ** k + (1 - d) ** k * body)


@recipe("events_kov_loss_sum")
def _kov(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    closed = float(formula.call(values, published=ctx.published))
    return exact_result(closed, kov_delta_mp(values), 1e-10, "δ(ε') = E_P[(1 − e^{ε'−L})₊] over the composed "
                                                             "privacy loss")


@recipe("events_wor_valid")
def _wor(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath as mp

    alpha, gamma, sigma = int(value_of(values, "alpha")), value_of(values, "gamma"), value_of(values, "sigma")
    closed = float(formula.call(values, published=ctx.published))
    with mp.workdps(40):
        g, s = mp.mpf(gamma), mp.mpf(sigma)

        def mix(x: Any, m: Any) -> Any:
            return (1 - g) * mp.npdf(x, 0, s) + g * mp.npdf(x, m, s)

        div = mp.quad(lambda x: mix(x, 1) ** alpha * mix(x, -1) ** (1 - alpha), [-mp.inf, -1, 0, 1, mp.inf])
        covered = float(mp.log(div) / (alpha - 1))
        eps = [mp.mpf(2 * j) / s**2 for j in range(alpha + 1)]  # the inner Gaussian's RDP, shift 2
        total = 1 + g**2 * mp.binomial(alpha, 2) * min(4 * mp.expm1(eps[2]), 2 * mp.e ** eps[2])
        total += mp.fsum(2 * g**j * mp.binomial(alpha, j) * mp.e ** ((j - 1) * eps[j]) for j in range(3, alpha + 1))
        est = float(min(mp.log(total) / (alpha - 1), eps[alpha]))
    if closed < covered * (1 - 1e-12):
        return CheckResult("exact-numeric", closed, covered, covered, math.inf,
                           f"bound below the RDP {covered:.6g} of a mechanism it covers")
    return exact_result(closed, est, 1e-10, f"Thm. 9 summed in mpmath; above the RDP {covered:.6g} of a covered "
                                            "mechanism (sum from +C to −C)")
