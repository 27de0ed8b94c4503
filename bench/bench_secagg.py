"""Benchmark: Zhang et al. 2024 (secure aggregation) — Theorem 2 from a 1000 × 10,000 gradient matrix and the exact
Rényi divergence (eq. 22) at K = 2000.

Run: OPENBLAS_NUM_THREADS=1 python bench/bench_secagg.py   (not collected by pytest). Prints best-of-3 wall times:

* ``theorem2_from_gradients`` on one user's K × D = 1000 × 10,000 clipped gradients (G Gᵀ/D: 2·10¹⁰ flops, then a
  partial eigendecomposition for λ_min), the full eigenvalue list, and the CLI ``dpcalc secagg rdp --gradients``
  (reading the 80 MB .npy included);
* ``renyi_gaussian`` at K = 2000 for 1 order (Cholesky route) and 64 orders (one eigendecomposition), and the error
  against the co-diagonal closed form in a random rotated basis (the exact value);
* WF-NA from 3,000 eigenvalues (closed form) and from a dense 1000 × 1000 covariance (the eigendecomposition whose
  cost per K³ the work estimate charges).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _timing import best_of

from dpcalc import secagg


def cpu_seconds(fn: Callable[[], Any]) -> float:
    """CPU time of one call (this process, all threads): less sensitive to other load than wall time."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def gradients(k: int, d: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((k, d))
    g *= rng.uniform(0.5, 1.0, d) / np.linalg.norm(g, axis=0)  # clipped to C = 1
    return g


def bench_gradients() -> None:
    g = gradients(1000, 10_000)
    alphas = np.arange(2.0, 65.0)
    t_min = best_of(lambda: secagg.theorem2_from_gradients([g], alphas, 32, 1.0), repeat=3)
    t_all = best_of(lambda: secagg.eigenvalues(g, normalization="sec4"), repeat=3)
    res = secagg.theorem2_from_gradients([g], alphas, 32, 1.0)
    cpu = cpu_seconds(lambda: secagg.theorem2_from_gradients([g], alphas, 32, 1.0))
    print(f"theorem2_from_gradients, K × D = 1000 × 10,000: {t_min:.3f} s wall, {cpu:.3f} s CPU "
          f"(λ_min = {res.eig_min_sum_sec4:.6g}, α_max = {res.alpha_max:.4g})")
    print(f"all 1000 eigenvalues of G Gᵀ/D: {t_all:.3f} s")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.npy"
        np.save(path, g)
        cmd = [sys.executable, "-m", "dpcalc.cli.main", "secagg", "rdp", "--gradients", str(path), "--B", "32",
               "--C", "1", "--alpha", "2:64:1", "--delta", "1e-5", "-f", "csv"]
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        print(f"CLI dpcalc secagg rdp --gradients (80 MB .npy, 63 orders): {min(times):.3f} s")


def bench_divergence(k: int = 2000) -> None:
    rng = np.random.default_rng(1)
    q, _ = np.linalg.qr(rng.standard_normal((k, k)))
    l1 = rng.uniform(0.5, 2.0, k)
    l2 = l1 * rng.uniform(0.9, 1.1, k)
    dmu = 0.01 * rng.standard_normal(k)
    s1, s2, mu1 = (q * l1) @ q.T, (q * l2) @ q.T, q @ dmu
    zero = np.zeros(k)
    for alphas in (np.array([3.0]), np.arange(2.0, 66.0)):
        t = best_of(lambda a=alphas: secagg.renyi_gaussian(mu1, s1, zero, s2, a), repeat=3)
        cpu = cpu_seconds(lambda a=alphas: secagg.renyi_gaussian(mu1, s1, zero, s2, a))
        got = np.atleast_1d(secagg.renyi_gaussian(mu1, s1, zero, s2, alphas).value)
        want = np.atleast_1d(secagg.renyi_gaussian_codiagonal(dmu, l1, l2, alphas).value)
        fin = np.isfinite(want)
        err = float(np.max(np.abs(got[fin] - want[fin]) / np.abs(want[fin])))
        print(f"renyi_gaussian K = {k}, {alphas.size} order(s): {t:.3f} s wall, {cpu:.3f} s CPU, max relative error "
              f"{err:.2e} "
              f"(D_3 = {float(want[0] if alphas.size == 1 else want[1]):.6g})")


def bench_waterfill(k: int = 3000) -> None:
    """WF-NA from K eigenvalues (closed form, no eigendecomposition) and from a dense K' × K' covariance (eigh)."""
    from dpcalc.secagg import analysis

    lam = np.random.default_rng(0).uniform(0, 1, k)
    t = best_of(lambda: analysis.water_filling_from(0.1, eigenvalues=lam, normalization="sec5"), repeat=3)
    cpu = cpu_seconds(lambda: analysis.water_filling_from(0.1, eigenvalues=lam, normalization="sec5"))
    print(f"water_filling_from, {k:,} eigenvalues: {t:.3f} s wall, {cpu:.3f} s CPU")
    a = gradients(1000, 2000)
    cov = a @ a.T / 2000
    cpu = cpu_seconds(lambda: secagg.water_filling(cov, 1e-4, normalization="sec5"))
    print(f"water_filling, dense 1000 × 1000: {cpu:.3f} s CPU ({cpu * 1e9 / 1000**3:.3g} ns × K³; the work estimate "
          "charges 3 ns × K³)")


if __name__ == "__main__":
    bench_gradients()
    bench_divergence()
    bench_waterfill()
