"""Domain-sweep harness shared by every family's tests.

A sweep draws points over a function's documented domain — every corner of the box (the edges) plus seeded
random points, log-uniform on ``"log"`` axes — evaluates the implementation and an independent reference at
high precision (mpmath, ``DPS`` = 40 digits unless told), and asserts for **every** point

* the documented tolerance: ``|got − want| <= rtol·|want| + atol``, and
* the safe side, for bounds / inverses / calibrations: ``safe="above"`` (got >= want, e.g. σ, ε of an inverse),
  ``safe="below"`` (got <= want, e.g. μ(ε, δ)), or a callable ``safe(point, got) -> bool`` that re-checks the
  forward map at the returned value (δ(returned) <= target δ).

Budget: ``points(default)`` returns ``DPCALC_SWEEP_POINTS`` when that environment variable is set (the deep run,
e.g. 10000), else ``default`` (small, so the suite stays fast). With ``DPCALC_SWEEP_REPORT=<file>`` every sweep
appends one JSON line (function, points, worst relative error and where) — the per-function table of the deep
run comes from that file.

Usage::

    from tests.support.sweep import Axis, sweep

    def test_delta_sweep():
        sweep("gdp.delta_from_eps", [Axis("eps", 0, 30, "linear"), Axis("mu", 1e-3, 50)],
              fn=lambda p: gdp.delta(p["mu"], p["eps"]),
              ref=lambda p: mp_delta(p["eps"], p["mu"]), rtol=1e-12)
"""

from __future__ import annotations

import itertools
import json
import math
import os
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import mpmath
import numpy as np

from dpcalc.errors import DomainError, InfeasibleError

DPS = 40
ENV_POINTS = "DPCALC_SWEEP_POINTS"
ENV_REPORT = "DPCALC_SWEEP_REPORT"

Scale = Literal["log", "linear", "int", "logint"]
Point = dict[str, float]
Safe = Literal["above", "below"] | Callable[[Point, float], bool] | None


def points(default: int) -> int:
    """The sweep budget: ``$DPCALC_SWEEP_POINTS`` if set (deep run), else ``default``."""
    env = os.environ.get(ENV_POINTS, "").strip()
    return int(env) if env else default


def deep() -> bool:
    """Whether a deep budget was requested (``DPCALC_SWEEP_POINTS`` is set)."""
    return bool(os.environ.get(ENV_POINTS, "").strip())


@dataclass(frozen=True)
class Axis:
    """One input's sweep range ``[lo, hi]``; ``"log"``/``"logint"`` draw log-uniformly (lo > 0)."""

    name: str
    lo: float
    hi: float
    scale: Scale = "log"
    edges: Sequence[float] | None = None  # extra edge values (default: lo and hi)

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.scale in ("log", "logint"):
            x = np.exp(rng.uniform(math.log(self.lo), math.log(self.hi), n))
        else:
            x = rng.uniform(self.lo, self.hi, n)
        if self.scale in ("int", "logint"):
            x = np.clip(np.round(x), math.ceil(self.lo), math.floor(self.hi))
        return x

    def edge_values(self) -> list[float]:
        return list(self.edges) if self.edges is not None else [self.lo, self.hi]


