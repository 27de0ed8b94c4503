"""``dpcalc sigma`` and ``dpcalc midp leakage|utility|personalized|plan|clip`` (seed 000, ε-MI-DP)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from dpcalc import midp
from dpcalc.cli._common import UnitsOpt, check_units, command, output_command
from dpcalc.errors import DomainError
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten, grid, parse_values, parse_vector
from dpcalc.report.render import Column, Result

midp_app = typer.Typer(help="ε-MI-DP in federated learning (He & He, IEEE Access 2023; seed 000).",
                       no_args_is_help=True)


class Side(str, Enum):
    server = "server"
    client = "client"
    both = "both"


_SIDE_LABEL = {"server": "server side", "client": "client side", "both": "server and client side"}
_SIGMA = {"server": "midp.server_sigma", "client": "midp.client_sigma"}
_LEAKAGE = {"server": "midp.server_leakage", "client": "midp.client_leakage"}
_EQUAL = "midp.server_sigma_equal"  # declares eps, d, C, N

SideOpt = Annotated[Side, typer.Option("--side", help="Where the Gaussian noise is added.")]
NOpt = Annotated[str | None, typer.Option("--n", help="Number of clients N (equal weights 1/N). Default 1, or "
                                                       "the length of --weights.")]
COpt = Annotated[str, typer.Option("--C", help="Clipping bound C on ‖w_i‖ (parameter units).")]
DOpt = Annotated[str, typer.Option("--d", help="Model dimension d (an integer >= 1).")]
WeightsOpt = Annotated[str | None, typer.Option("--weights", help="Aggregation weights p_i: a comma list "
                                                                  "or a file of numbers; must sum to 1.")]

_GUARANTEE = ("Guarantee: client-level ε-MI-DP, sup I(w_i; w̄ | w^(-i)) <= ε {units}, for any data with "
              "‖w_i‖ <= C, via the Gaussian max-entropy upper bound (He & He 2023, eqs. 1.40/2.47): the σ is "
              "sufficient, not proven minimal. Per round, no composition across rounds.")


def _sides(side: Side) -> list[str]:
    return ["server", "client"] if side is Side.both else [side.value]


def _key(name: str, side: Side, which: str) -> str:
    """Output key: ``sigma`` for one side, ``sigma_server``/``sigma_client`` for both."""
    return f"{name}_{which}" if side is Side.both else name


def _aggregation(first: str, first_text: str, d: str, n_text: str | None, C: str,
                 weights: str | None) -> tuple[dict[str, Any], Any, Any, dict[str, Any]]:
    """The grid (first option, d, N, C) and the weights' (max p, Σ p²); meta describing the weights."""
    if weights is None:
        n_values = parse_values("--n", n_text if n_text is not None else "1")
        fixed: dict[str, Any] = {}
    else:
        vector = parse_vector("--weights", weights)
        p_max, sum_p2 = midp.weight_stats(vector)
        if n_text is not None and parse_values("--n", n_text) != [float(len(vector))]:
            raise DomainError(f"--n must equal the number of --weights ({len(vector)}) when both are given")
        n_values, fixed = [float(len(vector))], {"p_max": p_max, "sum_p2": sum_p2}
    axes = grid({first: parse_values(f"--{first}", first_text), "d": parse_values("--d", d), "N": n_values,
                 "C": parse_values("--C", C)})
    if fixed:
        return axes, fixed["p_max"], fixed["sum_p2"], fixed
    return axes, *midp.equal_weight_stats(axes["N"]), fixed


