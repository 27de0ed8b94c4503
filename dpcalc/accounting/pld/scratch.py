"""Reusable scratch arrays for a pass's large temporaries (per thread).

A fresh NumPy array above the C allocator's mmap threshold (128 kB by default in glibc) is new memory mapped from
the kernel, and every 4 kB page of it faults when first written: a Poisson-subsampled Gaussian ×1,000 (10,000-point
FFT) took about 400 page faults per ε call, ×14,063 (38,400 points) 1,580, at some 5 µs each on a virtual machine. The
FFT composition writes its spectra and powers into buffers kept here instead, grown to the largest size asked and
reused by every later pass of the same thread. Buffers above `MAX_BYTES` are not kept (one fresh array: its faults
are a small part of a transform that size), so a thread holds at most 9 roles × 4 MB = 36 MB (`release` frees
them)."""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["MAX_BYTES", "buffer", "release"]

MAX_BYTES = 4 << 20  # per role: two rows of 262,144 points (a pass of the ×14,063 schedule takes 0.55 MB)

_local = threading.local()


def buffer(role: str, shape: tuple[int, ...], dtype: type[np.generic]) -> np.ndarray:
    """An uninitialised C-contiguous array of ``shape`` for ``role``: a view of this thread's buffer for the role
    (grown when too small), or a fresh array when larger than `MAX_BYTES`. The caller owns it until it asks for the
    same role again: two live arrays need two roles."""
    size = 1
    for s in shape:
        size *= s
    dt = np.dtype(dtype)
    if size * dt.itemsize > MAX_BYTES:
        return np.empty(shape, dtype=dt)
    pool: dict[tuple[str, str], np.ndarray] | None = getattr(_local, "pool", None)
    if pool is None:
        pool = _local.pool = {}
    key = (role, dt.str)
    buf = pool.get(key)
    if buf is None or buf.size < size:
        buf = pool[key] = np.empty(size, dtype=dt)
    return buf[:size].reshape(shape)


def release() -> None:
    """Drop this thread's buffers (their memory goes back to the allocator)."""
    _local.pool = {}
