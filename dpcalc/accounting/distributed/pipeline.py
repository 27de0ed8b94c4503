"""One round of the distributed discrete Gaussian and distributed Skellam pipelines (`Pipeline`): what each client
does, the neighbouring relation, and the round's Rényi DP, the bound the `DistributedNoise` event reports.

The pipeline (Kairouz, Liu & Steinke 2021, Alg. 1–2; Agarwal, Kairouz & Liu 2021, Alg. 1): every sampled client
clips its update to ℓ2 norm ``c``, flattens it (random rotation), divides by the granularity γ, rounds
conditionally (β) and adds noise of standard deviation σ (parameter units; σ/γ on the grid): N_Z(0, σ²/γ²) or
Sk(μ, μ) with 2μ = σ²/γ². The server sees the modular sum. One round is the noise bound of `noise` at the shift of
one client's rounded vector (Δ₂, Δ₁ of `rounding`); its composition over rounds with Poisson sampling of clients is
`dpcalc.distributed.accounting`'s.

**Neighbours.** ``relation="add_remove"`` (or ``"replace_special"``): one client's data is present or absent
(replaced by zero) while at least ``n`` clients' noise shares are summed either way (n is the guaranteed number
of noise shares: the clients per round, or fewer when clients may drop out); the shift is Δ₂. ``"replace_one"``:
one client's update is replaced by another, a shift of 2Δ₂ (ℓ1 2Δ₁); Poisson sampling needs add/remove.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.distributed.noise import MECHANISMS, ddg_rdp, skellam_rdp
from dpcalc.accounting.distributed.rounding import DEFAULT_BETA, rounded_l1_bound, rounded_l2_bound
from dpcalc.errors import DomainError

__all__ = ["RELATIONS", "Pipeline", "check_pipeline"]

RELATIONS: tuple[str, ...] = ("add_remove", "replace_one", "replace_special")


@dataclass(frozen=True)
class Pipeline:
    """One round of the distributed pipeline: ``mechanism`` "ddg" or "skellam", clip ``c``, local noise std
    ``sigma`` and granularity ``gamma`` (parameter units), ``n`` noise shares, dimension ``d``, rounding ``beta``
    (``rounding=False``: the vectors are already integers of norm ≤ c/γ), Poisson rate ``q`` over ``rounds``."""

    mechanism: str
    c: float
    sigma: float
    gamma: float
    n: int
    d: int
    beta: float = DEFAULT_BETA
    q: float = 1.0
    rounds: int = 1
    relation: str = "add_remove"
    rounding: bool = True

    def __post_init__(self) -> None:
        v.choice("mechanism", self.mechanism, MECHANISMS, "distributed discrete Gaussian or Skellam")
        for name in ("c", "sigma", "gamma"):
            v.scalar(name, v.positive(name, getattr(self, name)))
        v.scalar("n", v.integer_at_least("n", self.n, 1))
        v.scalar("d", v.integer_at_least("d", self.d, 1))
        v.scalar("beta", v.check_range("beta", self.beta, 0.0, 1.0, hi_open=True))
        v.scalar("q", v.check_range("q", self.q, 0.0, 1.0, lo_open=True))
        v.scalar("rounds", v.integer_at_least("rounds", self.rounds, 1))
        v.choice("relation", self.relation, RELATIONS, "the neighbouring relation")
        if self.q < 1.0 and self.relation == "replace_one":
            raise DomainError("relation must be 'add_remove' or 'replace_special' with Poisson sampling (q < 1): "
                              "the amplification bound (Zhu & Wang 2019) is for add/remove neighbours")

    def sensitivities(self) -> tuple[float, float]:
        """(Δ₂, Δ₁) of one client's rounded vector on the grid, doubled under replace-one."""
        scaled = self.c / self.gamma
        l2 = float(rounded_l2_bound(scaled, self.d, self.beta)) if self.rounding else scaled
        l1 = float(rounded_l1_bound(l2, self.d)) if self.rounding else scaled * math.sqrt(self.d)
        factor = 2.0 if self.relation == "replace_one" else 1.0
        return factor * l2, factor * l1

    @property
    def sigma_grid(self) -> float:
        return self.sigma / self.gamma

    def round_rdp(self, orders: v.FloatArray) -> v.FloatArray:
        """One round's RDP at ``orders`` without sampling (an upper bound)."""
        l2, l1 = self.sensitivities()
        if self.mechanism == "ddg":
            return np.asarray(ddg_rdp(orders, l2, self.sigma_grid, self.n, self.d, l1), dtype=np.float64)
        return np.asarray(skellam_rdp(orders, l2, self.n * self.sigma_grid ** 2, l1), dtype=np.float64)


def check_pipeline(pipeline: object) -> Pipeline:
    """``pipeline`` if it is a `Pipeline`, else a one-line `DomainError` naming it (a number where the pipeline
    belongs would fail deep inside with an AttributeError)."""
    if not isinstance(pipeline, Pipeline):
        raise DomainError(f"pipeline must be a dpcalc.distributed.Pipeline(mechanism, c, sigma, gamma, n, d, …) "
                          f"(got {v.brief(pipeline)})")
    return pipeline
