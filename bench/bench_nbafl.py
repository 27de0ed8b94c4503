"""NbAFL (Wei et al. 2020) timings and the "what a tight accountant saves" table.

1. CLI latency: median wall time of ``dpcalc nbafl optimal-t`` (the documented example, T = 1 … 1000 scanned for three
   ε) against ``dpcalc sigma --eps 5 --d 1000``, measured alternately (both as ``python -m dpcalc.cli.main``).
2. Library: ``optimal_t`` (one ε), ``optimal_k`` (one ε), ``compare_accountants`` (L = 25, all accountants).
3. The default ``dpcalc nbafl simulate`` run (``simulate(SimulationConfig())``) with 1 and 2 workers, and a check
   that both give identical numbers.
4. The noise a tight accountant saves at the paper's Table-1 settings (N = 50, T = 25, δ = 0.01, c = 1.25·√(2 ln 125),
   m = 100, C = 20) for L = 1 and L = T = 25.

Run: python bench/bench_nbafl.py [--repeats 15] [--skip-sim]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import warnings

from _timing import best_of, median_of
from bench_cli import _time

EXAMPLE = ["nbafl", "optimal-t", "--eps", "6,10,50", "--n", "50", "--data-size", "100", "--C", "20",
           "--delta", "0.01", "--c-scale", "1.25", "--pl", "0.1", "--lipschitz", "1", "--smoothness", "0.2",
           "--dissimilarity", "1", "--prox-mu", "1", "--theta", "2.3"]
SET1 = dict(pl=0.1, lipschitz=1, smoothness=0.2, dissimilarity=1, prox_mu=1, theta=2.3, C=20, m=100, N=50,
            c_scale=1.25)


def cli_latency(repeats: int) -> None:
    base = [sys.executable, "-m", "dpcalc.cli.main"]
    ours, ref = [*base, *EXAMPLE], [*base, "sigma", "--eps", "5", "--d", "1000"]
    for _ in range(2):
        _time(ours), _time(ref)
    t_ours, t_ref = [], []
    for _ in range(repeats):
        t_ours.append(_time(ours))
        t_ref.append(_time(ref))
    m_ours, m_ref = statistics.median(t_ours), statistics.median(t_ref)
    print(f"dpcalc nbafl optimal-t (example) : median {m_ours * 1e3:7.1f} ms")
    print(f"dpcalc sigma --eps 5 --d 1000    : median {m_ref * 1e3:7.1f} ms")
    print(f"ratio {m_ours / m_ref:.2f}")


def library() -> None:
    from dpcalc import nbafl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, _ = median_of(lambda: nbafl.optimal_t(10, 0.01, **SET1), repeat=15)
        print(f"optimal_t (one eps, T = 1..1000)  : {t * 1e3:7.2f} ms")
        t, _ = median_of(lambda: nbafl.optimal_k(10, 0.01, T=25, **SET1), repeat=15)
        print(f"optimal_k (one eps, T = 25)       : {t * 1e3:7.2f} ms")
        t = best_of(lambda: nbafl.compare_accountants(10, 0.01, C=20, m=100, L=25, c_scale=1.25), repeat=3)
        print(f"compare_accountants (L = 25, all) : {t * 1e3:7.1f} ms")


def simulation() -> None:
    import numpy as np

    from dpcalc.nbafl.simulate import BoundConstants, SimulationConfig, simulate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = simulate(SimulationConfig(), workers=1, bound=BoundConstants())
        two = simulate(SimulationConfig(), workers=2, bound=BoundConstants())
    print(f"simulate default, 1 worker  : {one.wall_time:6.2f} s   best T {one.best_t}, bound T* {one.bound_t_star}")
    print(f"simulate default, 2 workers : {two.wall_time:6.2f} s   identical: {np.array_equal(one.loss, two.loss)}")


def savings_table() -> None:
    from dpcalc import nbafl

    print("\nNoise a tight accountant saves, Table-1 settings (delta = 0.01, c = 1.25*sqrt(2 ln 125), C = 20, m = 100)")
    print(f"{'L':>3} {'eps':>5} {'sigma_U paper':>13} {'eps exact':>10} {'sigma_U rdp':>11} {'sigma_U exact':>13} "
          f"{'sigma_U pld':>11} {'saved (exact)':>13}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for L in (1, 25):
            for eps in (6, 10, 50, 60, 100):
                r = nbafl.compare_accountants(eps, 0.01, C=20, m=100, L=L, c_scale=1.25)
                ex = r.row("analytic")
                print(f"{L:>3} {eps:>5} {r.sigma_u_paper:>13.5g} {ex.eps:>10.4g} {r.row('rdp').sigma_u:>11.5g} "
                      f"{ex.sigma_u:>13.5g} {r.row('pld').sigma_u:>11.5g} {ex.noise_saved:>13.1%}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--skip-sim", action="store_true")
    args = ap.parse_args()
    cli_latency(args.repeats)
    library()
    if not args.skip_sim:
        simulation()
    savings_table()


if __name__ == "__main__":
    main()
