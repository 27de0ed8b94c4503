"""``dpcalc nbafl noise|bound|optimal-t|optimal-k|accounting|simulate`` (seed 003, NbAFL, Wei et al. 2020).

Thin commands over :mod:`dpcalc.nbafl`. Paper symbols whose one-letter names would clash with other options or
mean another quantity elsewhere are spelled out (docs/conventions.md §2): N → ``--n``, K → ``--sampled``,
T → ``--rounds``, L → ``--exposures``, m → ``--data-size``, l → ``--pl``, β → ``--lipschitz``,
ρ → ``--smoothness``, B → ``--dissimilarity``, μ → ``--prox-mu``, Θ → ``--theta``.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Any

import numpy as np
import typer

from dpcalc.cli._common import (
    ForceOpt,
    FormatOpt,
    JsonOpt,
    OutputOpt,
    capture_warnings,
    command,
    handle_errors,
    pick_format,
)
from dpcalc.report.columns import column, columns_for, make_column
from dpcalc.report.grid import flatten, grid, parse_values
from dpcalc.report.render import Column, Format, Result, emit

nbafl_app = typer.Typer(help="NbAFL: noise before aggregation FL (Wei et al., IEEE TIFS 2020; seed 003).",
                        no_args_is_help=True)

_V = "(value, list a,b or range a:b:step)"
EpsOpt = Annotated[str, typer.Option("--eps", help=f"Privacy level ε {_V}.")]
DeltaOpt = Annotated[str, typer.Option("--delta", help=f"δ {_V}.")]
COpt = Annotated[str, typer.Option("--C", help=f"Clipping bound C on ‖w_i‖ (parameter units) {_V}.")]
DataSizeOpt = Annotated[str, typer.Option("--data-size", help=f"Smallest local data set size m (samples) {_V}.")]
ClientsOpt = Annotated[str, typer.Option("--n", help=f"Number of clients N {_V}.")]
SampledOpt = Annotated[str | None, typer.Option("--sampled", help=f"Clients K sampled per round (eq. 7/Thm 3) {_V}; "
                                                                  "default: all N (eq. 5/Thm 2).")]
RoundsOpt = Annotated[str, typer.Option("--rounds", help=f"Number of rounds T {_V}.")]
ExposuresOpt = Annotated[str, typer.Option("--exposures", help=f"Exposures L of each client's update (L <= T) {_V}.")]
CScaleOpt = Annotated[str, typer.Option("--c-scale", help=f"c = c_scale·√(2 ln(1.25/δ)), c_scale >= 1 {_V}.")]
PlOpt = Annotated[str, typer.Option("--pl", help=f"Polyak–Łojasiewicz constant l (assumption 1.2) {_V}.")]
LipschitzOpt = Annotated[str, typer.Option("--lipschitz", help=f"Lipschitz constant β of F_i {_V}.")]
SmoothnessOpt = Annotated[str, typer.Option("--smoothness", help=f"Smoothness ρ of F_i {_V}.")]
DissimilarityOpt = Annotated[str, typer.Option("--dissimilarity", help=f"Local dissimilarity B {_V}.")]
ProxMuOpt = Annotated[str, typer.Option("--prox-mu", help=f"FedProx proximal weight μ {_V}.")]
ThetaOpt = Annotated[str, typer.Option("--theta", help=f"Initial gap Θ = F(w⁰) − F(w*) {_V}.")]


class Calibration(str, Enum):
    classic = "classic"
    analytic = "analytic"
    both = "both"


class Lambda1(str, Enum):
    published = "published"
    comment = "comment"


_CLASSIC_NOTE = ("Classic Gaussian mechanism (Def. 2) is proven only for a per-release ε < 1 (ε/L for clients, "
                 "ε/T or bε/T for the server); the seed runs ε = 6 … 100. --calibration analytic gives the exact "
                 "Gaussian-mechanism σ for the same per-release (ε, δ).")


def _bound_note(lambda1: str | None = None) -> str:
    from dpcalc.nbafl.bound import STATUS_NOTE

    which = f" λ1 used: {lambda1}." if lambda1 else ""
    return STATUS_NOTE + which


def _status() -> dict[str, str]:
    """meta entry carrying the bound's status into every format (JSON has no note)."""
    from dpcalc.nbafl.bound import STATUS_NOTE

    return {"bound_status": STATUS_NOTE}


