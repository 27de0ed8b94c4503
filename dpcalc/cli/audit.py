"""``dpcalc audit counts|scores|one-run``: ε lower bounds from privacy audits, with their confidence, beside the PLD
accountant's certified ε upper bound for the same run when the run is given ("audit ε_lower ≤ true ε ≤ accountant
ε_upper", with the gap).

Library: `dpcalc.audit` (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021, 2023; Steinke, Nasr & Jagielski 2023;
Mahloujifar, Melis & Chaudhuri 2024).
"""

from __future__ import annotations

from typing import Any

from dpcalc.cli.accounting import CLIENT_TERMS, EXAMPLE_TERMS
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import argument, choice, integer, real
from dpcalc.cli.risk import RUN, run_of
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

__all__ = ["ENTRIES"]

_COUNTS = "audit.counts_eps_lower"
_CONF = real("confidence", formula=_COUNTS)
_DELTA = real("delta", formula=_COUNTS)
_COLUMNS = [Column("quantity", "quantity", text=True), Column("value", "value", "value"),
            Column("detail", "how", text=True)]


def _given_run(a: Args) -> bool:
    values = a.parsed()
    return any(values.get(n) is not None for n in ("sigma", "q", "steps", *EXAMPLE_TERMS, *CLIENT_TERMS))


def _with_accountant(a: Args, rows: list[dict[str, Any]], eps_lower: float, confidence: float,
                     delta: float) -> tuple[str, dict[str, Any]]:
    """The accountant's row and the sentence, when the run is given (else nothing)."""
    if not _given_run(a):
        return "", {}
    if not 0.0 < delta < 1.0:
        raise DomainError("--delta must be in (0, 1) to set the audit beside the accountant's ε (its ε at δ = 0 is "
                          "infinite for the Gaussian)")
    from dpcalc._limits import work_budget
    from dpcalc.audit import compare
    from dpcalc.risk.profile import components_of

    event = run_of(a)
    with work_budget("the accountant's ε upper bound of the run (PLD)"):
        c = compare(eps_lower, confidence, components_of(event), delta)
    rows.append({"quantity": "ε upper (accountant)", "value": c.eps_upper,
                 "detail": f"PLD certified upper bound at δ = {delta:g}: {event.describe()}"})
    rows.append({"quantity": "gap (upper − lower)", "value": c.gap, "detail": "room the audit leaves"})
    return " " + c.sentence + ".", {"comparison": {"eps_lower": c.eps_lower, "eps_upper": c.eps_upper,
                                                   "gap": c.gap, "consistent": c.consistent}}


@command("counts", integer("tp", formula=_COUNTS), integer("positives", formula=_COUNTS),
         integer("fp", formula=_COUNTS), integer("negatives", formula=_COUNTS), _CONF, _DELTA,
         integer("group_size", default_from="dpcalc.audit.counts:eps_lower",
                 help="Records changed together per trial (group privacy; needs --delta 0)"), *RUN, formula=_COUNTS)
def counts_command(a: Args) -> Result:
    """ε lower bound from an attack's counts (Clopper–Pearson), its μ-GDP bound, beside the accountant's ε upper.

    Example: dpcalc audit counts --tp 500 --positives 500 --fp 0 --negatives 500 --confidence 0.99
    """
    from dpcalc.audit import audit_counts

    r = audit_counts(a.tp, a.positives, a.fp, a.negatives, confidence=a.confidence, delta=a.delta,
                     group_size=a.group_size)
    rows: list[dict[str, Any]] = [
        {"quantity": "ε lower", "value": r.eps_lower,
         "detail": f"confidence {r.confidence:g}: TPR ≥ {r.tpr_lower:.6g}, FPR ≤ {r.fpr_upper:.6g} (Clopper–Pearson, "
                   f"each end at {(1 - r.confidence) / 2:g}); δ = {r.delta:g}"},
        {"quantity": "μ lower (GDP)", "value": r.mu_lower,
         "detail": "Φ⁻¹(TPR_lo) − Φ⁻¹(FPR_hi): the run is not μ-GDP for any smaller μ"},
    ]
    if r.delta > 0.0:
        rows.append({"quantity": "ε of μ_lower-GDP", "value": r.eps_gaussian,
                     "detail": f"at δ = {r.delta:g}; a lower bound on ε only if the curve is Gaussian "
                               "(Nasr et al. 2023)"})
    extra, meta = _with_accountant(a, rows, r.eps_lower, r.confidence, r.delta)
    note = (f"Observed TPR {r.tpr:.4g}, FPR {r.fpr:.4g} over {a.positives} + {a.negatives} trials; with probability ≥ "
            f"{r.confidence:g} the true ε at δ = {r.delta:g} is at least ε lower." + extra)
    return Result(columns=_COLUMNS, rows=rows, title="Audit from an attack's counts", note=note,
                  formula=[_COUNTS, "audit.counts_mu_lower", "audit.cp_upper"], meta=meta)


