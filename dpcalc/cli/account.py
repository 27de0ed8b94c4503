"""``dpcalc account`` (ε under every accountant, side by side) and ``dpcalc calibrate`` (σ for a target ε).

Library: `dpcalc.accounting.accountants`, `dpcalc.accounting.calibrate`
(RDP, zCDP, analytic Gaussian, GDP-CLT, PLD).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from dpcalc._progress import progress
from dpcalc.cli.command import Args, command
from dpcalc.cli.options import Opt, axis, many, real, text, vector
from dpcalc.cli.training import (
    TRAINING,
    USER,
    evaluate,
    given_terms,
    no_terms,
    prepare,
    run_meta,
    run_note,
    titled,
    user_rows,
)
from dpcalc.errors import DomainError
from dpcalc.report.columns import column
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

ACCOUNTANT = many("accountant", short="-a", formula="-", help=(
    "Accountant(s) to use (repeatable): rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld. Default: every one that "
    "applies"))
BACKEND = text("backend", formula="-", default="dpcalc", help=(
    "PLD implementation for the pld accountant: dpcalc (own, certified bracket ε lower ≤ ε ≤ ε upper) or "
    "dp-accounting (Google's, one pessimistic value; for comparison, needs the optional extra: pip install "
    "'dpcalc[pld]')"))
ORDERS = vector("orders", formula="-", default=None, help=(
    "RDP order grid (comma list / ranges), default dp-accounting's 1.1..10.9, 11..63, 128..1024"))

#: rough seconds per grid point and accountant (ε; calibration: its ~20 ε evaluations), measured at T = 1000 on
#: one core (bench/bench_accounting_kernels.py covers the kernels); used to refuse a grid before computing it
_SECONDS_EPS = {"rdp": 0.006, "rdp-lemma1": 0.006, "zcdp": 0.002, "analytic": 0.003, "gdp-clt": 0.002, "pld": 0.02}
_SECONDS_CALIBRATE = {"rdp": 0.12, "rdp-lemma1": 0.12, "zcdp": 0.04, "analytic": 0.03, "gdp-clt": 0.03, "pld": 0.15}

EVENT = Opt("event", "text", formula="-", default=None, help=(
    "An event file (JSON or TOML): dp-accounting's DpEvent.to_named_tuple() form as dictionaries, or the short "
    "spelling {\"type\": \"gaussian\", ...}; then the noise multiplier, q and steps are not used"))
NEIGHBOURS = Opt("neighbours", "text", formula="-", default="add-remove", help=(
    "Neighbouring relation for --event: add-remove, replace-one (a record's contribution leaves and another's "
    "arrives: outputs move by twice the sensitivity) or replace-special"))
SOLVE_FOR = Opt("solve_for", "text", formula="-", default=None, help=(
    "The knob to calibrate for the target (ε, δ), the rest of the run fixed: noise-multiplier (default), steps, "
    "epochs, batch-size, sampling-rate, clients-per-round or rounds (integers: the largest that meets it; the "
    "rate: the largest q). With --event: the field, by its path (event.event.noise_multiplier, count, "
    "event.sampling_probability, event.sample_size)"))
_RDP = "rdp.subsampled_gaussian"  # declares q and the noise multiplier (its input sigma)
_EPS = "rdp.eps_improved"  # declares eps and delta
_ACCOUNTANT = Column("accountant", "accountant", text=True)
_BOUND = Column("bound", "bound", text=True)
# The accountants' formulas (every accountant's own entry where the catalog has one).
_FORMULAS = ["rdp.subsampled_gaussian", "rdp.eps_improved", "rdp.eps_lemma1", "zcdp.gaussian_rho",
             "zcdp.eps_from_rho", "gaussian.eps_analytic", "gdp.clt_mu", "gdp.eps_from_mu"]
_BOUND_NOTE = ("bound: upper = guaranteed ε (RDP/zCDP/analytic/PLD); estimate = approximation that can be below the "
               "true ε (GDP-CLT). pld: certified bracket ε lower ≤ true ε ≤ ε upper; ε = ε upper is the guarantee. "
               "Poisson sampling, add/remove neighbours (pld: both evaluated, the worse reported).")


def _setting() -> list[Column]:
    """Noise multiplier, q, steps, δ, accountant (built when a command runs: start-up reads no catalog)."""
    return [column(_RDP, "sigma", key="noise_multiplier", label="z (noise multiplier)"), column(_RDP, "q"),
            column("gdp.clt_mu", "steps"), column(_EPS, "delta"), _ACCOUNTANT]


def _check_work(options: str, points: int, names: list[str], costs: dict[str, float]) -> None:
    """The shared work cap (`dpcalc._limits.check_seconds`) at the accountants' measured cost a point."""
    from dpcalc import _limits

    each = sum(costs.get(n, 0.02) for n in names)
    _limits.check_seconds(f"{options} give {points:,} grid points × {len(names)} accountant(s) ({', '.join(names)}), "
                          "which", points * each, f"~{each * 1e3:.3g} ms a point")