def sigma_command(
    eps: Annotated[str, typer.Option("--eps", help="Privacy level ε (value, list a,b or range a:b:step).")],
    d: DOpt,
    side: SideOpt = Side.server,
    n_clients: NOpt = None,
    C: COpt = "1",
    weights: WeightsOpt = None,
    units: UnitsOpt = "nats",
) -> Result:
    """Minimum Gaussian noise std σ for client-level ε-MI-DP (eqs. 4.7-4.11).

    Example: dpcalc sigma --eps 5 --d 1000   (σ = 0.3154375268…, server side, N = 1, C = 1)
    """
    u = check_units(units)
    axes, p_max, sum_p2, fixed = _aggregation("eps", eps, d, n_clients, C, weights)
    out: dict[str, Any] = {}
    if side in (Side.server, Side.both):
        out[_key("sigma", side, "server")] = midp.server_sigma(axes["eps"], axes["d"], C=axes["C"], p_max=p_max,
                                                               units=u)
    if side in (Side.client, Side.both):
        out[_key("sigma", side, "client")] = midp.client_sigma(axes["eps"], axes["d"], C=axes["C"], p_max=p_max,
                                                               sum_p2=sum_p2, units=u)
    return Result(
        columns=columns_for(_EQUAL, ["eps", "d", "N", "C"], units={"eps": u})
        + [column(_SIGMA[s], "sigma", key=_key("sigma", side, s)) for s in _sides(side)],
        rows=flatten(axes, out),
        title=f"Minimum Gaussian noise std for ε-MI-DP ({_SIDE_LABEL[side.value]})",
        note=_GUARANTEE.format(units=u),
        formula=_SIGMA[side.value] if side is not Side.both else list(_SIGMA.values()),
        meta={"side": side.value, "weights": "equal (1/N)" if not fixed else fixed},
    )


@command(midp_app, "leakage")
def leakage_command(
    sigma: Annotated[str, typer.Option("--sigma", help="Noise std σ (parameter units).")],
    d: DOpt,
    side: SideOpt = Side.server,
    n_clients: NOpt = None,
    C: COpt = "1",
    weights: WeightsOpt = None,
    units: UnitsOpt = "nats",
) -> Result:
    """The ε-MI-DP level guaranteed by a given σ (bound 1.40 / 2.47 solved for ε).

    Example: dpcalc midp leakage --sigma 0.3154 --d 1000
    """
    u = check_units(units)
    axes, p_max, sum_p2, _ = _aggregation("sigma", sigma, d, n_clients, C, weights)
    out: dict[str, Any] = {}
    if side in (Side.server, Side.both):
        out[_key("eps", side, "server")] = midp.server_leakage(axes["sigma"], axes["d"], C=axes["C"],
                                                               p_max=p_max, units=u)
    if side in (Side.client, Side.both):
        out[_key("eps", side, "client")] = midp.client_leakage(axes["sigma"], axes["d"], C=axes["C"], p_max=p_max,
                                                               sum_p2=sum_p2, units=u)
    first = _LEAKAGE["server" if side is Side.both else side.value]
    return Result(
        columns=[column(first, "sigma", label="σ"), *columns_for(_EQUAL, ["d", "N", "C"])]
        + [column(_LEAKAGE[s], "eps", key=_key("eps", side, s), unit=u) for s in _sides(side)],
        rows=flatten(axes, out),
        title=f"ε-MI-DP leakage bound of Gaussian noise ({_SIDE_LABEL[side.value]})",
        note=f"Upper bound on sup I(w_i; w̄ | w^(-i)) in {u} (He & He 2023, eqs. 1.40/2.47); the true leakage "
             "under ‖w_i‖ <= C is at most this.",
        formula=list(_LEAKAGE.values()) if side is Side.both else _LEAKAGE[side.value],
        meta={"side": side.value},
    )


@command(midp_app, "utility")
def utility_command(
    eps: Annotated[str, typer.Option("--eps", help="Privacy level ε.")],
    d: DOpt,
    n_clients: NOpt = None,
    C: COpt = "1",
    weights: WeightsOpt = None,
    units: UnitsOpt = "nats",
) -> Result:
    """Utility U = 1/E‖w̄ − w̄_dp‖² at the minimum noise, server vs client side (eqs. 4.12-4.16, Thm 2).

    Example: dpcalc midp utility --eps 5 --d 100 --n 100 --C 10   (U = 10.517…)
    """
    u = check_units(units)
    axes, p_max, sum_p2, _ = _aggregation("eps", eps, d, n_clients, C, weights)
    s_server = midp.server_sigma(axes["eps"], axes["d"], C=axes["C"], p_max=p_max, units=u)
    s_client = midp.client_sigma(axes["eps"], axes["d"], C=axes["C"], p_max=p_max, sum_p2=sum_p2,
                                  units=u)
    out = {"sigma_server": s_server, "sigma_client": s_client, "u_server": midp.utility_server(s_server, axes["d"]),
           "u_client": midp.utility_client(s_client, axes["d"], sum_p2)}
    return Result(
        columns=[*columns_for(_EQUAL, ["eps", "d", "N", "C"], units={"eps": u}),
                 column("midp.server_sigma", "sigma", key="sigma_server"),
                 column("midp.client_sigma", "sigma", key="sigma_client"),
                 column("midp.utility_server", "utility", key="u_server"),
                 column("midp.utility_client", "utility", key="u_client")],
        rows=flatten(axes, out),
        title="Utility at the minimum ε-MI-DP noise (Theorem 2: U_ldp = U_cdp)",
        note="U = 1/E‖w̄ − w̄_dp‖² in 1/parameter-units²; equal on both sides (He & He 2023, Thm 2, eq. 4.16).",
        formula=["midp.utility_server", "midp.utility_client", "midp.utility_at_budget"],
    )


