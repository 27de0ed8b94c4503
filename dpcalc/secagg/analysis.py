"""End-to-end analyses of secure aggregation without added noise (Zhang et al. 2024), as the CLI runs them.

Each function takes the inputs in whichever form a user has them and returns one result object:

* `users` — per-user per-sample gradient matrices K × D_i, checked to share one K;
* `theorem2_analysis` — Theorem 2's ε_RDP(α) of the aggregate (from the users' gradients, or from the sum of
  their minimum covariance eigenvalues in a stated normalisation), converted to (ε, δ) at every order by both
  conversions (Lemma 1 = Mironov 2017, Prop. 3; improved = Balle et al. 2020, Thm 21), best over the grid and over
  the continuous orders below α_max;
* `divergence` — the exact Rényi divergence from full matrices or the co-diagonal form (eq. 22);
* `water_filling_from` — WF-NA (Sec. 5.1) from gradients, a covariance or its eigenvalues;
* `span_analysis` — Theorem 1's span condition over every user's gradients, with its δ threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _limits
from dpcalc._repr import short_repr
from dpcalc.errors import DomainError
from dpcalc.secagg._common import eigenvalues_nonneg, to_sec4
from dpcalc.secagg.bounds import (
    Form,
    dp_from_rdp,
    optimal_dp,
    theorem1_delta_threshold,
    theorem2_alpha_max,
    theorem2_rdp,
)
from dpcalc.secagg.data import SpanCheck, second_moment, span_check, theorem2_from_gradients
from dpcalc.secagg.divergence import Divergence, renyi_gaussian, renyi_gaussian_codiagonal
from dpcalc.secagg.waterfill import WaterFilling, matrix_bytes, water_filling
from dpcalc.typing import FloatArray

__all__ = ["CONVERSIONS", "SpanAnalysis", "Theorem2Analysis", "divergence", "span_analysis", "theorem2_analysis",
           "users", "water_filling_from"]

#: The RDP → (ε, δ) conversions reported side by side.
CONVERSIONS = ("lemma1", "improved")


def users(matrices: Sequence[ArrayLike], same_d: bool = False) -> list[FloatArray]:
    """The users' gradient matrices (K × D_i each) as float arrays; one-line error unless they share one K (and,
    ``same_d``, one D: Theorem 2 assumes |D_i| = D), users numbered from 1 as given.

    Parameters
    ----------
    matrices : Sequence[ArrayLike]
    same_d : bool

    Returns
    -------
    list[FloatArray]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    found = [np.atleast_2d(np.asarray(m, dtype=np.float64)) for m in matrices]
    if not found:
        raise DomainError("gradients: give at least one user's K × D matrix")
    k, d = found[0].shape[:2]
    for i, u in enumerate(found[1:], 2):
        if u.shape[0] != k:  # every user's gradients live in the same K-dimensional model
            raise DomainError(f"gradients: user {i} has K = {u.shape[0]} rows but user 1 has K = {k} (each "
                              "user's matrix is K × D_i with one K)")
        if same_d and u.shape[1:] != (d,):
            raise DomainError(f"gradients: user {i} has D = {u.shape[1]} samples (columns) but user 1 has D = {d} "
                              "(Theorem 2 assumes the same |D_i| = D for every user)")
    return found


@short_repr
@dataclass(frozen=True)
class Theorem2Analysis:
    """Theorem 2 at a grid of orders: ε_RDP(α), (ε, δ) per order and conversion, and the best (ε, α)."""

    alpha: FloatArray
    rdp: FloatArray  # +inf where the order has no guarantee (α >= α_max)
    eps: dict[str, FloatArray]  # by conversion, +inf where rdp is
    eig_min_sum_sec4: float
    D: float
    alpha_max: float
    best_grid: dict[str, tuple[float, float]] = field(default_factory=dict)  # conversion -> (ε, α)
    best: dict[str, tuple[float, float]] = field(default_factory=dict)  # over continuous α < α_max
    gradients: dict[str, Any] = field(default_factory=dict)  # users, K, D, eig_min_sec4 when from gradients


