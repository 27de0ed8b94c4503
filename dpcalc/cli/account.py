"""``dpcalc account`` (ε under every accountant, side by side) and ``dpcalc calibrate`` (any knob for a target ε): one
body each over `dpcalc.api`; a row of ``--json`` is the library result's ``to_dict()``.

The run is a training run (its terms, or ``--q --steps``; ``--noise-multiplier``, ``--q``, ``--steps`` and ``--delta``
may sweep) or any event (``--event FILE``). Every accountant that applies answers; those that do not, or fail, are
listed with their reason in the note and in ``meta``. The headline is the smallest guaranteed ε (`dpcalc.accounting.
account`).
"""

from __future__ import annotations

import itertools
from typing import Any

from dpcalc._progress import progress
from dpcalc._rounding import format_number
from dpcalc.cli.accounting import (
    ACCOUNTANT,
    ATOL,
    BACKEND,
    CLIENT_TERMS,
    EVENT,
    EXAMPLE_TERMS,
    NEIGHBOURS,
    ORDERS,
    RTOL,
    SOLVE_FOR,
    TRAINING,
    USER,
    accountants_of,
    options_of,
    orders_of,
    runs,
    user_k,
)
from dpcalc.cli.command import Args, command
from dpcalc.cli.options import axis, real
from dpcalc.cli.risk import AT_FPR, MAX_ADVANTAGE, MAX_TPR, ORIENTATION
from dpcalc.errors import DomainError, DpcalcError
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES", "columns_of"]

#: rough seconds per point and accountant (ε; calibration: its ~20 ε evaluations), measured at T = 1000 on one core
#: (bench/bench_accounting_kernels.py); used to refuse a grid before computing it
_SECONDS_EPS = {"rdp": 0.006, "rdp-lemma1": 0.006, "zcdp": 0.002, "analytic": 0.003, "gdp-clt": 0.002, "pld": 0.02,
                "exact": 0.01}
_SECONDS_CALIBRATE = {"rdp": 0.12, "rdp-lemma1": 0.12, "zcdp": 0.04, "analytic": 0.03, "gdp-clt": 0.03, "pld": 0.15,
                      "exact": 0.2}
_FORMULAS = ["rdp.subsampled_gaussian", "rdp.eps_improved", "rdp.eps_lemma1", "zcdp.gaussian_rho",
             "zcdp.eps_from_rho", "gaussian.eps_analytic", "gdp.clt_mu", "gdp.eps_from_mu"]

#: how each field of a result row is shown: label, LaTeX, unit, text (left-aligned), integer
_SHOWN: dict[str, tuple[str, str, str, bool, bool]] = {
    "noise_multiplier": ("z (noise multiplier)", "$z$", "noise multiplier", False, False),
    "dataset_size": ("N (dataset size)", "$N$", "examples", False, True),
    "batch_size": ("b (batch size)", "$b$", "examples", False, True),
    "epochs": ("E (epochs)", "$E$", "epochs", False, False),
    "clients": ("N (clients)", "$N$", "clients", False, True),
    "clients_per_round": ("m (clients per round)", "$m$", "clients", False, True),
    "rounds": ("R (rounds)", "$R$", "rounds", False, True),
    "q": ("q", "$q$", "probability", False, False),
    "steps": ("T (steps)", "$T$", "steps", False, True),
    "event": ("event", "", "", True, False),
    "relation": ("neighbours", "", "", True, False),
    "sampling": ("sampling", "", "", True, False),
    "level": ("level", "", "", True, False),
    "k": ("k", "$k$", "examples", False, True),
    "method": ("method", "", "", True, False),
    "accountant": ("accountant", "", "", True, False),
    "target": ("target ε", r"$\varepsilon$", "nats", False, False),
    "delta": ("δ", r"$\delta$", "probability", False, False),
    "value": ("value", "", "", False, False),
    "eps": ("ε (nats)", r"$\varepsilon$", "nats", False, False),
    "eps_lower": ("ε lower", r"$\varepsilon_{\mathrm{lo}}$", "nats", False, False),
    "eps_upper": ("ε upper", r"$\varepsilon_{\mathrm{up}}$", "nats", False, False),
    "next_value": ("one step past", "", "", False, False),
    "next_eps": ("ε there", r"$\varepsilon$", "nats", False, False),
    "kind": ("kind", "", "", True, False),
    "order": ("Rényi order α*", r"$\alpha^*$", "", False, False),
}
#: bounds shown on their safe side: an upper bound rounded up, a lower bound down (JSON and CSV keep every digit)
_ROUNDED = {"eps": ".6g↑", "eps_lower": ".6g↓", "eps_upper": ".6g↑", "next_eps": ".6g↑"}
#: the run's fields a table shows (constant ones in its header): its terms, q and T, the relation and the sampling
_RUN_SHOWN = ("noise_multiplier", *EXAMPLE_TERMS, *CLIENT_TERMS, "q", "steps", "relation", "sampling", "level")
_KINDS_NOTE = ("kind: exact = the true ε; bracket = certified ε lower ≤ true ε ≤ ε upper (PLD), ε = ε upper; upper = "
               "guaranteed ε (RDP, zCDP); estimate = an approximation that can be below the true ε (GDP-CLT).")


