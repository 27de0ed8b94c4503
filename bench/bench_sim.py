"""Benchmarks of the simulation core and `dpcalc verify` (run on demand: ``python bench/bench_sim.py``).

Prints:
* Gaussian samples per second per core drawn and consumed by the MI estimator ``gaussian_channel_mi`` (2 Gaussians
  per sample), in-process (1 core), median of 5 runs of 10^7 samples; target >= 2e7/s/core;
* the same with ``--workers`` processes (aggregate rate and per-core rate), showing the results are identical;
* wall time of ``dpcalc verify --all`` at default settings (default workers = cores), median of 3; target <= 60 s
  on 2 cores.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time


def mi_rate(samples: int, workers: int, reps: int = 5) -> tuple[float, float]:
    from dpcalc.sim import gaussian_channel_mi

    times, values = [], set()
    for _ in range(reps):
        t0 = time.perf_counter()
        e = gaussian_channel_mi(0.01, 1.0, samples, 1, workers=workers)
        times.append(time.perf_counter() - t0)
        values.add(e.value)
    assert len(values) == 1
    return 2 * samples / statistics.median(times), values.pop()


def main() -> None:
    from dpcalc.sim.parallel import default_workers

    cores = default_workers()
    print(f"cores available: {cores}; load average: {os.getloadavg()}")
    rate1, _ = mi_rate(10_000_000, 1)
    print(f"MI estimator, 1 process : {rate1:.3g} Gaussian samples/s/core (target >= 2e7)")
    if cores > 1:
        rate_w, vw = mi_rate(40_000_000, cores, reps=3)
        print(f"MI estimator, {cores} processes: {rate_w:.3g} Gaussian samples/s total = {rate_w / cores:.3g}/s/core")
        v1b = mi_rate(40_000_000, 1, reps=1)[1]
        print(f"same seed, 1 vs {cores} workers: identical = {v1b == vw}")
    walls = []
    for _ in range(3):
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "dpcalc.cli.main", "verify", "--all", "--json"],
                             capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
    print(f"dpcalc verify --all (default samples 400000, workers {cores}): "
          f"median wall {statistics.median(walls):.2f} s "
          f"(runs: {', '.join(f'{w:.2f}' for w in walls)}; exit code {res.returncode})")
    import json

    summary = json.loads(res.stdout).get("summary", {}) if res.stdout else {}
    print(f"verify --all summary: {summary}")


if __name__ == "__main__":
    main()
