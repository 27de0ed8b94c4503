"""What ``account``, ``calibrate`` and ``statement`` share, declared once: the run's options (the noise multiplier,
q and steps, the training terms, an event file and its relation), the accountants and their tolerances, the user
level; and the one place each is turned into library values (events, `Options`, accountant names).

A run is given by training terms (``--dataset-size --batch-size --epochs`` or ``--steps``; ``--clients
--clients-per-round --rounds``), by ``--q --steps`` (the accountants' own symbols), or by ``--event FILE`` (any
event; then ``--neighbours`` names the relation). Library: `dpcalc.api`, `dpcalc.accounting.events.TrainingRun`.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from dpcalc.cli.options import Opt, choice, integer, many, real, text
from dpcalc.errors import DomainError

if TYPE_CHECKING:
    from dpcalc.accounting.accountants.base import Options
    from dpcalc.accounting.events.base import Event
    from dpcalc.cli.command import Args

__all__ = [
    "ACCOUNTANT",
    "ATOL",
    "BACKEND",
    "CLIENT_TERMS",
    "EVENT",
    "EXAMPLE_TERMS",
    "NEEDS",
    "NEIGHBOURS",
    "ORDERS",
    "RTOL",
    "SOLVE_FOR",
    "TRAINING",
    "USER",
    "accountants_of",
    "no_terms",
    "options_of",
    "orders_of",
    "runs",
    "user_k",
]

EXAMPLE_TERMS = ("dataset_size", "batch_size", "epochs")
CLIENT_TERMS = ("clients", "clients_per_round", "rounds")

ACCOUNTANT = many("accountant", short="-a", formula="-", help=(
    "Accountant(s) to use (repeatable or comma list): rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld, exact. "
    "Default: every one that applies (those that do not are listed with their reason)"))
BACKEND = text("backend", formula="-", default="dpcalc", help=(
    "PLD implementation for the pld accountant: dpcalc (own, certified bracket ε lower ≤ ε ≤ ε upper) or "
    "dp-accounting (Google's, one pessimistic value; for comparison, needs the optional extra: pip install "
    "'dpcalc[pld]')"))
ORDERS = text("orders", formula="-", default=None, help=(
    "RDP order grid (comma list / ranges a:b:step; inf: the pure ε), default dp-accounting's 1.1..10.9, 11..63, "
    "128..1024"))
RTOL = real("rtol", formula="-", default=None, help=(
    "PLD bracket: relative width asked (default 1e-3); a wider certified bracket is still shown, marked"))
ATOL = real("atol", formula="-", default=None, help="PLD bracket: absolute width asked, nats (default 1e-6)")
EVENT = Opt("event", "text", formula="-", default=None, help=(
    "An event file (JSON or TOML): dp-accounting's DpEvent.to_named_tuple() form as dictionaries (or as json.dumps "
    "writes it), or the short spelling {\"type\": \"gaussian\", ...}; then no noise multiplier, q, steps or training "
    "terms"))
NEIGHBOURS = Opt("neighbours", "text", formula="-", default=None, help=(
    "Neighbouring relation: add-remove, replace-one (a record's contribution leaves and another's arrives: outputs "
    "move by twice the sensitivity) or replace-special. Default: add-remove (Poisson sampling, --event), replace-one "
    "(--sampling fixed)"))
SOLVE_FOR = Opt("solve_for", "text", formula="-", default=None, help=(
    "The knob to calibrate for the target (ε, δ), the rest of the run fixed: noise-multiplier (default), steps, "
    "epochs, batch-size, sampling-rate, clients-per-round or rounds (integers: the last that meets it). With "
    "--event: the field, by its path (event.event.noise_multiplier, count, event.sampling_probability)"))
SAMPLING = choice("sampling", ("poisson", "fixed", "shuffle", "balls-in-bins"), formula="-", default="poisson", help=(
    "How batches are drawn: poisson (each example independently with probability q each step; add/remove "
    "neighbours), fixed (a batch of b drawn without replacement each step; replace-one), shuffle (shuffled once per "
    "epoch and cut into N/b batches: bounded without amplification, with the shuffle-lower bound beside it), "
    "balls-in-bins (each example in one random step of each epoch: random allocation, an upper bound)"))
TRAINING: tuple[Opt, ...] = (
    integer("dataset_size", formula="-", default=None, help="Training examples N (with --batch-size: q = b/N)"),
    integer("batch_size", formula="-", default=None, help="Batch size b (expected size under Poisson sampling)"),
    real("epochs", formula="-", default=None, help="Epochs E: T = ⌈E·N/b⌉ steps (or give --steps)"),
    integer("clients", formula="-", default=None, help="Federated clients N (client level: q = m/N)"),
    integer("clients_per_round", formula="-", default=None, help="Clients m sampled per round"),
    integer("rounds", formula="-", default=None, help="Federated rounds R (T = R)"),
    SAMPLING,
    choice("mechanism", ("dp-sgd", "dp-ftrl"), formula="-", default="dp-sgd", help=(
        "What each step releases: dp-sgd (the noisy clipped sum of the batch) or dp-ftrl (DP-FTRL-TreeRestart, "
        "Kairouz et al. 2021: the batches in order, each example once per epoch, prefix sums through tree aggregation "
        "restarted every epoch; zero-out neighbours)")),
)
USER = integer("max_examples_per_user", formula="-", default=None, help=(
    "User level: each user contributes at most k examples (group privacy; k = 1 is example level)"))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def accountants_of(a: Args) -> list[str] | None:
    """The accountants asked for (``-a rdp -a pld`` or ``-a rdp,pld``), checked by name; None: every one."""
    from dpcalc.accounting import accountants

    requested = [n.strip() for item in a.accountant or [] for n in item.split(",") if n.strip()]
    return [accountants.get(n).name for n in requested] or None


def orders_of(a: Args) -> list[float] | None:
    """``--orders``: values and ranges (`dpcalc.report.vectors.parse_vector`: also a file of numbers) and ``inf``
    (the order ∞, where the event's pure ε is its Rényi divergence); None when not given."""
    from dpcalc.report.vectors import parse_vector

    if a.orders is None:
        return None
    tokens = [t.strip() for t in str(a.orders).split(",") if t.strip()]
    infinite = [t for t in tokens if t.lower() in ("inf", "+inf", "∞", "infinity")]
    rest = ",".join(t for t in tokens if t not in infinite)
    values = parse_vector("--orders", rest) if rest else []
    if not values and not infinite:
        raise DomainError("--orders must be a comma list of orders > 1, ranges a:b:step or inf (got nothing)")
    return values + ([float("inf")] if infinite else [])


def options_of(a: Args) -> Options:
    """The accountants' options: the PLD bracket's tolerances, the RDP grid, the PLD backend."""
    from dpcalc.accounting import accountants
    from dpcalc.accounting.accountants.base import with_defaults
    from dpcalc.accounting.accountants.rdp import orders_grid

    backend = (a.backend or "dpcalc").strip().lower()
    if backend not in ("dpcalc", "dp-accounting"):
        raise DomainError(f"--backend must be dpcalc or dp-accounting (got {a.backend!r})")
    if backend == "dp-accounting":
        from dpcalc.accounting.accountants.pld import peer_available

        if not peer_available():
            raise DomainError("--backend dp-accounting: dp-accounting is not installed (pip install 'dpcalc[pld]'); "
                              "the default --backend dpcalc needs nothing extra")
    orders = orders_of(a)
    if orders is not None:
        try:
            orders_grid(orders)
        except DomainError as exc:
            raise DomainError("--" + str(exc)) from None
    values = a.parsed()
    return with_defaults(accountants.Options(), rtol=values.get("rtol"), atol=values.get("atol"), orders=orders,
                         backend=backend)


def _one(a: Args, name: str) -> list[Any]:
    """The values of an axis option (a list; [None] when absent)."""
    values = a.parsed().get(name)
    return [None] if values is None else list(values)


def user_k(a: Args, unit: str = "example") -> int | None:
    """``--max-examples-per-user`` checked (None when not given)."""
    k = a.parsed().get("max_examples_per_user")
    if k is None:
        return None
    if unit == "client":
        raise DomainError("--max-examples-per-user is for example-level training; with --clients the unit of "
                          "privacy is already the client (all of its data)")
    if k < 1:
        raise DomainError(f"--max-examples-per-user must be an integer >= 1 (got {k})")
    return int(k)


def _event(a: Args) -> Event:
    from dpcalc.accounting.events import load

    no_terms(a)
    return load(a.event, "--event")


def no_terms(a: Args) -> None:
    """With ``--event`` (the mechanism described by the file) no run options may be given: one line naming them."""
    given = [_flag(n) for n in (*EXAMPLE_TERMS, *CLIENT_TERMS, "q", "steps", "sigma")
             if a.parsed().get(n) is not None]
    if given or a.sampling != "poisson":
        raise DomainError(f"--event describes the mechanism itself: drop {' '.join(given) or '--sampling'} (or drop "
                          "--event)")


def runs(a: Args, *, unknown: str | None = None) -> list[tuple[Event, str, dict[str, Any]]]:
    """The events of the call, one per grid point of the run's options (``--noise-multiplier``, ``--q``, ``--steps``
    may each sweep), with their relation and the point's values; ``unknown`` (a knob being solved for) may be
    absent. Training terms, ``--q --steps`` or ``--event``: one set per call, conflicts one line."""
    from dpcalc.accounting.events import TrainingRun, relation

    values = a.parsed()
    if values.get("event") is not None:
        ev = _event(a)
        rel = relation(values.get("neighbours") or "add-remove")
        return [(ev, rel, {})]
    example = [n for n in EXAMPLE_TERMS if values.get(n) is not None]
    client = [n for n in CLIENT_TERMS if values.get(n) is not None]
    if example and client:
        raise DomainError(f"{' '.join(map(_flag, example))} (examples) and {' '.join(map(_flag, client))} (clients) "
                          "describe different runs: give one set")
    if (example or client) and values.get("q") is not None:
        raise DomainError(f"--q conflicts with {' '.join(map(_flag, example or client))}: q is derived from them; "
                          "give one")
    if not example and a.sampling in ("shuffle", "balls-in-bins"):
        raise DomainError(f"--sampling {a.sampling} needs the sizes: --dataset-size --batch-size with --epochs or "
                          "--steps (whole epochs)")
    if not (example or client) and a.sampling == "fixed":
        raise DomainError("--sampling fixed needs the sizes: --dataset-size --batch-size with --epochs or --steps, "
                          "or --clients --clients-per-round --rounds (not --q)")
    terms = {n: values[n] for n in (*example, *client)}
    sampling = a.sampling
    given = relation(values["neighbours"]) if values.get("neighbours") is not None else None
    points: list[tuple[Event, str, dict[str, Any]]] = []
    for z, q, steps in itertools.product(_one(a, "sigma"), _one(a, "q"), _one(a, "steps")):
        run_terms = {"noise_multiplier": z, "q": q, "steps": steps, **terms,
                     "sampling": sampling, "mechanism": values.get("mechanism") or "dp-sgd"}
        _complete(run_terms, example, client, unknown)
        try:
            run = TrainingRun(**run_terms)
        except DomainError as exc:  # the event names its field; the command line names the option
            raise DomainError(re.sub(r"^TrainingRunDpEvent\.(\w+)", lambda m: _flag(m.group(1)), str(exc))) from None
        points.append((run, given or run.relation, {}))
    return points


#: what each knob a calibration solves for needs besides the noise multiplier: alternatives (library names)
NEEDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "steps": (("q",), ("dataset_size", "batch_size")),
    "epochs": (("dataset_size", "batch_size"),),
    "batch_size": (("dataset_size", "epochs"), ("dataset_size", "steps")),
    "q": (("steps",),),
    "clients_per_round": (("clients", "rounds"),),
    "rounds": (("clients", "clients_per_round"),),
}