def columns_of(rows: list[dict[str, Any]], shown: tuple[str, ...], labels: dict[str, str] | None = None,
               numbers: dict[str, str] | None = None) -> list[Column]:
    """Every key of the rows, in order (the JSON row), shown in tables when in ``shown`` and not empty throughout;
    the rest JSON/CSV only."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    out = []
    for k in keys:
        label, latex, unit, is_text, integer = _SHOWN.get(k, (k.replace("_", " "), "", "", False, False))
        empty = all(r.get(k) is None for r in rows)
        is_text = is_text or any(isinstance(r.get(k), str) for r in rows)
        out.append(Column(k, (labels or {}).get(k, label), latex, integer, is_text, number=(numbers or {}).get(
            k, _ROUNDED.get(k, "")), unit=unit, detail=k not in shown or empty))
    return out


def _check_work(what: str, points: int, names: list[str], costs: dict[str, float]) -> None:
    """The shared work cap (`dpcalc._limits.check_seconds`) at the accountants' measured cost a point."""
    from dpcalc import _limits

    each = sum(costs.get(n, 0.02) for n in names)
    _limits.check_seconds(f"{what} give {points:,} grid points × {len(names)} accountant(s) ({', '.join(names)}), "
                          "which", points * each, f"~{each * 1e3:.3g} ms a point")


def _refusals(found: dict[str, dict[str, str]]) -> str:
    """' Not applicable: zcdp (…); exact (…). Failed: …' — each accountant once."""
    parts = []
    for title, refused in (("Not applicable", found["not_applicable"]), ("No answer", found["failed"])):
        if refused:
            parts.append(f" {title}: " + "; ".join(f"{n} — {why.removeprefix(n + ' ').removeprefix(n + ': ')}"
                                                   for n, why in refused.items()) + ".")
    return "".join(parts)


