"""Verification recipes of the matrix-mechanism family (``formulas/kairouz2021_ftrl.toml``,
``formulas/choquette2023_matrix.toml``).

* ``matrix_sensitivity_enumeration`` (exact-numeric) — a sensitivity (tree, tree with restarts, banded Toeplitz)
  against brute force: the explicit strategy matrix is built and every participation pattern allowed at the check
  point is enumerated (`dpcalc.matrix.brute_force`: max over patterns of 1ᵀ|X_π|1, exact here since the Gram
  matrices are non-negative or banded). Tolerance 1e-12 relative.
* ``matrix_mechanism_loss_mc`` (Monte Carlo) — δ(ε) against the mechanism itself: the worst participation pattern
  found by enumeration gives the shift Δ = C·1_π of the noisy output Cx + z·N(0, I) (all its rows); the privacy
  loss L = (⟨Δ, y⟩ − ‖Δ‖²/2)/z² of y = Δ + z·N(0, I) is sampled and δ = E[(1 − e^{ε−L})₊] estimated with the
  check's interval. For `matrix.delta` (a given sensitivity s) the shift is s in one coordinate.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import exact_result, failed, mc_result, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim import estimators as est

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def _instance(formula: Formula, values: Mapping[str, Any]) -> tuple[np.ndarray, Any]:
    """The explicit strategy matrix and participation of the point."""
    from dpcalc.matrix import Participation, banded_toeplitz, tree_matrix

    if formula.id == "matrix.tree_sensitivity":
        n = int(value_of(values, "steps"))
        return tree_matrix(n), Participation(n, 1, 1)
    if formula.id in ("matrix.tree_restart_sensitivity", "matrix.tree_restart_delta"):
        e, b = int(value_of(values, "epochs")), int(value_of(values, "epoch_steps"))
        return tree_matrix(e * b, restart=b), Participation(e * b, e, b)
    coef = np.asarray(values["coefficients"], dtype=np.float64)
    k = int(value_of(values, "participations"))
    return banded_toeplitz(coef, k * coef.size), Participation(k * coef.size, k, coef.size)


@recipe("matrix_sensitivity_enumeration")
def _enumeration(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    from dpcalc.matrix import brute_force

    cf = float(formula.call(values, published=ctx.published))
    c, part = _instance(formula, values)
    s = brute_force(c, part)
    return exact_result(cf, s.value, 1e-12, f"brute force over every pattern of at most {part.max_participations} "
                                            f"participations {part.separation} apart in {part.steps} steps of the "
                                            "explicit strategy matrix")


def _worst_shift(c: np.ndarray, part: Any) -> np.ndarray:
    x = c.T @ c
    n, k, b = c.shape[1], part.max_participations, int(part.separation)
    best = -1.0
    arg: tuple[int, ...] = (0,)
    for size in range(1, k + 1):
        for pi in itertools.combinations(range(n), size):
            if all(pi[j + 1] - pi[j] >= b for j in range(size - 1)):
                val = float(x[np.ix_(pi, pi)].sum())
                if val > best:
                    best, arg = val, pi
    return np.asarray(c[:, list(arg)].sum(axis=1))


def _loss_terms(rng: np.random.Generator, size: int, *, shift: np.ndarray, z: float, eps: float) -> np.ndarray:
    y = shift + z * rng.standard_normal((size, shift.size))
    loss = (y @ shift - 0.5 * float(shift @ shift)) / (z * z)
    return np.asarray(-np.expm1(np.minimum(eps - loss, 0.0)))


@recipe("matrix_mechanism_loss_mc")
def _loss_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    z, eps = value_of(values, "noise_multiplier"), value_of(values, "eps")
    if formula.id == "matrix.delta":
        shift = np.array([value_of(values, "sensitivity")])
        what = "a Gaussian output shifted by the sensitivity"
    else:
        c, part = _instance(formula, values)
        if part.steps > 24:
            return failed(cf, "monte-carlo", "the check enumerates patterns: use at most 24 steps")
        shift = _worst_shift(c, part)
        what = f"the {c.shape[0]} noisy node outputs of the explicit tree (worst pattern by enumeration)"
    fn = partial(_loss_terms, shift=shift, z=z, eps=eps)
    e = est.mean_estimate(fn, ctx.samples, ctx.seed_sequence(), level=ctx.level, workers=ctx.workers)
    return mc_result(cf, e, f"δ(ε = {eps:g}) = E[(1 − e^(ε−L))+] over privacy-loss samples of {what}",
                     mu=float(math.sqrt(shift @ shift) / z))