def _complete(terms: dict[str, Any], example: list[str], client: list[str], unknown: str | None = None) -> None:
    """One line naming what a run is missing (the knob being solved for, ``unknown``, may be)."""
    if unknown in NEEDS:
        given = {n for n, x in terms.items() if x is not None}
        if not any(set(alt) <= given for alt in NEEDS[unknown]):
            knob = {"q": "sampling-rate"}.get(unknown, unknown.replace("_", "-"))
            raise DomainError(f"--solve-for {knob} needs " + " or ".join(" ".join(map(_flag, alt))
                                                                          for alt in NEEDS[unknown]))
        if terms.get("noise_multiplier") is None:
            raise DomainError(f"--solve-for {unknown.replace('_', '-')} needs --noise-multiplier")
        return
    if unknown is not None:  # the noise multiplier: the rest of the run must be complete
        terms = {**terms, "noise_multiplier": 1.0}
    if client:
        missing = [n for n in CLIENT_TERMS if terms.get(n) is None]
        if missing:
            raise DomainError(f"client-level training needs --clients --clients-per-round --rounds (missing "
                              f"{' '.join(map(_flag, missing))})")
    elif example:
        missing = [n for n in ("dataset_size", "batch_size") if terms.get(n) is None]
        if missing or (terms.get("epochs") is None and terms.get("steps") is None):
            what = " ".join(map(_flag, missing)) or "--epochs or --steps"
            raise DomainError(f"example-level training needs --dataset-size --batch-size with --epochs or --steps "
                              f"(missing {what})")
    elif terms.get("q") is None or terms.get("steps") is None:
        raise DomainError("give --q and --steps, or --dataset-size --batch-size with --epochs or --steps, or "
                          "--clients --clients-per-round --rounds (or describe the mechanism with --event FILE)")
    if terms.get("noise_multiplier") is None:
        raise DomainError("--noise-multiplier is required (or describe the mechanism with --event FILE)")
