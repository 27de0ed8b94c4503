"""Composition of the lattice PLDs: exponential tilting, one real FFT per distinct step, powers in the Fourier
domain, one inverse FFT, with a componentwise bound of the FFT round-off."""

from __future__ import annotations

import math

import numpy as np

from dpcalc.accounting.pld import scratch
from dpcalc.accounting.pld.common import UNIT_ROUNDOFF as _U
from dpcalc.accounting.pld.common import FloatArray
from dpcalc.accounting.pld.pmf import LatticePmf

__all__ = ["compose", "fft_len"]

_FFT_C = 10.0  # componentwise FFT error constant: |Δx̂_k| ≤ _FFT_C·u·log2(n)·‖x‖₁
#: NumPy 2 transforms into a given array (``out=``): the spectra live in `scratch` buffers, no fresh pages
_FFT_OUT = int(np.__version__.split(".")[0]) >= 2


def _rfft(x: FloatArray, out: np.ndarray) -> np.ndarray:
    return np.fft.rfft(x, axis=1, out=out) if _FFT_OUT else np.fft.rfft(x, axis=1)


def _irfft(x: np.ndarray, n: int, out: FloatArray) -> FloatArray:
    return np.fft.irfft(x, n, axis=1, out=out) if _FFT_OUT else np.fft.irfft(x, n, axis=1)


def fft_len(n: int) -> int:
    """Smallest 2^a·3^b·5^c ≥ n.

    Parameters
    ----------
    n : int

    Returns
    -------
    int
    """
    best = 1 << max(0, (n - 1).bit_length())
    f5 = 1
    while f5 < best:
        f35 = f5
        while f35 < best:
            f = f35
            while f < n:
                f *= 2
            best = min(best, f)
            f35 *= 3
        f5 *= 5
    return best


def _ipow(x: np.ndarray, c: int, role: str) -> np.ndarray:
    """x**c elementwise by repeated squaring (c >= 1), at most 2·log2(c) multiplications, all in place: ``x`` is
    squared over itself (its values are lost) and the result is the `scratch` buffer ``role``."""
    result: np.ndarray | None = None
    base = x
    while c:
        if c & 1:
            if result is None:
                result = scratch.buffer(role, x.shape, x.dtype.type)
                result[...] = base
            else:
                np.multiply(result, base, out=result)
        c >>= 1
        if c:
            np.multiply(base, base, out=base)
    assert result is not None
    return result


_ROWS_BYTES = 1 << 25  # spectra transformed together (rows × n) stay below ~32 MB per array


def _tilted_rows(ds: list[LatticePmf], h: float, lam: float, n: int) -> tuple[FloatArray, FloatArray, FloatArray,
                                                                              FloatArray]:
    """Tilted atoms of several steps on the circle of length n, one row each: row r holds w_j = p_j e^{λ g_j}/z_r
    (Σw = 1) at position k mod n. Returns (rows, log z_r, log of the tilted mass of the atoms whose w_j underflows to
    0 (−inf: none), Σw)."""
    nzs = [np.flatnonzero(d.p > 0) for d in ds]
    sizes = np.array([nz.size for nz in nzs])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    p = np.concatenate([d.p[nz] for d, nz in zip(ds, nzs, strict=True)])
    k = np.concatenate([d.k0 + nz for d, nz in zip(ds, nzs, strict=True)])
    off = np.repeat(np.array([d.c for d in ds]), sizes)
    lw = np.log(p) + lam * (k * h + off)
    mx = np.maximum.reduceat(lw, starts)
    lz = mx + np.log(np.add.reduceat(np.exp(lw - np.repeat(mx, sizes)), starts))
    w = np.exp(lw - np.repeat(lz, sizes))
    arr = scratch.buffer("rows", (len(ds), n), np.float64)
    arr.fill(0.0)
    pos = np.repeat(np.arange(len(ds)) * n, sizes) + k % n
    if all(d.p.size <= n for d in ds):  # no step wraps around the circle: one atom per position
        arr.reshape(-1)[pos] = w
    else:
        np.add.at(arr.reshape(-1), pos, w)
    gone = w == 0.0
    log_dropped = np.full(len(ds), -math.inf)
    if gone.any():  # their tilted weights e^{lw − lz} < 1e-323, summed in log space
        zd = np.where(gone, lw - np.repeat(lz, sizes), -math.inf)
        top = np.maximum.reduceat(zd, starts)
        with np.errstate(invalid="ignore"):
            sm = np.add.reduceat(np.exp(zd - np.repeat(np.where(np.isfinite(top), top, 0.0), sizes)), starts)
        with np.errstate(divide="ignore"):
            log_dropped = np.where(np.isfinite(top), top + np.log(sm), -math.inf)
    return arr, np.asarray(lz), np.asarray(log_dropped), np.asarray(np.add.reduceat(w, starts))


