"""The noise a secure sum already carries (Zhang et al. 2024) together with the noise the clients add.

Zhang et al. 2024 (Theorem 2) bound the RDP of the aggregate of N users' Gaussian-sampling updates (record-level,
replace-one neighbours inside user i; `dpcalc.secagg.theorem2_rdp`) by the floor S = Σᵢ λ_{i,min} of the users'
covariance eigenvalues. What stays proven when noise is added:

1. **Continuous isotropic Gaussian noise, no rounding** (`continuous_added_noise_rdp`): each user adds N(0, σ²I),
   independent of the data, so the aggregate covariance is Σⱼ Σⱼ/B + Nσ²I and every step of the proof of
   Theorem 2 (eqs. 20–30) holds with the eigenvalue floor S/B + Nσ²: Theorem 2 at S' = S + B·N·σ² (Sec.-4
   normalisation). With S = 0 this is Table 1's "GSGD + isotropic Gaussian" row.
2. **The discrete pipeline** (`discrete_pipeline_rdp`: clipping, rounding, discrete noise, modular sum): the
   rounding acts on each client's update, not on the sum, so the other users' sampling noise cannot be counted.
   The output is a (randomised) function of the vector of updates (x₁, …, x_N), whose only change is user i's
   update, so by data processing RDP <= D_α(xᵢ ‖ xᵢ') <= Theorem 2 at S = λ_{i,min} (user i's own floor).
   The distributed bound holds too (the client's clipped, rounded update moves within a ball: replace-one, shift
   <= 2Δ₂; the others' randomness is coupled and Rényi divergence is jointly quasi-convex), so the minimum of the two
   is an RDP bound. Nothing larger (e.g. adding the two noises' variances) is proven here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.distributed.pipeline import Pipeline
from dpcalc.secagg import theorem2_rdp, to_sec4
from dpcalc.secagg.bounds import Form

__all__ = ["continuous_added_noise_rdp", "discrete_pipeline_rdp"]


@v.named_shapes
@v.documented_inf
def continuous_added_noise_rdp(alpha: ArrayLike, eig_min_sum: ArrayLike, B: ArrayLike, C: ArrayLike, D: ArrayLike,
                               sigma2: ArrayLike, N: ArrayLike, *, normalization: str,
                               form: Form = "simplified") -> float | v.FloatArray:
    """Theorem 2 (Zhang et al. 2024, eq. 19 or 30) with the aggregate's eigenvalue floor raised by the users' added
    isotropic Gaussian noise: S' = S + B·N·σ² (Sec.-4 normalisation; ``normalization`` says which S is given).
    +inf (no guarantee) for orders outside Theorem 2's range at S'.

    Examples:
        >>> from dpcalc.distributed.secagg_link import continuous_added_noise_rdp
        >>> round(continuous_added_noise_rdp(2.0, 5.0, 32, 1.0, 1000, 0.0, 10, normalization="sec4"), 12)
        0.000425770308
    """
    s4 = to_sec4(v.nonnegative("eig_min_sum", eig_min_sum), normalization=normalization, B=B, name="eig_min_sum")
    added = np.asarray(B, dtype=np.float64) * v.integer_at_least("N", N, 1) * v.nonnegative("sigma2", sigma2)
    return theorem2_rdp(alpha, s4 + added, B, C, D, normalization="sec4", form=form)


@v.documented_inf
def discrete_pipeline_rdp(alpha: ArrayLike, pipeline: Pipeline, own_eig_min: float, B: float, C: float, D: int, *,
                          normalization: str, form: Form = "simplified") -> float | v.FloatArray:
    """One round of the discrete pipeline, record-level replace-one inside one client whose update also carries its
    own Gaussian sampling noise: min(the pipeline's bound at replace-one, Theorem 2 at S = λ_{i,min}) (module
    docstring, item 2). ``pipeline.q`` and ``pipeline.rounds`` are ignored (one round, no sampling).

    Examples:
        >>> from dpcalc.distributed import Pipeline
        >>> from dpcalc.distributed.secagg_link import discrete_pipeline_rdp
        >>> p = Pipeline("ddg", c=1.0, sigma=0.1, gamma=1e-3, n=100, d=1000)
        >>> round(float(discrete_pipeline_rdp(2.0, p, 5.0, 32, 1.0, 1000, normalization="sec4")), 9)
        0.00042577
    """
    a = v.check_range("alpha", alpha, 1.0, lo_open=True)
    one_round = replace(pipeline, relation="replace_one", q=1.0, rounds=1)
    added = one_round.round_rdp(np.atleast_1d(a))
    own = np.atleast_1d(theorem2_rdp(a, own_eig_min, B, C, D, normalization=normalization, form=form))
    return v.scalar_or_array(np.minimum(added, own).reshape(np.shape(a)))
