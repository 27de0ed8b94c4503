"""A training run as an event: DP-SGD or DP-FedAvg described by its training terms, accounted like any event.

Example level (DP-SGD, Abadi et al. 2016): a dataset of N examples, batches of b, E epochs (or T steps) give
q = b/N and T = ⌈E·N/b⌉ (the convention of TF-Privacy's ``compute_dp_sgd_privacy_lib.compute_dp_sgd_privacy``: one
step per expected batch). Client level (DP-FedAvg, McMahan et al. 2018): N clients, m of them per round, R rounds
give q = m/N and T = R; the unit of privacy is then the client (all of its data). Or the accountants' own symbols,
q and T.

``sampling`` says how a batch is drawn (`SAMPLINGS`):

* ``"poisson"`` — each record independently with probability q each step (add/remove):
  ``SelfComposed(PoissonSampled(q, Gaussian(z)), T)``;
* ``"fixed"`` — a fixed-size batch of b drawn without replacement, independently each step (replace-one):
  ``SelfComposed(SampledWithoutReplacement(N, b, Gaussian(z)), T)``;
* ``"balls-in-bins"`` — each record in one uniformly random step of the t = ⌊N/b⌋ of each epoch (add/remove):
  ``SelfComposed(RandomAllocation(Gaussian(z), 1, t), E)``, an upper bound (Feldman & Shenfeld 2025);
* ``"shuffle"`` — the data shuffled once per epoch and cut into t = ⌊N/b⌋ batches, what most loaders do (add/remove).
  No tight upper bound is known: the accountants bound it without amplification (each record in one batch per
  epoch: E Gaussian releases, ``SelfComposed(Gaussian(z), E)``), labelled an upper bound, and the ``shuffle-lower``
  accountant gives a certified lower bound (Chua et al. 2024; `dpcalc.accounting.samplers.shuffle`).

``mechanism`` says what each step releases: ``"dp-sgd"`` (the noisy clipped sum of the batch, the default) or
``"dp-ftrl"`` (DP-FTRL-TreeRestart, Kairouz et al. 2021: the batches in order, each example once per epoch, prefix
sums released through tree aggregation restarted every epoch: ``SelfComposed(SingleEpochTreeAggregation(z, t), E)``,
exact μ-GDP at μ = √(E·⌈log₂(t + 1)⌉)/z under zero-out neighbours, replace-special; the sensitivity of
`dpcalc.matrix.strategy.tree_restart_sensitivity`).

Shuffled, balls-in-bins and DP-FTRL runs are example level, with whole epochs (T = E·t; the N mod b records left over
are unused in an epoch). The run's privacy maps are those of its expansion (`expand`); its fields are the knobs a
calibration solves for (the noise multiplier, steps, epochs, batch size, sampling rate, clients per round, rounds).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal

from dpcalc import _validate as v
from dpcalc.accounting.events import knobs
from dpcalc.accounting.events.base import Curve, Event, register
from dpcalc.accounting.events.composition import SelfComposed
from dpcalc.accounting.events.mechanisms.gaussian import Gaussian
from dpcalc.accounting.events.mechanisms.tree import SingleEpochTreeAggregation
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.events.sampling.poisson import PoissonSampled
from dpcalc.accounting.events.sampling.random_allocation import RandomAllocation
from dpcalc.accounting.events.sampling.without_replacement import SampledWithoutReplacement
from dpcalc.accounting.search import Knob
from dpcalc.errors import DomainError

__all__ = [
    "CLIENT_TERMS",
    "EPOCH_SAMPLINGS",
    "EXAMPLE_TERMS",
    "MECHANISMS",
    "SAMPLINGS",
    "STEPS_MAX",
    "Sampling",
    "TrainingRun",
    "epochs_of",
    "relation_of",
    "steps_for_epochs",
]

MECHANISMS = ("dp-sgd", "dp-ftrl")
Sampling = Literal["poisson", "fixed", "shuffle", "balls-in-bins"]
SAMPLINGS: tuple[Sampling, ...] = ("poisson", "fixed", "shuffle", "balls-in-bins")
#: samplers that walk through the data in epochs of ⌊N/b⌋ steps (whole epochs, example level)
EPOCH_SAMPLINGS = ("shuffle", "balls-in-bins")
EXAMPLE_TERMS = ("dataset_size", "batch_size", "epochs")
CLIENT_TERMS = ("clients", "clients_per_round", "rounds")
#: the most steps (epochs × batches, rounds) dpcalc accounts
STEPS_MAX = 10**9
_SIZE_MAX = 1e15

_EXAMPLE = "dataset_size and batch_size with epochs or steps"
_CLIENT = "clients, clients_per_round and rounds"


def steps_for_epochs(epochs: float, dataset_size: int, batch_size: int) -> int:
    """T = ⌈E·N/b⌉, exact in the decimal value of E (E = 0.1, N = 1000, b = 100 gives 1, not 2).

    Examples:
        >>> from dpcalc.accounting.events.training import steps_for_epochs
        >>> steps_for_epochs(0.1, 1000, 100)
        1
    """
    e = float(v.scalar("epochs", v.positive("epochs", epochs)))
    n = int(v.scalar("dataset_size", v.integer_at_least("dataset_size", dataset_size, 1)))
    b = int(v.scalar("batch_size", v.integer_at_least("batch_size", batch_size, 1)))
    if e * n / b > STEPS_MAX:
        raise DomainError(f"epochs = {e:g} gives {e * n / b:.3g} steps of batch {b} over {n} examples; dpcalc accounts "
                          f"at most {STEPS_MAX:.0e} steps")
    return max(1, math.ceil(Fraction(repr(e)) * n / b))


def epochs_of(steps: int, dataset_size: int, batch_size: int) -> float:
    """E = T·b/N: the passes over the data that T steps of batch b make.

    Examples:
        >>> from dpcalc.accounting.events.training import epochs_of
        >>> epochs_of(235, 60000, 256)
        1.0026666666666666
    """
    return steps * batch_size / dataset_size


def relation_of(sampling: str) -> Relation:
    """The neighbouring relation under which a sampler is analysed: replace-one for fixed-size batches drawn each
    step (the dataset size is public), add/remove for the others.

    Examples:
        >>> from dpcalc.accounting.events.training import relation_of
        >>> relation_of('fixed'), relation_of('shuffle')
        ('replace_one', 'add_remove')
    """
    return "replace_one" if v.choice("sampling", sampling, SAMPLINGS) == "fixed" else "add_remove"


@register
@dataclass(frozen=True)
class TrainingRun(Event):
    """A training run: ``noise_multiplier`` z and one set of terms — ``dataset_size``, ``batch_size`` and
    ``epochs`` (or ``steps``); ``clients``, ``clients_per_round`` and ``rounds``; or ``q`` and ``steps`` — drawn by
    ``sampling``. A field left None is unknown (a calibration's unknown); the privacy maps need every one.
    dpcalc's own event."""

    noise_multiplier: float | None = None
    q: float | None = None
    steps: int | None = None
    dataset_size: int | None = None
    batch_size: int | None = None
    epochs: float | None = None
    clients: int | None = None
    clients_per_round: int | None = None
    rounds: int | None = None
    sampling: str = "poisson"
    mechanism: str = "dp-sgd"
    CLASS_NAME = "TrainingRunDpEvent"
    SHORT = "training_run"
    IN_DP_ACCOUNTING = False
    KNOBS: ClassVar[dict[str, Knob]] = {
        "noise_multiplier": knobs.NOISE,
        "steps": Knob("steps", 1, STEPS_MAX, eps_increases=True, integer=True, slope=0.5),
        "epochs": Knob("epochs", 1, STEPS_MAX, eps_increases=True, integer=True, slope=0.5),
        "rounds": Knob("rounds", 1, STEPS_MAX, eps_increases=True, integer=True, slope=0.5),
        "batch_size": Knob("batch_size", 1, _SIZE_MAX, eps_increases=True, integer=True, slope=1.0),
        "clients_per_round": Knob("clients_per_round", 1, _SIZE_MAX, eps_increases=True, integer=True, slope=1.0),
        "q": knobs.probability("q", 1e-9),
    }

    def __post_init__(self) -> None:
        if self.noise_multiplier is not None:
            self._real("noise_multiplier", 0.0, lo_open=True)
        object.__setattr__(self, "sampling", v.choice("sampling", self.sampling, SAMPLINGS))
        object.__setattr__(self, "mechanism", v.choice("mechanism", self.mechanism, MECHANISMS))
        example = [n for n in EXAMPLE_TERMS if getattr(self, n) is not None]
        client = [n for n in CLIENT_TERMS if getattr(self, n) is not None]
        if example and client:
            raise DomainError(f"{', '.join(example)} (examples) and {', '.join(client)} (clients) describe different "
                              "runs: give one set")
        if (example or client) and self.q is not None:
            raise DomainError(f"q conflicts with {', '.join(example or client)}: q is derived from them; give one")
        if client and self.steps is not None:
            raise DomainError("steps conflicts with rounds: a federated run has T = rounds; give one")
        if self.epochs is not None and self.steps is not None:
            raise DomainError("epochs and steps conflict: T = ⌈E·N/b⌉ follows from epochs; give one")
        for name, lo in (("dataset_size", 2), ("batch_size", 1), ("clients", 1), ("clients_per_round", 1),
                         ("rounds", 1), ("steps", 1)):
            if getattr(self, name) is not None:
                self._integer(name, lo, STEPS_MAX if name in ("rounds", "steps") else _SIZE_MAX)
        if self.epochs is not None:
            self._real("epochs", 0.0, lo_open=True)
        if self.q is not None:
            self._real("q", 0.0, 1.0, lo_open=True)
        for part, whole in (("batch_size", "dataset_size"), ("clients_per_round", "clients")):
            if getattr(self, part) is not None and getattr(self, whole) is not None \
                    and getattr(self, part) > getattr(self, whole):
                raise DomainError(f"{part} must be an integer in [1, {getattr(self, whole)}] ({whole}) (got "
                                  f"{getattr(self, part)})")
        if self.sampling == "fixed" and (self.q is not None or not (example or client)):
            raise DomainError("sampling fixed needs the sizes: dataset_size and batch_size, or clients and "
                              "clients_per_round (not q)")
        if self.sampling in EPOCH_SAMPLINGS and not example:
            raise DomainError(f"sampling {self.sampling} needs the sizes: dataset_size and batch_size with epochs or "
                              "steps (example level)")
        if self.mechanism == "dp-ftrl" and (not example or self.sampling != "poisson"):
            raise DomainError("mechanism dp-ftrl needs dataset_size and batch_size with whole epochs or steps, and no "
                              "sampling (it walks through the data in order, each example once per epoch)")
        if self.epochs is not None and self.dataset_size is not None and self.batch_size is not None:
            steps_for_epochs(self.epochs, self.dataset_size, self.batch_size)  # bounded before anything is built

    # ---- the run ------------------------------------------------------------------------------------------------

    @property
    def unit(self) -> Literal["example", "client"]:
        """The unit of privacy: one example, or one client (all of its data)."""
        return "client" if any(getattr(self, n) is not None for n in CLIENT_TERMS) else "example"

    @property
    def terms(self) -> dict[str, Any]:
        """The training terms given (by library name)."""
        names = ("noise_multiplier", "q", "steps", *EXAMPLE_TERMS, *CLIENT_TERMS)
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}

    def _need(self, *names: str, what: str) -> None:
        missing = [n for n in names if getattr(self, n) is None]
        if missing:
            raise DomainError(f"{what} needs {', '.join(missing)}")

    @property
    def rate(self) -> float:
        """The sampling rate q (b/N, m/N or q)."""
        if self.unit == "client":
            self._need("clients", "clients_per_round", what=f"client-level training ({_CLIENT})")
            return self.clients_per_round / self.clients  # type: ignore[operator]
        if self.dataset_size is not None or self.batch_size is not None:
            self._need("dataset_size", "batch_size", what=f"example-level training ({_EXAMPLE})")
            return self.batch_size / self.dataset_size  # type: ignore[operator]
        self._need("q", what="a run given by q and steps")
        return float(self.q)  # type: ignore[arg-type]

    @property
    def step_count(self) -> int:
        """The number of steps T (⌈E·N/b⌉, the rounds, or the steps given)."""
        if self.unit == "client":
            self._need("rounds", what=f"client-level training ({_CLIENT})")
            return int(self.rounds)  # type: ignore[arg-type]
        if self.sampling in EPOCH_SAMPLINGS or self.mechanism == "dp-ftrl":
            return self.epoch_count * self.steps_per_epoch
        if self.epochs is not None:
            self._need("dataset_size", "batch_size", what=f"example-level training ({_EXAMPLE})")
            return steps_for_epochs(self.epochs, self.dataset_size, self.batch_size)  # type: ignore[arg-type]
        if self.steps is None:
            what = f"example-level training ({_EXAMPLE})" if self.dataset_size is not None else \
                "a run given by q and steps"
            raise DomainError(f"{what} needs {'epochs or steps' if self.dataset_size is not None else 'steps'}")
        return int(self.steps)

    @property
    def steps_per_epoch(self) -> int:
        """t = ⌊N/b⌋: the batches of one pass of a shuffled or balls-in-bins loader."""
        self._need("dataset_size", "batch_size", what=f"example-level training ({_EXAMPLE})")
        return int(self.dataset_size) // int(self.batch_size)  # type: ignore[arg-type]

    @property
    def _walk(self) -> str:
        return "mechanism dp-ftrl" if self.mechanism == "dp-ftrl" else f"sampling {self.sampling}"

    @property
    def epoch_count(self) -> int:
        """E of a shuffled or balls-in-bins run: whole epochs (``steps`` a multiple of t = ⌊N/b⌋)."""
        t = self.steps_per_epoch
        if self.epochs is not None:
            if not float(self.epochs).is_integer():
                raise DomainError(f"epochs must be a whole number under {self._walk} (got {self.epochs:g})")
            return int(self.epochs)
        if self.steps is None or self.steps % t:
            raise DomainError(f"{self._walk} needs whole epochs: epochs, or steps a multiple of ⌊N/b⌋ = {t} (got "
                              f"steps = {self.steps})")
        return int(self.steps) // t

    @property
    def epochs_run(self) -> float | None:
        """Passes over the data (T·q) of an example-level run; None for a federated one."""
        return self.step_count * self.rate if self.unit == "example" else None

    def expand(self) -> Event:
        """The run as dp-accounting's event tree: T runs of the Gaussian with noise multiplier z, Poisson-sampled at q
        (no sampling at q = 1), or on a fixed-size batch drawn without replacement."""
        if self.noise_multiplier is None:
            raise DomainError("the training run needs noise_multiplier (the noise standard deviation over the "
                              "clipping norm)")
        gaussian = Gaussian(self.noise_multiplier)
        q, t = self.rate, self.step_count
        step: Event
        if self.mechanism == "dp-ftrl":  # a tree over each epoch's t steps, restarted: E trees, zero-out neighbours
            return SelfComposed(SingleEpochTreeAggregation(self.noise_multiplier, self.steps_per_epoch),
                                self.epoch_count)
        if self.sampling == "balls-in-bins":
            return SelfComposed(RandomAllocation(gaussian, 1, self.steps_per_epoch), self.epoch_count)
        if self.sampling == "shuffle":  # no amplification: each record in one batch per epoch
            return SelfComposed(gaussian, self.epoch_count)
        if self.sampling == "poisson":
            step = PoissonSampled(q, gaussian) if q < 1.0 else gaussian
        else:
            n, b = ((self.dataset_size, self.batch_size) if self.unit == "example" else
                    (self.clients, self.clients_per_round))
            step = SampledWithoutReplacement(int(n), int(b), gaussian)  # type: ignore[arg-type]
        return SelfComposed(step, t)

    # ---- the event's maps: those of its expansion ------------------------------------------------------------------

    def children(self) -> Iterator[Event]:
        return iter(())

    def describe(self) -> str:
        how = {"mechanism": self.mechanism} if self.mechanism != "dp-sgd" else {"sampling": self.sampling}
        return "TrainingRun(" + ", ".join(f"{n}={x:g}" if isinstance(x, float) else f"{n}={x}"
                                          for n, x in {**self.terms, **how}.items()) + ")"

    def inputs(self) -> dict[str, Any]:
        return {"noise_multiplier": self.noise_multiplier, **{n: getattr(self, n) for n in (*EXAMPLE_TERMS,
                *CLIENT_TERMS) if getattr(self, n) is not None}, "q": self.rate, "steps": self.step_count}

    @property
    def relation(self) -> Relation:
        """The neighbouring relation the run is analysed under: zero-out (replace-special) for DP-FTRL, else the
        sampler's (`relation_of`)."""
        return "replace_special" if self.mechanism == "dp-ftrl" else relation_of(self.sampling)

    def sampling_schemes(self) -> list[str]:
        if self.mechanism == "dp-ftrl":
            return [f"in order, each example once per epoch ({self.steps_per_epoch} steps), tree restarted"]
        if self.sampling == "shuffle":
            return [f"shuffled batches, {self.steps_per_epoch} per epoch"]
        return self.expand().sampling_schemes()

    def bounded_only(self) -> str | None:
        if self.sampling == "shuffle":
            e = self.epoch_count
            return ("shuffled batches, bounded without amplification (each example in one batch per epoch: "
                    f"{e} Gaussian release{'s' if e != 1 else ''}); the true ε lies between the shuffle-lower bound "
                    "and this")
        return self.expand().bounded_only()

    def shuffled_batches(self) -> tuple[float, int, int, int] | None:
        if self.sampling != "shuffle" or self.noise_multiplier is None:
            return None
        return float(self.noise_multiplier), int(self.dataset_size), int(self.batch_size), self.epoch_count  # type: ignore[arg-type]

    def rdp(self, orders: Any, relation: Relation, tail: float = 0.0) -> Curve:
        return self.expand().rdp(orders, relation, tail)

    def components(self, relation: Relation, count: int = 1) -> list[tuple[Any, int]]:
        return self.expand().components(relation, count)

    def privacy_loss(self, relation: Relation) -> Any:
        return self.expand().privacy_loss(relation)

    def pure_epsilon(self, relation: Relation) -> float:
        return self.expand().pure_epsilon(relation)

    def gaussian_mu(self, relation: Relation) -> float | None:
        return self.expand().gaussian_mu(relation)

    def gaussian_noise(self) -> float | None:
        return self.expand().gaussian_noise()

    def poisson_gaussian(self, relation: Relation) -> list[tuple[float, float, int]] | None:
        return None if self.sampling == "shuffle" else self.expand().poisson_gaussian(relation)

    # ---- calibration: the knobs the given terms leave free ------------------------------------------------------

    def knob(self, field: str) -> Knob:
        field = {"sampling_rate": "q"}.get(field, field)
        k = super().knob(field)
        bounds = {"batch_size": self.dataset_size, "clients_per_round": self.clients}
        if bounds.get(field) is not None:
            return dataclasses.replace(k, hi=float(bounds[field]))  # type: ignore[arg-type]
        return k

    def with_field(self, field: str, value: Any) -> TrainingRun:
        field = {"sampling_rate": "q"}.get(field, field)
        clear = {"steps": {"epochs": None}, "epochs": {"steps": None}}.get(field, {})
        return dataclasses.replace(self, **{field: value, **clear})
