"""Benchmark: μ-GDP conversions (run on demand: ``python bench/bench_gdp.py``; not collected by pytest).

ε(μ, δ) for 10^5 values of μ (target <= 0.5 s), δ(ε; μ) and μ(ε, δ) for 10^5 values, side by side with
dp-accounting's analytic Gaussian ε(σ, δ) (the same function with μ = 1/σ; scalar API, timed on 1000 values and
scaled), plus the largest disagreement between the two on those values.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from _timing import best_of

from dpcalc.accounting import gdp


def main() -> None:
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(2026)
    n = 100_000
    mu = np.exp(rng.uniform(np.log(0.01), np.log(20.0), n))
    gdp.eps_from_mu(0.5, 1e-5)  # warm-up: SciPy import
    t_eps = best_of(lambda: gdp.eps_from_mu(mu, 1e-5))
    eps = np.asarray(gdp.eps_from_mu(mu, 1e-5))
    t_delta = best_of(lambda: gdp.delta(mu, eps))
    t_mu = best_of(lambda: gdp.mu_from_eps(eps, 1e-5), repeat=3)
    back = np.asarray(gdp.mu_from_eps(eps, 1e-5))
    print(f"dpcalc eps_from_mu   n={n}: {t_eps:.3f} s  ({t_eps / n * 1e6:.2f} us/value)  target <= 0.5 s")
    print(f"dpcalc delta_from_eps n={n}: {t_delta:.3f} s")
    print(f"dpcalc mu_from_eps   n={n}: {t_mu:.3f} s  max |mu(eps(mu))/mu - 1| = {np.max(np.abs(back / mu - 1)):.2e}")
    try:
        from dp_accounting import gaussian_mechanism as gm
    except ImportError:  # pragma: no cover
        print("dp-accounting not installed: no side-by-side figures")
        return
    m = 1000
    sub = mu[:m]
    t0 = time.perf_counter()
    ref = np.array([gm.get_epsilon_gaussian(1.0 / x, 1e-5) for x in sub])
    t_dpa = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref_tight = np.array([gm.get_epsilon_gaussian(1.0 / x, 1e-5, tol=1e-15) for x in sub[:200]])
    t_dpa_tight = time.perf_counter() - t0
    ours = np.asarray(gdp.eps_from_mu(sub, 1e-5))
    print(f"dp-accounting get_epsilon_gaussian (default tol) m={m}: {t_dpa:.3f} s "
          f"({t_dpa / m * 1e6:.0f} us/value; x{n // m} = {t_dpa * n / m:.1f} s for n={n})")
    print(f"dp-accounting get_epsilon_gaussian (tol=1e-15) m=200: {t_dpa_tight:.3f} s "
          f"({t_dpa_tight / 200 * 1e6:.0f} us/value)")
    print(f"max rel diff vs dp-accounting (default tol): {np.max(np.abs(ours / ref - 1)):.2e}; "
          f"(tol=1e-15): {np.max(np.abs(ours[:200] / ref_tight - 1)):.2e}")
    print(f"speed-up per value vs dp-accounting default: {(t_dpa / m) / (t_eps / n):.0f}x")


if __name__ == "__main__":
    main()
