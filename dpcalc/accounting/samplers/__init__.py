"""The mathematics of DP-SGD's samplers beyond Poisson that the events and accountants use: random allocation's
certified upper bounds (Feldman & Shenfeld 2025; Chua et al. 2025) and shuffled batches' certified lower bound (Chua
et al. 2024). Modules: `params` (validation), `allocation_rdp` (RDP curves), `allocation_law` and `allocation_pld`
(the PLD upper bound), `shuffle` (the lower bound).

Users import them from `dpcalc.samplers`, which adds (ε, δ) of random allocation and the three samplers side by
side; here they serve `dpcalc.accounting.events.sampling.random_allocation` and the ``shuffle-lower`` accountant.
"""

#: no public names of its own: its functions are public as `dpcalc.samplers`'s (which re-exports them)
__all__: list[str] = []
