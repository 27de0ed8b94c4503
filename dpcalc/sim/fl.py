"""Reusable federated-learning pieces for simulations (NumPy only; randomness from the caller's Generator).

Shapes: a batch of R independent runs is simulated at once; clients' data ``X`` (N, m, d), labels ``y`` (N, m) in
{0, 1}; per-run client models ``W`` (R, K, d); global models ``w`` (R, d).

* `logistic_data` — synthetic logistic-regression clients, optionally non-IID (client-specific feature means
  and true weights).
* `logistic_loss` — mean over clients of the mean local logistic loss (the metric of Wei et al. 2020, §5.1).
* `fedprox_local` — local gradient steps on F_i(w) + μ/2‖w − w_global‖² (FedProx, Algorithm 1 line 5).
* `clip_models` — clip each model to ‖w‖ <= C (Algorithm 1 line 6); `sample_clients` — K of N without
  replacement; `aggregate` — equal-weight mean; `gaussian_noise` — N(0, σ²) of a shape.

Every operation acts on each run independently (no reduction across runs), so a run's numbers do not depend on
which other runs share its batch as long as the batch is the same; callers that parallelise must keep batches fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcalc.sim.scenarios import clip

__all__ = ["FederatedData", "aggregate", "clip_models", "fedprox_local", "gaussian_noise", "logistic_data",
           "logistic_loss", "sample_clients"]


@dataclass(frozen=True)
class FederatedData:
    """N clients' logistic-regression data: ``X`` (N, m, d), ``y`` (N, m) in {0, 1}, generating weights."""

    X: np.ndarray
    y: np.ndarray
    w_true: np.ndarray

    @property
    def n_clients(self) -> int:
        return int(self.X.shape[0])

    @property
    def dim(self) -> int:
        return int(self.X.shape[2])


def logistic_data(rng: np.random.Generator, n_clients: int, m: int, d: int, *, non_iid: float = 0.0,
                  w_norm: float = 2.0) -> FederatedData:
    """Synthetic clients: x ~ N(ν_i, I_d/d·4), y ~ Bernoulli(sigmoid(x·w_i)) with ‖w_true‖ = ``w_norm``.

    ``non_iid`` >= 0 sets the heterogeneity: client means ν_i ~ non_iid·N(0, I/d) and client weights
    w_i = w_true + non_iid·N(0, I/d)·w_norm (0 = IID).
    """
    w_true = rng.standard_normal(d)
    w_true *= w_norm / np.linalg.norm(w_true)
    shift = non_iid * rng.standard_normal((n_clients, 1, d)) / np.sqrt(d)
    w_client = w_true + non_iid * w_norm * rng.standard_normal((n_clients, d)) / np.sqrt(d)
    X = shift + 2.0 * rng.standard_normal((n_clients, m, d)) / np.sqrt(d)
    logits = np.einsum("imd,id->im", X, w_client)
    y = (rng.random((n_clients, m)) < 1.0 / (1.0 + np.exp(-logits))).astype(np.float64)
    return FederatedData(X, y, w_true)


def _logistic_terms(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.asarray(np.logaddexp(0.0, z) - y * z)


def logistic_loss(w: np.ndarray, data: FederatedData) -> np.ndarray:
    """Mean over clients of the mean local logistic loss at global model(s) ``w`` (d,) or (R, d) → () or (R,)."""
    z = np.einsum("imd,...d->...im", data.X, w)
    return np.asarray(_logistic_terms(z, data.y).mean(axis=(-2, -1)))


def fedprox_local(w_global: np.ndarray, X: np.ndarray, y: np.ndarray, *, prox_mu: float, lr: float,
                  steps: int) -> np.ndarray:
    """``steps`` full-batch gradient steps on F_i(w) + μ/2‖w − w_global‖² from w_global.

    ``w_global`` (R, d); ``X`` (K, m, d) shared by all runs or (R, K, m, d) per run; ``y`` likewise. Returns (R, K, d).
    """
    m = X.shape[-2]
    if X.ndim == 3:  # shared data: client-major layout, one batched GEMM per client over all runs
        wg = w_global[None, :, :]  # (1, R, d)
        w = np.repeat(wg, X.shape[0], axis=0)  # (K, R, d)
        xt = np.swapaxes(X, -1, -2)  # (K, d, m)
        yk = y[:, None, :]  # (K, 1, m)
        for _ in range(steps):
            resid = 1.0 / (1.0 + np.exp(-(w @ xt))) - yk  # (K, R, m)
            w = w - lr * ((resid @ X) / m + prox_mu * (w - wg))
        return np.ascontiguousarray(np.swapaxes(w, 0, 1))
    wg = w_global[:, None, :]  # per-run data (R, K, m, d): one matrix-vector product per (run, client)
    w = np.repeat(wg, X.shape[-3], axis=1)
    xt = np.swapaxes(X, -1, -2)
    for _ in range(steps):
        resid = 1.0 / (1.0 + np.exp(-(X @ w[..., None])[..., 0])) - y
        w = w - lr * ((xt @ resid[..., None])[..., 0] / m + prox_mu * (w - wg))
    return w


def clip_models(w: np.ndarray, C: float) -> np.ndarray:
    """w / max(1, ‖w‖/C) along the last axis (Algorithm 1 line 6)."""
    return clip(w, C)


def sample_clients(rng: np.random.Generator, n_clients: int, k: int) -> np.ndarray:
    """K distinct client indices out of N, uniformly (sorted)."""
    if not 1 <= k <= n_clients:
        raise ValueError(f"K must be in [1, N = {n_clients}] (got {k})")
    return np.sort(rng.choice(n_clients, size=k, replace=False))


def aggregate(w: np.ndarray) -> np.ndarray:
    """Equal-weight aggregate over the client axis (−2): (R, K, d) → (R, d)."""
    return np.asarray(w.mean(axis=-2))


def gaussian_noise(rng: np.random.Generator, shape: tuple[int, ...], sigma: float) -> np.ndarray:
    """N(0, σ²) noise of the given shape (zeros without a draw when σ = 0)."""
    if sigma == 0.0:
        return np.zeros(shape)
    return sigma * rng.standard_normal(shape)
