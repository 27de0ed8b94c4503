"""Training terms → the schedule's sampling rate q and number of steps T.

Example level (DP-SGD, Abadi et al. 2016): a dataset of N examples, batches of b, E epochs (or T steps) give
q = b/N and T = ⌈E·N/b⌉ (the convention of TF-Privacy 0.9 ``compute_dp_sgd_privacy_lib``: one step per expected
batch). Client level (DP-FedAvg, McMahan et al. 2018): N clients, m of them per round, R rounds give q = m/N and
T = R; the unit of privacy is then the client (all of its data).

``sampling`` says how a batch is drawn: ``"poisson"`` (each record independently with probability q; the add/remove
relation) or ``"shuffle"`` (a fixed-size batch of b drawn without replacement each step; the replace-one relation).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.errors import DomainError

if TYPE_CHECKING:
    from dpcalc.accounting.accountants import AccountantResult

__all__ = ["SAMPLINGS", "SHUFFLE_MISSING", "Sampling", "Schedule", "Unit", "epochs_of", "evaluate", "from_clients",
           "from_examples", "relation", "steps_for_epochs"]

Sampling = Literal["poisson", "shuffle"]
Unit = Literal["example", "client"]
SAMPLINGS: tuple[Sampling, ...] = ("poisson", "shuffle")


@short_repr
@dataclass(frozen=True)
class Schedule:
    """A training run as the accountants see it: sampling rate ``q``, ``steps``, how batches are drawn, the unit of
    privacy, and the training ``terms`` it was derived from (by their library names)."""

    q: float
    steps: int
    sampling: Sampling = "poisson"
    unit: Unit = "example"
    terms: Mapping[str, float] = field(default_factory=dict)

    @property
    def epochs(self) -> float | None:
        """Passes over the data (``steps·q``) for an example-level schedule; None for a federated one."""
        return self.steps * self.q if self.unit == "example" else None


def relation(sampling: str) -> str:
    """The neighbouring relation under which the sampling scheme is analysed."""
    return {"poisson": "add/remove one record", "shuffle": "replace one record"}[_sampling(sampling)]


def _sampling(sampling: str) -> Sampling:
    if sampling not in SAMPLINGS:
        raise DomainError(f"sampling must be one of {', '.join(SAMPLINGS)} (got {sampling!r})")
    return sampling


def _count(name: str, value: float, lo: int = 1, hi: float | None = None) -> int:
    n = int(v.scalar(name, v.integer_at_least(name, value, lo)))
    if hi is not None and n > hi:
        raise DomainError(f"{name} must be an integer in [{lo}, {hi:g}] (got {n})")
    return n


def steps_for_epochs(epochs: float, dataset_size: int, batch_size: int) -> int:
    """T = ⌈E·N/b⌉, exact in the decimal value of E (E = 0.1, N = 1000, b = 100 gives 1, not 2)."""
    e = float(v.scalar("epochs", v.positive("epochs", epochs)))
    n, b = _count("dataset_size", dataset_size), _count("batch_size", batch_size)
    return max(1, math.ceil(Fraction(repr(e)) * n / b))


def epochs_of(steps: int, dataset_size: int, batch_size: int) -> float:
    """E = T·b/N: the passes over the data that T steps of batch b make."""
    return _count("steps", steps) * _count("batch_size", batch_size) / _count("dataset_size", dataset_size)


def from_examples(dataset_size: float, batch_size: float, *, epochs: float | None = None,
                  steps: float | None = None, sampling: str = "poisson") -> Schedule:
    """Example-level DP-SGD: q = b/N and T = ⌈E·N/b⌉ (or the given steps); exactly one of ``epochs`` and ``steps``."""
    n = _count("dataset_size", dataset_size, 2)
    b = _count("batch_size", batch_size, 1, n)
    if (epochs is None) == (steps is None):
        raise DomainError("give exactly one of epochs and steps with dataset_size and batch_size")
    t = steps_for_epochs(epochs, n, b) if epochs is not None else _count("steps", steps)  # type: ignore[arg-type]
    terms = {"dataset_size": n, "batch_size": b, **({"epochs": float(epochs)} if epochs is not None else {}),
             "steps": t}
    return Schedule(b / n, t, _sampling(sampling), "example", terms)


def from_clients(clients: float, clients_per_round: float, rounds: float, *, sampling: str = "poisson") -> Schedule:
    """Client-level DP-FedAvg: q = m/N, T = R; the unit of privacy is the client."""
    n = _count("clients", clients, 1)
    m = _count("clients_per_round", clients_per_round, 1, n)
    r = _count("rounds", rounds)
    return Schedule(m / n, r, _sampling(sampling), "client", {"clients": n, "clients_per_round": m, "rounds": r})


#: why the shuffle rows have no ε yet (one line, naming the missing accountant)
SHUFFLE_MISSING = ("{opt}sampling shuffle (fixed-size batches drawn without replacement, replace-one neighbours) "
                   "needs the sampled-without-replacement form of {name}, which this dpcalc does not have yet; use "
                   "{opt}sampling poisson")


def evaluate(schedule: Schedule, sigma: float, delta: float, accountant: str, **options: Any) -> AccountantResult:
    """ε of ``schedule`` at noise multiplier σ and δ under ``accountant``, as an
    :class:`~dpcalc.accounting.accountants.AccountantResult` (an accountant-specific failure is its ``failure``)."""
    from dpcalc.accounting import accountants

    if not isinstance(schedule, Schedule):
        raise DomainError(f"schedule must be a training.Schedule (got {type(schedule).__name__})")
    if schedule.sampling == "shuffle" and schedule.q < 1.0:
        acc = accountants.get(accountant)
        return accountants.AccountantResult(acc.name, acc.bound, None, {}, SHUFFLE_MISSING.format(
            opt="", name=f"accountant {acc.name!r}"))
    return accountants.evaluate(accountant, sigma, schedule.q, schedule.steps, delta, **options)