def _constants_axes(pl: str, lipschitz: str, smoothness: str, dissimilarity: str, prox_mu: str,
                    theta: str) -> dict[str, list[float]]:
    return {"pl": parse_values("--pl", pl), "lipschitz": parse_values("--lipschitz", lipschitz),
            "smoothness": parse_values("--smoothness", smoothness),
            "dissimilarity": parse_values("--dissimilarity", dissimilarity),
            "prox_mu": parse_values("--prox-mu", prox_mu), "theta": parse_values("--theta", theta)}


_CONSTANTS = ("pl", "lipschitz", "smoothness", "dissimilarity", "prox_mu", "theta")


def _curve_rows(what: str, rows: float) -> None:
    """The row and memory caps for a --curve table (a dict of ~15 values per row: ~1 KB), before scanning."""
    from dpcalc import _limits

    _limits.check_rows(what, rows, 1024.0)


def _points(axes: dict[str, np.ndarray]) -> list[dict[str, float]]:
    """One dict per grid point (row order of :func:`flatten`)."""
    return list(flatten(axes, {}))


def _shown(axes: dict[str, np.ndarray], names: list[str], always: tuple[str, ...] = ("eps",)) -> list[str]:
    """The inputs printed as columns: those that vary over the grid, and ``always``; the rest go to meta."""
    return [n for n in names if n in axes and (n in always or np.unique(axes[n]).size > 1)]


def _fixed(axes: dict[str, np.ndarray], names: list[str], shown: list[str]) -> dict[str, float]:
    return {n: float(np.ravel(axes[n])[0]) for n in names if n in axes and n not in shown}


