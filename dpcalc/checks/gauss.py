"""Verification recipes of the Gaussian-MI family (Zeng, Yang & Dai 2022; ``formulas/001_gauss.toml``).

* ``gauss_mi_monte_carlo`` — I(X_i; Y | X^{-i}) estimated by sampling X ~ N(0, Σ_X), Z ~ N(0, Σ_Z) and averaging
  the Gaussian log-density ratio ``log p(Y | X) − log p(Y | X^{-i})``, where p(Y | X^{-i}) comes from generic
  joint-Gaussian regression of Y on X^{-i} (not from the engine's Schur/determinant-lemma route).
* ``gauss_engine_exact`` — the dense Cholesky/log-det engine on the matrices the inputs describe.
* ``gauss_sigma_root`` — the noise variance at which the engine's leakage equals ε (bisection on log σ²).
* ``gauss_waterfill_slsqp`` — SciPy SLSQP maximising the engine's utility subject to the engine's leakage <= ε.
* ``gauss_units`` — the bits/nats conversions against mpmath at 50 digits.
* ``gauss_determinant_exact`` — LU log-determinant of the dense (2n−1)×(2n−1) covariance of (Y^n, X^{-1}).

Dense matrices are built with the inputs' n (capped at 400 for the engine, 120 for Monte Carlo; the closed forms
depend on n, so larger n is rejected by the recipe rather than silently changed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc import gaussian_mi as gauss
from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est
from dpcalc.sim.roots import bisect_log

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)

LN2 = math.log(2.0)
MAX_ENGINE_N = 400
MAX_MC_N = 120


def _scale(formula: Formula) -> float:
    """nats → the formula's output units."""
    return LN2 if formula.output.unit == "bits" else 1.0


def _eps_nats(formula: Formula, values: Mapping[str, Any]) -> float:
    e = value_of(values, "eps")
    return e * LN2 if formula.input("eps").unit == "bits" else e


def sigma_x_of(values: Mapping[str, Any]) -> np.ndarray:
    """Σ_X described by the inputs: diag(variances), diag(var_max, var_max/2), or equicorrelated (var, cov, n)."""
    if "variances" in values:
        return np.diag(np.asarray(values["variances"], dtype=float))
    if "var_max" in values:
        return np.diag([value_of(values, "var_max"), 0.5 * value_of(values, "var_max")])
    n = int(value_of(values, "n"))
    if n > MAX_ENGINE_N:
        raise ValueError(f"n = {n} is above the recipe's dense-matrix cap {MAX_ENGINE_N}")
    return gauss.equicorrelated_matrix(n, value_of(values, "var"), value_of(values, "cov"))


def sigma_z_of(values: Mapping[str, Any], n: int, sigma2: float | None = None) -> np.ndarray:
    """Σ_Z: σ²·I, or equicorrelated (sigma2, sigma_e2) when the inputs carry σ_e²."""
    s = value_of(values, "sigma2") if sigma2 is None else sigma2
    if "sigma_e2" in values and sigma2 is None:
        return gauss.equicorrelated_matrix(n, s, value_of(values, "sigma_e2"))
    return s * np.eye(n)


# --- Monte Carlo ---------------------------------------------------------------------------------------------

def _cmi_terms(rng: np.random.Generator, size: int, lx: np.ndarray, lz: np.ndarray, i: int, w_y: np.ndarray,
               w_rest: np.ndarray, logdet_ratio: float) -> np.ndarray:
    n = lx.shape[0]
    x = lx @ rng.standard_normal((n, size))
    zeta = rng.standard_normal((n, size))
    y = x + lz @ zeta
    rest = np.delete(x, i, axis=0)
    r = w_y @ y - w_rest @ rest  # whitened residual L_C^{-1}(y − A x^{-i}) of Y given X^{-i}
    # log N(y; x, Σz) − log N(y; A x^{-i}, C) = −½|ζ|² + ½|L_C^{-1}(y − A x^{-i})|² + ½ log(det C / det Σz)
    return np.asarray(-0.5 * np.sum(zeta * zeta, axis=0) + 0.5 * np.sum(r * r, axis=0) + 0.5 * logdet_ratio)