def draw(axes: Sequence[Axis], n: int, seed: int, where: Callable[[Point], bool] | None = None,
         max_tries: int = 50) -> list[Point]:
    """Corners of the box (edges) that satisfy ``where``, then seeded random points up to ``n`` in all."""
    corners = [dict(zip([a.name for a in axes], c, strict=True))
               for c in itertools.product(*[a.edge_values() for a in axes])]
    out = [c for c in corners if where is None or where(c)][: max(n // 2, 1)]
    rng = np.random.default_rng(seed)
    for _ in range(max_tries):
        need = n - len(out)
        if need <= 0:
            break
        batch = max(2 * need, 16)
        cols = {a.name: a.draw(rng, batch) for a in axes}
        for i in range(batch):
            p = {k: float(v[i]) for k, v in cols.items()}
            if where is None or where(p):
                out.append(p)
                if len(out) >= n:
                    break
    return out[:n]


@dataclass
class SweepResult:
    """Outcome of one sweep: worst relative error and where; failures (tolerance or safe side)."""

    name: str
    n: int = 0
    skipped: int = 0
    worst_rel: float = 0.0
    worst_at: Point = field(default_factory=dict)
    worst_got: float = math.nan
    worst_want: float = math.nan
    failures: list[str] = field(default_factory=list)
    unsafe: int = 0

    def record(self, p: Point, got: float, want: float) -> float:
        if got == want:  # incl. a documented +inf where the reference is +inf (e.g. an order outside a bound's range)
            rel = 0.0
        else:
            rel = abs(got - want) / abs(want) if want != 0 else (0.0 if got == 0 else math.inf)
        if rel > self.worst_rel or not self.worst_at:
            self.worst_rel, self.worst_at, self.worst_got, self.worst_want = rel, dict(p), got, want
        return rel

    def summary(self) -> str:
        return (f"{self.name}: {self.n} points ({self.skipped} rejected by the library), worst relative error "
                f"{self.worst_rel:.3g} at {self.worst_at} (got {self.worst_got!r}, reference {self.worst_want!r})"
                f"; {self.unsafe} on the unsafe side")


#: with a report file, a deep sweep also appends a ``"partial": true`` row every this many points, so a run stopped
#: early (a deadline, a loaded machine) still leaves its worst error so far and how many points it covered
PARTIAL_EVERY = 500


def _report(res: SweepResult, rtol: float, partial: bool = False) -> None:
    path = os.environ.get(ENV_REPORT, "").strip()
    if not path:
        return
    row = {"function": res.name, "points": res.n, "skipped": res.skipped, "worst_rel": res.worst_rel,
           "worst_at": res.worst_at, "got": res.worst_got, "reference": res.worst_want, "rtol": rtol,
           "unsafe": res.unsafe, "failures": len(res.failures), **({"partial": True} if partial else {})}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")


def _seed(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def sweep(name: str, axes: Sequence[Axis], fn: Callable[[Point], Any], ref: Callable[[Point], Any], *,
          rtol: float, atol: float | Callable[[Point, float], float] = 0.0, n: int = 40, safe: Safe = None,
          where: Callable[[Point], bool] | None = None, allow_reject: float = 0.0, dps: int = DPS,
          extra: Sequence[Mapping[str, float]] = (), seed: int | None = None, check: bool = True,
          random: bool = True) -> SweepResult:
    """Sweep ``fn`` against ``ref`` over ``axes`` (``points(n)`` points, edges first) and assert every point.

    ``fn(point)`` returns the implementation's float (a ``DomainError``/``InfeasibleError`` counts as a rejection;
    at most ``allow_reject`` of the points may be rejected). ``ref(point)`` returns the reference (mpmath value or
    float), evaluated inside ``mpmath.workdps(dps)``; a reference of ``None`` skips the point (outside the
    reference's reach — counted as rejected). ``atol`` may be a callable ``atol(point, reference)``, e.g. a
    documented backward error propagated through the condition number at the point. ``extra`` adds fixed points
    (e.g. issue reproducers); with ``random=False`` the sweep runs over ``extra`` alone (e.g. a list of distinct
    sample indices).
    """
    res = SweepResult(name)
    pts = [dict(p) for p in extra]
    if random:
        pts += draw(axes, points(n), _seed(name) if seed is None else seed, where)
    for p in pts:
        try:
            got = float(fn(p))
        except (DomainError, InfeasibleError):
            res.skipped += 1
            continue
        with mpmath.workdps(dps):
            w = ref(p)
            if w is None:
                res.skipped += 1
                continue
            want = float(w)
        res.n += 1
        rel = res.record(p, got, want)
        if callable(atol):
            with mpmath.workdps(dps):
                abs_tol = float(atol(p, want))
        else:
            abs_tol = atol
        if got != want and not (math.isfinite(got) and abs(got - want) <= rtol * abs(want) + abs_tol):
            res.failures.append(f"{p}: got {got!r}, reference {want!r} (rel {rel:.3g} > {rtol:g} + {abs_tol:.3g} "
                                "absolute)")
        ok_safe = True
        if safe == "above":
            ok_safe = got >= want
        elif safe == "below":
            ok_safe = got <= want
        elif callable(safe):
            ok_safe = bool(safe(p, got))
        if not ok_safe:
            res.unsafe += 1
            res.failures.append(f"{p}: got {got!r} is on the unsafe side of {want!r}")
        if res.n % PARTIAL_EVERY == 0:
            _report(res, rtol, partial=True)
    _report(res, rtol)
    if check:
        total = res.n + res.skipped
        assert not res.failures, f"{res.summary()}\n" + "\n".join(res.failures[:10])
        assert res.skipped <= allow_reject * total, f"{res.summary()}: too many rejected points"
    return res


def sweep_catalog(fid: str, *, n: int = 10, rtol: float | None = None, safe: Safe = None,
                  atol: Callable[[Point, float], float] | None = None,
                  extra: Sequence[Mapping[str, float]] = (), check: bool = True) -> SweepResult:
    """Sweep a catalog entry over its own sample specs (seeded) against its SymPy form in mpmath at ``DPS``
    digits, asserting the entry's documented ``rtol`` (or ``rtol``) plus, if given, its documented absolute term
    ``atol(point, reference)`` (e.g. a backward error through the condition number), and the safe side."""
    from dpcalc import catalog

    f = catalog.get(fid)
    rng = np.random.default_rng(_seed(fid))
    pts = [dict(p) for p in extra] + [f.sample_inputs(rng) for _ in range(points(n))]
    res = SweepResult(fid)
    tol = f.rtol if rtol is None else rtol
    for p in pts:
        try:
            got = float(f.call(p))
        except (DomainError, InfeasibleError):
            res.skipped += 1
            continue
        want = float(f.evaluate_mp(p, dps=DPS))
        res.n += 1
        rel = res.record(p, got, want)
        if atol is None:
            abs_tol = 0.0
        else:
            with mpmath.workdps(DPS):
                abs_tol = float(atol(p, want))
        if not (math.isfinite(got) and abs(got - want) <= tol * abs(want) + abs_tol):
            res.failures.append(f"{p}: got {got!r}, reference {want!r} (rel {rel:.3g} > {tol:g} + {abs_tol:.3g})")
        if (safe == "above" and got < want) or (safe == "below" and got > want) or (
                callable(safe) and not safe(p, got)):
            res.unsafe += 1
            res.failures.append(f"{p}: got {got!r} is on the unsafe side of {want!r}")
        if res.n % PARTIAL_EVERY == 0:
            _report(res, tol, partial=True)
    _report(res, tol)
    if check:
        assert not res.failures, f"{res.summary()}\n" + "\n".join(res.failures[:10])
    return res
