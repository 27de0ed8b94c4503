"""Calibrate any one knob of a training run for a target (ε, δ): the noise multiplier, the number of steps or
epochs, the batch size, the sampling rate, the clients per round or the number of rounds.

Every knob goes through the one search of `dpcalc.accounting.calibrate.solve` (integer knobs by the shared
integer search of `dpcalc._roots`). The answer is safe (its ε under the accountant is <= the target) and tight:
one step past it (the next integer, or the rate times 1 + rtol) exceeds the target. A knob bounded by the run itself
(batch size <= dataset size, clients per round <= clients, rate <= 1) whose largest value meets the target returns
that value with no next one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.accounting import calibrate, training
from dpcalc.accounting.calibrate import Forward, Knob
from dpcalc.accounting.training import Schedule
from dpcalc.errors import DomainError

__all__ = ["KNOBS", "NEEDS", "Calibration", "schedule_of", "solve_knob"]

KNOBS = ("noise-multiplier", "steps", "epochs", "batch-size", "sampling-rate", "clients-per-round", "rounds")

#: what each knob needs besides the noise multiplier (which all but noise-multiplier need): alternatives, each a
#: tuple of training terms (by library name)
NEEDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "noise-multiplier": (("q", "steps"), ("dataset_size", "batch_size", "epochs"),
                         ("dataset_size", "batch_size", "steps"), ("clients", "clients_per_round", "rounds")),
    "steps": (("q",), ("dataset_size", "batch_size"), ("clients", "clients_per_round")),
    "epochs": (("dataset_size", "batch_size"),),
    "batch-size": (("dataset_size", "epochs"), ("dataset_size", "steps")),
    "sampling-rate": (("steps",), ("rounds",)),
    "clients-per-round": (("clients", "rounds"),),
    "rounds": (("clients", "clients_per_round"),),
}

_STEPS_MAX = 1e9  # the most steps (epochs, rounds) dpcalc searches
_Q_MIN = 1e-9


@short_repr
@dataclass(frozen=True)
class Calibration:
    """The answer of a knob calibration: ``value`` with its ``eps`` (<= target) and the schedule it gives; the
    ``next_value`` one step past it and its ``next_eps`` (> target), or None where the knob is at its largest."""

    knob: str
    value: float
    eps: float
    next_value: float | None
    next_eps: float | None
    schedule: Schedule
    sigma: float
    accountant: str
    bound: str


def _pick(knob: str, terms: Mapping[str, float | None]) -> tuple[str, ...]:
    """The first alternative of ``NEEDS[knob]`` fully given."""
    for alt in NEEDS[knob]:
        if all(terms.get(n) is not None for n in alt):
            return alt
    options = " or ".join("(" + ", ".join(alt) + ")" for alt in NEEDS[knob])
    raise DomainError(f"solving for {knob} needs {options}")


def schedule_of(terms: Mapping[str, float | None], sampling: str = "poisson") -> Schedule:
    """The schedule the given training terms describe (q and steps, examples, or clients).

    Examples:
        >>> from dpcalc.accounting.knobs import schedule_of
        >>> schedule_of({'q': 0.01, 'steps': 1000})
        Schedule(q=0.01, steps=1000, sampling='poisson', unit='example', terms={'q': 0.01, 'steps': 1000})
    """
    t = {k: x for k, x in terms.items() if x is not None}
    if "clients" in t:
        return training.from_clients(t["clients"], t.get("clients_per_round", math.nan), t.get("rounds", math.nan),
                                     sampling=sampling)
    if "dataset_size" in t:
        return training.from_examples(t["dataset_size"], t.get("batch_size", math.nan), epochs=t.get("epochs"),
                                      steps=t.get("steps"), sampling=sampling)
    q = float(v.scalar("q", v.check_range("q", t.get("q", math.nan), 0.0, 1.0, lo_open=True)))
    steps = int(v.scalar("steps", v.integer_at_least("steps", t.get("steps", math.nan), 1)))
    return Schedule(q, steps, training._sampling(sampling), "example", {"q": q, "steps": steps})


def _builder(knob: str, terms: Mapping[str, float | None], sampling: str) -> tuple[Callable[[float], Schedule], Knob]:
    """value -> schedule for ``knob``, and the knob's search range and direction."""
    alt = _pick(knob, terms)
    t: dict[str, Any] = {n: terms[n] for n in alt}
    if knob == "steps":
        if "clients" in t:
            return (lambda n: training.from_clients(t["clients"], t["clients_per_round"], n, sampling=sampling),
                    Knob("rounds", 1, _STEPS_MAX, eps_increases=True, integer=True, start=100))
        if "dataset_size" in t:
            return (lambda n: training.from_examples(t["dataset_size"], t["batch_size"], steps=n, sampling=sampling),
                    Knob("steps", 1, _STEPS_MAX, eps_increases=True, integer=True, start=1000))
        return (lambda n: schedule_of({"q": t["q"], "steps": n}, sampling),
                Knob("steps", 1, _STEPS_MAX, eps_increases=True, integer=True, start=1000))
    if knob == "epochs":
        return (lambda e: training.from_examples(t["dataset_size"], t["batch_size"], epochs=e, sampling=sampling),
                Knob("epochs", 1, _STEPS_MAX, eps_increases=True, integer=True, start=10))
    if knob == "batch-size":
        n = int(v.scalar("dataset_size", v.integer_at_least("dataset_size", t["dataset_size"], 2)))
        return (lambda b: training.from_examples(n, b, epochs=t.get("epochs"), steps=t.get("steps"),
                                                 sampling=sampling),
                Knob("batch_size", 1, n, eps_increases=True, integer=True, start=min(n, 64)))
    if knob == "sampling-rate":
        steps = t.get("steps", t.get("rounds"))
        return (lambda q: schedule_of({"q": q, "steps": steps}, sampling),
                Knob("q", _Q_MIN, 1.0, eps_increases=True, start=1e-2, slope=1.0))
    if knob == "clients-per-round":
        n = int(v.scalar("clients", v.integer_at_least("clients", t["clients"], 1)))
        return (lambda m: training.from_clients(n, m, t["rounds"], sampling=sampling),
                Knob("clients_per_round", 1, n, eps_increases=True, integer=True, start=min(n, 10)))
    if knob == "rounds":
        return (lambda r: training.from_clients(t["clients"], t["clients_per_round"], r, sampling=sampling),
                Knob("rounds", 1, _STEPS_MAX, eps_increases=True, integer=True, start=100))
    raise DomainError(f"solve_for must be one of {', '.join(KNOBS)} (got {knob!r})")


