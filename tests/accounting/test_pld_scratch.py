"""The FFT composition's scratch buffers: reused per role and thread, and never aliased by what `compose` returns."""

from __future__ import annotations

import threading

import numpy as np

from dpcalc.accounting.pld import scratch
from dpcalc.accounting.pld.compose import compose
from dpcalc.accounting.pld.pmf import LatticePmf


def test_a_role_reuses_its_memory_and_grows_when_asked_for_more() -> None:
    scratch.release()
    a = scratch.buffer("t", (2, 100), np.float64)
    assert a.shape == (2, 100) and a.dtype == np.float64 and a.flags.c_contiguous
    b = scratch.buffer("t", (3, 50), np.float64)  # smaller: a view of the same memory
    assert np.shares_memory(a, b)
    c = scratch.buffer("u", (2, 100), np.float64)  # another role: its own memory
    assert not np.shares_memory(a, c)
    d = scratch.buffer("t", (4, 100), np.float64)  # larger: grown, new memory
    assert d.size == 400 and not np.shares_memory(a, d)
    e = scratch.buffer("t", (2, 100), np.complex128)  # another dtype: its own memory
    assert e.dtype == np.complex128 and not np.shares_memory(d, e)


def test_buffers_above_the_cap_are_fresh_and_threads_do_not_share() -> None:
    n = scratch.MAX_BYTES // 8 + 1
    assert not np.shares_memory(scratch.buffer("big", (n,), np.float64), scratch.buffer("big", (n,), np.float64))
    mine = scratch.buffer("thread", (64,), np.float64)
    theirs: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: theirs.append(scratch.buffer("thread", (64,), np.float64)))
    worker.start()
    worker.join()
    assert not np.shares_memory(mine, theirs[0])


def _pmf(seed: int, size: int) -> LatticePmf:
    p = np.random.default_rng(seed).random(size)
    return LatticePmf(-size // 2, p / p.sum() * 0.999, 0.0, 0.0)


def _reference(parts: list[tuple[LatticePmf, int]], h: float, lam: float, k_lo: int, n: int) -> np.ndarray:
    """The composed tilted masses by direct convolution (no FFT, no scratch), on the window of n points from k_lo."""
    w, k = np.array([1.0]), 0
    for d, c in parts:
        g = (d.k0 + np.arange(d.p.size)) * h + d.c
        t = d.p * np.exp(lam * g)
        for _ in range(c):
            w, k = np.convolve(w, t / t.sum()), k + d.k0
    out = np.zeros(n)
    np.add.at(out, (k + np.arange(w.size) - k_lo) % n, w)
    return out


def test_what_compose_returns_survives_later_compositions() -> None:
    """Two compositions back to back (one distinct count, then two counts: the powers of the first count must be
    copied out of the buffer the second reuses): each result equals a direct convolution, and the first one's arrays
    are unchanged by the second."""
    h, n = 0.01, 512
    first = [[(_pmf(1, 21), 7)], [(_pmf(2, 21), 7)]]
    out1 = compose(first, h, 0.5, -200, n, [True, False])
    kept = [w.copy() for w, *_ in out1]
    second = [[(_pmf(3, 31), 3), (_pmf(4, 11), 5)], [(_pmf(5, 31), 3)]]
    out2 = compose(second, h, 1.0, -100, n, [True, False])
    for (w, *_), before in zip(out1, kept, strict=True):
        assert np.array_equal(w, before)
    for groups, lam, k_lo, outs in ((first, 0.5, -200, out1), (second, 1.0, -100, out2)):
        for parts, (w, _, _, err) in zip(groups, outs, strict=True):
            assert np.max(np.abs(w - _reference(parts, h, lam, k_lo, n))) <= 2.0 * err + 1e-15
