"""``dpcalc distributed epsilon|calibrate|bits|failure``: the distributed discrete Gaussian (Kairouz, Liu & Steinke
2021) and the distributed Skellam mechanism (Agarwal, Kairouz & Liu 2021) under secure aggregation. The library is
`dpcalc.distributed`; this module reads the options.

Units: --clip and --sigma (each client's noise std) and --gamma (the grid step) in parameter units; Δ₂, Δ₁ and the
noise on the grid in grid units. Training terms --clients --clients-per-round --rounds give q = n/N, n noise
shares and the rounds.
"""

from __future__ import annotations

import math
from typing import Any

from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import Opt, axis, choice, integer, one, real
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

_RDP = "distributed.ddg_rdp"
_FORMULAS = ["distributed.rounded_l2_bound", "distributed.ddg_rdp", "distributed.skellam_rdp"]
_PIPELINE = "dpcalc.accounting.distributed.pipeline:Pipeline"

MECHANISM = choice("mechanism", ("ddg", "skellam"), formula="-", default="ddg",
                   help="ddg: distributed discrete Gaussian (Kairouz, Liu & Steinke 2021); skellam: distributed "
                        "Skellam (Agarwal, Kairouz & Liu 2021)")
CLIP = one("c", option="--clip", formula="-", help="ℓ2 clipping norm of a client update (parameter units)")
SIGMA = one("sigma", formula="-", help="Each client's noise std (parameter units; the sum of n has std σ√n)")
GAMMA = one("gamma", formula="-", default=None,
            help="Grid step γ (parameter units); default: from --bits by the k-standard-deviation rule")
BITS = integer("bits", formula="-", default=None, help="Bit width of the modular sum (modulus 2^bits, at most 62)")
N = integer("n", formula="-", default=None, help="Noise shares summed per round (the clients per round, or fewer "
                                                 "when clients may drop out)")
D = integer("d", formula="-", help="Dimension of the (padded) update")
BETA = one("beta", formula="-", default_from=_PIPELINE,
           help="Conditional-rounding parameter β in [0, 1) (the rounding is redone until ‖x̃‖ <= Δ₂)")
Q = one("q", formula="-", default=None, help="Poisson sampling rate of clients per round (default 1)")
ROUNDS = integer("rounds", formula="-", default=None, help="Rounds R (RDP composes over them)")
CLIENTS = integer("clients", formula="-", default=None, help="Federated clients N (with --clients-per-round: q = n/N)")
PER_ROUND = integer("clients_per_round", formula="-", default=None, help="Clients n sampled per round")
DELTA = one("delta", formula="-", help="Target δ of the (ε, δ) guarantee")
K = real("k", formula="-", default=4.0, help="Standard deviations of the aggregate the modulus must hold (k-σ rule)")
NEIGHBOURS = Opt("neighbours", "text", formula="-", default="add-remove",
                 help="add-remove (a client's data present or absent; its noise share stays), replace-special or "
                      "replace-one (an update replaced by another: twice the shift; no Poisson sampling)")
_TRAINING = (CLIENTS, PER_ROUND, ROUNDS, Q, N)


def _terms(a: Args) -> dict[str, Any]:
    """q, n and rounds from --clients --clients-per-round --rounds or from --q --n --rounds."""
    from dpcalc.distributed import training_terms

    if a.clients is not None or a.clients_per_round is not None:
        if a.clients is None or a.clients_per_round is None or a.rounds is None:
            raise DomainError("give --clients, --clients-per-round and --rounds together (or --n with --q and "
                              "--rounds)")
        if a.q is not None:
            raise DomainError("give either --q or --clients with --clients-per-round (q = n/N), not both")
        t = training_terms(a.clients, a.clients_per_round, a.rounds)
        if a.n is not None:  # fewer guaranteed noise shares (dropouts)
            if a.n > t["n"]:
                raise DomainError(f"--n must be <= --clients-per-round ({t['n']}) (got {a.n})")
            t["n"] = a.n
        return t
    if a.n is None:
        raise DomainError("give --n (noise shares per round) or --clients with --clients-per-round")
    return {"q": 1.0 if a.q is None else a.q, "n": a.n, "rounds": 1 if a.rounds is None else a.rounds}


def _relation(a: Args) -> str:
    from dpcalc.accounting.events.relation import relation

    return relation(a.neighbours)


def _pipeline(a: Args, sigma: float, gamma: float) -> Any:
    from dpcalc.distributed import Pipeline

    t = _terms(a)
    return Pipeline(a.mechanism, c=a.c, sigma=sigma, gamma=gamma, n=int(t["n"]), d=a.d, beta=a.beta, q=t["q"],
                    rounds=int(t["rounds"]), relation=_relation(a))


