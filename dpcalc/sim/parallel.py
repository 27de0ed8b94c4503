"""Seeded, chunked, optionally multi-process evaluation of i.i.d. Monte Carlo terms.

The sample budget ``n`` is cut into chunks of ``chunk`` samples (boundaries depend only on ``n`` and ``chunk``);
chunk ``i`` draws from ``np.random.default_rng(root.spawn(...)[i])``. So the same seed gives the same numbers
whatever ``workers`` is, and memory is bounded by one chunk per worker (``chunk`` × terms × 8 bytes).

A *term function* ``fn(rng, size) -> array`` returns per-sample terms of shape ``(size,)`` or ``(k, size)``; each
chunk is reduced in the worker to ``Moments`` (count, sums, cross-product sums), which add exactly.
Processes (`dpcalc.sim.executor.LocalExecutor`) are used only when ``workers > 1`` and
``n >= PROCESS_THRESHOLD``; a Dask executor (given, or current: `dpcalc.sim.executor.use`) gets the chunks in
tasks of up to `CHUNKS_PER_TASK`. ``fn`` must then be picklable (a module-level function,
``functools.partial`` of one, or an instance of a module-level class).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcalc import _validate as v
from dpcalc.sim.executor import Executor, current, is_cluster, open_executor

__all__ = ["CHUNKS_PER_TASK", "DEFAULT_CHUNK", "MAX_SAMPLES", "PROCESS_THRESHOLD", "Moments", "SeedLike", "TermFn",
           "as_seed_sequence",
           "chunk_sizes", "chunks_per_task", "default_workers", "run_moments"]

DEFAULT_CHUNK = 1 << 17
PROCESS_THRESHOLD = 1 << 22
CHUNKS_PER_TASK = 16
"""Most chunks in one cluster task: 16 × 2**17 samples; the task holds one chunk's terms at a time plus 16 small
Moments (k + k² floats each), so its memory is ``chunk × k × 8`` bytes and the term function's temporaries."""
MAX_SAMPLES = 10**10
"""Most samples one estimate may draw (``n``): beyond it a run takes hours; the CLI's --samples stops at 1e9."""
TermFn = Callable[[np.random.Generator, int], Any]
SeedLike = int | Sequence[int] | np.random.SeedSequence


def default_workers() -> int:
    """Number of usable cores (the default of ``--workers``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def as_seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """A SeedSequence from an int, a sequence of ints or a SeedSequence (returned as is)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(v.seed("seed", seed))


def chunk_sizes(n: int, chunk: int = DEFAULT_CHUNK) -> list[int]:
    """Sizes of the chunks of ``n`` samples (all ``chunk`` except a shorter last one)."""
    n = int(v.scalar("n", v.check_range("n", n, 1.0, MAX_SAMPLES, integer=True)))
    chunk = int(v.scalar("chunk", v.integer_at_least("chunk", chunk, 1)))
    full, rest = divmod(n, chunk)
    return [int(chunk)] * full + ([rest] if rest else [])


@dataclass(frozen=True)
class Moments:
    """Count, sums and cross-product sums of k statistics over i.i.d. samples (exactly additive)."""

    n: int
    total: np.ndarray  # (k,)
    cross: np.ndarray  # (k, k)

    @classmethod
    def of(cls, terms: Any) -> Moments:
        t = np.asarray(terms, dtype=np.float64)
        if t.ndim == 1:
            t = t[None, :]
        if not np.all(np.isfinite(t)):
            raise FloatingPointError("a Monte Carlo term is NaN or inf; the scenario is numerically out of range")
        # einsum's own loops, not BLAS: a threaded GEMM/DOT for a few long rows is slow and oversubscribes cores
        cross = np.einsum("ij,kj->ik", t, t) if t.shape[0] > 1 else np.einsum("ij,ij->", t, t).reshape(1, 1)
        return cls(int(t.shape[1]), t.sum(axis=1), cross)

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.n + other.n, self.total + other.total, self.cross + other.cross)

    @property
    def mean(self) -> np.ndarray:
        return self.total / self.n

    @property
    def cov_of_mean(self) -> np.ndarray:
        """Covariance matrix of the sample mean (unbiased)."""
        m = self.mean
        cov = (self.cross - self.n * np.outer(m, m)) / max(self.n - 1, 1)
        return cov / self.n


