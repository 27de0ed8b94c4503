"""``dpcalc nbafl noise|bound|optimal-t|optimal-k|accounting|simulate`` (NbAFL, Wei et al. 2020).

Thin commands over `dpcalc.nbafl`. The options and their defaults are the catalog's (``formulas/003_nbafl.toml``):
the paper's Table 1 setting δ = 0.01, C = 20, m = 100, N = 50, T = 25, c_scale = 1.25 and the assumed constants
of Theorems 2–3 (l = 0.1, β = 1, ρ = 0.2, B = 1, μ = 1, Θ = 2.3), the same as the library's. Paper symbols whose
one-letter names would clash with other options are spelled out (docs/conventions.md §2): N → ``--n``,
K → ``--sampled``, T → ``--rounds``, L → ``--exposures``, m → ``--data-size``, l → ``--pl``, β → ``--lipschitz``,
ρ → ``--smoothness``, B → ``--dissimilarity``, μ → ``--prox-mu``, Θ → ``--theta``. ``simulate`` takes its
defaults from `dpcalc.nbafl.simulate.SimulationConfig` (a synthetic setting of its own).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcalc import nbafl
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import SCHEDULER, axis, choice, flag, integer, real, text, vector
from dpcalc.errors import DomainError
from dpcalc.nbafl.simulate import BoundConstants, SimulationConfig
from dpcalc.report.columns import column, columns_for, make_column
from dpcalc.report.grid import flatten
from dpcalc.report.render import Column, Format, Result

__all__ = ["ACCOUNTING_POINTS", "ENTRIES"]


_BOUND = "nbafl.convergence_bound_sampled"  # declares every input of the bounds (K too)
_CONSTANTS = ("pl", "lipschitz", "smoothness", "dissimilarity", "prox_mu", "theta")
CONSTANTS = tuple(axis(n, formula=_BOUND) for n in _CONSTANTS)
K = axis("K", formula="nbafl.server_sigma_sampled", default=None, note="Default: all N (eq. 5/Thm 2)")
LAMBDA1 = choice("lambda1", ("published", "comment"), formula="-", default="published",
                 help="Theorem 2's λ1: published 1/μ + ρB/μ (disputed, the default) or the comment's 1 + ρB/μ")
CURVE = flag("curve", formula="-", help="Print the bound curve instead of the optimum")

_CLASSIC_NOTE = ("Classic Gaussian mechanism (Def. 2) is proven only for a per-release ε < 1 (ε/L for clients, "
                 "ε/T or bε/T for the server); the paper runs ε = 6 … 100. --calibration analytic gives the exact "
                 "Gaussian-mechanism σ for the same per-release (ε, δ).")


def _bound_note(lambda1: str | None = None) -> str:
    return nbafl.STATUS_NOTE + (f" λ1 used: {lambda1}." if lambda1 else "")


def _status() -> dict[str, str]:
    """meta entry carrying the bound's status into every format (JSON has no note)."""
    return {"bound_status": nbafl.STATUS_NOTE}


def _points(axes: dict[str, np.ndarray]) -> list[dict[str, float]]:
    """One dict per grid point (row order of `flatten`)."""
    return list(flatten(axes, {}))


def _shown(axes: dict[str, np.ndarray], names: list[str], always: tuple[str, ...] = ("eps",)) -> list[str]:
    """The inputs printed as columns (in the order of ``names``): those that vary over the grid, and ``always``;
    the rest go to meta."""
    return [n for n in names if n in axes and (n in always or np.unique(axes[n]).size > 1)]


def _fixed(axes: dict[str, np.ndarray], names: list[str], shown: list[str]) -> dict[str, float]:
    return {n: float(np.ravel(axes[n])[0]) for n in names if n in axes and n not in shown}


def _size(axes: dict[str, np.ndarray]) -> float:
    return float(np.prod(np.broadcast_shapes(*(a.shape for a in axes.values()))))


#: One integer scan of the bound (measured): ~0.5 ms a grid point plus ~30 ns a scanned value (5e-8: busy cores).
_SCAN_POINT_SECONDS, _SCAN_VALUE_SECONDS = 5e-4, 5e-8


def _scan_work(a: Args, values: float, scanned: str) -> tuple[str, float, str]:
    """The work of one integer scan over ``values`` values per grid point (optimal-t, optimal-k)."""
    each = _SCAN_POINT_SECONDS + _SCAN_VALUE_SECONDS * max(values, 0.0)
    return (f"{a.describe()}, one scan over {scanned} ({values:.6g} values) per point", a.points() * each,
            f"~{each * 1e3:.3g} ms a point")


