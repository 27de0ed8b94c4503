"""Benchmark: the exact Gaussian engine (Cholesky/Schur) at n = 1000, 2000 vs a naive np.linalg.det evaluation.

Run: OPENBLAS_NUM_THREADS=1 python bench/bench_gauss.py   (not collected by pytest; on a shared, loaded 2-core
machine multithreaded BLAS contends and times grow several-fold). Prints time (best of 3) and the error against the
O(1) Case-2 closed forms (σ_m² = 2, σ_k² = 1.8, σ² = 0.3, bits).
"""

from __future__ import annotations

import math

import numpy as np
from _timing import best_of

from dpcalc import gaussian_mi as gauss


def naive(sx: np.ndarray, sz: np.ndarray) -> tuple[float, float]:
    """Leakage of client 1 and utility from raw determinants (the paper's route (10)/(15))."""
    n = sx.shape[0]
    with np.errstate(all="ignore"):
        m = sx.copy()
        m[0, 0] += sz[0, 0]
        leak = 0.5 * math.log2(np.linalg.det(m) / (np.linalg.det(sx[1:, 1:]) * sz[0, 0]))
        util = 0.5 / n * math.log2(np.linalg.det(sx + sz) / np.linalg.det(sz))
    return leak, util


def main() -> None:
    a, b, s = 2.0, 1.8, 0.3
    gauss.evaluate(np.eye(3) * 2, np.eye(3))  # warm-up (SciPy import)
    for n in (1000, 2000):
        sx = gauss.equicorrelated_matrix(n, a, b)
        for label, sz in (("diagonal Σ_Z", s * np.eye(n)), ("dense Σ_Z", gauss.equicorrelated_matrix(n, s, 0.05))):
            e = "0.05" if label.startswith("dense") else "0"
            ref_p = float(gauss.case3_privacy(s, float(e), a, b, n))
            ref_u = float(gauss.case3_utility(s, float(e), a, b, n))
            t_engine = best_of(lambda sx=sx, sz=sz: gauss.evaluate(sx, sz))
            r = gauss.evaluate(sx, sz)
            t_naive = best_of(lambda sx=sx, sz=sz: naive(sx, sz))
            try:
                p_naive, u_naive = naive(sx, sz)
            except (ValueError, ZeroDivisionError) as exc:
                p_naive = u_naive = float("nan")
                print(f"  naive failed: {exc}")
            print(f"n={n:5d} {label:13s} engine {t_engine:6.3f} s  rel.err privacy {abs(r.privacy / ref_p - 1):.1e} "
                  f"utility {abs(r.utility / ref_u - 1):.1e} | naive det {t_naive:6.3f} s  privacy {p_naive} "
                  f"utility {u_naive} (closed form {ref_p:.6f}, {ref_u:.6f})")


if __name__ == "__main__":
    main()
