"""``dpcalc account`` (ε under every accountant, side by side) and ``dpcalc calibrate`` (σ for a target ε).

Library: :mod:`dpcalc.accounting.accountants`, :mod:`dpcalc.accounting.calibrate`
(RDP, zCDP, analytic Gaussian, GDP-CLT, PLD).
"""

from __future__ import annotations

import itertools
from typing import Annotated, Any

import typer

from dpcalc.cli._common import ForceOpt, FormatOpt, JsonOpt, OutputOpt, capture_warnings, handle_errors, pick_format
from dpcalc.errors import DomainError
from dpcalc.report.grid import parse_values, parse_vector
from dpcalc.report.render import Column, Format, Result, emit

SigmaOpt = Annotated[str, typer.Option("--sigma", help="Noise multiplier σ = noise std / L2 sensitivity "
                                                         "(value, list a,b or range a:b:step).")]
QOpt = Annotated[str, typer.Option("--q", help="Poisson sampling rate q in (0, 1] (1 = every record each step).")]
StepsOpt = Annotated[str, typer.Option("--steps", help="Number of steps / rounds T (integer >= 1).")]
DeltaOpt = Annotated[str, typer.Option("--delta", help="Target δ in (0, 1).")]
AccountantOpt = Annotated[list[str] | None, typer.Option(
    "--accountant", "-a", help="Accountant(s) to use (repeatable): rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld. "
                               "Default: every one that applies.")]
OrdersOpt = Annotated[str | None, typer.Option("--orders", help="RDP order grid (comma list / ranges), default "
                                                                 "dp-accounting's 1.1..10.9, 11..63, 128..1024.")]

_BOUND_NOTE = ("bound: upper = guaranteed ε (RDP/zCDP/analytic/PLD); estimate = approximation that can be below the "
               "true ε (GDP-CLT). Poisson sampling, add/remove neighbours.")


def _accountant_list(requested: list[str] | None, q_values: list[float]) -> list[str]:
    from dpcalc.accounting import accountants

    if requested:
        names: list[str] = []
        for item in requested:
            names += [n.strip() for n in item.split(",") if n.strip()]
        for n in names:
            acc = accountants.get(n)
            for q in q_values:
                reason = acc.applicable(q)
                if reason is not None:
                    raise DomainError(reason)
        return names
    out = []
    for n in accountants.names():
        acc = accountants.get(n)
        if n == "pld" and not accountants.pld_available():
            continue
        if all(acc.applicable(q) is None for q in q_values):
            out.append(n)
    return out


def _orders(text: str | None) -> Any:
    return None if text is None else parse_vector("--orders", text)


