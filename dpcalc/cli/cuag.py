"""``dpcalc cuag sigma|audit|baseline`` and the compression commands: CUAG-PFL (Li, Xiao & Chen 2024)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcalc import cuag
from dpcalc._limits import MAX_SECONDS
from dpcalc.cli import cuag_compression
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import AS_PUBLISHED, axis, choice
from dpcalc.errors import DomainError
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import flatten, product
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

_LOG_DELTA = Column("log_delta", "ln δ", r"$\ln\delta$", unit="nats")
_SCHEDULE = ("lam", "B", "D", "P")  # with μ and T: the actual schedule of (16)


@command("sigma", axis("mu"), axis("lam"), axis("B"), axis("D"), axis("P"), axis("t"), axis("C"),
         formula="cuag.noise_variance")
def sigma_command(a: Args) -> Result:
    """σ_t of eq. (16) and the noise variance ξ of eq. (15) for round t.

    Example: dpcalc cuag sigma --mu 0.25 --lam 0.1 --B 50 --data-size 500 --P 25 --t 1,10,300   (σ = 0.710489, 1.435165, 6.964071)
    """  # noqa: E501
    axes = a.grid()
    args = (axes["mu"], axes["lam"], axes["B"], axes["D"], axes["t"], axes["P"])
    out = {"rho": cuag.sampling_rate(axes["lam"], axes["B"], axes["D"]), "sigma": cuag.sigma(*args),
           "xi": cuag.noise_variance(*args, axes["C"])}
    return Result(
        columns=[*columns_for("cuag.noise_variance", ["mu", "lam", "B", "D", "P", "t", "C"]),
                 column("cuag.sampling_rate", "rho", label="ρ = 2λB/|D|"),
                 column("cuag.sigma", "sigma", label="σ_t (16)"), column("cuag.noise_variance", "xi", label="ξ (15)")],
        rows=flatten(axes, out), title="CUAG-PFL adaptive noise schedule",
        note="σ_t makes t rounds of P subsampled steps at constant σ_t give μ by the privacy CLT (an estimate). "
             "The schedule as a whole is NOT μ-GDP: see `dpcalc cuag audit` (erratum E15).",
        formula=["cuag.sampling_rate", "cuag.sigma", "cuag.noise_variance"])


@command("audit", axis("mu", default_from=cuag.audit), axis("T", default_from=cuag.audit),
         axis("delta", default_from=cuag.audit, formula="cuag.dpscaffold_eps"),
         *(axis(n, default_from=cuag.audit, formula="cuag.sigma", note="With --lam --B --data-size --P: recompose the "
                                                                       "actual schedule") for n in _SCHEDULE),
         AS_PUBLISHED, formula="cuag.effective_mu", work=lambda a: _audit_work(a))
def audit_command(a: Args) -> Result:
    """Audit the "fixed privacy budget" claim: the schedule (16) over T rounds composes to μ·√H_T.

    Example: dpcalc cuag audit --mu 0.25 --rounds 300   (μ_eff = 0.626631, ε = 2.5675 at δ = 1e-5, not 0.92)
    """
    given = a.given(*_SCHEDULE)
    if given and len(given) != len(_SCHEDULE):
        raise DomainError("give all of --lam, --B, --data-size, --P (to recompose the actual schedule) or none")
    axes = {"mu": a.mu, "T": a.T, "delta": a.delta, **given}
    rows: Any = _audit_grid(a.grid("mu", "T", "delta"), a.as_published) if not given else \
        _audit_rows(axes, a.as_published)  # closed forms vectorised; the actual schedule row by row
    eps = "gdp.delta_from_eps"  # declares ε and δ of μ-GDP
    cols = [column("cuag.effective_mu", "mu", label="μ (claimed)"), column("cuag.effective_mu", "T"),
            column(eps, "delta"), column(eps, "eps", key="eps_claimed", label="ε claimed"),
            column("cuag.effective_mu", "mu_eff", label="μ√H_T"), column(eps, "eps", label="ε actual"),
            Column("ratio", "ε ratio", "ratio"), _LOG_DELTA]
    if given:
        cols += [Column("lam", "λ", r"$\lambda$"), Column("B", "B", "$B$", integer=True),
                 Column("D", "|D|", "$|D|$", integer=True), Column("P", "P", "$P$", integer=True),
                 column("cuag.effective_mu", "mu_eff", key="mu_schedule", label="μ from σ_1..σ_T"),
                 column(eps, "eps", key="eps_pld_lower", label="ε tight lower (pld)"),
                 column(eps, "eps", key="eps_pld_upper", label="ε tight upper (pld)")]
    if a.as_published:
        cols.append(column("cuag.effective_mu", "mu_eff", key="mu_published", label="μ as published (E15)"))
    return Result(columns=cols, rows=rows, title="Audit of CUAG-PFL's fixed-budget claim (erratum E15)",
                  note="Round τ of schedule (16) contributes μ²/τ to the CLT μ², so after T rounds μ_eff = μ√H_T "
                       "(independent of |D|, λ, B, P). CLT-based: an estimate. "
                       + ("ε tight (pld): dpcalc's certified PLD of the actual schedule (T rounds of P steps at "
                          "ρ = 2λB/|D| with σ_1..σ_T), add/remove neighbours; lower ≤ true ε ≤ upper, upper is the "
                          "guarantee." if given else
                          "Give --lam --B --data-size --P for the tight ε (pld) of the actual schedule."),
                  formula=["cuag.effective_mu", eps])


def _audit_work(a: Args) -> tuple[str, float, str]:
    """The audit's work: the closed forms per grid point, or for the actual schedule the least work its certified PLD
    books at each grid point (`pld.accountant.least_work`: the first passes' lattice points counted, before any
    pass runs). What is admitted runs under a work budget of the same count (`_audit_rows`), so the call refuses
    before it starts or finishes (or refuses) within the minute."""
    from dpcalc.cli.command import POINT_SECONDS

    given = a.given(*_SCHEDULE)
    if len(given) != len(_SCHEDULE):
        return a.describe(), a.points() * POINT_SECONDS, "closed forms"
    seconds = 0.0
    for point in product({"mu": a.mu, "T": a.T, "delta": a.delta, **given}):
        seconds += _least_pld_seconds(*point)
        if not seconds <= MAX_SECONDS:  # refused already: the rest need not be counted
            break
    grid = "" if a.points() == 1 else f" at each of {a.points():,} points ({a.describe()})"
    return (f"--rounds up to {max(a.T):g} (one certified PLD of T rounds of P steps){grid}", seconds,
            "the PLD's first passes, lattice points of each distinct step counted")


def _schedule(mu: float, lam: float, B: int, D: int, T: int, P: int) -> list[tuple[float, float, int]]:
    """The actual schedule: round t runs P Poisson-subsampled steps at rate ρ = 2λB/|D| with σ_t of (16)."""
    import warnings

    from dpcalc.errors import EstimateWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)  # σ_t's own CLT derivation; the PLD below is certified
        sig = cuag.sigma_schedule(mu, lam, B, D, T, P)
        rho = float(cuag.sampling_rate(lam, B, D))
    return [(float(s), rho, int(P)) for s in sig]


def _least_pld_seconds(mu: float, T: float, delta: float, lam: float, B: float, D: float, P: float) -> float:
    """Least PLD work of one grid point (0 for inputs the body refuses in one line anyway)."""
    from dpcalc.accounting.pld.accountant import least_work

    try:
        return least_work(_schedule(mu, lam, int(B), int(D), int(T), int(P)), delta)
    except (DomainError, ValueError, TypeError, OverflowError):
        return 0.0


def _audit_grid(g: dict[str, np.ndarray], as_published: bool) -> Any:
    """The audit's closed forms at every grid point at once (`dpcalc.cuag.audit_eps`)."""
    mu_eff, eps_claimed, eps_eff = (np.asarray(x) for x in cuag.audit_eps(g["mu"], g["T"], g["delta"]))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(eps_claimed > 0, eps_eff / eps_claimed, np.nan)  # no ratio where the claimed ε is 0
    results = {"log_delta": np.log(g["delta"]), "eps_claimed": eps_claimed, "mu_eff": mu_eff, "eps": eps_eff,
               "ratio": ratio}
    if as_published:
        results["mu_published"] = np.asarray(cuag.effective_mu(g["mu"], g["T"], as_published=True))
    return flatten(g, results, missing=["ratio"])


