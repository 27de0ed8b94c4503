"""Differential privacy of secure aggregation without added noise (paper 004).

Source: Zhang, Ezzeldin, Elkordy, Psounis & Avestimehr, "Differentially Private Federated Learning without Noise
Addition: When is it Possible?" (2024); errata E1–E14 as listed in ``docs/secagg.md`` (the guide); catalog
``formulas/004_secagg.toml``.

**Two covariance normalisations** (erratum E5) — every function taking eigenvalues or covariances has a required
``normalization`` keyword: ``"sec4"`` Σ_i = G_iG_iᵀ/D (Theorems 2–3; aggregate covariance Σ_jΣ_j/B) and ``"sec5"``
Σ_i = G_iG_iᵀ/(BD) (WF-NA, Theorem 4, Table 1; aggregate Σ_jΣ_j). λ_sec4 = B·λ_sec5.
"""

from dpcalc.secagg._common import NORMALIZATIONS, Normalization, to_sec4, to_sec5
from dpcalc.secagg.bounds import (
    TABLE1_ROWS,
    DPGuarantee,
    Table1Entry,
    dp_from_rdp,
    gaussian_closed_form_eps,
    mi_leakage_bound,
    optimal_dp,
    table1,
    table1_entry,
    table1_eps,
    table1_rdp,
    theorem1_delta_threshold,
    theorem2_alpha_max,
    theorem2_rdp,
    theorem3_rdp,
    theorem4_rdp,
)
from dpcalc.secagg.data import (
    AggregatePair,
    GradientRDP,
    SpanCheck,
    aggregate_covariance,
    eigenvalues,
    exact_aggregate_divergence,
    gradient_subspace,
    load_gradients,
    projected_eigenvalues,
    second_moment,
    span_check,
    theorem2_from_gradients,
)
from dpcalc.secagg.divergence import Divergence, renyi_gaussian, renyi_gaussian_codiagonal
from dpcalc.secagg.waterfill import (
    WaterFilling,
    added_power,
    isotropic_spectrum,
    water_filling,
    wfna_covariance_change_bound,
    wfna_spectrum,
)

__all__ = [
    "NORMALIZATIONS",
    "TABLE1_ROWS",
    "AggregatePair",
    "DPGuarantee",
    "Divergence",
    "GradientRDP",
    "Normalization",
    "SpanCheck",
    "Table1Entry",
    "WaterFilling",
    "added_power",
    "aggregate_covariance",
    "dp_from_rdp",
    "eigenvalues",
    "exact_aggregate_divergence",
    "gaussian_closed_form_eps",
    "gradient_subspace",
    "isotropic_spectrum",
    "load_gradients",
    "mi_leakage_bound",
    "optimal_dp",
    "projected_eigenvalues",
    "renyi_gaussian",
    "renyi_gaussian_codiagonal",
    "second_moment",
    "span_check",
    "table1",
    "table1_entry",
    "table1_eps",
    "table1_rdp",
    "theorem1_delta_threshold",
    "theorem2_alpha_max",
    "theorem2_from_gradients",
    "theorem2_rdp",
    "theorem3_rdp",
    "theorem4_rdp",
    "to_sec4",
    "to_sec5",
    "water_filling",
    "wfna_covariance_change_bound",
    "wfna_spectrum",
]
