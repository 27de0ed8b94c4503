"""Benchmark: the samplers family (run on demand: ``python bench/bench_samplers.py``; not collected by pytest).

For the MNIST-like run (n = 60,000, b = 256, z = 1.1, t = 234, δ = 1e-5): building the random-allocation PLD of one
round (two one-sided log-normal sum laws on a grid of 2e-3, FFT binary powering) at grid 2e-3 and 1e-3, composing it
over 1/10/60 epochs, the exact remove-direction RDP at 21 orders, and the shuffle lower bound (binned max statistic)
over 1/10/60 epochs. Each build is timed once (the pairs are cached), the rest best of 3.
"""

from __future__ import annotations

import time

from _timing import best_of

from dpcalc.accounting.pld import epsilon_composed
from dpcalc.accounting.samplers import allocation_pld, allocation_rdp, shuffle
from dpcalc.samplers.allocation import ORDERS


def main() -> None:
    z, t, d = 1.1, 234, 1e-5
    for grid in (2e-3, 1e-3):
        t0 = time.perf_counter()
        loss = allocation_pld.privacy_loss(z, t, grid=grid)
        build = time.perf_counter() - t0
        print(f"allocation PLD build, grid {grid:g}: {build:.1f} s ({len(loss.remove.p)} + {len(loss.add.p)} atoms)")
        for epochs in (1, 10, 60):
            el = best_of(lambda e=epochs, ls=loss: epsilon_composed([(ls, e)], d), repeat=3)
            eps = epsilon_composed([(loss, epochs)], d).eps_upper
            print(f"  compose {epochs:>2} epochs: {el:.2f} s  eps_upper = {eps:.4f}")
    tr = best_of(lambda: allocation_rdp.rdp_remove(ORDERS, z, t), repeat=3)
    print(f"exact remove RDP at {ORDERS.size} orders (max 256): {tr * 1e3:.1f} ms")
    for epochs in (1, 10, 60):
        shuffle._pair.cache_clear()
        ts = best_of(lambda e=epochs: shuffle.epsilon_lower(z, 60000, 256, e, d), repeat=3)
        print(f"shuffle lower bound, {epochs:>2} epochs: {ts:.2f} s  "
              f"eps_lower = {shuffle.epsilon_lower(z, 60000, 256, epochs, d).eps_lower:.4f}")


if __name__ == "__main__":
    main()
