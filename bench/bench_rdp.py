"""Benchmark: RDP of the Poisson-subsampled Gaussian, 1000 steps → ε, dpcalc vs dp-accounting on the same inputs.

Run on demand: ``python bench/bench_rdp.py``. Prints the median wall time of repeated runs (after one warm-up that
pays the lazy SciPy import) for the default order grid (dp-accounting's, 156 orders: 99 fractional) and Opacus's
grid, plus the analytic Gaussian ε/σ and the RDP calibration. Target: RDP ε <= 50 ms and no slower than
dp-accounting.
"""

from __future__ import annotations

import warnings
from typing import Any

from _timing import median_of

from dpcalc.accounting import gaussian_mechanism as gaussian
from dpcalc.accounting import rdp, schedule


def main() -> None:
    import logging

    logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting logs each order its series fails on
    try:
        import dp_accounting
        from dp_accounting import gaussian_mechanism as gm
        from dp_accounting.rdp import rdp_privacy_accountant as ra
    except ImportError:  # pragma: no cover
        dp_accounting = None
    cases = [(0.01, 1.0, 1000, 1e-5), (0.04, 1.5, 1000, 1e-5), (256 / 60000, 1.1, 1000, 1e-5), (0.5, 0.5, 1000, 1e-5)]
    print("RDP of the Poisson-subsampled Gaussian, 1000 steps -> eps (median of 15 runs)")
    print(f"{'q':>9} {'sigma':>6} {'grid':>8} {'dpcalc eps':>20} {'ms':>7} {'dp-accounting eps':>20} {'ms':>7}")
    for q, sigma, steps, delta in cases:
        for name, grid in (("default", rdp.DEFAULT_ORDERS), ("opacus", rdp.OPACUS_ORDERS)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_ours, (eps, _) = median_of(lambda q=q, s=sigma, g=grid, t=steps, d=delta: rdp.eps_subsampled_gaussian(
                    q, s, t, d, orders=g))
            line = f"{q:9.5g} {sigma:6g} {name:>8} {eps:20.15g} {1e3 * t_ours:7.2f}"
            if dp_accounting is not None:
                def theirs(q: float = q, s: float = sigma, g: Any = grid, t: int = steps, d: float = delta) -> float:
                    acc = ra.RdpAccountant(orders=list(g))
                    acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), t)
                    return float(acc.get_epsilon(d))

                t_theirs, eps_t = median_of(theirs)
                line += f" {eps_t:20.15g} {1e3 * t_theirs:7.2f}"
            print(line)
    t, e = median_of(lambda: gaussian.eps_analytic(1.0, 1e-5))
    print(f"analytic Gaussian eps(sigma=1, delta=1e-5) = {e!r}: {1e3 * t:.3f} ms", end="")
    if dp_accounting is not None:
        t2, _ = median_of(lambda: gm.get_epsilon_gaussian(1.0, 1e-5, tol=1e-15))
        print(f" (dp-accounting {1e3 * t2:.3f} ms)", end="")
    print()
    t, s = median_of(lambda: gaussian.sigma_analytic(1.0, 1e-5))
    print(f"analytic Gaussian sigma(eps=1, delta=1e-5) = {s!r}: {1e3 * t:.3f} ms", end="")
    if dp_accounting is not None:
        t2, _ = median_of(lambda: gm.get_sigma_gaussian(1.0, 1e-5, tol=1e-15))
        print(f" (dp-accounting {1e3 * t2:.3f} ms)", end="")
    print()
    t, s = median_of(lambda: schedule.sigma_for_eps(2.0, 1e-5, 0.01, 1000), repeat=5)
    print(f"calibrate rdp (eps=2, delta=1e-5, q=0.01, T=1000) sigma = {s!r}: {1e3 * t:.1f} ms (rtol 1e-9)")


if __name__ == "__main__":
    main()
