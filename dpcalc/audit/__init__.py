"""ε lower bounds from privacy audits, to set beside an accountant's certified upper bound.

* `dpcalc.audit.binomial` — Clopper–Pearson bounds;
* `dpcalc.audit.counts` — from an attack's true/false positives (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021,
  2023);
* `dpcalc.audit.scores` — from scores and labels, the threshold chosen with its multiple-testing price stated;
* `dpcalc.audit.one_run` — one training run, m canaries (Steinke, Nasr & Jagielski 2023);
* `dpcalc.audit.one_run_fdp` — its f-DP refinement for a Gaussian curve (Mahloujifar, Melis & Chaudhuri 2024);
* `dpcalc.audit.compare` — "audit ε_lower ≤ true ε ≤ accountant ε_upper".
"""

from __future__ import annotations

from dpcalc.audit.binomial import cp_lower, cp_upper
from dpcalc.audit.compare import Comparison, compare
from dpcalc.audit.counts import CountsAudit, audit_counts, eps_lower, mu_lower
from dpcalc.audit.one_run import OneRunAudit, eps_lower_one_run, one_run_audit, p_value
from dpcalc.audit.one_run_fdp import eps_lower_fdp, mu_lower_fdp
from dpcalc.audit.scores import ScoresAudit, audit_scores, read_scores, roc_counts

__all__ = ["Comparison", "CountsAudit", "OneRunAudit", "ScoresAudit", "audit_counts", "audit_scores", "compare",
           "cp_lower", "cp_upper", "eps_lower", "eps_lower_fdp", "eps_lower_one_run", "mu_lower", "mu_lower_fdp",
           "one_run_audit", "p_value", "read_scores", "roc_counts"]
