"""``dpcalc sigma`` and ``dpcalc midp leakage|utility|personalized|clip`` (seed 000, ε-MI-DP)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from dpcalc import midp
from dpcalc.cli._common import (
    ForceOpt,
    FormatOpt,
    JsonOpt,
    OutputOpt,
    UnitsOpt,
    capture_warnings,
    check_units,
    handle_errors,
    pick_format,
)
from dpcalc.errors import DomainError
from dpcalc.report.grid import flatten, grid, parse_values, parse_vector
from dpcalc.report.render import Column, Format, Result, emit

midp_app = typer.Typer(help="ε-MI-DP in federated learning (He & He, IEEE Access 2023; seed 000).",
                       no_args_is_help=True)


class Side(str, Enum):
    server = "server"
    client = "client"
    both = "both"


_SIDE_LABEL = {"server": "server side", "client": "client side", "both": "server and client side"}

SideOpt = Annotated[Side, typer.Option("--side", help="Where the Gaussian noise is added.")]
NOpt = Annotated[str | None, typer.Option("--N", help="Number of clients (equal weights 1/N). Default 1, or "
                                                       "the length of --weights.")]
COpt = Annotated[str, typer.Option("--C", help="Clipping bound C on ‖w_i‖ (parameter units).")]
DOpt = Annotated[str, typer.Option("--d", help="Model dimension d (an integer >= 1).")]
WeightsOpt = Annotated[str | None, typer.Option("--weights", help="Aggregation weights p_i: a comma list "
                                                                  "or a file of numbers; must sum to 1.")]

_GUARANTEE = ("Guarantee: client-level ε-MI-DP, sup I(w_i; w̄ | w^(-i)) <= ε {units}, for any data with "
              "‖w_i‖ <= C, via the Gaussian max-entropy upper bound (He & He 2023, eqs. 1.40/2.47): the σ is "
              "sufficient, not proven minimal. Per round, no composition across rounds.")


def _weights_axes(weights: str | None, n_text: str | None) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Return the N axis (or fixed weight statistics) for the grid."""
    if weights is None:
        return {"N": parse_values("--N", n_text if n_text is not None else "1")}, {}
    p_max, sum_p2 = midp.weight_stats(parse_vector("--weights", weights))
    n_weights = len(parse_vector("--weights", weights))
    if n_text is not None and parse_values("--N", n_text) != [float(n_weights)]:
        raise DomainError(f"--N must equal the number of --weights ({n_weights}) when both are given")
    return {"N": [float(n_weights)]}, {"p_max": p_max, "sum_p2": sum_p2}


def _stats(axes: dict[str, np.ndarray], fixed: dict[str, Any]) -> tuple[Any, Any]:
    if fixed:
        return fixed["p_max"], fixed["sum_p2"]
    n = midp.v.integer_at_least("N", axes["N"], 1)
    return 1.0 / n, 1.0 / n


def _input_columns(units: str) -> list[Column]:
    return [Column("eps", f"ε ({units})", r"$\epsilon$ (" + units + ")"), Column("d", "d", "$d$", integer=True),
            Column("N", "N", "$N$", integer=True), Column("C", "C", "$C$")]


