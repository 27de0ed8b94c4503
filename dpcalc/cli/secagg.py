"""``dpcalc secagg divergence|rdp|table1|waterfill|mi-bound|span-check``: DP of secure aggregation without added
noise (Zhang et al. 2024). The analyses are `dpcalc.secagg.analysis`; this module reads the options.

Covariance normalisations are explicit (erratum E5): ``--normalization sec4`` for Σ_i = G_iG_iᵀ/D (Theorems 2–3;
aggregate divided by B) and ``sec5`` for Σ_i = G_iG_iᵀ/(B·D) (WF-NA, Theorem 4, Table 1); λ_sec4 = B·λ_sec5.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcalc import secagg
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import AS_PUBLISHED, axis, choice, integer, many, matrix, one, text, vector
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten
from dpcalc.report.render import Column, Result
from dpcalc.report.vectors import parse_matrix, path_exists
from dpcalc.secagg import analysis

__all__ = ["ENTRIES"]


NORMALIZATION = choice("normalization", ("sec4", "sec5"), formula="-", default=None, help=(
    "Normalisation of the given eigenvalues/covariance: sec4 = G Gᵀ/D (Sec. 4, Theorems 2-3; aggregate divided by B) "
    "or sec5 = G Gᵀ/(B·D) (Sec. 5, WF-NA, Table 1). λ_sec4 = B·λ_sec5: a wrong choice is off by the factor B"))
GRADIENTS_HELP = ("Per-sample clipped gradients: a file (.npy K × D for one user — repeat the option per user — or "
                  "N × K × D; or a text table K × D) or inline rows 'a,b;c,d' (K rows, D columns)")
ROUNDS = integer("rounds", formula="-", default_from=secagg.dp_from_rdp, help="Rounds composed (RDP adds up)")
_T2 = "secagg.theorem2_rdp"


def _gradients(option: str, items: list[str] | None) -> list[np.ndarray] | None:
    """Every user's gradient matrix from --gradients: files (one or several users each) or inline rows."""
    if items is None:
        return None
    found: list[np.ndarray] = []
    for item in items:
        found += secagg.load_gradients(item) if path_exists(item) else [parse_matrix(option, item)]
    return found


def _convert_columns(rounds: int) -> list[Column]:
    suffix = f" after {rounds} rounds" if rounds > 1 else ""
    return [Column("eps_lemma1", f"ε Lemma 1{suffix} (nats)", r"$\epsilon_{\mathrm{L1}}$", unit="nats"),
            Column("eps_improved", f"ε improved{suffix} (nats)", r"$\epsilon_{\mathrm{imp}}$", unit="nats")]


@command("rdp", axis("alpha", sweep="2:64:1"), one("delta", formula="secagg.gaussian_closed_form_eps"),
         one("eig_min_sum", default=None, note="The users' minimum covariance eigenvalues summed; needs "
                                               "--normalization (or give --gradients)"),
         NORMALIZATION, many("gradients", formula="-", help=GRADIENTS_HELP), one("B"), one("C"),
         one("D", default=None, note="With --eig-min-sum; taken from --gradients otherwise"), ROUNDS,
         choice("form", ("simplified", "unsimplified"), formula="-", default_from=secagg.theorem2_rdp,
                help="simplified = eq. (19), unsimplified = eq. (30)"), formula=_T2)
