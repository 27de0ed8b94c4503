"""``dpcalc cuag sigma|audit|baseline``: the CUAG-PFL privacy analysis (seed 002, Li, Xiao & Chen 2024)."""

from __future__ import annotations

import warnings
from enum import Enum
from typing import Annotated, Any

import numpy as np
import typer

from dpcalc import cuag
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
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.report.grid import flatten, grid, parse_values
from dpcalc.report.render import Column, Format, Result, emit

cuag_app = typer.Typer(help="CUAG-PFL (seed 002): adaptive σ schedule (16), audit of its budget, baselines.",
                       no_args_is_help=True)

MuOpt = Annotated[str, typer.Option("--mu", help="Per-client GDP budget μ_n > 0 (value, list or range).")]
LamOpt = Annotated[str, typer.Option("--lam", help="Client participation rate λ in (0, 1].")]
BOpt = Annotated[str, typer.Option("--B", help="Local batch size B (integer >= 1).")]
DOpt = Annotated[str, typer.Option("--D", help="Local data set size |D_n| (integer; the paper never gives it).")]
POpt = Annotated[str, typer.Option("--P", help="Local steps per round P (integer >= 1).")]
DeltaOpt = Annotated[str, typer.Option("--delta", help="δ in (0, 1); the paper uses 1e-5.")]


@cuag_app.command("sigma")
@handle_errors
def sigma_command(
    mu: MuOpt = "0.25", lam: LamOpt = "0.1", B: BOpt = "50", D: DOpt = "500", P: POpt = "25",
    t: Annotated[str, typer.Option("--t", help="Round t >= 1 (erratum E3: t = 0 divides by zero).")] = "1",
    C: Annotated[str, typer.Option("--C", help="Clipping threshold C (for ξ).")] = "1",
    fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False,
) -> None:
    """σ_t of eq. (16) and the noise variance ξ of eq. (15) for round t.

    Example: dpcalc cuag sigma --mu 0.25 --D 500 --t 1,10,300   (σ = 0.710489, 1.435165, 6.964071)
    """
    axes = grid({"mu": parse_values("--mu", mu), "lam": parse_values("--lam", lam), "B": parse_values("--B", B),
                 "D": parse_values("--D", D), "P": parse_values("--P", P), "t": parse_values("--t", t),
                 "C": parse_values("--C", C)})
    with capture_warnings() as warns:
        args = (axes["mu"], axes["lam"], axes["B"], axes["D"], axes["t"], axes["P"])
        out = {"rho": cuag.sampling_rate(axes["lam"], axes["B"], axes["D"]), "sigma": cuag.sigma(*args),
               "xi": cuag.noise_variance(*args, axes["C"])}
    cols = [Column("mu", "μ", r"$\mu$"), Column("lam", "λ", r"$\lambda$"), Column("B", "B", "$B$", integer=True),
            Column("D", "|D|", "$|D|$", integer=True), Column("P", "P", "$P$", integer=True),
            Column("t", "t", "$t$", integer=True), Column("C", "C", "$C$"), Column("rho", "ρ = 2λB/|D|", r"$\rho$"),
            Column("sigma", "σ_t (16)", r"$\sigma_t$"), Column("xi", "ξ (15)", r"$\xi$")]
    result = Result(columns=cols, rows=flatten(axes, out), title="CUAG-PFL adaptive noise schedule",
                    note="σ_t makes t rounds of P subsampled steps at constant σ_t give μ by the privacy CLT (an "
                         "estimate). The schedule as a whole is NOT μ-GDP: see `dpcalc cuag audit` (erratum E15).",
                    formula=["cuag.sigma", "cuag.noise_variance"], units={"xi": "parameter units squared"},
                    warnings=warns)
    emit(result, pick_format(fmt, json_), output, force)


