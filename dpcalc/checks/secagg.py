"""Verification recipes of the secure-aggregation family (Zhang et al. 2024, ``formulas/004_secagg.toml``).

* ``secagg_renyi_numeric`` — eq. (22): the co-diagonal closed form, rotated into full correlated matrices by a random
  orthogonal matrix, against 1-D quadrature and a 2-D tensor trapezoid grid on the first one/two coordinates (must
  agree to 1e-9) and a Monte Carlo estimate of the full K-dimensional divergence (sampling from P).
* ``secagg_bound_vs_exact`` — a bound (Theorem 2, eq. 30, Theorem 3, Table-1 GSGD rows, Theorem 4) against the
  exact divergence of the two aggregate Gaussians: an analytic adversarial instance at the check point (replace g by
  −g inside isotropic frames: only the mean moves, ratio → 1 as B(α−1)/D grows), random instances and a random
  search over the replacement gradient. Pass iff every exact/bound ratio is <= 1; ``estimate`` = max ratio × bound.
  The check point is chosen with ratio ≈ 0.9, so a bound scaled by 0.5 is flagged.
* ``secagg_wfna_eq38`` — erratum E7: ‖Σ²₊ − Σ¹₊‖_F (attains √2·C²/(BD) for orthogonal g¹, g² above the floor) and the
  largest eigenvalue of ``ΔΣ_{i,Δ} − g¹g¹ᵀ/(BD)`` (the counterexample below: +0.0907; eq. 38 claims <= 0)
  against the bound √2·C²/(BD).
* ``secagg_added_power_mc`` — WF-NA: E‖n‖² of noise drawn from N(0, ΔΣ) (NumPy's SVD sampler) = tr ΔΣ; also
  requires every eigenvalue of Σ + ΔΣ >= σ².
* ``secagg_closed_form_min`` — Table-1 closed forms (rows 1, 3) and the Lemma-1 minimum over α of a linear RDP
  curve (ε and α*) against a numerical minimisation over α.
* ``secagg_alpha_max_bisect`` — Theorem 2's order range end D·S/C² against bisection on where (19) stops being
  finite.
* ``secagg_delta_threshold_mc`` — Theorem 1: Pr[w_ij ≠ 0] under IID sampling (B of D without replacement).
* ``secagg_mpmath`` — eq. (9) re-evaluated with mpmath at 50 digits (a quoted bound: nothing independent exists).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc import secagg
from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


# --- eq. (22) against integration -----------------------------------------------------------------------------------

def _random_rotation(rng: np.random.Generator, k: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((k, k)))
    return q * np.sign(np.diag(r))


def _log_gauss(x: np.ndarray, mu: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """log N(x; mu, cov) for rows of x (small K; inverse by numpy, independent of the library's Cholesky route)."""
    k = mu.size
    prec = np.linalg.inv(cov)
    d = x - mu
    _, logdet = np.linalg.slogdet(cov)
    return -0.5 * (np.einsum("ni,ij,nj->n", d, prec, d) + logdet + k * math.log(2 * math.pi))


def _integral_grid(mu1: np.ndarray, s1: np.ndarray, mu2: np.ndarray, s2: np.ndarray, alpha: float,
                   points: int = 321, width: float = 14.0) -> float:
    """D_α by a tensor trapezoid rule of ∫ p^α q^{1−α} in 1 or 2 dimensions, on a grid aligned with the integrand
    (a Gaussian shape: precision αΣ₁⁻¹ + (1−α)Σ₂⁻¹), ±``width`` standard deviations — spectrally accurate."""
    p1, p2 = np.linalg.inv(s1), np.linalg.inv(s2)
    lam = alpha * p1 + (1 - alpha) * p2
    centre = np.linalg.solve(lam, alpha * p1 @ mu1 + (1 - alpha) * p2 @ mu2)
    w, u = np.linalg.eigh(lam)
    t = np.linspace(-width, width, points)
    h = t[1] - t[0]
    mesh = np.stack(np.meshgrid(*([t] * mu1.size), indexing="ij"), axis=-1).reshape(-1, mu1.size)
    x = centre + (mesh / np.sqrt(w)) @ u.T
    logf = alpha * _log_gauss(x, mu1, s1) + (1 - alpha) * _log_gauss(x, mu2, s2)
    m = float(np.max(logf))
    jac = h ** mu1.size / float(np.prod(np.sqrt(w)))
    return (m + math.log(float(np.sum(np.exp(logf - m))) * jac)) / (alpha - 1)


@dataclass(frozen=True)
class _GaussPair(est.MechanismPair):
    mu1: np.ndarray
    cov1: np.ndarray
    mu2: np.ndarray
    cov2: np.ndarray

    def sample_p(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.asarray(rng.multivariate_normal(self.mu1, self.cov1, size))

    def log_p(self, x: np.ndarray) -> np.ndarray:
        return _log_gauss(x, self.mu1, self.cov1)

    def log_q(self, x: np.ndarray) -> np.ndarray:
        return _log_gauss(x, self.mu2, self.cov2)


@recipe("secagg_renyi_numeric")
def _renyi_numeric(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    alpha = value_of(values, "alpha")
    dmu, l1, l2 = (np.asarray(values[k], dtype=float) for k in ("dmu", "lam1", "lam2"))
    rng = ctx.rng()
    k = dmu.size
    q = _random_rotation(rng, k)
    mu1, s1, s2 = q @ dmu, (q * l1) @ q.T, (q * l2) @ q.T
    mu2 = np.zeros(k)
    full = float(secagg.renyi_gaussian(mu1, s1, mu2, s2, alpha))
    if abs(full - cf) > 1e-10 * max(abs(cf), 1.0):
        return failed(cf, "monte-carlo", f"full-matrix eq. (22) gives {full!r} in a rotated basis")
    worst = 0.0
    for sub in (1, 2):  # the first sub coordinates of the diagonal case, rotated, integrated on a grid
        if k < sub:
            break
        r = _random_rotation(rng, sub)
        a1, b1, b2 = r @ dmu[:sub], (r * l1[:sub]) @ r.T, (r * l2[:sub]) @ r.T
        want = float(secagg.renyi_gaussian_codiagonal(dmu[:sub], l1[:sub], l2[:sub], alpha))
        got = _integral_grid(a1, b1, np.zeros(sub), b2, alpha)
        worst = max(worst, abs(got - want) / max(abs(want), 1e-300))
    if worst > 1e-9:
        return failed(cf, "monte-carlo", f"1-D/2-D grid integration disagrees (relative {worst:.3g})")
    pair = _GaussPair(mu1, s1, mu2, s2)
    e = est.renyi_divergence(pair, alpha, ctx.samples, ctx.seed_sequence(1), level=ctx.level, workers=ctx.workers)
    return mc_result(cf, e, f"eq. (22) co-diagonal = full-matrix form in a random basis; 1-D and 2-D trapezoid "
                            f"integration agree to {worst:.1e}; {k}-D Monte Carlo E_P[e^((α−1)L)] shown",
                     grid_rel_error=worst)


# --- bounds against exact aggregate divergences ---------------------------------------------------------------------

@dataclass(frozen=True)
class _Instance:
    """Gradient matrices of N users, a replacement, and the parameters a bound needs."""

    G: list[np.ndarray]
    user: int
    sample: int
    g_new: np.ndarray
    B: float
    C: float
    noise: str = "none"
    sigma2: float = 0.0
    basis: np.ndarray | None = None  # Theorem 3: gradients live in span(basis), K* < K

    def replaced(self, g_new: np.ndarray) -> _Instance:
        return _Instance(self.G, self.user, self.sample, g_new, self.B, self.C, self.noise, self.sigma2, self.basis)

    def projected(self) -> _Instance:
        """Coordinates in the subspace (Theorem 3, eq. 33): x* = Sᵀx."""
        if self.basis is None:
            return self
        s = self.basis
        return _Instance([s.T @ g for g in self.G], self.user, self.sample, s.T @ self.g_new, self.B, self.C,
                         self.noise, self.sigma2)


def _embed(inst: _Instance, rng: np.random.Generator, extra: int = 2) -> _Instance:
    """Theorem 3 instance: the same gradients embedded in K + extra dimensions by a random orthonormal S."""
    k = inst.G[0].shape[0]
    s = _random_rotation(rng, k + extra)[:, :k]
    return _Instance([s @ g for g in inst.G], inst.user, inst.sample, s @ inst.g_new, inst.B, inst.C, inst.noise,
                     inst.sigma2, s)

_MODES = {
    "secagg.theorem2_rdp": "thm2", "secagg.theorem2_rdp_unsimplified": "thm2", "secagg.theorem3_rdp": "thm3",
    "secagg.table1_gsgd_iso_rdp": "iso", "secagg.theorem4_rdp": "wfna", "secagg.table1_gsgd_wfna_rdp": "wfna",
}


def _eig_min_sum(inst: _Instance) -> float:
    """S (sec4) with user i's λ_min taken over both neighbours (erratum E12); λ* of Sᵀ Σ S for Theorem 3."""
    def lam_min(g: np.ndarray) -> float:
        if inst.basis is None:
            return float(secagg.eigenvalues(g, normalization="sec4", smallest_only=True)[0])
        return float(secagg.projected_eigenvalues(g, inst.basis, normalization="sec4")[0])

    lam = [lam_min(g) for g in inst.G]
    new = inst.G[inst.user].copy()
    new[:, inst.sample] = inst.g_new
    lam[inst.user] = min(lam[inst.user], lam_min(new))
    return float(np.sum(lam))


def _bound_values(mode: str, inst: _Instance, alpha: float) -> dict[str, float] | None:
    """The catalog inputs of the bound for this instance, or None when α is outside the bound's domain."""
    d = float(inst.G[0].shape[1])
    base = {"alpha": alpha, "B": inst.B, "C": inst.C, "D": d}
    if mode in ("thm2", "thm3"):
        s = _eig_min_sum(inst)
        key = "eig_star_min_sum" if mode == "thm3" else "eig_min_sum"
        return {**base, key: s} if alpha * inst.C ** 2 / d < s else None
    n = float(len(inst.G))
    factor = 1.0 if mode == "iso" else 2.0
    if n * inst.sigma2 - factor * alpha * inst.C ** 2 / (inst.B * d) <= 0:
        return None
    return {**base, "N": n, "sigma2": inst.sigma2}


def _exact(inst: _Instance, alpha: float) -> float:
    inst = inst.projected()
    return secagg.exact_aggregate_divergence(inst.G, inst.user, inst.sample, inst.g_new, alpha, inst.B,
                                             noise=inst.noise, sigma2=inst.sigma2).value


def _adversarial_instance(mode: str, values: Mapping[str, Any]) -> _Instance:
    """1-D instance at the check point: user 0 replaces g = C by −C; the covariances do not change, the mean moves
    by 2C/D, and the remaining budget (S, or Nσ²) is spread over other users (each λ <= C², Lemma 1′)."""
    c, b, d = value_of(values, "C"), value_of(values, "B"), int(value_of(values, "D"))
    if mode in ("thm2", "thm3"):
        s = value_of(values, "eig_star_min_sum" if mode == "thm3" else "eig_min_sum")
        own = min(s, c * c)  # user 0: one point at ±C, the others at a common value, λ_sec4 = own
        rest_sq = max(own * d - c * c, 0.0) / max(d - 1, 1)
        g0 = np.full((1, d), math.sqrt(rest_sq))
        g0[0, 0] = c
        users = [g0]
        left = s - own
        while left > 1e-15 * s:
            share = min(left, c * c)
            users.append(np.full((1, d), math.sqrt(share)))
            left -= share
        return _Instance(users, 0, 0, np.array([-c]), b, c)
    n = int(value_of(values, "N"))
    s2 = value_of(values, "sigma2")
    g0 = np.zeros((1, d))
    g0[0, 0] = c
    users = [g0] + [np.zeros((1, d)) for _ in range(n - 1)]
    return _Instance(users, 0, 0, np.array([-c]), b, c, "iso" if mode == "iso" else "wfna", s2)


def _random_instance(mode: str, rng: np.random.Generator) -> _Instance:
    k = int(rng.integers(1, 4))
    d = int(rng.integers(max(k, 2), 9))
    n = int(rng.integers(2, 5))
    b = float(rng.integers(1, d + 1))
    c = 1.0
    users = []
    for _ in range(n):
        g = rng.standard_normal((k, d))
        g *= rng.uniform(0.3, 1.0, d) / np.linalg.norm(g, axis=0)  # clipped to norm <= C = 1
        users.append(g)
    new = rng.standard_normal(k)
    new *= rng.uniform(0.5, 1.0) / np.linalg.norm(new)
    noise = {"thm2": "none", "thm3": "none", "iso": "iso", "wfna": "wfna"}[mode]
    s2 = float(np.exp(rng.uniform(np.log(0.3), np.log(3.0)))) * c * c / (b * d)
    return _Instance(users, 0, int(rng.integers(0, d)), new, b, c, noise, s2)


def _ratio(formula: Formula, mode: str, inst: _Instance, alpha: float, published: bool) -> float | None:
    vals = _bound_values(mode, inst, alpha)
    if vals is None:
        return None
    bound = float(formula.call(vals, published=published))
    if not math.isfinite(bound) or bound <= 0:
        return None
    return _exact(inst, alpha) / bound


def _alpha_in_domain(formula: Formula, mode: str, inst: _Instance, rng: np.random.Generator) -> float:
    d = inst.G[0].shape[1]
    if mode in ("thm2", "thm3"):
        top = d * _eig_min_sum(inst) / inst.C ** 2
    else:
        top = len(inst.G) * inst.sigma2 * inst.B * d / ((1.0 if mode == "iso" else 2.0) * inst.C ** 2)
    if top <= 1.0:
        return math.nan
    return 1.0 + (top - 1.0) * float(rng.uniform(0.05, 0.95))


@recipe("secagg_bound_vs_exact")
def _bound_vs_exact(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    mode = _MODES.get(formula.id)
    if mode is None:
        return failed(math.nan, "exact-numeric", f"no instance family for {formula.id}")
    cf = float(formula.call(values, published=ctx.published))
    rng = ctx.rng()
    alpha = value_of(values, "alpha")
    adv_inst = _adversarial_instance(mode, values)
    adv = _ratio(formula, mode, _embed(adv_inst, rng) if mode == "thm3" else adv_inst, alpha, ctx.published)
    ratios = [adv if adv is not None else 0.0]
    n_random = 0
    for _ in range(16):
        inst = _random_instance(mode, rng)
        if mode == "thm3":
            inst = _embed(inst, rng)
        al = _alpha_in_domain(formula, mode, inst, rng)
        if not math.isfinite(al):
            continue
        best = -math.inf
        candidates = [inst.g_new, -inst.G[inst.user][:, inst.sample]]
        for _ in range(8):  # random search over the replacement on the sphere of radius C (in the subspace)
            z = rng.standard_normal(inst.g_new.size) if inst.basis is None else \
                inst.basis @ rng.standard_normal(inst.basis.shape[1])
            candidates.append(inst.C * z / np.linalg.norm(z))
        for g_new in candidates:
            r = _ratio(formula, mode, inst.replaced(np.asarray(g_new)), al, ctx.published)
            if r is not None:
                best = max(best, r)
        if math.isfinite(best):
            ratios.append(best)
            n_random += 1
    worst = max(ratios)
    return CheckResult("exact-numeric", cf, worst * cf, worst * cf, math.inf,
                       f"max exact/bound = {worst:.4f} over the adversarial instance at this point (ratio "
                       f"{ratios[0]:.4f}) and {n_random} random instances × 10 replacements; pass iff <= 1 "
                       f"(estimate = max ratio × bound)", {"max_ratio": worst, "adversarial_ratio": ratios[0]})


# --- erratum E7: eq. (38) ------------------------------------------------------------------------------------------

def wfna_change(G_rest: np.ndarray, g1: np.ndarray, g2: np.ndarray, sigma2: float, B: float) -> tuple[float, float]:
    """For user i with other points ``G_rest`` and neighbours holding g¹ / g² (sec5): ``(‖Σ²₊ − Σ¹₊‖_F,
    λ_max(ΔΣ_{i,Δ} − g¹g¹ᵀ/(BD)))``; eq. (38) claims the second is <= 0."""
    d = G_rest.shape[1] + 1
    filled, fills = [], []
    for g in (g1, g2):
        full = np.column_stack([g, G_rest])
        cov = full @ full.T / (B * d)
        wf = secagg.water_filling(cov, sigma2, normalization="sec5")
        filled.append(cov + wf.noise_cov)
        fills.append(wf.noise_cov)
    excess = float(np.linalg.eigvalsh(fills[1] - fills[0] - np.outer(g1, g1) / (B * d))[-1])
    return float(np.linalg.norm(filled[1] - filled[0])), excess


def _unit(deg: float) -> np.ndarray:
    return np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])


@recipe("secagg_wfna_eq38")
def _wfna_eq38(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    b, c, d = value_of(values, "B"), value_of(values, "C"), int(value_of(values, "D"))
    cf = float(formula.call(values, published=ctx.published))
    unit = c * c / (b * d)  # both quantities scale as C²/(BD) at fixed geometry
    if d < 3:
        return failed(cf, "exact-numeric", "the recipe needs D >= 3 (two other points of user i)")
    pad = [c * _unit(90.0 * (j % 2)) * 0.9 for j in range(d - 3)]  # extra points of user i for D > 3
    worst_f = worst_x = -math.inf
    # E7 counterexample (K = 2, D = 3: other points at 0° and 30°, g¹ at 75°, g² at 30°, σ² = 0.25 at B = C = 1),
    # and g¹ ⊥ g² above the floor (F-norm tight)
    for rest, g1, g2, s2 in ((c * np.column_stack([_unit(0), _unit(30), *pad]), c * _unit(75), c * _unit(30),
                              0.75 * unit),
                             (0.9 * c * np.column_stack([_unit(0), _unit(90), *pad]), c * _unit(0), c * _unit(90),
                              1e-3 * unit)):
        f_norm, excess = wfna_change(rest, g1, g2, s2, b)
        worst_f, worst_x = max(worst_f, f_norm), max(worst_x, excess)
    rng = ctx.rng()
    for _ in range(200):
        rest = rng.standard_normal((2, d - 1))
        rest *= c * rng.uniform(0.2, 1.0, d - 1) / np.linalg.norm(rest, axis=0)
        g1, g2 = (c * x / np.linalg.norm(x) for x in rng.standard_normal((2, 2)))
        f_norm, excess = wfna_change(rest, g1, g2, float(np.exp(rng.uniform(-2.0, 1.5))) * unit, b)
        worst_f, worst_x = max(worst_f, f_norm), max(worst_x, excess)
    worst = max(worst_f, worst_x)
    return CheckResult("exact-numeric", cf, worst, worst * (1 - 1e-12), math.inf,
                       f"max ‖Σ²₊ − Σ¹₊‖_F = {worst_f / unit:.4f}·C²/(BD) and max λ_max(ΔΣ_Δ − g¹g¹ᵀ/(BD)) = "
                       f"{worst_x / unit:.4f}·C²/(BD) (eq. 38 claims <= 0) over the E7 counterexample, an "
                       f"orthogonal pair above the floor and 200 random K = 2 instances; pass iff both <= the bound",
                       {"frobenius_in_units": worst_f / unit, "eq38_excess_in_units": worst_x / unit})


# --- WF-NA power ---------------------------------------------------------------------------------------------------

def _noise_power_terms(rng: np.random.Generator, size: int, cov: np.ndarray) -> np.ndarray:
    x = rng.multivariate_normal(np.zeros(cov.shape[0]), cov, size, method="svd")
    return np.einsum("ij,ij->i", x, x)


@recipe("secagg_added_power_mc")
def _added_power_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    lam = np.asarray(values["eigenvalues"], dtype=float)
    s2 = value_of(values, "sigma2")
    q = _random_rotation(ctx.rng(), lam.size)
    wf = secagg.water_filling((q * lam) @ q.T, s2, normalization="sec5")
    after = float(np.linalg.eigvalsh((q * lam) @ q.T + wf.noise_cov)[0])
    if after < s2 * (1 - 1e-9):
        return failed(cf, "monte-carlo", f"λ_min(Σ + ΔΣ) = {after!r} < σ² = {s2!r}")
    e = est.mean_estimate(partial(_noise_power_terms, cov=wf.noise_cov), ctx.samples, ctx.seed_sequence(1),
                          level=ctx.level, workers=ctx.workers)
    return mc_result(cf, e, f"E‖n‖², n ~ N(0, ΔΣ) sampled by NumPy (SVD), Σ = U diag(λ) Uᵀ in a random basis; "
                            f"λ_min(Σ + ΔΣ) = {after:.6g} >= σ²")


# --- closed forms vs numerical minimisation, Theorem 1, eq. (9) -----------------------------------------------------

def _lemma1_min(slope: float, log_delta: float) -> tuple[float, float]:
    """min over α > 1 of slope·α − log δ/(α − 1) (Lemma 1 on a linear RDP curve) and its minimiser, by bounded
    Brent on u = log(α − 1)."""
    from scipy.optimize import minimize_scalar

    def eps_at(u: float) -> float:  # α = 1 + e^u
        return slope * (1 + math.exp(u)) - log_delta / math.exp(u)

    res = minimize_scalar(eps_at, bounds=(-30.0, 30.0), method="bounded", options={"xatol": 1e-12})
    return float(res.fun), 1.0 + math.exp(float(res.x))


@recipe("secagg_closed_form_min")
def _closed_form_min(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    if "slope" in values:  # gaussian_closed_form_eps: (ε, α*) of a given slope
        eps, alpha = _lemma1_min(value_of(values, "slope"), math.log(value_of(values, "delta")))
        if formula.output.element == 1:  # the minimiser: the objective is flat there, so Brent fixes α* to ~1e-6
            return exact_result(cf, alpha, 1e-5, "argmin over α of Lemma 1 on the RDP curve aα (bounded Brent)")
        return exact_result(cf, eps, 1e-9, "min over α of Lemma 1 on the RDP curve aα (bounded Brent)")
    row = str(formula.call_kwargs.get("row", ""))
    n, s2, b, c, d, delta = (value_of(values, k) for k in ("N", "sigma2", "B", "C", "D", "delta"))
    slope = 2 * c * c / ((b if row == "sgd_iid_iso" else d) ** 2 * n * s2)
    eps, _ = _lemma1_min(slope, math.log(delta))
    if row == "sgd_iid_iso":
        eps = math.log1p(b / d * math.expm1(eps))
    return exact_result(cf, eps, 1e-9, "min over α of Lemma 1 on the Gaussian RDP curve by bounded Brent on "
                                       "log(α − 1) (then the B/D amplification for the IID row)")


@recipe("secagg_alpha_max_bisect")
def _alpha_max_bisect(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.secagg import theorem2_rdp

    cf = float(formula.call(values, published=ctx.published))
    s, c, d = (value_of(values, k) for k in ("eig_min_sum", "C", "D"))

    def finite(alpha: float) -> bool:
        return bool(math.isfinite(float(theorem2_rdp(alpha, s, 1, c, d, normalization="sec4"))))

    lo, hi = 1.0, 2.0
    while finite(hi):
        lo, hi = hi, hi * 2.0
    from dpcalc._roots import bisect

    lo, hi = bisect(lambda a: not finite(a), lo, hi)  # where eq. (19) stops giving a guarantee, to adjacent doubles
    return exact_result(cf, hi, 1e-12, "bisection on α for the end of Theorem 2's finite range (eq. 19's "
                                       "denominator D·S − αC² reaching 0)")


def _iid_inclusion_terms(rng: np.random.Generator, size: int, b: int, d: int) -> np.ndarray:
    keys = rng.random((size, d))  # a uniformly random B-subset = the B smallest keys; is record 0 among them?
    return (np.sum(keys[:, 1:] < keys[:, :1], axis=1) < b).astype(np.float64)


@recipe("secagg_delta_threshold_mc")
def _delta_threshold_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    b, d = int(value_of(values, "B")), int(value_of(values, "D"))
    e = est.mean_estimate(partial(_iid_inclusion_terms, b=b, d=d), min(ctx.samples, 200_000), ctx.seed_sequence(),
                          level=ctx.level, workers=ctx.workers)
    return mc_result(cf, e, "Pr[w_ij ≠ 0]: simulated B-subsets of D records without replacement (record 0 drawn?)")


@recipe("secagg_mpmath")
def _mpmath(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    import mpmath

    cf = float(formula.call(values, published=ctx.published))
    with mpmath.workdps(50):
        want = float(formula.evaluate_mp(values, dps=50, published=ctx.published))
    return exact_result(cf, want, 1e-13, "the SymPy form at 50 digits (eq. (9) is quoted from Elkordy et al. 2022 "
                                         "without proof: no independent computation exists)")

