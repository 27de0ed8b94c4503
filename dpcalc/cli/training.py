"""Training terms on the command line: the options declared once, checked together, turned into q and T.

``--dataset-size --batch-size --epochs`` (or ``--steps``): example-level DP-SGD; ``--clients --clients-per-round
--rounds``: client-level DP-FedAvg; ``--q --steps``: the accountants' own symbols. One set per call; an incomplete or
conflicting combination is one line naming the options. Library: `dpcalc.accounting.training`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dpcalc.cli.options import Opt, choice, integer, real
from dpcalc.errors import DomainError

if TYPE_CHECKING:
    from dpcalc.accounting.training import Schedule
    from dpcalc.cli.command import Args
    from dpcalc.report.render import Result

__all__ = [
    "CLIENT_TERMS",
    "EXAMPLE_TERMS",
    "SAMPLING",
    "TRAINING",
    "USER",
    "calibrate_knob",
    "derived_note",
    "evaluate",
    "meta",
    "prepare",
    "run_meta",
    "run_note",
    "schedule",
    "shuffle_accountants",
    "terms",
    "titled",
    "with_schedule",
]

EXAMPLE_TERMS = ("dataset_size", "batch_size", "epochs")
CLIENT_TERMS = ("clients", "clients_per_round", "rounds")

SAMPLING = choice("sampling", ("poisson", "shuffle"), formula="-", default="poisson", help=(
    "How batches are drawn: poisson (each record independently with probability q; add/remove neighbours) or "
    "shuffle (fixed-size batches drawn without replacement each step; replace-one neighbours)"))

TRAINING: tuple[Opt, ...] = (
    integer("dataset_size", formula="-", default=None, help="Training examples N (with --batch-size: q = b/N)"),
    integer("batch_size", formula="-", default=None, help="Batch size b (expected size under Poisson sampling)"),
    real("epochs", formula="-", default=None, help="Epochs E: T = ⌈E·N/b⌉ steps (or give --steps)"),
    integer("clients", formula="-", default=None, help="Federated clients N (client level: q = m/N)"),
    integer("clients_per_round", formula="-", default=None, help="Clients m sampled per round"),
    integer("rounds", formula="-", default=None, help="Federated rounds R (T = R)"),
    SAMPLING,
)

USER = integer("max_examples_per_user", formula="-", default=None, help=(
    "User level: each user contributes at most k examples (group privacy; k = 1 is example level)"))

_EXAMPLE_OPTS = "--dataset-size --batch-size with --epochs or --steps"
_CLIENT_OPTS = "--clients --clients-per-round --rounds"


def _given(a: Args, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if a[n] is not None]


def given_terms(a: Args) -> bool:
    """Whether the command line describes the run in training terms (not --q --steps)."""
    return bool(_given(a, (*EXAMPLE_TERMS, *CLIENT_TERMS)))


def no_terms(a: Args) -> Args:
    """``a`` when it gives no training terms (an --event describes the mechanism itself), else one line."""
    given = _given(a, (*EXAMPLE_TERMS, *CLIENT_TERMS))
    if given or a.sampling != "poisson":
        flags = " ".join(map(_flag, given)) or "--sampling"
        raise DomainError(f"--event describes the mechanism itself: drop {flags} (or drop --event)")
    return a


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _one(a: Args, name: str) -> float | None:
    """The single value of an axis option (training terms give one run)."""
    values = a[name]
    if values is None:
        return None
    if len(values) != 1:
        raise DomainError(f"{_flag(name)} takes one value with training terms (got {len(values)})")
    return float(values[0])


def terms(a: Args, unknown: str = "") -> dict[str, float | None]:
    """The training terms given (library names), checked for conflicts; ``unknown`` is the knob solved for."""
    example, client = _given(a, EXAMPLE_TERMS), _given(a, CLIENT_TERMS)
    if example and client:
        raise DomainError(f"{' '.join(map(_flag, example))} (examples) and {' '.join(map(_flag, client))} (clients) "
                          "describe different runs: give one set")
    q, steps = _one(a, "q") if a["q"] is not None else None, _one(a, "steps") if a["steps"] is not None else None
    if (example or client) and q is not None:
        derived = "--batch-size/--dataset-size" if example else "--clients-per-round/--clients"
        raise DomainError(f"--q conflicts with {' '.join(map(_flag, example or client))}: q = {derived} is derived "
                          "from them; give one")
    if client and steps is not None:
        raise DomainError("--steps conflicts with --rounds: a federated run has T = rounds; give one")
    if "epochs" in example and steps is not None:
        raise DomainError("--epochs and --steps conflict: T = ⌈E·N/b⌉ follows from --epochs; give one")
    given: dict[str, float | None] = {n: float(a[n]) for n in (*example, *client)}
    given.update({"q": q, "steps": steps})
    if unknown and given.get(unknown.replace("-", "_")) is not None:
        raise DomainError(f"--solve-for {unknown}: {_flag(unknown)} is the unknown; drop it")
    return given


def schedule(a: Args) -> Schedule:
    """The run the options describe (q and T with their origin), or one line naming what is missing."""
    from dpcalc.accounting import knobs, training

    t = terms(a)
    if any(t.get(n) is not None for n in CLIENT_TERMS):
        missing = [n for n in CLIENT_TERMS if t.get(n) is None]
        if missing:
            raise DomainError(f"client-level training needs {_CLIENT_OPTS} (missing {' '.join(map(_flag, missing))})")
    elif any(t.get(n) is not None for n in EXAMPLE_TERMS):
        missing = [n for n in ("dataset_size", "batch_size") if t.get(n) is None]
        if missing or (t.get("epochs") is None and t.get("steps") is None):
            what = " ".join(map(_flag, missing)) or "--epochs or --steps"
            raise DomainError(f"example-level training needs {_EXAMPLE_OPTS} (missing {what})")
    elif t.get("q") is None or t.get("steps") is None:
        raise DomainError(f"give --q and --steps, or {_EXAMPLE_OPTS}, or {_CLIENT_OPTS}")
    return knobs.schedule_of(t, training._sampling(a.sampling))


def with_schedule(a: Args) -> tuple[Args, Schedule]:
    """``a`` with q and steps set from the training terms (one value each), and the schedule."""
    from dpcalc.cli.command import Args

    s = schedule(a)
    values = {**a._values, "q": [s.q], "steps": [float(s.steps)]}
    return Args(values, a._options, a.format, a.extra), s


def prepare(a: Args) -> tuple[Args, Schedule | None]:
    """``account``/``calibrate``'s arguments with q and T from the training terms, if any were given (else ``a``
    unchanged and None). Under shuffled batches the accountants default to those that have a form for them."""

    if not _given(a, (*EXAMPLE_TERMS, *CLIENT_TERMS)) and a.sampling == "poisson":
        if a.q is None or a.steps is None:
            raise DomainError(f"give --q and --steps, or {_EXAMPLE_OPTS}, or {_CLIENT_OPTS}")
        return a, None
    a, s = with_schedule(a)
    if s.sampling == "shuffle":
        if "dataset_size" not in s.terms and "clients" not in s.terms:
            raise DomainError(f"--sampling shuffle needs the sizes: {_EXAMPLE_OPTS}, or {_CLIENT_OPTS} (not --q)")
        shuffle_accountants(a)
    return a, s


def shuffle_accountants(a: Args) -> None:
    """Under shuffled batches: the requested accountants must have a form for them (one line naming those that do
    not); none requested: those that have one."""
    from dpcalc.accounting import training

    requested = [n.strip() for item in a.accountant or [] for n in item.split(",") if n.strip()]
    missing = [n for n in requested if n not in training.SHUFFLE_ACCOUNTANTS]
    if missing:
        raise DomainError(training.SHUFFLE_MISSING.format(opt="--", name=f"accountant {', '.join(missing)}"))
    if not requested:
        a._values["accountant"] = list(training.SHUFFLE_ACCOUNTANTS)


def evaluate(run: Schedule | None, name: str, sigma: float, q: float, steps: float, delta: float,
             **options: Any) -> Any:
    """One row's AccountantResult: the Poisson accountants (``--q --steps`` or a Poisson run), or the run's own
    sampling (`dpcalc.accounting.training.evaluate`)."""
    from dpcalc.accounting import accountants, training

    if run is None or run.sampling == "poisson":
        return accountants.evaluate(name, sigma, q, steps, delta, **options)
    return training.evaluate(run, sigma, delta, name, **options)


_USER_NOTE = (" user, k: each user contributes at most k examples (add or remove all of them): vadhan = group "
              "privacy of the accountant's (ε, δ) (Vadhan 2017, Lemma 2.2); rdp-group = group privacy of RDP (Mironov "
              "2017, Prop. 2); mixture = the mixture-of-Gaussians PLD (Ganesh et al. 2024).")


def titled(result: Result, run: Schedule | None, k: int | None = None) -> Result:
    """``result`` with the sampling of a shuffle run in its title and note, and the user-level rows explained."""
    if k is not None:
        result = result.replace(note=result.note + _USER_NOTE)
    if run is None or run.sampling == "poisson":
        return result
    note = result.note.replace("Poisson sampling, add/remove neighbours (pld: both evaluated, the worse reported).",
                               "Shuffled fixed-size batches: sampling without replacement, replace-one neighbours "
                               "(a replaced example moves the clipped sum by up to twice the clipping norm).")
    return result.replace(title=result.title.replace("Poisson-subsampled", "shuffled-batch (without replacement)"),
                          note=note)


def derived_note(s: Schedule) -> str:
    """One sentence: the training terms and the q and T derived from them."""
    t = s.terms
    if s.unit == "client":
        run = (f"{t['clients']:,} clients, {t['clients_per_round']:,} per round: q = m/N = {s.q:.6g}; "
               f"{t['rounds']:,} rounds: T = {s.steps:,}; unit of privacy: one client (all of its data)")
    elif "dataset_size" in t:
        length = (f"{t['epochs']:g} epochs: T = ⌈E·N/b⌉ = {s.steps:,}" if "epochs" in t else
                  f"T = {s.steps:,} steps ({s.epochs:.6g} epochs)")
        run = f"{t['dataset_size']:,} examples, batch {t['batch_size']:,}: q = b/N = {s.q:.6g}; {length}"
    else:
        run = f"q = {s.q:g}, T = {s.steps:,}"
    how = ("Poisson sampling" if s.sampling == "poisson" else
           "shuffled fixed-size batches (sampling without replacement)")
    return f"Training run: {run}; {how}."


def meta(s: Schedule) -> dict[str, Any]:
    """The schedule for a result's JSON meta."""
    return {"training": {**s.terms, "q": s.q, "steps": s.steps, "sampling": s.sampling, "unit": s.unit}}