@cuag_app.command("audit")
@handle_errors
def audit_command(
    mu: MuOpt = "0.25",
    T: Annotated[str, typer.Option("--T", help="Number of rounds T (integer >= 1).")] = "300",
    delta: DeltaOpt = "1e-5",
    lam: Annotated[str | None, typer.Option("--lam", help="With --B --D --P: recompose the actual schedule.")] = None,
    B: Annotated[str | None, typer.Option("--B", help="Local batch size (optional, see --lam).")] = None,
    D: Annotated[str | None, typer.Option("--D", help="Local data size (optional, see --lam).")] = None,
    P: Annotated[str | None, typer.Option("--P", help="Local steps per round (optional, see --lam).")] = None,
    as_published: AsPublishedOpt = False,
    fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False,
) -> None:
    """Audit the "fixed privacy budget" claim: the schedule (16) over T rounds composes to μ·√H_T.

    Example: dpcalc cuag audit --mu 0.25 --T 300   (μ_eff = 0.626631, ε = 2.5675 at δ = 1e-5, not 0.92)
    """
    extra = {"lam": lam, "B": B, "D": D, "P": P}
    given = {k: float(parse_values(f"--{k}", x)[0]) for k, x in extra.items() if x is not None}
    if given and len(given) != 4:
        raise DomainError("give all of --lam, --B, --D, --P (to recompose the actual schedule) or none")
    rows: list[dict[str, Any]] = []
    with capture_warnings() as warns:
        for m in parse_values("--mu", mu):
            for tt in parse_values("--T", T):
                for d in parse_values("--delta", delta):
                    a = cuag.audit(m, tt, d, **given)  # type: ignore[arg-type]
                    row: dict[str, Any] = {"mu": m, "T": tt, "delta": d, "log_delta": float(np.log(d)),
                                           "eps_claimed": a.eps_claimed, "mu_eff": a.mu_effective,
                                           "eps": a.eps_effective, "ratio": a.ratio}
                    if a.mu_from_schedule is not None:
                        row["mu_schedule"] = a.mu_from_schedule
                    if as_published:
                        row["mu_published"] = float(cuag.claimed_mu(m, tt))
                    rows.append(row)
    cols = [Column("mu", "μ (claimed)", r"$\mu$"), Column("T", "T", "$T$", integer=True),
            Column("delta", "δ", r"$\delta$"), Column("eps_claimed", "ε claimed", r"$\epsilon_{\mathrm{claim}}$"),
            Column("mu_eff", "μ√H_T", r"$\mu_{\mathrm{eff}}$"), Column("eps", "ε actual", r"$\epsilon$"),
            Column("ratio", "ε ratio", "ratio"), Column("log_delta", "ln δ", r"$\ln\delta$")]
    if given:
        cols.append(Column("mu_schedule", "μ from σ_1..σ_T", r"$\mu_{\mathrm{sched}}$"))
    if as_published:
        cols.append(Column("mu_published", "μ as published (E15)", r"$\mu_{\mathrm{pub}}$"))
    result = Result(columns=cols, rows=rows, title="Audit of CUAG-PFL's fixed-budget claim (erratum E15)",
                    note="Round τ of schedule (16) contributes μ²/τ to the CLT μ², so after T rounds μ_eff = μ√H_T "
                         "(independent of |D|, λ, B, P). CLT-based: an estimate.",
                    formula="cuag.effective_mu", units={"eps": "nats"}, warnings=warns)
    emit(result, pick_format(fmt, json_), output, force)


class Method(str, Enum):
    dp_scaffold = "dp-scaffold"
    prifedsync = "prifedsync"
    both = "both"


@cuag_app.command("baseline")
@handle_errors
def baseline_command(
    t: Annotated[str, typer.Option("--t", help="Rounds t >= 1 (value, list or range a:b:step).")] = "1,300",
    method: Annotated[Method, typer.Option("--method", help="Which baseline curve.")] = Method.both,
    delta: DeltaOpt = "1e-5",
    fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False,
) -> None:
    """ε after t rounds of the DP-SCAFFOLD (eq. 3) and PriFedSync (CLT) baselines of Fig. 4 / Table 1.

    Example: dpcalc cuag baseline --t 1,300   (DP-SCAFFOLD 1.517427, 26.282609; PriFedSync 0.406841, 10.235670)
    """
    axes = grid({"t": parse_values("--t", t), "delta": parse_values("--delta", delta)})
    out: dict[str, Any] = {}
    with capture_warnings() as warns:
        if method in (Method.dp_scaffold, Method.both):
            out["eps_dp_scaffold"] = cuag.dpscaffold_eps(axes["t"], axes["delta"])
        if method in (Method.prifedsync, Method.both):
            out["mu_prifedsync"] = cuag.prifedsync_mu(axes["t"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ErratumWarning)
                out["eps_prifedsync"] = gdp.eps_from_mu(out["mu_prifedsync"], axes["delta"])
    labels = {"eps_dp_scaffold": ("ε DP-SCAFFOLD", r"$\epsilon_{\mathrm{DP\text{-}SCAFFOLD}}$"),
              "mu_prifedsync": ("μ PriFedSync", r"$\mu_{\mathrm{PriFedSync}}$"),
              "eps_prifedsync": ("ε PriFedSync", r"$\epsilon_{\mathrm{PriFedSync}}$")}
    cols = [Column("t", "t", "$t$", integer=True), Column("delta", "δ", r"$\delta$")]
    cols += [Column(k, *labels[k]) for k in out]
    result = Result(columns=cols, rows=flatten(axes, out), title="Baseline privacy curves (seed 002, Fig. 4/Table 1)",
                    note="DP-SCAFFOLD: eq. (3) inverted, s_f = 1, ρ = 0.1, ζ = 1 (= √(t ln 10) at δ = 1e-5). "
                         "PriFedSync: CLT μ_t = 0.01·√(t(e^{1/0.45²} − 1)) then ε(μ_t, δ). Both reverse-engineered "
                         "(seed002.md §5.1); neither is a proven bound.",
                    formula=["cuag.dpscaffold_eps", "cuag.prifedsync_mu"], units={"eps": "nats"}, warnings=warns)
    emit(result, pick_format(fmt, json_), output, force)


def register(app: typer.Typer) -> None:
    """Attach the ``cuag`` group to the root app."""
    app.add_typer(cuag_app, name="cuag")
