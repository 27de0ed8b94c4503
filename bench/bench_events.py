"""Benchmark: every event under every accountant, side by side with dp-accounting (RDP and PLD) in one run.

Run on demand: ``python bench/bench_events.py [--quick]`` (``--quick`` skips dp-accounting's PLD at the fine
discretisation). Prints two Markdown tables:

1. every event class × dpcalc's accountants (rdp, pld, exact): supported or the refusal, bound type, ε and time;
   dp-accounting 0.6's RDP and PLD (value_discretization_interval 1e-3) on the same event where they take it;
2. speed: dpcalc's PLD against dp-accounting's PLD (vdi 1e-4; 1e-3 for its slow mixture of Gaussians) on every
   event both support, the issue's 1,000-step fixed-size-batch and with-replacement DP-SGD (n = 60,000, b = 256,
   z = 1.1, replace-one) and the heterogeneous 100-round CUAG schedule; dpcalc's times are the best of 3 after a
   warm-up, dp-accounting's one run; the load average is printed.

dp-accounting is a bench/test-only dependency; when it is missing its columns say so.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from _timing import best_of

from dpcalc.accounting import events as ev
from dpcalc.api import epsilon as _epsilon
from dpcalc.errors import DomainError

DELTA = 1e-5

G = ev.Gaussian
CASES: list[tuple[str, ev.Event, str]] = [
    ("Gaussian ×10 (z=3)", ev.SelfComposed(G(3.0), 10), "replace_one"),
    ("Laplace ×1000 (b=10)", ev.SelfComposed(ev.Laplace(10.0), 1000), "add_remove"),
    ("DiscreteLaplace ×100 (a=0.5, Δ=2)", ev.SelfComposed(ev.DiscreteLaplace(0.5, 2), 100), "add_remove"),
    ("DiscreteGaussian ×100 (σ=5)", ev.SelfComposed(ev.DiscreteGaussian(5.0, 1), 100), "add_remove"),
    ("RandomizedResponse ×100 (p=0.9, k=4)", ev.SelfComposed(ev.RandomizedResponse(0.9, 4), 100), "replace_one"),
    ("MixtureOfGaussians ×100", ev.SelfComposed(ev.MixtureOfGaussians(1.0, (0.0, 1.0), (0.99, 0.01)), 100),
     "add_remove"),
    ("ZCDp ×100 (ρ=0.01)", ev.SelfComposed(ev.ZCDp(0.01), 100), "add_remove"),
    ("EpsilonDelta ×100 (ε=0.1)", ev.SelfComposed(ev.EpsilonDelta(0.1), 100), "add_remove"),
    ("Poisson Gaussian ×1000", ev.SelfComposed(ev.PoissonSampled(256 / 60000, G(1.1)), 1000), "add_remove"),
    ("Poisson Laplace ×1000", ev.SelfComposed(ev.PoissonSampled(0.01, ev.Laplace(2.0)), 1000), "add_remove"),
    ("Fixed batch Gaussian ×1000", ev.SelfComposed(ev.SampledWithoutReplacement(60000, 256, G(1.1)), 1000),
     "replace_one"),
    ("With replacement Gaussian ×1000", ev.SelfComposed(ev.SampledWithReplacement(60000, 256, G(1.1)), 1000),
     "replace_one"),
    ("With replacement Gaussian ×10", ev.SelfComposed(ev.SampledWithReplacement(60000, 256, G(1.1)), 10),
     "replace_one"),
    ("Poisson Gaussian ×300 (q=0.01, z=1.1)", ev.SelfComposed(ev.PoissonSampled(0.01, G(1.1)), 300), "replace_one"),
    ("Tree aggregation (z=5, 1000 steps)", ev.SingleEpochTreeAggregation(5.0, 1000), "replace_special"),
    ("RepeatAndSelect(Gaussian ×5, mean 10, geometric)",
     ev.RepeatAndSelect(ev.SelfComposed(G(10.0), 5), 10.0, 1.0), "add_remove"),
    ("Truncated subsampled Gaussian ×100 (B=650)",
     ev.SelfComposed(ev.TruncatedSubsampledGaussian(60000, 0.01, 650, 1.1), 100), "add_remove"),
    ("Truncated subsampled Gaussian ×100 (B=650)",
     ev.SelfComposed(ev.TruncatedSubsampledGaussian(60000, 0.01, 650, 1.1), 100), "replace_one"),
    ("Composed (Gaussian, Laplace)", ev.Composed((G(2.0), ev.Laplace(5.0))), "add_remove"),
    ("NoOp", ev.NoOp(), "add_remove"),
    ("NonPrivate", ev.NonPrivate(), "add_remove"),
    ("Unsupported", ev.Unsupported(), "add_remove"),
]


def _ours(e: ev.Event, rel: str, acc: str) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = _epsilon(e, delta=DELTA, accountant=acc, neighbours=rel)
            t = best_of(lambda: _epsilon(e, delta=DELTA, accountant=acc, neighbours=rel), 3)
    except DomainError as exc:
        return "— (" + str(exc).split(":")[1].split(";")[0].strip()[:60] + ")"
    bracket = f" [{r.lower:.5g}, {r.upper:.5g}]" if r.lower is not None else ""
    return f"{r.kind} {r.value:.5g}{bracket}, {t * 1e3:.3g} ms"


def _peer_run(e: ev.Event, rel: str, kind: str, vdi: float) -> Callable[[], float] | str:
    """dp-accounting's ε of the event under its ``kind`` accountant as a call (raises NotImplementedError where it
    does not support the event), or why there is none."""
    try:
        import dp_accounting
        from dp_accounting import dp_event
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.rdp import rdp_privacy_accountant
    except ImportError:
        return "dp-accounting not installed"
    nr = dp_accounting.privacy_accountant.NeighboringRelation
    relation = {"add_remove": nr.ADD_OR_REMOVE_ONE, "replace_one": nr.REPLACE_ONE,
                "replace_special": nr.REPLACE_SPECIAL}[rel]
    try:
        peer = dp_event.DpEvent.from_named_tuple(_named(ev.to_dict(e)))
    except Exception:
        return "— (no such event)"

    def run() -> float:
        acc: Any = (rdp_privacy_accountant.RdpAccountant(neighboring_relation=relation) if kind == "rdp" else
                    pld_privacy_accountant.PLDAccountant(relation, value_discretization_interval=vdi))
        if not acc.supports(peer):
            raise NotImplementedError
        acc.compose(peer)
        return float(acc.get_epsilon(DELTA))

    return run


def _peer(e: ev.Event, rel: str, kind: str, vdi: float = 1e-3) -> str:
    run = _peer_run(e, rel, kind, vdi)
    if isinstance(run, str):
        return run
    try:
        eps = run()
        t = best_of(run, 1 if kind == "pld" else 3)
    except NotImplementedError:
        return "— (not supported)"
    except Exception as exc:
        return f"— ({type(exc).__name__})"
    return f"{eps:.5g}, {t * 1e3:.3g} ms"


def _named(d: Any) -> Any:
    """A dpcalc event dictionary as the named tuples dp-accounting's from_named_tuple reads."""
    from collections import namedtuple

    if isinstance(d, dict):
        fields = {"module_name": "dp_accounting.dp_event", **{k: _named(v) for k, v in d.items()}}
        if fields.get("shape") == "inf":
            fields["shape"] = math.inf
        return namedtuple("T", list(fields))(**fields)
    if isinstance(d, list):
        return [_named(x) for x in d]
    return d