def _gamma(a: Args) -> float:
    from dpcalc.distributed import modular, scale_for_bits

    n = int(_terms(a)["n"])
    if a.gamma is None:
        if a.bits is None:
            raise DomainError("give --gamma (the grid step) or --bits (γ from the k-standard-deviation rule)")
        return float(scale_for_bits(a.bits, a.c, a.sigma, n, a.d, k=a.k))
    if a.bits is not None:
        modular.check_modulus(a.bits, a.c, a.gamma, a.sigma, n, a.d, k=a.k)
    return float(a.gamma)


def _row_columns() -> list[Column]:
    return [Column("mechanism", "mechanism", "mechanism", text=True),
            Column("eps", "ε (nats)", r"$\epsilon$", unit="nats"), Column("delta", "δ", r"$\delta$"),
            Column("order", "best order α", r"$\alpha$"),
            Column("gamma", "γ (grid step)", r"$\gamma$", unit="parameter units"),
            Column("l2", "Δ₂ (grid)", r"$\Delta_2$", unit="grid units"),
            Column("l1", "Δ₁ (grid)", r"$\Delta_1$", unit="grid units"),
            Column("sigma_grid", "σ/γ (grid)", r"$\sigma/\gamma$", unit="grid units"),
            Column("z", "noise multiplier σ√n/c", "$z$", unit="noise std / clipping norm"),
            Column("wrap", "P(wrap) <=", r"$P_{\mathrm{wrap}}$", unit="probability")]


def _wrap(a: Args, p: Any, bits: int | None) -> float | None:
    from dpcalc.distributed import modular_failure_bound

    if bits is None:
        return None
    return modular_failure_bound(bits, p.c, p.gamma, p.sigma, p.n, p.d, p.mechanism, beta=p.beta)


def _note(p: Any) -> str:
    return (f"n = {p.n} noise shares, d = {p.d}, clip {p.c:g}, β = {p.beta:.4g}, q = {p.q:g}, {p.rounds} round(s), "
            f"{p.relation.replace('_', '-')}. RDP bound per round (Prop. 14 / Cor. 4.1), Poisson sampling by Zhu & "
            "Wang 2019 (Thm. 6), converted at the best order (Balle et al. 2020). P(wrap): the sub-Gaussian union "
            "bound that the modular sum wraps around in a round (utility, not privacy).")


@command("epsilon", MECHANISM, CLIP, SIGMA, GAMMA, BITS, D, DELTA, *_TRAINING, BETA, K, NEIGHBOURS, formula=_RDP,
         work=1.0)
def epsilon_command(a: Args) -> Result:
    """ε of the distributed discrete Gaussian or Skellam pipeline over rounds with Poisson sampling of clients.

    Example: dpcalc distributed epsilon --clip 1 --sigma 0.5 --bits 16 --d 4096 --n 100 --q 0.1 --delta 1e-5
    """
    from dpcalc.distributed import epsilon

    gamma = _gamma(a)
    p = _pipeline(a, a.sigma, gamma)
    res = epsilon(p, a.delta)
    row = {"mechanism": p.mechanism, "eps": res.eps, "delta": res.delta, "order": res.order, "gamma": gamma,
           "l2": res.l2_sensitivity, "l1": res.l1_sensitivity, "sigma_grid": res.sigma_grid,
           "z": p.sigma * math.sqrt(p.n) / p.c, "wrap": _wrap(a, p, a.bits)}
    return Result(columns=_row_columns(), rows=[row], title="ε of the distributed pipeline", note=_note(p),
                  formula=_FORMULAS)


@command("calibrate", MECHANISM, CLIP, one("eps", formula="-", help="Target ε (nats)"), DELTA, BITS, GAMMA, D,
         *_TRAINING, BETA, K,
         one("failure", formula="-", default=None,
             help="With --bits: choose γ so that the proven wrap-around bound is at most this (instead of the k-σ "
                  "rule)"), NEIGHBOURS, formula=_RDP, work=30.0)
def calibrate_command(a: Args) -> Result:
    """The per-client noise σ for a target ε, at a given grid step --gamma or, with --bits, with the grid step the
    bit width allows.

    Example: dpcalc distributed calibrate --clip 1 --eps 8 --delta 1e-5 --bits 16 --d 4096 --n 100 --q 0.1 --rounds 200
    """
    from dataclasses import replace

    from dpcalc.distributed import calibrate_for_bits, calibrate_sigma, epsilon

    if (a.bits is None) == (a.gamma is None):
        raise DomainError("give exactly one of --bits (σ and γ together) and --gamma (σ at that grid step)")
    base = _pipeline(a, a.c, 1.0 if a.gamma is None else a.gamma)
    if a.bits is not None:
        cal = calibrate_for_bits(base, a.eps, a.delta, a.bits, k=a.k, failure=a.failure)
        sigma, gamma, wrap = cal.sigma, cal.gamma, cal.modular_failure
    else:
        if a.failure is not None:
            raise DomainError("--failure needs --bits")
        sigma, gamma, wrap = calibrate_sigma(base, a.eps, a.delta), float(a.gamma), None
    p = replace(base, sigma=sigma, gamma=gamma)
    res = epsilon(p, a.delta)
    row = {"mechanism": p.mechanism, "sigma": sigma, "eps": res.eps, "delta": res.delta, "order": res.order,
           "gamma": gamma, "l2": res.l2_sensitivity, "l1": res.l1_sensitivity, "sigma_grid": res.sigma_grid,
           "z": sigma * math.sqrt(p.n) / p.c, "wrap": wrap}
    cols = _row_columns()
    cols.insert(1, Column("sigma", "σ per client", r"$\sigma$", unit="parameter units"))
    return Result(columns=cols, rows=[row], title="Per-client noise for a target ε", formula=_FORMULAS,
                  note=_note(p) + " σ is on the safe side: its ε is at most the target.")