@command(nbafl_app, "noise")
def noise_command(
    eps: EpsOpt,
    delta: DeltaOpt = "0.01",
    C: COpt = "20",
    data_size: DataSizeOpt = "100",
    clients: ClientsOpt = "50",
    rounds: RoundsOpt = "25",
    exposures: ExposuresOpt = "1",
    sampled: SampledOpt = None,
    c_scale: CScaleOpt = "1.25",
    calibration: Annotated[Calibration, typer.Option("--calibration", help="classic (the paper), analytic (exact "
                                                                           "Gaussian) or both side by side.")]
    = Calibration.classic,
) -> Result:
    """Client noise σ_U, required global σ_A and server noise σ_D (eqs. 3-5, 7), defaults = the seed's Table 1.

    Example: dpcalc nbafl noise --eps 6,10,50 --calibration both
    """
    from dpcalc import nbafl

    opts = {"eps": parse_values("--eps", eps), "delta": parse_values("--delta", delta), "C": parse_values("--C", C),
            "m": parse_values("--data-size", data_size), "N": parse_values("--n", clients),
            "T": parse_values("--rounds", rounds), "L": parse_values("--exposures", exposures),
            "c_scale": parse_values("--c-scale", c_scale)}
    if sampled is not None:
        opts["K"] = parse_values("--sampled", sampled)
    axes = grid(opts)
    kw = {k: axes[k] for k in ("C", "m")}
    k_arg = axes.get("K")
    out: dict[str, Any] = {}
    fid_d = "nbafl.server_sigma" if k_arg is None else "nbafl.server_sigma_sampled"
    inputs = ["eps", "delta", "C", "m", "N", "K", "T", "L", "c_scale"]
    shown = _shown(axes, inputs)
    cols = columns_for(fid_d, shown)
    if k_arg is not None:
        out["b"] = nbafl.sampling_b(axes["eps"], T=axes["T"], N=axes["N"], K=k_arg)
        out["gamma"] = nbafl.sampling_gamma(axes["eps"], L=axes["L"], N=axes["N"], K=k_arg)
        cols += [column("nbafl.sampling_b", "b"), column("nbafl.sampling_gamma", "gamma")]
    cals = ["classic", "analytic"] if calibration is Calibration.both else [calibration.value]
    for cal in cals:
        suffix = "" if len(cals) == 1 else f"_{cal}"
        common: dict[str, Any] = dict(c_scale=axes["c_scale"], calibration=cal, **kw)
        su = nbafl.client_sigma(axes["eps"], axes["delta"], L=axes["L"], **common)
        sa = nbafl.server_required_sigma(axes["eps"], axes["delta"], T=axes["T"], N=axes["N"], K=k_arg, **common)
        sd = nbafl.server_sigma(axes["eps"], axes["delta"], T=axes["T"], L=axes["L"], N=axes["N"], K=k_arg, **common)
        total = nbafl.aggregate_noise_std(su, K=axes["N"] if k_arg is None else k_arg, sigma_d=sd)
        out.update({f"sigma_u{suffix}": su, f"sigma_a{suffix}": sa, f"sigma_d{suffix}": sd,
                    f"total{suffix}": total})
        tag = "" if len(cals) == 1 else f" [{cal}]"
        cols += [column("nbafl.client_sigma", "sigma", key=f"sigma_u{suffix}", label=f"σ_U{tag}"),
                 column("nbafl.server_required_sigma", "sigma", key=f"sigma_a{suffix}", label=f"σ_A{tag}"),
                 column(fid_d, "sigma", key=f"sigma_d{suffix}", label=f"σ_D{tag}"),
                 make_column(f"total{suffix}", r"\sqrt{\sigma_U^2/K + \sigma_D^2}", "parameter units",
                             label=f"total std{tag}")]
    return Result(columns=cols, rows=flatten(axes, out),
                  title="NbAFL noise: client σ_U, required global σ_A, extra server σ_D, broadcast-model std",
                  note=_CLASSIC_NOTE + " total std = √(σ_U²/K + σ_D²) per coordinate of the broadcast model (K = N "
                  "under full participation).",
                  formula=["nbafl.client_sigma", "nbafl.server_required_sigma", fid_d]
                  + (["nbafl.sampling_b", "nbafl.sampling_gamma"] if k_arg is not None else []),
                  meta={"calibration": calibration.value, "inputs": _fixed(axes, inputs, shown)})


