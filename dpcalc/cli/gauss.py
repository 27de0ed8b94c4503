"""``dpcalc gauss case1|case2|case3|noise|custom|figure`` (Zeng, Yang & Dai, Entropy 2022; information in bits)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcalc import gaussian_mi as gauss
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import AS_PUBLISHED, axis, flag, integer, path, units, vector
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import Rows, flatten
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

NOTE = ("Privacy = max_i I(X_i; Y | X^-i) for the stated Gaussian prior (not Cuff-Yu MI-DP: no sup over priors); "
        "utility = I(X; Y)/n; in {units}.")
_UNITS_COLUMN = Column("units", "units", text=True)
UNITS = units(gauss.case2_sigma2)
PRIOR = (axis("n"), axis("var"), axis("cov"))  # the equicorrelated prior of Cases 2 and 3


def _with_units(rows: Rows, u: str) -> Rows:
    """Every row says its information units (a constant column, not a dict per row)."""
    return rows.with_constants(units=u)


def _info(formula_id: str, name: str, u: str, **kwargs: Any) -> Column:
    """The column of an information quantity (bits by default) in units ``u``."""
    return column(formula_id, name, unit=u, **kwargs)


@command("case2", axis("eps"), *PRIOR, UNITS, AS_PUBLISHED, formula="gauss.case2_sigma2")
def case2_command(a: Args) -> Result:
    """Case 2 (Thm 2 corrected): σ² = V_x/(2^(2ε)−1) and U_max (18); --as-published adds the paper's (14).

    Example: dpcalc gauss case2 --eps 1:10:1 --n 101 --var 2 --cov 1.8 --as-published
    """
    u = a.units
    axes = a.grid()
    args = (axes["eps"], axes["var"], axes["cov"], axes["n"])
    out: dict[str, Any] = {"sigma2": gauss.case2_sigma2(*args, units=u), "u_max": gauss.case2_u_max(*args, units=u)}
    cols = [*columns_for("gauss.case2_sigma2", ["eps", "n", "var", "cov"], units={"eps": u}),
            column("gauss.case2_sigma2", "sigma2", label="σ² (corrected)"), _info("gauss.case2_u_max", "u_max", u)]
    formulas = ["gauss.case2_sigma2", "gauss.case2_u_max"]
    if a.as_published:
        s_pub = gauss.case2_sigma2(*args, units=u, as_published=True)
        out["sigma2_published"] = s_pub
        out["u_published"] = gauss.case2_u_max(*args, units=u, as_published=True)
        out["leakage_published"] = gauss.case2_privacy(s_pub, axes["var"], axes["cov"], axes["n"], units=u)
        cols += [column("gauss.case2_sigma2", "sigma2", key="sigma2_published", label="σ² (published 14)"),
                 _info("gauss.case2_u_max", "u_max", u, key="u_published", label=f"U at published σ² ({u})"),
                 _info("gauss.case2_privacy", "privacy", u, key="leakage_published",
                       label=f"true leakage of published σ² ({u})")]
        formulas.append("gauss.case2_privacy")
    return Result(columns=[*cols, _UNITS_COLUMN], rows=_with_units(flatten(axes, out), u),
                  title="Case 2: independent noise on equicorrelated parameters (Thm 2, corrected)",
                  note=NOTE.format(units=u) + " Erratum 7: (14) has '+' where '−' belongs.", formula=formulas)


@command("case1", axis("eps"), vector("variances"), UNITS, AS_PUBLISHED, formula="gauss.case1_u_max")
def case1_command(a: Args) -> Result:
    """Case 1 (Thm 1): σ² = σ_xmax²/(2^(2ε)−1) and U_max (9); the published form is correct (same numbers).

    Example: dpcalc gauss case1 --eps 1:3 --variances 1,0.5,0.25
    """
    u = a.units
    var = np.asarray(a.variances)
    axes = a.grid()
    var_max = float(np.max(gauss.as_covariance("variances", np.diag(var)).diagonal()))
    s2 = gauss.case1_sigma2(axes["eps"], var_max, units=u)
    out: dict[str, Any] = {"sigma2": s2, "u_max": gauss.case1_u_max(axes["eps"], var, units=u)}
    cols = [column("gauss.case1_sigma2", "eps", unit=u), column("gauss.case1_sigma2", "sigma2"),
            _info("gauss.case1_u_max", "u_max", u)]
    if a.as_published:
        out.update(sigma2_published=s2, u_published=out["u_max"], leakage_published=axes["eps"])
        cols += [column("gauss.case1_sigma2", "sigma2", key="sigma2_published", label="σ² (published)"),
                 _info("gauss.case1_u_max", "u_max", u, key="u_published", label="U (published)"),
                 _info("gauss.case1_privacy", "privacy", u, key="leakage_published", label=f"true leakage ({u})")]
    return Result(columns=[*cols, _UNITS_COLUMN], rows=_with_units(flatten(axes, out), u),
                  title=f"Case 1: independent parameters and noise, n = {var.size} (Thm 1)",
                  note=NOTE.format(units=u), formula=["gauss.case1_sigma2", "gauss.case1_u_max"],
                  meta={"n": var.size})


@command("case3", axis("eps"), *PRIOR, flag("nonneg", default_from=gauss.case3_optimum, help="Require σ_e² >= 0"),
         UNITS, AS_PUBLISHED, formula="gauss.case3_sigma2")
def case3_command(a: Args) -> Result:
    """Case 3: optimal dependent noise (σ², σ_e²) by water-filling and U_max; --as-published adds the paper's
    (24) evaluated at that optimum (erratum 12).

    Example: dpcalc gauss case3 --eps 1:10 --n 101 --var 30 --cov 2
    """
    u = a.units
    axes = a.grid()
    opt = gauss.case3_optimum(axes["eps"], axes["var"], axes["cov"], axes["n"], nonneg=a.nonneg, units=u)
    # where the optimum is not attained (infinite noise on one eigen-direction) σ², σ_e² and the published (24)
    # are not applicable ("—"); the supremum u_max is printed for every row
    attained = np.broadcast_to(opt.attained, np.shape(opt.u_max))
    out: dict[str, Any] = {"sigma2": np.where(attained, opt.sigma2, np.nan),
                           "sigma_e2": np.where(attained, opt.sigma_e2, np.nan), "u_max": opt.u_max}
    u_max_id = "gauss.case3_u_max_nonneg" if a.nonneg else "gauss.case3_u_max"
    cols = [*columns_for("gauss.case3_sigma2", ["eps", "n", "var", "cov"], units={"eps": u}),
            column("gauss.case3_sigma2", "sigma2"), column("gauss.case3_sigma_e2", "sigma_e2"),
            _info(u_max_id, "u_max", u)]
    formulas = ["gauss.case3_sigma2", "gauss.case3_sigma_e2", u_max_id]
    if a.as_published:
        pub = np.full(attained.shape, np.nan)
        if np.any(attained):
            at = {k: np.broadcast_to(axes[k], attained.shape)[attained] for k in ("var", "cov", "n")}
            pub[attained] = gauss.case3_privacy(opt.sigma2[attained], opt.sigma_e2[attained], at["var"], at["cov"],
                                                at["n"], units=u, as_published=True)
        out["leakage_published"] = pub
        cols.append(_info("gauss.case3_privacy", "privacy", u, key="leakage_published",
                          label=f"eq. (24) at the optimum ({u})"))
        formulas.append("gauss.case3_privacy")
    rows = flatten(axes, out, missing=("sigma2", "sigma_e2", "leakage_published"))  # not attained: None ("—")
    return Result(columns=[*cols, _UNITS_COLUMN], rows=_with_units(rows, u),
                  title="Case 3: dependent noise, water-filling optimum" + (" (σ_e² >= 0)" if a.nonneg else ""),
                  note=NOTE.format(units=u) + " The exact leakage at the optimum equals ε.", formula=formulas,
                  meta={"nonneg": a.nonneg})


@command("noise", axis("sigma2"), axis("sigma_e2", note="0: Case 2"), *PRIOR, UNITS, AS_PUBLISHED,
         formula="gauss.case3_privacy")
def noise_command(a: Args) -> Result:
    """Cases 2/3 at a noise level you choose: privacy max_i I(X_i; Y | X^-i) = ½log(1 + V_x/V_z) and utility (27);
    --as-published adds the paper's (24) and the determinant (22) as printed (erratum 12).

    Example: dpcalc gauss noise --sigma2 3 --sigma-e2 1 --n 101 --var 30 --cov 2 --as-published
    """
    u = a.units
    axes = a.grid()
    args = (axes["sigma2"], axes["sigma_e2"], axes["var"], axes["cov"], axes["n"])
    out: dict[str, Any] = {"privacy": gauss.case3_privacy(*args, units=u),
                           "utility": gauss.case3_utility(*args, units=u)}
    cols = [*columns_for("gauss.case3_privacy", ["sigma2", "sigma_e2", "n", "var", "cov"]),
            _info("gauss.case3_privacy", "privacy", u), _info("gauss.case3_utility", "utility", u)]
    formulas = ["gauss.case3_privacy", "gauss.case3_utility"]
    if a.as_published:
        out["privacy_published"] = gauss.case3_privacy(*args, units=u, as_published=True)
        out["determinant"] = gauss.case3_determinant(*args)
        out["determinant_published"] = gauss.case3_determinant(*args, as_published=True)
        cols += [_info("gauss.case3_privacy", "privacy", u, key="privacy_published", label=f"eq. (24) ({u})"),
                 column("gauss.case3_determinant", "determinant"),
                 column("gauss.case3_determinant", "determinant", key="determinant_published", label="(22) as printed")]
        formulas.append("gauss.case3_determinant")
    return Result(columns=[*cols, _UNITS_COLUMN], rows=_with_units(flatten(axes, out), u),
                  title="Cases 2/3 at a chosen noise (σ², σ_e²): exact leakage and utility", note=NOTE.format(units=u),
                  formula=formulas)


@command("custom", path("sigma_x", help="Covariance Σ_X (.npy or .csv)"),
         path("sigma_z", help="Noise covariance Σ_Z (.npy or .csv)"), UNITS,
         flag("per_client", help="One row per client with its leakage I(X_i; Y | X^-i)"), formula="-")
def custom_command(a: Args) -> Result:
    """Exact engine on arbitrary PD covariances: privacy max_i I(X_i; Y | X^-i) and utility I(X; Y)/n;
    --per-client lists every client's leakage.

    Example: dpcalc gauss custom --sigma-x sx.csv --sigma-z sz.npy --per-client
    """
    u = a.units
    r = gauss.evaluate(gauss.load_covariance(a.sigma_x, "--sigma-x"), gauss.load_covariance(a.sigma_z, "--sigma-z"),
                       units=u)
    rows: list[dict[str, Any]] = [{"n": r.n, "privacy": r.privacy, "client": r.argmax, "utility": r.utility,
                                   "units": u}]
    leak_cols: list[Column] = []
    if a.per_client:
        rows = [{"n": r.n, "privacy": r.privacy, "client": i + 1, "leakage": float(x), "utility": r.utility,
                 "units": u} for i, x in enumerate(r.leakages)]
        leak_cols = [Column("leakage", f"I(X_i;Y|X^-i) ({u})", unit=u)]
    return Result(columns=[Column("n", "n", integer=True), Column("privacy", f"max_i I(X_i;Y|X^-i) ({u})", unit=u),
                           Column("client", "client i" if a.per_client else "argmax i", integer=True), *leak_cols,
                           Column("utility", f"I(X;Y)/n ({u})", unit=u), _UNITS_COLUMN],
                  rows=rows, title="Exact Gaussian engine (Cholesky log-determinants, Schur complements)",
                  note=NOTE.format(units=u), formula=[],
                  meta={"engine": "dpcalc.gaussian_mi.evaluate: the definitions for any covariance (no closed form); "
                                  "checked against every gauss.* closed form by the recipe gauss_engine_exact"})


_FIGURE_COLUMNS = {
    "sigma2": ("gauss.case2_sigma2", "sigma2", "σ² corrected"),
    "u_max": ("gauss.case2_u_max", "u_max", "U_max corrected"),
    "u_published": ("gauss.case2_u_max", "u_max", "U at published σ²"),
    "sigma2_published": ("gauss.case2_sigma2", "sigma2", "σ² published (14)"),
    "leakage_published": ("gauss.case2_privacy", "privacy", "true leakage of published σ²"),
    "case3_sigma2": ("gauss.case3_sigma2", "sigma2", "Case-3 σ²"),
    "case3_sigma_e2": ("gauss.case3_sigma_e2", "sigma_e2", "Case-3 σ_e²"),
    "case3_u_max": ("gauss.case3_u_max", "u_max", "Case-3 U_max (σ_e² free)"),
}
_FIG4 = {"sigma2": ("gauss.case1_sigma2", "sigma2", "σ² (Thm 1)"), "u_max": ("gauss.case1_u_max", "u_max", "U_max (9)"),
         "u_published": ("gauss.case1_u_max", "u_max", "U_max published (9)")}


@command("figure", integer("number", positional=True, formula="-", option="NUMBER",
                           help="Figure number: 4, 5, 6 or 7"),
         integer("seed", default_from=gauss.figures.figure_data, help="Seed of Fig. 4's random σ_i² ~ U(0,1)"),
         formula="-")
def figure_command(a: Args) -> Result:
    """Data behind Figs 4-7, published and corrected side by side (bits).

    Fig 4: Case 1, n = 101, σ_i² ~ U(0,1) (seeded). Fig 5: Case 2, σ_m²=2, σ_k²=1.8. Figs 6/7: σ_m²=30, σ_k²=2,
    with the published Case-2 noise (14), the corrected Case 2 (= Case 3 with σ_e² >= 0) and the Case-3 optimum.
    Example: dpcalc gauss figure 5 --json
    """
    data = gauss.figures.figure_data(a.number, a.seed)
    specs = {**_FIGURE_COLUMNS, **(_FIG4 if a.number == 4 else {})}
    cols = [column("gauss.case2_sigma2", "eps", unit="bits")]
    cols += [column(specs[k][0], specs[k][1], key=k, label=specs[k][2]) for k in data.series]
    formulas = list(dict.fromkeys(specs[k][0] for k in data.series))
    return Result(columns=[*cols, _UNITS_COLUMN], rows=_with_units(flatten({"eps": data.eps}, data.series), "bits"),
                  title=f"Zeng et al. 2022, Figure {a.number} data", note=NOTE.format(units="bits"), formula=formulas,
                  meta={"figure": a.number, "seed": data.seed})


ENTRIES = (Group("gauss", "Gaussian-prior MI utility-privacy, Cases 1-3 (Zeng, Yang & Dai, Entropy 2022).",
                 (case1_command, case2_command, case3_command, noise_command, custom_command, figure_command)),)