def _curve_rows(what: str, rows: float) -> None:
    """The row and memory caps for a --curve table (a dict of ~15 values per row: ~1 KB), before scanning."""
    from dpcalc import _limits

    _limits.check_rows(what, rows, 1024.0)


@command("noise", axis("eps"), axis("delta"), axis("C"), axis("m"), axis("N"), axis("T"), axis("L"), axis("c_scale"),
         K, choice("calibration", ("classic", "analytic", "both"), formula="-", default="classic",
                   help="classic (the paper), analytic (exact Gaussian) or both side by side"),
         formula="nbafl.server_sigma_sampled")
def noise_command(a: Args) -> Result:
    """Client noise σ_U, required global σ_A and server noise σ_D (eqs. 3-5, 7), defaults = the paper's Table 1.

    Example: dpcalc nbafl noise --eps 6,10,50 --calibration both
    """
    axes = a.grid()
    k_arg = axes.get("K")
    fid_d = "nbafl.server_sigma" if k_arg is None else "nbafl.server_sigma_sampled"
    inputs = ["eps", "delta", "C", "m", "N", "K", "T", "L", "c_scale"]
    shown = _shown(axes, inputs)
    cols = columns_for(fid_d, shown)
    out: dict[str, Any] = {}
    if k_arg is not None:
        out["b"] = nbafl.sampling_b(axes["eps"], T=axes["T"], N=axes["N"], K=k_arg)
        out["gamma"] = nbafl.sampling_gamma(axes["eps"], L=axes["L"], N=axes["N"], K=k_arg)
        cols += [column("nbafl.sampling_b", "b"), column("nbafl.sampling_gamma", "gamma")]
    cals = ["classic", "analytic"] if a.calibration == "both" else [a.calibration]
    for cal in cals:
        suffix, tag = ("", "") if len(cals) == 1 else (f"_{cal}", f" [{cal}]")
        common: dict[str, Any] = {"C": axes["C"], "m": axes["m"], "c_scale": axes["c_scale"], "calibration": cal}
        su = nbafl.client_sigma(axes["eps"], axes["delta"], L=axes["L"], **common)
        sa = nbafl.server_required_sigma(axes["eps"], axes["delta"], T=axes["T"], N=axes["N"], K=k_arg, **common)
        sd = nbafl.server_sigma(axes["eps"], axes["delta"], T=axes["T"], L=axes["L"], N=axes["N"], K=k_arg, **common)
        total = nbafl.aggregate_noise_std(su, K=axes["N"] if k_arg is None else k_arg, sigma_d=sd)
        out.update({f"sigma_u{suffix}": su, f"sigma_a{suffix}": sa, f"sigma_d{suffix}": sd, f"total{suffix}": total})
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
                  meta={"calibration": a.calibration, "inputs": _fixed(axes, inputs, shown)})


@command("bound", axis("eps"), axis("T"), axis("delta"), axis("C"), axis("m"), axis("N"), axis("c_scale"),
         *CONSTANTS, K, LAMBDA1, formula=_BOUND)
def bound_command(a: Args) -> Result:
    """The convergence bound of Theorem 2 (eq. 6; all N clients) or Theorem 3 (eq. 8; --sampled K) over T.

    Example: dpcalc nbafl bound --eps 10 --rounds 1:30:1
    """
    axes = a.grid()
    kw = {k: axes[k] for k in ("T", "C", "m", "N", "c_scale", *_CONSTANTS)}
    if a.K is None:
        fid = "nbafl.convergence_bound"
        value = nbafl.convergence_bound(axes["eps"], axes["delta"], as_published=a.lambda1 == "published", **kw)
    else:
        fid = _BOUND
        value = nbafl.convergence_bound_sampled(axes["eps"], axes["delta"], K=axes["K"], **kw)
    names = ["eps", "delta", "T", "K", "N", "m", "C", "c_scale", *_CONSTANTS]
    shown = _shown(axes, names, ("eps", "T"))
    return Result(columns=[*columns_for(fid, shown), column(fid, "bound", label="bound")],
                  rows=flatten(axes, {"bound": value}),
                  title=f"NbAFL convergence bound ({'Theorem 2, eq. 6' if a.K is None else 'Theorem 3, eq. 8'})",
                  note=_bound_note(a.lambda1 if a.K is None else None), formula=fid,
                  meta={**_status(), "lambda1": a.lambda1 if a.K is None else "n/a (Theorem 3)",
                        "inputs": _fixed(axes, names, shown)})


