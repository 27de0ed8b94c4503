"""Verification recipes of the CUAG-PFL family (Li, Xiao & Chen 2024, ``formulas/002_cuag.toml``).

Monte Carlo: the sampling rate of a record under the paper's sampling model (client participates with prob. λ,
two disjoint mini-batches of size B from |D| records); the variance of the noise actually drawn by the mechanism.
Exact-numeric: σ_t by bisection on the CLT with the χ² divergence by mpmath quadrature; the composed CLT μ of the
actual σ_1..σ_T schedule (erratum E15); eq. (3) re-evaluated at 50 digits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.gdp import clt_sigma_root
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def _inclusion_terms(rng: np.random.Generator, size: int, lam: float, two_b: int, d: int) -> np.ndarray:
    participates = rng.random(size) < lam
    position = rng.integers(0, d, size)  # position of the record in a uniform random permutation of D_n
    return (participates & (position < two_b)).astype(np.float64)  # in one of the two disjoint batches of size B


@recipe("cuag_sampling_rate_mc")
def _sampling_rate_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    lam, b, d = value_of(values, "lam"), int(value_of(values, "B")), int(value_of(values, "D"))
    e = est.mean_estimate(partial(_inclusion_terms, lam=lam, two_b=2 * b, d=d), ctx.samples, ctx.seed_sequence(),
                          level=ctx.level, workers=ctx.workers)
    return mc_result(cf, e, "ρ: simulated probability that a given record is used in a local step (client selected "
                            "w.p. λ; two disjoint batches of size B drawn from |D| records)")


def _sigma_by_quadrature(mu: float, rho: float, steps: float, guess: float) -> float | None:
    return clt_sigma_root(mu, rho, steps, guess)


def _sched_inputs(values: Mapping[str, Any]) -> tuple[float, float, float]:
    mu, lam, b, d = value_of(values, "mu"), value_of(values, "lam"), value_of(values, "B"), value_of(values, "D")
    return mu, 2.0 * lam * b / d, value_of(values, "t") * value_of(values, "P")


@recipe("cuag_sigma_roundtrip")
def _sigma_roundtrip(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mu, rho, steps = _sched_inputs(values)
    root = _sigma_by_quadrature(mu, rho, steps, cf)
    if root is None:
        return failed(cf, "exact-numeric", "no σ within a factor 4 of the closed form reaches μ")
    return exact_result(cf, root, 1e-9, "σ_t: bisection on ρ√(tP·χ²(σ)) = μ (the corrected Theorem 4 over tP steps), "
                                        "χ² by SciPy quadrature")


def _noise_terms(rng: np.random.Generator, size: int, std: float) -> np.ndarray:
    z = std * rng.standard_normal(size)
    return z * z


@recipe("cuag_noise_variance_mc")
def _noise_variance_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mu, rho, steps = _sched_inputs(values)
    sigma = _sigma_by_quadrature(mu, rho, steps, math.sqrt(cf) * value_of(values, "B") / (2 * value_of(values, "C")))
    if sigma is None:
        return failed(cf, "monte-carlo", "no σ reaches μ near the closed form")
    std = 2.0 * value_of(values, "C") * sigma / value_of(values, "B")  # sensitivity 2C/B times the noise multiplier
    e = est.mean_estimate(partial(_noise_terms, std=std), ctx.samples, ctx.seed_sequence(), level=ctx.level,
                          workers=ctx.workers)
    return mc_result(cf, e, "ξ: sample variance of the noise N(0, (2Cσ/B)²) with σ from the quadrature CLT inverse")


@recipe("cuag_effective_mu_schedule")
def _effective_mu_schedule(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    mu, T = value_of(values, "mu"), int(value_of(values, "T"))
    lam, b, d, p = 0.1, 50.0, 500.0, 25.0  # any setting: the result must not depend on it
    rho = 2 * lam * b / d
    tau = np.arange(1.0, T + 1.0)
    sig = 1.0 / np.sqrt(np.log1p(mu * mu * d * d / (4 * lam * lam * b * b * tau * p)))  # eq. (16), direct
    mu_eff = rho * math.sqrt(p * math.fsum(np.expm1(1.0 / sig ** 2)))
    return exact_result(cf, mu_eff, 1e-10, "μ of the whole schedule: ρ√(P Σ_τ (e^{1/σ_τ²} − 1)) over σ_1..σ_T of (16) "
                                           "(λ = 0.1, B = 50, |D| = 500, P = 25; independent of them)")


@recipe("cuag_eq3_inverse")
def _eq3(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath

    cf = float(formula.call(values, published=ctx.published))
    with mpmath.workdps(50):
        def mp(name: str, default: float | None = None) -> Any:
            return mpmath.mpf(value_of(values, name, default))

        if "t" in values:  # DP-SCAFFOLD: s_f = 1, ρ = 0.1, ζ = 1, T = t
            s_f, rho, T, scale = mpmath.mpf(1), mpmath.mpf("0.1"), mp("t"), mpmath.mpf(1)
        else:
            s_f, rho, T = mp("s_f", 1.0), mp("rho"), mp("T")
            scale = mp("eps") if "eps" in values else mp("zeta")
        root = s_f * mpmath.sqrt(2 * rho * T * mpmath.log(1 / mp("delta"))) / scale
        want = float(root)
    return exact_result(cf, want, 1e-13, "eq. (3) re-evaluated with mpmath at 50 digits (no independent bound "
                                         "exists: the paper's (3) has no stated validity conditions, E18)")