@command(nbafl_app, "bound")
def bound_command(
    eps: EpsOpt,
    rounds: RoundsOpt = "1:50:1",
    delta: DeltaOpt = "0.01",
    C: COpt = "20",
    data_size: DataSizeOpt = "100",
    clients: ClientsOpt = "50",
    sampled: SampledOpt = None,
    c_scale: CScaleOpt = "1.25",
    pl: PlOpt = "0.1",
    lipschitz: LipschitzOpt = "1",
    smoothness: SmoothnessOpt = "0.2",
    dissimilarity: DissimilarityOpt = "1",
    prox_mu: ProxMuOpt = "1",
    theta: ThetaOpt = "2.3",
    lambda1: Annotated[Lambda1, typer.Option("--lambda1", help="Theorem 2's λ1: published 1/μ + ρB/μ (disputed, "
                                                               "the default) or the comment's 1 + ρB/μ.")]
    = Lambda1.published,
) -> Result:
    """The convergence bound of Theorem 2 (eq. 6; all N clients) or Theorem 3 (eq. 8; --sampled K) over T.

    Example: dpcalc nbafl bound --eps 10 --rounds 1:30:1
    """
    from dpcalc import nbafl

    opts = {"eps": parse_values("--eps", eps), "T": parse_values("--rounds", rounds),
            "delta": parse_values("--delta", delta), "C": parse_values("--C", C),
            "m": parse_values("--data-size", data_size), "N": parse_values("--n", clients),
            "c_scale": parse_values("--c-scale", c_scale),
            **_constants_axes(pl, lipschitz, smoothness, dissimilarity, prox_mu, theta)}
    if sampled is not None:
        opts["K"] = parse_values("--sampled", sampled)
    axes = grid(opts)
    kw = {k: axes[k] for k in ("T", "C", "m", "N", "c_scale", *_CONSTANTS)}
    if sampled is None:
        fid = "nbafl.convergence_bound"
        value = nbafl.convergence_bound(axes["eps"], axes["delta"], as_published=lambda1 is Lambda1.published, **kw)
    else:
        fid = "nbafl.convergence_bound_sampled"
        value = nbafl.convergence_bound_sampled(axes["eps"], axes["delta"], K=axes["K"], **kw)
    names = ["eps", "delta", "T", "K", "N", "m", "C", "c_scale", *_CONSTANTS]
    shown = _shown(axes, names, ("eps", "T"))
    return Result(columns=[*columns_for(fid, shown), column(fid, "bound", label="bound")],
                  rows=flatten(axes, {"bound": value}),
                  title=f"NbAFL convergence bound ({'Theorem 2, eq. 6' if sampled is None else 'Theorem 3, eq. 8'})",
                  note=_bound_note(lambda1.value if sampled is None else None), formula=fid,
                  meta={**_status(), "lambda1": lambda1.value if sampled is None else "n/a (Theorem 3)",
                        "inputs": _fixed(axes, names, shown)})


def _minima_text(values: tuple[int, ...]) -> str:
    return ",".join(str(x) for x in values)


@command(nbafl_app, "optimal-t")
def optimal_t_command(
    eps: EpsOpt,
    delta: DeltaOpt = "0.01",
    C: COpt = "20",
    data_size: DataSizeOpt = "100",
    clients: ClientsOpt = "50",
    c_scale: CScaleOpt = "1.25",
    pl: PlOpt = "0.1",
    lipschitz: LipschitzOpt = "1",
    smoothness: SmoothnessOpt = "0.2",
    dissimilarity: DissimilarityOpt = "1",
    prox_mu: ProxMuOpt = "1",
    theta: ThetaOpt = "2.3",
    t_max: Annotated[int, typer.Option("--t-max", help="Scan T = 1 … t_max (integer >= 1).")] = 1000,
    lambda1: Annotated[Lambda1, typer.Option("--lambda1", help="Theorem 2's λ1 (see `nbafl bound`).")]
    = Lambda1.published,
    curve: Annotated[bool, typer.Option("--curve", help="Print the bound curve (T, bound) instead of T*.")] = False,
) -> Result:
    """Optimal rounds T* of Theorem 2 by integer scan (every local minimum reported; Lambert-W T* when κ0 = 0).

    Example: dpcalc nbafl optimal-t --eps 6,10,50 --n 50 --data-size 100 --C 20 --delta 0.01 --c-scale 1.25 --pl 0.1 --lipschitz 1 --smoothness 0.2 --dissimilarity 1 --prox-mu 1 --theta 2.3
    """  # noqa: E501
    from dpcalc import nbafl

    axes = grid({"eps": parse_values("--eps", eps), "delta": parse_values("--delta", delta),
                 "C": parse_values("--C", C), "m": parse_values("--data-size", data_size),
                 "N": parse_values("--n", clients), "c_scale": parse_values("--c-scale", c_scale),
                 **_constants_axes(pl, lipschitz, smoothness, dissimilarity, prox_mu, theta)})
    from dpcalc.nbafl.optimal import check_scan

    fid = "nbafl.convergence_bound"
    names = ["eps", "delta", "N", "m", "C", "c_scale", *_CONSTANTS]
    points = float(np.prod(np.broadcast_shapes(*(a.shape for a in axes.values()))))
    check_scan("--t-max (one scan over T = 1 … t_max per grid point)", points * t_max)
    if curve:
        _curve_rows("--t-max with --curve (a row per T)", points * t_max)
    rows: list[dict[str, Any]] = []
    published = lambda1 is Lambda1.published
    for point in _points(axes):
        res = nbafl.optimal_t(point["eps"], point["delta"], t_max=t_max, as_published=published,
                              **{k: point[k] for k in ("C", "m", "N", "c_scale", *_CONSTANTS)})
        base = {n: point[n] for n in names}
        if curve:
            rows += [{**base, "T": t, "bound": float(f)} for t, f in enumerate(res.curve, start=1)]
            continue
        rows.append({**base, "t_star": res.t_star, "bound": res.bound, "t_continuous": res.t_continuous,
                     "local_minima": _minima_text(res.local_minima), "t_lambert": res.t_lambert,
                     "at_t_max": res.t_star == res.t_max})
    shown = _shown(axes, names)
    cols = columns_for(fid, shown)
    if curve:
        cols += [column(fid, "T"), column(fid, "bound", label="bound")]
    else:
        cols += [Column("t_star", "T*", "$T^*$", integer=True, unit="rounds"), column(fid, "bound", label="bound"),
                 column("nbafl.t_star_lambert", "t_star", key="t_continuous", label="T* (continuous)"),
                 Column("local_minima", "local minima (T)", "local minima", text=True),
                 column("nbafl.t_star_lambert", "t_star", key="t_lambert", label="T* Lambert-W (κ0 = 0)"),
                 Column("at_t_max", "T* = t_max", "$T^* = T_{max}$", text=True)]
    multi = [r for r in rows if "," in str(r.get("local_minima", ""))]
    note = (_bound_note(lambda1.value) + " T* is the integer argmin over 1 … t_max (no closed form when κ0 > 0; "
            "the bound is not convex in T in general, crosscheck 003-9); '—' in the Lambert-W column: κ0 > 0.")
    if multi:
        note += f" More than one local minimum at {len(multi)} point(s): see 'local minima'."
    return Result(columns=cols, rows=rows, title="Optimal number of rounds T* of NbAFL (Theorem 2)", note=note,
                  formula=[fid, "nbafl.t_star_lambert"],
                  meta={**_status(), "lambda1": lambda1.value, "t_max": t_max, "curve": curve,
                        "inputs": _fixed(axes, names, shown)})