def user_k(a: Args, run: Schedule | None) -> int | None:
    """``--max-examples-per-user`` checked against the run (None when not given)."""
    k = a.max_examples_per_user
    if k is None:
        return None
    if run is not None and run.unit == "client":
        raise DomainError("--max-examples-per-user is for example-level training; with --clients the unit of "
                          "privacy is already the client (all of its data)")
    if k < 1:
        raise DomainError(f"--max-examples-per-user must be an integer >= 1 (got {k})")
    return int(k)


def user_rows(a: Args, run: Schedule | None, points: list[tuple[float, ...]], names: list[str],
              options: dict[str, Any]) -> list[dict[str, Any]]:
    """``account``'s user-level rows (`dpcalc.accounting.group.user_level`), one per bound and grid point."""
    from dpcalc.accounting import group
    from dpcalc.accounting.training import Schedule

    k = user_k(a, run)
    if k is None:
        return []
    rows = []
    for z, qq, t, d in points:
        s = run if run is not None else Schedule(qq, int(t))
        for method, res in group.user_level(s, z, d, names, options, k):
            rows.append({"noise_multiplier": z, "q": qq, "steps": t, "delta": d,
                         "accountant": f"{res.accountant}: user, k = {k} ({method})", "eps": res.eps,
                         "bound": res.bound, "order": res.extra.get("order"), "failure": res.failure})
    return rows