def _tight_eps(mu: float, lam: float, B: int, D: int, T: int, P: int, delta: float) -> tuple[float, float]:
    """(ε lower, ε upper) of the actual schedule by dpcalc's certified PLD: round t runs P Poisson-subsampled steps at
    rate ρ = 2λB/|D| with noise multiplier σ_t of (16); ε upper is the guarantee."""
    from dpcalc.accounting import pld

    br = pld.epsilon(_schedule(mu, lam, B, D, T, P), delta)
    return br.eps_lower, br.eps_upper


def _audit_rows(axes: dict[str, list[float]], as_published: bool) -> list[dict[str, Any]]:
    """Row by row with the actual schedule (--lam --B --data-size --P): its heterogeneous CLT μ and tight PLD ε."""
    from dpcalc._limits import work_budget
    from dpcalc._progress import paced

    rows: list[dict[str, Any]] = []
    points = list(product(axes))  # every value of every option (lists of --lam etc. included)
    with work_budget("cuag audit (the certified PLD of the actual schedule)"):
        for values in paced(points, len(points), "audit", "the actual schedule's grid"):
            rows.append(_audit_row(dict(zip(axes, values, strict=True)), as_published))
    return rows


def _audit_row(point: dict[str, Any], as_published: bool) -> dict[str, Any]:
    """One row of `_audit_rows`: the closed forms, and with the actual schedule its CLT μ and certified PLD ε."""
    m, tt, d = point.pop("mu"), point.pop("T"), point.pop("delta")
    res = cuag.audit(m, tt, d, **point)
    row: dict[str, Any] = {"mu": m, "T": tt, "delta": d, "log_delta": float(np.log(d)),
                           "eps_claimed": res.eps_claimed, "mu_eff": res.mu_effective,
                           "eps": res.eps_effective, "ratio": res.ratio, **point}
    if res.mu_from_schedule is not None:
        row["mu_schedule"] = res.mu_from_schedule
        row["eps_pld_lower"], row["eps_pld_upper"] = _tight_eps(m, point["lam"], int(point["B"]), int(point["D"]),
                                                                int(tt), int(point["P"]), d)
    if as_published:
        row["mu_published"] = float(cuag.effective_mu(m, tt, as_published=True))
    return row


