"""The mathematics of distributed noise under secure aggregation that the `DistributedNoise` event uses: the
distributed discrete Gaussian (Kairouz, Liu & Steinke 2021) and the distributed Skellam mechanism (Agarwal, Kairouz
& Liu 2021). Modules: `rounding` (conditional randomized rounding: Δ₂, Δ₁, failure and bias terms), `noise` (the
RDP bounds of the clients' summed noise), `pipeline` (one round of the pipeline and its RDP).

Users import them from `dpcalc.distributed`, which adds ε over rounds, calibration, bit widths and the exact
divergences.
"""

#: no public names of its own: its functions are public as `dpcalc.distributed`'s (which re-exports them)
__all__: list[str] = []