def run_note(s: Schedule | None) -> str:
    """The sentence a result's note gets for a run given in training terms ('' for --q --steps)."""
    return "" if s is None else " " + derived_note(s)


def run_meta(s: Schedule | None) -> dict[str, Any]:
    """The run for a result's JSON meta ({} for --q --steps)."""
    return {} if s is None else meta(s)


def calibrate_knob(a: Args, accountants_of: Any) -> Result:
    """``calibrate --solve-for KNOB``: the knob's value for each target (ε, δ) and accountant, safe and tight, with
    the achieved ε and the ε one step past the answer."""
    import itertools

    from dpcalc.accounting import accountants, knobs, training
    from dpcalc.cli.command import Args as ArgsType
    from dpcalc.errors import DpcalcError, InfeasibleError

    knob = a.solve_for or "noise-multiplier"
    if knob not in knobs.KNOBS:
        raise DomainError(f"--solve-for must be one of {', '.join(knobs.KNOBS)} (got {knob!r}; a field path "
                          "needs --event)")
    t = terms(a, unknown="q" if knob == "sampling-rate" else knob)
    if knob == "sampling-rate" and t.get("dataset_size") is not None:
        raise DomainError("--solve-for sampling-rate takes --steps (or --rounds), not --dataset-size --batch-size: "
                          "solve for --batch-size instead")
    if knob == "noise-multiplier":
        schedule(a)  # the training terms' own one-line messages
    elif not any(all(t.get(n) is not None for n in alt) for alt in knobs.NEEDS[knob]):
        raise DomainError(f"--solve-for {knob} needs " + " or ".join(" ".join(map(_flag, alt))
                                                                      for alt in knobs.NEEDS[knob]))
    sigma = _one(a, "sigma")
    if sigma is None and knob != "noise-multiplier":
        raise DomainError(f"--solve-for {knob} needs --noise-multiplier")
    sampling = training._sampling(a.sampling)
    if sampling == "shuffle":
        shuffle_accountants(a)
    fixed_q = _fixed_q(t)
    names, acc = accountants_of(ArgsType({**a._values, "q": [fixed_q]}, a._options, a.format, a.extra))
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    for e, d in itertools.product(a.eps, a.delta):
        for n in names:
            try:
                c = knobs.solve_knob(knob, e, d, terms=t, sigma=sigma, accountant=n, sampling=sampling,
                                     rtol=a.rtol, **acc["options"][n])
            except InfeasibleError as exc:
                failures.append(str(exc))
                rows.append({"eps": e, "delta": d, "accountant": n, "bound": accountants.get(n).bound,
                             "failure": f"--solve-for {knob}: {exc}"})
                continue
            except DpcalcError:
                raise
            s = c.schedule
            rows.append({"eps": e, "delta": d, "accountant": n, "knob": knob, "value": c.value,
                         "achieved": c.eps, "next_value": c.next_value, "next_eps": c.next_eps,
                         "noise_multiplier": c.sigma, "q": s.q, "steps": s.steps, "epochs": s.epochs,
                         "bound": c.bound})
    if not any("value" in r for r in rows):
        raise DomainError(f"--solve-for {knob}: {failures[0]}")
    return _knob_result(knob, rows, sigma, sampling, names)


