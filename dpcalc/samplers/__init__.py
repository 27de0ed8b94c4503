"""Samplers of DP-SGD beyond Poisson: random allocation (each record in exactly k of t steps; Feldman & Shenfeld
2025, Chua et al. 2025) with certified upper bounds, and shuffled fixed-size batches with a certified lower bound
(Chua et al. 2024). The bounds are `dpcalc.accounting.samplers`' (the accounting's events use them): `params`
(validation), `allocation_rdp` (RDP curves), `allocation_law` and `allocation_pld` (the PLD upper bound), `shuffle`
(the lower bound), reachable here under the same names. This package adds `allocation` (ε, δ) and `compare` (the
three side by side). See docs/samplers.md."""

from __future__ import annotations

import sys as _sys

# the bounds' modules, under their names here (``dpcalc.samplers.shuffle`` and the like)
from dpcalc.accounting.samplers import (
    allocation_law,
    allocation_pld,
    allocation_rdp,
    params,
    shuffle,
)
from dpcalc.accounting.samplers.allocation_pld import privacy_loss, privacy_loss_components
from dpcalc.accounting.samplers.allocation_rdp import rdp_add_bound, rdp_allocation, rdp_remove
from dpcalc.accounting.samplers.shuffle import ShuffleLower, epsilon_lower, max_statistic_loss
from dpcalc.samplers.allocation import AllocationBound, delta, epsilon
from dpcalc.samplers.compare import SamplerRow, compare

# the former module paths keep working (``from dpcalc.samplers.shuffle import epsilon_lower``): the same module objects
for _m in (allocation_law, allocation_pld, allocation_rdp, params, shuffle):
    _sys.modules.setdefault(f"{__name__}.{_m.__name__.rsplit('.', 1)[1]}", _m)
del _sys, _m

__all__ = ["AllocationBound", "SamplerRow", "ShuffleLower", "compare", "delta", "epsilon", "epsilon_lower",
           "max_statistic_loss", "privacy_loss", "privacy_loss_components", "rdp_add_bound", "rdp_allocation",
           "rdp_remove"]