@command("bits", axis("bits", formula="-", sweep="10:20:2", help="Bit widths (a value, list or range)"), MECHANISM,
         CLIP, SIGMA, D, DELTA, *_TRAINING, BETA, K, formula=_RDP, work=0.2)
def bits_command(a: Args) -> Result:
    """ε against the bit width at a fixed per-client noise: the grid step grows as the bits shrink (k-σ rule), the
    rounding inflates Δ₂, and ε grows.

    Example: dpcalc distributed bits --bits 10,14,20 --clip 1 --sigma 0.5 --d 4096 --n 100 --q 0.1 --delta 1e-5
    """
    from dpcalc.distributed import epsilon_for_bits, scale_for_bits

    t = _terms(a)
    rows = []
    for b in a.bits:
        eps = float(epsilon_for_bits(b, a.mechanism, a.c, a.sigma, int(t["n"]), a.d, a.delta, q=t["q"],
                                     rounds=int(t["rounds"]), beta=a.beta, k=a.k))
        rows.append({"bits": b, "gamma": float(scale_for_bits(b, a.c, a.sigma, int(t["n"]), a.d, k=a.k)),
                     "eps": eps})
    return Result(columns=[Column("bits", "bits", "$b$", integer=True, unit="bits"),
                           Column("gamma", "γ (grid step)", r"$\gamma$", unit="parameter units"),
                           Column("eps", "ε (nats)", r"$\epsilon$", unit="nats")], rows=rows,
                  title=f"ε against bit width ({a.mechanism})", formula=[*_FORMULAS, "distributed.scale_for_bits"],
                  note=f"σ = {a.sigma:g} per client, n = {int(t['n'])}, q = {t['q']:g}, {int(t['rounds'])} rounds, "
                       f"δ = {a.delta:g}; γ from the {a.k:g}-σ rule.")


@command("failure", BITS, CLIP, GAMMA, SIGMA, N, D, BETA, MECHANISM, formula="distributed.modular_failure_bound")
def failure_command(a: Args) -> Result:
    """The rounding and modular-arithmetic terms of one round: Δ₂ after conditional rounding, the expected number
    of roundings and the bias they leave, and the bound on the probability that the modular sum wraps around.

    Example: dpcalc distributed failure --bits 16 --clip 1 --gamma 0.001 --sigma 0.5 --n 100 --d 65536
    """
    from dpcalc import distributed as dd

    if a.bits is None or a.gamma is None or a.n is None:
        raise DomainError("give --bits, --gamma and --n")
    row = {"l2": float(dd.rounded_l2_bound(a.c / a.gamma, a.d, a.beta)),
           "attempts": float(dd.expected_rounding_attempts(a.beta)), "bias": float(dd.rounding_bias_bound(a.beta)),
           "std": float(dd.aggregate_std(a.c, a.gamma, a.sigma, a.n, a.d)),
           "wrap": dd.modular_failure_bound(a.bits, a.c, a.gamma, a.sigma, a.n, a.d, a.mechanism, beta=a.beta)}
    cols = [Column("l2", "Δ₂ (grid)", r"$\Delta_2$", unit="grid units"),
            Column("attempts", "roundings <= (expected)", "attempts"),
            Column("bias", "mean shift per coordinate <=", "bias", unit="grid units"),
            Column("std", "aggregate std <=", "std", unit="grid units"),
            Column("wrap", "P(wrap) <=", r"$P_{\mathrm{wrap}}$", unit="probability")]
    return Result(columns=cols, rows=[row], title="Rounding and modular-clipping terms",
                  formula=["distributed.rounded_l2_bound", "distributed.modular_failure_bound"],
                  note=f"modulus 2^{a.bits}, γ = {a.gamma:g}, n = {a.n}, d = {a.d}, β = {a.beta:.4g}, {a.mechanism}")


ENTRIES = (Group("distributed", "Distributed DP under secure aggregation: distributed discrete Gaussian and Skellam.",
                 (epsilon_command, calibrate_command, bits_command, failure_command)),)
