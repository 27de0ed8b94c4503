"""Timings of the accounting kernels changed when each quantity got one definition on one safe-side root finder
(and by the precision fixes the domain sweeps asked for).

Run: ``python bench/bench_accounting_kernels.py`` (any checkout on PYTHONPATH; the same script times an older
checkout for a before/after comparison). 2,000 seeded points per vectorised function; best of 3.
"""

from __future__ import annotations

import warnings

import numpy as np
from _timing import best_of

from dpcalc.accounting import gaussian_mechanism as g
from dpcalc.accounting import gdp, rdp, schedule, zcdp

rng = np.random.default_rng(1)
N = 2000
sigma = np.exp(rng.uniform(np.log(0.1), np.log(100), N))
delta = np.exp(rng.uniform(np.log(1e-12), np.log(1e-2), N))
eps = np.exp(rng.uniform(np.log(0.01), np.log(20), N))
mu = 1.0 / sigma
rho = np.exp(rng.uniform(np.log(1e-6), np.log(10), 200))

CASES = {
    "gaussian.eps_analytic (2000 points)": lambda: g.eps_analytic(sigma, delta),
    "gaussian.sigma_analytic (2000 points)": lambda: g.sigma_analytic(eps, delta),
    "gaussian.log_delta (2000 points)": lambda: g.log_delta(sigma, eps),
    "gdp.eps_from_mu (2000 points)": lambda: gdp.eps_from_mu(mu, delta),
    "gdp.mu_from_eps (2000 points)": lambda: gdp.mu_from_eps(eps, delta),
    "zcdp.eps_from_rho (200 points)": lambda: zcdp.eps_from_rho(rho, 1e-5),
    "rdp.subsampled_gaussian_curve (156 default orders, q=0.01, σ=1)": lambda: rdp.subsampled_gaussian_curve(0.01, 1.0),
    "schedule.sigma_for_eps rdp (ε=2, δ=1e-5, q=0.01, T=1000)": lambda: schedule.sigma_for_eps(2.0, 1e-5, 0.01, 1000),
}

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for name, fn in CASES.items():
        print(f"{name}: {best_of(fn, 3) * 1e3:.1f} ms")