def _chunk_moments(fn: TermFn, seed: np.random.SeedSequence, size: int) -> Moments:
    return Moments.of(fn(np.random.default_rng(seed), size))


def _batch_moments(task: tuple[TermFn, list[tuple[np.random.SeedSequence, int]]]) -> list[Moments]:
    """One task: consecutive chunks, each reduced to its Moments at once (memory: one chunk at a time)."""
    fn, chunks = task
    return [_chunk_moments(fn, s, k) for s, k in chunks]


def _cluster_batch(task: tuple[TermFn, list[tuple[np.random.SeedSequence, int]]]) -> list[Moments]:
    """A cluster task: `_batch_moments` with one BLAS thread (as ``verify`` runs locally), so a threaded BLAS
    reduction cannot change the last bits, and a worker's threads do not oversubscribe its cores."""
    from dpcalc.sim.blas import single_threaded_blas

    with single_threaded_blas():
        return _batch_moments(task)


def chunks_per_task(chunks: int, workers: int) -> int:
    """Chunks one task evaluates: about four tasks per worker, at most `CHUNKS_PER_TASK` chunks each (so a
    lost task costs little and the per-task overhead stays small). Only the work's grouping depends on it, never
    the result."""
    return max(1, min(CHUNKS_PER_TASK, -(-chunks // (4 * max(1, workers)))))


def run_moments(fn: TermFn, n: int, seed: SeedLike, *, workers: int = 1, chunk: int = DEFAULT_CHUNK,
                process_threshold: int = PROCESS_THRESHOLD, executor: Executor | None = None) -> Moments:
    """Evaluate ``fn`` on ``n`` samples in seeded chunks and return the summed `Moments`.

    Same ``seed`` → identical result for any ``workers`` and any executor (chunk ``i`` always uses child seed ``i``;
    every chunk is reduced to its own Moments where it runs and the sum is taken here, in chunk order).
    ``workers`` above the number of usable cores is clamped to it; ``n`` is capped at `MAX_SAMPLES`.
    ``executor`` (default: the current one, `dpcalc.sim.executor.use`) runs the chunks elsewhere — on a Dask
    cluster in tasks of `chunks_per_task` chunks, only their Moments coming back.
    """
    sizes = chunk_sizes(n, chunk)
    # more processes than usable cores only oversubscribe them (results do not depend on workers)
    workers = min(int(v.scalar("workers", v.integer_at_least("workers", workers, 1))), default_workers())
    children = as_seed_sequence(seed).spawn(len(sizes))
    ex = executor if executor is not None else current()
    chunks = list(zip(children, sizes, strict=True))
    if ex is not None and is_cluster(ex) and len(sizes) > 1:
        per = chunks_per_task(len(chunks), ex.workers)
        tasks = [(fn, chunks[i:i + per]) for i in range(0, len(chunks), per)]
        parts = [m for batch in ex.imap(_cluster_batch, tasks) for m in batch]
    elif ex is not None and n >= process_threshold and len(sizes) > 1:
        parts = [m for batch in ex.imap(_batch_moments, [(fn, [c]) for c in chunks]) for m in batch]
    elif workers <= 1 or n < process_threshold or len(sizes) == 1:
        parts = [_chunk_moments(fn, s, k) for s, k in chunks]
    else:
        with open_executor(workers=min(workers, len(sizes))) as pool:
            parts = [m for batch in pool.imap(_batch_moments, [(fn, [c]) for c in chunks]) for m in batch]
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total