def account_command(
    sigma: SigmaOpt,
    q: QOpt,
    steps: StepsOpt,
    delta: DeltaOpt = "1e-5",
    accountant: AccountantOpt = None,
    orders: OrdersOpt = None,
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """ε of T Poisson-subsampled Gaussian steps under every accountant, side by side (upper bound or estimate).

    Example: dpcalc account --sigma 1 --q 0.01 --steps 1000 --delta 1e-5   (rdp: ε = 2.10137 at order 7.8)
    """
    from dpcalc.accounting import accountants

    axes = {k: parse_values(f"--{k}", t) for k, t in
            (("sigma", sigma), ("q", q), ("steps", steps), ("delta", delta))}
    names = _accountant_list(accountant, axes["q"])
    grid_orders = _orders(orders)
    from dpcalc import _validate as v  # validate every value before the (possibly slow) accountants run

    v.positive("sigma", axes["sigma"])
    v.check_range("q", axes["q"], 0.0, 1.0, lo_open=True)
    v.integer_at_least("steps", axes["steps"], 1)
    v.probability("delta", axes["delta"])
    rows: list[dict[str, Any]] = []
    with capture_warnings() as warns:
        for s, qq, t, d in itertools.product(axes["sigma"], axes["q"], axes["steps"], axes["delta"]):
            for n in names:
                opts = {"orders": grid_orders} if n.startswith("rdp") else {}
                res = accountants.evaluate(n, s, qq, t, d, **opts)
                rows.append({"sigma": s, "q": qq, "steps": t, "delta": d, "accountant": n, "eps": res.eps,
                             "bound": res.bound, "order": res.extra.get("order") if n.startswith("rdp") else None,
                             "failure": res.failure})
    if rows and all(r["failure"] for r in rows):
        raise DomainError(str(rows[0]["failure"]))
    columns = [Column("sigma", "σ (noise multiplier)", r"$\sigma$"), Column("q", "q", "$q$"),
               Column("steps", "T", "$T$", integer=True), Column("delta", "δ", r"$\delta$"),
               Column("accountant", "accountant"), Column("eps", "ε", r"$\epsilon$"), Column("bound", "bound"),
               Column("order", "RDP order", r"$\alpha^*$")]
    if any(r["failure"] for r in rows):
        columns.append(Column("failure", "no ε because"))
    else:
        for r in rows:
            del r["failure"]
    skipped = [n for n in accountants.names() if n not in names]
    result = Result(columns=columns, rows=rows, title="Privacy loss ε of the Poisson-subsampled Gaussian",
                    note=_BOUND_NOTE, formula=["rdp.subsampled_gaussian", "rdp.eps_improved", "rdp.eps_lemma1"],
                    units={"eps": "nats", "sigma": "noise std / L2 sensitivity"}, warnings=warns,
                    meta={"accountants": names, "not_applicable": skipped,
                          "orders": "default (dp-accounting grid)" if orders is None else list(grid_orders)})
    emit(result, pick_format(fmt, json_), output, force)


def calibrate_command(
    eps: Annotated[str, typer.Option("--eps", help="Target ε (value, list or range).")],
    q: QOpt,
    steps: StepsOpt,
    delta: DeltaOpt = "1e-5",
    accountant: AccountantOpt = None,
    orders: OrdersOpt = None,
    rtol: Annotated[float | None, typer.Option("--rtol", help="Relative tolerance on σ (default 1e-9; pld 1e-4).")]
    = None,
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Smallest noise multiplier σ with ε <= target under each accountant (safe side, tolerance stated).

    Example: dpcalc calibrate --eps 2 --delta 1e-5 --q 0.01 --steps 1000   (rdp: σ = 1.02229)
    """
    from dpcalc.accounting import accountants, calibrate

    axes = {k: parse_values(f"--{k}", t) for k, t in (("eps", eps), ("q", q), ("steps", steps), ("delta", delta))}
    names = _accountant_list(accountant, axes["q"])
    grid_orders = _orders(orders)
    rows: list[dict[str, Any]] = []
    with capture_warnings() as warns:
        for e, qq, t, d in itertools.product(axes["eps"], axes["q"], axes["steps"], axes["delta"]):
            for n in names:
                opts: dict[str, Any] = {"orders": grid_orders} if n.startswith("rdp") else {}
                if n == "pld":
                    opts["value_discretization_interval"] = 1e-3
                sigma = calibrate.sigma_for_eps(e, d, qq, t, accountant=n, rtol=rtol, **opts)
                rows.append({"eps": e, "q": qq, "steps": t, "delta": d, "accountant": n, "sigma": sigma,
                             "bound": accountants.get(n).bound})
    columns = [Column("eps", "target ε", r"$\epsilon$"), Column("q", "q", "$q$"),
               Column("steps", "T", "$T$", integer=True), Column("delta", "δ", r"$\delta$"),
               Column("accountant", "accountant"), Column("sigma", "σ (noise multiplier)", r"$\sigma$"),
               Column("bound", "bound")]
    tol = f"{rtol:g}" if rtol is not None else "1e-9 (pld: 1e-4, at value_discretization_interval 1e-3)"
    note = (f"Safe side: each σ gives ε <= target under its accountant; relative tolerance on σ {tol}. "
            "An 'estimate' accountant's σ is not a guarantee.")
    result = Result(columns=columns, rows=rows, title="Noise multiplier σ for a target (ε, δ)", note=note,
                    formula=["rdp.subsampled_gaussian", "rdp.eps_improved"],
                    units={"eps": "nats", "sigma": "noise std / L2 sensitivity"}, warnings=warns,
                    meta={"accountants": names, "rtol": tol})
    emit(result, pick_format(fmt, json_), output, force)


def register(app: typer.Typer) -> None:
    """Attach ``account`` and ``calibrate`` to the root app."""
    app.command("account")(handle_errors(account_command))
    app.command("calibrate")(handle_errors(calibrate_command))