def _run_note(event: Any) -> str:
    """One sentence on the training run and the q and T derived from it ('' for an event)."""
    from dpcalc.accounting.events import TrainingRun

    if not isinstance(event, TrainingRun):
        return ""
    t = event.terms
    if event.mechanism == "dp-ftrl":
        return (f" Training run: DP-FTRL-TreeRestart (Kairouz et al. 2021) on {t['dataset_size']:,} examples, batch "
                f"{t['batch_size']:,}: {event.epoch_count} epoch{'s' if event.epoch_count != 1 else ''} of ⌊N/b⌋ = "
                f"{event.steps_per_epoch:,} steps in order, each example once per epoch, a tree over each epoch: "
                f"T = {event.step_count:,}; zero-out neighbours (replace-special: one example's gradient replaced by "
                "zero).")
    if event.unit == "client":
        run = (f"{t['clients']:,} clients, {t['clients_per_round']:,} per round: q = m/N = {event.rate:.6g}; "
               f"{t['rounds']:,} rounds: T = {event.step_count:,}; unit of privacy: one client (all of its data)")
    elif "dataset_size" in t and event.sampling in ("shuffle", "balls-in-bins"):
        e = event.epoch_count
        run = (f"{t['dataset_size']:,} examples, batch {t['batch_size']:,}: {e} epoch{'s' if e != 1 else ''} of "
               f"⌊N/b⌋ = {event.steps_per_epoch:,} steps: T = {event.step_count:,}")
    elif "dataset_size" in t:
        length = (f"{t['epochs']:g} epochs: T = ⌈E·N/b⌉ = {event.step_count:,}" if "epochs" in t else
                  f"T = {event.step_count:,} steps ({event.epochs_run:.6g} epochs)")
        run = f"{t['dataset_size']:,} examples, batch {t['batch_size']:,}: q = b/N = {event.rate:.6g}; {length}"
    else:
        run = f"q = {event.rate:g}, T = {event.step_count:,}"
    how = {"poisson": "Poisson sampling, add/remove neighbours",
           "fixed": "fixed-size batches drawn without replacement each step, replace-one neighbours: a replaced "
                    "example moves the clipped sum by up to twice the clipping norm",
           "shuffle": "shuffled once per epoch and cut into batches (the N mod b left over unused), add/remove "
                      "neighbours",
           "balls-in-bins": "each example in one uniformly random step of each epoch (random allocation), add/remove "
                            "neighbours"}[event.sampling]
    return f" Training run: {run}; {how}."


def _poisson_beside(event: Any, delta: float, options: Any) -> tuple[str, dict[str, Any]] | None:
    """For a training run on another sampler: the sentence and the JSON of the same run's Poisson ε (the number
    most tools print), headline accountant; None otherwise."""
    import dataclasses

    from dpcalc.accounting.account import headline_epsilon
    from dpcalc.accounting.events import TrainingRun

    if not isinstance(event, TrainingRun) or event.sampling == "poisson":
        return None
    same = dataclasses.replace(event, sampling="poisson")
    try:
        r = headline_epsilon(same, delta=delta, relation="add_remove", options=options)
    except DpcalcError:
        return None
    return (f" For comparison, Poisson sampling at q = b/N = {same.rate:.6g} for T = {same.step_count:,} steps: "
            f"ε = {r.value:.6g} ({r.kind}, {r.accountant}) — the number most tools print, not a guarantee for the "
            f"{event.sampling} sampler.", r.to_dict())


def _training_meta(event: Any) -> dict[str, Any]:
    """The run for a result's JSON meta ({} for an event)."""
    from dpcalc.accounting.events import TrainingRun

    if not isinstance(event, TrainingRun):
        return {}
    terms = {n: x for n, x in event.terms.items() if n != "noise_multiplier"}
    return {"training": {**terms, "q": event.rate, "steps": event.step_count, "sampling": event.sampling,
                         "unit": event.unit}}


_USER_NOTE = (" User level (level = user, k examples per user; add or remove all of them): vadhan = group privacy of "
              "the accountant's (ε, δ) (Vadhan 2017, Lemma 2.2); rdp-group = group privacy of RDP (Mironov 2017, Prop. "
              "2); mixture = the mixture-of-Gaussians PLD (Ganesh et al. 2024).")


@command("account", axis("sigma", short="-z", default=None), axis("q", default=None), axis("steps", default=None),
         axis("delta"), ACCOUNTANT, ORDERS, BACKEND, RTOL, ATOL, EVENT, NEIGHBOURS, *TRAINING, USER,
         formula="accountant.eps_rdp")