def rdp_command(a: Args) -> Result:
    """Theorem 2: ε_RDP(α) of the aggregate from the users' minimum eigenvalues, and the best (ε, δ).

    Example: dpcalc secagg rdp --eig-min-sum 5 --normalization sec4 --B 32 --C 10 --data-size 1200 --delta 1e-4
    """
    res = analysis.theorem2_analysis(
        a.alpha, B=a.B, C=a.C, delta=a.delta, rounds=a.rounds, form=a.form,
        gradients=_gradients(a.option("gradients"), a.gradients), eig_min_sum=a.eig_min_sum,
        normalization=a.normalization, D=a.D)
    summary: dict[str, Any] = {"S_sec4": res.eig_min_sum_sec4, "S_sec5": res.eig_min_sum_sec4 / a.B,
                               "alpha_max": res.alpha_max}
    for m in analysis.CONVERSIONS:
        if m in res.best:
            summary[f"best_grid_{m}"] = f"eps = {res.best_grid[m][0]:.6g} at alpha = {res.best_grid[m][1]:g}"
            summary[f"best_{m}"] = f"eps = {res.best[m][0]:.6g} at alpha = {res.best[m][1]:.6g}"
    columns = {"rdp": res.rdp, **{f"eps_{m}": res.eps[m] for m in analysis.CONVERSIONS}}
    rows = [{"alpha": float(x), **{k: (float(c[i]) if np.isfinite(c[i]) else None) for k, c in columns.items()}}
            for i, x in enumerate(res.alpha)]  # None (—): no guarantee at this order
    note = (f"Theorem 2 (eq. {'19' if a.form == 'simplified' else '30'}), S_sec4 = {res.eig_min_sum_sec4:.6g} "
            f"(= B·S_sec5); orders α >= D·S/C² = {res.alpha_max:.6g} have no guarantee (—). δ = {a.delta:g}; RDP "
            f"composed over {a.rounds} round(s). S must bound the minimum eigenvalue for both neighbouring data sets "
            "(E12).")
    return Result(columns=columns_for(_T2, ["alpha", "rdp"]) + _convert_columns(a.rounds), rows=rows,
                  title="RDP of secure aggregation under Gaussian sampling (Theorem 2)", note=note, formula=_T2,
                  summary=summary, meta=res.gradients)


@command("table1", one("N"), one("sigma2"), one("B"), one("C"), one("D"), one("delta"),
         integer("rounds", formula="-", default_from=secagg.table1, help="Rounds composed (RDP adds up)"),
         choice("method", ("lemma1", "improved"), formula="-", default_from=secagg.table1,
                help="RDP → DP conversion: lemma1 (the paper's) or improved (Balle et al. 2020)"), AS_PUBLISHED,
         formula="secagg.table1_gd_iso_eps")
def table1_command(a: Args) -> Result:
    """Every row of Table 1: ε at δ for SGD/GD/GSGD × isotropic/WF-NA noise ("no DP guarantee" rows say so).

    Example: dpcalc secagg table1 --n 100 --sigma2 0.01 --B 32 --C 10 --data-size 1200 --delta 1e-5
    """
    rows = [{"update": e.update, "noise": e.noise, "eps": e.eps, "alpha": e.alpha, "eps_prime": e.eps_prime,
             "note": e.note}
            for e in secagg.table1(a.N, a.sigma2, a.delta, a.B, a.C, a.D, method=a.method, rounds=a.rounds,
                                   as_published=a.as_published)]
    cols = [Column("update", "local update", "local update", text=True),
            Column("noise", "added noise", "added noise", text=True), column("secagg.table1_gd_iso_eps", "eps"),
            Column("alpha", "α*", r"$\alpha^*$"), Column("eps_prime", "ε' (before B/D)", r"$\epsilon'$", unit="nats"),
            Column("note", "", "", text=True)]
    return Result(columns=cols, rows=rows, title="Table 1 (Zhang et al. 2024): DP mechanisms in FedSGD",
                  note=f"N = {a.N:g}, σ² = {a.sigma2:g}, B = {a.B:g}, C = {a.C:g}, D = {a.D:g}, δ = {a.delta:g}, "
                       f"{a.rounds} round(s), conversion {a.method}. WF-NA row = Theorem 4 (eq. 35); "
                       "--as-published shows the printed row (E1).",
                  formula=["secagg.table1_sgd_iid_iso_eps", "secagg.table1_gd_iso_eps", "secagg.table1_gsgd_iso_rdp",
                           "secagg.table1_gsgd_wfna_rdp"])


