"""Chernoff bounds of the discrete PLDs: the orders θ, log-MGF upper bounds of each step and of the composition, and
the Chernoff-optimal order (saddle point) that sets the tilt and the first lattice."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import numpy as np

from dpcalc.accounting.pld.common import Direction, FloatArray
from dpcalc.accounting.pld.mechanism import Mechanism, log_fp, tail_z
from dpcalc.accounting.pld.pmf import LatticePmf
from dpcalc.accounting.pld.schedule import Step, loss_variance

__all__ = ["saddle", "theta_grid", "theta_top", "total_mgf"]

_THETAS = np.concatenate([-np.geomspace(1e-2, 16.0, 4)[::-1], [0.0], np.geomspace(1e-2, 512.0, 16)])


@cache
def theta_grid(top: float) -> FloatArray:
    """The orders θ of the Chernoff bounds and of the tilt: `_THETAS`, continued geometrically (≈3.4 per
    decade, as below 512) up to ``top`` for schedules whose privacy loss is tiny (large σ): there the tilt that
    resolves δ = 1e-30 is ≈ ln(1/δ)/ε ~ 1e4–1e6 (σ = 899, q = 0.1, T = 10: ε ≈ 0.003), and with orders capped at
    512 the FFT round-off floor kept ε_upper at 0.067 however fine the lattice.

    Parameters
    ----------
    top : float

    Returns
    -------
    FloatArray
    """
    if top <= 512.0:
        return _THETAS
    n = math.ceil(3.4 * math.log10(top / 512.0)) + 1
    return np.concatenate([_THETAS, np.geomspace(512.0, top, n)[1:]])



def theta_top(steps: Sequence[Step], direction: Direction) -> float:
    """Largest order needed: ≈ 100/std of the composed loss (std² ≈ Σ count·q²·(e^{1/σ²} − 1)), at least 512,
    rounded up to a power of 2 (few distinct grids, cached). Remove direction only: the add direction's loss is
    bounded above by −log(1 − q), its Chernoff bound improves with θ without end, and a huge tilt there left the
    window too narrow (an infinite ε_upper at σ = 1.03, q = 1.4e-3, T = 1).

    Parameters
    ----------
    steps : Sequence[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction

    Returns
    -------
    float
    """
    var = loss_variance(steps)
    if not var > 0.0:
        return 512.0
    top = min(1e9, max(512.0, 100.0 / math.sqrt(var)))
    return float(2.0 ** math.ceil(math.log2(top)))


def _log_mgf(d: LatticePmf, h: float, thetas: FloatArray) -> FloatArray:
    """Upper bound on log E[e^{θL}] (finite atoms) for each θ (see `_exp_rel`)."""
    nz = np.flatnonzero(d.p > 0)
    z = np.log(d.p[nz])[None, :] + thetas[:, None] * ((d.k0 + nz) * h + d.c)[None, :]
    mx = z.max(axis=1)
    return np.log(_exp_rel(z, mx[:, None]).sum(axis=1)) + mx


def _exp_rel(z: FloatArray, top: FloatArray) -> FloatArray:
    """e^{z − top} in place of z, each term raised to at least e^{−700}: an upper bound of the sum off by < n·1e-304
    relative, without the slow subnormal range of exp (−745 < z − top < −708 cost 2× on the log-MGFs)."""
    z -= top
    np.maximum(z, -700.0, out=z)
    return np.exp(z, out=z)


def total_mgf(parts: list[tuple[LatticePmf, int]], h: float, thetas: FloatArray) -> FloatArray:
    """log-MGF bound of the composition: Σ count·K_i(θ) (each K_i as in `_log_mgf`). The atoms of all steps
    are concatenated (chunks of about 2^16 atoms) and the per-step log-sum-exps are segment reductions.

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]
    h : float
    thetas : FloatArray

    Returns
    -------
    FloatArray
    """
    out = np.zeros(thetas.size)
    chunk: list[tuple[np.ndarray, np.ndarray, int]] = []
    size = 0

    def flush() -> None:
        nonlocal size
        if not chunk:
            return
        lm = np.concatenate([c[0] for c in chunk])
        g = np.concatenate([c[1] for c in chunk])
        sizes = np.array([c[0].size for c in chunk])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        z = lm[None, :] + thetas[:, None] * g[None, :]
        mx = np.maximum.reduceat(z, starts, axis=1)
        sm = np.add.reduceat(_exp_rel(z, np.repeat(mx, sizes, axis=1)), starts, axis=1)
        out[:] += (np.log(sm) + mx) @ np.array([float(c[2]) for c in chunk])
        chunk.clear()
        size = 0

    for d, c in parts:
        nz = np.flatnonzero(d.p > 0)
        if nz.size >= 1 << 13:  # a big step alone: no concatenation
            out += c * _log_mgf(d, h, thetas)
            continue
        chunk.append((np.log(d.p[nz]), (d.k0 + nz) * h + d.c, c))
        size += nz.size
        if size >= 1 << 16:
            flush()
    flush()
    return out



@cache
def _approx_log_mgf(sigma: float, q: float, direction: Direction, tail: float, top: float = 512.0) -> FloatArray:
    """Approximate log E_P[e^{θL}] of one step on ``theta_grid(top)`` (trapezoid rule on 513 points in x, used only to
    choose where atoms may be sparse, never in a bound)."""
    m = Mechanism(sigma, q, direction)
    zt = tail_z(max(tail, 1e-300))
    xs = np.linspace(-zt * sigma, 1.0 + zt * sigma, 513)
    lx = np.asarray(m.loss(xs), dtype=np.float64)
    lfp = log_fp(xs, lx, np.float64(sigma), direction)
    z = lfp[None, :] + theta_grid(top)[:, None] * lx[None, :] + math.log(xs[1] - xs[0])
    mx = z.max(axis=1)
    return np.asarray(np.log(np.exp(z - mx[:, None]).sum(axis=1)) + mx)


def saddle(steps: list[Step], direction: Direction, delta: float, tail: float,
           eps: float | None = None) -> tuple[float, float]:
    """(θ*, ε*): the Chernoff-optimal order of the composition at δ and its Chernoff ε (both approximate; θ* weights
    the tails in `discretise_many`, ε* sizes the first lattice).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    tail : float
    eps : float | None
        Privacy level ε.

    Returns
    -------
    tuple[float, float]
    """
    top = theta_top(steps, direction)
    thetas = theta_grid(top)
    k = np.zeros(thetas.size)
    for st in steps:
        k += st.count * _approx_log_mgf(st.sigma, st.q, direction, tail, top)
    if eps is not None:  # the saddle point at a given ε
        nn = thetas >= 0
        return float(thetas[nn][int(np.nanargmin(k[nn] - thetas[nn] * eps))]), eps
    pos = thetas > 0
    with np.errstate(invalid="ignore"):
        cher = (k[pos] - math.log(delta)) / thetas[pos]
    if not np.isfinite(cher).any():
        return 0.0, math.inf
    i = int(np.nanargmin(cher))
    return float(thetas[pos][i]), float(cher[i])