def table() -> None:
    print("| event | neighbours | dpcalc rdp | dpcalc pld | dpcalc exact | dp-accounting rdp | dp-accounting pld |")
    print("|---|---|---|---|---|---|---|")
    for name, e, rel in CASES:
        cells = [_ours(e, rel, a) for a in ("rdp", "pld", "exact")] + [_peer(e, rel, "rdp"), _peer(e, rel, "pld")]
        print(f"| {name} | {rel} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


#: the speed cases (table row names): every event class dp-accounting's PLD supports, plus ours alone
SPEED = ["Poisson Gaussian ×1000", "Poisson Gaussian ×300 (q=0.01, z=1.1)", "Laplace ×1000 (b=10)",
         "Poisson Laplace ×1000", "Gaussian ×10 (z=3)", "MixtureOfGaussians ×100", "DiscreteLaplace ×100 (a=0.5, Δ=2)",
         "RandomizedResponse ×100 (p=0.9, k=4)", "Composed (Gaussian, Laplace)", "Fixed batch Gaussian ×1000",
         "With replacement Gaussian ×1000", "Truncated subsampled Gaussian ×100 (B=650)"]
#: single releases, where dp-accounting's PLD is a closed form or a handful of atoms (sub-millisecond)
SINGLE = [("Gaussian ×1 (z=3)", G(3.0), "add_remove"), ("Laplace ×1 (b=10)", ev.Laplace(10.0), "add_remove"),
          ("DiscreteLaplace ×1 (a=0.5, Δ=2)", ev.DiscreteLaplace(0.5, 2), "add_remove"),
          ("RandomizedResponse ×1 (p=0.9, k=4)", ev.RandomizedResponse(0.9, 4), "replace_one"),
          ("Poisson Gaussian ×1 (q=0.01, z=1.1)", ev.PoissonSampled(0.01, G(1.1)), "add_remove")]


def _timed_pld(e: ev.Event, rel: str) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = _epsilon(e, delta=DELTA, accountant="pld", neighbours=rel)
        return best_of(lambda: _epsilon(e, delta=DELTA, accountant="pld", neighbours=rel), 3), float(r)


def _peer_pld(e: ev.Event, rel: str, vdi: float) -> tuple[float, float] | None:
    """(time, ε) of dp-accounting's PLD on the event, None where it does not take it. Randomized response composed
    T times is timed as its PLD's ``self_compose(T)``: its accountant composes the event once whatever the count."""
    if isinstance(e, ev.SelfComposed) and isinstance(e.event, ev.RandomizedResponse):
        try:
            from dp_accounting.pld import privacy_loss_distribution as pl
        except ImportError:
            return None
        rr, count = e.event, e.count

        def composed() -> float:
            one = pl.from_randomized_response(rr.noise_parameter, rr.num_buckets, value_discretization_interval=vdi)
            return float(one.self_compose(count).get_epsilon_for_delta(DELTA))

        eps = composed()
        return best_of(composed, 1), eps
    run = _peer_run(e, rel, "pld", vdi)
    if isinstance(run, str):
        return None
    try:
        eps = run()
    except NotImplementedError:
        return None
    return best_of(run, 1), eps


def speed(quick: bool) -> None:
    from dpcalc.accounting import pld

    print()
    print("| case | neighbours | dpcalc pld time | its ε (upper) | dp-accounting pld time (vdi) | its ε | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for name, e, rel in [c for c in CASES if c[0] in SPEED]:
        t, eps = _timed_pld(e, rel)
        vdi = 1e-3 if "Mixture" in name else 1e-4
        peer = None if quick else _peer_pld(e, rel, vdi)
        if peer is None:
            print(f"| {name} | {rel} | {t * 1e3:.3g} ms | {eps:.5g} | {'skipped' if quick else 'not supported'} "
                  "| | |", flush=True)
            continue
        print(f"| {name} | {rel} | {t * 1e3:.3g} ms | {eps:.5g} | {peer[0] * 1e3:.4g} ms ({vdi:g}) | {peer[1]:.5g} "
              f"| {peer[0] / t:.1f}× |", flush=True)
    for name, e, rel in SINGLE:
        t, eps = _timed_pld(e, rel)
        peer = None if quick else _peer_pld(e, rel, 1e-4)
        tail = "| skipped | | |" if peer is None else (f"| {peer[0] * 1e3:.4g} ms (0.0001) | {peer[1]:.5g} | "
                                                      f"{peer[0] / t:.1f}× |")
        print(f"| {name} | {rel} | {t * 1e3:.3g} ms | {eps:.5g} {tail}", flush=True)
    sched = _cuag()
    t = best_of(lambda: pld.epsilon([pld.Step(*s) for s in sched], DELTA), 5)
    print(f"| CUAG 100-round heterogeneous schedule | add_remove | {t * 1e3:.3g} ms | | | | |")
    print(f"\nload average {os.getloadavg()[0]:.2f} at {time.strftime('%H:%M:%S')}")


def _cuag() -> list[tuple[float, float, int]]:
    from dpcalc import cuag
    from dpcalc.errors import EstimateWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)
        sig = cuag.sigma_schedule(0.25, 0.1, 50, 500, 100, 25)
        rho = float(cuag.sampling_rate(0.1, 50, 500))
    return [(float(s), rho, 25) for s in sig]


if __name__ == "__main__":
    table()
    speed("--quick" in sys.argv)