def _fixed_q(t: dict[str, float | None]) -> float:
    """The q the terms fix (steps, epochs or rounds the unknown), else 0.5: which accountants apply by default."""
    for num, den in (("batch_size", "dataset_size"), ("clients_per_round", "clients")):
        if t.get(num) is not None and t.get(den) is not None:
            return min(1.0, max(float(t[num] or 0) / float(t[den] or 1), 1e-300))
    q = t.get("q")
    return float(q) if q is not None else 0.5


def _knob_result(knob: str, rows: list[dict[str, Any]], sigma: float | None, sampling: str,
                 names: list[str]) -> Result:
    from dpcalc.report.render import Column, Result

    integer = knob not in ("noise-multiplier", "sampling-rate")
    columns = [Column("eps", "target ε (nats)", r"$\epsilon$"), Column("delta", "δ", r"$\delta$"),
               Column("accountant", "accountant", text=True), Column("value", knob, integer=integer),
               Column("achieved", "ε at it", r"$\epsilon$", number=".15g"),
               Column("next_value", "one step past", integer=integer), Column("next_eps", "ε there", number=".15g"),
               *([] if knob == "noise-multiplier" else [Column("noise_multiplier", "z (noise multiplier)", "$z$")]),
               Column("q", "q", "$q$"),
               Column("steps", "T (steps)", "$T$", integer=True), Column("bound", "bound", text=True)]
    if any(r.get("epochs") is not None for r in rows):
        columns.insert(len(columns) - 1, Column("epochs", "E = T·b/N", "$E$"))
    if any("failure" in r for r in rows):
        columns.append(Column("failure", "no answer because", text=True))
    kept = {c.key for c in columns}
    rows = [{k: x for k, x in r.items() if k in kept} for r in rows]
    note = (f"Safe side: ε at the answer <= target under its accountant; tight: one step past it (the next integer, "
            f"or the rate × (1 + rtol)) exceeds the target ('—' where the largest allowed value meets it). "
            f"{'Poisson sampling' if sampling == 'poisson' else 'shuffled batches'}"
            + ("." if sigma is None else f"; noise multiplier z = {sigma:g}."))
    return Result(columns=columns, rows=rows, title=f"{knob} for a target (ε, δ)", note=note,
                  meta={"solve_for": knob, "accountants": names, "sampling": sampling})
