"""Chernoff bounds of the discrete PLDs: the orders θ, log-MGF upper bounds of each step and of the composition, and
the Chernoff-optimal order (saddle point) that sets the tilt and the first lattice."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import numpy as np

from dpcalc.accounting.pld.common import MARGIN, Direction, FloatArray
from dpcalc.accounting.pld.mechanism import Mechanism, log_fp, tail_z
from dpcalc.accounting.pld.pmf import LatticePmf
from dpcalc.accounting.pld.schedule import Step, loss_variance

__all__ = ["hockey_stick_eps", "hockey_stick_orders", "log_mgfs", "saddle", "swapped_hockey_stick_eps", "theta_grid",
           "theta_top", "total_mgf", "total_mgfs"]

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


_BLOCK = 64  # lattice points per block of the blocked log-MGF (fewer where |θ|·h is large, see `log_mgfs`)
_BLOCK_SPAN = 200.0  # the largest |θ|·h·(block − 1): e^{±200} stays far inside the double range
#: at most this many terms (atoms × orders): every term evaluated (`_log_mgfs_dense`), else blocked (the two cost
#: the same near 3,000 terms: 120 µs; at 16,800 the dense path took 830 µs, the blocked 130 µs)
_DENSE_TERMS = 1 << 12
_GEMM_TERMS = 1 << 18  # multiply-adds per matrix product of the blocked log-MGF (OpenBLAS threads from ~2^19 on)
_TINY = 2.3e-308  # above the smallest normal double: what a product flushed to zero can have lost


def log_mgfs(parts: list[LatticePmf], h: float, thetas: FloatArray) -> FloatArray:
    """Upper bounds on log E[e^{θL}] of each lattice PLD (finite atoms; one row per part, one column per θ).

    Blocked: on a lattice g_j = (k0 + j)·h + c the atoms of a block of B consecutive points b = 0..B−1 starting at
    g₀ have Σ_b p_b e^{θ(g₀ + bh)} = e^{θg₀}·Σ_b p_b (e^{θh})^b, so one matrix product of the blocks' masses
    (each scaled by its largest) with the B×Θ table e^{θhb} gives every block's sum, and only the blocks' and the
    table's exponentials are evaluated (N/B·Θ + B·Θ instead of N·Θ). Bounds, not estimates: the products are
    rounded up (relative 1e-13, far above the matrix product's B·u, plus what a flushed product can have lost), and
    the log-sum-exp over the blocks is rounded up by 1e-12·(1 + |K|)."""
    th = np.asarray(thetas, dtype=np.float64)
    if sum(d.p.size for d in parts) * th.size <= _DENSE_TERMS:
        return _log_mgfs_dense(parts, h, th)
    reach = float(np.max(np.abs(th))) * h if th.size else 0.0
    b = int(max(1, min(_BLOCK, math.floor(_BLOCK_SPAN / reach) + 1 if reach > 0 else _BLOCK)))
    rows, starts, seg, n_blocks = [], [], [], []
    for i, d in enumerate(parts):
        nb = -(-d.p.size // b)
        padded = np.zeros(nb * b)
        padded[:d.p.size] = d.p
        rows.append(padded.reshape(nb, b))
        starts.append((d.k0 + b * np.arange(nb)) * h + d.c)
        seg.append(np.full(nb, i))
        n_blocks.append(nb)
    blocks = np.concatenate(rows)
    g0 = np.concatenate(starts)
    owner = np.concatenate(seg)
    top = blocks.max(axis=1)
    keep = top > 0.0
    out = np.full((len(parts), th.size), -np.inf)
    if not keep.any():
        return out
    blocks, g0, owner, top = blocks[keep], g0[keep], owner[keep], top[keep]
    table = np.exp(h * np.arange(b, dtype=np.float64)[:, None] * th[None, :])
    scaled = blocks / top[:, None]
    # products of at most _GEMM_TERMS multiply-adds each: OpenBLAS runs larger ones on several threads, which here
    # doubled the CPU time of a pass for the same wall time (Poisson-subsampled Gaussian ×14,063: 37 against 19 ms)
    per = max(1, _GEMM_TERMS // (b * max(1, th.size)))
    sums = (scaled @ table if scaled.shape[0] <= per
            else np.concatenate([scaled[i:i + per] @ table for i in range(0, scaled.shape[0], per)]))
    sums = sums * (1.0 + 1e-13) + b * _TINY
    log_top, tilt = np.log(top)[:, None], g0[:, None] * th[None, :]
    logs = np.log(sums) + log_top + tilt
    first = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
    mx = np.maximum.reduceat(logs, first, axis=0)
    tot = np.add.reduceat(np.exp(logs - mx[np.repeat(np.arange(first.size), np.diff(np.append(first, owner.size)))]),
                          first, axis=0)
    k = np.log(tot) + mx
    # the rounding of the block logs' terms (a few ulps of |log top| + |θg₀|), then 1e-12 relative
    big = np.maximum.reduceat(np.abs(log_top) + np.abs(tilt), first, axis=0)
    out[owner[first]] = k + 1e-15 * big + 1e-12 * (1.0 + np.abs(k))
    return out


def hockey_stick_orders(k: FloatArray, thetas: FloatArray, log_delta: float) -> FloatArray:
    """(K(θ) + log C(θ) − log δ)/θ at each order θ > 0 (C(θ) = θ^θ/(1 + θ)^{1+θ}): the ε at which the hockey-stick
    Chernoff bound C(θ)·e^{K(θ) − θε} of a log-MGF K meets δ (`hockey_stick_eps`; the window's ε in `passes`).

    Parameters
    ----------
    k : FloatArray
    thetas : FloatArray
    log_delta : float

    Returns
    -------
    FloatArray
    """
    with np.errstate(invalid="ignore"):
        return np.asarray((k + thetas * np.log(thetas) - (thetas + 1.0) * np.log1p(thetas) - log_delta) / thetas)


def hockey_stick_eps(parts: list[tuple[LatticePmf, int]], h: float, thetas: FloatArray, delta: float) -> float:
    """An upper bound on ε at δ of the composition of the lattice pairs, without composing them: the hockey-stick
    Chernoff bound. (1 − e^{ε−s})₊ <= C(θ)·e^{θ(s−ε)} with C(θ) = θ^θ/(1 + θ)^{1+θ} (its maximum over s), so
    δ(ε) <= p∞ + C(θ)·e^{K(θ) − θε} for every θ > 0, K the bound of `total_mgf` on the finite atoms and p∞ the
    composed mass at +∞; the smallest ε where that meets δ over the orders ``thetas`` (+inf when p∞ >= δ). Applied
    to upper (dominating) pairs it bounds the ε of what they dominate.

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]
    h : float
    thetas : FloatArray
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    float
    """
    p_inf = -math.expm1(math.fsum(c * math.log1p(-d.p_inf) for d, c in parts)) * (1.0 + MARGIN)
    if not delta > p_inf:
        return math.inf
    tp = thetas[thetas > 0]
    return _smallest_eps(total_mgf(parts, h, tp), tp, math.log(delta - p_inf))


def _smallest_eps(k: FloatArray, tp: FloatArray, log_delta: float) -> float:
    """The smallest hockey-stick Chernoff ε over the orders ``tp`` > 0 of the log-MGF bounds ``k`` (+inf when none
    is finite), moved up past the rounding of C(θ)'s logs and of the quotient (far inside this margin)."""
    cher = hockey_stick_orders(k, tp, log_delta)
    cher = cher[np.isfinite(cher)]
    if cher.size == 0:
        return math.inf
    return max(0.0, float(cher.min())) * (1.0 + 1e-10) + 1e-12


def swapped_hockey_stick_eps(parts: list[tuple[LatticePmf, int]], lowest: Sequence[float], tail: float, h: float,
                             thetas: FloatArray, delta: float) -> float:
    """An upper bound on ε at δ of the other neighbour direction (the pairs swapped: loss −L under Q) from the upper
    pairs of this one, without discretising it: the hockey-stick Chernoff bound of `hockey_stick_eps` with
    K(θ) = Σ count·log E_Q[e^{−θL}] bounded per step as follows. E_Q[e^{−θL}] = E_P[e^{−(1+θ)L}]; over the lattice's
    range connect-the-dots spreads each outcome's Q-mass between its two dots linearly in e^L (a mean-preserving
    spread), so for the convex e^L ↦ e^{−θL} the atoms' Σ P_j e^{−(1+θ)g_j} is at least that part; the P-mass at +∞
    (losses above the top atom less h) adds at most p∞·e^{−(1+θ)(g_top − h)}, and the tail below the range (P-mass at
    most ``tail``, loss at least the step's ``lowest``) at most tail·e^{−(1+θ)·lowest}. The other direction's loss
    is bounded above (its mass at +∞ is 0). +inf when a step's loss has no finite infimum.

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]
    lowest : Sequence[float]
    tail : float
    h : float
    thetas : FloatArray
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    float
    """
    if not all(math.isfinite(lo) for lo in lowest):
        return math.inf
    tp = thetas[thetas > 0]
    k_atoms = log_mgfs([d for d, _ in parts], h, -(1.0 + tp))
    k = np.zeros(tp.size)
    for (d, c), lo, ka in zip(parts, lowest, k_atoms, strict=True):
        top = (d.k0 + d.p.size - 1) * h + d.c - h
        with np.errstate(divide="ignore"):
            rest = np.logaddexp(math.log(d.p_inf) - (1.0 + tp) * top if d.p_inf > 0 else -np.inf,
                                math.log(tail) - (1.0 + tp) * lo if tail > 0 else -np.inf)
        # the sum rounded up like `log_mgfs`' bounds
        k += c * (np.logaddexp(ka, rest) + 1e-12 * (1.0 + np.abs(np.where(np.isfinite(ka), ka, 0.0))))
    return _smallest_eps(k, tp, math.log(delta))


def _log_mgfs_dense(parts: list[LatticePmf], h: float, th: FloatArray) -> FloatArray:
    """`log_mgfs` of small lattices, every term e^{log p_j + θg_j} evaluated (one log-sum-exp per part). Bounds:
    each exponent carries at most 4u·(|log p_j| + |θg_j|) of rounding and the shift by the largest another
    2u·(its distance), charged as 2e-15 of the largest |log p_j| + |θg_j|; the sum's own rounding (at most n·u
    relative for n ≤ `_DENSE_TERMS` terms, below 1e-12) and the log's by 1e-12·(1 + |K|), as the blocked path."""
    sizes = np.array([d.p.size for d in parts])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    p = np.concatenate([d.p for d in parts])
    g = np.concatenate([(d.k0 + np.arange(d.p.size)) * h + d.c for d in parts])
    owner = np.repeat(np.arange(len(parts)), sizes)
    with np.errstate(divide="ignore"):
        lp = np.log(p)
    tilt = g[:, None] * th[None, :]
    z = lp[:, None] + tilt
    mx = np.maximum.reduceat(z, starts, axis=0)
    fin = np.isfinite(mx)
    shift = np.where(fin, mx, 0.0)
    with np.errstate(divide="ignore"):
        k = np.log(np.add.reduceat(np.exp(z - shift[owner]), starts, axis=0)) + shift
    big = np.maximum.reduceat(np.where(np.isfinite(lp), np.abs(lp), 0.0)[:, None] + np.abs(tilt), starts, axis=0)
    return np.where(fin, k + 2e-15 * big + 1e-12 * (1.0 + np.abs(k)), -np.inf)


def total_mgf(parts: list[tuple[LatticePmf, int]], h: float, thetas: FloatArray) -> FloatArray:
    """log-MGF bound of the composition: Σ count·K_i(θ), each K_i a bound of `log_mgfs` (all steps in one blocked
    matrix product).

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]
    h : float
    thetas : FloatArray

    Returns
    -------
    FloatArray
    """
    return total_mgfs([parts], h, thetas)[0]


def total_mgfs(groups: list[list[tuple[LatticePmf, int]]], h: float, thetas: FloatArray) -> list[FloatArray]:
    """`total_mgf` of each group of steps (the upper and the lower pairs of a pass), all in one `log_mgfs` call.

    Parameters
    ----------
    groups : list[list[tuple[LatticePmf, int]]]
    h : float
    thetas : FloatArray

    Returns
    -------
    list[FloatArray]
    """
    flat = [pc for parts in groups for pc in parts]
    if not flat:
        return [np.zeros(np.size(thetas)) for _ in groups]
    k = log_mgfs([d for d, _ in flat], h, thetas)
    counts = np.array([float(c) for _, c in flat])
    with np.errstate(invalid="ignore"):
        terms = np.where(np.isneginf(k), -np.inf, counts[:, None] * k)
    out, at = [], 0
    for parts in groups:
        out.append(np.asarray(terms[at:at + len(parts)].sum(axis=0)) if parts else np.zeros(np.size(thetas)))
        at += len(parts)
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
