"""Mutual-information utility-privacy for Gaussian local parameters (Zeng, Yang & Dai, Entropy 2022; paper 001).

* `dpcalc.gaussian_mi.engine` — exact engine for any PD covariances (Cholesky log-determinants, Schur complements).
* `dpcalc.gaussian_mi.cases` — Cases 1-3 closed forms, corrected (the '+' of (14), σ^{2n} twice in (17),
  (22)/(24)), and the published forms behind ``as_published=True``.
* `dpcalc.gaussian_mi.waterfill` — the Case-3 optimum in closed form (water-filling; corrects Figs 6/7).
* `dpcalc.gaussian_mi.figures` — the data behind Figs. 4-7, published and corrected side by side.

Units: bits by default (the paper's 2^{2ε}), ``units="nats"`` on request. The privacy notion is a Gaussian-prior
conditional MI, not Cuff-Yu MI-DP (no sup over priors). See docs/gauss.md.
"""

from dpcalc.gaussian_mi import figures
from dpcalc.gaussian_mi.cases import (
    bits_to_nats,
    case1_privacy,
    case1_sigma2,
    case1_u_max,
    case1_utility,
    case2_privacy,
    case2_sigma2,
    case2_u_max,
    case2_utility,
    case3_determinant,
    case3_privacy,
    case3_utility,
    conditional_variance,
    nats_to_bits,
    noise_conditional_variance,
)
from dpcalc.gaussian_mi.engine import (
    Exact,
    as_covariance,
    conditional_variances,
    equicorrelated_matrix,
    evaluate,
    load_covariance,
    privacy,
    utility,
)
from dpcalc.gaussian_mi.waterfill import Case3Optimum, case3_optimum, case3_sigma2, case3_sigma_e2, case3_u_max

__all__ = [
    "Case3Optimum", "Exact", "as_covariance", "bits_to_nats", "case1_privacy", "case1_sigma2", "case1_u_max",
    "case1_utility", "case2_privacy", "case2_sigma2", "case2_u_max", "case2_utility", "case3_determinant",
    "case3_optimum", "case3_privacy", "case3_sigma2", "case3_sigma_e2", "case3_u_max", "case3_utility",
    "conditional_variance", "conditional_variances", "equicorrelated_matrix", "evaluate", "figures",
    "load_covariance", "nats_to_bits",
    "noise_conditional_variance", "privacy", "utility",
]