_FULL_FORM = "Full form (with --mu1 --cov1 --mu2 --cov2)"


@command("divergence", axis("alpha"), vector("dmu", default=None), vector("lam1", default=None),
         vector("lam2", default=None),
         *(vector(n, formula="-", default=None, help=f"{_FULL_FORM}: mean μ{n[-1]}") for n in ("mu1", "mu2")),
         *(matrix(n, formula="-", default=None, help=f"{_FULL_FORM}: covariance Σ{n[-1]}") for n in ("cov1", "cov2")),
         formula="secagg.renyi_gaussian_codiagonal")
def divergence_command(a: Args) -> Result:
    """Exact Rényi divergence D_α(N(μ₁,Σ₁) ‖ N(μ₂,Σ₂)) (eq. 22): +inf with the reason if Σ_α is not PD.

    Example: dpcalc secagg divergence --dmu -0.5 --lam1 2 --lam2 1.2 --alpha 1.5,2  (0.3844272962 at α = 1.5)
    """
    res = analysis.divergence(a.alpha, **a.given("dmu", "lam1", "lam2", "mu1", "cov1", "mu2", "cov2"))
    value, t1, t2 = (np.atleast_1d(np.asarray(x)) for x in (res.value, res.mean_term, res.logdet_term))
    rows = [{"alpha": x, "divergence": float(value[i]), "mean_term": float(t1[i]), "logdet_term": float(t2[i])}
            for i, x in enumerate(a.alpha)]
    cols = [*columns_for("secagg.renyi_gaussian_codiagonal", ["alpha", "divergence"]),
            Column("mean_term", "term I (nats)", r"$\mathrm{I}$", unit="nats"),
            Column("logdet_term", "term II (nats)", r"$\mathrm{II}$", unit="nats")]
    return Result(columns=cols, rows=rows, title="Rényi divergence between Gaussians (eq. 22)",
                  note=res.reason or "Σ_α positive definite at every order.",
                  warnings=[res.reason] if res.reason else [],  # the reason for an inf travels with it (JSON too)
                  formula="secagg.renyi_gaussian_codiagonal")


@command("waterfill", one("sigma2"),
         text("gradients", formula="-", default=None,
              help="One user's per-sample gradients K × D (.npy, text table or inline rows)"),
         matrix("cov", formula="-", default=None, help="A covariance (file or rows 'a,b;c,d') instead of --gradients; "
                                                       "needs --normalization"),
         vector("eigenvalues", default=None, note="Or the covariance's eigenvalues; needs --normalization"),
         NORMALIZATION, one("B", formula=_T2, default_from=secagg.water_filling),
         integer("blocks", formula="-", default_from=secagg.water_filling,
                 help="Block-wise variant with k blocks (does NOT preserve the bound: erratum E8)"),
         formula="secagg.added_power")
def waterfill_command(a: Args) -> Result:
    """WF-NA: noise covariance U max(σ² − Λ, 0) Uᵀ filling every eigenvalue up to σ²; power vs isotropic Kσ².

    Example: dpcalc secagg waterfill --eigenvalues 0.0984268,0.2765732 --normalization sec5 --sigma2 0.1
    """
    wf = analysis.water_filling_from(
        a.sigma2, B=a.B, gradients=_gradients(a.option("gradients"), [a.gradients] if a.gradients else None),
        cov=a.cov, eigenvalues=a.eigenvalues, blocks=a.blocks or 1,
        normalization=a.normalization)
    rows = [{"k": k + 1, "eigenvalues": float(lam), "filled": float(f), "added": float(f - lam)}
            for k, (lam, f) in enumerate(zip(wf.eigenvalues, wf.filled, strict=True))]
    cols = [Column("k", "k", "$k$", integer=True), column("secagg.added_power", "eigenvalues", label="λ_k (sec5)"),
            Column("filled", "max(λ_k, σ²)", r"$\max(\lambda_k,\sigma^2)$"),
            Column("added", "added", r"$\Delta\lambda_k$")]
    summary = {"K": len(rows), "added_power": wf.added_power, "isotropic_power": wf.isotropic_power,
               "power_ratio": wf.power_ratio, "min_eigenvalue_after": wf.min_eigenvalue_after, "blocks": wf.blocks}
    return Result(columns=cols, rows=rows, title="WF-NA water-filling noise (Sec. 5.1)",
                  note="Eigenvalues of Σ_i = G Gᵀ/(B·D) (sec5). With --blocks the 'added' column is the exact "
                       "fill's; the block fill's total power and true λ_min after are in the summary.",
                  formula="secagg.added_power", summary=summary)