def account_command(a: Args) -> Result:
    """ε of a training run (or any event) under every accountant, side by side: exact, certified bracket, upper
    bound or estimate, each labelled; the headline is the smallest guaranteed ε.

    Example: dpcalc account --dataset-size 60000 --batch-size 256 --epochs 60 -z 1.1 --delta 1e-5
    """
    from dpcalc.accounting.account import account
    from dpcalc.accounting.group import user_bounds

    names = accountants_of(a)
    options = options_of(a)
    points = runs(a)
    deltas = list(a.delta)
    for d in deltas:
        if not 0.0 <= d < 1.0:
            raise DomainError(f"--delta must be a probability in [0, 1) (got {d:g})")
    _check_work("--noise-multiplier × --q × --steps × --delta", len(points) * len(deltas), names or ["rdp", "pld"],
                _SECONDS_EPS)
    k = user_k(a, points[0][0].unit if hasattr(points[0][0], "unit") else "example")
    rows: list[dict[str, Any]] = []
    refused: dict[str, dict[str, str]] = {"not_applicable": {}, "failed": {}}
    headlines: list[dict[str, Any]] = []
    with progress(len(points) * len(deltas), "account") as advance:
        for (event, rel, _), d in itertools.product(points, deltas):
            found = account(event, delta=d, relation=rel, accountants=names, options=options, explicit=bool(names))
            rows += [r.to_dict() for r in found.results]
            for key in refused:
                for n, why in getattr(found, key).items():
                    refused[key].setdefault(n, why)
            head = found.headline
            if head is not None:
                headlines.append({"accountant": head.accountant, "eps": head.value, "delta": d, **head.inputs})
            if k is not None:
                for b in user_bounds(event, d, k, [r.accountant for r in found.results], options):
                    if b.result is not None:
                        rows.append(b.result.to_dict())
                    else:
                        refused["failed"].setdefault(f"{b.accountant} ({b.method}, user level)", str(b.reason))
            advance(1, "point")
    if not rows:
        reasons = {**refused["failed"], **refused["not_applicable"]}
        raise DomainError(next(iter(reasons.values())) if reasons else "no accountant answers")
    event0 = points[0][0]
    is_event = a.event is not None
    poisson = _poisson_beside(event0, deltas[0], options) if len(points) == 1 and len(deltas) == 1 else None
    shown = (("event", "relation", "sampling", "level") if is_event else _RUN_SHOWN) + \
        (("k", "method") if k is not None else ()) + ("delta", "accountant", "eps", "eps_lower", "eps_upper",
                                                               "kind", "order")
    notes = list(dict.fromkeys(n for r in rows for n in r.get("notes", [])))
    head_note = ""
    if len(headlines) == 1:
        h = headlines[0]
        head_note = (f" Headline (the smallest guaranteed ε): {h['accountant']}, ε = "
                     f"{format_number(h['eps'], '.6g↑')}.")
    note = (_KINDS_NOTE + head_note + _run_note(event0) + (poisson[0] if poisson else "")
            + (_USER_NOTE if k is not None else "")
            + "".join(f" {n[0].upper()}{n[1:]}." for n in notes) + _refusals(refused))
    title = "Privacy loss ε of an event" if is_event else "Privacy loss ε of a training run"
    return Result(columns=columns_of(rows, shown), rows=rows, title=title, note=note, formula=_FORMULAS,
                  meta={"accountants": sorted({r["accountant"] for r in rows}), **refused, "headline": headlines,
                        **_training_meta(event0), **({"poisson": poisson[1]} if poisson else {}),
                        "options": {"rtol": options.rtol, "atol": options.atol, "backend": options.backend,
                                    "orders": "default (dp-accounting grid)" if options.orders is None else
                                    [str(x) if x == float("inf") else x for x in orders_of(a) or []]}})


