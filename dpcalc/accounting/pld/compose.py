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
    """x**c elementwise by repeated squaring (c >= 1); at most 2·log2(c) multiplications."""
    result: np.ndarray | None = None
    base = x
    while c:
        if c & 1:
            result = base.copy() if result is None else result * base
        c >>= 1
        if c:
            base = base * base
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


def compose(parts: list[tuple[LatticePmf, int]], h: float, lam: float, k_lo: int, n: int,
            upper: bool) -> tuple[FloatArray, float, float, float]:
    """Tilted circular composition; returns (W clipped ± E, logk, log R, E) with R = Σ count·(tilted mass of the atoms
    whose tilted weight underflowed and were left out). Those atoms change δ(ε) of the composition by at most
    e^{logk + log R − λε} (their share of the composed tilted mass is <= R, and a composed atom at s > ε weighs
    e^{logk − λs}·(its tilted mass)): the upper curve adds that term; the lower one may ignore them.

    Steps with the same count are transformed together (one batched real FFT) and raised to their count by repeated
    squaring, so only multiplications touch the spectra. Round-off: with f̃ the computed spectra, |f̃ − f| ≤ Δ
    componentwise (Δ = 10·u·log2(n)·Σw), and every complex product carries a relative error ≤ 4u, the computed
    product P̃ of powers satisfies |P̃ − Π f^c| ≤ Π(|f̃|+Δ)^c − Π|f̃|^c + ρ·Π|f̃|^c with ρ = (1+4u)^{2(Σc + k)} − 1.

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]
    h : float
    lam : float
    k_lo : int
    n : int
    upper : bool

    Returns
    -------
    tuple[FloatArray, float, float, float]
    """
    m = n // 2 + 1
    spec: np.ndarray | None = None  # product of the powers (complex)
    up: np.ndarray | None = None  # product of (|f̃| + Δ)^c (real, an upper bound of the moduli)
    logk = 0.0
    log_drops: list[float] = []
    lg2 = math.log2(n)
    total = 0
    by_count: dict[int, list[LatticePmf]] = {}
    for d, c in parts:
        by_count.setdefault(c, []).append(d)
        total += c
    for c, ds in by_count.items():
        rows = max(1, _ROWS_BYTES // (16 * n))
        for s in range(0, len(ds), rows):
            chunk = ds[s:s + rows]
            arr, lz, dr, wsum = _tilted_rows(chunk, h, lam, n)
            dl = (_FFT_C * _U * lg2 * wsum)[:, None]
            logk += c * math.fsum(lz)
            log_drops.extend((math.log(c) + dr[np.isfinite(dr)]).tolist())
            f = np.fft.rfft(arr, axis=1)
            b = np.abs(f)  # in place below: three passes over rows × n without temporaries
            b *= 1.0 + 2.0 * _U
            b += dl
            # Π_i f_i^c = (Π_i f_i)^c: multiply the rows (one reduction, in row order), then one power
            fr, br = np.multiply.reduce(f, axis=0), np.multiply.reduce(b, axis=0)
            fp, bp = _ipow(fr, c), _ipow(br, c)
            spec = fp if spec is None else spec * fp
            up = bp if up is None else up * bp
    assert spec is not None and up is not None
    rho = math.expm1(2.0 * (total * (len(parts) + 1) + len(parts) + 1) * math.log1p(4.0 * _U))
    mod = np.abs(spec)
    up_c = up * (1.0 + rho)  # >= Π(|f̃|+Δ)^c and >= Π|f̃|^c
    low = mod * (1.0 - 2.0 * _U) / (1.0 + rho)  # <= Π|f̃|^c
    err = np.maximum(up_c - low, 0.0) + rho * up_c
    out = np.fft.irfft(spec, n)
    e_bound = ((2.0 / n) * float(err.sum()) + _FFT_C * _U * lg2 * (2.0 / n) * float(mod.sum()) * (1.0 + 4.0 * _U)
               + 1e-300)
    assert spec.size == m
    # circular position (k mod n) -> window index
    out = np.roll(out, -(k_lo % n))
    out = np.maximum(out, 0.0) + e_bound if upper else np.maximum(out - e_bound, 0.0)
    top = max(log_drops, default=-math.inf)
    log_r = top + math.log(math.fsum(math.exp(x - top) for x in log_drops)) if log_drops else -math.inf
    return out, logk, log_r, e_bound
