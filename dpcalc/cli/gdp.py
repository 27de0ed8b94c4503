"""``dpcalc gdp delta|eps|mu|compose|clt|tradeoff``: μ-Gaussian differential privacy (Dong, Roth & Su 2022)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcalc.accounting import gdp
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import AS_PUBLISHED, axis, vector
from dpcalc.errors import DomainError
from dpcalc.report.columns import column
from dpcalc.report.grid import flatten
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

_PROFILE = "gdp.delta_from_eps"  # declares mu and eps, outputs delta
_LOG_PROFILE = "gdp.log_delta_from_eps"
_INVERSE = {"eps": "gdp.eps_from_mu", "mu": "gdp.mu_from_eps"}  # each checked by the shared round-trip recipe
_NOTE = ("μ-GDP ⇔ (ε, δ(ε))-DP for every ε >= 0 (Dong, Roth & Su 2022, Cor. 2.13); δ(ε; μ) = Φ(−ε/μ + μ/2) − "
         "e^ε Φ(−ε/μ − μ/2), computed in log space; log_delta is natural log and stays finite below 1e-308.")

TARGET_DELTA = axis("delta", default=None, note="Or --log-delta")
LOG_DELTA = axis("log_delta", formula="-", default=None,
                 help="ln δ < 0 instead of --delta (reaches below 1e-308, e.g. -800)")


def _col(name: str) -> Column:
    """μ, ε, δ and ln δ columns from the catalog."""
    if name == "log_delta":
        return column(_LOG_PROFILE, "log_delta", label="ln δ")
    return column(_PROFILE, name)


def _delta_axis(a: Args) -> str:
    """Which of --delta and --log-delta was given (exactly one)."""
    if (a.delta is None) == (a.log_delta is None):
        raise DomainError("give exactly one of --delta and --log-delta")
    return "delta" if a.delta is not None else "log_delta"


def _both_deltas(axes: dict[str, Any], key: str) -> dict[str, Any]:
    """Rows always carry both delta and log_delta."""
    return {"log_delta": np.log(axes["delta"])} if key == "delta" else {"delta": np.exp(axes["log_delta"])}


@command("delta", axis("mu"), axis("eps"), formula=_PROFILE)
def delta_command(a: Args) -> Result:
    """δ(ε; μ): the smallest δ with μ-GDP ⇒ (ε, δ)-DP; log δ is exact far below 1e-308.

    Example: dpcalc gdp delta --mu 1 --eps 40   (δ = 3.908971e-343, ln δ = -788.4234127739917)
    """
    axes = a.grid()
    log_d = gdp.log_delta(axes["mu"], axes["eps"])
    delta = np.exp(np.asarray(log_d, dtype=np.float64))
    rows = flatten(axes, {"delta": delta, "log_delta": log_d})
    warns: list[str] = []
    cols = [_col("mu"), _col("eps"), _col("delta"), _col("log_delta")]
    if np.any(delta == 0.0):  # below the double range: δ (0.0 as a float) written from its log, as text
        rows = rows.with_texts(delta_decimal=_tiny(rows.data["log_delta"]))
        cols.append(Column("delta_decimal", "δ (from ln δ)", r"$\delta$", text=True))
        warns.append("delta underflows a double (< 4.9e-324) in some rows: delta is 0.0 there; log_delta is exact")
    return Result(columns=cols, rows=rows, title="δ(ε) of μ-GDP", note=_NOTE, formula=[_PROFILE, _LOG_PROFILE],
                  warnings=warns)


def _tiny(log_d: np.ndarray) -> list[str]:
    """δ = e^{log_d} written as m·10^k (m in [1, 10), 6 decimals) for every row: it underflows a double."""
    log10 = np.asarray(log_d, dtype=np.float64) / np.log(10.0)
    k = np.floor(log10)
    m = np.round(10.0 ** (log10 - k), 6)
    up = m >= 10.0  # 9.9999997 rounds to 10: write 1.000000 of the next power
    m[up] /= 10.0
    k[up] += 1.0
    return [f"{a:.6f}e{b}" for a, b in zip(m.tolist(), k.astype(np.int64).tolist(), strict=True)]


@command("eps", axis("mu"), TARGET_DELTA, LOG_DELTA, formula=_INVERSE["eps"])
def eps_command(a: Args) -> Result:
    """ε(μ, δ): the smallest ε with μ-GDP ⇒ (ε, δ)-DP (root finding, safe side, rtol 1e-12).

    Example: dpcalc gdp eps --mu 0.25 --delta 1e-5   (ε = 0.92634150…; Li, Xiao & Chen 2024 print 0.92);
    dpcalc gdp eps --mu 1 --log-delta -788.4234127739917   (ε = 40)
    """
    key = _delta_axis(a)
    axes = a.grid("mu", key)
    e = gdp.eps_from_mu(axes["mu"], **{key: axes[key]})
    return Result(columns=[_col("mu"), _col("delta"), _col("eps"), _col("log_delta")],
                  rows=flatten(axes, {"eps": e, **_both_deltas(axes, key)}), title="ε(μ, δ) of μ-GDP",
                  note=_NOTE + " ε is an upper bound within 1e-12 relative (safe side).", formula=_INVERSE["eps"])


@command("mu", axis("eps"), TARGET_DELTA, LOG_DELTA, formula=_INVERSE["mu"])
def mu_command(a: Args) -> Result:
    """μ(ε, δ): the largest μ such that μ-GDP ⇒ (ε, δ)-DP (root finding, safe side, rtol 1e-12).

    Example: dpcalc gdp mu --eps 0.92 --delta 1e-5   (μ = 0.2484391…)
    """
    key = _delta_axis(a)
    axes = a.grid("eps", key)
    m = gdp.mu_from_eps(axes["eps"], **{key: axes[key]})
    return Result(columns=[_col("eps"), _col("delta"), _col("mu"), _col("log_delta")],
                  rows=flatten(axes, {"mu": m, **_both_deltas(axes, key)}), title="μ(ε, δ) of μ-GDP",
                  note=_NOTE + " μ is a lower bound within 1e-12 relative (safe side).", formula=_INVERSE["mu"])


@command("compose", vector("mus"), axis("delta", formula=_INVERSE["eps"]), formula="gdp.compose")
def compose_command(a: Args) -> Result:
    """Compose μ_i-GDP mechanisms: μ = √(Σ μ_i²) (Dong et al. 2022, Cor. 3.3), with its ε at each δ.

    Example: dpcalc gdp compose --mus 0.5,0.5,0.7071 --delta 1e-5   (μ = 0.99999…, ε = 4.3771…)
    """
    mu = gdp.compose(a.mus)
    e = gdp.eps_from_mu(mu, np.asarray(a.delta))
    rows = [{"n": float(len(a.mus)), "mu": mu, "delta": d, "eps": float(x), "log_delta": float(np.log(d))}
            for d, x in zip(a.delta, np.atleast_1d(e), strict=True)]
    return Result(columns=[Column("n", "n", "$n$", integer=True), _col("mu"), _col("delta"), _col("eps"),
                           _col("log_delta")], rows=rows, title="Composition of μ-GDP mechanisms",
                  note=_NOTE, formula=["gdp.compose", _INVERSE["eps"]], meta={"mus": a.mus})


@command("clt", axis("q"), axis("sigma", short="-z"), axis("steps"), axis("delta", formula=_INVERSE["eps"]),
         AS_PUBLISHED, formula="gdp.clt_mu")
def clt_command(a: Args) -> Result:
    """Privacy CLT: μ = q·√(T(e^{1/σ²} − 1)) and its ε (an ESTIMATE: it can underestimate).

    Corrected Theorem 4 of Li, Xiao & Chen 2024 (erratum E1); --as-published adds the printed
    q·√T·(e^{1/σ²} − 1).
    Example: dpcalc gdp clt --q 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5   (μ = 0.41452, ε = 1.6177)
    """
    axes = a.grid()
    mu = gdp.clt_mu(axes["q"], axes["sigma"], axes["steps"])
    out: dict[str, Any] = {"mu": mu, "eps": gdp.eps_from_mu(mu, axes["delta"]), "log_delta": np.log(axes["delta"])}
    cols = [column("gdp.clt_mu", "q"), column("gdp.clt_mu", "sigma", key="noise_multiplier", label="z"),
            column("gdp.clt_mu", "steps"), _col("delta"), _col("mu"), _col("eps"), _col("log_delta")]
    if a.as_published:
        pub = gdp.clt_mu(axes["q"], axes["sigma"], axes["steps"], as_published=True)
        out.update(mu_published=pub, eps_published=gdp.eps_from_mu(pub, axes["delta"]))
        cols += [column("gdp.clt_mu", "mu", key="mu_published", label="μ (as published, E1)"),
                 column(_PROFILE, "eps", key="eps_published", label="ε (as published)")]
    axes["noise_multiplier"] = axes.pop("sigma")  # the row key: one name per quantity (docs/conventions.md §2)
    return Result(columns=cols, rows=flatten(axes, out), title="GDP central limit theorem (estimate)",
                  note="bound: estimate (an approximation that can be below the true ε; the warning says why)",
                  formula=["gdp.clt_mu", _INVERSE["eps"]], meta={"bound": "estimate"})


@command("tradeoff", axis("mu"), axis("alpha"), formula="gdp.tradeoff")
def tradeoff_command(a: Args) -> Result:
    """The f-DP trade-off curve G_μ(α) = Φ(Φ^{-1}(1 − α) − μ): minimal type-II error at type-I error α.

    Example: dpcalc gdp tradeoff --mu 1 --alpha 0:1:0.25
    """
    axes = a.grid()
    beta = gdp.tradeoff(axes["alpha"], axes["mu"])
    return Result(columns=[_col("mu"), column("gdp.tradeoff", "alpha"), column("gdp.tradeoff", "beta",
                                                                              label="β = G_μ(α)")],
                  rows=flatten(axes, {"beta": beta}), title="μ-GDP trade-off function",
                  note="Dong, Roth & Su 2022, Def. 2.6.", formula="gdp.tradeoff")


ENTRIES = (Group("gdp", "μ-Gaussian differential privacy: δ(ε; μ), ε(μ, δ), μ(ε, δ), composition, CLT.",
                 (delta_command, eps_command, mu_command, compose_command, clt_command, tradeoff_command)),)