def _read_clients_csv(path: Path) -> tuple[list[float], list[float]]:
    from dpcalc.files import read_columns

    cols = read_columns("--file", path, ("eps", "C"))
    return [float(x) for x in cols["eps"]], [float(x) for x in cols["C"]]


@command(midp_app, "personalized")
def personalized_command(
    eps: Annotated[str | None, typer.Option("--eps", help="Per-client budgets ε_k (comma list or file).")] = None,
    C: Annotated[str, typer.Option("--C", help="Per-client clipping bounds C_k (list, file or one value).")] = "1",
    d: DOpt = "1",
    file: Annotated[Path | None, typer.Option("--file", help="CSV with columns eps,C (one row per client).")] = None,
    units: UnitsOpt = "nats",
) -> Result:
    """Personalized budgets (Thm 3, Cor 2): optimal σ_k and weights p_k, U* beside the baselines (5.21)/(5.22).

    Example: dpcalc midp personalized --eps 1,2,5 --C 1,2,4 --d 10   (U* = 1.31996 vs baseline 0.96653)
    """
    u = check_units(units)
    if file is not None:
        if eps is not None or C != "1":
            raise DomainError("give per-client budgets with --file or with --eps/--C, not both")
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
    plan = midp.personalized(eps_k, c_k, d_values[0], units=u)
    leak = midp.personalized_leakage(plan.weights, plan.sigma, c_k, d_values[0], units=u)
    rows = [{"client": k + 1, "eps": eps_k[k], "C": c_k[k], "alpha": plan.alpha[k], "sigma": plan.sigma[k],
             "p": plan.weights[k], "leakage": leak[k]} for k in range(len(eps_k))]
    return Result(
        columns=[Column("client", "k", "$k$", integer=True), *columns_for("midp.alpha", ["eps", "C", "alpha"],
                                                                          units={"eps": u}),
                 column("midp.corollary2_sigma", "sigma", label="σ_k (Cor. 2)"),
                 column("midp.optimal_weights", "p", label="p_k*"),
                 column("midp.personalized_leakage", "eps", key="leakage", unit=u, label=f"leakage bound ({u})")],
        rows=rows,
        title=f"Personalized ε_k-MI-DP, d = {d_values[0]:g} (Theorem 3 / Corollary 2)",
        note="σ_k = α_k/√N and p_k ∝ 1/α_k reach U* = (Σ 1/α_k)²/d with every client's leakage bound equal to "
             "its ε_k (He & He 2023, eqs. 5.29-5.33). The baselines add the worst client's noise to all.",
        formula=["midp.alpha", "midp.optimal_utility", "midp.optimal_weights", "midp.corollary2_sigma"],
        units={"u_star": "1/parameter-units^2", "u_baseline": "1/parameter-units^2"},
        summary={"u_star": plan.utility, "u_baseline": plan.baseline_utility, "gain": plan.gain,
                 "sigma_baseline_client": plan.baseline_sigma_client,
                 "sigma_baseline_server": plan.baseline_sigma_server},
    )


