"""``dpcalc sigma``: the minimum Gaussian noise for client-level ε-MI-DP (He & He 2023), and the aggregation options
it shares with ``dpcalc midp leakage|utility`` (`dpcalc.cli.midp`). Its own module: the start-up of the most
used command compiles only what it runs.
"""

from __future__ import annotations

from typing import Any

from dpcalc import midp
from dpcalc.cli.command import Args, command
from dpcalc.cli.options import axis, choice, units, vector
from dpcalc.errors import DomainError
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten, grid
from dpcalc.report.render import Result

__all__ = [
    "AGGREGATION",
    "ENTRIES",
    "EQUAL",
    "SIDE_LABEL",
    "UNITS",
    "WEIGHTS",
    "N",
    "aggregation",
    "key",
    "per_side",
    "sides",
]


SIDE_LABEL = {"server": "server side", "client": "client side", "both": "server and client side"}
_SIGMA = {"server": "midp.server_sigma", "client": "midp.client_sigma"}
_LEAKAGE = {"server": "midp.server_leakage", "client": "midp.client_leakage"}
EQUAL = "midp.server_sigma_equal"  # declares eps, d, C, N

SIDE = choice("side", ("server", "client", "both"), default="server", help="Where the Gaussian noise is added")
N = axis("N", formula=EQUAL, default=None, note="Default: 1 (equal weights 1/N), or the length of --weights")
WEIGHTS = vector("weights", formula="-", default=None, help="Aggregation weights p_i, summing to 1",
                 note="Instead of equal weights; --n is then their number")
UNITS = units(midp.server_sigma)
AGGREGATION = (axis("d"), SIDE, N, axis("C"), WEIGHTS, UNITS)

_GUARANTEE = ("Guarantee: client-level ε-MI-DP, sup I(w_i; w̄ | w^(-i)) <= ε {units}, for any data with "
              "‖w_i‖ <= C, via the Gaussian max-entropy upper bound (He & He 2023, eqs. 1.40/2.47): the σ is "
              "sufficient, not proven minimal. Per round, no composition across rounds.")


def sides(side: str) -> list[str]:
    return ["server", "client"] if side == "both" else [side]


def key(name: str, side: str, which: str) -> str:
    """Output key: ``sigma`` for one side, ``sigma_server``/``sigma_client`` for both."""
    return f"{name}_{which}" if side == "both" else name


def aggregation(a: Args, first: str) -> tuple[dict[str, Any], Any, Any, dict[str, Any]]:
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


def per_side(side: str, name: str, server: Any, client: Any) -> dict[str, Any]:
    """The outputs of the chosen side(s): ``server()``/``client()`` evaluate one side each."""
    return {key(name, side, s): (server if s == "server" else client)() for s in sides(side)}


@command("sigma", axis("eps"), *AGGREGATION, formula=EQUAL)
def sigma_command(a: Args) -> Result:
    """Minimum Gaussian noise std σ for client-level ε-MI-DP (eqs. 4.7-4.11).

    Example: dpcalc sigma --eps 5 --d 1000   (σ = 0.3154375268…, server side, N = 1, C = 1)
    """
    axes, p_max, sum_p2, fixed = aggregation(a, "eps")
    kw = {"C": axes["C"], "p_max": p_max, "units": a.units}
    out = per_side(a.side, "sigma", lambda: midp.server_sigma(axes["eps"], axes["d"], **kw),
                    lambda: midp.client_sigma(axes["eps"], axes["d"], sum_p2=sum_p2, **kw))
    return Result(
        columns=columns_for(EQUAL, ["eps", "d", "N", "C"], units={"eps": a.units})
        + [column(_SIGMA[s], "sigma", key=key("sigma", a.side, s)) for s in sides(a.side)],
        rows=flatten(axes, out),
        title=f"Minimum Gaussian noise std for ε-MI-DP ({SIDE_LABEL[a.side]})",
        note=_GUARANTEE.format(units=a.units),
        formula=_SIGMA[a.side] if a.side != "both" else list(_SIGMA.values()),
        meta={"side": a.side, "weights": "equal (1/N)" if not fixed else fixed},
    )


ENTRIES = (sigma_command,)