@command("baseline", axis("t", sweep="1,300"),
         choice("method", ("dp-scaffold", "prifedsync", "both"), formula="-", default="both",
                help="Which baseline curve"),
         axis("delta", default_from=cuag.baselines), formula="cuag.dpscaffold_eps")
def baseline_command(a: Args) -> Result:
    """ε after t rounds of the DP-SCAFFOLD (eq. 3) and PriFedSync (CLT) baselines of Fig. 4 / Table 1.

    Example: dpcalc cuag baseline --t 1,300   (DP-SCAFFOLD 1.517427, 26.282609; PriFedSync 0.406841, 10.235670)
    """
    axes = a.grid("t", "delta")
    curves = cuag.baselines(axes["t"], axes["delta"], dp_scaffold=a.method != "prifedsync",
                            prifedsync=a.method != "dp-scaffold")
    out = {k: x for k, x in vars(curves).items() if x is not None}
    labels = {"eps_dp_scaffold": column("cuag.dpscaffold_eps", "eps", key="eps_dp_scaffold", label="ε DP-SCAFFOLD"),
              "mu_prifedsync": column("cuag.prifedsync_mu", "mu", key="mu_prifedsync", label="μ PriFedSync"),
              "eps_prifedsync": column("cuag.dpscaffold_eps", "eps", key="eps_prifedsync", label="ε PriFedSync")}
    formulas = {"eps_dp_scaffold": "cuag.dpscaffold_eps", "mu_prifedsync": "cuag.prifedsync_mu",
                "eps_prifedsync": "gdp.delta_from_eps"}
    return Result(columns=[*columns_for("cuag.dpscaffold_eps", ["t", "delta"]), *(labels[k] for k in out)],
                  rows=flatten(axes, out), title="Baseline privacy curves (Li, Xiao & Chen 2024, Fig. 4/Table 1)",
                  note="DP-SCAFFOLD: eq. (3) inverted, s_f = 1, ρ = 0.1, ζ = 1 (= √(t ln 10) at δ = 1e-5). "
                       "PriFedSync: CLT μ_t = 0.01·√(t(e^{1/0.45²} − 1)) then ε(μ_t, δ). Both reverse-engineered "
                       "from the paper's curves; neither is a proven bound.",
                  formula=[formulas[k] for k in out])


ENTRIES = (Group("cuag", "CUAG-PFL (Li, Xiao & Chen 2024): adaptive σ schedule (16), audit of its budget, "
                         "baselines, compression.",
                 (sigma_command, audit_command, baseline_command, *cuag_compression.COMMANDS)),)
