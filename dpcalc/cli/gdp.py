"""``dpcalc gdp delta|eps|mu|compose|clt|tradeoff``: μ-Gaussian differential privacy (Dong, Roth & Su 2022)."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer

from dpcalc.accounting import gdp
from dpcalc.cli._common import (
    AsPublishedOpt,
    ForceOpt,
    FormatOpt,
    JsonOpt,
    OutputOpt,
    capture_warnings,
    handle_errors,
    pick_format,
)
from dpcalc.errors import DomainError
from dpcalc.report.grid import flatten, grid, parse_values, parse_vector
from dpcalc.report.render import Column, Format, Result, emit

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
_COLS = {
    "mu": Column("mu", "μ", r"$\mu$"),
    "eps": Column("eps", "ε (nats)", r"$\epsilon$"),
    "delta": Column("delta", "δ", r"$\delta$"),
    "log_delta": Column("log_delta", "ln δ", r"$\ln\delta$"),
}


def _emit(result: Result, fmt: Format, json_: bool, output: Any, force: bool) -> None:
    emit(result, pick_format(fmt, json_), output, force)


@gdp_app.command("delta")
@handle_errors
def delta_command(mu: MuOpt, eps: EpsOpt, fmt: FormatOpt = Format.table, json_: JsonOpt = False,
                  output: OutputOpt = None, force: ForceOpt = False) -> None:
    """δ(ε; μ): the smallest δ with μ-GDP ⇒ (ε, δ)-DP; log δ is exact far below 1e-308.

    Example: dpcalc gdp delta --mu 1 --eps 40   (δ = 3.908971e-343, ln δ = -788.4234127739917)
    """
    axes = grid({"mu": parse_values("--mu", mu), "eps": parse_values("--eps", eps)})
    with capture_warnings() as warns:
        log_d = gdp.log_delta_from_eps(axes["eps"], axes["mu"])
    delta = np.exp(np.asarray(log_d, dtype=np.float64))
    rows: list[dict[str, Any]] = list(flatten(axes, {"delta": delta, "log_delta": log_d}))
    cols = [_COLS["mu"], _COLS["eps"], _COLS["delta"], _COLS["log_delta"]]
    if any(row["delta"] == 0.0 for row in rows):  # below the double range: δ (0.0 as a float) written from its log
        for row in rows:
            row["delta_decimal"] = _tiny(row["log_delta"])
        cols.append(Column("delta_decimal", "δ (from ln δ)", r"$\delta$", text=True))
        warns.append("delta underflows a double (< 4.9e-324) in some rows: delta is 0.0 there; log_delta is exact")
    result = Result(columns=cols, rows=rows,
                    title="δ(ε) of μ-GDP", note=_NOTE, formula="gdp.delta_from_eps",
                    units={"eps": "nats", "delta": "probability", "log_delta": "nats"}, warnings=warns)
    _emit(result, fmt, json_, output, force)


def _tiny(log_d: float) -> str:
    """δ = e^{log_d} written as m·10^k when it underflows a double."""
    log10 = log_d / np.log(10.0)
    k = int(np.floor(log10))
    return f"{10 ** (log10 - k):.6f}e{k}"


@gdp_app.command("eps")
@handle_errors
def eps_command(mu: MuOpt, delta: TargetDeltaOpt = None, log_delta: LogDeltaOpt = None, fmt: FormatOpt = Format.table,
                json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False) -> None:
    """ε(μ, δ): the smallest ε with μ-GDP ⇒ (ε, δ)-DP (root finding, safe side, rtol 1e-12).

    Example: dpcalc gdp eps --mu 0.25 --delta 1e-5   (ε = 0.92634150…; seed 002 prints 0.92);
    dpcalc gdp eps --mu 1 --log-delta -788.4234127739917   (ε = 40)
    """
    key, values = _delta_axis(delta, log_delta)
    axes = grid({"mu": parse_values("--mu", mu), key: values})
    with capture_warnings() as warns:
        e = gdp.eps_from_mu(axes["mu"], **{key: axes[key]})
    result = Result(columns=[_COLS["mu"], _COLS["delta"], _COLS["eps"], _COLS["log_delta"]],
                    rows=flatten(axes, {"eps": e, **_delta_cols(axes, key)}),
                    title="ε(μ, δ) of μ-GDP", note=_NOTE + " ε is an upper bound within 1e-12 relative (safe side).",
                    formula="gdp.delta_from_eps", units={"eps": "nats", "log_delta": "nats"}, warnings=warns)
    _emit(result, fmt, json_, output, force)


@gdp_app.command("mu")
@handle_errors
def mu_command(eps: EpsOpt, delta: TargetDeltaOpt = None, log_delta: LogDeltaOpt = None, fmt: FormatOpt = Format.table,
               json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False) -> None:
    """μ(ε, δ): the largest μ such that μ-GDP ⇒ (ε, δ)-DP (root finding, safe side, rtol 1e-12).

    Example: dpcalc gdp mu --eps 0.92 --delta 1e-5   (μ = 0.2484391…)
    """
    key, values = _delta_axis(delta, log_delta)
    axes = grid({"eps": parse_values("--eps", eps), key: values})
    with capture_warnings() as warns:
        m = gdp.mu_from_eps(axes["eps"], **{key: axes[key]})
    result = Result(columns=[_COLS["eps"], _COLS["delta"], _COLS["mu"], _COLS["log_delta"]],
                    rows=flatten(axes, {"mu": m, **_delta_cols(axes, key)}),
                    title="μ(ε, δ) of μ-GDP", note=_NOTE + " μ is a lower bound within 1e-12 relative (safe side).",
                    formula="gdp.delta_from_eps", units={"eps": "nats", "log_delta": "nats"}, warnings=warns)
    _emit(result, fmt, json_, output, force)


@gdp_app.command("compose")
@handle_errors
def compose_command(
    mus: Annotated[str, typer.Option("--mus", help="μ_i of the composed mechanisms: a comma list or a file.")],
    delta: Annotated[str, typer.Option("--delta", help="δ at which to report ε (value, list or range).")] = "1e-5",
    fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False,
) -> None:
    """Compose μ_i-GDP mechanisms: μ = √(Σ μ_i²) (Dong et al. 2022, Cor. 3.3), with its ε at each δ.

    Example: dpcalc gdp compose --mus 0.5,0.5,0.7071 --delta 1e-5   (μ = 0.99999…, ε = 4.3771…)
    """
    vec = parse_vector("--mus", mus)
    deltas = parse_values("--delta", delta)
    with capture_warnings() as warns:
        mu = gdp.compose(vec)
        e = gdp.eps_from_mu(mu, np.asarray(deltas)) if mu > 0 else np.zeros(len(deltas))
    rows = [{"n": float(len(vec)), "mu": mu, "delta": d, "eps": float(x), "log_delta": float(np.log(d))}
            for d, x in zip(deltas, np.atleast_1d(e), strict=True)]
    result = Result(columns=[Column("n", "n", "$n$", integer=True), _COLS["mu"], _COLS["delta"], _COLS["eps"],
                             _COLS["log_delta"]], rows=rows, title="Composition of μ-GDP mechanisms",
                    note=_NOTE, formula="gdp.compose", units={"eps": "nats"}, warnings=warns, meta={"mus": vec})
    _emit(result, fmt, json_, output, force)


@gdp_app.command("clt")
@handle_errors
def clt_command(
    q: Annotated[str, typer.Option("--q", help="Poisson sampling rate q in (0, 1].")],
    sigma: Annotated[str, typer.Option("--sigma", help="Noise multiplier σ > 0.")],
    steps: Annotated[str, typer.Option("--steps", help="Number of steps T (integer >= 1).")],
    delta: DeltaOpt = "1e-5",
    as_published: AsPublishedOpt = False,
    fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False,
) -> None:
    """Privacy CLT: μ = q·√(T(e^{1/σ²} − 1)) and its ε (an ESTIMATE: it can underestimate).

    Corrected Theorem 4 of seed 002 (erratum E1); --as-published adds the printed q·√T·(e^{1/σ²} − 1).
    Example: dpcalc gdp clt --q 0.01 --sigma 1 --steps 1000 --delta 1e-5   (μ = 0.41452, ε = 1.6177)
    """
    axes = grid({"q": parse_values("--q", q), "sigma": parse_values("--sigma", sigma),
                 "steps": parse_values("--steps", steps), "delta": parse_values("--delta", delta)})
    with capture_warnings() as warns:
        mu = gdp.clt_mu(axes["q"], axes["sigma"], axes["steps"])
        out: dict[str, Any] = {"mu": mu, "eps": gdp.eps_from_mu(mu, axes["delta"]),
                               "log_delta": np.log(axes["delta"])}
        if as_published:
            pub = gdp.clt_mu(axes["q"], axes["sigma"], axes["steps"], as_published=True)
            out["mu_published"] = pub
            out["eps_published"] = gdp.eps_from_mu(pub, axes["delta"])
    cols = [Column("q", "q", "$q$"), Column("sigma", "σ", r"$\sigma$"), Column("steps", "T", "$T$", integer=True),
            _COLS["delta"], _COLS["mu"], _COLS["eps"], _COLS["log_delta"]]
    if as_published:
        cols += [Column("mu_published", "μ (as published, E1)", r"$\mu_{\mathrm{pub}}$"),
                 Column("eps_published", "ε (as published)", r"$\epsilon_{\mathrm{pub}}$")]
    result = Result(columns=cols, rows=flatten(axes, out), title="GDP central limit theorem (estimate)",
                    note="bound: estimate. " + gdp.CLT_WARNING, formula="gdp.clt_mu",
                    units={"eps": "nats"}, warnings=warns, meta={"bound": "estimate"})
    _emit(result, fmt, json_, output, force)


@gdp_app.command("tradeoff")
@handle_errors
def tradeoff_command(
    mu: MuOpt,
    alpha: Annotated[str, typer.Option("--alpha", help="Type-I error α in [0, 1] (value, list or range).")],
    fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False,
) -> None:
    """The f-DP trade-off curve G_μ(α) = Φ(Φ^{-1}(1 − α) − μ): minimal type-II error at type-I error α.

    Example: dpcalc gdp tradeoff --mu 1 --alpha 0:1:0.25
    """
    axes = grid({"mu": parse_values("--mu", mu), "alpha": parse_values("--alpha", alpha)})
    with capture_warnings() as warns:
        beta = gdp.tradeoff(axes["alpha"], axes["mu"])
    result = Result(columns=[_COLS["mu"], Column("alpha", "α", r"$\alpha$"), Column("beta", "β = G_μ(α)", r"$\beta$")],
                    rows=flatten(axes, {"beta": beta}), title="μ-GDP trade-off function",
                    note="Dong, Roth & Su 2022, Def. 2.6; seed 002 Def. 3.", formula="gdp.tradeoff", warnings=warns)
    _emit(result, fmt, json_, output, force)


def register(app: typer.Typer) -> None:
    """Attach the ``gdp`` group to the root app."""
    app.add_typer(gdp_app, name="gdp")
