"""Domain sweep of the PLD accountant on events (``pld.epsilon_composed``, the generic path): the certified bracket
against exact references at seeded random points — randomized response and pure-DP releases composed T times
(finite sums in mpmath), Gaussian releases (μ-GDP) — and the Poisson-subsampled Gaussian through the generic path
against the schedule accountant (``pld.epsilon``, another code path: the two certified brackets must overlap).
Covers the lattice shortcuts (losses on one lattice, an orientation not recomposed, the first lattice sized from a
normal estimate of ε). Budget: ``DPCALC_SWEEP_POINTS`` per family (default 8)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc.accounting import pld
from dpcalc.accounting.pld.composed import _validated
from dpcalc.accounting.pld.generic import epsilon_generic
from tests.support.pld_reference import delta_atoms_composed, delta_gdp, delta_kov, eps_from_delta
from tests.support.sweep import points


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([sum(map(ord, name)), 2026])


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _inside(br: pld.EpsBracket, exact: float, where: str) -> None:
    slack = 1e-12 * max(1.0, exact)
    assert br.eps_lower - slack <= exact <= br.eps_upper + slack, (where, br, exact)


def _generic(loss: pld.PrivacyLoss, count: int, delta: float) -> pld.EpsBracket:
    """The generic path even where `pld.epsilon_composed` would hand the loss to the schedule accountant."""
    return epsilon_generic(_validated([(loss, count)]), delta, rtol=None, atol=pld.ATOL)


def _exact(delta_fn: object, delta: float) -> float:
    with mpmath.workdps(30):
        return float(eps_from_delta(delta_fn, delta))  # type: ignore[arg-type]


def test_randomized_response_inside_bracket() -> None:
    rng = _rng("rr")
    for _ in range(points(8)):
        p, k = rng.uniform(0.05, 0.95), int(rng.integers(2, 11))
        rel = str(rng.choice(["replace_one", "replace_special"]))
        count, delta = int(rng.integers(1, 41)), _log_uniform(rng, 1e-10, 1e-3)
        loss = pld.randomized_response(p, k, rel)
        exact = max(_exact(lambda e, pr=pr, t=count: delta_atoms_composed(pr.p, pr.q, t, e), delta)
                    for pr in loss.pairs().values())
        _inside(pld.epsilon_composed([(loss, count)], delta), exact, f"RR p={p} k={k} {rel} T={count} δ={delta}")


def test_pure_dp_inside_bracket() -> None:
    """Pure ε₀-DP releases and the discrete Laplace at sensitivity 1 (the same pair at ε₀ = t)."""
    rng = _rng("pure")
    for i in range(points(8)):
        e0, count, delta = _log_uniform(rng, 0.01, 2.0), int(rng.integers(1, 501)), _log_uniform(rng, 1e-10, 1e-3)
        loss = pld.pure_dp(e0) if i % 2 else pld.discrete_laplace(e0, 1)
        exact = _exact(lambda e, e0=e0, t=count: delta_kov(e0, 0.0, t, e), delta)
        _inside(pld.epsilon_composed([(loss, count)], delta), exact, f"pure ε₀={e0} T={count} δ={delta}")


def test_gaussian_inside_bracket() -> None:
    rng = _rng("gauss")
    for _ in range(points(8)):
        z, count, delta = _log_uniform(rng, 0.5, 50.0), int(rng.integers(1, 1001)), _log_uniform(rng, 1e-10, 1e-3)
        rel = str(rng.choice(["add_remove", "replace_one"]))
        mu = (2.0 if rel == "replace_one" else 1.0) * math.sqrt(count) / z
        exact = _exact(lambda e, mu=mu: delta_gdp(mu, e), delta)
        _inside(_generic(pld.gaussian(z, 1.0, rel), count, delta), exact,
                f"Gaussian z={z} T={count} {rel} δ={delta}")


def test_poisson_gaussian_generic_path_overlaps_the_schedule_accountant() -> None:
    rng = _rng("poisson")
    for _ in range(points(8)):
        z, q = _log_uniform(rng, 0.6, 5.0), _log_uniform(rng, 1e-3, 0.5)
        count, delta = int(rng.integers(3, 1001)), _log_uniform(rng, 1e-10, 1e-3)
        generic = _generic(pld.poisson(pld.gaussian(z), q), count, delta)
        schedule = pld.epsilon([(z, q, count)], delta)
        where = f"z={z} q={q} T={count} δ={delta}: {generic} vs {schedule}"
        assert generic.eps_lower <= schedule.eps_upper * (1 + 1e-12) and schedule.eps_lower <= generic.eps_upper * (
            1 + 1e-12), where


@pytest.mark.parametrize("b", [1.0, 2.0, 10.0])
def test_poisson_laplace_brackets_nest_across_tolerances(b: float) -> None:
    """No exact reference: brackets at rtol 1e-2, 1e-3 and 1e-4 must all overlap (each is certified)."""
    loss = pld.poisson(pld.laplace(b), 0.01)
    brs = [pld.epsilon_composed([(loss, 1000)], 1e-5, rtol=r) for r in (1e-2, 1e-3, 1e-4)]
    assert max(x.eps_lower for x in brs) <= min(x.eps_upper for x in brs) * (1 + 1e-12), brs
