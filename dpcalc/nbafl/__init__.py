"""NbAFL — noising before aggregation FL (Wei et al., "Federated Learning With Differential Privacy: Algorithms and
Performance Analysis", IEEE TIFS 2020; paper 003, catalog ``formulas/003_nbafl.toml``).

* :mod:`dpcalc.nbafl.noise` — c(δ), sensitivities, σ_U, σ_A, σ_D (eqs. 3–5, 7), b, γ.
* :mod:`dpcalc.nbafl.bound` — Theorems 2 and 3 (eqs. 6, 8), P, Q, κ1, κ0 (status: disputed).
* :mod:`dpcalc.nbafl.optimal` — T* and K* by integer scan (+ Lambert-W T* when κ0 = 0).
* :mod:`dpcalc.nbafl.accounting` — the paper's linear composition vs RDP, analytic Gaussian, GDP (, PLD).
* :mod:`dpcalc.nbafl.simulate` — a NumPy simulation of NbAFL on synthetic logistic regression.

How each form was verified, the disputes and the reference values are recorded in the catalog and in docs/nbafl.md.
"""

from dpcalc.nbafl.accounting import AccountantRow, AccountingComparison, compare_accountants
from dpcalc.nbafl.bound import (
    STATUS_NOTE,
    contraction_p,
    contraction_q,
    convergence_bound,
    convergence_bound_sampled,
    kappas,
    lambda1,
)
from dpcalc.nbafl.noise import (
    aggregate_noise_std,
    c_constant,
    client_sensitivity,
    client_sigma,
    sampling_b,
    sampling_gamma,
    server_required_sigma,
    server_sensitivity,
    server_sigma,
)
from dpcalc.nbafl.optimal import OptimalK, OptimalT, k_domain_min, optimal_k, optimal_t, t_star_lambert

__all__ = [
    "STATUS_NOTE",
    "AccountantRow",
    "AccountingComparison",
    "OptimalK",
    "OptimalT",
    "aggregate_noise_std",
    "c_constant",
    "client_sensitivity",
    "client_sigma",
    "compare_accountants",
    "contraction_p",
    "contraction_q",
    "convergence_bound",
    "convergence_bound_sampled",
    "k_domain_min",
    "kappas",
    "lambda1",
    "optimal_k",
    "optimal_t",
    "sampling_b",
    "sampling_gamma",
    "server_required_sigma",
    "server_sensitivity",
    "server_sigma",
    "t_star_lambert",
]
