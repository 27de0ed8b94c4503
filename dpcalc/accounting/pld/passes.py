"""One neighbour direction at one lattice spacing: discretise the steps, choose the tilt and the window from the
Chernoff bounds, compose both pairs and build their δ-curves; and the (ε_lower, ε_upper) of such a pass."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpcalc import _limits
from dpcalc._repr import short_repr
from dpcalc.accounting.pld import direct
from dpcalc.accounting.pld.chernoff import (
    hockey_stick_eps,
    hockey_stick_orders,
    saddle,
    swapped_hockey_stick_eps,
    theta_grid,
    theta_top,
    total_mgfs,
)
from dpcalc.accounting.pld.common import MARGIN, TAU, Direction, FloatArray, check_points, tail_mass
from dpcalc.accounting.pld.compose import compose, fft_len
from dpcalc.accounting.pld.curve import Curve, build_curve, frame
from dpcalc.accounting.pld.discretise import discretise_many
from dpcalc.accounting.pld.mechanism import losses, tail_z
from dpcalc.accounting.pld.pmf import LatticePmf
from dpcalc.accounting.pld.schedule import Step, loss_variance

__all__ = ["CONV_OP_SECONDS", "OP_SECONDS", "PASS_SECONDS", "Pass", "charge_discretise", "compose_pass",
           "convolved_eps", "direct_eps", "eps_of_passes", "eps_pass", "lattice_points", "pass_seconds", "remove_pass",
           "run", "step_points", "swap_bounds_add", "unit_parts"]

#: Declared cost of one counted operation of a pass (`charge_discretise`, the FFT in `compose_pass`): one lattice
#: point of one step (its quadrature nodes, relabelling and one log-MGF term per Chernoff order), or one point of one
#: FFT row per level of the transform. Booked/actual ≥ 1 measured at load ~10 on two cores (bench/bench_pld_work.py);
#: work budgets (`dpcalc._limits.work_budget`) count with it.
OP_SECONDS = 4e-8
PASS_SECONDS = 0.01
"""Declared fixed cost of one pass (Python and NumPy call overheads, the Chernoff orders of the saddle point)."""
_MGF_ORDERS = 64  # Chernoff orders evaluated per lattice point (theta_grid and the refinement around the tilt)
_DIRECT_EVALS = 256  # δ evaluations per lattice point of a direct sum (bisection of both curves)
CONV_OP_SECONDS = 1e-8  # one multiply-add of a direct convolution (np.convolve: 1–2 ns measured at load 11)

_LIFT = math.log(1e6)  # tilt so that e^{−λε}·E[e^{λS}] <= δ·_LIFT (Chernoff form)


#: the orders added around a tilt λ (× λ) before the window is chosen (`compose_pass`)
_REFINE_UP, _REFINE_DOWN = 1.0 + np.geomspace(1e-3, 4.0, 10), 1.0 - np.geomspace(1e-3, 0.9, 6)


def _min_over(vals: FloatArray) -> float:
    vals = vals[np.isfinite(vals)]
    return float(vals.min()) if vals.size else math.inf


@short_repr
@dataclass
class Pass:
    """The δ-curves of one direction at one lattice spacing: the upper (dominating) curve, the lower one (None for an
    upper-bound-only pass), the FFT length, and the ε from which the lower curve is valid."""

    up: Curve
    lo: Curve | None
    n: int
    eg: float = 0.0  # the lower curve is valid for ε >= eg


def run(steps: list[Step], direction: Direction, h: float, delta: float, eps_guess: float | None,
        eps_query: float | None, lower: bool = True) -> Pass:
    """One pass: discretise the steps at spacing ``h``, choose the tilt and the window from the Chernoff bounds (around
    ``eps_query`` for a δ query, else from the ε at δ, ``eps_guess`` the lower curve's validity), compose both pairs
    and build their curves (only the upper one when ``lower`` is False).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    eps_guess : float | None
    eps_query : float | None
    lower : bool

    Returns
    -------
    Pass
    """
    total = sum(st.count for st in steps)
    if eps_query is not None:
        # δ at ε needs the window from ε up past the loss's mean (≈ half its variance; the Chernoff top is >= the
        # mean): refuse before discretising a lattice that cannot fit (T = 1e9 discretised for 11 s first). A
        # quarter of the estimate, as the small-q mean may overstate the true one; an ε query's window sits around
        # ε instead and is sized after the discretisation
        span = max(0.5 * loss_variance(steps) - eps_query, 0.0)
        check_points(int(min(0.25 * span / h, 1e18)), f"the composed privacy loss of the schedule (steps = {total})",
                     h)
    ups, los, top = _discretised(steps, direction, h, delta, eps_query, lower)
    return compose_pass(ups, los if lower else None, h, delta, eps_guess, eps_query, top)


def _discretised(steps: list[Step], direction: Direction, h: float, delta: float, eps_query: float | None,
                 lower: bool, tau: float = TAU) -> tuple[list[tuple[LatticePmf, int]], list[tuple[LatticePmf, int]],
                                                          float]:
    """The steps' upper and lower lattice pairs at spacing h (booked first), with the largest tilt order; each step's
    neglected tails hold P-mass τδ/(4T) per side (`common.tail_mass`)."""
    tail = tail_mass(sum(st.count for st in steps), delta, tau)
    charge_discretise(steps, direction, h, tail)
    ups: list[tuple[LatticePmf, int]] = []
    los: list[tuple[LatticePmf, int]] = []
    theta, _ = saddle(steps, direction, delta, tail, eps_query)
    for st, (u, lo_d) in zip(steps, discretise_many(steps, direction, h, tail, theta, lower), strict=True):
        ups.append((u, st.count))
        los.append((lo_d, st.count))
    return ups, los, theta_top(steps, direction)


def compose_pass(ups: list[tuple[LatticePmf, int]], los: list[tuple[LatticePmf, int]] | None, h: float,
                 delta: float, eps_guess: float | None, eps_query: float | None, top: float, tau: float = TAU) -> Pass:
    """The FFT half of a pass, for any discretised steps: choose the tilt (orders up to ``top``) and the window from
    the Chernoff bounds, compose both pairs and build their curves (only the upper one when ``los`` is None). Mass
    at +∞ of the upper pairs is charged to the upper curve; of the lower pairs (exact +∞ atoms only), to the lower.
    The window is sized so that its truncation and aliasing terms are each about ``tau``·δ at most
    (`common.window_tau`); they are charged as computed.

    Parameters
    ----------
    ups : list[tuple[LatticePmf, int]]
    los : list[tuple[LatticePmf, int]] | None
    h : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    eps_guess : float | None
    eps_query : float | None
    top : float
    tau : float
        Share of δ for each of the window's truncation and aliasing terms (`common.window_tau`).

    Returns
    -------
    Pass
    """
    lower = los is not None
    if los is None:
        los = ups
    th = theta_grid(top)
    k_up, k_lo = total_mgfs([ups, los], h, th) if lower else 2 * total_mgfs([ups], h, th)
    log_td = math.log(tau * delta)
    pos = th > 0
    if eps_query is None:
        # the hockey-stick Chernoff bound: (1 − e^{ε−s})₊ <= C(θ)·e^{θ(s−ε)} with C(θ) = θ^θ/(1 + θ)^{1+θ} (its
        # maximum over s), so δ_upper(ε) <= C(θ)·e^{K(θ) − θε}: an ε the upper curve meets, 20–30 % below the plain
        # Chernoff ε (mixture of Gaussians ×100: 1.19 for 1.58, ε = 0.718), so that half of it is a lower curve's
        # validity point that holds (half the plain one did not: a second pass)
        eps_ch = float(np.nanmin(hockey_stick_orders(k_up[pos], th[pos], math.log(delta))))
        # the lower curve is valid for ε >= eg; callers re-run when ε_lower < eg (None: a heuristic guess)
        eg = 0.5 * eps_ch if eps_guess is None else max(0.0, eps_guess)
        eg = max(0.0, min(eg, eps_ch))
    else:
        eps_ch = eps_query
        eg = eps_query
    # tilt: among the orders λ >= 0 that lift the region near ε to within _LIFT of the bulk (FFT round-off is
    # relative to the bulk), the one whose window (below) is the shortest on the grid's bounds: a larger λ lets the
    # window start closer to ε (the left tail's wrap-around is damped by e^{−λ·length}) but can push its top out
    # (the tilted loss is heavy-tailed). Poisson-subsampled Gaussian (z = 1.1, q = 256/60,000) ×14,063: λ = 3.25,
    # 38,400 points instead of λ = 0 and 46,080; ×1,000: 10,000 instead of 12,150
    nonneg = th >= 0
    ok = nonneg & (k_up - th * eps_ch <= math.log(delta) + _LIFT)
    lam = (_shortest_window(th, k_up, k_lo, th[ok], log_td, eg, eps_ch) if ok.any()
           else float(th[nonneg][int(np.nanargmin((k_up - th * eps_ch)[nonneg]))]))
    # refine θ around λ (the aliasing bounds need θ close to λ), then the window: upper tail of the upper PLD,
    # aliasing of the lower one (above and below)
    if lam > 0:
        loc = np.concatenate([lam * _REFINE_UP, lam * _REFINE_DOWN])
        th = np.concatenate([th, loc])
        loc_up, loc_lo = total_mgfs([ups, los], h, loc) if lower else 2 * total_mgfs([ups], h, loc)
        k_up, k_lo = np.concatenate([k_up, loc_up]), np.concatenate([k_lo, loc_lo])
    pos, gt, lt = th > 0, th > lam, th < lam
    lo_raw, above = _window_bounds(th, k_lo, np.array([lam]), log_td, eg)
    lo_w = min(float(lo_raw[0]), eg) - 2 * h
    hi1 = _min_over((k_up[pos] - log_td) / th[pos])
    # mass of the lower PLD above x_hi + (eg − x_lo) is the only aliased mass that lands above ε
    hi2 = float(above[0]) - (eg - lo_w)
    hi = max(hi1, hi2, eps_ch) + 2 * h
    off = math.fsum(c * d.c for d, c in ups)  # the composed lattice's offset: index k is loss k·h + off
    kk_lo = math.floor((lo_w - off) / h)
    need = math.ceil((hi - off) / h) - kk_lo + 1
    check_points(need, f"the composed privacy loss of the schedule (steps = {sum(c for _, c in ups)})", h)
    n = fft_len(max(need, 16))  # at least a few cells: the δ curve interpolates between lattice points
    _limits.charge(OP_SECONDS * n * math.log2(n) * (len(ups) + (len(los) if lower else 0) + 2),
                   f"an FFT composition of {len(ups)} distinct steps on {n:,} points")
    x_hi = (kk_lo + n - 1) * h + off
    # upper: composed mass at +∞ and P(S > window) by Chernoff
    p_inf = -math.expm1(sum(c * math.log1p(-d.p_inf) for d, c in ups))
    tail_up = math.exp(min(0.0, _min_over(k_up[pos] - th[pos] * x_hi)))
    composed = compose([ups, los] if lower else [ups], h, lam, kk_lo, n, [True, False] if lower else [True])
    w_up, lk_up, log_r, _ = composed[0]
    extra = min(1.0, p_inf + tail_up)
    # lower: aliasing bounds (coefficient of e^{−λε})
    x_lo = kk_lo * h + off
    # in log space (an e^700 cap on the coefficients would understate a larger bound: the lower curve too high)
    log_alias = float(np.logaddexp(_min_over(k_lo[gt] - (th[gt] - lam) * (x_hi + eg - x_lo)),
                                   _min_over(k_lo[lt] + (lam - th[lt]) * x_lo)))
    fr = frame(n, kk_lo, h, off, lam)
    up = build_curve(w_up, fr, lk_up, extra * (1 + MARGIN), lk_up + log_r + MARGIN, True)
    if not lower:
        return Pass(up, None, n, eg)
    w_lo, lk_lo, _, _ = composed[1]
    p_inf_lo = -math.expm1(sum(c * math.log1p(-d.p_inf) for d, c in los)) * (1.0 - MARGIN)
    lo = build_curve(w_lo, fr, lk_lo, p_inf_lo, log_alias + MARGIN, False)
    return Pass(up, lo, n, eg)



def _window_bounds(th: FloatArray, k_lo: FloatArray, lams: FloatArray, log_td: float, eg: float
                   ) -> tuple[FloatArray, FloatArray]:
    """For each tilt λ of ``lams``, on the orders ``th`` with the lower pairs' log-MGF bounds ``k_lo``: the window's
    start before it is capped at ``eg`` (the largest (log τδ + λ·eg − K(θ))/(λ − θ) over θ < λ, −∞ without one) and
    the distance above it that holds the lower PLD's aliased mass (the smallest finite (K(θ) − λ·eg − log τδ)/(θ − λ)
    over θ > λ, +∞ without one): the bounds of `compose_pass`, for all candidates at once."""
    lam = lams[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        below = (log_td + lam * eg - k_lo[None, :]) / (lam - th[None, :])
        above = (k_lo[None, :] - lam * eg - log_td) / (th[None, :] - lam)
    lt, gt = th[None, :] < lam, th[None, :] > lam
    lo_raw = np.where(lt & ~np.isnan(below), below, -np.inf).max(axis=1)
    return lo_raw, np.where(gt & np.isfinite(above), above, np.inf).min(axis=1)


def _shortest_window(th: FloatArray, k_up: FloatArray, k_lo: FloatArray, cands: FloatArray, log_td: float, eg: float,
                     eps_ch: float) -> float:
    """The candidate tilt whose window [lo, hi] (the bounds of `compose_pass`, on the orders ``th``) is the shortest;
    the smallest such tilt on ties."""
    lams = np.sort(cands)
    pos = th > 0
    hi1 = _min_over((k_up[pos] - log_td) / th[pos])
    lo_raw, above = _window_bounds(th, k_lo, lams, log_td, eg)
    lo_w = np.minimum(lo_raw, eg)
    with np.errstate(invalid="ignore"):
        length = np.fmax(np.fmax(hi1, above - (eg - lo_w)), eps_ch) - lo_w
    return float(lams[int(np.argmin(np.where(np.isnan(length), np.inf, length)))])  # the first on ties (all ∞: 0)


def step_points(steps: list[Step], direction: Direction, h: float, tail: float) -> FloatArray:
    """Lattice points of each step's loss range at spacing ``h`` (the atoms `discretise_many` computes: the loss
    at x = −zσ and 1 + zσ, z the tail quantile, as there).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    tail : float

    Returns
    -------
    FloatArray
    """
    sig = np.array([st.sigma for st in steps])
    qq = np.array([st.q for st in steps])
    zt = tail_z(max(tail, 1e-300))
    with np.errstate(over="ignore", invalid="ignore"):
        span = np.abs(losses(1.0 + zt * sig, sig, qq, direction) - losses(-zt * sig, sig, qq, direction)) / h
    return np.asarray(np.ceil(span) + 2.0)


def lattice_points(steps: list[Step], direction: Direction, h: float, tail: float) -> float:
    """Lattice points of all steps' loss ranges at spacing ``h`` (`step_points` summed).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    tail : float

    Returns
    -------
    float
    """
    return float(np.sum(step_points(steps, direction, h, tail)))


def charge_discretise(steps: list[Step], direction: Direction, h: float, tail: float, direct_sum: bool = False) -> None:
    """Book a pass's discretisation (every lattice point of every step, its quadrature and log-MGF terms; with
    ``direct_sum`` the δ evaluations of the direct sum too) against the work budget in force
    (`dpcalc._limits.charge`), before it runs.

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    tail : float
    direct_sum : bool
    """
    pts = lattice_points(steps, direction, h, tail)
    _limits.charge(pass_seconds(steps, direction, h, tail, direct_sum, pts),
                   f"{len(steps)} distinct steps on {pts:.3g} lattice points")


def pass_seconds(steps: list[Step], direction: Direction, h: float, tail: float, direct_sum: bool = False,
                 points: float | None = None) -> float:
    """The seconds a pass's discretisation books: `PASS_SECONDS` + `OP_SECONDS` per counted operation (each lattice
    point of each step times the Chernoff orders, plus the δ evaluations of a direct sum).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    tail : float
    direct_sum : bool
    points : float | None

    Returns
    -------
    float
    """
    pts = lattice_points(steps, direction, h, tail) if points is None else points
    return PASS_SECONDS + OP_SECONDS * pts * (_MGF_ORDERS + (_DIRECT_EVALS if direct_sum else 0))


def unit_parts(parts: list[tuple[LatticePmf, int]]) -> list[LatticePmf]:
    """Each discretised step repeated ``count`` times.

    Parameters
    ----------
    parts : list[tuple[LatticePmf, int]]

    Returns
    -------
    list[LatticePmf]
    """
    return [d for d, c in parts for _ in range(c)]


def direct_eps(ups: list[LatticePmf], los: list[LatticePmf] | None, h: float,
               delta: float) -> tuple[float, float, int]:
    """(ε_lower, ε_upper, atoms) of a composition of one or two discretised steps, summed directly
    (`dpcalc.accounting.pld.direct`); ε_lower = 0 without lower pairs.

    Parameters
    ----------
    ups : list[LatticePmf]
    los : list[LatticePmf] | None
    h : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    tuple[float, float, int]
    """
    def one(parts: list[LatticePmf], upper: bool) -> float:
        a, b = (parts[0], parts[1]) if len(parts) == 2 else (direct.identity(), parts[0])
        return direct.eps_of(direct.delta_of_pair(a, b, h, upper), delta, direct.composed_top(parts, h), upper)

    e_up = one(ups, True)
    e_lo = one(los, False) if los is not None else 0.0
    return e_lo, e_up, max(d.p.size for d in ups)


def convolved_eps(ups: list[tuple[LatticePmf, int]], los: list[tuple[LatticePmf, int]] | None, h: float,
                  delta: float) -> tuple[float, float, int]:
    """(ε_lower, ε_upper, atoms) of a composition convolved directly (`dpcalc.accounting.pld.direct.compose`: every
    composed atom to a relative error bound, no FFT floor), δ(ε) by suffix sums; ε_lower = 0 without lower pairs.

    Parameters
    ----------
    ups : list[tuple[LatticePmf, int]]
    los : list[tuple[LatticePmf, int]] | None
    h : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    tuple[float, float, int]
    """
    def one(parts: list[tuple[LatticePmf, int]], upper: bool) -> tuple[float, int]:
        whole, rel = direct.compose(parts, upper)
        fn = direct.with_error(direct.delta_of_pair(direct.identity(), whole, h, upper), rel, upper)
        return direct.eps_of(fn, delta, direct.composed_top([whole], h), upper), whole.p.size

    e_up, n = one(ups, True)
    e_lo = one(los, False)[0] if los is not None else 0.0
    return e_lo, e_up, n


def _convolution_pass(steps: list[Step], direction: Direction, h: float, delta: float,
                      lower: bool) -> tuple[float, float, int] | None:
    """The pass by direct convolution at tiny δ (`direct.CONVOLUTION_DELTA`) when it costs at most
    `direct.MAX_CONVOLUTION_OPS` multiply-adds, else None (the FFT pass)."""
    if delta > direct.CONVOLUTION_DELTA:
        return None
    total = sum(st.count for st in steps)
    tail = tail_mass(total, delta)
    pts = step_points(steps, direction, h, tail)
    ops = direct.convolution_ops([(int(min(n, 1e9)), st.count) for n, st in zip(pts, steps, strict=True)])
    if not ops <= direct.MAX_CONVOLUTION_OPS:
        return None
    charge_discretise(steps, direction, h, tail)
    _limits.charge(CONV_OP_SECONDS * ops * (2 if lower else 1), f"a direct convolution of {total} steps")
    theta, _ = saddle(steps, direction, delta, tail)
    pairs = discretise_many(steps, direction, h, tail, theta, lower, sparse=False)
    ups = [(u, st.count) for st, (u, _) in zip(steps, pairs, strict=True)]
    los = [(lo, st.count) for st, (_, lo) in zip(steps, pairs, strict=True)] if lower else None
    return convolved_eps(ups, los, h, delta)


def eps_pass(steps: list[Step], direction: Direction, h: float, delta: float, guess: float | None,
             lower: bool, settle: float = -math.inf, tau: float = TAU) -> tuple[float, float, int]:
    """(ε_lower, ε_upper, FFT length) of one direction at spacing h; ε_lower = 0 when ``lower`` is False. A
    composition of at most `MAX_DIRECT_STEPS` steps is summed directly; at tiny δ a larger one is convolved
    directly when that is cheap (`_convolution_pass`). An upper-bound-only pass whose upper pairs' hockey-stick
    Chernoff bound (`chernoff.hockey_stick_eps`) is already at most ``settle`` returns that bound (FFT length 0)
    without composing: the caller only asks whether this direction's ε is below ``settle``.

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    guess : float | None
    lower : bool
    settle : float
    tau : float
        Share of δ for each truncation term: the FFT window's and the steps' neglected tails (`common.window_tau`).

    Returns
    -------
    tuple[float, float, int]
    """
    total = sum(st.count for st in steps)
    if total > direct.MAX_DIRECT_STEPS:
        conv = _convolution_pass(steps, direction, h, delta, lower)
        if conv is not None:
            return conv
    if total <= direct.MAX_DIRECT_STEPS:
        tail = tail_mass(total, delta)
        charge_discretise(steps, direction, h, tail, direct_sum=True)
        theta, _ = saddle(steps, direction, delta, tail)
        pairs = discretise_many(steps, direction, h, tail, theta, lower, sparse=False)
        ups = unit_parts([(u, st.count) for st, (u, _) in zip(steps, pairs, strict=True)])
        los = unit_parts([(lo, st.count) for st, (_, lo) in zip(steps, pairs, strict=True)]) if lower else None
        return direct_eps(ups, los, h, delta)
    if lower or not math.isfinite(settle):
        return _fft_pass(steps, direction, h, delta, guess, lower, tau)[:3]
    uppers, _, top = _discretised(steps, direction, h, delta, None, False, tau)
    bound = hockey_stick_eps(uppers, h, theta_grid(top), delta)
    if bound <= settle:
        return 0.0, bound, 0
    return eps_of_passes(lambda g: compose_pass(uppers, None, h, delta, g, None, top, tau), delta, guess, h)


def _fft_pass(steps: list[Step], direction: Direction, h: float, delta: float, guess: float | None,
              lower: bool, tau: float = TAU) -> tuple[float, float, int, list[tuple[LatticePmf, int]]]:
    """`eps_of_passes` of the steps discretised once at spacing h (re-runs with a lower guess only compose again),
    and their upper pairs."""
    ups, los, top = _discretised(steps, direction, h, delta, None, lower, tau)
    lo, up, n = eps_of_passes(lambda g: compose_pass(ups, los if lower else None, h, delta, g, None, top, tau), delta,
                              guess, h)
    return lo, up, n, ups


def swap_bounds_add(steps: list[Step], delta: float) -> bool:
    """Whether `remove_pass` bounds the add direction from the remove pairs: the pass composes by the FFT (more than
    `direct.MAX_DIRECT_STEPS` steps, δ above `direct.CONVOLUTION_DELTA`) and every step is subsampled (q < 1: the
    remove loss is at least log(1 − q))."""
    return (sum(st.count for st in steps) > direct.MAX_DIRECT_STEPS and delta > direct.CONVOLUTION_DELTA
            and all(st.q < 1.0 for st in steps))


def remove_pass(steps: list[Step], h: float, delta: float, guess: float | None,
                tau: float = TAU) -> tuple[float, float, int, float]:
    """`eps_pass` of the remove direction with both ends, and an upper bound on the add direction's ε from the same
    upper pairs (`chernoff.swapped_hockey_stick_eps`: no discretisation of the add direction); that bound is +inf
    unless `swap_bounds_add`.

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    h : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    guess : float | None
    tau : float
        As for `eps_pass`.

    Returns
    -------
    tuple[float, float, int, float]
    """
    if not swap_bounds_add(steps, delta):
        return (*eps_pass(steps, "remove", h, delta, guess, True, tau=tau), math.inf)
    lo, up, n, ups = _fft_pass(steps, "remove", h, delta, guess, True, tau)
    tail = tail_mass(sum(st.count for st in steps), delta, tau)  # what the pass's discretisation left out
    add = swapped_hockey_stick_eps(ups, [math.log1p(-st.q) for st in steps], tail, h,
                                   theta_grid(theta_top(steps, "add")), delta)
    return lo, up, n, add


def eps_of_passes(make: Callable[[float | None], Pass], delta: float, guess: float | None,
                  h: float) -> tuple[float, float, int]:
    """(ε_lower, ε_upper, FFT length) from passes ``make(guess)``: re-run with a lower guess while the lower curve's ε
    falls below the ε from which it is valid (four tries, then ε_lower = 0).

    Parameters
    ----------
    make : Callable[[float | None], Pass]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    guess : float | None
    h : float

    Returns
    -------
    tuple[float, float, int]
    """
    g = guess
    for _ in range(4):
        ps = make(g)
        e_up = ps.up.eps(delta)
        if ps.lo is None:
            return 0.0, e_up, ps.n
        e_lo = ps.lo.eps(delta, e_up)  # galloping from the upper curve's answer: a few cells away
        if e_lo >= ps.eg or ps.eg == 0.0:  # the lower curve is valid for ε >= the window's guess
            return e_lo, e_up, ps.n
        g = max(0.0, e_lo - 0.1 * abs(e_lo) - 4 * h) if math.isfinite(e_lo) else 0.0
    return 0.0, e_up, ps.n
