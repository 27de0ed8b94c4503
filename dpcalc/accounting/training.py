"""Training terms → the schedule's sampling rate q and number of steps T.

Example level (DP-SGD, Abadi et al. 2016): a dataset of N examples, batches of b, E epochs (or T steps) give
q = b/N and T = ⌈E·N/b⌉ (the convention of TF-Privacy's
``tensorflow_privacy/privacy/analysis/compute_dp_sgd_privacy_lib.py``, ``compute_dp_sgd_privacy``: one step per
expected batch). Client level (DP-FedAvg, McMahan et al. 2018): N clients, m of them per round, R rounds give
q = m/N and T = R; the unit of privacy is then the client (all of its data).

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

__all__ = ["SAMPLINGS", "SHUFFLE_ACCOUNTANTS", "SHUFFLE_MISSING", "Sampling", "Schedule", "Unit", "epochs_of",
           "evaluate", "event", "event_result", "from_clients", "from_examples", "relation", "steps_for_epochs"]

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
    """The neighbouring relation under which the sampling scheme is analysed.

    Examples:
        >>> from dpcalc.accounting.training import relation
        >>> relation('poisson')
        'add/remove one record'
        >>> relation('shuffle')
        'replace one record'
    """
    return {"poisson": "add/remove one record", "shuffle": "replace one record"}[_sampling(sampling)]


def _sampling(sampling: str) -> Sampling:
    return v.choice("sampling", sampling, SAMPLINGS)  # type: ignore[return-value]


def _count(name: str, value: float, lo: int = 1, hi: float | None = None) -> int:
    n = int(v.scalar(name, v.integer_at_least(name, value, lo)))
    if hi is not None and n > hi:
        raise DomainError(f"{name} must be an integer in [{lo}, {hi:g}] (got {n})")
    return n


def steps_for_epochs(epochs: float, dataset_size: int, batch_size: int) -> int:
    """T = ⌈E·N/b⌉, exact in the decimal value of E (E = 0.1, N = 1000, b = 100 gives 1, not 2).

    Examples:
        >>> from dpcalc.accounting.training import steps_for_epochs
        >>> steps_for_epochs(0.1, 1000, 100)
        1
    """
    e = float(v.scalar("epochs", v.positive("epochs", epochs)))
    n, b = _count("dataset_size", dataset_size), _count("batch_size", batch_size)
    return max(1, math.ceil(Fraction(repr(e)) * n / b))


def epochs_of(steps: int, dataset_size: int, batch_size: int) -> float:
    """E = T·b/N: the passes over the data that T steps of batch b make.

    Examples:
        >>> from dpcalc.accounting.training import epochs_of
        >>> epochs_of(235, 60000, 256)
        1.0026666666666666
    """
    return _count("steps", steps) * _count("batch_size", batch_size) / _count("dataset_size", dataset_size)


def from_examples(dataset_size: float, batch_size: float, *, epochs: float | None = None,
                  steps: float | None = None, sampling: str = "poisson") -> Schedule:
    """Example-level DP-SGD: q = b/N and T = ⌈E·N/b⌉ (or the given steps); exactly one of ``epochs`` and ``steps``.

    Examples:
        >>> from dpcalc.accounting.training import from_examples
        >>> from_examples(60000, 256, epochs=1)
        Schedule(q=0.004266666666666667, steps=235, sampling='poisson', unit='example', terms={'dataset_size': 60000,
        'batch_size': 256, 'epochs': 1.0, 'steps': 235})
    """
    n = _count("dataset_size", dataset_size, 2)
    b = _count("batch_size", batch_size, 1, n)
    if (epochs is None) == (steps is None):
        raise DomainError("give exactly one of epochs and steps with dataset_size and batch_size")
    t = steps_for_epochs(epochs, n, b) if epochs is not None else _count("steps", steps)  # type: ignore[arg-type]
    terms = {"dataset_size": n, "batch_size": b, **({"epochs": float(epochs)} if epochs is not None else {}),
             "steps": t}
    return Schedule(b / n, t, _sampling(sampling), "example", terms)


def from_clients(clients: float, clients_per_round: float, rounds: float, *, sampling: str = "poisson") -> Schedule:
    """Client-level DP-FedAvg: q = m/N, T = R; the unit of privacy is the client.

    Examples:
        >>> from dpcalc.accounting.training import from_clients
        >>> from_clients(1000, 100, 50)
        Schedule(q=0.1, steps=50, sampling='poisson', unit='client', terms={'clients': 1000, 'clients_per_round': 100,
        'rounds': 50})
    """
    n = _count("clients", clients, 1)
    m = _count("clients_per_round", clients_per_round, 1, n)
    r = _count("rounds", rounds)
    return Schedule(m / n, r, _sampling(sampling), "client", {"clients": n, "clients_per_round": m, "rounds": r})


#: the accountants with a form for shuffled fixed-size batches (the event model's: RDP of sampling without
#: replacement, Wang, Balle & Kasiviswanathan 2019 Thm 9; the PLD of the same event)
SHUFFLE_ACCOUNTANTS = ("rdp", "pld")

#: why an accountant has no shuffle row (one line, naming it)
SHUFFLE_MISSING = ("{opt}sampling shuffle (fixed-size batches drawn without replacement, replace-one neighbours) "
                   "has no form under {name}; the accountants that have one: " + ", ".join(SHUFFLE_ACCOUNTANTS))


def event(schedule: Schedule, sigma: float) -> Any:
    """The schedule as an event of `dpcalc.accounting.events`: T self-compositions of the Gaussian with noise
    multiplier σ, Poisson-sampled at q, or on a fixed-size batch of b of N drawn without replacement.

    Examples:
        >>> from dpcalc.accounting.training import event
        >>> from dpcalc.accounting.training import from_examples
        >>> event(from_examples(60000, 256, epochs=1), 1.1)
        SelfComposed(event=PoissonSampled(sampling_probability=0.004266666666666667,
        event=Gaussian(noise_multiplier=1.1)), count=235)
    """
    from dpcalc.accounting import events

    if not isinstance(schedule, Schedule):
        raise DomainError(f"schedule must be a training.Schedule (got {type(schedule).__name__})")
    gaussian = events.Gaussian(float(v.scalar("sigma", v.positive("sigma", sigma))))
    if schedule.sampling == "poisson":
        step: Any = events.PoissonSampled(schedule.q, gaussian) if schedule.q < 1.0 else gaussian
    else:
        t = schedule.terms
        n, b = ((t.get("dataset_size"), t.get("batch_size")) if schedule.unit == "example" else
                (t.get("clients"), t.get("clients_per_round")))
        if n is None or b is None:
            raise DomainError("sampling shuffle needs the population and batch sizes (dataset_size and batch_size, "
                              "or clients and clients_per_round), not q alone")
        step = events.SampledWithoutReplacement(int(n), int(b), gaussian)
    return events.SelfComposed(step, schedule.steps)


def evaluate(schedule: Schedule, sigma: float, delta: float, accountant: str, **options: Any) -> AccountantResult:
    """ε of ``schedule`` at noise multiplier σ and δ under ``accountant``, as an
    `AccountantResult` (an accountant-specific failure is its ``failure``).

    Poisson sampling: the accountant of `dpcalc.accounting.accountants` (add/remove neighbours). Shuffled
    fixed-size batches: the event model's RDP or PLD of sampling without replacement under replace-one neighbours
    (a replaced example moves the clipped sum by up to twice the clipping norm).

    Examples:
        >>> from dpcalc.accounting.training import evaluate
        >>> from dpcalc.accounting.training import from_examples
        >>> schedule = from_examples(60000, 256, epochs=10)
        >>> evaluate(schedule, 1.1, 1e-5, 'rdp')
        AccountantResult(accountant='rdp', bound='upper', eps=1.0987725461534001, extra={'order': 12.0, 'orders': '156
        orders in [1.1, 1024]'}, failure=None)
    """
    from dpcalc.accounting import accountants

    if not isinstance(schedule, Schedule):
        raise DomainError(f"schedule must be a training.Schedule (got {type(schedule).__name__})")
    if schedule.sampling == "poisson":
        return accountants.evaluate(accountant, sigma, schedule.q, schedule.steps, delta, **options)
    acc = accountants.get(accountant)
    backend = options.get("backend", "dpcalc")
    if acc.name not in SHUFFLE_ACCOUNTANTS or backend != "dpcalc":
        name = f"accountant {acc.name!r}" + (f" with backend {backend}" if backend != "dpcalc" else "")
        return accountants.AccountantResult(acc.name, acc.bound, None, {}, SHUFFLE_MISSING.format(opt="", name=name))
    return event_result(acc.name, event(schedule, sigma), delta, "replace_one", options)


def event_result(name: str, ev: Any, delta: float, neighbours: str, options: dict[str, Any]) -> AccountantResult:
    """The event model's answer as an AccountantResult (its failure, if any, as the result's ``failure``).

    Examples:
        >>> from dpcalc.accounting.training import event_result
        >>> from dpcalc.accounting.training import event, from_examples
        >>> ev = event(from_examples(60000, 256, epochs=1), 1.1)
        >>> event_result('pld', ev, 1e-5, 'add_remove', {})
        AccountantResult(accountant='pld', bound='upper', eps=0.307069884685828, extra={'grid': 0.000244718878804965,
        'eps_lower': 0.30688397993530603, 'eps_upper': 0.307069884685828}, failure=None)
    """
    from dpcalc.accounting import accountants
    from dpcalc.accounting.events import account
    from dpcalc.errors import DpcalcError

    d = float(v.scalar("delta", v.probability("delta", delta)))
    if name not in SHUFFLE_ACCOUNTANTS or not isinstance(options, dict):
        raise DomainError(f"name must be one of {', '.join(SHUFFLE_ACCOUNTANTS)} and options a dict (got {name!r}, "
                          f"{type(options).__name__})")
    kwargs = {"orders": options.get("orders")} if name == "rdp" else {"rtol": options.get("rtol")}
    try:
        r = account.account(ev, delta=d, accountant=name, neighbours=neighbours, **kwargs)
    except DpcalcError as exc:
        return accountants.AccountantResult(name, "upper", None, {}, str(exc))
    extra = dict(r.extra)
    if r.eps_lower is not None:
        extra.update(eps_lower=r.eps_lower, eps_upper=r.eps_upper)
    return accountants.AccountantResult(name, "upper", r.eps, extra)
