"""A NumPy simulation of NbAFL (Algorithm 1 of Wei et al. 2020) on synthetic logistic regression: the
loss after T rounds for several ε, beside the T* of the Theorem-2 bound.

For every ε and every T = T_lo … t_max a separate run trains T rounds with the noise calibrated for T rounds:
σ_U = cLΔs_U/ε with L = T by default (every round exposes the client, the setting Theorem 2 describes) or
a fixed L, and σ_D from eq. (5) (all clients) or eq. (7) (K of N). Each round: FedProx local steps from the
broadcast model, clipping to C, client noise, equal-weight aggregation over the K participants, server noise. The
metric is the paper's: mean over all N clients of the local logistic loss of the broadcast model w̃^(T). A
non-private baseline (no clipping noise) runs alongside.

Reproducibility: data from ``default_rng([seed, 0])``; run (ε index e, repeat r, rounds T) from
``default_rng([seed, 1, e, r, T])``. Work is split into fixed tasks (one per ε and repeat, all T values batched), so
the numbers are bit-identical for any number of ``workers``.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dpcalc import _validate as v
from dpcalc.errors import DomainError, OutOfDomainWarning
from dpcalc.sim import fl
from dpcalc.sim.executor import SchedulerLike, open_executor

__all__ = ["MAX_WORK", "TIME_COSTS", "TIME_SAFETY", "BoundConstants", "SimulationConfig", "SimulationResult",
           "noise_schedule", "simulate", "time_terms"]


@dataclass(frozen=True)
class BoundConstants:
    """Assumed constants of Theorem 2 (not estimated from the data): l, β, ρ, B, Θ (μ is the simulation's)."""

    pl: float = 0.1
    lipschitz: float = 1.0
    smoothness: float = 0.2
    dissimilarity: float = 1.0
    theta: float = 2.3


#: Most work units (`SimulationConfig.work`) one simulation may take: measured 0.65–2.6e9 units per CPU second,
#: so about 1.3–5 minutes.
MAX_WORK = 2e11


#: seconds per unit of each `time_terms` count (fitted by ``bench/fit_nbafl_simulate.py``; `SimulationConfig.seconds`)
TIME_COSTS = {"task-rounds": 3.27e-4, "task-round-steps": 5.1e-5, "run-rounds": 4.6e-6,
              "client-step products": 2.51e-10, "client-step coordinates": 9.01e-9, "sampled-client products": 2.9e-9,
              "data draws": 2.04e-9, "loss evaluations": 6.62e-9}
#: the estimate's margin over the fit (the fitted runs are 1.7–2.9× below the estimate)
TIME_SAFETY = 2.5


def time_terms(cfg: SimulationConfig) -> dict[str, float]:
    """What a simulation's time is made of, counted before it runs: loop iterations of the tasks (one task per ε
    and repeat, the baseline included, batching its T's), their local steps, the runs' rounds (noise and sampling
    per run), the clients' local products (m·d each), their coordinates (m + d) and, with K < N
    (each run its own sampled clients: a product per run and client instead of one batched GEMM per client, and
    the clients' data gathered every round), the products again; and each task's synthetic data (N·m·d draws)
    and the final loss of each of its runs (N·m·d products a run)."""
    lo, hi = cfg.t_min, cfg.t_max
    tasks = float(len(cfg.eps) + 1) * cfg.repeats
    run_rounds = tasks * (float(hi) * (hi + 1) - float(lo) * (lo - 1)) / 2.0  # Σ_T T over the simulated T
    k = float(cfg.K or cfg.N)
    steps = run_rounds * k * cfg.local_steps
    m, d = float(cfg.m), float(cfg.d)
    return {"task-rounds": tasks * hi, "task-round-steps": tasks * hi * cfg.local_steps, "run-rounds": run_rounds,
            "client-step products": steps * m * d, "client-step coordinates": steps * (m + d),
            "sampled-client products": steps * m * d if k < cfg.N else 0.0,
            "data draws": tasks * cfg.N * m * d, "loss evaluations": tasks * (hi - lo + 1) * cfg.N * m * d}


@dataclass(frozen=True)
class SimulationConfig:
    """Settings of `simulate` (defaults: a run of a few seconds showing an interior best T)."""

    eps: tuple[float, ...] = (2.0, 5.0, 20.0)
    t_max: int = 30
    N: int = 50
    K: int | None = None
    m: int = 100
    d: int = 10
    C: float = 2.0
    delta: float = 0.01
    c_scale: float = 1.0
    L: int | None = None
    prox_mu: float = 0.5
    lr: float = 1.0
    local_steps: int = 5
    non_iid: float = 0.0
    repeats: int = 4
    seed: int = 0

    def validated(self) -> SimulationConfig:
        for name in ("t_max", "N", "m", "d", "local_steps", "repeats"):
            v.integer_at_least(name, getattr(self, name), 1)
        v.positive("eps", list(self.eps))
        v.positive("C", self.C)
        v.probability("delta", self.delta)
        v.check_range("c_scale", self.c_scale, 1.0)
        v.positive("prox_mu", self.prox_mu)
        v.positive("lr", self.lr)
        v.nonnegative("non_iid", self.non_iid)
        v.integer_at_least("seed", self.seed, 0)
        if self.K is not None:
            v.check_range("K", self.K, 1, self.N, integer=True)
        if self.L is not None:
            v.check_range("L", self.L, 1, self.t_max, integer=True)
        if self.t_min > self.t_max:
            raise DomainError(f"t_max must be >= {self.t_min} here (the smallest T with K > N(1 - e^(-eps/T)) for "
                              f"every eps, eq. 7's domain; got t_max = {self.t_max})")
        if self.work > MAX_WORK:  # refused before computing (--repeats 1e7 ran for hours: CLI fuzz)
            raise DomainError(f"repeats, t_max, N, m, d, local_steps: the simulation's work len(eps)·repeats·ΣT·N·"
                              f"local_steps·m·d = {self.work:.3g} exceeds {MAX_WORK:.0e} (about 5 minutes); use fewer "
                              "repeats or a smaller t_max, N, m, d or local_steps")
        return self

    @property
    def seconds(self) -> float:
        """Estimated time on one idle core (every task, the non-private baseline included): the work counts of
        `time_terms`, each at its cost fitted by ``bench/fit_nbafl_simulate.py`` to 15 runs (d = 1 … 1000,
        m = 1 … 1000, N = 3 … 1000, K < N or not, 1 … 20 local steps; 0.2–19 s of CPU), times `TIME_SAFETY`."""
        return TIME_SAFETY * sum(TIME_COSTS[name] * count for name, count in time_terms(self).items())

    @property
    def work(self) -> float:
        """Gradient-coordinate updates of the whole run: len(ε)·repeats·Σ_T T·N·local_steps·m·d."""
        lo, hi = self.t_min, self.t_max
        rounds = (float(hi) * (hi + 1) - float(lo) * (lo - 1)) / 2.0  # Σ_{T=lo}^{hi} T in closed form, not a loop
        return (float(len(self.eps)) * self.repeats * rounds * self.N * self.local_steps * self.m * self.d)

    @property
    def t_min(self) -> int:
        """Smallest simulated T: L (L <= T) with a fixed L, and for K < N the smallest T inside eq. 7's domain
        K > N(1 − e^{−ε/T}) for every ε, i.e. T > ε/(−ln(1 − K/N))."""
        lo = self.L or 1
        if self.K is not None and self.K < self.N:
            per = -math.log1p(-self.K / self.N)
            lo = max(lo, *(math.floor(e / per) + 1 for e in self.eps))
        return lo

    @property
    def rounds(self) -> np.ndarray:
        """The T values simulated: t_min … t_max."""
        return np.arange(self.t_min, self.t_max + 1)


@dataclass(frozen=True)
class SimulationResult:
    """Mean final loss (and its standard error over repeats) per ε (rows) and T (columns)."""

    config: SimulationConfig
    rounds: np.ndarray
    loss: np.ndarray  # (n_eps, n_T)
    loss_se: np.ndarray
    nonprivate: np.ndarray  # (n_T,)
    sigma_u: np.ndarray  # (n_eps, n_T)
    sigma_d: np.ndarray
    best_t: tuple[int, ...]
    bound_t_star: tuple[int | None, ...]
    wall_time: float
    warnings: tuple[str, ...] = field(default_factory=tuple)


@v.scalar_params
def noise_schedule(cfg: SimulationConfig, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(σ_U, σ_D) for every simulated T at this ε (L = T unless fixed; eq. 5 or eq. 7 for σ_D).

    Parameters
    ----------
    cfg : SimulationConfig
    eps : float
        Privacy level ε.

    Returns
    -------
    tuple[np.ndarray, np.ndarray]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    from dpcalc.nbafl.noise import client_sigma, server_sigma

    ts = cfg.rounds.astype(np.float64)
    ls = ts if cfg.L is None else np.full_like(ts, cfg.L)
    su = np.asarray(client_sigma(eps, cfg.delta, C=cfg.C, m=cfg.m, L=ls, c_scale=cfg.c_scale))
    sd = np.asarray(server_sigma(eps, cfg.delta, C=cfg.C, m=cfg.m, T=ts, L=ls, N=cfg.N, K=cfg.K,
                                 c_scale=cfg.c_scale))
    return su * np.ones_like(ts), sd * np.ones_like(ts)


def _task(cfg: SimulationConfig, e_index: int, rep: int, sigma_u: np.ndarray, sigma_d: np.ndarray) -> np.ndarray:
    """One repeat at one ε: every T batched (runs sorted by T descending, active runs are a prefix)."""
    data = fl.logistic_data(np.random.default_rng([cfg.seed, 0]), cfg.N, cfg.m, cfg.d, non_iid=cfg.non_iid)
    ts = cfg.rounds[::-1]
    su, sd = sigma_u[::-1], sigma_d[::-1]
    gens = [np.random.default_rng([cfg.seed, 1, e_index, rep, int(t)]) for t in ts]
    k = cfg.K or cfg.N
    w = np.zeros((ts.size, cfg.d))
    final = np.empty(ts.size)
    for t in range(1, int(ts[0]) + 1):
        active = int(np.count_nonzero(ts >= t))
        wa = w[:active]
        if k < cfg.N:
            idx = np.stack([fl.sample_clients(gens[r], cfg.N, k) for r in range(active)])
            xs, ys = data.X[idx], data.y[idx]
        else:
            xs, ys = data.X, data.y
        local = fl.fedprox_local(wa, xs, ys, prox_mu=cfg.prox_mu, lr=cfg.lr, steps=cfg.local_steps)
        local = fl.clip_models(local, cfg.C)
        noisy = np.stack([local[r] + fl.gaussian_noise(gens[r], local[r].shape, float(su[r]))
                          for r in range(active)])
        glob = fl.aggregate(noisy)
        glob = np.stack([glob[r] + fl.gaussian_noise(gens[r], glob[r].shape, float(sd[r])) for r in range(active)])
        w = np.concatenate([glob, w[active:]])
        done = ts == t
        if np.any(done):
            final[done] = fl.logistic_loss(w[done], data)
    return final[::-1]


def _run(args: tuple[SimulationConfig, int, int, np.ndarray, np.ndarray]) -> np.ndarray:
    from dpcalc.sim.blas import single_threaded_blas

    with single_threaded_blas():  # no oversubscription across workers; faster for these small products
        return _task(*args)


@v.scalar_params
def simulate(config: SimulationConfig | None = None, *, workers: int = 1, bound: BoundConstants | None = None,
             progress: Callable[[int, int], None] | None = None, scheduler: SchedulerLike = None
             ) -> SimulationResult:
    """Run the simulation (module doc); ``progress(done, total)`` is called after each task in this process.
    ``scheduler`` (a ``distributed.Client`` or a scheduler address) runs the tasks on a Dask cluster instead of
    ``workers`` local processes: the same numbers (`dpcalc.sim.executor`).

    With ``bound`` the T* of Theorem 2 (comment λ1 is *not* used: the published form, as the paper) at the
    simulation's C, m, N, δ, c_scale and μ is reported beside the empirical best T; it is None where the constants
    violate 0 < P < 1.

    Parameters
    ----------
    config : SimulationConfig | None
    workers : int
        Worker processes (1: in this process).
    bound : BoundConstants | None
    progress : Callable[[int, int], None] | None
    scheduler : SchedulerLike

    Returns
    -------
    SimulationResult

    Raises
    ------
    DomainError
        An input (``workers``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.
    """
    cfg = (config or SimulationConfig()).validated()
    nw = int(v.scalar("workers", v.integer_at_least("workers", workers, 1)))
    start = time.perf_counter()
    sched, outside = [], []
    for e in cfg.eps:
        with warnings.catch_warnings(record=True) as per_eps:
            warnings.simplefilter("always")
            sched.append(noise_schedule(cfg, e))
        if any(issubclass(w_.category, OutOfDomainWarning) for w_ in per_eps):
            outside.append(e)
    caught: list[warnings.WarningMessage] = []
    zeros = np.zeros(cfg.rounds.size)
    sched.append((zeros, zeros))  # the non-private baseline
    tasks = [(cfg, e, r, sched[e][0], sched[e][1]) for e in range(len(sched)) for r in range(cfg.repeats)]
    with open_executor(scheduler, workers=min(nw, len(tasks))) as ex:  # this process, a local pool or Dask
        results: list[np.ndarray] = ex.map(_run, tasks, done=progress)
    losses = np.asarray(results).reshape(len(sched), cfg.repeats, cfg.rounds.size)
    mean = losses.mean(axis=1)
    se = losses.std(axis=1, ddof=1) / math.sqrt(cfg.repeats) if cfg.repeats > 1 else np.zeros_like(mean)
    best = tuple(int(cfg.rounds[int(np.argmin(row))]) for row in mean[:-1])
    t_stars: list[int | None] = []
    no_bound: list[str] = []
    if bound is not None:
        from dpcalc.nbafl.optimal import optimal_t

        for e in cfg.eps:
            try:
                with warnings.catch_warnings(record=True) as more:
                    warnings.simplefilter("always")
                    t_stars.append(optimal_t(e, cfg.delta, pl=bound.pl, lipschitz=bound.lipschitz,
                                             smoothness=bound.smoothness, dissimilarity=bound.dissimilarity,
                                             prox_mu=cfg.prox_mu, theta=bound.theta, C=cfg.C, m=cfg.m, N=cfg.N,
                                             c_scale=cfg.c_scale, t_max=max(cfg.t_max, 1000)).t_star)
                caught.extend(more)
            except DomainError as exc:  # the bound does not apply here (e.g. P outside (0, 1)): say why
                t_stars.append(None)
                no_bound.append(f"no bound T* for eps = {e:g}: {exc}")
    msgs: list[str] = list(dict.fromkeys(no_bound))
    if outside:  # one line instead of one per ε and per σ
        msgs.append(f"classic Gaussian sigma (Def. 2) outside its proven range (per-release eps >= 1) for eps = "
                    f"{', '.join(f'{e:g}' for e in outside)}: the simulated noise is the paper's, not a guarantee")
    for w_ in caught:
        if str(w_.message) not in msgs:
            msgs.append(str(w_.message))
    return SimulationResult(cfg, cfg.rounds, mean[:-1], se[:-1], mean[-1],
                            np.asarray([s[0] for s in sched[:-1]]), np.asarray([s[1] for s in sched[:-1]]),
                            best, tuple(t_stars) if bound is not None else tuple(None for _ in cfg.eps),
                            time.perf_counter() - start, tuple(msgs))
