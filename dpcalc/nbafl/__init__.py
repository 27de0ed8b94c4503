"""NbAFL — noising before aggregation FL (Wei et al., "Federated Learning With Differential Privacy: Algorithms and
Performance Analysis", IEEE TIFS 2020; paper 003, catalog ``formulas/003_nbafl.toml``).

* `dpcalc.nbafl.noise` — c(δ), sensitivities, σ_U, σ_A, σ_D (eqs. 3–5, 7), b, γ.
* `dpcalc.nbafl.bound` — Theorems 2 and 3 (eqs. 6, 8), P, Q, κ1, κ0 (status: disputed).
* `dpcalc.nbafl.optimal` — T* and K* by integer scan (+ Lambert-W T* when κ0 = 0).
* `dpcalc.nbafl.accounting` — the paper's linear composition vs RDP, analytic Gaussian, GDP (, PLD).
* `dpcalc.nbafl.simulate` — a NumPy simulation of NbAFL on synthetic logistic regression.

Defaults (library, catalog and CLI alike): the paper's Table 1 setting δ = 0.01, C = 20, m = 100, N = 50, T = 25,
c_scale = 1.25, L = 1; the constants of Theorems 2–3, which the paper does not give, default to the assumed
l = 0.1, β = 1, ρ = 0.2, B = 1, μ = 1, Θ = 2.3. The simulation keeps its own synthetic setting (``SimulationConfig``).

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