@command(nbafl_app, "optimal-k")
def optimal_k_command(
    eps: EpsOpt,
    rounds: RoundsOpt = "25",
    delta: DeltaOpt = "0.01",
    C: COpt = "20",
    data_size: DataSizeOpt = "100",
    clients: ClientsOpt = "50",
    c_scale: CScaleOpt = "1.25",
    pl: PlOpt = "0.1",
    lipschitz: LipschitzOpt = "1",
    smoothness: SmoothnessOpt = "0.2",
    dissimilarity: DissimilarityOpt = "1",
    prox_mu: ProxMuOpt = "1",
    theta: ThetaOpt = "2.3",
    curve: Annotated[bool, typer.Option("--curve", help="Print the bound curve (K, bound) instead of K*.")] = False,
) -> Result:
    """Optimal sampled clients K* of Theorem 3 by integer scan over the valid K, with boundary reporting.

    Example: dpcalc nbafl optimal-k --eps 1,6,10,50 --rounds 25
    """
    from dpcalc import nbafl

    axes = grid({"eps": parse_values("--eps", eps), "T": parse_values("--rounds", rounds),
                 "delta": parse_values("--delta", delta), "C": parse_values("--C", C),
                 "m": parse_values("--data-size", data_size), "N": parse_values("--n", clients),
                 "c_scale": parse_values("--c-scale", c_scale),
                 **_constants_axes(pl, lipschitz, smoothness, dissimilarity, prox_mu, theta)})
    from dpcalc.nbafl.optimal import check_scan

    fid = "nbafl.convergence_bound_sampled"
    names = ["eps", "delta", "T", "N", "m", "C", "c_scale", *_CONSTANTS]
    shape = np.broadcast_shapes(*(a.shape for a in axes.values()))
    scan = float(np.sum(np.broadcast_to(axes["N"], shape)))
    check_scan("--n (one scan over K <= N per grid point)", scan)
    if curve:
        _curve_rows("--n with --curve (a row per K)", scan)
    rows: list[dict[str, Any]] = []
    for point in _points(axes):
        res = nbafl.optimal_k(point["eps"], point["delta"],
                              **{k: point[k] for k in ("T", "C", "m", "N", "c_scale", *_CONSTANTS)})
        base = {n: point[n] for n in names}
        if curve:
            rows += [{**base, "K": int(k), "bound": float(f)} for k, f in zip(res.ks, res.curve, strict=True)]
            continue
        where = ("lower boundary (" + res.lower_reason + ")" if res.at_lower_boundary
                 else "K = N" if res.at_full else "interior")
        rows.append({**base, "k_star": res.k_star, "bound": res.bound, "k_min": res.k_min, "where": where,
                     "local_minima": _minima_text(res.local_minima)})
    shown = _shown(axes, names, ("eps", "T"))
    cols = columns_for(fid, shown)
    if curve:
        cols += [column(fid, "K"), column(fid, "bound", label="bound")]
    else:
        cols += [Column("k_star", "K*", "$K^*$", integer=True, unit="clients"), column(fid, "bound", label="bound"),
                 Column("k_min", "smallest valid K", "$K_{min}$", integer=True, unit="clients"),
                 Column("where", "K* at", "$K^*$ at", text=True),
                 Column("local_minima", "local minima (K)", "local minima", text=True)]
    return Result(columns=cols, rows=rows, title="Optimal number of sampled clients K* of NbAFL (Theorem 3)",
                  note=_bound_note() + " K ranges over eq. 7's domain K > N(1 − e^(−ε/T)) with 0 < Q < 1; a K* at "
                  "the lower boundary is an artifact of b's singularity there (crosscheck 003-13).",
                  formula=[fid, "nbafl.sampling_b"], meta={**_status(), "curve": curve,
                                                          "inputs": _fixed(axes, names, shown)})


