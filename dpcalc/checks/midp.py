"""Verification recipes of the ε-MI-DP family (He & He 2023, ``formulas/000_midp.toml``).

Monte Carlo: the leakage I(w_i; w̄_dp | w^{-i}) of a simulated aggregation with Gaussian w_i ~ N(0, C²/d·I)
(E‖w_i‖² = C², the case that attains the paper's max-entropy bound) and the distortion E‖w̄ − w̄_dp‖².
Exact-numeric: root finding on the leakage bound, SLSQP on problem (5.26), finite differences on (5.17).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est
from dpcalc.sim.roots import bisect_log
from dpcalc.sim.scenarios import weights_with_max, weights_with_sum_sq

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def _bound(d: float, ratio: float) -> float:
    """The leakage bound (d/2)·ln(1 + ratio), evaluated directly (not via the library's inverse)."""
    return 0.5 * d * math.log1p(ratio)


def _p_of(values: Mapping[str, Any]) -> float:
    return value_of(values, "p_max") if "p_max" in values else 1.0 / value_of(values, "N", 1.0)


def _sum_p2_of(values: Mapping[str, Any]) -> float:
    return value_of(values, "sum_p2") if "sum_p2" in values else 1.0 / value_of(values, "N", 1.0)


def _conditional_mi(formula: Formula, values: Mapping[str, Any], ctx: CheckContext, client: bool) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    d, c, p = value_of(values, "d"), value_of(values, "C"), _p_of(values)
    noise_factor = math.sqrt(_sum_p2_of(values)) if client else 1.0  # aggregate noise std = σ·noise_factor
    curve = est.gaussian_channel_curve(p * c / math.sqrt(d), ctx.samples, ctx.seed_sequence(), level=ctx.level,
                                       workers=ctx.workers)
    side = "client" if client else "server"
    if formula.output.name == "eps":  # a leakage entry: simulate at the given σ
        e = curve.estimate(value_of(values, "sigma") * noise_factor, dims=d)
        return mc_result(cf, e, f"ε: simulated I(w_i; w̄_dp | w^-i) at σ ({side}-side), w_i ~ N(0, C²/d·I)")
    eps = value_of(values, "eps")
    if values.get("units") == "bits":  # pragma: no cover - catalog inputs are nats
        eps *= math.log(2)
    guess = cf if cf > 0 and math.isfinite(cf) else p * c
    root = curve.solve_noise(eps / d, guess * noise_factor / 1e3, guess * noise_factor * 1e3)
    if root is None:
        return failed(cf, "monte-carlo", "no σ within 1e±3 of the closed form gives the simulated leakage ε")
    scaled = est.Estimate(root.value / noise_factor, root.se / noise_factor, root.ci_low / noise_factor,
                          root.ci_high / noise_factor, root.n)
    return mc_result(cf, scaled, f"σ ({side}-side): the noise at which the simulated I(w_i; w̄_dp | w^-i) equals ε "
                                 "(w_i ~ N(0, C²/d·I), common random numbers, delta-method CI)")


@recipe("midp_conditional_mi")
def _conditional_mi_server(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    return _conditional_mi(formula, values, ctx, client=False)


@recipe("midp_conditional_mi_client")
def _conditional_mi_client(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    return _conditional_mi(formula, values, ctx, client=True)


def _utility_estimate(dist: est.Estimate) -> est.Estimate:
    """U = 1/D from an estimate of the distortion D (monotone map of the CI; delta-method SE)."""
    lo = 1.0 / dist.ci_high if dist.ci_high > 0 else math.inf
    hi = 1.0 / dist.ci_low if dist.ci_low > 0 else math.inf
    return est.Estimate(1.0 / dist.value, dist.se / dist.value ** 2, lo, hi, dist.n)


@recipe("midp_distortion_server")
def _distortion_server(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    w = weights_with_max(0.5)
    dist = est.aggregation_distortion(w, ctx.samples, ctx.seed_sequence(), signal_std=0.1,
                                      server_sigma=value_of(values, "sigma"), dims=value_of(values, "d"),
                                      level=ctx.level, workers=ctx.workers)
    return mc_result(cf, _utility_estimate(dist), "U = 1/E‖w̄ − w̄_dp‖², server adds N(0, σ²I) to a simulated "
                                                  f"aggregate of {w.size} clients")


@recipe("midp_distortion_client")
def _distortion_client(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    w = weights_with_sum_sq(_sum_p2_of(values))
    dist = est.aggregation_distortion(w, ctx.samples, ctx.seed_sequence(), signal_std=0.1,
                                      client_sigmas=value_of(values, "sigma"), dims=value_of(values, "d"),
                                      level=ctx.level, workers=ctx.workers)
    return mc_result(cf, _utility_estimate(dist), "U = 1/E‖w̄ − w̄_dp‖², each of "
                                                  f"{w.size} clients adds N(0, σ_c²I) (weights with Σp² = sum_p2)")


@recipe("midp_personalized_distortion")
def _personalized_distortion(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    w = np.asarray(values["weights"], dtype=float)
    dist = est.aggregation_distortion(w, ctx.samples, ctx.seed_sequence(), signal_std=0.1,
                                      client_sigmas=np.asarray(values["sigmas"], dtype=float),
                                      dims=value_of(values, "d"),
                                      level=ctx.level, workers=ctx.workers)
    return mc_result(cf, _utility_estimate(dist), "U = 1/E‖w̄ − w̄_dp‖², client k adds N(0, σ_k²I), the server "
                                                  "averages with weights p_k (eq. 5.24)")


@recipe("midp_theorem2")
def _theorem2(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc import midp

    cf = float(formula.call(values, published=ctx.published))
    eps, d, c, p = value_of(values, "eps"), value_of(values, "d"), value_of(values, "C"), value_of(values, "p_max")
    w = weights_with_max(p)
    s2 = float(np.sum(w * w))
    sig_s = float(midp.server_sigma(eps, d, C=c, p_max=p))
    sig_c = float(midp.client_sigma(eps, d, C=c, p_max=p, sum_p2=s2))
    seeds = ctx.seed_sequence().spawn(2)
    # the distortion does not depend on the parameters themselves (signal_std = 0: no draws wasted on them)
    us = _utility_estimate(est.aggregation_distortion(w, ctx.samples, seeds[0], signal_std=0.0, server_sigma=sig_s,
                                                      dims=d, level=ctx.level, workers=ctx.workers))
    uc = _utility_estimate(est.aggregation_distortion(w, ctx.samples, seeds[1], signal_std=0.0, client_sigmas=sig_c,
                                                      dims=d, level=ctx.level, workers=ctx.workers))
    lo, hi = max(us.ci_low, uc.ci_low), min(us.ci_high, uc.ci_high)
    pooled_se = 0.5 * math.hypot(us.se, uc.se)
    e = est.Estimate(0.5 * (us.value + uc.value), pooled_se, lo, hi, us.n + uc.n)
    return mc_result(cf, e, f"U at the minimum σ: server-side U = {us.value:.6g} [{us.ci_low:.6g}, {us.ci_high:.6g}], "
                            f"client-side U = {uc.value:.6g} [{uc.ci_low:.6g}, {uc.ci_high:.6g}] ({w.size} clients); "
                            "interval = intersection", u_server=us.value, u_client=uc.value)


@recipe("midp_alpha_bound")
def _alpha_bound(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    eps, d, c = value_of(values, "eps"), value_of(values, "d"), value_of(values, "C")
    root = bisect_log(lambda s: _bound(d, c * c / (d * s * s)) - eps, c * 1e-150, c * 1e150)
    if root is None:
        return failed(cf, "exact-numeric", "no root of the one-client bound (5.25) = ε_k")
    return exact_result(cf, root, 1e-9, "α_k: the σ at which the one-client bound (5.25) equals ε_k (bisection)")


def slsqp_5_26(alphas: np.ndarray, d: float, rng: np.random.Generator, starts: int = 4) -> tuple[float, np.ndarray]:
    """Maximise U = 1/(d·Σ p_k²σ_k²) over σ >= 0, p on the simplex, s.t. every client's bound (5.25) <= ε_k,
    i.e. α_k²p_k² <= Σ p_i²σ_i² (α_k from (5.31)). Variables scaled by α. Returns (U*, p*)."""
    from scipy.optimize import minimize

    n = alphas.size
    a = alphas / np.max(alphas)  # scale-free; U scales as 1/max(α)²

    def noise(x: np.ndarray) -> float:
        p, s = x[:n], x[n:]
        return float(np.sum(p * p * s * s))

    def budgets(x: np.ndarray) -> np.ndarray:
        return noise(x) - a * a * x[:n] ** 2

    cons = [{"type": "eq", "fun": lambda x: np.sum(x[:n]) - 1.0}, {"type": "ineq", "fun": budgets}]
    best: tuple[float, np.ndarray] | None = None
    for _ in range(starts):
        x0 = np.concatenate((rng.dirichlet(np.ones(n)), rng.uniform(0.5, 2.0, n) * a))
        res = minimize(noise, x0, method="SLSQP", constraints=cons, bounds=[(0, 1)] * n + [(0, None)] * n,
                       options={"ftol": 1e-15, "maxiter": 1000})
        if res.success and np.all(budgets(res.x) >= -1e-10) and (best is None or res.fun < best[0]):
            best = (float(res.fun), res.x[:n] / np.sum(res.x[:n]))
    if best is None:
        raise RuntimeError("SLSQP did not converge from any start")
    scale = float(np.max(alphas))
    return 1.0 / (d * best[0] * scale * scale), best[1]


@recipe("midp_theorem3_slsqp")
def _theorem3(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    alphas = np.asarray(values["alphas"], dtype=np.float64)
    if alphas.size > 8:
        return failed(cf, "exact-numeric", "SLSQP check is limited to N <= 8 clients")
    try:
        u, p = slsqp_5_26(alphas, value_of(values, "d", 1.0), ctx.rng())
    except RuntimeError as exc:
        return failed(cf, "exact-numeric", str(exc))
    if formula.output.name == "p":
        k = int(values["k"])
        return exact_result(cf, float(p[k - 1]), 1e-5, f"p_{k}* of the SLSQP optimum of (5.26)", atol=1e-7)
    return exact_result(cf, u, 1e-6, "U* = 1/(d·Σp²σ²) at the SLSQP optimum of (5.26) (4 seeded starts)")


@recipe("midp_corollary2_leakage")
def _corollary2(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    alphas = np.asarray(values["alphas"], dtype=np.float64)
    n, k = alphas.size, int(values["k"])
    sig = np.array([float(formula.call({**values, "k": j}, published=ctx.published)) for j in range(1, n + 1)])
    cf = float(sig[k - 1])
    d, c = 1.0, 1.0  # any d, C_k give the same α-scaled problem; ε_k is defined by α_k
    eps_k = _bound(d, c * c / (d * alphas[k - 1] ** 2))
    p = (1 / alphas) / np.sum(1 / alphas)  # weights (5.33)
    others = float(np.sum(np.delete(p * p * sig * sig, k - 1)))

    def excess(s: float) -> float:  # client k's bound (5.25) with σ_k = s, minus ε_k
        return _bound(d, p[k - 1] ** 2 * c * c / (d * (others + p[k - 1] ** 2 * s * s))) - eps_k

    root = bisect_log(excess, alphas[k - 1] * 1e-12, alphas[k - 1] * 1e6)
    if root is None:
        return failed(cf, "exact-numeric", "client k's bound cannot reach ε_k given the other σ_j")
    return exact_result(cf, root, 1e-8, "σ_k that makes client k's bound (5.25) equal ε_k, other σ_j and weights "
                                        "(5.33) fixed (bisection)")


@recipe("midp_personalized_mi")
def _personalized_mi(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    d, k = value_of(values, "d"), int(values["k"])
    c = np.asarray(values["C"], dtype=np.float64)
    e = est.aggregation_cmi(values["weights"], k - 1, c / math.sqrt(d), ctx.samples, ctx.seed_sequence(),
                            client_sigmas=values["sigmas"], dims=d, level=ctx.level, workers=ctx.workers)
    return mc_result(cf, e, f"ε_{k}: simulated I(w_k; w̄_dp | w^-k), w_j ~ N(0, C_j²/d·I), client noise σ_j")


@recipe("midp_baseline_leakage")
def _baseline(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    eps = np.asarray(values["eps"], dtype=np.float64)
    c = np.asarray(values["C"], dtype=np.float64)
    d, n = value_of(values, "d"), eps.size
    client = "client" in formula.id
    roots = []
    for e_k, c_k in zip(eps, c, strict=True):
        # equal weights 1/N; client-side aggregate noise variance σ²/N, server-side σ²
        def excess(s: float, e_k: float = e_k, c_k: float = c_k) -> float:
            var = s * s / n if client else s * s
            return _bound(d, c_k * c_k / (n * n * d * var)) - e_k

        r = bisect_log(excess, c_k * 1e-150, c_k * 1e150)
        if r is None:
            return failed(cf, "exact-numeric", "no σ meets a client's budget")
        roots.append(r)
    side = "client" if client else "server"
    return exact_result(cf, max(roots), 1e-9, f"smallest {side}-side σ with every client's bound <= ε_k "
                                              "(bisection per client, max)")


@recipe("midp_clip_gradient")
def _clip_gradient(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    c, w, eta = value_of(values, "C"), value_of(values, "w_norm"), value_of(values, "eta")

    def loss(x: float) -> float:  # (5.17)
        return 0.5 * (x - w) ** 2

    h = 1e-3 * max(abs(c), 1.0)
    grad = (loss(c + h) - loss(c - h)) / (2 * h)  # exact for a quadratic up to rounding
    return exact_result(cf, c - eta * grad, 1e-9, "one gradient step on (5.17) with a central finite difference",
                        atol=1e-12 * max(abs(c), abs(w)))
