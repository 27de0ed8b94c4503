"""Benchmark: the distributed discrete Gaussian and Skellam accounting (dpcalc.distributed) in the worked example
(1,000 clients, 100 per round, 2,000 rounds, d = 65,536, clip 1, δ = 1e-5).

Run: python bench/bench_distributed.py   (not collected by pytest). Prints best-of-3 wall times of: one ε (the RDP
curve on dp-accounting's 163 orders, Poisson-amplified at the integer orders, converted); σ for ε = 8 at a fixed γ;
σ and γ for ε = 8 at 16 bits (nested searches); the exact divergence of a 100-client discrete Gaussian sum.
"""

from __future__ import annotations

from _timing import best_of

from dpcalc import distributed as dd
from dpcalc.distributed.exact import rdp_exact


def main() -> None:
    terms = dd.training_terms(1000, 100, 2000)
    p = dd.Pipeline("ddg", c=1.0, sigma=0.55, gamma=6.8e-4, d=65536, **terms)
    print(f"epsilon (one call): {best_of(lambda: dd.epsilon(p, 1e-5), repeat=3) * 1e3:.1f} ms")
    print(f"calibrate_sigma (eps 8): {best_of(lambda: dd.calibrate_sigma(p, 8.0, 1e-5), repeat=3):.2f} s")
    print(f"calibrate_for_bits (eps 8, 16 bits, k = 4): "
          f"{best_of(lambda: dd.calibrate_for_bits(p, 8.0, 1e-5, 16), repeat=3):.2f} s")
    print(f"calibrate_for_bits (eps 8, 16 bits, failure 1e-6): "
          f"{best_of(lambda: dd.calibrate_for_bits(p, 8.0, 1e-5, 16, failure=1e-6), repeat=3):.2f} s")
    print(f"rdp_exact (n = 100, sigma = 2, shift 10, alpha 8): "
          f"{best_of(lambda: rdp_exact(8.0, [10], 'ddg', sigma=2.0, n=100), repeat=3):.2f} s")


if __name__ == "__main__":
    main()