def _minima_text(values: tuple[int, ...]) -> str:
    return ",".join(str(x) for x in values)


@command("optimal-t", axis("eps"), axis("delta"), axis("C"), axis("m"), axis("N"), axis("c_scale"), *CONSTANTS,
         integer("t_max", default_from=nbafl.optimal_t, help="Scan T = 1 … t_max (an integer >= 1)"), LAMBDA1, CURVE,
         formula=_BOUND, work=lambda a: _scan_work(a, float(a.t_max), "T = 1 … --t-max"))
def optimal_t_command(a: Args) -> Result:
    """Optimal rounds T* of Theorem 2 by integer scan (every local minimum reported; Lambert-W T* when κ0 = 0).

    Example: dpcalc nbafl optimal-t --eps 6,10,50 --n 50 --data-size 100 --C 20 --delta 0.01 --c-scale 1.25 --pl 0.1 --lipschitz 1 --smoothness 0.2 --dissimilarity 1 --prox-mu 1 --theta 2.3
    """  # noqa: E501
    from dpcalc.nbafl.optimal import check_scan

    axes = a.grid()
    points = _size(axes)
    check_scan("--t-max (one scan over T = 1 … t_max per grid point)", points * a.t_max)
    if a.curve:
        _curve_rows("--t-max with --curve (a row per T)", points * a.t_max)
    rows: list[dict[str, Any]] = []
    for point in _points(axes):
        res = nbafl.optimal_t(point["eps"], point["delta"], t_max=a.t_max, as_published=a.lambda1 == "published",
                              **{k: point[k] for k in ("C", "m", "N", "c_scale", *_CONSTANTS)})
        if not math.isfinite(res.bound):  # no T has a finite bound: there is no optimum to report
            raise DomainError(f"the bound overflows float64 at every T = 1 … {a.t_max} at eps = {point['eps']:g} "
                              f"(the noise grows as 1/eps): no T* there; use a larger --eps")
        if a.curve:
            rows += [{**point, "T": t, "bound": float(f)} for t, f in enumerate(res.curve, start=1)]
            continue
        rows.append({**point, "t_star": res.t_star, "bound": res.bound, "t_continuous": res.t_continuous,
                     "local_minima": _minima_text(res.local_minima), "t_lambert": res.t_lambert,
                     "at_t_max": res.t_star == res.t_max})
    fid = "nbafl.convergence_bound"
    names = ["eps", "delta", "N", "m", "C", "c_scale", *_CONSTANTS]
    shown = _shown(axes, names)
    cols = columns_for(fid, shown)
    if a.curve:
        cols += [column(fid, "T"), column(fid, "bound", label="bound")]
    else:
        cols += [Column("t_star", "T*", "$T^*$", integer=True, unit="rounds"), column(fid, "bound", label="bound"),
                 column("nbafl.t_star_lambert", "t_star", key="t_continuous", label="T* (continuous)"),
                 Column("local_minima", "local minima (T)", "local minima", text=True),
                 column("nbafl.t_star_lambert", "t_star", key="t_lambert", label="T* Lambert-W (κ0 = 0)"),
                 Column("at_t_max", "T* = t_max", "$T^* = T_{max}$", text=True)]
    multi = [r for r in rows if "," in str(r.get("local_minima", ""))]
    note = (_bound_note(a.lambda1) + " T* is the integer argmin over 1 … t_max (no closed form when κ0 > 0; "
            "the bound is not convex in T in general); '—' in the Lambert-W column: κ0 > 0.")
    if multi:
        note += f" More than one local minimum at {len(multi)} point(s): see 'local minima'."
    return Result(columns=cols, rows=rows, title="Optimal number of rounds T* of NbAFL (Theorem 2)", note=note,
                  formula=[fid, "nbafl.t_star_lambert"],
                  meta={**_status(), "lambda1": a.lambda1, "t_max": a.t_max, "curve": a.curve,
                        "inputs": _fixed(axes, names, shown)})


@command("optimal-k", axis("eps"), axis("T"), axis("delta"), axis("C"), axis("m"), axis("N"), axis("c_scale"),
         *CONSTANTS, CURVE, formula=_BOUND, work=lambda a: _scan_work(a, max(a.N), "K = 1 … --n"))
