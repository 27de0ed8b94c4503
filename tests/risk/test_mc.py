"""Monte Carlo: simulated membership attacks on the (Poisson-subsampled) Gaussian mechanism land inside the
certified band. The Neyman–Pearson attack (likelihood ratio of "in" against "out" summed over the steps) is optimal
for the membership orientation, so its empirical (FPR, TPR) point must lie on the curve: TPR within the band at the
empirical FPR's confidence interval, up to the binomial error (z = 4, seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcalc.audit.binomial import cp_lower, cp_upper
from dpcalc.risk import dpsgd_curve

Z = 4.0


def _log_lr(x: np.ndarray, sigma: float, q: float) -> np.ndarray:
    """Per-step log-likelihood ratio of (1 − q)N(0, σ²) + qN(1, σ²) against N(0, σ²)."""
    return np.log1p(q * np.expm1((2.0 * x - 1.0) / (2.0 * sigma * sigma)))


def _simulate(sigma: float, q: float, steps: int, n: int, rng: np.random.Generator, member: bool) -> np.ndarray:
    total = np.zeros(n)
    for _ in range(steps):
        shift = (rng.random(n) < q).astype(np.float64) if member else 0.0
        total += _log_lr(rng.normal(shift, sigma, n), sigma, q)
    return total


@pytest.mark.parametrize(("sigma", "q", "steps", "fpr"), [(1.0, 0.1, 20, 0.01), (0.8, 0.05, 50, 0.05),
                                                          (2.0, 1.0, 4, 0.1)])
def test_neyman_pearson_attack_lies_in_the_band(sigma: float, q: float, steps: int, fpr: float) -> None:
    rng = np.random.default_rng(20240501)
    n = 100_000
    null = _simulate(sigma, q, steps, n, rng, member=False)
    thr = float(np.quantile(null, 1.0 - fpr))
    out_scores = _simulate(sigma, q, steps, n, rng, member=False)  # fresh: the threshold is not fitted to them
    in_scores = _simulate(sigma, q, steps, n, rng, member=True)
    fp, tp = int(np.sum(out_scores > thr)), int(np.sum(in_scores > thr))
    f_lo, f_hi = float(cp_lower(fp, n, 0.9999)), float(cp_upper(fp, n, 0.9999))
    t_hat = tp / n
    se = math.sqrt(t_hat * (1 - t_hat) / n)
    curve = dpsgd_curve(sigma, q, steps)
    lo_at_flo = curve.tpr(np.array([f_lo]), "membership")[0][0]
    up_at_fhi = curve.tpr(np.array([f_hi]), "membership")[1][0]
    assert lo_at_flo - Z * se <= t_hat <= up_at_fhi + Z * se


def test_a_weaker_attack_stays_below_the_bound() -> None:
    """The 'sum of outputs' attack (not optimal under subsampling) is below the curve at every threshold."""
    rng = np.random.default_rng(7)
    sigma, q, steps, n = 1.0, 0.2, 10, 50_000
    out_s = sum(rng.normal(0.0, sigma, n) for _ in range(steps))
    in_s = sum(rng.normal((rng.random(n) < q).astype(float), sigma, n) for _ in range(steps))
    curve = dpsgd_curve(sigma, q, steps)
    for thr in np.quantile(out_s, [0.5, 0.9, 0.99]):
        fp, tp = int(np.sum(out_s > thr)), int(np.sum(in_s > thr))
        f_hi = float(cp_upper(fp, n, 0.9999))
        t_lo = float(cp_lower(tp, n, 0.9999))
        assert t_lo <= curve.tpr(np.array([f_hi]))[1][0]