@command("mi-bound", axis("c_const"), axis("d"), axis("N"), axis("B"), formula="secagg.mi_leakage_bound")
def mi_bound_command(a: Args) -> Result:
    """Eq. (9): I_priv <= c·d/((N−1)B) + (d/2)·log(N/(N−1)) nats (N >= 2).

    Example: dpcalc secagg mi-bound --c-const 1 --d 100 --n 10 --B 32
    """
    axes = a.grid()
    out = {"mi": secagg.mi_leakage_bound(axes["c_const"], axes["d"], axes["N"], axes["B"])}
    return Result(columns=columns_for("secagg.mi_leakage_bound", ["c_const", "d", "N", "B", "mi"]),
                  rows=flatten(axes, out), title="MI leakage bound of secure aggregation (eq. 9)",
                  note="IID data, independent whitened components; decays like O(d/N).",
                  formula="secagg.mi_leakage_bound")


@command("span-check", many("gradients", formula="-", required=True, help=GRADIENTS_HELP),
         vector("g_new", formula="-", help="The replacement gradient g' (list or file, length K)"),
         one("B", formula="secagg.theorem1_delta_threshold", default=None,
             note="Needed for --sampling iid (threshold B/D)"),
         choice("sampling", ("iid", "gaussian"), formula="-", default_from=analysis.span_analysis,
                help="iid (threshold B/D) or gaussian (1)"), formula="secagg.theorem1_delta_threshold")
def span_check_command(a: Args) -> Result:
    """Theorem 1's necessary condition: is g' in the span of every user's per-sample gradients?

    Example: dpcalc secagg span-check --gradients grads.npy --g-new 0.3,0.4,0.1
    """
    res = analysis.span_analysis(_gradients(a.option("gradients"), a.gradients) or [], a.g_new,
                                 sampling=a.sampling, B=a.B)
    row = {"in_span": "yes" if res.check.in_span else "no", "relative_residual": res.check.relative_residual,
           "rank": res.check.rank, "K": res.check.K, "delta_threshold": res.delta_threshold}
    cols = [Column("in_span", "g' in span", "in span", text=True),
            Column("relative_residual", "‖residual‖/‖g'‖", r"$\|r\|/\|g'\|$"),
            Column("rank", "rank", "rank", integer=True), Column("K", "K", "$K$", integer=True),
            column("secagg.theorem1_delta_threshold", "delta_threshold")]
    note = ("In span: the necessary condition holds (not sufficient for DP)." if res.check.in_span else
            f"Not in span: the aggregate is not (ε, δ)-DP for any ε when δ < {res.delta_threshold:g} (Theorem 1).")
    return Result(columns=cols, rows=[row], title="Theorem 1 span check", note=note,
                  formula="secagg.theorem1_delta_threshold")


ENTRIES = (Group("secagg", "Secure aggregation without added noise (Zhang et al. 2024): exact Rényi divergence, RDP "
                           "bounds from covariance eigenvalues (Theorems 2-4), Table 1, WF-NA, eq. (9).",
                 (divergence_command, rdp_command, table1_command, waterfill_command, mi_bound_command,
                  span_check_command)),)