@command(midp_app, "plan")
def plan_command(
    weights: Annotated[str, typer.Option("--weights", help="Aggregation weights p_k (comma list or file; sum 1).")],
    sigmas: Annotated[str, typer.Option("--sigmas", help="Per-client noise stds σ_k (parameter units; list or "
                                                          "file, one per client, or one value for all).")],
    C: Annotated[str, typer.Option("--C", help="Per-client clipping bounds C_k (list, file or one value).")] = "1",
    d: DOpt = "1",
    units: UnitsOpt = "nats",
) -> Result:
    """Any plan's per-client leakage bound (5.25) and global utility (5.24): weights p_k, client noise σ_k.

    Example: dpcalc midp plan --weights 0.5,0.3,0.2 --sigmas 0.1,0.2,0.3 --C 1,2,1.5 --d 10
    """
    u = check_units(units)
    p_k = parse_vector("--weights", weights)
    s_list, c_list = parse_vector("--sigmas", sigmas), parse_vector("--C", C)
    s_k = s_list * len(p_k) if len(s_list) == 1 else s_list
    c_k = c_list * len(p_k) if len(c_list) == 1 else c_list
    d_values = parse_values("--d", d)
    if len(d_values) != 1:
        raise DomainError("--d takes one value here (the per-client lists are the rows)")
    leak = midp.personalized_leakage(p_k, s_k, c_k, d_values[0], units=u)
    utility = midp.personalized_utility(p_k, s_k, d_values[0])
    rows = [{"client": k + 1, "p": p_k[k], "sigma": s_k[k], "C": c_k[k], "leakage": float(leak[k])}
            for k in range(len(p_k))]
    return Result(
        columns=[Column("client", "k", "$k$", integer=True),
                 column("midp.personalized_leakage", "weights", key="p", label="p_k"),
                 column("midp.personalized_leakage", "sigmas", key="sigma", label="σ_k"),
                 column("midp.personalized_leakage", "C", label="C_k"),
                 column("midp.personalized_leakage", "eps", key="leakage", unit=u, label=f"leakage bound ({u})")],
        rows=rows,
        title=f"Per-client ε-MI-DP leakage bound and utility of a plan, d = {d_values[0]:g} (eqs. 5.24-5.25)",
        note="Client k adds N(0, σ_k²I_d) to its clipped update (‖w_k‖ <= C_k); the server averages with weights "
             "p_k. The leakage is the Gaussian max-entropy upper bound (He & He 2023, eq. 5.25): client k is "
             "ε_k-MI-DP for any ε_k >= its bound. Utility U = 1/(d·Σ p_k²σ_k²) (eq. 5.24). Per round.",
        formula=["midp.personalized_leakage", "midp.personalized_utility"],
        units={"leakage": u, "sigma": "parameter units", "utility": "1/parameter-units^2"},
        summary={"utility": utility},
    )


@command(midp_app, "clip")
def clip_command(
    c0: Annotated[str, typer.Option("--c0", help="Initial clipping threshold C_1 (> 0).")],
    eta: Annotated[float, typer.Option("--eta", help="Threshold learning rate η in (0, 1].")],
    norms: Annotated[str, typer.Option("--norms", help="Per-round norms ‖w_t‖ (comma list or file).")],
) -> Result:
    """Adaptive clipping thresholds C_{t+1} = C_t − η(C_t − ‖w_t‖) (eqs. 5.17-5.19).

    Example: dpcalc midp clip --c0 1 --eta 0.5 --norms 2,2,2
    """
    c_start = parse_values("--c0", c0)
    if len(c_start) != 1:
        raise DomainError("--c0 takes one value")
    w = parse_vector("--norms", norms)
    sched = midp.clip_schedule(c_start[0], w, eta)
    rows: list[dict[str, float | None]] = [{"round": t + 1, "norm": float(w[t]), "threshold": float(sched[t])}
                                           for t in range(len(w))]
    rows.append({"round": len(w) + 1, "norm": None, "threshold": float(sched[-1])})
    return Result(
        columns=[Column("round", "t", "$t$", integer=True),
                 column("midp.clip_update", "C", key="threshold", label="C_t"),
                 column("midp.clip_update", "w_norm", key="norm", label="‖w_t‖")],
        rows=rows,
        title="Adaptive clipping threshold (He & He 2023, eq. 5.18)",
        note="Round t clips ‖w_t‖ to C_t (5.19); the last row is the threshold for the next round.",
        formula="midp.clip_update",
        units={"threshold": "parameter units"},
    )


def register(app: typer.Typer) -> None:
    """Attach ``sigma`` and the ``midp`` group to the root app."""
    app.command("sigma")(output_command(sigma_command))
    app.add_typer(midp_app, name="midp")