def theorem2_analysis(alpha: ArrayLike, *, B: float, C: float, delta: float, rounds: int = 1,
                      form: Form = "simplified", gradients: Sequence[ArrayLike] | None = None,
                      eig_min_sum: float | None = None, normalization: str | None = None,
                      D: float | None = None) -> Theorem2Analysis:
    """Theorem 2 (eq. 19, or eq. 30 with ``form="unsimplified"``) from ``gradients`` or from ``eig_min_sum`` (S in
    ``normalization``, with the samples per user ``D``), composed over ``rounds``, converted to (ε, δ).

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1.
    B : float
    C : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    rounds : int
    form : Form
    gradients : Sequence[ArrayLike] | None
    eig_min_sum : float | None
    normalization : str | None
    D : float | None

    Returns
    -------
    Theorem2Analysis

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    alphas = np.asarray(alpha, dtype=np.float64)
    info: dict[str, Any] = {}
    if gradients is not None:
        if eig_min_sum is not None:
            raise DomainError("give either eig_min_sum or gradients, not both")
        res = theorem2_from_gradients(users(gradients, same_d=True), alphas, B, C, form=form)
        s4, d, curve = float(res.eig_min_sum_sec4), float(res.D), np.atleast_1d(res.rdp)
        info = {"users": len(gradients), "K": res.K, "D": res.D, "eig_min_sec4": [float(x) for x in res.eig_min_sec4]}
    else:
        if eig_min_sum is None or normalization is None or D is None:
            raise DomainError("give eig_min_sum with normalization (sec4|sec5) and D, or gradients")
        s4 = float(to_sec4(eig_min_sum, normalization=normalization, B=B, name="eig-min-sum"))
        d = float(D)
        curve = np.atleast_1d(theorem2_rdp(alphas, s4, B, C, d, normalization="sec4", form=form))
    amax = float(theorem2_alpha_max(s4, C, d, normalization="sec4"))
    fin = np.isfinite(curve)
    eps = {m: np.full(curve.shape, np.inf) for m in CONVERSIONS}
    best_grid, best = {}, {}
    if np.any(fin):
        def rdp_of(al: FloatArray) -> Any:
            return theorem2_rdp(al, s4, B, C, d, normalization="sec4", form=form)

        for m in CONVERSIONS:
            eps[m][fin] = [dp_from_rdp([a], [r], delta, method=m, rounds=rounds).eps  # type: ignore[arg-type]
                           for a, r in zip(alphas[fin], curve[fin], strict=True)]
            g = dp_from_rdp(alphas, curve, delta, method=m, rounds=rounds)  # type: ignore[arg-type]
            best_grid[m] = (float(g.eps), float(g.alpha))
            opt = optimal_dp(rdp_of, delta, amax, method=m, rounds=rounds)  # type: ignore[arg-type]
            best[m] = (float(opt.eps), float(opt.alpha))
    return Theorem2Analysis(alphas, curve, eps, s4, d, amax, best_grid, best, info)


def divergence(alpha: ArrayLike, *, dmu: ArrayLike | None = None, lam1: ArrayLike | None = None,
               lam2: ArrayLike | None = None, mu1: ArrayLike | None = None, cov1: ArrayLike | None = None,
               mu2: ArrayLike | None = None, cov2: ArrayLike | None = None) -> Divergence:
    """D_α(N(μ₁,Σ₁) ‖ N(μ₂,Σ₂)) from full matrices (mu1, cov1, mu2, cov2) or the co-diagonal form (dmu, lam1, lam2:
    the mean difference and the eigenvalues in the common eigenbasis).

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1.
    dmu : ArrayLike | None
    lam1 : ArrayLike | None
    lam2 : ArrayLike | None
    mu1 : ArrayLike | None
    cov1 : ArrayLike | None
    mu2 : ArrayLike | None
    cov2 : ArrayLike | None

    Returns
    -------
    Divergence

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    full, diag = (mu1, cov1, mu2, cov2), (dmu, lam1, lam2)
    alphas = np.asarray(alpha, dtype=np.float64)
    if all(x is not None for x in full) and all(x is None for x in diag):
        return renyi_gaussian(mu1, cov1, mu2, cov2, alphas)  # type: ignore[arg-type]
    if all(x is not None for x in diag) and all(x is None for x in full):
        return renyi_gaussian_codiagonal(dmu, lam1, lam2, alphas)  # type: ignore[arg-type]
    raise DomainError("give mu1, cov1, mu2, cov2 (full matrices) or dmu, lam1, lam2 (co-diagonal)")


