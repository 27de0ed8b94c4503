"""``dpcalc account --event FILE`` and ``dpcalc calibrate --event FILE --solve-for PATH``: any event (a JSON or TOML
file in dp-accounting's ``to_named_tuple()`` form or the short spelling) under a chosen neighbouring relation.

Library: `dpcalc.accounting.events.account.account`, `dpcalc.accounting.events.solve_for.calibrate`.
The options are declared in `dpcalc.cli.account` (``--event``, ``--neighbours``, ``--solve-for``); the bodies
there hand over to these functions when ``--event`` is given.
"""

from __future__ import annotations

from typing import Any

from dpcalc.cli.command import Args
from dpcalc.errors import DomainError
from dpcalc.report.result import Column, Result

__all__ = ["EVENT_ACCOUNTANTS", "account_event", "calibrate_event"]

#: the accountants an event can go to, in display order
EVENT_ACCOUNTANTS = ("rdp", "pld", "exact")

_NOTE = ("bound: upper = guaranteed ε (RDP); bracket = dpcalc's PLD, certified ε lower ≤ true ε ≤ ε upper, "
         "ε = ε upper; exact = the true ε (μ-GDP, finite sums). Sensitivity convention: outputs of neighbours "
         "differ by one sensitivity under add-remove and replace-special, by two under replace-one.")


def _columns(with_bracket: bool, failures: bool) -> list[Column]:
    cols = [Column("event", "event", text=True), Column("relation", "neighbours", text=True),
            Column("sampling", "sampling", text=True), Column("delta", "δ"),
            Column("accountant", "accountant", text=True), Column("eps", "ε (nats)", r"$\epsilon$"),
            Column("bound", "bound", text=True)]
    if with_bracket:
        cols += [Column("eps_lower", "ε lower (pld)", r"$\epsilon_{lo}$"),
                 Column("eps_upper", "ε upper (pld)", r"$\epsilon_{up}$")]
    cols.append(Column("order", "Rényi order α*", r"$\alpha^*$"))
    if failures:
        cols.append(Column("failure", "no ε because", text=True))
    return cols


def _chosen(a: Args) -> tuple[list[str], bool]:
    """The accountants asked for (explicit: their failures are errors) or every event accountant."""
    requested = [n.strip() for item in a.accountant or [] for n in item.split(",") if n.strip()]
    for n in requested:
        if n not in EVENT_ACCOUNTANTS:
            raise DomainError(f"--accountant for an event must be one of {', '.join(EVENT_ACCOUNTANTS)} (got {n!r})")
    return (requested, True) if requested else (list(EVENT_ACCOUNTANTS), False)


def _row(res: Any) -> dict[str, Any]:
    return {"event": res.event, "relation": res.relation.replace("_", "-"), "sampling": res.sampling,
            "delta": res.delta, "accountant": res.accountant, "eps": res.eps, "bound": res.bound,
            "eps_lower": res.eps_lower, "eps_upper": res.eps_upper, "order": res.extra.get("order"), "failure": None}


def account_event(a: Args) -> Result:
    """ε of the event in ``--event`` at each δ under each accountant that applies (or those asked for)."""
    from dpcalc.accounting.events import load
    from dpcalc.accounting.events.account import account
    from dpcalc.accounting.events.describe import describe, sampling_of
    from dpcalc.accounting.events.relation import relation

    event = load(a.event)
    rel = relation(a.neighbours)
    names, explicit = _chosen(a)
    rows: list[dict[str, Any]] = []
    spent: list[float] = []
    notes: list[str] = []  # the accountants' own notes (e.g. why ε is infinite), each once
    for d in a.delta:
        for n in names:
            try:
                res = account(event, delta=d, accountant=n, neighbours=rel, orders=a.orders)
                rows.append(_row(res))
                if "note" in res.extra and res.extra["note"] not in notes:
                    notes.append(res.extra["note"])
                if "delta_spent_on_cut_draw_counts" in res.extra:
                    spent.append(res.extra["delta_spent_on_cut_draw_counts"] / d)
            except DomainError as exc:
                if explicit:
                    raise
                rows.append({"event": describe(event), "relation": rel.replace("_", "-"),
                             "sampling": sampling_of(event), "delta": d, "accountant": n, "eps": None,
                             "bound": "", "failure": str(exc)})
    if all(r["failure"] for r in rows):
        raise DomainError(str(rows[0]["failure"]))
    rows = [r for r in rows if not r["failure"]] if not explicit else rows
    columns = _columns(any(r.get("eps_lower") is not None for r in rows), False)
    kept = {c.key for c in columns}
    skipped = sorted({n for n in names} - {r["accountant"] for r in rows})
    return Result(columns=columns, rows=[{k: x for k, x in r.items() if k in kept} for r in rows],
                  title="Privacy loss ε of an event",
                  note=_NOTE + (f" rdp, sampling with replacement: draw counts of total probability up to "
                                f"{max(spent):.2g}·δ are left out of the RDP curve and charged to δ." if spent else "")
                  + "".join(f" {n[0].upper()}{n[1:]}." for n in notes),
                  meta={"accountants": [n for n in names if n not in skipped], "not_applicable": skipped,
                        "neighbours": rel})


def calibrate_event(a: Args) -> Result:
    """The value of the field ``--solve-for`` for each target (ε, δ), on the safe side, under each accountant."""
    from dpcalc.accounting.events import load
    from dpcalc.accounting.events.relation import relation
    from dpcalc.accounting.events.solve_for import calibrate

    if not a.solve_for:
        raise DomainError("--solve-for is needed with --event: the field path to calibrate, e.g. "
                          "event.event.noise_multiplier or count")
    event = load(a.event)
    rel = relation(a.neighbours)
    names, explicit = _chosen(a)
    if not explicit:
        names = ["rdp"]
    rows: list[dict[str, Any]] = []
    for e in a.eps:
        for d in a.delta:
            for n in names:
                c = calibrate(event, a.solve_for, eps=e, delta=d, accountant=n, neighbours=rel, rtol=a.rtol)
                rows.append({"target": e, **_row(c.result), "field": c.field, "value": c.value})
    achieved = Column("eps", "achieved ε (nats)", r"$\epsilon$")
    columns = [Column("field", "field", text=True), Column("value", "value"), Column("target", "target ε (nats)"),
               *(achieved if c.key == "eps" else c
                 for c in _columns(any(r.get("eps_lower") is not None for r in rows), False) if c.key != "order")]
    kept = {c.key for c in columns}
    return Result(columns=columns, rows=[{k: x for k, x in r.items() if k in kept} for r in rows],
                  title=f"{a.solve_for} for a target (ε, δ)",
                  note="Safe side: the value's ε (pld: its certified ε upper) is <= the target; an integer is the "
                  "last one that meets it. " + _NOTE,
                  meta={"accountants": names, "neighbours": rel})
