"""Benchmark: matrix-mechanism sensitivities (dpcalc.matrix) at federated sizes.

Run: python bench/bench_matrix.py   (not collected by pytest). Prints best-of-3 wall times of the exact tree dynamic
program (one tree, 2,000 steps, k = 200 at b = 10; k = 20 at b = 100; every step), the restart closed form, the
banded program, the Alg. 4 upper bound on a dense 2,000-step matrix, and the DP-FTRL/DP-SGD comparison by epoch.
"""

from __future__ import annotations

import numpy as np
from _timing import best_of

from dpcalc import matrix
from dpcalc.matrix.training import dpsgd_epsilon_for_epochs, ftrl_epsilon_for_epochs


def main() -> None:
    for k, b in [(200, 10), (20, 100), (2000, 1)]:
        part = matrix.Participation(2000, k, b)
        t = best_of(lambda part=part: matrix.Strategy("tree", 2000).sensitivity(part), repeat=3)
        print(f"tree, n = 2000, k = {k}, b = {b}: {t:.2f} s")
    part = matrix.from_training(1000, 100, 2000)
    restart = best_of(lambda: matrix.Strategy("tree", 2000, 10).sensitivity(part))
    print(f"tree restarted every 10: {restart * 1e3:.2f} ms")
    banded = best_of(lambda: matrix.Strategy("banded", 2000, bands=10).sensitivity(part))
    print(f"banded, 10 bands: {banded * 1e3:.2f} ms")
    dense = np.tril(np.random.default_rng(0).uniform(0, 1, (2000, 2000)))
    print(f"Alg. 4 bound, dense 2000 × 2000: {best_of(lambda: matrix.min_sep(dense, part), repeat=3):.2f} s")
    epochs = [1, 2, 5, 10, 20, 50, 100, 200]
    print(f"DP-FTRL restart over 8 epoch counts: "
          f"{best_of(lambda: ftrl_epsilon_for_epochs(epochs, 1000, 100, 3.0, 1e-5), repeat=3):.2f} s")
    print(f"DP-SGD over 8 epoch counts: "
          f"{best_of(lambda: dpsgd_epsilon_for_epochs(epochs, 1000, 100, 3.0, 1e-5), repeat=3):.2f} s")


if __name__ == "__main__":
    main()
