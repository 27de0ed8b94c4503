"""The NbAFL simulation (dpcalc.nbafl.simulate) and its building blocks (dpcalc.sim.fl): seeded, bit-identical
for any number of workers, less noise → lower loss, an interior best T where the bound has one.

Tolerances: the trade-off assertions compare seeded means over repeats and require the gap to exceed twice the
combined standard error (over repeats); the Monte Carlo check of the aggregate noise uses a 5-SE band.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpcalc.errors import DomainError, OutOfDomainWarning
from dpcalc.nbafl.simulate import BoundConstants, SimulationConfig, noise_schedule, simulate
from dpcalc.sim import fl

SMALL = SimulationConfig(eps=(1.0, 20.0), t_max=16, repeats=4, N=30)


def _run(cfg: SimulationConfig, **kw):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OutOfDomainWarning)  # ε >= 1: the paper's regime (expected, tested below)
        return simulate(cfg, **kw)


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    return _run(SMALL, bound=BoundConstants())


def test_warns_outside_def2() -> None:
    with pytest.warns(OutOfDomainWarning):
        noise_schedule(SMALL, 1.0)
    res = _run(SimulationConfig(eps=(2.0,), t_max=3, repeats=2, N=5))
    assert any("per-release eps" in w for w in res.warnings)


def test_less_noise_lower_loss(small) -> None:  # type: ignore[no-untyped-def]
    lo, hi = small.loss[0, -1], small.loss[1, -1]  # T = t_max: ε = 1 vs ε = 20
    se = math.hypot(small.loss_se[0, -1], small.loss_se[1, -1])
    assert hi < lo - 2 * se
    assert np.all(small.sigma_u[1] < small.sigma_u[0])
    # the non-private run is the floor: ε = 20 is within 2 % of it at every T
    np.testing.assert_allclose(small.loss[1], small.nonprivate, rtol=0.02)


def test_interior_best_t_where_the_bound_has_one(small) -> None:  # type: ignore[no-untyped-def]
    t = small.rounds
    best = small.best_t[0]
    assert 2 <= best <= t[-1] - 2
    i = int(np.flatnonzero(t == best)[0])
    for j in (0, len(t) - 1):  # the best T beats both ends by more than 2 combined SE
        se = math.hypot(small.loss_se[0, i], small.loss_se[0, j])
        assert small.loss[0, i] < small.loss[0, j] - 2 * se
    t_star = small.bound_t_star[0]
    assert t_star is not None and 1 < t_star < 1000  # the bound's T* is interior too (assumed constants)
    assert small.best_t[1] >= t[-1] - 3  # little noise: more rounds keep helping
    assert small.wall_time > 0


def test_bit_identical_for_any_workers() -> None:
    cfg = SimulationConfig(eps=(1.0, 5.0), t_max=14, repeats=2, N=12, K=9, d=4, seed=7)
    one = _run(cfg, workers=1)
    two = _run(cfg, workers=2)
    assert one.rounds[0] == cfg.t_min > 1  # eq. 7's domain starts above T = 1 for K < N
    assert np.array_equal(one.loss, two.loss) and np.array_equal(one.nonprivate, two.nonprivate)
    again = _run(cfg, workers=1)
    assert np.array_equal(one.loss, again.loss)
    other = _run(SimulationConfig(**{**cfg.__dict__, "seed": 8}))
    assert not np.array_equal(one.loss, other.loss)


def test_progress_callback() -> None:
    seen: list[tuple[int, int]] = []
    _run(SimulationConfig(eps=(5.0,), t_max=3, repeats=2, N=4), progress=lambda d, n: seen.append((d, n)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_config_errors() -> None:
    with pytest.raises(DomainError, match="t_max must be >= "):
        simulate(SimulationConfig(eps=(50.0,), t_max=25, N=50, K=20))  # the paper's Fig. 4: outside eq. 7
    with pytest.raises(DomainError, match=r"K must be an integer in \[1, 10\]"):
        simulate(SimulationConfig(N=10, K=11))
    with pytest.raises(DomainError, match="repeats must be an integer >= 1"):
        simulate(SimulationConfig(repeats=0))


# --- building blocks -----------------------------------------------------------------------------------------

def test_logistic_data_and_loss(rng: np.random.Generator) -> None:
    data = fl.logistic_data(rng, 6, 40, 3, non_iid=1.0)
    assert data.X.shape == (6, 40, 3) and data.y.shape == (6, 40) and set(np.unique(data.y)) <= {0.0, 1.0}
    assert np.linalg.norm(data.w_true) == pytest.approx(2.0)
    w = rng.standard_normal(3)
    z = data.X @ w
    direct = np.mean(np.log1p(np.exp(z)) - data.y * z)
    assert float(fl.logistic_loss(w, data)) == pytest.approx(direct, rel=1e-12)
    assert fl.logistic_loss(np.stack([w, w]), data).shape == (2,)
    iid = fl.logistic_data(np.random.default_rng(1), 6, 40, 3)
    noniid = fl.logistic_data(np.random.default_rng(1), 6, 40, 3, non_iid=3.0)
    spread = lambda d: np.std(d.X.mean(axis=1), axis=0).mean()  # noqa: E731
    assert spread(noniid) > 3 * spread(iid)


def test_fedprox_local_steps(rng: np.random.Generator) -> None:
    data = fl.logistic_data(rng, 4, 50, 3)
    wg = np.zeros((2, 3))
    far = fl.fedprox_local(wg, data.X, data.y, prox_mu=1e-9, lr=1.0, steps=200)
    near = fl.fedprox_local(wg, data.X, data.y, prox_mu=1e3, lr=1e-4, steps=200)
    assert far.shape == (2, 4, 3)
    assert np.abs(near).max() < 0.05 * np.abs(far).max()  # a strong proximal term keeps w near w_global
    per_run = fl.fedprox_local(wg, np.stack([data.X] * 2), np.stack([data.y] * 2), prox_mu=1e-9, lr=1.0, steps=200)
    np.testing.assert_allclose(per_run, far, rtol=1e-10, atol=1e-12)
    # the local optimum: the gradient of F_i vanishes (μ → 0)
    z = np.einsum("kmd,kd->km", data.X, far[0])
    grad = np.einsum("kmd,km->kd", data.X, 1 / (1 + np.exp(-z)) - data.y) / 50
    assert np.abs(grad).max() < 1e-3


def test_clip_sample_aggregate(rng: np.random.Generator) -> None:
    w = rng.standard_normal((3, 5, 4)) * 10
    c = fl.clip_models(w, 2.0)
    assert np.all(np.linalg.norm(c, axis=-1) <= 2.0 + 1e-12)
    small = w / 100
    np.testing.assert_array_equal(fl.clip_models(small, 2.0), small)
    idx = fl.sample_clients(rng, 10, 4)
    assert len(set(idx.tolist())) == 4 and idx.min() >= 0 and idx.max() < 10
    with pytest.raises(ValueError, match="K must be in"):
        fl.sample_clients(rng, 3, 4)
    np.testing.assert_allclose(fl.aggregate(w), w.mean(axis=1))
    assert not fl.gaussian_noise(rng, (2,), 0.0).any()


def test_aggregate_noise_std_with_k_of_n_sampling_monte_carlo() -> None:
    """Distributional check: with K of N clients sampled per round, each adding N(0, σ_U²), the equal-weight
    aggregate has std σ_U/√K per coordinate (the σ_U²/K of eq. 7); 200k rounds, 5-SE band on the variance."""
    from dpcalc.nbafl import aggregate_noise_std

    rng = np.random.default_rng(11)
    n, k, sigma_u, d, rounds = 50, 20, 0.7, 1, 200_000
    picks = np.stack([fl.sample_clients(rng, n, k) for _ in range(2000)])[np.arange(rounds) % 2000]
    per_client = np.zeros((rounds, n))  # the sampled clients' noise; the others send nothing
    np.put_along_axis(per_client, picks, fl.gaussian_noise(rng, (rounds, k), sigma_u), axis=1)
    agg = per_client.sum(axis=1) / k
    var, se = agg.var(), agg.var() * math.sqrt(2 / rounds)
    want = float(aggregate_noise_std(sigma_u, K=k)) ** 2
    assert abs(var - want) < 5 * se
    assert d == 1


def test_a_run_beyond_the_work_cap_is_refused_before_computing() -> None:
    """--repeats 1e7 (3 ε, T <= 30) would run for hours (CLI fuzz: 5 vectors past 60 s); the estimated work is
    refused in one line naming the parameters, before any simulation."""
    from dpcalc.errors import DomainError
    from dpcalc.nbafl.simulate import MAX_WORK, SimulationConfig

    cfg = SimulationConfig(eps=(2.0, 0.5, 2.0), repeats=10_000_000)
    assert cfg.work == 3 * 10_000_000 * 465 * 50 * 5 * 100 * 10 > MAX_WORK
    with pytest.raises(DomainError, match=r"^repeats, t_max, N, m, d, local_steps: the simulation's work"):
        cfg.validated()
    assert SimulationConfig().work < MAX_WORK / 100  # the default run is far below the cap
