"""``dpcalc midp leakage|utility|personalized|plan|clip`` (ε-MI-DP, He & He 2023); ``dpcalc sigma`` is
`dpcalc.cli.sigma`."""

from __future__ import annotations

from dpcalc import midp
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import axis, one, path, real, vector
from dpcalc.cli.sigma import AGGREGATION, EQUAL, SIDE_LABEL, UNITS, WEIGHTS, N, aggregation, key, per_side, sides
from dpcalc.errors import DomainError
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

_LEAKAGE = {"server": "midp.server_leakage", "client": "midp.client_leakage"}


@command("leakage", axis("sigma"), *AGGREGATION, formula="midp.server_leakage")
def leakage_command(a: Args) -> Result:
    """The ε-MI-DP level guaranteed by a given σ (bound 1.40 / 2.47 solved for ε).

    Example: dpcalc midp leakage --sigma 0.3154 --d 1000
    """
    axes, p_max, sum_p2, _ = aggregation(a, "sigma")
    kw = {"C": axes["C"], "p_max": p_max, "units": a.units}
    out = per_side(a.side, "eps", lambda: midp.server_leakage(axes["sigma"], axes["d"], **kw),
                    lambda: midp.client_leakage(axes["sigma"], axes["d"], sum_p2=sum_p2, **kw))
    first = _LEAKAGE["server" if a.side == "both" else a.side]
    return Result(
        columns=[column(first, "sigma", label="σ"), *columns_for(EQUAL, ["d", "N", "C"])]
        + [column(_LEAKAGE[s], "eps", key=key("eps", a.side, s), unit=a.units) for s in sides(a.side)],
        rows=flatten(axes, out),
        title=f"ε-MI-DP leakage bound of Gaussian noise ({SIDE_LABEL[a.side]})",
        note=f"Upper bound on sup I(w_i; w̄ | w^(-i)) in {a.units} (He & He 2023, eqs. 1.40/2.47); the true leakage "
             "under ‖w_i‖ <= C is at most this.",
        formula=list(_LEAKAGE.values()) if a.side == "both" else _LEAKAGE[a.side],
        meta={"side": a.side},
    )


@command("utility", axis("eps"), axis("d"), N, axis("C"), WEIGHTS, UNITS, formula=EQUAL)
def utility_command(a: Args) -> Result:
    """Utility U = 1/E‖w̄ − w̄_dp‖² at the minimum noise, server vs client side (eqs. 4.12-4.16, Thm 2).

    Example: dpcalc midp utility --eps 5 --d 100 --n 100 --C 10   (U = 10.517…)
    """
    axes, p_max, sum_p2, _ = aggregation(a, "eps")
    kw = {"C": axes["C"], "p_max": p_max, "units": a.units}
    s_server = midp.server_sigma(axes["eps"], axes["d"], **kw)
    s_client = midp.client_sigma(axes["eps"], axes["d"], sum_p2=sum_p2, **kw)
    out = {"sigma_server": s_server, "sigma_client": s_client, "u_server": midp.utility_server(s_server, axes["d"]),
           "u_client": midp.utility_client(s_client, axes["d"], sum_p2)}
    return Result(
        columns=[*columns_for(EQUAL, ["eps", "d", "N", "C"], units={"eps": a.units}),
                 column("midp.server_sigma", "sigma", key="sigma_server"),
                 column("midp.client_sigma", "sigma", key="sigma_client"),
                 column("midp.utility_server", "utility", key="u_server"),
                 column("midp.utility_client", "utility", key="u_client")],
        rows=flatten(axes, out),
        title="Utility at the minimum ε-MI-DP noise (Theorem 2: U_ldp = U_cdp)",
        note="U = 1/E‖w̄ − w̄_dp‖² in 1/parameter-units²; equal on both sides (He & He 2023, Thm 2, eq. 4.16).",
        formula=["midp.utility_server", "midp.utility_client", "midp.utility_at_budget"],
    )


def _per_client(values: list[float], count: int) -> list[float]:
    """A per-client list: as given, or one value repeated for every client."""
    return values * count if len(values) == 1 else values


@command("personalized", vector("eps", default=None), vector("C"), one("d"),
         path("file", formula="-", default=None, help="CSV with columns eps,C (one row per client)"), UNITS,
         formula="midp.alpha")