@command("scores", argument("file", formula="-", help="CSV file with columns score and label (1: in, 0: out)"),
         _CONF, _DELTA, choice("method", ("split", "bonferroni", "best"),
                               default_from="dpcalc.audit.scores:audit_scores",
                               help="How the threshold is chosen: split (half chooses, half counts: rigorous), "
                                    "bonferroni (union bound over the thresholds), best (no correction: optimistic)"),
         integer("seed", default_from="dpcalc.audit.scores:audit_scores", help="Seed of the random split"),
         *RUN, formula=_COUNTS)
def scores_command(a: Args) -> Result:
    """ε lower bound of the best threshold attack on a CSV of scores and labels (multiple testing handled).

    Example: dpcalc audit scores scores.csv --delta 1e-5 --method split
    """
    from dpcalc.audit import audit_scores, read_scores

    scores, labels = read_scores(a.file)
    r = audit_scores(scores, labels, confidence=a.confidence, delta=a.delta, method=a.method, seed=a.seed)
    rows: list[dict[str, Any]] = [
        {"quantity": "ε lower", "value": r.eps_lower,
         "detail": f"confidence {r.confidence:g}, δ = {r.delta:g}: {r.caveat}"},
        {"quantity": "threshold", "value": r.threshold,
         "detail": f"score ≥ threshold ⇒ in: TP {r.tp}/{r.positives}, FP {r.fp}/{r.negatives}"},
    ]
    extra, meta = _with_accountant(a, rows, r.eps_lower, r.confidence, r.delta)
    return Result(columns=_COLUMNS, rows=rows, title=f"Audit from scores ({r.method})",
                  note=f"{scores.size} trials from {a.file}." + extra, formula=[_COUNTS, "audit.cp_upper"],
                  meta={"method": r.method, "caveat": r.caveat, **meta})


_ONE = "audit.one_run_p_value"


@command("one-run", integer("canaries", formula=_ONE), integer("guesses", formula=_ONE),
         integer("correct", formula=_ONE), _CONF, real("delta", formula=_ONE), *RUN, formula=_ONE)
def one_run_command(a: Args) -> Result:
    """ε lower bound of a one-run audit (m canaries, r guesses, v right) and its Gaussian f-DP refinement.

    Example: dpcalc audit one-run --canaries 1000 --guesses 100 --correct 100 --delta 1e-5
    """
    from dpcalc.audit import one_run_audit

    r = one_run_audit(a.canaries, a.guesses, a.correct, confidence=a.confidence, delta=a.delta)
    rows: list[dict[str, Any]] = [
        {"quantity": "ε lower", "value": r.eps_lower,
         "detail": f"Steinke, Nasr & Jagielski 2023: confidence {r.confidence:g}, δ = {r.delta:g}"},
        {"quantity": "μ lower (f-DP, GDP)", "value": r.mu_lower,
         "detail": "Mahloujifar, Melis & Chaudhuri 2024 with G_μ: not μ-GDP for any smaller μ"},
    ]
    if r.eps_lower_fdp is not None:
        rows.append({"quantity": "ε of μ_lower-GDP", "value": r.eps_lower_fdp,
                     "detail": f"at δ = {r.delta:g}; a lower bound on ε for a Gaussian curve"})
    extra, meta = _with_accountant(a, rows, r.eps_lower, r.confidence, r.delta)
    return Result(columns=_COLUMNS, rows=rows, title="One-run audit",
                  note=f"{a.correct} of {a.guesses} guesses right among {a.canaries} canaries." + extra,
                  formula=[_ONE], meta=meta)


ENTRIES = (Group("audit", "ε lower bounds from privacy audits, beside the accountant's ε upper bound.",
                 (counts_command, scores_command, one_run_command)),)