def _accountants(a: Args) -> tuple[list[str], dict[str, Any]]:
    """The accountants to run (every applicable one by default) and their options (RDP orders, PLD backend)."""
    from dpcalc.accounting import accountants, rdp

    requested = [n.strip() for item in a.accountant or [] for n in item.split(",") if n.strip()]
    if requested:
        for n in requested:
            for q in a.q:
                reason = accountants.get(n).applicable(q)
                if reason is not None:
                    raise DomainError(reason)
        names = requested
    else:
        names = [n for n in accountants.names() if all(accountants.get(n).applicable(q) is None for q in a.q)]
    if a.orders is not None:
        try:
            rdp.orders_array(a.orders)
        except DomainError as exc:
            raise DomainError("--" + str(exc)) from None
    backend = a.backend.strip().lower()
    if backend not in ("dpcalc", "dp-accounting"):
        raise DomainError(f"--backend must be dpcalc or dp-accounting (got {a.backend!r})")
    if backend == "dp-accounting" and not accountants.pld_available():
        raise DomainError("--backend dp-accounting: dp-accounting is not installed (pip install 'dpcalc[pld]'); "
                          "the default --backend dpcalc needs nothing extra")
    options = {n: ({"orders": a.orders} if n.startswith("rdp") else
                   {"backend": backend} if n == "pld" and backend != "dpcalc" else {}) for n in names}
    return names, {"options": options, "backend": backend}


def _points(a: Args, names: list[str], first: str, costs: dict[str, float]) -> list[tuple[float, ...]]:
    """The grid of (first, q, steps, delta), checked against the work cap before any work."""
    axes = [a[first], a.q, a.steps, a.delta]
    points = math.prod(len(x) for x in axes)
    _check_work(", ".join(a.option(n) for n in (first, "q", "steps", "delta")), points, names, costs)
    return list(itertools.product(*axes))


def _schedule(a: Args) -> None:
    """Without --event, the schedule's options are required."""
    for name in ("sigma", "q", "steps"):
        if name in a._values and a[name] is None:
            raise DomainError(f"{a.option(name)} is required (or describe the mechanism with --event FILE)")


@command("account", axis("sigma", short="-z", default=None), axis("q", default=None), axis("steps", default=None),
         axis("delta"), ACCOUNTANT, ORDERS, BACKEND, EVENT, NEIGHBOURS, *TRAINING, USER, formula="accountant.eps_rdp")
