"""The certified privacy profile δ(ε) of a composition on a whole range of ε, per orientation: what the trade-off
curve (`dpcalc.risk.duality`) is built from.

Input: a list of ``(dpcalc.accounting.pld.PrivacyLoss, count)`` components (a DP-SGD run is
``[(pld.poisson(pld.gaussian(z), q), T)]``). Three cases:

* every loss a Gaussian without sampling: exactly μ-GDP, μ² = Σ count·(Δ'/σ)² (Dong, Roth & Su 2022, Cor. 3.3) —
  `gaussian_mu`; the curve is G_μ itself (`dpcalc.risk.gaussian`);
* every loss a Poisson-subsampled Gaussian (add/remove): one FFT composition per orientation of the PLD
  accountant's upper (connect-the-dots) and lower (hat-channel) pairs, untilted so the window holds every ε ≥ 0
  (`dpcalc.accounting.pld.passes.run`), whose δ-curves are certified brackets at every ε; the upper end is also
  capped by the dominating Gaussian composition (μ² = Σ count/σ²);
* any other loss: `dpcalc.accounting.pld.delta_composed` at each point of a grid of ε — the worse orientation
  only, so only the symmetric curve (slower: one composition per point).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcalc import _validate as v
from dpcalc._validate import FloatArray
from dpcalc.accounting.pld import PrivacyLoss
from dpcalc.accounting.pld.composed import gaussian_step
from dpcalc.accounting.pld.schedule import Step
from dpcalc.errors import DomainError
from dpcalc.risk.duality import DeltaFn

__all__ = ["DELTA_FLOOR", "ORIENTATIONS", "Components", "PrivacyProfile", "components_of", "gaussian_mu",
           "lattice", "pld_profile", "schedule_of"]

Components = Sequence[tuple[PrivacyLoss, int]]
#: the trade-off curve's orientations: the mechanism's symmetric f-DP curve, or one hypothesis test
ORIENTATIONS = ("symmetric", "membership", "non_membership")
#: the grid of ε ends where the profile's upper end is below this (beyond it every line is within it of 1 − e^ε α)
DELTA_FLOOR = 1e-15
_POINTS = 2049  # grid points of ε
_GENERIC_POINTS = 48  # grid points when every point costs one composition


@dataclass(frozen=True)
class PrivacyProfile:
    """Certified brackets δ_lower(ε) ≤ δ(ε) ≤ δ_upper(ε) of a composition on ``eps`` (ascending, from 0), for the
    orientation "remove" (δ_in = H_{e^ε}(M(D) ‖ M(D')), D holding the target) and "add" (δ_out, the reverse).
    ``oriented`` is False when only the worse of the two is known (both keys then hold it); ``grid`` is the PLD
    lattice spacing."""

    description: str
    eps: FloatArray
    curves: dict[str, tuple[DeltaFn, DeltaFn]] = field(repr=False)
    oriented: bool = True
    grid: float = 0.0

    def pair(self, orientation: str) -> tuple[tuple[DeltaFn, DeltaFn], tuple[DeltaFn, DeltaFn]]:
        """(δ_in, δ_out) functions, each (lower, upper), for a trade-off curve of ``orientation``."""
        rem, add = self.curves["remove"], self.curves["add"]
        if orientation == "membership":
            return rem, add
        if orientation == "non_membership":
            return add, rem
        worse = (_worse(rem[0], add[0]), _worse(rem[1], add[1]))
        return worse, worse

    def delta(self, eps: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        """(δ_lower, δ_upper) at ``eps`` (δ_in of the orientation; the worse of both when symmetric)."""
        d_in, _ = self.pair(orientation)
        e = np.asarray(eps, dtype=np.float64)
        return d_in[0](e), d_in[1](e)


def _worse(a: DeltaFn, b: DeltaFn) -> DeltaFn:
    return lambda e: np.maximum(a(e), b(e))


def components_of(components: Components | Any) -> list[tuple[PrivacyLoss, int]]:
    """The components validated: a non-empty list of (PrivacyLoss, count ≥ 1) pairs (the PLD accountant's own
    check, one line naming the bad item), or those of an event (any form `dpcalc.accounting.events.as_event` reads:
    a training run, a dp-accounting ``DpEvent``, …) under add/remove neighbours."""
    from dpcalc.accounting.pld.composed import _validated

    if isinstance(components, list | tuple):
        return _validated(components)
    from dpcalc.accounting.events import as_event

    return _validated(as_event(components, "components").components("add_remove"))


def schedule_of(components: Components) -> list[Step] | None:
    """The (σ/Δ, q, count) steps when every loss is a (Poisson-subsampled) Gaussian in the add/remove form, else
    None."""
    steps = []
    for loss, count in components:
        st = gaussian_step(loss.remove)
        if st is None or (not loss.symmetric and gaussian_step(loss.add.swapped()) != st):
            return None
        steps.append(Step(st[0], st[1], count))
    return steps


def gaussian_mu(components: Components) -> float | None:
    """μ when the composition is exactly μ-GDP (every loss a Gaussian without sampling), else None."""
    steps = schedule_of(components)
    if steps is None or any(st.q != 1.0 for st in steps):
        return None
    return math.sqrt(math.fsum(st.count / st.sigma ** 2 for st in steps))


def lattice(steps: list[Step], refinements: int = 0) -> float:
    """Lattice spacing of the profile's PLD: ~0.6·√(4·10⁻⁴/T) (the bracket width is second order in it), halved
    per refinement."""
    total = sum(st.count for st in steps)
    return float(min(0.05, max(1e-6, 0.6 * math.sqrt(4e-4 / total)))) / 2.0 ** refinements


def pld_profile(components: Components, *, grid: float | None = None) -> PrivacyProfile:
    """The certified profile of ``components`` (module docstring); ``grid``: the lattice spacing of a subsampled
    Gaussian composition (default `lattice`)."""
    comps = components_of(components)
    desc = " ∘ ".join(f"{loss.description}×{count}" for loss, count in comps)
    steps = schedule_of(comps)
    if steps is None:
        return _generic(comps, desc)
    h = lattice(steps) if grid is None else float(v.scalar("grid", v.positive("grid", grid)))
    return _schedule(steps, h, desc)


def _schedule(steps: list[Step], h: float, desc: str) -> PrivacyProfile:
    from dpcalc.accounting import gdp
    from dpcalc.accounting.pld.dominating import dominating_mu
    from dpcalc.accounting.pld.passes import run

    mu_g = dominating_mu(steps)

    def cap(e: FloatArray) -> FloatArray:  # δ of the dominating Gaussian composition, rounded up
        if not capping:
            return np.ones_like(e)
        return np.minimum(1.0, np.exp(np.asarray(gdp.log_delta(mu_g, e), dtype=np.float64) + 1e-12))

    capping = True
    curves: dict[str, tuple[DeltaFn, DeltaFn]] = {}
    top = math.inf
    for direction in ("remove", "add"):
        ps = run(steps, direction, h, 1e-30, None, 0.0)
        assert ps.lo is not None
        up_c, lo_c = ps.up, ps.lo

        def lower(e: FloatArray, c: Any = lo_c) -> FloatArray:
            return np.clip(c.deltas(e), 0.0, 1.0)

        def upper(e: FloatArray, c: Any = up_c) -> FloatArray:
            return np.minimum(np.clip(c.deltas(e), 0.0, 1.0), cap(e))

        curves[direction] = (lower, upper)
        top = min(top, float(up_c.x[-1]))
    # the cap is non-increasing in ε: useless everywhere when it is 1 at the window's top (μ ≫ 1: most DP-SGD runs)
    capping = bool(cap(np.array([top]))[0] < 1.0)
    coarse = np.linspace(0.0, top, 513)
    small = np.flatnonzero(np.maximum(curves["remove"][1](coarse), curves["add"][1](coarse)) <= DELTA_FLOOR)
    e_max = float(coarse[small[0]]) if small.size else top
    return PrivacyProfile(desc, np.linspace(0.0, max(e_max, 1e-3), _POINTS), curves, True, h)


def _generic(comps: list[tuple[PrivacyLoss, int]], desc: str) -> PrivacyProfile:
    """Any losses: the worse orientation's bracket at a grid of ε (one `delta_composed` each)."""
    from dpcalc.accounting.pld import delta_composed, epsilon_composed

    e_max = epsilon_composed(comps, 1e-12).eps_upper
    if not math.isfinite(e_max):
        raise DomainError(f"the composition {desc} has no finite ε at δ = 1e-12 (mass at infinite privacy loss): "
                          "its trade-off curve is the (ε, δ) one; use approx_dp_curve")
    grid = np.linspace(0.0, max(e_max, 1e-3), _GENERIC_POINTS)
    brackets = [delta_composed(comps, float(e)) for e in grid]
    lo = np.array([b.delta_lower for b in brackets])
    up = np.array([b.delta_upper for b in brackets])

    def lower(e: FloatArray) -> FloatArray:  # the bracket at the next grid point up (δ is non-increasing)
        i = np.searchsorted(grid, e, side="left")
        return np.where(i < grid.size, lo[np.minimum(i, grid.size - 1)], 0.0)

    def upper(e: FloatArray) -> FloatArray:  # at the grid point below
        i = np.searchsorted(grid, e, side="right") - 1
        return up[np.clip(i, 0, grid.size - 1)]

    return PrivacyProfile(desc, grid, {"remove": (lower, upper), "add": (lower, upper)}, False, 0.0)
