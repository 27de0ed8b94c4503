"""``dpcalc gdp delta|eps|mu|compose|clt|tradeoff``: μ-Gaussian differential privacy (Dong, Roth & Su 2022)."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from dpcalc import _validate as v
from dpcalc.accounting import gdp
from dpcalc.cli._common import AsPublishedOpt, NoiseMultiplierOpt, command
from dpcalc.errors import DomainError
from dpcalc.report.columns import column
from dpcalc.report.grid import flatten, grid, parse_values, parse_vector
from dpcalc.report.render import Column, Result

gdp_app = typer.Typer(help="μ-Gaussian differential privacy: δ(ε; μ), ε(μ, δ), μ(ε, δ), composition, CLT.",
                      no_args_is_help=True)

MuOpt = Annotated[str, typer.Option("--mu", help="GDP parameter μ > 0 (value, list a,b or range a:b:step).")]
EpsOpt = Annotated[str, typer.Option("--eps", help="ε >= 0 in nats (value, list or range).")]
DeltaOpt = Annotated[str, typer.Option("--delta", help="δ in (0, 1) (value, list or range).")]
TargetDeltaOpt = Annotated[str | None, typer.Option("--delta", help="δ in (0, 1) (value, list or range).")]
LogDeltaOpt = Annotated[str | None, typer.Option("--log-delta", help="ln δ < 0 instead of --delta (reaches below "
                                                                     "1e-308, e.g. -800).")]


def _delta_axis(delta: str | None, log_delta: str | None) -> tuple[str, list[float]]:
    """The δ axis: ("delta", values) or ("log_delta", values); exactly one of the two options."""
    if (delta is None) == (log_delta is None):
        raise DomainError("give exactly one of --delta and --log-delta")
    if log_delta is not None:
        return "log_delta", parse_values("--log-delta", log_delta)
    return "delta", parse_values("--delta", delta)  # type: ignore[arg-type]


def _delta_cols(axes: dict[str, Any], key: str) -> dict[str, Any]:
    """Rows always carry both delta and log_delta."""
    if key == "delta":
        return {"log_delta": np.log(axes["delta"])}
    return {"delta": np.exp(axes["log_delta"])}

_NOTE = ("μ-GDP ⇔ (ε, δ(ε))-DP for every ε >= 0 (Dong, Roth & Su 2022, Cor. 2.13); δ(ε; μ) = Φ(−ε/μ + μ/2) − "
         "e^ε Φ(−ε/μ − μ/2), computed in log space; log_delta is natural log and stays finite below 1e-308.")
_PROFILE = "gdp.delta_from_eps"  # declares mu, eps and delta
# The inverses' own catalog ids (each checked by the shared round-trip recipe).
_INVERSE = {"eps": "gdp.eps_from_mu", "mu": "gdp.mu_from_eps"}


class _Columns:
    """μ, ε, δ and ln δ columns from the catalog, built on first use (start-up reads no catalog)."""

    def __getitem__(self, name: str) -> Column:
        if name == "log_delta":
            return column("gdp.log_delta_from_eps", "log_delta", label="ln δ")
        return column(_PROFILE, name)


_COLS = _Columns()


@command(gdp_app, "delta")
def delta_command(mu: MuOpt, eps: EpsOpt) -> Result:
    """δ(ε; μ): the smallest δ with μ-GDP ⇒ (ε, δ)-DP; log δ is exact far below 1e-308.

    Example: dpcalc gdp delta --mu 1 --eps 40   (δ = 3.908971e-343, ln δ = -788.4234127739917)
    """
    axes = grid({"mu": parse_values("--mu", mu), "eps": parse_values("--eps", eps)})
    log_d = gdp.log_delta(axes["mu"], axes["eps"])
    delta = np.exp(np.asarray(log_d, dtype=np.float64))
    rows = flatten(axes, {"delta": delta, "log_delta": log_d})  # column-stored
    warns: list[str] = []
    cols = [_COLS["mu"], _COLS["eps"], _COLS["delta"], _COLS["log_delta"]]
    if np.any(delta == 0.0):  # below the double range: δ (0.0 as a float) written from its log, as text
        rows = rows.with_texts(delta_decimal=_tiny(rows.data["log_delta"]))
        cols.append(Column("delta_decimal", "δ (from ln δ)", r"$\delta$", text=True))
        warns.append("delta underflows a double (< 4.9e-324) in some rows: delta is 0.0 there; log_delta is exact")
    return Result(columns=cols, rows=rows, title="δ(ε) of μ-GDP", note=_NOTE,
                  formula=["gdp.delta_from_eps", "gdp.log_delta_from_eps"], warnings=warns)


def _tiny(log_d: np.ndarray) -> list[str]:
    """δ = e^{log_d} written as m·10^k (m in [1, 10), 6 decimals) for every row: it underflows a double."""
    log10 = np.asarray(log_d, dtype=np.float64) / np.log(10.0)
    k = np.floor(log10)
    m = np.round(10.0 ** (log10 - k), 6)
    up = m >= 10.0  # 9.9999997 rounds to 10: write 1.000000 of the next power
    m[up] /= 10.0
    k[up] += 1.0
    return [f"{a:.6f}e{b}" for a, b in zip(m.tolist(), k.astype(np.int64).tolist(), strict=True)]


@command(gdp_app, "eps")
def eps_command(mu: MuOpt, delta: TargetDeltaOpt = None, log_delta: LogDeltaOpt = None) -> Result:
    """ε(μ, δ): the smallest ε with μ-GDP ⇒ (ε, δ)-DP (root finding, safe side, rtol 1e-12).

    Example: dpcalc gdp eps --mu 0.25 --delta 1e-5   (ε = 0.92634150…; seed 002 prints 0.92);
    dpcalc gdp eps --mu 1 --log-delta -788.4234127739917   (ε = 40)
    """
    key, values = _delta_axis(delta, log_delta)
    axes = grid({"mu": parse_values("--mu", mu), key: values})
    e = gdp.eps_from_mu(axes["mu"], **{key: axes[key]})
    return Result(columns=[_COLS["mu"], _COLS["delta"], _COLS["eps"], _COLS["log_delta"]],
                  rows=flatten(axes, {"eps": e, **_delta_cols(axes, key)}),
                  title="ε(μ, δ) of μ-GDP", note=_NOTE + " ε is an upper bound within 1e-12 relative (safe side).",
                  formula=_INVERSE["eps"])


@command(gdp_app, "mu")
def mu_command(eps: EpsOpt, delta: TargetDeltaOpt = None, log_delta: LogDeltaOpt = None) -> Result:
    """μ(ε, δ): the largest μ such that μ-GDP ⇒ (ε, δ)-DP (root finding, safe side, rtol 1e-12).

    Example: dpcalc gdp mu --eps 0.92 --delta 1e-5   (μ = 0.2484391…)
    """
    key, values = _delta_axis(delta, log_delta)
    axes = grid({"eps": parse_values("--eps", eps), key: values})
    m = gdp.mu_from_eps(axes["eps"], **{key: axes[key]})
    return Result(columns=[_COLS["eps"], _COLS["delta"], _COLS["mu"], _COLS["log_delta"]],
                  rows=flatten(axes, {"mu": m, **_delta_cols(axes, key)}),
                  title="μ(ε, δ) of μ-GDP", note=_NOTE + " μ is a lower bound within 1e-12 relative (safe side).",
                  formula=_INVERSE["mu"])


@command(gdp_app, "compose")
def compose_command(
    mus: Annotated[str, typer.Option("--mus", help="μ_i of the composed mechanisms: a comma list or a file.")],
    delta: Annotated[str, typer.Option("--delta", help="δ at which to report ε (value, list or range).")] = "1e-5",
) -> Result:
    """Compose μ_i-GDP mechanisms: μ = √(Σ μ_i²) (Dong et al. 2022, Cor. 3.3), with its ε at each δ.

    Example: dpcalc gdp compose --mus 0.5,0.5,0.7071 --delta 1e-5   (μ = 0.99999…, ε = 4.3771…)
    """
    vec = parse_vector("--mus", mus)
    deltas = parse_values("--delta", delta)
    mu = gdp.compose(vec)
    e = gdp.eps_from_mu(mu, np.asarray(deltas))
    rows = [{"n": float(len(vec)), "mu": mu, "delta": d, "eps": float(x), "log_delta": float(np.log(d))}
            for d, x in zip(deltas, np.atleast_1d(e), strict=True)]
    return Result(columns=[Column("n", "n", "$n$", integer=True), _COLS["mu"], _COLS["delta"], _COLS["eps"],
                           _COLS["log_delta"]], rows=rows, title="Composition of μ-GDP mechanisms",
                  note=_NOTE, formula=["gdp.compose", _INVERSE["eps"]], meta={"mus": vec})


@command(gdp_app, "clt")
def clt_command(
    q: Annotated[str, typer.Option("--q", help="Poisson sampling rate q in (0, 1].")],
    noise_multiplier: NoiseMultiplierOpt,
    steps: Annotated[str, typer.Option("--steps", help="Number of steps T (integer >= 1).")],
    delta: DeltaOpt = "1e-5",
    as_published: AsPublishedOpt = False,
) -> Result:
    """Privacy CLT: μ = q·√(T(e^{1/σ²} − 1)) and its ε (an ESTIMATE: it can underestimate).

    Corrected Theorem 4 of seed 002 (erratum E1); --as-published adds the printed q·√T·(e^{1/σ²} − 1).
    Example: dpcalc gdp clt --q 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5   (μ = 0.41452, ε = 1.6177)
    """
    axes = grid({"q": parse_values("--q", q), "noise_multiplier": parse_values("--noise-multiplier", noise_multiplier),
                 "steps": parse_values("--steps", steps), "delta": parse_values("--delta", delta)})
    v.check_range("q", axes["q"], 0.0, 1.0, lo_open=True)  # q first, as the library checks it
    v.positive("noise_multiplier", axes["noise_multiplier"])  # the library calls it sigma; the option is -z
    mu = gdp.clt_mu(axes["q"], axes["noise_multiplier"], axes["steps"])
    out: dict[str, Any] = {"mu": mu, "eps": gdp.eps_from_mu(mu, axes["delta"]), "log_delta": np.log(axes["delta"])}
    if as_published:
        pub = gdp.clt_mu(axes["q"], axes["noise_multiplier"], axes["steps"], as_published=True)
        out["mu_published"] = pub
        out["eps_published"] = gdp.eps_from_mu(pub, axes["delta"])
    cols = [column("gdp.clt_mu", "q"), column("gdp.clt_mu", "sigma", key="noise_multiplier", label="z"),
            column("gdp.clt_mu", "steps"), _COLS["delta"], _COLS["mu"], _COLS["eps"], _COLS["log_delta"]]
    if as_published:
        cols += [column("gdp.clt_mu", "mu", key="mu_published", label="μ (as published, E1)"),
                 column(_PROFILE, "eps", key="eps_published", label="ε (as published)")]
    return Result(columns=cols, rows=flatten(axes, out), title="GDP central limit theorem (estimate)",
                  note="bound: estimate. " + gdp.CLT_WARNING, formula=["gdp.clt_mu", _INVERSE["eps"]],
                  meta={"bound": "estimate"})


@command(gdp_app, "tradeoff")
def tradeoff_command(
    mu: MuOpt,
    alpha: Annotated[str, typer.Option("--alpha", help="Type-I error α in [0, 1] (value, list or range).")],
) -> Result:
    """The f-DP trade-off curve G_μ(α) = Φ(Φ^{-1}(1 − α) − μ): minimal type-II error at type-I error α.

    Example: dpcalc gdp tradeoff --mu 1 --alpha 0:1:0.25
    """
    axes = grid({"mu": parse_values("--mu", mu), "alpha": parse_values("--alpha", alpha)})
    beta = gdp.tradeoff(axes["alpha"], axes["mu"])
    return Result(columns=[_COLS["mu"], column("gdp.tradeoff", "alpha"),
                           column("gdp.tradeoff", "beta", label="β = G_μ(α)")],
                  rows=flatten(axes, {"beta": beta}), title="μ-GDP trade-off function",
                  note="Dong, Roth & Su 2022, Def. 2.6; seed 002 Def. 3.", formula="gdp.tradeoff")


def register(app: typer.Typer) -> None:
    """Attach the ``gdp`` group to the root app."""
    app.add_typer(gdp_app, name="gdp")
