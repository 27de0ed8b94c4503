"""Counted PLD work against wall time: the seconds a work budget books (`pld.passes.OP_SECONDS` per counted
operation) beside the seconds the call took, for CUAG audit schedules and plain homogeneous ones.

Run: ``python bench/bench_pld_work.py`` (state the load, ``uptime``, beside the numbers). A ratio booked/actual
≥ 1 everywhere means a budget of one minute is never overrun by the counted parts."""

from __future__ import annotations

import time
import warnings

from dpcalc import _limits
from dpcalc.accounting import pld
from dpcalc.errors import DomainError

CASES = {
    "audit T=3 P=10 rho=4e-5": ("cuag", 0.25, 0.1, 1, 5000, 3, 10),
    "audit T=10 P=25 rho=0.04": ("cuag", 0.25, 0.1, 10, 500, 10, 25),
    "audit T=30 P=25 rho=0.04": ("cuag", 0.25, 0.1, 10, 500, 30, 25),
    "homogeneous sigma=1 q=0.01 T=1000": ("plain", 1.0, 0.01, 1000),
    "homogeneous sigma=0.8 q=0.1 T=100": ("plain", 0.8, 0.1, 100),
    "two steps sigma=1.5 q=3e-4 delta=1e-20": ("plain2", 1.5, 3e-4, 2),
}


def schedule(case: tuple) -> tuple[list[tuple[float, float, int]], float]:
    if case[0] == "cuag":
        from dpcalc import cuag

        _, mu, lam, b, d, t, p = case
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sig = cuag.sigma_schedule(mu, lam, b, d, t, p)
            rho = float(cuag.sampling_rate(lam, b, d))
        return [(float(s), rho, p) for s in sig], 1e-5
    if case[0] == "plain2":
        return [(case[1], case[2], case[3])], 1e-20
    return [(case[1], case[2], case[3])], 1e-5


def main() -> None:
    pld.epsilon([(1.0, 0.01, 2)], 1e-5)  # imports and caches first: they are not the counted work
    pld.epsilon([(1.0, 0.01, 3)], 1e-5)
    for name, case in CASES.items():
        sched, delta = schedule(case)
        budget = 1e9
        with _limits.work_budget("bench", budget):
            left = _limits._budget.get()
            t0 = time.perf_counter()
            try:
                pld.epsilon(sched, delta)
                outcome = "ok"
            except DomainError as exc:
                outcome = f"refused ({str(exc)[:40]}…)"
            wall = time.perf_counter() - t0
            booked = budget - left[0] if left else float("nan")
        print(f"{name:42s} booked {booked:8.3f} s  actual {wall:8.3f} s  ratio {booked / wall:6.2f}  {outcome}")


if __name__ == "__main__":
    main()
