"""Composition of the lattice PLDs: exponential tilting, one real FFT per distinct step, powers in the Fourier
domain, one inverse FFT, with a componentwise bound of the FFT round-off."""

from __future__ import annotations

import math

import numpy as np

from dpcalc.accounting.pld.common import UNIT_ROUNDOFF as _U
from dpcalc.accounting.pld.common import FloatArray
from dpcalc.accounting.pld.pmf import LatticePmf

__all__ = ["compose", "fft_len"]

_FFT_C = 10.0  # componentwise FFT error constant: |Δx̂_k| ≤ _FFT_C·u·log2(n)·‖x‖₁


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


def _ipow(x: np.ndarray, c: int) -> np.ndarray:
    """x**c elementwise by repeated squaring (c >= 1); at most 2·log2(c) multiplications, in place on two private
    arrays (a fresh array per product made every one of them a new mapping of a few hundred kB: page faults were a
    third of a 38,400-point pass)."""
    result: np.ndarray | None = None
    base = x
    own = False  # whether ``base`` is ours to overwrite (``x`` is the caller's)
    while c:
        if c & 1:
            if result is None:
                result = base.copy()
            else:
                np.multiply(result, base, out=result)
        c >>= 1
        if c:
            if own:
                np.multiply(base, base, out=base)
            else:
                base, own = base * base, True
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
    rows = np.repeat(np.arange(len(ds)), sizes)
    arr = np.asarray(np.bincount(rows * n + k % n, w, len(ds) * n), dtype=np.float64).reshape(len(ds), n)
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
    for c, members in by_count.items():
        for s in range(0, len(members), rows):
            chunk = members[s:s + rows]
            owner = np.array([gi for gi, _ in chunk])
            arr, lz, dr, wsum = _tilted_rows([d for _, d in chunk], h, lam, n)
            dl = (_FFT_C * _U * lg2 * wsum)[:, None]
            f = np.fft.rfft(arr, axis=1)
            b = np.abs(f)  # in place below: three passes over rows × n without temporaries
            b *= 1.0 + 2.0 * _U
            b += dl
            present = [gi for gi in range(ng) if (owner == gi).any()]
            # Π_i f_i^c = (Π_i f_i)^c: multiply each group's rows (one reduction, in row order), then one power
            # for all groups at once
            if len(present) == owner.size:  # one row per group (one distinct step): the rows are the products
                fr, br = f, b
            else:
                fr = np.stack([np.multiply.reduce(f[owner == gi], axis=0) for gi in present])
                br = np.stack([np.multiply.reduce(b[owner == gi], axis=0) for gi in present])
            fp, bp = _ipow(fr, c), _ipow(br, c)
            for j, gi in enumerate(present):
                sel = owner == gi
                logk[gi] += c * math.fsum(lz[sel])
                log_drops[gi].extend((math.log(c) + dr[sel][np.isfinite(dr[sel])]).tolist())
                spec[gi] = fp[j] if spec[gi] is None else spec[gi] * fp[j]
                up[gi] = bp[j] if up[gi] is None else up[gi] * bp[j]
    outs = np.fft.irfft(np.stack([sp for sp in spec if sp is not None]), n, axis=1)
    results = []
    for gi, parts in enumerate(groups):
        sp, upg = spec[gi], up[gi]
        assert sp is not None and upg is not None and sp.size == m
        total = sum(c for _, c in parts)
        rho = math.expm1(2.0 * (total * (len(parts) + 1) + len(parts) + 1) * math.log1p(4.0 * _U))
        mod = np.abs(sp)
        up_c = upg * (1.0 + rho)  # >= Π(|f̃|+Δ)^c and >= Π|f̃|^c
        low = mod * (1.0 - 2.0 * _U) / (1.0 + rho)  # <= Π|f̃|^c
        err = np.maximum(up_c - low, 0.0) + rho * up_c
        e_bound = ((2.0 / n) * float(err.sum()) + _FFT_C * _U * lg2 * (2.0 / n) * float(mod.sum()) * (1.0 + 4.0 * _U)
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
