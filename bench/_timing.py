"""Timing helpers shared by the benchmarks (run as ``python bench/bench_x.py``, so this imports as ``_timing``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def best_of(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Smallest wall time of ``repeat`` calls (the least disturbed by other load), in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def best_per_call(fn: Callable[[], Any], repeat: int = 5, budget: float = 0.05) -> float:
    """Smallest per-call wall time over ``repeat`` batches, each of as many calls as take about ``budget`` seconds
    (a call longer than that is timed alone), in seconds: a call of 0.1 ms timed alone measures the timer and the
    caches that the previous work left cold as much as the call itself."""
    t0 = time.perf_counter()
    fn()
    k = max(1, int(budget / max(time.perf_counter() - t0, 1e-9)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        best = min(best, (time.perf_counter() - t0) / k)
    return best


def median_of(fn: Callable[[], Any], repeat: int = 15) -> tuple[float, Any]:
    """Median wall time of ``repeat`` calls after one warm-up call, and the last result."""
    fn()
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out