ACCOUNTING_POINTS = 50
"""Most grid points of one ``nbafl accounting`` call (each compares up to five accountants)."""


@command(nbafl_app, "accounting")
def accounting_command(
    eps: EpsOpt,
    delta: DeltaOpt = "0.01",
    exposures: ExposuresOpt = "1",
    C: COpt = "20",
    data_size: DataSizeOpt = "100",
    c_scale: CScaleOpt = "1.25",
    accountants: Annotated[str, typer.Option("--accountants", help="Comma list of linear, rdp, analytic, gdp, "
                                                                   "pld.")] = "linear,rdp,analytic,gdp,pld",
) -> Result:
    """What a tight accountant saves: ε of the paper's σ_U over L exposures, and the σ_U each accountant needs.

    Example: dpcalc nbafl accounting --eps 10 --exposures 25
    """
    from dpcalc import nbafl

    names = tuple(a.strip() for a in accountants.split(",") if a.strip())
    axes = grid({"eps": parse_values("--eps", eps), "delta": parse_values("--delta", delta),
                 "L": parse_values("--exposures", exposures), "C": parse_values("--C", C),
                 "m": parse_values("--data-size", data_size), "c_scale": parse_values("--c-scale", c_scale)})
    inputs = ["eps", "delta", "L", "C", "m", "c_scale"]
    from dpcalc import _limits

    _limits.check_points("--eps, --delta, --exposures, --C, --data-size, --c-scale",
                         float(np.prod(np.broadcast_shapes(*(a.shape for a in axes.values())))), ACCOUNTING_POINTS,
                         "up to five accountants and their sigma calibrations, ~0.2-1 s")
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    for point in _points(axes):
        res = nbafl.compare_accountants(point["eps"], point["delta"], C=point["C"], m=point["m"], L=int(point["L"]),
                                        c_scale=point["c_scale"], accountants=names)
        failures += [f"eps = {point['eps']:g}, L = {point['L']:g}: {r.failure}" for r in res.rows if r.failure]
        for r in res.rows:
            rows.append({**{n: point[n] for n in inputs}, "accountant": r.accountant, "kind": r.bound,
                         "eps_actual": r.eps, "sigma_u": r.sigma_u, "saved": r.noise_saved})
    shown = _shown(axes, inputs, ("eps", "L"))
    cols = [*columns_for("nbafl.client_sigma", shown),
            Column("accountant", "accountant", "accountant", text=True), Column("kind", "bound", "bound", text=True),
            make_column("eps_actual", r"\epsilon", "nats", label="ε of the paper's σ_U"),
            column("nbafl.client_sigma", "sigma", key="sigma_u", label="σ_U needed for ε"),
            make_column("saved", r"1 - \sigma/\sigma_{paper}", "", label="noise saved")]
    return Result(columns=cols, rows=rows, title="NbAFL client noise: linear composition vs tight accountants",
                  note="Schedule: L releases of a Gaussian with sensitivity 2C/m and noise multiplier cL/ε, no "
                  "subsampling, compared at the same δ (the paper's linear composition strictly gives (ε, Lδ)). "
                  "'noise saved' < 0: the paper's classic σ_U (per-release ε/L >= 1) does not give ε at all. "
                  "analytic and gdp are exact for this schedule; pld is dpcalc's certified PLD (upper end).",
                  formula="nbafl.client_sigma", warnings=failures,
                  meta={"accountants": list(names), "inputs": _fixed(axes, inputs, shown)})