def compose(groups: list[list[tuple[LatticePmf, int]]], h: float, lam: float, k_lo: int, n: int,
            uppers: list[bool]) -> list[tuple[FloatArray, float, float, float]]:
    """Tilted circular composition of each group of steps (the upper and the lower pairs of a pass: one batched
    transform for all); per group (W clipped ± E, logk, log R, E), clipped up when its ``uppers`` entry is true and
    down otherwise, with R = Σ count·(tilted mass of the atoms whose tilted weight underflowed and were left out).
    Those atoms change δ(ε) of the composition by at most e^{logk + log R − λε} (their share of the composed tilted
    mass is <= R, and a composed atom at s > ε weighs e^{logk − λs}·(its tilted mass)): the upper curve adds that
    term; the lower one may ignore them.

    Steps with the same count are transformed together (one batched real FFT over every group's rows) and raised to
    their count by repeated squaring, so only multiplications touch the spectra. Round-off: with f̃ the computed
    spectra, |f̃ − f| ≤ Δ componentwise (Δ = 10·u·log2(n)·Σw), and every complex product carries a relative error
    ≤ 4u, the computed product P̃ of powers satisfies |P̃ − Π f^c| ≤ Π(|f̃|+Δ)^c − Π|f̃|^c + ρ·Π|f̃|^c with
    ρ = (1+4u)^{2(Σc + k)} − 1. Each group's rows are reduced and powered on their own, in the same order as alone,
    so a group's result does not depend on the others.

    Parameters
    ----------
    groups : list[list[tuple[LatticePmf, int]]]
    h : float
    lam : float
    k_lo : int
    n : int
    uppers : list[bool]

    Returns
    -------
    list[tuple[FloatArray, float, float, float]]
    """
    m = n // 2 + 1
    ng = len(groups)
    spec: list[np.ndarray | None] = [None] * ng  # per group: product of the powers (complex)
    up: list[np.ndarray | None] = [None] * ng  # per group: product of (|f̃| + Δ)^c (real, bounds the moduli)
    logk = [0.0] * ng
    log_drops: list[list[float]] = [[] for _ in groups]
    lg2 = math.log2(n)
    by_count: dict[int, list[tuple[int, LatticePmf]]] = {}
    for gi, parts in enumerate(groups):
        for d, c in parts:
            by_count.setdefault(c, []).append((gi, d))
    rows = max(1, _ROWS_BYTES // (16 * n))
    chunks = [(c, members[s:s + rows]) for c, members in by_count.items() for s in range(0, len(members), rows)]
    only = len(chunks) == 1  # one transform: its powers are the results (else copied out of the scratch buffers)
    fp = np.empty(0, dtype=complex)
    for c, chunk in chunks:
        owner = np.array([gi for gi, _ in chunk])
        arr, lz, dr, wsum = _tilted_rows([d for _, d in chunk], h, lam, n)
        f = _rfft(arr, scratch.buffer("spectra", (len(chunk), m), np.complex128))
        b = np.abs(f, out=scratch.buffer("moduli", (len(chunk), m), np.float64))
        b *= 1.0 + 2.0 * _U
        b += (_FFT_C * _U * lg2 * wsum)[:, None]
        present = [gi for gi in range(ng) if (owner == gi).any()]
        # Π_i f_i^c = (Π_i f_i)^c: multiply each group's rows (one reduction, in row order), then one power
        # for all groups at once
        if len(present) == owner.size:  # one row per group (one distinct step): the rows are the products
            fr, br = f, b
        else:
            fr = np.stack([np.multiply.reduce(f[owner == gi], axis=0) for gi in present])
            br = np.stack([np.multiply.reduce(b[owner == gi], axis=0) for gi in present])
        fp, bp = _ipow(fr, c, "power"), _ipow(br, c, "power bound")
        for j, gi in enumerate(present):
            sel = owner == gi
            logk[gi] += c * math.fsum(lz[sel])
            log_drops[gi].extend((math.log(c) + dr[sel][np.isfinite(dr[sel])]).tolist())
            fj, bj = (fp[j], bp[j]) if only else (fp[j].copy(), bp[j].copy())
            spec[gi] = fj if spec[gi] is None else spec[gi] * fj
            up[gi] = bj if up[gi] is None else up[gi] * bj
    present_all = [sp for sp in spec if sp is not None]
    # one transform holding every group in order: its powers are the spectra already (no stacked copy)
    stacked = fp if only and fp.shape[0] == len(present_all) else np.stack(present_all)
    outs = _irfft(stacked, n, scratch.buffer("composed", (len(present_all), n), np.float64))
    mod = scratch.buffer("modulus", (m,), np.float64)
    tmp = scratch.buffer("bound", (m,), np.float64)
    results = []
    for gi, parts in enumerate(groups):
        sp, upg = spec[gi], up[gi]
        assert sp is not None and upg is not None and sp.size == m
        total = sum(c for _, c in parts)
        rho = math.expm1(2.0 * (total * (len(parts) + 1) + len(parts) + 1) * math.log1p(4.0 * _U))
        np.abs(sp, out=mod)
        mod_sum = float(mod.sum())
        up_c = np.multiply(upg, 1.0 + rho, out=upg)  # >= Π(|f̃|+Δ)^c and >= Π|f̃|^c
        low = np.multiply(mod, 1.0 - 2.0 * _U, out=mod)
        low /= 1.0 + rho  # <= Π|f̃|^c
        err = np.subtract(up_c, low, out=low)  # in place: max(up_c − low, 0) + ρ·up_c
        np.maximum(err, 0.0, out=err)
        err += np.multiply(up_c, rho, out=tmp)
        e_bound = ((2.0 / n) * float(err.sum()) + _FFT_C * _U * lg2 * (2.0 / n) * mod_sum * (1.0 + 4.0 * _U)
                   + 1e-300)
        # circular position (k mod n) -> window index, then clipped to the safe side of ± e_bound (in place)
        out = np.roll(outs[gi], -(k_lo % n))
        if uppers[gi]:
            np.maximum(out, 0.0, out=out)
            out += e_bound
        else:
            out -= e_bound
            np.maximum(out, 0.0, out=out)
        drops = log_drops[gi]
        top = max(drops, default=-math.inf)
        log_r = top + math.log(math.fsum(math.exp(x - top) for x in drops)) if drops else -math.inf
        results.append((out, logk[gi], log_r, e_bound))
    return results