def conditional_mi_estimate(sx: np.ndarray, sz: np.ndarray, i: int, samples: int, seed: Any, *,
                            level: float = 0.999, workers: int = 1) -> est.Estimate:
    """Monte Carlo I(X_i; Y | X^{-i}) in nats (0-based ``i``) from Gaussian log-density ratios.

    p(Y | X^{-i}) = N(A X^{-i}, C) with A = Σ_{Y,X^{-i}} Σ_{X^{-i}}^{-1}, C = Σ_Y − A Σ_{X^{-i},Y} (regression).
    """
    n = sx.shape[0]
    keep = [j for j in range(n) if j != i]
    s_yr = sx[:, keep]  # Cov(Y, X^{-i}) = Cov(X, X^{-i})
    s_rr = sx[np.ix_(keep, keep)]
    a = np.linalg.solve(s_rr, s_yr.T).T
    c = sx + sz - a @ s_yr.T
    c = 0.5 * (c + c.T)
    lx, lz, lc = np.linalg.cholesky(sx), np.linalg.cholesky(sz), np.linalg.cholesky(c)
    logdet_ratio = 2.0 * float(np.sum(np.log(np.diag(lc))) - np.sum(np.log(np.diag(lz))))
    lc_inv = np.linalg.inv(lc)
    fn = partial(_cmi_terms, lx=lx, lz=lz, i=i, w_y=lc_inv, w_rest=lc_inv @ a, logdet_ratio=logdet_ratio)
    return est.mean_estimate(fn, samples, seed, level=level, workers=workers, chunk=max(1024, 2**16 // n))


@recipe("gauss_mi_monte_carlo")
def _mi_monte_carlo(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    sx = sigma_x_of(values)
    n = sx.shape[0]
    if n > MAX_MC_N:
        return failed(cf, "monte-carlo", f"n = {n} is above the Monte Carlo cap {MAX_MC_N}")
    sz = sigma_z_of(values, n)
    i = int(np.argmax(np.diag(sx)))  # equicorrelated: all equal; Case 1: the largest variance leaks most
    e = conditional_mi_estimate(sx, sz, i, ctx.samples, ctx.seed_sequence(), level=ctx.level, workers=ctx.workers)
    s = _scale(formula)
    scaled = est.Estimate(e.value / s, e.se / s, e.ci_low / s, e.ci_high / s, e.n)
    return mc_result(cf, scaled, f"max_i I(X_i; Y | X^-i) (client {i + 1} of {n}) by sampling log p(Y|X) − "
                                 "log p(Y|X^-i), regression for p(Y|X^-i)")


# --- exact numerics --------------------------------------------------------------------------------------------

def engine_sigma2(sx: np.ndarray, eps_n: float, sigma_z: Callable[[float], np.ndarray] | None = None) -> float | None:
    """σ² with engine privacy(Σ_X, σ²I) = ε (nats), by bisection on log σ² (monotone decreasing in σ²)."""
    n = sx.shape[0]

    def f(s2: float) -> float:
        sz = sigma_z(s2) if sigma_z is not None else s2 * np.eye(n)
        return gauss.evaluate(sx, sz, units="nats").privacy - eps_n

    scale = float(np.max(np.diag(sx)))
    return bisect_log(f, scale * 1e-30, scale * 1e30, rtol=1e-15)


@recipe("gauss_sigma_root")
def _sigma_root(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    root = engine_sigma2(sigma_x_of(values), _eps_nats(formula, values))
    if root is None:
        return failed(cf, "exact-numeric", "no σ² in 1e±30 × var gives engine leakage ε")
    return exact_result(cf, root, 1e-9, "σ²: the noise variance at which the log-det engine's max_i I(X_i;Y|X^-i) "
                                        "equals ε (bisection on log σ²)")


@recipe("gauss_engine_exact")
def _engine_exact(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    out = formula.output.name
    s = _scale(formula)
    if out == "V_x":
        sx = sigma_x_of(values)
        return exact_result(cf, float(gauss.conditional_variances(sx)[0]), 1e-10, "V_x = 1/(Σ_X^-1)_11 (Cholesky)")
    if out == "V_z":
        n = int(value_of(values, "n"))
        sz = gauss.equicorrelated_matrix(n, value_of(values, "sigma2"), value_of(values, "sigma_e2"))
        return exact_result(cf, float(gauss.conditional_variances(sz, "sigma_z")[0]), 1e-10,
                            "V_z = 1/(Σ_Z^-1)_11 (Cholesky)")
    sx = sigma_x_of(values)
    n = sx.shape[0]
    if "eps" in values:  # U_max: the engine's σ² at leakage ε, then the engine's utility there
        s2 = engine_sigma2(sx, _eps_nats(formula, values))
        if s2 is None:
            return failed(cf, "exact-numeric", "no σ² gives engine leakage ε")
        sz = s2 * np.eye(n)
        what = "U_max: engine I(X;Y)/n at the σ² where the engine's leakage equals ε"
    else:
        sz = sigma_z_of(values, n)
        what = f"{out}: engine log-det I(X;Y)/n" if out == "utility" else f"{out}: engine max_i I(X_i;Y|X^-i)"
    r = gauss.evaluate(sx, sz, units="nats")
    value = r.privacy if out == "privacy" else r.utility
    return exact_result(cf, value / s, 1e-9, what)


@recipe("gauss_determinant_exact")
def _determinant_exact(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    n = int(value_of(values, "n"))
    if n > MAX_ENGINE_N:
        return failed(cf, "exact-numeric", f"n = {n} is above the recipe's dense-matrix cap {MAX_ENGINE_N}")
    sx = gauss.equicorrelated_matrix(n, value_of(values, "var"), value_of(values, "cov"))
    sz = gauss.equicorrelated_matrix(n, value_of(values, "sigma2"), value_of(values, "sigma_e2"))
    joint = np.block([[sx + sz, sx[:, 1:]], [sx[1:, :], sx[1:, 1:]]])  # COV(Y^n, X^{-1}), (2n-1) x (2n-1)
    sign, logdet = np.linalg.slogdet(joint)
    return exact_result(cf, float(sign * math.exp(logdet)), 1e-9,
                        "numpy slogdet (LU) of the (2n-1)x(2n-1) covariance of (Y^n, X^{-1}) built from the inputs")


def slsqp_case3(sx: np.ndarray, eps_n: float, *, nonneg: bool = False, start: tuple[float, float] | None = None,
                ) -> tuple[float, float, float]:
    """Maximise the engine's I(X;Y)/n over equicorrelated noise (σ², σ_e²) s.t. engine leakage <= ε (SLSQP).

    Variables: p = log(σ² − σ_e²), q = log(σ² + (n−1)σ_e²) (the noise eigenvalues, so every iterate is PD).
    Returns (σ², σ_e², U) in nats.
    """
    from scipy.optimize import minimize

    n = sx.shape[0]

    def noise(z: np.ndarray) -> tuple[float, float]:
        mu2, mu1 = math.exp(z[0]), math.exp(z[1])
        return (mu1 + (n - 1) * mu2) / n, (mu1 - mu2) / n

    def ev(z: np.ndarray) -> gauss.Exact:
        s, e = noise(z)
        return gauss.evaluate(sx, gauss.equicorrelated_matrix(n, s, e), units="nats")

    v0 = float(gauss.conditional_variances(sx)[0]) / math.expm1(2 * eps_n)
    z0 = np.log([v0, v0]) if start is None else np.log([start[0] - start[1], start[0] + (n - 1) * start[1]])
    cons = [{"type": "ineq", "fun": lambda z: (eps_n - ev(z).privacy) * 1e3}]
    if nonneg:
        cons.append({"type": "ineq", "fun": lambda z: z[1] - z[0]})  # μ1 >= μ2 ⇔ σ_e² >= 0
    res = minimize(lambda z: -ev(z).utility, z0, method="SLSQP", constraints=cons,
                   options={"ftol": 1e-15, "maxiter": 500})
    s, e = noise(res.x)
    return s, e, ev(res.x).utility


@recipe("gauss_waterfill_slsqp")
def _waterfill_slsqp(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    sx = sigma_x_of(values)
    nonneg = bool(formula.call_kwargs.get("nonneg", False))
    s, e, u = slsqp_case3(sx, _eps_nats(formula, values), nonneg=nonneg)
    out = formula.output.name
    what = "SLSQP on the log-det engine over (σ², σ_e²)" + (" with σ_e² >= 0" if nonneg else "")
    if out == "u_max":
        return exact_result(cf, u / _scale(formula), 1e-6, f"U_max: {what}")
    if out == "sigma2":
        return exact_result(cf, s, 1e-4, f"σ²: {what}")
    return exact_result(cf, e, 0.0, f"σ_e²: {what}", atol=1e-4 * s)


@recipe("gauss_units")
def _units(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath

    cf = float(formula.call(values, published=ctx.published))
    x = mpmath.mpf(value_of(values, "x"))
    with mpmath.workdps(50):
        ref = x * mpmath.log(2) if formula.output.unit == "nats" else x / mpmath.log(2)
    return exact_result(cf, float(ref), 2e-16, "unit conversion against mpmath ln 2 at 50 digits")
