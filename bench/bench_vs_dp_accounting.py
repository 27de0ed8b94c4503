"""Benchmark: dpcalc's PLD bracket against dp-accounting 0.6's PLD at the same accuracy, and dpcalc's cold start.

Run on demand: ``python bench/bench_vs_dp_accounting.py [--rows N] [--no-cold]``. Prints, with the load average:

1. for each event (δ = 1e-5): dpcalc's certified bracket [lo, hi] at its default tolerance (rtol = 1e-3) and its
   time per call (`_timing.best_per_call`: the best of `REPEATS` batches of calls taking about 50 ms each, so that
   a call of 0.1 ms is not timed alone); then dp-accounting's PLD (``PLDAccountant``, its pessimistic estimate) at
   the coarsest ``value_discretization_interval`` (vdi, from 0.04 down by halves to 1.2e-6) whose ε lands within
   the stated accuracy of the bracket's midpoint m, for two accuracies: ``1e-3·m`` (what a user asks) and the width
   ``hi − lo`` dpcalc delivers; its time at that vdi (the landing run, and below 10 s also the same per-call
   measure over `REPEATS` batches; the smallest) and the ratio.
   A vdi whose run exceeds 120 s, or no vdi landing, prints the finest tried with ``>``: a lower bound on the ratio.
2. the cold start: CPU seconds (user + system, the operating system's accounting of each finished child) of
   ``dpcalc statement --dataset-size 60000 --batch-size 256 --epochs 60 -z 1.1 --delta 1e-5`` against
   ``python -c "import numpy"``, both as whole processes in alternating runs (11 pairs, one warm-up each that
   writes dpcalc's bytecode cache, as an installed package has it); the median of the pairwise ratios.

dp-accounting is a bench/test-only dependency (the ``[test]`` extra).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from _timing import best_per_call

from dpcalc.accounting import events as ev
from dpcalc.api import epsilon as dpcalc_epsilon

DELTA = 1e-5
G = ev.Gaussian
#: (row, event, neighbouring relation)
ROWS: list[tuple[str, ev.Event, str]] = [
    ("Poisson-subsampled Gaussian ×1,000 (q = 256/60,000, z = 1.1)",
     ev.SelfComposed(ev.PoissonSampled(256 / 60000, G(1.1)), 1000), "add_remove"),
    ("the same ×14,063 (60 epochs)", ev.SelfComposed(ev.PoissonSampled(256 / 60000, G(1.1)), 14063), "add_remove"),
    ("Poisson-subsampled Laplace ×1,000 (q = 0.01, b = 2)",
     ev.SelfComposed(ev.PoissonSampled(0.01, ev.Laplace(2.0)), 1000), "add_remove"),
    ("Laplace ×1,000 (b = 10)", ev.SelfComposed(ev.Laplace(10.0), 1000), "add_remove"),
    ("Gaussian ×10, replace-one (z = 3)", ev.SelfComposed(G(3.0), 10), "replace_one"),
    ("mixture of Gaussians ×100 (σ = 1, means 0, 1, weights 0.99, 0.01)",
     ev.SelfComposed(ev.MixtureOfGaussians(1.0, (0.0, 1.0), (0.99, 0.01)), 100), "add_remove"),
]
VDIS = [0.04 / 2.0**k for k in range(16)]  # 0.04 … 1.2e-6
#: batches timed per measurement, the same for both sides: on a shared virtual machine a whole batch can run 50 %
#: slow (a Poisson-subsampled Gaussian ×1,000 measured 6.2 and 9.8 ms in two runs of 5 batches a few minutes apart)
REPEATS = 9
PEER_CAP = 120.0  # seconds: a slower dp-accounting run stops the search (the ratio then a lower bound)


def _named(d: Any) -> Any:
    """A dpcalc event dictionary as the named tuples dp-accounting's ``DpEvent.from_named_tuple`` reads."""
    from collections import namedtuple

    if isinstance(d, dict):
        fields = {"module_name": "dp_accounting.dp_event", **{k: _named(x) for k, x in d.items()}}
        return namedtuple("T", list(fields))(**fields)
    if isinstance(d, list):
        return [_named(x) for x in d]
    return d