def optimal_k_command(a: Args) -> Result:
    """Optimal sampled clients K* of Theorem 3 by integer scan over the valid K, with boundary reporting.

    Example: dpcalc nbafl optimal-k --eps 1,6,10,50 --rounds 25
    """
    from dpcalc.nbafl.optimal import check_scan

    axes = a.grid()
    scan = float(np.sum(np.broadcast_to(axes["N"], np.broadcast_shapes(*(x.shape for x in axes.values())))))
    check_scan("--n (one scan over K <= N per grid point)", scan)
    if a.curve:
        _curve_rows("--n with --curve (a row per K)", scan)
    rows: list[dict[str, Any]] = []
    for point in _points(axes):
        res = nbafl.optimal_k(point["eps"], point["delta"],
                              **{k: point[k] for k in ("T", "C", "m", "N", "c_scale", *_CONSTANTS)})
        if a.curve:
            rows += [{**point, "K": int(k), "bound": float(f)} for k, f in zip(res.ks, res.curve, strict=True)]
            continue
        where = ("lower boundary (" + res.lower_reason + ")" if res.at_lower_boundary
                 else "K = N" if res.at_full else "interior")
        rows.append({**point, "k_star": res.k_star, "bound": res.bound, "k_min": res.k_min, "where": where,
                     "local_minima": _minima_text(res.local_minima)})
    names = ["eps", "delta", "T", "N", "m", "C", "c_scale", *_CONSTANTS]
    shown = _shown(axes, names, ("eps", "T"))
    cols = columns_for(_BOUND, shown)
    if a.curve:
        cols += [column(_BOUND, "K"), column(_BOUND, "bound", label="bound")]
    else:
        cols += [Column("k_star", "K*", "$K^*$", integer=True, unit="clients"), column(_BOUND, "bound", label="bound"),
                 Column("k_min", "smallest valid K", "$K_{min}$", integer=True, unit="clients"),
                 Column("where", "K* at", "$K^*$ at", text=True),
                 Column("local_minima", "local minima (K)", "local minima", text=True)]
    return Result(columns=cols, rows=rows, title="Optimal number of sampled clients K* of NbAFL (Theorem 3)",
                  note=_bound_note() + " K ranges over eq. 7's domain K > N(1 − e^(−ε/T)) with 0 < Q < 1; a K* at "
                  "the lower boundary is an artifact of b's singularity there.",
                  formula=[_BOUND, "nbafl.sampling_b"], meta={**_status(), "curve": a.curve,
                                                             "inputs": _fixed(axes, names, shown)})


ACCOUNTING_POINTS = 50
"""Most grid points of one ``nbafl accounting`` call (each compares up to five accountants)."""


@command("accounting", axis("eps"), axis("delta"), axis("L"), axis("C"), axis("m"), axis("c_scale"),
         text("accountants", default_from=nbafl.compare_accountants,
              help="Comma list of linear, rdp, analytic, gdp, pld (default: all)"), formula="nbafl.client_sigma")
def accounting_command(a: Args) -> Result:
    """What a tight accountant saves: ε of the paper's σ_U over L exposures, and the σ_U each accountant needs.

    Example: dpcalc nbafl accounting --eps 10 --exposures 25
    """
    from dpcalc import _limits

    names = tuple(x.strip() for x in a.accountants.split(",") if x.strip()) if a.accountants is not None else None
    axes = a.grid()
    _limits.check_points(", ".join(a.option(n) for n in axes), _size(axes), ACCOUNTING_POINTS,
                         "up to five accountants and their sigma calibrations, ~0.2-1 s")
    rows: list[dict[str, Any]] = []
    failures: list[str] = []
    used: list[str] = []
    for point in _points(axes):
        res = nbafl.compare_accountants(point["eps"], point["delta"], C=point["C"], m=point["m"], L=int(point["L"]),
                                        c_scale=point["c_scale"], accountants=names)
        failures += [f"eps = {point['eps']:g}, L = {point['L']:g}: {r.failure}" for r in res.rows if r.failure]
        for r in res.rows:
            used += [r.accountant] if r.accountant not in used else []
            rows.append({**point, "accountant": r.accountant, "kind": r.bound, "eps_actual": r.eps,
                         "sigma_u": r.sigma_u, "saved": r.noise_saved})
    inputs = list(axes)
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
                  meta={"accountants": used, "inputs": _fixed(axes, inputs, shown)})


def _setting(name: str, kind: str = "int", source: type = SimulationConfig, **kw: Any) -> Any:
    """A simulation option: its help from the catalog where it is a paper quantity, its default the setting's."""
    make = {"int": integer, "float": real, "vector": vector}[kind]
    return make(name, default_from=source, formula=kw.pop("formula", "-"), **kw)


_SIM = "nbafl.server_sigma_sampled"


#: The bound's T* scan per ε (seconds).
_SIM_TSTAR_SECONDS = 0.01


