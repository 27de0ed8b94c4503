"""Refit the time model of the NbAFL simulation (`dpcalc.nbafl.simulate.SimulationConfig.seconds`).

Times ``simulate(config, workers=1)`` (CPU seconds of this process, best of 2) on a grid of settings that each
stress one term of the model, fits the terms' costs by non-negative least squares on relative errors, and prints
the fit, the model's ratio to every measurement at the safety factor, and the constants to paste.

Run on an idle machine: ``python bench/fit_nbafl_simulate.py`` (about a minute).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy.optimize import nnls

from dpcalc.nbafl.simulate import SimulationConfig, simulate, time_terms

GRID = [
    dict(eps=(1.0, 20.0), t_max=12, N=20, repeats=100),
    dict(eps=(1.0, 20.0), t_max=12, N=20, m=10, d=2, repeats=100),
    dict(eps=(1.0,), t_max=6, N=200, m=100, d=10, repeats=20),
    dict(eps=(1.0,), t_max=6, N=20, K=10, m=100, d=10, repeats=100),
    dict(eps=(1.0,), t_max=30, N=10, m=1000, d=100, repeats=4),
    dict(eps=(1.0,), t_max=8, N=50, m=100, d=10, local_steps=20, repeats=10),
    dict(eps=(1.0,), t_max=40, N=5, m=5, d=2, local_steps=1, repeats=40),
    dict(eps=(1.0, 2.0, 5.0), t_max=20, N=10, m=50, d=5, repeats=20),
    dict(eps=(1.0,), t_max=5, N=1000, m=10, d=10, repeats=3),
    dict(eps=(1.0,), t_max=5, N=100, K=20, m=200, d=50, repeats=10),
    dict(eps=(1.0,), t_max=10, N=20, m=1, d=1000, repeats=10),
    dict(eps=(1.0,), t_max=6, N=10, m=1000, d=1000, local_steps=2, repeats=1),
    dict(eps=(2.0, 5.0, 20.0), t_max=30, N=50, m=100, d=10, repeats=4),  # the default run
    dict(eps=(1.0,), t_max=100, N=3, m=3, d=1, local_steps=1, repeats=10),
    dict(eps=(1.0, 20.0), t_max=12, N=20, repeats=400),
]
SAFETY = 2.5


def cpu(cfg: SimulationConfig) -> float:
    best = float("inf")
    for _ in range(2):
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            simulate(cfg, workers=1)
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    cfgs = [SimulationConfig(**kw).validated() for kw in GRID]  # type: ignore[arg-type]
    names = list(time_terms(cfgs[0]))
    rows, secs = [], []
    for cfg, kw in zip(cfgs, GRID, strict=True):
        s = cpu(cfg)
        rows.append(list(time_terms(cfg).values()))
        secs.append(s)
        print(f"{s:7.2f} s  {kw}", flush=True)
    a, b = np.array(rows), np.array(secs)
    coef, _ = nnls(a / b[:, None], np.ones_like(b))  # relative errors: every run weighs alike
    print("\nterm costs (seconds per unit):")
    for n, c in zip(names, coef, strict=True):
        print(f"  {n:28s} {c:.3g}")
    fit = a @ coef
    ratio = SAFETY * fit / b
    print(f"\nmodel × {SAFETY} / measured: min {ratio.min():.2f}, max {ratio.max():.2f}")
    print("model / measured per run:", " ".join(f"{r:.2f}" for r in fit / b))


if __name__ == "__main__":
    main()