def account_command(a: Args) -> Result:
    """ε of T Poisson-subsampled Gaussian steps under every accountant, side by side (upper bound or estimate).

    Example: dpcalc account --noise-multiplier 1 --q 0.01 --steps 1000 --delta 1e-5   (rdp: ε = 2.10137 at order 7.8)
    """
    from dpcalc import _validate as v
    from dpcalc.accounting import accountants

    if a.event is not None:
        from dpcalc.cli.events import account_event

        return account_event(no_terms(a))
    a, run = prepare(a)
    _schedule(a)
    names, acc = _accountants(a)
    v.positive("sigma", a.sigma)  # every value before the (possibly slow) accountants run
    v.check_range("q", a.q, 0.0, 1.0, lo_open=True)
    v.integer_at_least("steps", a.steps, 1)
    v.probability("delta", a.delta)
    points = _points(a, names, "sigma", _SECONDS_EPS)
    rows: list[dict[str, Any]] = []
    with progress(len(points) * len(names), "account") as advance:
        for z, qq, t, d in points:
            for n in names:
                res = evaluate(run, n, z, qq, t, d, **acc["options"][n])
                rows.append({"noise_multiplier": z, "q": qq, "steps": t, "delta": d, "accountant": n, "eps": res.eps,
                             "eps_lower": res.extra.get("eps_lower"), "eps_upper": res.extra.get("eps_upper"),
                             "bound": res.bound, "order": res.extra.get("order"), "failure": res.failure})
                advance(1, n)
    rows += user_rows(a, run, points, names, acc["options"])  # --max-examples-per-user: the user-level bounds
    if rows and all(r["failure"] for r in rows):
        raise DomainError(str(rows[0]["failure"]))
    columns = [*_setting(), column(_EPS, "eps"), _BOUND, Column("order", "Rényi order α*", r"$\alpha^*$")]
    if "pld" in names:  # the PLD's certified bracket: ε lower ≤ true ε ≤ ε upper (= ε, the guarantee)
        columns[6:6] = [Column("eps_lower", "ε lower (pld)", r"$\epsilon_{lo}$"),
                        Column("eps_upper", "ε upper (pld)", r"$\epsilon_{up}$")]
    if any(r["failure"] for r in rows):
        columns.append(Column("failure", "no ε because", text=True))
    kept = {c.key for c in columns}
    rows = [{k: x for k, x in r.items() if k in kept} for r in rows]
    skipped = [n for n in accountants.names() if n not in names]
    return titled(Result(columns=columns, rows=rows, title="Privacy loss ε of the Poisson-subsampled Gaussian",
                  note=_BOUND_NOTE + " α*: the optimal Rényi order (RDP and zCDP accountants)."
                  + ("" if acc["backend"] == "dpcalc" else " pld by dp-accounting (--backend): one pessimistic "
                     "value at value_discretization_interval 1e-4, no bracket.") + run_note(run),
                  formula=_FORMULAS, meta={"accountants": names, "not_applicable": skipped,
                                           "pld_backend": acc["backend"],
                                           "orders": "default (dp-accounting grid)" if a.orders is None
                                           else list(a.orders), **run_meta(run)}), run, a.max_examples_per_user)


@command("calibrate", axis("eps"), axis("q", default=None), axis("steps", default=None), axis("delta"), ACCOUNTANT,
         ORDERS, real("rtol", default_from="dpcalc.accounting.calibrate:sigma_for_eps",
                      help="Relative tolerance on the noise multiplier (default 1e-9; pld 1e-3)"), BACKEND,
         EVENT, NEIGHBOURS, SOLVE_FOR, axis("sigma", short="-z", default=None, formula="accountant.eps_rdp"),
         *TRAINING, formula="calibrate.sigma_rdp")
def calibrate_command(a: Args) -> Result:
    """Smallest noise multiplier z with ε <= target under each accountant (safe side, tolerance stated).

    Example: dpcalc calibrate --eps 2 --delta 1e-5 --q 0.01 --steps 1000   (rdp: σ = 1.02229)
    """
    from dpcalc.accounting import accountants, calibrate

    if a.event is not None:
        from dpcalc.cli.events import calibrate_event

        return calibrate_event(no_terms(a))
    if a.solve_for is not None or a.sampling == "shuffle" or given_terms(a):  # the knob table (achieved ε shown)
        from dpcalc.cli.training import calibrate_knob

        return calibrate_knob(a, _accountants)
    a, run = prepare(a)  # q and steps (the noise multiplier is the unknown here)
    names, acc = _accountants(a)
    points = _points(a, names, "eps", _SECONDS_CALIBRATE)
    rows: list[dict[str, Any]] = []
    with progress(len(points) * len(names), "calibrate") as advance:
        for e, qq, t, d in points:
            for n in names:
                z = calibrate.sigma_for_eps(e, d, qq, t, accountant=n, rtol=a.rtol, **acc["options"][n])
                rows.append({"eps": e, "q": qq, "steps": t, "delta": d, "accountant": n, "noise_multiplier": z,
                             "bound": accountants.get(n).bound})
                advance(1, n)
    columns = [column(_EPS, "eps", label="target ε (nats)"), *_setting()[1:],
               column(_RDP, "sigma", key="noise_multiplier", label="z (noise multiplier)"), _BOUND]
    tol = f"{a.rtol:g}" if a.rtol is not None else "1e-9 (pld: 1e-3, on its certified upper bound)"
    note = (f"Safe side: each z gives ε <= target under its accountant; relative tolerance on z {tol}. "
            "An 'estimate' accountant's z is not a guarantee.")
    return Result(columns=columns, rows=rows, title="Noise multiplier z for a target (ε, δ)", note=note + run_note(run),
                  formula=_FORMULAS, meta={"accountants": names, "rtol": tol, "pld_backend": acc["backend"],
                                           **run_meta(run)})


ENTRIES = (account_command, calibrate_command)
