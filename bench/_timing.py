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


def median_of(fn: Callable[[], Any], repeat: int = 15) -> tuple[float, Any]:
    """Median wall time of ``repeat`` calls after one warm-up call, and the last result."""
    fn()
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out
