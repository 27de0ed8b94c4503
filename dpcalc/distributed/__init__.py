"""Distributed DP under secure aggregation: the distributed discrete Gaussian (Kairouz, Liu & Steinke 2021) and
the distributed Skellam mechanism (Agarwal, Kairouz & Liu 2021).

Modules, one concept each. In `dpcalc.accounting.distributed` (the accounting's `DistributedNoise` event uses
them), reachable here under the same names: `rounding` (conditional randomized rounding: Δ₂, Δ₁, failure and bias
terms), `noise` (the RDP bounds of the clients' summed noise), and one round of the pipeline (`Pipeline`). Here:
`exact` (the numerically exact divergences they bound), `modular` (bit width, scale and the modular wrap-around
bound), `accounting` (ε over rounds with Poisson sampling of clients, calibration of σ and of γ for a bit width),
`secagg_link` (combined with the noise the secure sum already carries, Zhang et al. 2024). Guide:
``docs/distributed.md``; catalog ``formulas/kairouz2021_distributed.toml`` and ``formulas/agarwal2021_skellam.toml``.
"""

import sys as _sys

# the bounds' modules, under their names here (``dpcalc.distributed.noise`` and the like)
from dpcalc.accounting.distributed import (
    noise,
    rounding,
)
from dpcalc.accounting.distributed.noise import ddg_rdp, ddg_tau, ddg_zcdp_rho, skellam_rdp
from dpcalc.accounting.distributed.pipeline import Pipeline
from dpcalc.accounting.distributed.rounding import (
    DEFAULT_BETA,
    expected_rounding_attempts,
    rounded_l1_bound,
    rounded_l2_bound,
    rounding_bias_bound,
)
from dpcalc.distributed.accounting import (
    Calibration,
    DistributedEpsilon,
    calibrate_for_bits,
    calibrate_sigma,
    epsilon,
    epsilon_for_bits,
    rdp_curve,
    training_terms,
)
from dpcalc.distributed.modular import aggregate_std, min_bits, modular_failure_bound, scale_for_bits

# the former module paths keep working (``from dpcalc.distributed.noise import ddg_rdp``): the same module objects
for _m in (noise, rounding):
    _sys.modules.setdefault(f"{__name__}.{_m.__name__.rsplit('.', 1)[1]}", _m)
del _sys, _m

__all__ = ["DEFAULT_BETA", "Calibration", "DistributedEpsilon", "Pipeline", "aggregate_std", "calibrate_for_bits",
           "calibrate_sigma", "ddg_rdp", "ddg_tau", "ddg_zcdp_rho", "epsilon", "epsilon_for_bits",
           "expected_rounding_attempts", "min_bits", "modular_failure_bound", "rdp_curve", "rounded_l1_bound",
           "rounded_l2_bound", "rounding_bias_bound", "scale_for_bits", "skellam_rdp", "training_terms"]