def solve_knob(knob: str, eps: float, delta: float, *, terms: Mapping[str, float | None], sigma: float | None = None,
               accountant: str = "rdp", sampling: str = "poisson", rtol: float | None = None,
               **options: Any) -> Calibration:
    """The value of ``knob`` whose ε under ``accountant`` is <= ``eps`` at ``delta``, safe and tight, with the
    training ``terms`` (library names: q, steps, dataset_size, batch_size, epochs, clients, clients_per_round,
    rounds) and noise multiplier ``sigma`` holding the rest of the run fixed.

    Examples:
        >>> from dpcalc.accounting.knobs import solve_knob
        >>> solve_knob('noise-multiplier', 1.0, 1e-5, terms={'q': 0.01, 'steps': 1000})
        Calibration(knob='noise-multiplier', value=1.5131221626087412, eps=0.9999999999985716,
        next_value=1.513122161095619, next_eps=1.000000001461014, schedule=Schedule(q=0.01, steps=1000,
        sampling='poisson', unit='example', terms={'q': 0.01, 'steps': 1000}), sigma=1.5131221626087412,
        accountant='rdp', bound='upper')
    """
    from dpcalc.accounting import accountants

    if knob not in KNOBS:
        raise DomainError(f"solve_for must be one of {', '.join(KNOBS)} (got {knob!r})")
    target = float(v.scalar("eps", v.positive("eps", eps)))
    d = float(v.scalar("delta", v.probability("delta", delta)))
    acc = accountants.get(accountant)
    tol = float(rtol) if rtol is not None else (1e-3 if acc.name == "pld" else 1e-9)

    if sampling == "shuffle" and (acc.name not in training.SHUFFLE_ACCOUNTANTS
                                  or options.get("backend", "dpcalc") != "dpcalc"):
        raise DomainError(training.SHUFFLE_MISSING.format(opt="", name=f"accountant {acc.name!r}"))

    def eps_of(schedule: Schedule, z: float) -> float:
        """ε of the schedule; inf where the accountant cannot represent it (e.g. a tiny σ): above any target."""
        res = training.evaluate(schedule, z, d, acc.name, **options)
        return res.eps if res.eps is not None else math.inf

    if knob == "noise-multiplier":
        schedule = schedule_of({n: terms.get(n) for n in _pick(knob, terms)}, sampling)
        if schedule.sampling == "poisson":
            z = float(calibrate.sigma_for_eps(target, d, schedule.q, schedule.steps, accountant=acc.name, rtol=tol,
                                              **options))
        else:  # the event model's accountant on the same one search
            floor = 0.05 if acc.name == "pld" else calibrate.SIGMA_MIN  # the PLD's lattices below it outgrow memory
            knob_z = dataclasses.replace(calibrate.NOISE_MULTIPLIER, lo=floor)
            z = calibrate.solve(Forward(upper=lambda x, _accuracy: eps_of(schedule, x)), target, knob_z, rtol=tol,
                                what=f"accountant {acc.name!r} at delta = {d:g} (shuffled batches)")
        lower = z / (1.0 + tol)
        return Calibration(knob, z, eps_of(schedule, z), lower, eps_of(schedule, lower), schedule, z, acc.name,
                           acc.bound)
    if sigma is None:
        raise DomainError(f"solving for {knob} needs the noise multiplier")
    z = float(v.scalar("sigma", v.positive("sigma", sigma)))
    build, k = _builder(knob, terms, sampling)
    what = f"accountant {acc.name!r} at delta = {d:g} and noise multiplier {z:g}"

    def forward(x: float, _accuracy: float = 0.0) -> float:
        schedule = build(x)
        if schedule.sampling == "shuffle":
            return eps_of(schedule, z)
        return calibrate._safe_eps(acc, z, schedule.q, schedule.steps, d, **options)

    if k.hi < _STEPS_MAX:  # a knob bounded by the run: if its largest value meets the target, that is the answer
        top = forward(k.hi)
        if top <= target:
            return Calibration(knob, k.hi, top, None, None, build(k.hi), z, acc.name, acc.bound)
    value = calibrate.solve(Forward(upper=forward), target, k, rtol=tol, what=what)
    after = value + 1 if k.integer else value * (1.0 + tol)
    after = min(after, k.hi)
    schedule = build(value)
    return Calibration(knob, int(value) if k.integer else value, eps_of(schedule, z), after, forward(after), schedule,
                       z, acc.name, acc.bound)

