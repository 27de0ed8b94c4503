"""``dpcalc secagg divergence|rdp|table1|waterfill|mi-bound|span-check`` (seed 004: DP of secure aggregation
without added noise, Zhang et al. 2024).

Covariance normalisations are explicit (erratum E5): ``--normalization sec4`` for Σ_i = G_iG_iᵀ/D (Theorems 2–3;
aggregate divided by B) and ``sec5`` for Σ_i = G_iG_iᵀ/(B·D) (WF-NA, Theorem 4, Table 1); λ_sec4 = B·λ_sec5.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import numpy as np
import typer

from dpcalc import secagg
from dpcalc.cli._common import AsPublishedOpt, command
from dpcalc.errors import DomainError
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten, grid, parse_values, parse_vector, path_exists
from dpcalc.report.render import Column, Result

secagg_app = typer.Typer(help="Secure aggregation without added noise (seed 004): exact Rényi divergence, RDP "
                              "bounds from covariance eigenvalues (Theorems 2-4), Table 1, WF-NA, eq. (9).",
                         no_args_is_help=True)


class Normalization(str, Enum):
    sec4 = "sec4"
    sec5 = "sec5"


class Conversion(str, Enum):
    lemma1 = "lemma1"
    improved = "improved"


class Form(str, Enum):
    simplified = "simplified"
    unsimplified = "unsimplified"


NORM_HELP = ("Normalisation of the given eigenvalues/covariance: sec4 = G Gᵀ/D (Sec. 4, Theorems 2-3; aggregate "
             "divided by B) or sec5 = G Gᵀ/(B·D) (Sec. 5, WF-NA, Table 1). λ_sec4 = B·λ_sec5: a wrong choice is off "
             "by the factor B.")
BOpt = Annotated[str, typer.Option("--B", help="Batch/scale B of Gaussian sampling (Assumption 2), 1 <= B <= D.")]
COpt = Annotated[str, typer.Option("--C", help="Clipping norm C (parameter units).")]
DataSizeOpt = Annotated[str, typer.Option("--data-size", help="Samples per user D = |D_i| (an integer).")]
UsersOpt = Annotated[str, typer.Option("--n", help="Number of users (clients) N, an integer.")]
AlphaOpt = Annotated[str, typer.Option("--alpha", help="Rényi orders α > 1 (value, list or range a:b:step).")]
DeltaOpt = Annotated[str, typer.Option("--delta", help="Target δ in (0, 1).")]
RoundsOpt = Annotated[int, typer.Option("--rounds", help="Rounds composed (RDP adds up).")]
GRADIENTS_HELP = ("Per-sample clipped gradients: a file (.npy K × D for one user — repeat the option per user — or "
                  "N × K × D; or a text table K × D) or inline rows 'a,b;c,d' (K rows, D columns).")
GradientsOpt = Annotated[list[str] | None, typer.Option("--gradients", help=GRADIENTS_HELP)]


def _matrix(option: str, text: str) -> np.ndarray:
    """A matrix from a file (.npy or text table), or inline rows separated by ';' (e.g. '1,0.3;0.3,0.5')."""
    from dpcalc import files

    if path_exists(text) or ("," not in text and ";" not in text):
        return files.read_matrix(option, text)
    return np.array([parse_values(option, row) for row in text.split(";")], dtype=np.float64)


def _load_users(items: list[str]) -> list[np.ndarray]:
    users: list[np.ndarray] = []
    for item in items:
        users += secagg.load_gradients(item) if path_exists(item) else [_matrix("--gradients", item)]
    k = users[0].shape[0]
    for i, u in enumerate(users[1:], 2):
        if u.shape[0] != k:  # every user's gradients live in the same K-dimensional model
            raise DomainError(f"--gradients: user {i} has K = {u.shape[0]} rows but user 1 has K = {k} (each "
                              "user's matrix is K × D_i with one K)")
    return users


def _convert_columns(rounds: int) -> list[Column]:
    unit = "nats"
    suffix = f" after {rounds} rounds" if rounds > 1 else ""
    return [Column("eps_lemma1", f"ε Lemma 1{suffix} (nats)", r"$\epsilon_{\mathrm{L1}}$", unit=unit),
            Column("eps_improved", f"ε improved{suffix} (nats)", r"$\epsilon_{\mathrm{imp}}$", unit=unit)]


@command(secagg_app, "rdp")
def rdp_command(
    alpha: AlphaOpt = "2:64:1",
    delta: DeltaOpt = "1e-5",
    eig_min_sum: Annotated[str | None, typer.Option(
        "--eig-min-sum", help="S = Σ_i λ_i,min, the users' minimum covariance eigenvalues summed (needs "
                              "--normalization). Or give --gradients.")] = None,
    normalization: Annotated[Normalization | None, typer.Option("--normalization", help=NORM_HELP)] = None,
    gradients: GradientsOpt = None,
    B: BOpt = "32",
    C: COpt = "1",
    data_size: Annotated[str | None, typer.Option("--data-size", help="Samples per user D (with --eig-min-sum; "
                                                                      "taken from --gradients otherwise).")] = None,
    rounds: RoundsOpt = 1,
    form: Annotated[Form, typer.Option("--form", help="simplified = eq. (19), unsimplified = eq. (30).")]
    = Form.simplified,
) -> Result:
    """Theorem 2: ε_RDP(α) of the aggregate from the users' minimum eigenvalues, and the best (ε, δ).

    Example: dpcalc secagg rdp --eig-min-sum 5 --normalization sec4 --B 32 --C 10 --data-size 1200 --delta 1e-4
    """
    alphas = np.asarray(parse_values("--alpha", alpha), dtype=np.float64)
    b = float(parse_values("--B", B)[0])
    c = float(parse_values("--C", C)[0])
    d_val = float(parse_values("--delta", delta)[0])
    meta: dict[str, Any] = {}
    if gradients:
        if eig_min_sum is not None:
            raise DomainError("give either --eig-min-sum or --gradients, not both")
        users = _load_users(gradients)
        res = secagg.theorem2_from_gradients(users, alphas, b, c, form=form.value)
        s4, d, curve = res.eig_min_sum_sec4, res.D, np.atleast_1d(res.rdp)
        meta.update(users=len(users), K=res.K, D=res.D,
                    eig_min_sec4=[float(x) for x in res.eig_min_sec4])
    else:
        if eig_min_sum is None or normalization is None or data_size is None:
            raise DomainError("give --eig-min-sum with --normalization (sec4|sec5) and --data-size, or --gradients")
        s_given = float(parse_values("--eig-min-sum", eig_min_sum)[0])
        s4 = float(secagg.to_sec4(s_given, normalization=normalization.value, B=b, name="eig-min-sum"))
        d = int(parse_values("--data-size", data_size)[0])
        curve = np.atleast_1d(secagg.theorem2_rdp(alphas, s4, b, c, d, normalization="sec4", form=form.value))
    amax = float(secagg.theorem2_alpha_max(s4, c, d, normalization="sec4"))
    fin = np.isfinite(curve)
    out: dict[str, Any] = {"rdp": curve, "eps_lemma1": np.full(curve.shape, np.inf),
                           "eps_improved": np.full(curve.shape, np.inf)}
    summary: dict[str, Any] = {"S_sec4": s4, "S_sec5": s4 / b, "alpha_max": amax}
    for method in ("lemma1", "improved"):
        if np.any(fin):
            out[f"eps_{method}"][fin] = [secagg.dp_from_rdp([a], [r], d_val, method=method, rounds=rounds).eps
                                         for a, r in zip(alphas[fin], curve[fin], strict=True)]
            g = secagg.dp_from_rdp(alphas, curve, d_val, method=method, rounds=rounds)
            summary[f"best_grid_{method}"] = f"eps = {g.eps:.6g} at alpha = {g.alpha:g}"

            def rdp_of(al: np.ndarray) -> Any:
                return secagg.theorem2_rdp(al, s4, b, c, d, normalization="sec4", form=form.value)

            opt = secagg.optimal_dp(rdp_of, d_val, amax, method=method, rounds=rounds)
            summary[f"best_{method}"] = f"eps = {opt.eps:.6g} at alpha = {opt.alpha:.6g}"
    rows = [{"alpha": float(a), **{k: (float(v[i]) if np.isfinite(v[i]) else None) for k, v in out.items()}}
            for i, a in enumerate(alphas)]  # None (—): no guarantee at this order
    cols = columns_for("secagg.theorem2_rdp", ["alpha", "rdp"]) + _convert_columns(rounds)
    note = (f"Theorem 2 (eq. {'19' if form is Form.simplified else '30'}), S_sec4 = {s4:.6g} (= B·S_sec5); orders "
            f"α >= D·S/C² = {amax:.6g} have no guarantee (—). δ = {d_val:g}; RDP composed over {rounds} round(s). "
            "S must bound the minimum eigenvalue for both neighbouring data sets (E12).")
    return Result(columns=cols, rows=rows, title="RDP of secure aggregation under Gaussian sampling (Theorem 2)",
                  note=note, formula="secagg.theorem2_rdp", summary=summary, meta=meta)


@command(secagg_app, "table1")
def table1_command(
    users: UsersOpt = "50",
    sigma2: Annotated[str, typer.Option("--sigma2", help="σ²: per-user isotropic noise variance (isotropic rows) "
                                                         "and eigenvalue floor in the sec5 normalisation (WF-NA).")]
    = "0.01",
    B: BOpt = "32",
    C: COpt = "10",
    data_size: DataSizeOpt = "1200",
    delta: DeltaOpt = "1e-4",
    rounds: RoundsOpt = 1,
    method: Annotated[Conversion, typer.Option("--method", help="RDP → DP conversion: lemma1 (the paper's) or "
                                                                "improved (Balle et al. 2020).")] = Conversion.lemma1,
    as_published: AsPublishedOpt = False,
) -> Result:
    """Every row of Table 1: ε at δ for SGD/GD/GSGD × isotropic/WF-NA noise ("no DP guarantee" rows say so).

    Example: dpcalc secagg table1 --n 100 --sigma2 0.01 --B 32 --C 10 --data-size 1200 --delta 1e-5
    """
    n, s2 = parse_values("--n", users)[0], parse_values("--sigma2", sigma2)[0]
    b, c = parse_values("--B", B)[0], parse_values("--C", C)[0]
    d, dl = parse_values("--data-size", data_size)[0], parse_values("--delta", delta)[0]
    rows = []
    for e in secagg.table1(n, s2, dl, b, c, d, method=method.value, rounds=rounds, as_published=as_published):
        rows.append({"update": e.update, "noise": e.noise, "eps": e.eps, "alpha": e.alpha,
                     "eps_prime": e.eps_prime, "note": e.note})
    cols = [Column("update", "local update", "local update", text=True),
            Column("noise", "added noise", "added noise", text=True),
            column("secagg.table1_gd_iso_eps", "eps"),
            Column("alpha", "α*", r"$\alpha^*$"), Column("eps_prime", "ε' (before B/D)", r"$\epsilon'$", unit="nats"),
            Column("note", "", "", text=True)]
    return Result(columns=cols, rows=rows, title="Table 1 (seed 004): DP mechanisms in FedSGD",
                  note=f"N = {n:g}, σ² = {s2:g}, B = {b:g}, C = {c:g}, D = {d:g}, δ = {dl:g}, {rounds} round(s), "
                       f"conversion {method.value}. WF-NA row = Theorem 4 (eq. 35); --as-published shows the printed "
                       "row (E1).",
                  formula=["secagg.table1_sgd_iid_iso_eps", "secagg.table1_gd_iso_eps", "secagg.table1_gsgd_iso_rdp",
                           "secagg.table1_gsgd_wfna_rdp"])


@command(secagg_app, "divergence")
def divergence_command(
    alpha: AlphaOpt = "2",
    dmu: Annotated[str | None, typer.Option("--dmu", help="Co-diagonal form: Δμ = μ₁ − μ₂ in the common "
                                                          "eigenbasis (list or file).")] = None,
    lam1: Annotated[str | None, typer.Option("--lam1", help="Eigenvalues of Σ₁ (list or file).")] = None,
    lam2: Annotated[str | None, typer.Option("--lam2", help="Eigenvalues of Σ₂ (list or file).")] = None,
    mu1: Annotated[str | None, typer.Option("--mu1", help="Full form: mean μ₁ (list or file).")] = None,
    cov1: Annotated[str | None, typer.Option("--cov1", help="Full form: covariance Σ₁ (file or rows 'a,b;c,d').")]
    = None,
    mu2: Annotated[str | None, typer.Option("--mu2", help="Full form: mean μ₂.")] = None,
    cov2: Annotated[str | None, typer.Option("--cov2", help="Full form: covariance Σ₂.")] = None,
) -> Result:
    """Exact Rényi divergence D_α(N(μ₁,Σ₁) ‖ N(μ₂,Σ₂)) (eq. 22): +inf with the reason if Σ_α is not PD.

    Example: dpcalc secagg divergence --dmu -0.5 --lam1 2 --lam2 1.2 --alpha 1.5,2  (0.3844272962 at α = 1.5)
    """
    alphas = parse_values("--alpha", alpha)
    full = [mu1, cov1, mu2, cov2]
    diag = [dmu, lam1, lam2]
    if all(x is not None for x in full) and all(x is None for x in diag):
        res = secagg.renyi_gaussian(parse_vector("--mu1", mu1 or ""), _matrix("--cov1", cov1 or ""),
                                    parse_vector("--mu2", mu2 or ""), _matrix("--cov2", cov2 or ""),
                                    np.asarray(alphas))
    elif all(x is not None for x in diag) and all(x is None for x in full):
        res = secagg.renyi_gaussian_codiagonal(parse_vector("--dmu", dmu or ""), parse_vector("--lam1", lam1 or ""),
                                               parse_vector("--lam2", lam2 or ""), np.asarray(alphas))
    else:
        raise DomainError("give --mu1 --cov1 --mu2 --cov2 (full matrices) or --dmu --lam1 --lam2 (co-diagonal)")
    value, t1, t2 = (np.atleast_1d(np.asarray(x)) for x in (res.value, res.mean_term, res.logdet_term))
    rows = [{"alpha": a, "divergence": float(value[i]), "mean_term": float(t1[i]), "logdet_term": float(t2[i])}
            for i, a in enumerate(alphas)]
    cols = [*columns_for("secagg.renyi_gaussian_codiagonal", ["alpha", "divergence"]),
            Column("mean_term", "term I (nats)", r"$\mathrm{I}$", unit="nats"),
            Column("logdet_term", "term II (nats)", r"$\mathrm{II}$", unit="nats")]
    return Result(columns=cols, rows=rows, title="Rényi divergence between Gaussians (eq. 22)",
                  note=res.reason or "Σ_α positive definite at every order.",
                  warnings=[res.reason] if res.reason else [],  # the reason for an inf travels with it (JSON too)
                  formula="secagg.renyi_gaussian_codiagonal")


@command(secagg_app, "waterfill")
def waterfill_command(
    sigma2: Annotated[str, typer.Option("--sigma2", help="Eigenvalue floor σ² in the sec5 normalisation.")],
    gradients: Annotated[str | None, typer.Option("--gradients", help="One user's per-sample gradients K × D "
                                                                      "(.npy, text table or inline rows).")] = None,
    cov: Annotated[str | None, typer.Option("--cov", help="A covariance (file or rows 'a,b;c,d') instead of "
                                                          "--gradients; needs --normalization.")] = None,
    eigenvalues: Annotated[str | None, typer.Option("--eigenvalues", help="Or the eigenvalues of the covariance "
                                                                          "(list or file); needs --normalization.")]
    = None,
    normalization: Annotated[Normalization | None, typer.Option("--normalization", help=NORM_HELP)] = None,
    B: BOpt = "32",
    blocks: Annotated[int, typer.Option("--blocks", help="Block-wise variant with k blocks (does NOT preserve the "
                                                         "bound: erratum E8).")] = 1,
) -> Result:
    """WF-NA: noise covariance U max(σ² − Λ, 0) Uᵀ filling every eigenvalue up to σ²; power vs isotropic Kσ².

    Example: dpcalc secagg waterfill --eigenvalues 0.0984268,0.2765732 --normalization sec5 --sigma2 0.1
    """
    s2 = parse_values("--sigma2", sigma2)[0]
    b = parse_values("--B", B)[0]
    if sum(x is not None for x in (gradients, cov, eigenvalues)) != 1:
        raise DomainError("give one of --gradients, --cov or --eigenvalues (the latter two with --normalization)")
    if gradients is not None:
        users = _load_users([gradients])
        if len(users) != 1:
            raise DomainError("--gradients must hold one user's K × D matrix for waterfill")
        sigma = secagg.second_moment(users[0], normalization="sec5", B=b)
        norm = "sec5"
    else:
        if normalization is None:
            raise DomainError("--cov/--eigenvalues need --normalization sec4|sec5 (λ_sec4 = B·λ_sec5)")
        sigma = _matrix("--cov", cov) if cov is not None else np.diag(parse_vector("--eigenvalues", eigenvalues or ""))
        norm = normalization.value
    wf = secagg.water_filling(sigma, s2, normalization=norm, B=b, blocks=blocks if blocks > 1 else None)
    rows = [{"k": k + 1, "eigenvalues": float(lam), "filled": float(f), "added": float(f - lam)}
            for k, (lam, f) in enumerate(zip(wf.eigenvalues, wf.filled, strict=True))]
    cols = [Column("k", "k", "$k$", integer=True),
            column("secagg.added_power", "eigenvalues", label="λ_k (sec5)"),
            Column("filled", "max(λ_k, σ²)", r"$\max(\lambda_k,\sigma^2)$"),
            Column("added", "added", r"$\Delta\lambda_k$")]
    summary = {"K": len(rows), "added_power": wf.added_power, "isotropic_power": wf.isotropic_power,
               "power_ratio": wf.power_ratio, "min_eigenvalue_after": wf.min_eigenvalue_after, "blocks": wf.blocks}
    return Result(columns=cols, rows=rows, title="WF-NA water-filling noise (Sec. 5.1)",
                  note="Eigenvalues of Σ_i = G Gᵀ/(B·D) (sec5). With --blocks the 'added' column is the exact "
                       "fill's; the block fill's total power and true λ_min after are in the summary.",
                  formula="secagg.added_power", summary=summary)


@command(secagg_app, "mi-bound")
def mi_bound_command(
    c_const: Annotated[str, typer.Option("--c-const", help="The unspecified constant c of Elkordy et al. 2022 "
                                                           "(not the clipping norm).")] = "1",
    d: Annotated[str, typer.Option("--d", help="Model dimension d.")] = "1000",
    users: UsersOpt = "50",
    B: BOpt = "32",
) -> Result:
    """Eq. (9): I_priv <= c·d/((N−1)B) + (d/2)·log(N/(N−1)) nats (N >= 2).

    Example: dpcalc secagg mi-bound --c-const 1 --d 100 --n 10 --B 32
    """
    axes = grid({"c_const": parse_values("--c-const", c_const), "d": parse_values("--d", d),
                 "N": parse_values("--n", users), "B": parse_values("--B", B)})
    out = {"mi": secagg.mi_leakage_bound(axes["c_const"], axes["d"], axes["N"], axes["B"])}
    return Result(columns=columns_for("secagg.mi_leakage_bound", ["c_const", "d", "N", "B", "mi"]),
                  rows=flatten(axes, out), title="MI leakage bound of secure aggregation (eq. 9)",
                  note="IID data, independent whitened components; decays like O(d/N).",
                  formula="secagg.mi_leakage_bound")


class Sampling(str, Enum):
    iid = "iid"
    gaussian = "gaussian"


@command(secagg_app, "span-check")
def span_check_command(
    gradients: Annotated[list[str], typer.Option("--gradients", help=GRADIENTS_HELP)],
    g_new: Annotated[str, typer.Option("--g-new", help="The replacement gradient g' (list or file, length K).")],
    B: Annotated[str | None, typer.Option("--B", help="Batch size B (needed for --sampling iid: threshold B/D).")]
    = None,
    sampling: Annotated[Sampling, typer.Option("--sampling", help="iid (threshold B/D) or gaussian (1).")]
    = Sampling.gaussian,
) -> Result:
    """Theorem 1's necessary condition: is g' in the span of every user's per-sample gradients?

    Example: dpcalc secagg span-check --gradients grads.npy --g-new 0.3,0.4,0.1
    """
    users = _load_users(gradients)
    g_all = np.concatenate(users, axis=1)
    res = secagg.span_check(g_all, parse_vector("--g-new", g_new))
    if sampling is Sampling.iid and B is None:
        raise DomainError("--sampling iid needs --B (the threshold is B/D)")
    b = parse_values("--B", B)[0] if B is not None else 1.0
    thr = float(secagg.theorem1_delta_threshold(sampling.value, b, users[0].shape[1]))
    row = {"in_span": "yes" if res.in_span else "no", "relative_residual": res.relative_residual,
           "rank": res.rank, "K": res.K, "delta_threshold": thr}
    cols = [Column("in_span", "g' in span", "in span", text=True),
            Column("relative_residual", "‖residual‖/‖g'‖", r"$\|r\|/\|g'\|$"),
            Column("rank", "rank", "rank", integer=True), Column("K", "K", "$K$", integer=True),
            column("secagg.theorem1_delta_threshold", "delta_threshold")]
    note = ("In span: the necessary condition holds (not sufficient for DP)." if res.in_span else
            f"Not in span: the aggregate is not (ε, δ)-DP for any ε when δ < {thr:g} (Theorem 1).")
    return Result(columns=cols, rows=[row], title="Theorem 1 span check", note=note,
                  formula="secagg.theorem1_delta_threshold")


def register(app: typer.Typer) -> None:
    """Attach the ``secagg`` group to the root app."""
    app.add_typer(secagg_app, name="secagg")