def peer(e: ev.Event, rel: str) -> Callable[[float], float]:
    """dp-accounting's PLD ε of the event at δ as a function of the vdi."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    nr = dp_accounting.NeighboringRelation
    relation = {"add_remove": nr.ADD_OR_REMOVE_ONE, "replace_one": nr.REPLACE_ONE}[rel]
    event = dp_accounting.DpEvent.from_named_tuple(_named(ev.to_dict(e)))

    def run(vdi: float) -> float:
        acc = pld_privacy_accountant.PLDAccountant(relation, value_discretization_interval=vdi)
        acc.compose(event)
        return float(acc.get_epsilon(DELTA))

    return run


def ours(e: ev.Event, rel: str) -> tuple[float, float, float, bool]:
    """(time, lower, upper, met) of dpcalc's PLD bracket at the default tolerance."""
    def call() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dpcalc_epsilon(e, delta=DELTA, accountant="pld", neighbours=rel)

    r = call()
    return best_per_call(call, REPEATS), float(r.lower), float(r.upper), bool(r.met)


def coarsest(run: Callable[[float], float], mid: float, acc: float,
             seen: dict[float, tuple[float, float]]) -> tuple[float, float, float, bool]:
    """(vdi, ε, seconds of one run, landed) at the coarsest vdi whose ε is within ``acc`` of ``mid``; runs are
    cached in ``seen`` (vdi → (ε, seconds)). Not landed: the finest vdi tried."""
    vdi = VDIS[0]
    for vdi in VDIS:
        if vdi not in seen:
            t0 = time.perf_counter()
            eps = run(vdi)
            seen[vdi] = (eps, time.perf_counter() - t0)
        eps, sec = seen[vdi]
        if abs(eps - mid) <= acc:
            return vdi, eps, sec, True
        if sec > PEER_CAP:
            break
    return vdi, seen[vdi][0], seen[vdi][1], False


def table(rows: list[tuple[str, ev.Event, str]]) -> None:
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    print("| event (δ = 1e-5) | dpcalc bracket, time | at 1e-3 relative: dp-accounting vdi, ε, time | ratio "
          "| at the width dpcalc delivers: dp-accounting vdi, ε, time | ratio |")
    print("|---|---|---|---:|---|---:|")
    for name, e, rel in rows:
        t, lo, hi, met = ours(e, rel)
        mid = 0.5 * (lo + hi)
        run = peer(e, rel)
        seen: dict[float, tuple[float, float]] = {}
        cells = []
        for acc in (1e-3 * mid, max(hi - lo, 0.0)):
            vdi, eps, sec, landed = coarsest(run, mid, acc, seen)
            if sec < 10.0:
                sec = min(sec, best_per_call(lambda v=vdi, r=run: r(v), REPEATS))
            mark = "" if landed else ">"
            cells.append(f"{'' if landed else 'none within; finest '}{vdi:.3g}, {eps:.6f}, {_ms(sec)} "
                         f"| {mark}{sec / t:,.1f}× |")
        flag = "" if met else " (not met)"
        print(f"| {name} | [{lo:.6f}, {hi:.6f}]{flag} (width {hi - lo:.2g}), {_ms(t)} | " + " ".join(cells),
              flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


def _ms(sec: float) -> str:
    return f"{sec * 1e3:.3g} ms" if sec < 10 else f"{sec:.1f} s"


STATEMENT = ["statement", "--dataset-size", "60000", "--batch-size", "256", "--epochs", "60", "-z", "1.1",
             "--delta", "1e-5"]


def _cpu(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of one whole process, from the accounting of its finished child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cold_start(pairs: int = 11) -> None:
    exe = shutil.which("dpcalc", path=os.path.dirname(sys.executable)) or shutil.which("dpcalc")
    a = [exe, *STATEMENT] if exe else [sys.executable, "-m", "dpcalc", *STATEMENT]
    b = [sys.executable, "-c", "import numpy"]
    # warm-up: the file cache, and dpcalc's compiled bytecode written (as an installed package has it; with
    # PYTHONDONTWRITEBYTECODE set every run would compile dpcalc's sources again, +0.3 s)
    writing = {k: x for k, x in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    _cpu(a, writing), _cpu(b, writing)
    ta, tb = [], []
    for _ in range(pairs):
        ta.append(_cpu(a))
        tb.append(_cpu(b))
    ratios = [x / y for x, y in zip(ta, tb, strict=True)]
    print(f"\ncold start, CPU seconds (median of {pairs} alternating runs; min–max): "
          f"dpcalc {' '.join(STATEMENT)}: {statistics.median(ta):.3f} ({min(ta):.3f}–{max(ta):.3f}); "
          f"python -c 'import numpy': {statistics.median(tb):.3f} ({min(tb):.3f}–{max(tb):.3f}); "
          f"ratio {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    chosen = ROWS
    if "--rows" in args:
        chosen = [ROWS[int(i)] for i in args[args.index("--rows") + 1].split(",")]
    table(chosen)
    if "--no-cold" not in args:
        cold_start()