def _simulation(a: Args) -> SimulationConfig:
    return SimulationConfig(eps=tuple(a.eps), t_max=a.t_max, N=a.N, K=a.K, m=a.m, d=a.d, C=a.C, delta=a.delta,
                            c_scale=a.c_scale, L=a.L, prox_mu=a.prox_mu, lr=a.lr, local_steps=a.local_steps,
                            non_iid=a.non_iid, repeats=a.repeats, seed=a.seed)


def _simulate_work(a: Args) -> tuple[str, float, str]:
    """The simulation's time before it starts (`SimulationConfig.seconds`; invalid settings refused here)."""
    cfg = _simulation(a).validated()
    return ("--eps, --t-max, --n, --data-size, --dim, --local-steps, --repeats",
            cfg.seconds + len(cfg.eps) * _SIM_TSTAR_SECONDS,
            f"{cfg.work:.3g} gradient-coordinate updates, {len(cfg.eps) + 1} runs per repeat (with the non-private "
            "baseline)")


@command("simulate", _setting("eps", "vector", help="Privacy levels ε (a list)"),
         _setting("t_max", help="Largest T simulated (T = 1 … t_max)"), _setting("N", formula=_SIM),
         _setting("K", formula=_SIM, note="Default: all N"), _setting("m", formula=_SIM),
         _setting("d", option="--dim", help="Model dimension d"), _setting("C", "float", formula=_SIM),
         _setting("delta", "float", formula=_SIM), _setting("c_scale", "float", formula=_SIM),
         _setting("L", formula=_SIM, note="Default: L = T"),
         _setting("prox_mu", "float", help="FedProx proximal weight μ"),
         _setting("lr", "float", help="Local learning rate"),
         _setting("local_steps", help="Local gradient steps per round"),
         _setting("non_iid", "float", help="Heterogeneity (0 = IID)"),
         _setting("repeats", help="Independent repeats per (ε, T)"), _setting("seed", help="Root seed"),
         integer("workers", default_from="dpcalc.nbafl.simulate:simulate", formula="-",
                 help="Processes (results do not depend on it)"), SCHEDULER,
         *(_setting(n, "float", BoundConstants, help=f"Bound constant {s} (for the bound's T*)")
           for n, s in (("pl", "l"), ("lipschitz", "β"), ("smoothness", "ρ"), ("dissimilarity", "B"),
                        ("theta", "Θ"))), work=lambda a: _simulate_work(a))
def simulate_command(a: Args) -> Result:
    """Simulate NbAFL on synthetic logistic regression: loss after T rounds per ε, best T beside the bound's T*.

    Example: dpcalc nbafl simulate --eps 1,20 --t-max 12 --n 20 --repeats 2
    """
    from dpcalc._progress import tracker
    from dpcalc.nbafl.simulate import simulate
    from dpcalc.sim.executor import scheduler_address

    cfg = _simulation(a)
    bound = BoundConstants(pl=a.pl, lipschitz=a.lipschitz, smoothness=a.smoothness, dissimilarity=a.dissimilarity,
                           theta=a.theta)
    with tracker("simulating") as update:
        res = simulate(cfg, workers=a.workers, bound=bound, progress=None if a.format is Format.json else update,
                       scheduler=scheduler_address(a.scheduler))
    rows = [{"eps": e, "T": int(t), "loss": float(res.loss[i, j]), "loss_se": float(res.loss_se[i, j]),
             "nonprivate": float(res.nonprivate[j]), "sigma_u": float(res.sigma_u[i, j]),
             "sigma_d": float(res.sigma_d[i, j])}
            for i, e in enumerate(cfg.eps) for j, t in enumerate(res.rounds)]
    summary: dict[str, Any] = {}
    for e, best, star in zip(cfg.eps, res.best_t, res.bound_t_star, strict=True):
        summary[f"best T (eps={e:g})"] = best
        summary[f"bound T* (eps={e:g})"] = star  # None (—) when the bound does not apply: see the warnings
    summary["wall time (s)"] = round(res.wall_time, 3)
    return Result(
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
        formula=["nbafl.client_sigma", "nbafl.server_sigma", "nbafl.convergence_bound"], warnings=list(res.warnings),
        meta={"config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.__dict__.items()},
              "workers": a.workers, **_status()},
        summary=summary)


ENTRIES = (Group("nbafl", "NbAFL: noise before aggregation FL (Wei et al., IEEE TIFS 2020).",
                 (noise_command, bound_command, optimal_t_command, optimal_k_command, accounting_command,
                  simulate_command)),)