def sigma_command(
    eps: Annotated[str, typer.Option("--eps", help="Privacy level ε (value, list a,b or range a:b:step).")],
    d: DOpt,
    side: SideOpt = Side.server,
    n_clients: NOpt = None,
    C: COpt = "1",
    weights: WeightsOpt = None,
    units: UnitsOpt = "nats",
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Minimum Gaussian noise std σ for client-level ε-MI-DP (eqs. 4.7-4.11).

    Example: dpcalc sigma --eps 5 --d 1000   (σ = 0.3154375268…, server side, N = 1, C = 1)
    """
    u = check_units(units)
    n_axis, fixed = _weights_axes(weights, n_clients)
    options = {"eps": parse_values("--eps", eps), "d": parse_values("--d", d), **n_axis,
               "C": parse_values("--C", C)}
    axes = grid(options)
    p_max, sum_p2 = _stats(axes, fixed)
    with capture_warnings() as warns:
        out: dict[str, Any] = {}
        if side in (Side.server, Side.both):
            out["sigma_server" if side is Side.both else "sigma"] = midp.server_sigma(
                axes["eps"], axes["d"], axes["C"], p_max, units=u)  # type: ignore[arg-type]
        if side in (Side.client, Side.both):
            out["sigma_client" if side is Side.both else "sigma"] = midp.client_sigma(
                axes["eps"], axes["d"], axes["C"], p_max, sum_p2, units=u)  # type: ignore[arg-type]
    labels = {"sigma": f"σ_{side.value[0]}", "sigma_server": "σ_s (server)", "sigma_client": "σ_c (client)"}
    latex = {"sigma": rf"$\sigma_{side.value[0]}$", "sigma_server": r"$\sigma_s$", "sigma_client": r"$\sigma_c$"}
    formulas = {"server": "midp.server_sigma", "client": "midp.client_sigma"}
    result = Result(
        columns=_input_columns(u) + [Column(k, labels[k], latex[k]) for k in out],
        rows=flatten(axes, out),
        title=f"Minimum Gaussian noise std for ε-MI-DP ({_SIDE_LABEL[side.value]})",
        note=_GUARANTEE.format(units=u),
        formula=formulas[side.value] if side is not Side.both else list(formulas.values()),
        units={"eps": u, "sigma": "parameter units (same as C)"},
        warnings=warns,
        meta={"side": side.value, "weights": "equal (1/N)" if not fixed else fixed},
    )
    emit(result, pick_format(fmt, json_), output, force)


@midp_app.command("leakage")
@handle_errors
def leakage_command(
    sigma: Annotated[str, typer.Option("--sigma", help="Noise std σ (parameter units).")],
    d: DOpt,
    side: SideOpt = Side.server,
    n_clients: NOpt = None,
    C: COpt = "1",
    weights: WeightsOpt = None,
    units: UnitsOpt = "nats",
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The ε-MI-DP level guaranteed by a given σ (bound 1.40 / 2.47 solved for ε).

    Example: dpcalc midp leakage --sigma 0.3154 --d 1000
    """
    u = check_units(units)
    n_axis, fixed = _weights_axes(weights, n_clients)
    options = {"sigma": parse_values("--sigma", sigma), "d": parse_values("--d", d), **n_axis,
               "C": parse_values("--C", C)}
    axes = grid(options)
    p_max, sum_p2 = _stats(axes, fixed)
    with capture_warnings() as warns:
        out: dict[str, Any] = {}
        if side in (Side.server, Side.both):
            out["eps_server" if side is Side.both else "eps"] = midp.server_leakage(
                axes["sigma"], axes["d"], axes["C"], p_max, units=u)  # type: ignore[arg-type]
        if side in (Side.client, Side.both):
            out["eps_client" if side is Side.both else "eps"] = midp.client_leakage(
                axes["sigma"], axes["d"], axes["C"], p_max, sum_p2, units=u)  # type: ignore[arg-type]
    result = Result(
        columns=[Column("sigma", "σ", r"$\sigma$"), Column("d", "d", "$d$", integer=True),
                 Column("N", "N", "$N$", integer=True), Column("C", "C", "$C$")]
        + [Column(k, f"{k} ({u})", rf"$\epsilon$ ({u})") for k in out],
        rows=flatten(axes, out),
        title=f"ε-MI-DP leakage bound of Gaussian noise ({_SIDE_LABEL[side.value]})",
        note=f"Upper bound on sup I(w_i; w̄ | w^(-i)) in {u} (He & He 2023, eqs. 1.40/2.47); the true leakage "
             "under ‖w_i‖ <= C is at most this.",
        formula=["midp.server_leakage", "midp.client_leakage"] if side is Side.both
        else f"midp.{side.value}_leakage",
        units={"eps": u, "sigma": "parameter units"},
        warnings=warns,
        meta={"side": side.value},
    )
    emit(result, pick_format(fmt, json_), output, force)


@midp_app.command("utility")
@handle_errors
def utility_command(
    eps: Annotated[str, typer.Option("--eps", help="Privacy level ε.")],
    d: DOpt,
    n_clients: NOpt = None,
    C: COpt = "1",
    weights: WeightsOpt = None,
    units: UnitsOpt = "nats",
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Utility U = 1/E‖w̄ − w̄_dp‖² at the minimum noise, server vs client side (eqs. 4.12-4.16, Thm 2).

    Example: dpcalc midp utility --eps 5 --d 100 --N 100 --C 10   (U = 10.517…)
    """
    u = check_units(units)
    n_axis, fixed = _weights_axes(weights, n_clients)
    options = {"eps": parse_values("--eps", eps), "d": parse_values("--d", d), **n_axis,
               "C": parse_values("--C", C)}
    axes = grid(options)
    p_max, sum_p2 = _stats(axes, fixed)
    with capture_warnings() as warns:
        s_server = midp.server_sigma(axes["eps"], axes["d"], axes["C"], p_max, units=u)  # type: ignore[arg-type]
        s_client = midp.client_sigma(axes["eps"], axes["d"], axes["C"], p_max, sum_p2, units=u)  # type: ignore[arg-type]
        out = {
            "sigma_server": s_server,
            "sigma_client": s_client,
            "u_server": midp.utility_server(s_server, axes["d"]),
            "u_client": midp.utility_client(s_client, axes["d"], sum_p2),
        }
    result = Result(
        columns=[*_input_columns(u), Column("sigma_server", "σ_s", r"$\sigma_s$"),
                 Column("sigma_client", "σ_c", r"$\sigma_c$"), Column("u_server", "U_cdp", r"$U_{\mathrm{cdp}}$"),
                 Column("u_client", "U_ldp", r"$U_{\mathrm{ldp}}$")],
        rows=flatten(axes, out),
        title="Utility at the minimum ε-MI-DP noise (Theorem 2: U_ldp = U_cdp)",
        note="U = 1/E‖w̄ − w̄_dp‖² in 1/parameter-units²; equal on both sides (He & He 2023, Thm 2, eq. 4.16).",
        formula=["midp.utility_server", "midp.utility_client", "midp.utility_at_budget"],
        units={"eps": u, "utility": "1/parameter-units^2"},
        warnings=warns,
    )
    emit(result, pick_format(fmt, json_), output, force)


def _read_clients_csv(path: Path) -> tuple[list[float], list[float]]:
    import csv

    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows or not {"eps", "C"} <= set(rows[0]):
        raise DomainError(f"--file {str(path)!r} must be a CSV with columns eps and C")
    eps = [float(parse_vector("eps", r["eps"])[0]) for r in rows]
    cs = [float(parse_vector("C", r["C"])[0]) for r in rows]
    return eps, cs


@midp_app.command("personalized")
@handle_errors
def personalized_command(
    eps: Annotated[str | None, typer.Option("--eps", help="Per-client budgets ε_k (comma list or file).")] = None,
    C: Annotated[str, typer.Option("--C", help="Per-client clipping bounds C_k (list, file or one value).")] = "1",
    d: DOpt = "1",
    file: Annotated[Path | None, typer.Option("--file", help="CSV with columns eps,C (one row per client).",
                                              exists=True, dir_okay=False)] = None,
    units: UnitsOpt = "nats",
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Personalized budgets (Thm 3, Cor 2): optimal σ_k and weights p_k, U* beside the baselines (5.21)/(5.22).

    Example: dpcalc midp personalized --eps 1,2,5 --C 1,2,4 --d 10   (U* = 1.31996 vs baseline 0.96653)
    """
    u = check_units(units)
    if file is not None:
        eps_k, c_k = _read_clients_csv(file)
    elif eps is not None:
        eps_k = parse_vector("--eps", eps)
        c_list = parse_vector("--C", C)
        c_k = c_list * len(eps_k) if len(c_list) == 1 else c_list
    else:
        raise DomainError("give per-client budgets with --eps or --file")
    d_values = parse_values("--d", d)
    if len(d_values) != 1:
        raise DomainError("--d takes one value here (the per-client lists are the rows)")
    with capture_warnings() as warns:
        plan = midp.personalized(eps_k, c_k, d_values[0], units=u)  # type: ignore[arg-type]
        leak = midp.personalized_leakage(plan.weights, plan.sigma, c_k, d_values[0], units=u)  # type: ignore[arg-type]
    rows = [{"client": k + 1, "eps": eps_k[k], "C": c_k[k], "alpha": plan.alpha[k], "sigma": plan.sigma[k],
             "p": plan.weights[k], "leakage": leak[k]} for k in range(len(eps_k))]
    result = Result(
        columns=[Column("client", "k", "$k$", integer=True), Column("eps", f"ε_k ({u})", r"$\epsilon_k$"),
                 Column("C", "C_k", "$C_k$"), Column("alpha", "α_k", r"$\alpha_k$"),
                 Column("sigma", "σ_k (Cor. 2)", r"$\sigma_k$"), Column("p", "p_k*", r"$p_k^*$"),
                 Column("leakage", f"leakage bound ({u})", r"$\sup I_k$")],
        rows=rows,
        title=f"Personalized ε_k-MI-DP, d = {d_values[0]:g} (Theorem 3 / Corollary 2)",
        note="σ_k = α_k/√N and p_k ∝ 1/α_k reach U* = (Σ 1/α_k)²/d with every client's leakage bound equal to "
             "its ε_k (He & He 2023, eqs. 5.29-5.33). The baselines add the worst client's noise to all.",
        formula=["midp.alpha", "midp.optimal_utility", "midp.optimal_weights", "midp.corollary2_sigma"],
        units={"eps": u, "utility": "1/parameter-units^2"},
        warnings=warns,
        summary={"u_star": plan.utility, "u_baseline": plan.baseline_utility, "gain": plan.gain,
                 "sigma_baseline_client": plan.baseline_sigma_client,
                 "sigma_baseline_server": plan.baseline_sigma_server},
    )
    emit(result, pick_format(fmt, json_), output, force)


@midp_app.command("clip")
@handle_errors
def clip_command(
    c0: Annotated[str, typer.Option("--c0", help="Initial clipping threshold C_1 (> 0).")],
    eta: Annotated[float, typer.Option("--eta", help="Threshold learning rate η in (0, 1].")],
    norms: Annotated[str, typer.Option("--norms", help="Per-round norms ‖w_t‖ (comma list or file).")],
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Adaptive clipping thresholds C_{t+1} = C_t − η(C_t − ‖w_t‖) (eqs. 5.17-5.19).

    Example: dpcalc midp clip --c0 1 --eta 0.5 --norms 2,2,2
    """
    c_start = parse_values("--c0", c0)
    if len(c_start) != 1:
        raise DomainError("--c0 takes one value")
    w = parse_vector("--norms", norms)
    with capture_warnings() as warns:
        sched = midp.clip_schedule(c_start[0], w, eta)
    rows: list[dict[str, float | None]] = [{"round": t + 1, "norm": float(w[t]), "threshold": float(sched[t])}
                                           for t in range(len(w))]
    rows.append({"round": len(w) + 1, "norm": None, "threshold": float(sched[-1])})
    result = Result(
        columns=[Column("round", "t", "$t$", integer=True), Column("threshold", "C_t", "$C_t$"),
                 Column("norm", "‖w_t‖", r"$\lVert w_t\rVert$")],
        rows=rows,
        title="Adaptive clipping threshold (He & He 2023, eq. 5.18)",
        note="Round t clips ‖w_t‖ to C_t (5.19); the last row is the threshold for the next round.",
        formula="midp.clip_update",
        units={"threshold": "parameter units"},
        warnings=warns,
    )
    emit(result, pick_format(fmt, json_), output, force)


def register(app: typer.Typer) -> None:
    """Attach ``sigma`` and the ``midp`` group to the root app."""
    app.command("sigma")(handle_errors(sigma_command))
    app.add_typer(midp_app, name="midp")