def water_filling_from(sigma2: float, *, B: float | None = None, gradients: Sequence[ArrayLike] | None = None,
                       cov: ArrayLike | None = None, eigenvalues: ArrayLike | None = None,
                       normalization: str | None = None, blocks: int = 1) -> WaterFilling:
    """WF-NA up to the floor σ² (sec5) for one user's ``gradients`` (a list holding its K × D matrix), or a ``cov`` or
    its ``eigenvalues`` in ``normalization``; ``blocks`` > 1: the block-wise variant (which does not preserve the
    bound, erratum E8).

    Parameters
    ----------
    sigma2 : float
    B : float | None
    gradients : Sequence[ArrayLike] | None
    cov : ArrayLike | None
    eigenvalues : ArrayLike | None
    normalization : str | None
    blocks : int

    Returns
    -------
    WaterFilling

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    if sum(x is not None for x in (gradients, cov, eigenvalues)) != 1:
        raise DomainError("give one of gradients, cov or eigenvalues (the latter two with normalization)")
    if gradients is not None:
        found = users(gradients)
        if len(found) != 1:
            raise DomainError(f"gradients must hold one user's K × D matrix for water-filling (got {len(found)} users)")
        sigma, norm = second_moment(found[0], normalization="sec5", B=B), "sec5"
    else:
        if normalization is None:
            raise DomainError("cov/eigenvalues need normalization sec4|sec5 (λ_sec4 = B·λ_sec5)")
        if eigenvalues is not None:  # every eigenvalue checked, and the K × K matrices' memory, before the matrix
            lam = eigenvalues_nonneg("eigenvalues", eigenvalues)
            _limits.check_memory(f"eigenvalues ({lam.size} values: K × K matrices)", matrix_bytes(lam.size))
            sigma = np.diag(lam)
        else:
            sigma = np.asarray(cov, dtype=np.float64)
        norm = normalization
    return water_filling(sigma, sigma2, normalization=norm, B=B, blocks=blocks if blocks > 1 else None)


@short_repr
@dataclass(frozen=True)
class SpanAnalysis:
    """Theorem 1: the span check of g' over every user's gradients and the δ below which DP fails."""

    check: SpanCheck
    delta_threshold: float


def span_analysis(gradients: Sequence[ArrayLike], g_new: ArrayLike, *, sampling: str = "gaussian",
                  B: float | None = None) -> SpanAnalysis:
    """Is g' in the span of every user's per-sample gradients (Theorem 1's necessary condition)? With the δ
    threshold of the sampling: B/D (iid, needs B) or 1 (gaussian).

    Parameters
    ----------
    gradients : Sequence[ArrayLike]
    g_new : ArrayLike
    sampling : str
    B : float | None

    Returns
    -------
    SpanAnalysis

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    found = users(gradients)
    res = span_check(np.concatenate(found, axis=1), g_new)
    if sampling == "iid" and B is None:
        raise DomainError("sampling iid needs B (the threshold is B/D)")
    thr = float(theorem1_delta_threshold(sampling, B if B is not None else 1.0, found[0].shape[1]))
    return SpanAnalysis(res, thr)
