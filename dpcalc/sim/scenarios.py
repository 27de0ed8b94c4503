"""Small reusable scenario builders for FL simulations (NumPy, seeded through the caller's Generator).

* `gaussian_params` — local parameters w ~ N(0, Σ) with a given covariance (or per-coordinate variance).
* `gaussian_clients` — one coordinate of N clients, w_j ~ N(0, s_j²), shape (N, size).
* `clip` — clip rows to ‖w‖ <= C (the clipping step (5.19) of He & He 2023, DP-SGD's per-example clipping).
* `clipped_clients` — N clipped client vectors in R^d.
* `add_noise` — server- and/or client-side Gaussian noise placement on a weighted aggregate.
* `poisson_subsample` — Bernoulli(q) inclusion mask (Poisson subsampling).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["add_noise", "clip", "clipped_clients", "gaussian_clients", "gaussian_params", "poisson_subsample",
           "weighted_sum", "weights_with_max", "weights_with_sum_sq"]


def gaussian_params(rng: np.random.Generator, size: int, cov: ArrayLike, d: int | None = None) -> np.ndarray:
    """``size`` draws of w ~ N(0, Σ), shape (size, d). ``cov`` is a (d, d) matrix, a length-d variance vector,
    or a scalar variance (then ``d`` is required): ``gaussian_params(rng, n, C**2/d, d)`` gives E‖w‖² = C²."""
    c = np.asarray(cov, dtype=np.float64)
    if c.ndim == 0:
        if d is None:
            raise ValueError("d is required with a scalar variance")
        return np.sqrt(c) * rng.standard_normal((size, d))
    if c.ndim == 1:
        return np.sqrt(c) * rng.standard_normal((size, c.size))
    chol = np.linalg.cholesky(c)
    return rng.standard_normal((size, c.shape[0])) @ chol.T


def gaussian_clients(rng: np.random.Generator, size: int, signal_std: np.ndarray) -> np.ndarray:
    """One coordinate of ``size`` rounds for N clients: w_j ~ N(0, s_j²), shape (N, size)."""
    s = np.asarray(signal_std, dtype=np.float64)
    if not np.any(s):  # degenerate clients (e.g. when only the noise matters): no draws
        return np.zeros((s.size, size))
    return s[:, None] * rng.standard_normal((s.size, size))


def clip(w: ArrayLike, C: float | ArrayLike) -> np.ndarray:
    """Scale each row of ``w`` to norm at most ``C``: ``w · min(1, C/‖w‖)``."""
    a = np.asarray(w, dtype=np.float64)
    norms = np.linalg.norm(a, axis=-1, keepdims=True)
    c = np.asarray(C, dtype=np.float64)
    c = c[..., None] if c.ndim else c
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(norms > c, c / np.where(norms > 0, norms, 1.0), 1.0)
    return np.asarray(a * factor)


def clipped_clients(rng: np.random.Generator, n_clients: int, d: int, C: float, scale: float = 1.0) -> np.ndarray:
    """``n_clients`` vectors in R^d, N(0, scale²·I) then clipped to ‖w‖ <= C, shape (n_clients, d)."""
    return clip(scale * rng.standard_normal((n_clients, d)), C)


def add_noise(rng: np.random.Generator, w: np.ndarray, weights: np.ndarray, w_bar: np.ndarray | None = None, *,
              server_sigma: float = 0.0, client_sigmas: ArrayLike = 0.0) -> np.ndarray:
    """The noisy aggregate w̄_dp for client rows ``w`` (axis 0 = clients) and weights p.

    Client-side: every client j sends w_j + σ_j z_j (σ_j from ``client_sigmas``); server-side: the server adds σ_s z_0
    to Σ p_j(·). Both may be given. Noise is drawn only for the placements that are non-zero.
    """
    p = np.asarray(weights, dtype=np.float64)
    cs = np.broadcast_to(np.asarray(client_sigmas, dtype=np.float64), p.shape)
    shape = w.shape[1:]
    if np.any(cs > 0):
        sent = w + cs.reshape((-1,) + (1,) * len(shape)) * rng.standard_normal(w.shape)
        out = weighted_sum(p, sent)
    else:
        out = weighted_sum(p, w) if w_bar is None else np.array(w_bar, dtype=np.float64)
    if server_sigma > 0:
        out = out + server_sigma * rng.standard_normal(shape)
    return np.asarray(out)


def weighted_sum(weights: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_j p_j w_j over axis 0 (einsum loops, not a threaded BLAS call: cheaper for a few clients)."""
    return np.asarray(np.einsum("i,i...->...", np.asarray(weights, dtype=np.float64), w))


def poisson_subsample(rng: np.random.Generator, size: int | tuple[int, ...], q: float) -> np.ndarray:
    """Boolean inclusion mask, each entry independently True with probability q (Poisson subsampling)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1] (got {q})")
    return rng.random(size) < q


def weights_with_max(p_max: float) -> np.ndarray:
    """Aggregation weights whose largest entry is ``p_max`` (in (0, 1]): ⌊1/p_max⌋ entries equal to p_max plus
    one remainder entry if needed (so Σp = 1)."""
    if not 0.0 < p_max <= 1.0:
        raise ValueError(f"p_max must be in (0, 1] (got {p_max})")
    k = math.floor(1.0 / p_max * (1 + 1e-12))
    rest = 1.0 - k * p_max
    w = [p_max] * k + ([rest] if rest > 1e-12 else [])
    out = np.asarray(w, dtype=np.float64)
    return out / out.sum()


def weights_with_sum_sq(sum_p2: float) -> np.ndarray:
    """Aggregation weights with Σp² = ``sum_p2`` (in (0, 1]): N = ⌈1/sum_p2⌉ clients, one weight x and N−1 equal
    weights (1−x)/(N−1), x = (1 + sqrt(1 − N + sum_p2·N(N−1)))/N."""
    if not 0.0 < sum_p2 <= 1.0:
        raise ValueError(f"sum_p2 must be in (0, 1] (got {sum_p2})")
    n = math.ceil(1.0 / sum_p2 * (1 - 1e-12))
    if n == 1:
        return np.ones(1)
    x = (1.0 + math.sqrt(max(1.0 - n + sum_p2 * n * (n - 1), 0.0))) / n
    return np.asarray([x] + [(1.0 - x) / (n - 1)] * (n - 1), dtype=np.float64)
