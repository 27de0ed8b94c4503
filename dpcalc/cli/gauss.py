"""``dpcalc gauss case1|case2|case3|custom|figure`` (seed 001: Zeng, Yang & Dai, Entropy 2022; bits)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from dpcalc import gaussian_mi as gauss
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

gauss_app = typer.Typer(help="Gaussian-prior MI utility-privacy, Cases 1-3 (Zeng et al., Entropy 2022; seed 001).",
                        no_args_is_help=True)

EpsOpt = Annotated[str, typer.Option("--eps", help="Privacy level ε (value, list a,b or range a:b:step).")]
NOpt = Annotated[str, typer.Option("--n", help="Number of clients n (an integer >= 2).")]
VarOpt = Annotated[str, typer.Option("--var", help="Variance σ_m² of every local parameter X_i.")]
CovOpt = Annotated[str, typer.Option("--cov", help="Covariance σ_k² = E[X_i X_j], i ≠ j.")]
UnitsOpt = Annotated[str, typer.Option("--units", help="Information units: bits (the paper's) or nats.")]

NOTE = ("Privacy = max_i I(X_i; Y | X^-i) for the stated Gaussian prior (not Cuff-Yu MI-DP: no sup over priors; "
        "crosscheck 001-1); utility = I(X; Y)/n; in {units}.")


def _units(units: str) -> str:
    u = units.lower()
    if u not in ("bits", "nats"):
        raise DomainError(f"--units must be 'bits' or 'nats' (got {units!r})")
    return u


def _cols(u: str, names: list[tuple[str, str]]) -> list[Column]:
    return [Column(k, label.format(u=u), integer=k == "n") for k, label in names] + [Column("units", "units")]


def _with_units(rows: list[dict[str, Any]], u: str) -> list[dict[str, Any]]:
    for r in rows:
        r["units"] = u
    return rows


@gauss_app.command("case2")
@handle_errors
def case2_command(eps: EpsOpt, n: NOpt = "101", var: VarOpt = "2", cov: CovOpt = "1.8", units: UnitsOpt = "bits",
                  as_published: AsPublishedOpt = False, fmt: FormatOpt = Format.table, json_: JsonOpt = False,
                  output: OutputOpt = None, force: ForceOpt = False) -> None:
    """Case 2 (Thm 2 corrected): σ² = V_x/(2^(2ε)−1) and U_max (18); --as-published adds the paper's (14).

    Example: dpcalc gauss case2 --eps 1:10:1 --n 101 --var 2 --cov 1.8 --as-published
    """
    u = _units(units)
    axes = grid({"eps": parse_values("--eps", eps), "n": parse_values("--n", n), "var": parse_values("--var", var),
                 "cov": parse_values("--cov", cov)})
    args = (axes["eps"], axes["var"], axes["cov"], axes["n"])
    with capture_warnings() as warns:
        out: dict[str, Any] = {"sigma2": gauss.case2_sigma2(*args, units=u),  # type: ignore[arg-type]
                               "u_max": gauss.case2_u_max(*args, units=u)}  # type: ignore[arg-type]
        if as_published:
            s_pub = gauss.case2_sigma2(*args, units=u, as_published=True)  # type: ignore[arg-type]
            out["sigma2_published"] = s_pub
            out["u_published"] = gauss.case2_u_max(*args, units=u, as_published=True)  # type: ignore[arg-type]
            out["leakage_published"] = gauss.case2_privacy(s_pub, axes["var"], axes["cov"], axes["n"], units=u)  # type: ignore[arg-type]
    names = [("eps", "ε ({u})"), ("n", "n"), ("var", "σ_m²"), ("cov", "σ_k²"), ("sigma2", "σ² (corrected)"),
             ("u_max", "U_max ({u})")]
    if as_published:
        names += [("sigma2_published", "σ² (published 14)"), ("u_published", "U at published σ² ({u})"),
                  ("leakage_published", "true leakage of published σ² ({u})")]
    result = Result(columns=_cols(u, names), rows=_with_units(flatten(axes, out), u),
                    title="Case 2: independent noise on equicorrelated parameters (Thm 2, corrected)",
                    note=NOTE.format(units=u) + " Erratum 001-7: (14) has '+' where '−' belongs.",
                    formula=["gauss.case2_sigma2", "gauss.case2_u_max"], units={"eps": u, "u_max": u}, warnings=warns)
    emit(result, pick_format(fmt, json_), output, force)


@gauss_app.command("case1")
@handle_errors
def case1_command(eps: EpsOpt, variances: Annotated[str, typer.Option(
                      "--variances", help="Per-client variances σ_i² (comma list or file).")],
                  units: UnitsOpt = "bits", as_published: AsPublishedOpt = False, fmt: FormatOpt = Format.table,
                  json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False) -> None:
    """Case 1 (Thm 1): σ² = σ_xmax²/(2^(2ε)−1) and U_max (9); the published form is correct (same numbers).

    Example: dpcalc gauss case1 --eps 1:3 --variances 1,0.5,0.25
    """
    u = _units(units)
    var = np.asarray(parse_vector("--variances", variances))
    axes = grid({"eps": parse_values("--eps", eps)})
    with capture_warnings() as warns:
        s2 = gauss.case1_sigma2(axes["eps"], float(np.max(gauss.as_covariance("variances", np.diag(var)).diagonal())),
                                units=u)  # type: ignore[arg-type]
        out: dict[str, Any] = {"sigma2": s2, "u_max": gauss.case1_u_max(axes["eps"], var, units=u)}  # type: ignore[arg-type]
        if as_published:
            out.update(sigma2_published=s2, u_published=out["u_max"], leakage_published=axes["eps"])
    names = [("eps", "ε ({u})"), ("sigma2", "σ²"), ("u_max", "U_max ({u})")]
    if as_published:
        names += [("sigma2_published", "σ² (published)"), ("u_published", "U (published)"),
                  ("leakage_published", "true leakage ({u})")]
    result = Result(columns=_cols(u, names), rows=_with_units(flatten(axes, out), u),
                    title=f"Case 1: independent parameters and noise, n = {var.size} (Thm 1)",
                    note=NOTE.format(units=u), formula=["gauss.case1_sigma2", "gauss.case1_u_max"],
                    units={"eps": u, "u_max": u}, warnings=warns, meta={"n": var.size})
    emit(result, pick_format(fmt, json_), output, force)


@gauss_app.command("case3")
@handle_errors
def case3_command(eps: EpsOpt, n: NOpt = "101", var: VarOpt = "30", cov: CovOpt = "2",
                  nonneg: Annotated[bool, typer.Option("--nonneg", help="Require σ_e² >= 0.")] = False,
                  units: UnitsOpt = "bits", as_published: AsPublishedOpt = False, fmt: FormatOpt = Format.table,
                  json_: JsonOpt = False, output: OutputOpt = None, force: ForceOpt = False) -> None:
    """Case 3: optimal dependent noise (σ², σ_e²) by water-filling (crosscheck 001-14) and U_max;
    --as-published adds the paper's (24) evaluated at that optimum (erratum 001-12).

    Example: dpcalc gauss case3 --eps 1:10 --n 101 --var 30 --cov 2
    """
    u = _units(units)
    axes = grid({"eps": parse_values("--eps", eps), "n": parse_values("--n", n), "var": parse_values("--var", var),
                 "cov": parse_values("--cov", cov)})
    with capture_warnings() as warns:
        args = (axes["eps"], axes["var"], axes["cov"], axes["n"])
        out: dict[str, Any] = {"sigma2": gauss.case3_sigma2(*args, nonneg=nonneg, units=u),  # type: ignore[arg-type]
                               "sigma_e2": gauss.case3_sigma_e2(*args, nonneg=nonneg, units=u),  # type: ignore[arg-type]
                               "u_max": gauss.case3_u_max(*args, nonneg=nonneg, units=u)}  # type: ignore[arg-type]
        if as_published:
            out["leakage_published"] = gauss.case3_privacy(out["sigma2"], out["sigma_e2"], axes["var"], axes["cov"],
                                                           axes["n"], units=u, as_published=True)  # type: ignore[arg-type]
    names = [("eps", "ε ({u})"), ("n", "n"), ("var", "σ_m²"), ("cov", "σ_k²"), ("sigma2", "σ²"),
             ("sigma_e2", "σ_e²"), ("u_max", "U_max ({u})")]
    if as_published:
        names += [("leakage_published", "eq. (24) at the optimum ({u})")]
    result = Result(columns=_cols(u, names), rows=_with_units(flatten(axes, out), u),
                    title="Case 3: dependent noise, water-filling optimum" + (" (σ_e² >= 0)" if nonneg else ""),
                    note=NOTE.format(units=u) + " The exact leakage at the optimum equals ε.",
                    formula=["gauss.case3_sigma2", "gauss.case3_sigma_e2", "gauss.case3_u_max"],
                    units={"eps": u, "u_max": u}, warnings=warns, meta={"nonneg": nonneg})
    emit(result, pick_format(fmt, json_), output, force)


@gauss_app.command("custom")
@handle_errors
def custom_command(sigma_x: Annotated[Path, typer.Option("--sigma-x", help="Covariance Σ_X (.npy or .csv).")],
                   sigma_z: Annotated[Path, typer.Option("--sigma-z", help="Noise covariance Σ_Z (.npy or .csv).")],
                   units: UnitsOpt = "bits", fmt: FormatOpt = Format.table, json_: JsonOpt = False,
                   output: OutputOpt = None, force: ForceOpt = False) -> None:
    """Exact engine on arbitrary PD covariances: privacy max_i I(X_i; Y | X^-i) and utility I(X; Y)/n.

    Example: dpcalc gauss custom --sigma-x sx.csv --sigma-z sz.npy
    """
    u = _units(units)
    sx = gauss.load_covariance(sigma_x, "--sigma-x")
    sz = gauss.load_covariance(sigma_z, "--sigma-z")
    with capture_warnings() as warns:
        r = gauss.evaluate(sx, sz, units=u)  # type: ignore[arg-type]
    rows = [{"n": r.n, "privacy": r.privacy, "client": r.argmax, "utility": r.utility, "units": u}]
    result = Result(columns=[Column("n", "n", integer=True), Column("privacy", f"max_i I(X_i;Y|X^-i) ({u})"),
                             Column("client", "argmax i", integer=True), Column("utility", f"I(X;Y)/n ({u})"),
                             Column("units", "units")],
                    rows=rows, title="Exact Gaussian engine (Cholesky log-determinants, Schur complements)",
                    note=NOTE.format(units=u), formula="gauss.engine",
                    units={"privacy": u, "utility": u}, warnings=warns)
    emit(result, pick_format(fmt, json_), output, force)


@gauss_app.command("figure")
@handle_errors
def figure_command(number: Annotated[int, typer.Argument(help="Figure number: 4, 5, 6 or 7.")],
                   seed: Annotated[int, typer.Option("--seed", help="Seed of Fig. 4's random σ_i² ~ U(0,1).")] = 1299,
                   fmt: FormatOpt = Format.table, json_: JsonOpt = False, output: OutputOpt = None,
                   force: ForceOpt = False) -> None:
    """Data behind Figs 4-7, published and corrected side by side (bits).

    Fig 4: Case 1, n = 101, σ_i² ~ U(0,1) (seeded). Fig 5: Case 2, σ_m²=2, σ_k²=1.8. Figs 6/7: σ_m²=30, σ_k²=2,
    with the published Case-2 noise (14), the corrected Case 2 (= Case 3 with σ_e² >= 0) and the Case-3 optimum.
    Example: dpcalc gauss figure 5 --json
    """
    if number not in (4, 5, 6, 7):
        raise DomainError(f"figure must be 4, 5, 6 or 7 (got {number})")
    eps = np.array([1, 3, 4, 5, 8, 10.0]) if number == 6 else np.arange(1.0, 11.0)
    with capture_warnings() as warns:
        if number == 4:
            var = np.random.default_rng(seed).uniform(0.0, 1.0, 101)
            u1 = gauss.case1_u_max(eps, var)
            out: dict[str, Any] = {"sigma2": gauss.case1_sigma2(eps, var.max()), "u_max": u1, "u_published": u1}
            names = [("eps", "ε (bits)"), ("sigma2", "σ² (Thm 1)"), ("u_max", "U_max (9)"),
                     ("u_published", "U_max published (9)")]
        else:
            a, b = (2.0, 1.8) if number == 5 else (30.0, 2.0)
            s_pub = gauss.case2_sigma2(eps, a, b, 101, as_published=True)
            out = {"sigma2_published": s_pub, "u_published": gauss.case2_u_max(eps, a, b, 101, as_published=True),
                   "leakage_published": gauss.case2_privacy(s_pub, a, b, 101),
                   "sigma2": gauss.case2_sigma2(eps, a, b, 101), "u_max": gauss.case2_u_max(eps, a, b, 101)}
            names = [("eps", "ε (bits)"), ("sigma2_published", "σ² published (14)"),
                     ("u_published", "U at published σ²"), ("leakage_published", "true leakage of published σ²"),
                     ("sigma2", "σ² corrected"), ("u_max", "U_max corrected")]
            if number in (6, 7):
                opt = gauss.case3_optimum(eps, a, b, 101)
                out.update(case3_sigma2=opt.sigma2, case3_sigma_e2=opt.sigma_e2, case3_u_max=opt.u_max)
                names += [("case3_sigma2", "Case-3 σ²"), ("case3_sigma_e2", "Case-3 σ_e²"),
                          ("case3_u_max", "Case-3 U_max (σ_e² free)")]
    rows = _with_units(flatten({"eps": eps}, out), "bits")
    result = Result(columns=_cols("bits", names), rows=rows, title=f"Zeng et al. 2022, Figure {number} data",
                    note=NOTE.format(units="bits"), formula="gauss", units={"eps": "bits"}, warnings=warns,
                    meta={"figure": number, "seed": seed if number == 4 else None})
    emit(result, pick_format(fmt, json_), output, force)


def register(app: typer.Typer) -> None:
    """Attach the ``gauss`` group to the root app."""
    app.add_typer(gauss_app, name="gauss")
