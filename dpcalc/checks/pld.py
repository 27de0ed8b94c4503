"""Verification recipe of dpcalc's PLD accountant (``formulas/koskela2021_pld.toml``).

Monte Carlo of the privacy-loss random variable itself: for T steps of the Poisson-subsampled Gaussian (remove
neighbours, x ~ P = (1−q)N(0,σ²) + qN(1,σ²) per step) the summed loss L = Σ log((1−q) + q e^{(2x−1)/(2σ²)}) is
sampled directly and δ(ε) = E_P[(1 − e^{ε−L})₊] estimated with a normal interval. The check passes when that
interval contains the certified upper bound δ_upper (whose bracket is far narrower than the interval); the lower end
of the bracket is checked the same way in tests/accounting/test_pld.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import value_of as num
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.sim.parallel import run_moments

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def delta_terms(rng: np.random.Generator, n: int, *, sigma: float, q: float, steps: int, eps: float) -> np.ndarray:
    """n samples of (1 − e^{ε−L})₊, L the summed privacy loss of ``steps`` steps (remove neighbours): a term function
    of `dpcalc.sim.parallel.run_moments`."""
    from dpcalc.accounting.pld.mechanism import Mechanism

    m = Mechanism(sigma, q, "remove")
    total = np.zeros(n)
    for _ in range(steps):
        x = rng.normal(0.0, sigma, n) + (rng.random(n) < q)
        total += m.loss(x)
    return np.maximum(0.0, -np.expm1(eps - total))


def mc_delta(sigma: float, q: float, steps: int, eps: float, n: int,
             rng: np.random.Generator) -> tuple[float, float]:
    """Monte Carlo δ(ε) and its standard error from n samples of the summed privacy loss (remove neighbours)."""
    vals = delta_terms(rng, n, sigma=sigma, q=q, steps=steps, eps=eps)
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(n))


@recipe("pld_delta_mc")
def _delta_mc(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    sigma, steps, eps = num(values, "sigma"), int(num(values, "steps")), num(values, "eps")
    q = num(values, "q", 1.0)
    n = int(ctx.samples)
    # in seeded chunks (memory: one chunk; on a cluster its chunks spread), like every Monte Carlo recipe
    mom = run_moments(partial(delta_terms, sigma=sigma, q=q, steps=steps, eps=eps), n, ctx.seed_sequence(),
                      workers=ctx.workers)
    mean, se = float(mom.mean[0]), float(math.sqrt(mom.cov_of_mean[0, 0]))
    return CheckResult("monte-carlo", cf, mean, mean - ctx.z * se, mean + ctx.z * se,
                       f"δ(ε = {eps:g}) of {steps} steps (σ = {sigma:g}, q = {q:g}): E_P[(1 − e^(ε−L))+] with the "
                       "summed privacy loss L sampled directly (remove neighbours)", {"se": se, "n": n})
