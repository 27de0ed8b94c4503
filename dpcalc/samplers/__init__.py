"""Samplers of DP-SGD beyond Poisson: random allocation (each record in exactly k of t steps; Feldman & Shenfeld
2025, Chua et al. 2025) with certified upper bounds, and shuffled fixed-size batches with a certified lower bound
(Chua et al. 2024). Modules: `params` (validation), `allocation_rdp` (RDP curves), `allocation_law` and
`allocation_pld` (the PLD upper bound), `allocation` (ε, δ), `shuffle` (the lower bound), `compare` (the three side
by side). See docs/samplers.md."""

from __future__ import annotations

from dpcalc.samplers.allocation import AllocationBound, delta, epsilon
from dpcalc.samplers.allocation_pld import privacy_loss, privacy_loss_components
from dpcalc.samplers.allocation_rdp import rdp_add_bound, rdp_allocation, rdp_remove
from dpcalc.samplers.compare import SamplerRow, compare
from dpcalc.samplers.shuffle import ShuffleLower, epsilon_lower, max_statistic_loss

__all__ = ["AllocationBound", "SamplerRow", "ShuffleLower", "compare", "delta", "epsilon", "epsilon_lower",
           "max_statistic_loss", "privacy_loss", "privacy_loss_components", "rdp_add_bound", "rdp_allocation",
           "rdp_remove"]
