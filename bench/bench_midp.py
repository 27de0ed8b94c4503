"""Throughput of the ε-MI-DP σ of He & He 2023: 10^7 (ε, d) pairs vs one np.expm1 over an array of the same size
(target <= 3x). Run: python bench/bench_midp.py
"""

from __future__ import annotations

import numpy as np
from _timing import best_of

from dpcalc import midp


def main() -> None:
    n = 10**7
    rng = np.random.default_rng(0)
    eps = rng.uniform(0.1, 20, n)
    d = np.floor(rng.uniform(1, 1e6, n))
    x = 2 * eps / d
    t_ref = best_of(lambda: np.expm1(x))
    t_sigma = best_of(lambda: midp.server_sigma(eps, d))
    t_equal = best_of(lambda: midp.server_sigma_equal(eps, d, C=1.0, N=10))
    print(f"np.expm1 over 1e7            : {t_ref * 1e3:8.1f} ms")
    print(f"midp.server_sigma over 1e7   : {t_sigma * 1e3:8.1f} ms  ratio {t_sigma / t_ref:.2f} (target <= 3)")
    print(f"midp.server_sigma_equal 1e7  : {t_equal * 1e3:8.1f} ms  ratio {t_equal / t_ref:.2f}")


if __name__ == "__main__":
    main()
