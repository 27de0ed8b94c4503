"""Torch-free NumPy simulation core: seeded, chunked (memory-bounded), optionally multi-process.

Modules (import what you need; nothing here imports SciPy or SymPy):

* `dpcalc.sim.parallel` — ``run_moments(fn, n, seed, workers=...)``: per-chunk child seeds
  (``SeedSequence.spawn``), identical results for any worker count; ``default_workers()``.
* `dpcalc.sim.executor` — where tasks run: this process, a local pool (``LocalExecutor``) or a Dask cluster
  (`dpcalc.sim.cluster`, extra ``dask``); results always come back in task order (``open_executor``, ``use``).
* `dpcalc.sim.sweep` — product grids too large for memory, evaluated in blocks and written to CSV as they
  complete (``write_csv``).
* `dpcalc.sim.stats` — ``Estimate`` (value, se, ci_low, ci_high, n), ``normal_quantile``, ``z_for(level)``.
* `dpcalc.sim.estimators` — ``mean_estimate``, ``gaussian_channel_mi``, ``gaussian_vector_mi``,
  ``aggregation_cmi``, ``aggregation_distortion``, ``hockey_stick_delta`` (importance sampling),
  ``renyi_divergence``, mechanism pairs ``GaussianPair``/``SubsampledGaussianPair``/``MechanismPair``.
* `dpcalc.sim.scenarios` — ``gaussian_params``, ``gaussian_clients``, ``clip``, ``clipped_clients``,
  ``add_noise`` (client/server placement), ``poisson_subsample``.

Writing a recipe: build a term function ``fn(rng, size) -> terms`` (module level or ``functools.partial``) and call
``mean_estimate(fn, ctx.samples, ctx.seed_sequence(), level=ctx.level, workers=ctx.workers)``.
"""

from dpcalc.sim.estimators import (
    GaussianPair,
    MechanismPair,
    SubsampledGaussianPair,
    aggregation_cmi,
    aggregation_distortion,
    exact_gaussian_delta,
    gaussian_channel_mi,
    gaussian_vector_mi,
    hockey_stick_delta,
    mean_estimate,
    renyi_divergence,
)
from dpcalc.sim.parallel import Moments, default_workers, run_moments
from dpcalc.sim.stats import Estimate, normal_cdf, normal_quantile, z_for

__all__ = ["Estimate", "GaussianPair", "MechanismPair", "Moments", "SubsampledGaussianPair", "aggregation_cmi",
           "aggregation_distortion", "default_workers", "exact_gaussian_delta", "gaussian_channel_mi",
           "gaussian_vector_mi", "hockey_stick_delta", "mean_estimate", "normal_cdf", "normal_quantile",
           "renyi_divergence", "run_moments", "z_for"]
