"""Benchmark: operational risk and audits (run on demand: ``python bench/bench_risk.py``; not collected by pytest).

The MNIST-like DP-SGD run (q = 256/60000, T = 14,063, z = 1.1): the certified trade-off band at three FPRs (one
PLD composition per orientation, then the duality on a 2049-point grid), a 200-point curve for a figure, the
calibration of z to TPR <= 0.1 at FPR 0.01; riskcal's β for the same run side by side when it is installed; the
audits (counts, a 10^5-trial scores file by the split method, one-run with m = 10^4).
"""

from __future__ import annotations

import numpy as np
from _timing import best_of, median_of

from dpcalc.audit import audit_counts, audit_scores, one_run_audit
from dpcalc.risk import dpsgd_curve, noise_for_risk

Q, T, Z = 256 / 60000, 14063, 1.1


def main() -> None:
    fprs = np.array([1e-3, 1e-2, 0.1])
    t_band, (lo, up) = median_of(lambda: dpsgd_curve(Z, Q, T).tpr(fprs), repeat=3)
    print(f"band at 3 FPRs (new curve each time): {t_band:.2f} s; TPR in {np.round(lo, 6)} .. {np.round(up, 6)}")
    curve = dpsgd_curve(Z, Q, T)
    curve.tpr(fprs)
    grid = np.geomspace(1e-6, 1.0, 200)
    t_curve = best_of(lambda: curve.tpr(grid), repeat=3)
    print(f"200-point curve on a built profile: {t_curve * 1e3:.0f} ms")
    t_cal, cal = median_of(lambda: noise_for_risk(Q, T, max_tpr=0.1, at_fpr=0.01), repeat=1)
    print(f"calibration to TPR <= 0.1 at FPR 0.01: z = {cal.value:.5f} in {t_cal:.1f} s ({cal.evaluations} curves)")
    try:
        from riskcal.calibration.dpsgd import get_beta_for_dpsgd
    except ImportError:  # pragma: no cover
        print("riskcal not installed: no side-by-side figures")
    else:
        t_rc, beta = median_of(lambda: get_beta_for_dpsgd(alpha=fprs, noise_multiplier=Z, sample_rate=Q,
                                                          num_steps=T, grid_step=1e-3), repeat=1)
        print(f"riskcal get_beta_for_dpsgd (grid 1e-3): {t_rc:.2f} s; TPR {np.round(1 - beta, 6)}")
    rng = np.random.default_rng(0)
    labels = np.repeat([1, 0], 50_000)
    scores = rng.normal(labels * 1.0, 1.0)
    print(f"audit counts: {best_of(lambda: audit_counts(35, 1000, 10, 1000, delta=1e-5)) * 1e3:.1f} ms")
    print(f"audit scores (10^5 trials, split): {best_of(lambda: audit_scores(scores, labels, delta=1e-5)):.2f} s")
    print(f"audit one-run (m = 10^4, 1000 guesses): "
          f"{best_of(lambda: one_run_audit(10_000, 1000, 800, delta=1e-5), repeat=2):.2f} s")


if __name__ == "__main__":
    main()
