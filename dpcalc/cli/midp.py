"""``dpcalc sigma`` and ``dpcalc midp leakage|utility|personalized|plan|clip`` (ε-MI-DP, He & He 2023)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from dpcalc import midp
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import axis, choice, one, path, real, units, vector
from dpcalc.errors import DomainError
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten, grid
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]


class Side(str, Enum):
    server = "server"
    client = "client"
    both = "both"


_SIDE_LABEL = {"server": "server side", "client": "client side", "both": "server and client side"}
_SIGMA = {"server": "midp.server_sigma", "client": "midp.client_sigma"}
_LEAKAGE = {"server": "midp.server_leakage", "client": "midp.client_leakage"}
_EQUAL = "midp.server_sigma_equal"  # declares eps, d, C, N

SIDE = choice("side", Side, default=Side.server, help="Where the Gaussian noise is added")
N = axis("N", formula=_EQUAL, default=None, note="Default: 1 (equal weights 1/N), or the length of --weights")
WEIGHTS = vector("weights", formula="midp.personalized_leakage", default=None,
                 note="Instead of equal weights; --n is then their number")
UNITS = units(midp.server_sigma)
AGGREGATION = (axis("d"), SIDE, N, axis("C"), WEIGHTS, UNITS)

_GUARANTEE = ("Guarantee: client-level ε-MI-DP, sup I(w_i; w̄ | w^(-i)) <= ε {units}, for any data with "
              "‖w_i‖ <= C, via the Gaussian max-entropy upper bound (He & He 2023, eqs. 1.40/2.47): the σ is "
              "sufficient, not proven minimal. Per round, no composition across rounds.")


def _sides(side: Side) -> list[str]:
    return ["server", "client"] if side is Side.both else [side.value]


def _key(name: str, side: Side, which: str) -> str:
    """Output key: ``sigma`` for one side, ``sigma_server``/``sigma_client`` for both."""
    return f"{name}_{which}" if side is Side.both else name


def _aggregation(a: Args, first: str) -> tuple[dict[str, Any], Any, Any, dict[str, Any]]:
    """The grid (first option, d, N, C), the weights' (max p, Σ p²) and meta describing the weights."""
    if a.weights is None:
        n_values = a.N if a.N is not None else [a.source_default("N")]
        fixed: dict[str, Any] = {}
    else:
        p_max, sum_p2 = midp.weight_stats(a.weights)
        if a.N is not None and a.N != [float(len(a.weights))]:
            raise DomainError(f"--n must equal the number of --weights ({len(a.weights)}) when both are given")
        n_values, fixed = [float(len(a.weights))], {"p_max": p_max, "sum_p2": sum_p2}
    axes = grid({first: a[first], "d": a.d, "N": n_values, "C": a.C})
    if fixed:
        return axes, fixed["p_max"], fixed["sum_p2"], fixed
    return axes, *midp.equal_weight_stats(axes["N"]), fixed


def _per_side(side: Side, name: str, server: Any, client: Any) -> dict[str, Any]:
    """The outputs of the chosen side(s): ``server()``/``client()`` evaluate one side each."""
    return {_key(name, side, s): (server if s == "server" else client)() for s in _sides(side)}


@command("sigma", axis("eps"), *AGGREGATION, formula=_EQUAL)
def sigma_command(a: Args) -> Result:
    """Minimum Gaussian noise std σ for client-level ε-MI-DP (eqs. 4.7-4.11).

    Example: dpcalc sigma --eps 5 --d 1000   (σ = 0.3154375268…, server side, N = 1, C = 1)
    """
    axes, p_max, sum_p2, fixed = _aggregation(a, "eps")
    kw = {"C": axes["C"], "p_max": p_max, "units": a.units}
    out = _per_side(a.side, "sigma", lambda: midp.server_sigma(axes["eps"], axes["d"], **kw),
                    lambda: midp.client_sigma(axes["eps"], axes["d"], sum_p2=sum_p2, **kw))
    return Result(
        columns=columns_for(_EQUAL, ["eps", "d", "N", "C"], units={"eps": a.units})
        + [column(_SIGMA[s], "sigma", key=_key("sigma", a.side, s)) for s in _sides(a.side)],
        rows=flatten(axes, out),
        title=f"Minimum Gaussian noise std for ε-MI-DP ({_SIDE_LABEL[a.side.value]})",
        note=_GUARANTEE.format(units=a.units),
        formula=_SIGMA[a.side.value] if a.side is not Side.both else list(_SIGMA.values()),
        meta={"side": a.side.value, "weights": "equal (1/N)" if not fixed else fixed},
    )


@command("leakage", axis("sigma"), *AGGREGATION, formula="midp.server_leakage")
def leakage_command(a: Args) -> Result:
    """The ε-MI-DP level guaranteed by a given σ (bound 1.40 / 2.47 solved for ε).

    Example: dpcalc midp leakage --sigma 0.3154 --d 1000
    """
    axes, p_max, sum_p2, _ = _aggregation(a, "sigma")
    kw = {"C": axes["C"], "p_max": p_max, "units": a.units}
    out = _per_side(a.side, "eps", lambda: midp.server_leakage(axes["sigma"], axes["d"], **kw),
                    lambda: midp.client_leakage(axes["sigma"], axes["d"], sum_p2=sum_p2, **kw))
    first = _LEAKAGE["server" if a.side is Side.both else a.side.value]
    return Result(
        columns=[column(first, "sigma", label="σ"), *columns_for(_EQUAL, ["d", "N", "C"])]
        + [column(_LEAKAGE[s], "eps", key=_key("eps", a.side, s), unit=a.units) for s in _sides(a.side)],
        rows=flatten(axes, out),
        title=f"ε-MI-DP leakage bound of Gaussian noise ({_SIDE_LABEL[a.side.value]})",
        note=f"Upper bound on sup I(w_i; w̄ | w^(-i)) in {a.units} (He & He 2023, eqs. 1.40/2.47); the true leakage "
             "under ‖w_i‖ <= C is at most this.",
        formula=list(_LEAKAGE.values()) if a.side is Side.both else _LEAKAGE[a.side.value],
        meta={"side": a.side.value},
    )


@command("utility", axis("eps"), axis("d"), N, axis("C"), WEIGHTS, UNITS, formula=_EQUAL)
def utility_command(a: Args) -> Result:
    """Utility U = 1/E‖w̄ − w̄_dp‖² at the minimum noise, server vs client side (eqs. 4.12-4.16, Thm 2).

    Example: dpcalc midp utility --eps 5 --d 100 --n 100 --C 10   (U = 10.517…)
    """
    axes, p_max, sum_p2, _ = _aggregation(a, "eps")
    kw = {"C": axes["C"], "p_max": p_max, "units": a.units}
    s_server = midp.server_sigma(axes["eps"], axes["d"], **kw)
    s_client = midp.client_sigma(axes["eps"], axes["d"], sum_p2=sum_p2, **kw)
    out = {"sigma_server": s_server, "sigma_client": s_client, "u_server": midp.utility_server(s_server, axes["d"]),
           "u_client": midp.utility_client(s_client, axes["d"], sum_p2)}
    return Result(
        columns=[*columns_for(_EQUAL, ["eps", "d", "N", "C"], units={"eps": a.units}),
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


ENTRIES = (sigma_command, Group("midp", "ε-MI-DP in federated learning (He & He, IEEE Access 2023).",
                                (leakage_command, utility_command, personalized_command, plan_command,
                                 clip_command)))