def _risk_target(a: Args, field: str) -> Result:
    """``calibrate --max-tpr --at-fpr`` / ``--max-advantage``: the risk calibration of ``dpcalc risk calibrate``."""
    from dpcalc.cli.risk import budgeted, risk_calibration

    if a.eps is not None:
        raise DomainError("--eps and an attack-risk target (--max-tpr, --max-advantage) are two targets: give one")
    if a.event is not None:
        raise DomainError("--event: an attack-risk target is calibrated for a DP-SGD training run (its terms)")
    for name in ("delta", "sigma", "q", "steps"):
        if a[name] is not None and len(a[name]) != 1:
            raise DomainError(f"{a.option(name)} takes one value with an attack-risk target (got {len(a[name])})")
    delta = None if a.delta is None else float(a.delta[0])
    return budgeted("calibrate to a risk target (one certified PLD per step of the search)",
                    lambda args: risk_calibration(args, field, delta), a)


_KNOB_NAMES = {"noise-multiplier": "noise_multiplier", "sampling-rate": "q", "batch-size": "batch_size",
               "clients-per-round": "clients_per_round"}


def _knob(a: Args) -> str:
    """The field solved for (a training knob by its option name, or an event's field path)."""
    knob = (a.solve_for or "noise-multiplier").strip()
    if a.event is not None:
        from dpcalc.cli.accounting import no_terms

        no_terms(a)
        if a.solve_for is None:
            raise DomainError("--solve-for is needed with --event: the field path to calibrate, e.g. "
                              "event.event.noise_multiplier or count")
        return knob
    field = _KNOB_NAMES.get(knob, knob.replace("-", "_"))
    allowed = ("noise_multiplier", "steps", "epochs", "batch_size", "q", "clients_per_round", "rounds")
    if field not in allowed:
        raise DomainError(f"--solve-for must be one of noise-multiplier, steps, epochs, batch-size, sampling-rate, "
                          f"clients-per-round, rounds (got {knob!r}; a field path needs --event)")
    option = {"noise_multiplier": "sigma"}.get(field, field)
    if a.parsed().get(option) is not None:
        flag = "--noise-multiplier" if field == "noise_multiplier" else "--" + knob.replace("_", "-")
        raise DomainError(f"--solve-for {knob}: {flag} is the unknown; drop it")
    if field == "q" and a.dataset_size is not None:
        raise DomainError("--solve-for sampling-rate takes --steps (or --rounds), not --dataset-size --batch-size: "
                          "solve for --batch-size instead")
    return field


@command("calibrate", axis("eps", default=None), axis("q", default=None), axis("steps", default=None),
         axis("delta", default=None), MAX_TPR, AT_FPR, MAX_ADVANTAGE, ORIENTATION, ACCOUNTANT,
         ORDERS, real("rtol", formula="-", default=None, help="Relative tolerance on the knob (default 1e-9; under "
                                                               "pld 1e-3, on its certified upper end)"),
         BACKEND, EVENT, NEIGHBOURS, SOLVE_FOR, axis("sigma", short="-z", default=None, formula="accountant.eps_rdp"),
         *TRAINING, USER, formula="calibrate.sigma_rdp")
