"""Probe of the PLD bracket at tiny δ with three or more steps: seeded random (σ, q, T, δ), each converged (width ≤
rtol·ε_upper + atol) or refused in one line; prints the counts, the refused points and the time.

Run: ``python bench/probe_pld_tiny_delta.py [N] [SEED]`` (default 150 points, seed 24)."""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from dpcalc.accounting import pld
from dpcalc.errors import DomainError


def points(n: int, seed: int) -> list[tuple[float, float, int, float]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        sigma = float(math.exp(rng.uniform(math.log(0.3), math.log(60.0))))
        q = float(math.exp(rng.uniform(math.log(1e-5), math.log(1.0))))
        steps = int(math.exp(rng.uniform(math.log(3), math.log(3000))))
        delta = float(math.exp(rng.uniform(math.log(1e-30), math.log(1e-16))))
        out.append((sigma, q, steps, delta))
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 24
    conv = refused = 0
    t0 = time.perf_counter()
    for sigma, q, steps, delta in points(n, seed):
        t1 = time.perf_counter()
        try:
            br = pld.epsilon_subsampled_gaussian(sigma, q, steps, delta)
            assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL
            conv += 1
        except DomainError as exc:
            refused += 1
            print(f"refused sigma={sigma!r} q={q!r} steps={steps} delta={delta!r} ({time.perf_counter() - t1:.1f} s):"
                  f" {str(exc)[:160]}", flush=True)
    print(f"{n} points: {conv} converged, {refused} refused, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