class _Progress:
    """A one-line text progress bar on stderr."""

    def __init__(self) -> None:
        self.width = 30

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // total
        sys.stderr.write(f"\rsimulating [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


@nbafl_app.command("simulate")
@handle_errors
def simulate_command(
    eps: Annotated[str, typer.Option("--eps", help="Privacy levels ε (a list).")] = "2,5,20",
    t_max: Annotated[int, typer.Option("--t-max", help="Largest T simulated (T = 1 … t_max).")] = 30,
    clients: Annotated[int, typer.Option("--n", help="Number of clients N.")] = 50,
    sampled: Annotated[int | None, typer.Option("--sampled", help="Clients K sampled per round (default N).")]
    = None,
    data_size: Annotated[int, typer.Option("--data-size", help="Samples per client m.")] = 100,
    dim: Annotated[int, typer.Option("--dim", help="Model dimension d.")] = 10,
    C: Annotated[float, typer.Option("--C", help="Clipping bound C.")] = 2.0,
    delta: Annotated[float, typer.Option("--delta", help="δ.")] = 0.01,
    c_scale: Annotated[float, typer.Option("--c-scale", help="c_scale >= 1.")] = 1.0,
    exposures: Annotated[int | None, typer.Option("--exposures", help="Fixed L (default L = T).")] = None,
    prox_mu: Annotated[float, typer.Option("--prox-mu", help="FedProx proximal weight μ.")] = 0.5,
    lr: Annotated[float, typer.Option("--lr", help="Local learning rate.")] = 1.0,
    local_steps: Annotated[int, typer.Option("--local-steps", help="Local gradient steps per round.")] = 5,
    non_iid: Annotated[float, typer.Option("--non-iid", help="Heterogeneity (0 = IID).")] = 0.0,
    repeats: Annotated[int, typer.Option("--repeats", help="Independent repeats per (ε, T).")] = 4,
    seed: Annotated[int, typer.Option("--seed", help="Root seed.")] = 0,
    workers: Annotated[int, typer.Option("--workers", help="Processes (results do not depend on it).")] = 1,
    pl: Annotated[float, typer.Option("--pl", help="Bound constant l (for the bound's T*).")] = 0.1,
    lipschitz: Annotated[float, typer.Option("--lipschitz", help="Bound constant β.")] = 1.0,
    smoothness: Annotated[float, typer.Option("--smoothness", help="Bound constant ρ.")] = 0.2,
    dissimilarity: Annotated[float, typer.Option("--dissimilarity", help="Bound constant B.")] = 1.0,
    theta: Annotated[float, typer.Option("--theta", help="Bound constant Θ.")] = 2.3,
    fmt: FormatOpt = Format.table,
    json_: JsonOpt = False,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Simulate NbAFL on synthetic logistic regression: loss after T rounds per ε, best T beside the bound's T*.

    Example: dpcalc nbafl simulate --eps 1,20 --t-max 12 --n 20 --repeats 2
    """
    from dpcalc.nbafl.simulate import BoundConstants, SimulationConfig, simulate

    chosen = pick_format(fmt, json_)
    cfg = SimulationConfig(eps=tuple(parse_values("--eps", eps)), t_max=t_max, N=clients, K=sampled,
                           m=data_size, d=dim, C=C, delta=delta, c_scale=c_scale, L=exposures, prox_mu=prox_mu,
                           lr=lr, local_steps=local_steps, non_iid=non_iid, repeats=repeats, seed=seed)
    bound = BoundConstants(pl=pl, lipschitz=lipschitz, smoothness=smoothness, dissimilarity=dissimilarity,
                           theta=theta)
    show = chosen is not Format.json and output is None and sys.stderr.isatty()
    with capture_warnings() as warns:
        res = simulate(cfg, workers=workers, bound=bound, progress=_Progress() if show else None)
    rows = []
    for i, e in enumerate(cfg.eps):
        for j, t in enumerate(res.rounds):
            rows.append({"eps": e, "T": int(t), "loss": float(res.loss[i, j]), "loss_se": float(res.loss_se[i, j]),
                         "nonprivate": float(res.nonprivate[j]), "sigma_u": float(res.sigma_u[i, j]),
                         "sigma_d": float(res.sigma_d[i, j])})
    summary: dict[str, Any] = {}
    for e, best, star in zip(cfg.eps, res.best_t, res.bound_t_star, strict=True):
        summary[f"best T (eps={e:g})"] = best
        summary[f"bound T* (eps={e:g})"] = star  # None (—) when the bound does not apply: see the warnings
    summary["wall time (s)"] = round(res.wall_time, 3)
    result = Result(
        columns=[*columns_for("nbafl.client_sigma", ["eps"]), Column("T", "T", "$T$", integer=True, unit="rounds"),
                 make_column("loss", r"\bar F(\tilde w^{(T)})", "loss units", label="loss"),
                 make_column("loss_se", r"\mathrm{se}", "loss units", label="± se"),
                 make_column("nonprivate", r"\bar F_{\infty}", "loss units", label="non-private loss"),
                 column("nbafl.client_sigma", "sigma", key="sigma_u", label="σ_U"),
                 column("nbafl.server_sigma", "sigma", key="sigma_d", label="σ_D")],
        rows=rows, title="NbAFL simulation: mean client loss of the broadcast model after T rounds",
        note=f"Synthetic logistic regression, N = {cfg.N}, K = {cfg.K or cfg.N}, m = {cfg.m}, d = {cfg.d}, "
             f"C = {cfg.C:g}; L = {'T' if cfg.L is None else cfg.L}; {cfg.repeats} repeats, seed {cfg.seed} "
             "(bit-identical for any --workers). The bound's T* uses the assumed constants (--pl … --theta), "
             "not estimates from the data.",
        formula=["nbafl.client_sigma", "nbafl.server_sigma", "nbafl.convergence_bound"],
        warnings=[*warns, *(w for w in res.warnings if w not in warns)],
        meta={"config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.__dict__.items()},
              "workers": workers, **_status()},
        summary=summary)
    emit(result, chosen, output, force)


def register(app: typer.Typer) -> None:
    app.add_typer(nbafl_app, name="nbafl")