def calibrate_command(a: Args) -> Result:
    """Any knob of a training run (or any field of an event) for a target (ε, δ), under each accountant that applies:
    safe (its ε ≤ the target) and tight (one step past it does not meet it); or the noise multiplier, steps or
    epochs for an attack-risk target (--max-tpr --at-fpr, or --max-advantage: the run's certified trade-off curve).

    Example: dpcalc calibrate --eps 3 --delta 1e-5 --dataset-size 60000 --batch-size 256 --epochs 60
    """
    from dpcalc.accounting import accountants as registry
    from dpcalc.accounting.calibrate import calibrate, owner_of, probe

    field = _knob(a)
    risk = a.max_tpr is not None or a.max_advantage is not None or a.at_fpr is not None
    if risk:
        return _risk_target(a, field)
    if a.eps is None or a.delta is None:
        raise DomainError("give the target: --eps and --delta, or an attack-risk target (--max-tpr --at-fpr, or "
                          "--max-advantage)")
    names = accountants_of(a)
    options = options_of(a)
    points = runs(a, unknown=field)
    _check_work("--eps × --delta × the run's options", len(points) * len(a.eps) * len(a.delta),
                names or ["rdp", "pld"], _SECONDS_CALIBRATE)
    k = user_k(a)
    rows: list[dict[str, Any]] = []
    refused: dict[str, dict[str, str]] = {"not_applicable": {}, "failed": {}}
    targets = list(itertools.product(a.eps, a.delta))
    answered: list[Any] = []  # the events at the answers
    with progress(len(points) * len(targets), "calibrate") as advance:
        for (event, rel, _), (e, d) in itertools.product(points, targets):
            first = probe(event, field)
            chosen = names or [n for n in registry.names()]
            for n in chosen:
                acc = registry.get(n)
                why = acc.applies(first, rel)
                if why is not None:
                    if names:
                        raise DomainError(why)
                    if not acc.quiet:  # a specialised accountant is not listed where it does not apply
                        refused["not_applicable"].setdefault(n, why)
                    continue
                try:
                    found = [calibrate(event, field, eps=e, delta=d, accountant=acc, relation=rel, options=options,
                                       rtol=a.rtol)]
                    if k is not None:
                        found += _user_calibrations(event, field, e, d, rel, n, k, options, a.rtol)
                except DpcalcError as exc:
                    refused["failed"].setdefault(n, str(exc))
                    continue
                rows += [c.to_dict() for c in found]
                answered += [c.event for c in found]
            advance(1, "point")
    if not rows:
        reasons = {**refused["failed"], **refused["not_applicable"]}
        raise DomainError(next(iter(reasons.values())) if reasons else "no accountant answers")
    label = "value" if a.event is not None else (a.solve_for or "noise-multiplier")
    solved = _KNOB_NAMES.get(label, label)  # the answer's column: not repeated among the run's fields
    shown = (*(n for n in _RUN_SHOWN if n != solved), "target", "delta", "accountant",
             *(("k", "method") if k is not None else ()), "value", "eps", "next_value", "next_eps", "kind")
    integer = any(isinstance(r.get("value"), int) for r in rows)
    # the answer on its safe side: more noise (rounded up), fewer steps or a smaller rate (rounded down)
    owner, name = owner_of(probe(points[0][0], field), field)
    safe = ".6g↓" if owner.knob(name).eps_increases else ".6g↑"
    cols = columns_of(rows, shown, {"value": label, "eps": "ε at it"}, {"value": safe})
    cols = [c._replace(integer=integer) if c.key in ("value", "next_value") else c for c in cols]
    notes = list(dict.fromkeys(n for r in rows for n in r.get("notes", [])))
    note = (f"Safe side: ε at the value ≤ the target under its accountant; tight: one step past it (the next integer, "
            f"or the value moved by rtol) does not meet it ('—' where the knob's end meets it). {_KINDS_NOTE}"
            + _run_note(answered[0] if answered else probe(points[0][0], field)) + (_USER_NOTE if k is not None else "")
            + "".join(f" {n[0].upper()}{n[1:]}." for n in notes) + _refusals(refused))
    return Result(columns=cols, rows=rows, title=f"{label} for a target (ε, δ)", note=note,
                  formula=["calibrate.sigma_rdp", *_FORMULAS],
                  meta={"solve_for": field, "accountants": sorted({r["accountant"] for r in rows}), **refused,
                        "sampling": getattr(points[0][0], "sampling", None)})


def _user_calibrations(event: Any, field: str, eps: float, delta: float, rel: str, name: str, k: int, options: Any,
                       rtol: float | None) -> list[Any]:
    """The user-level calibrations of one accountant (``--max-examples-per-user``): each bound it gives."""
    from dpcalc.accounting.calibrate import calibrate
    from dpcalc.accounting.group import UserLevel, methods_for

    out = []
    for method in methods_for(name, getattr(event, "sampling", "poisson")):
        try:
            out.append(calibrate(event, field, eps=eps, delta=delta, accountant=UserLevel(name, method, k),
                                 relation=rel, options=options, rtol=rtol))  # type: ignore[arg-type]
        except DpcalcError:
            continue
    return out


ENTRIES = (account_command, calibrate_command)