def personalized_command(a: Args) -> Result:
    """Personalized budgets (Thm 3, Cor 2): optimal σ_k and weights p_k, U* beside the baselines (5.21)/(5.22).

    Example: dpcalc midp personalized --eps 1,2,5 --C 1,2,4 --d 10   (U* = 1.31996 vs baseline 0.96653)
    """
    u = a.units
    if a.file is not None:
        if a.eps is not None or a.C != [a.source_default("C")]:
            raise DomainError("give per-client budgets with --file or with --eps/--C, not both")
        from dpcalc.files import read_columns

        cols = read_columns("--file", a.file, ("eps", "C"))
        eps_k, c_k = [float(x) for x in cols["eps"]], [float(x) for x in cols["C"]]
    elif a.eps is not None:
        eps_k, c_k = a.eps, _per_client(a.C, len(a.eps))
    else:
        raise DomainError("give per-client budgets with --eps or --file")
    plan = midp.personalized(eps_k, c_k, a.d, units=u)
    leak = midp.personalized_leakage(plan.weights, plan.sigma, c_k, a.d, units=u)
    rows = [{"client": k + 1, "eps": eps_k[k], "C": c_k[k], "alpha": plan.alpha[k], "sigma": plan.sigma[k],
             "p": plan.weights[k], "leakage": leak[k]} for k in range(len(eps_k))]
    return Result(
        columns=[Column("client", "k", "$k$", integer=True),
                 *columns_for("midp.alpha", ["eps", "C", "alpha"], units={"eps": u}),
                 column("midp.corollary2_sigma", "sigma", label="σ_k (Cor. 2)"),
                 column("midp.optimal_weights", "p", label="p_k*"),
                 column("midp.personalized_leakage", "eps", key="leakage", unit=u, label=f"leakage bound ({u})")],
        rows=rows,
        title=f"Personalized ε_k-MI-DP, d = {a.d:g} (Theorem 3 / Corollary 2)",
        note="σ_k = α_k/√N and p_k ∝ 1/α_k reach U* = (Σ 1/α_k)²/d with every client's leakage bound equal to "
             "its ε_k (He & He 2023, eqs. 5.29-5.33). The baselines add the worst client's noise to all.",
        formula=["midp.alpha", "midp.optimal_utility", "midp.optimal_weights", "midp.corollary2_sigma"],
        units={"u_star": "1/parameter-units^2", "u_baseline": "1/parameter-units^2"},
        summary={"u_star": plan.utility, "u_baseline": plan.baseline_utility, "gain": plan.gain,
                 "sigma_baseline_client": plan.baseline_sigma_client,
                 "sigma_baseline_server": plan.baseline_sigma_server},
    )


@command("plan", vector("weights"), vector("sigmas", note="One per client, or one value for all"),
         vector("C", note="One per client, or one value for all"), one("d"), UNITS,
         formula="midp.personalized_leakage")
def plan_command(a: Args) -> Result:
    """Any plan's per-client leakage bound (5.25) and global utility (5.24): weights p_k, client noise σ_k.

    Example: dpcalc midp plan --weights 0.5,0.3,0.2 --sigmas 0.1,0.2,0.3 --C 1,2,1.5 --d 10
    """
    p_k = a.weights
    s_k, c_k = _per_client(a.sigmas, len(p_k)), _per_client(a.C, len(p_k))
    leak = midp.personalized_leakage(p_k, s_k, c_k, a.d, units=a.units)
    utility = midp.personalized_utility(p_k, s_k, a.d)
    rows = [{"client": k + 1, "p": p_k[k], "sigma": s_k[k], "C": c_k[k], "leakage": float(leak[k])}
            for k in range(len(p_k))]
    fid = "midp.personalized_leakage"
    return Result(
        columns=[Column("client", "k", "$k$", integer=True), column(fid, "weights", key="p", label="p_k"),
                 column(fid, "sigmas", key="sigma", label="σ_k"), column(fid, "C", label="C_k"),
                 column(fid, "eps", key="leakage", unit=a.units, label=f"leakage bound ({a.units})")],
        rows=rows,
        title=f"Per-client ε-MI-DP leakage bound and utility of a plan, d = {a.d:g} (eqs. 5.24-5.25)",
        note="Client k adds N(0, σ_k²I_d) to its clipped update (‖w_k‖ <= C_k); the server averages with weights "
             "p_k. The leakage is the Gaussian max-entropy upper bound (He & He 2023, eq. 5.25): client k is "
             "ε_k-MI-DP for any ε_k >= its bound. Utility U = 1/(d·Σ p_k²σ_k²) (eq. 5.24). Per round.",
        formula=["midp.personalized_leakage", "midp.personalized_utility"],
        units={"leakage": a.units, "sigma": "parameter units", "utility": "1/parameter-units^2"},
        summary={"utility": utility},
    )


@command("clip", one("C", option="--c0", help="Initial clipping threshold"), real("eta"),
         vector("norms", formula="-", help="Per-round norms ‖w_t‖"), formula="midp.clip_update")
def clip_command(a: Args) -> Result:
    """Adaptive clipping thresholds C_{t+1} = C_t − η(C_t − ‖w_t‖) (eqs. 5.17-5.19).

    Example: dpcalc midp clip --c0 1 --eta 0.5 --norms 2,2,2
    """
    sched = midp.clip_schedule(a.C, a.norms, a.eta)
    rows: list[dict[str, float | None]] = [{"round": t + 1, "norm": float(w), "threshold": float(sched[t])}
                                           for t, w in enumerate(a.norms)]
    rows.append({"round": len(a.norms) + 1, "norm": None, "threshold": float(sched[-1])})
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


ENTRIES = (Group("midp", "ε-MI-DP in federated learning (He & He, IEEE Access 2023).",
                 (leakage_command, utility_command, personalized_command, plan_command, clip_command)),)
