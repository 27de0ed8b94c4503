"""Composition of any privacy losses (`losses`): labelled Gaussian pairs (sampling with replacement) in closed form
(`gdp_mixture`); every other pair discretised on the
lattice (`atoms`), then summed directly (one or two steps) or composed by the FFT pass
(`compose_pass`); the lattice is refined until the bracket meets the tolerance,
or one line refuses."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpcalc import _limits
from dpcalc import _validate as v
from dpcalc.accounting.pld import direct, gdp_mixture, single, sizing
from dpcalc.accounting.pld.accountant import (
    DeltaBracket,
    EpsBracket,
    check_delta,
    check_rtol,
    delta_toleranced,
    no_finite_bound,
    toleranced,
)
from dpcalc.accounting.pld.atoms import SNAP_ULPS, Atoms, aligned, atoms_of, edge_offset, lattice_pairs, offset
from dpcalc.accounting.pld.chernoff import hockey_stick_eps, theta_grid
from dpcalc.accounting.pld.common import TAU, UNIT_ROUNDOFF, MemoryCapError, tail_mass, window_tau
from dpcalc.accounting.pld.losses import AtomPair, NoisePair, Pair, PrivacyLoss
from dpcalc.accounting.pld.passes import (
    CONV_OP_SECONDS,
    compose_pass,
    convolved_eps,
    direct_eps,
    eps_of_passes,
    unit_parts,
)
from dpcalc.accounting.pld.pmf import LatticePmf

__all__ = ["delta_generic", "epsilon_generic", "orientations"]

Parts = list[tuple[LatticePmf, int]]

#: the first lattice is this much coarser than the worst-case sizing: the bracket is often far narrower than
#: needed (atoms, Laplace), and when it is not, the next pass sizes h from the measured width
_COARSE = 2.0


def orientations(components: list[tuple[PrivacyLoss, int]]) -> dict[str, list[tuple[Pair, int]]]:
    """The pairs to compose per orientation (one when every loss is symmetric), equal pairs merged.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]

    Returns
    -------
    dict[str, list[tuple[Pair, int]]]
    """
    names = ["remove"] if all(loss.symmetric for loss, _ in components) else ["remove", "add"]
    out: dict[str, list[tuple[Pair, int]]] = {}
    for name in names:
        merged: dict[Pair, int] = {}
        for loss, count in components:
            pair = loss.remove if name == "remove" else loss.add
            merged[pair] = merged.get(pair, 0) + count
        out[name] = list(merged.items())
    return out


def _discretise(pairs: list[tuple[Pair, int]], h: float, tail: float, lower: bool) -> tuple[Parts, Parts]:
    """Lattice pairs of each distinct pair, each with the offset that puts its heaviest point mass on the lattice
    (or, for a continuous loss that piles up at an edge, balances the lower pair there: `atoms.edge_offset`)."""
    ups: Parts = []
    los: Parts = []
    for pair, count in pairs:
        at = atoms_of(pair, h, tail)
        c, edge = edge_offset(at, h) if lower else (offset(at, h), None)
        up, lo = lattice_pairs(at, h, c, lower, edge)
        ups.append((up, count))
        los.append((lo, count))
    return ups, los


@lru_cache(maxsize=64)
def _coarse_atoms(pair: Pair, tail: float) -> Atoms:
    """The pair's atoms for a unit lattice: its point masses (which do not depend on the lattice), and losses and
    masses good for moments and scales (the quadrature cells do not need the lattice's preimages for those)."""
    return atoms_of(pair, 1.0, tail)


def _aligned_h(orient: dict[str, list[tuple[Pair, int]]], h: float, tail: float) -> float:
    """The spacing ≤ h that puts the two heaviest point masses of the most frequent pair on the lattice."""
    pair, _ = max(orient["remove"], key=lambda pc: pc[1])
    return aligned(_coarse_atoms(pair, tail), h)[0]


def _theta_top(ups: Parts, h: float) -> float:
    """Largest tilt order: ≈ 100/std of the composed loss (at least 512, a power of 2), as for the schedules."""
    sd = _composed_sd(ups, h)
    if not sd > 0.0:
        return 512.0
    return float(2.0 ** math.ceil(math.log2(min(1e9, max(512.0, 100.0 / sd)))))


def _exact_lattice(orient: dict[str, list[tuple[Pair, int]]], tail: float) -> float | None:
    """The spacing g of a lattice that holds every loss of every pair (each pair at its own offset), when all are
    point masses (finite and discrete pairs) and their losses are multiples of g apart (within 1e-11 of a cell: the
    lower pair counts a point mass up to 1e-9·h below a lattice point as on it, covered by its masses' margin);
    None otherwise. On it the upper and lower lattice pairs equal the pairs themselves."""
    pairs = [p for pairs in orient.values() for p, _ in pairs]
    if not all(isinstance(p, AtomPair) or (isinstance(p, NoisePair) and p.kind in ("discrete_laplace",
                                                                                 "discrete_gaussian"))
               for p in pairs):
        return None
    atoms = [_coarse_atoms(p, tail) for p in pairs]
    # the smallest distance between two distinct losses of the pair with the most (any two losses are on a lattice:
    # randomized response under replace_special, whose second loss has 3e-4 of the mass, was rounded onto a lattice
    # of 0.0047 and composed ×2228 by a 2.2-million-point FFT)
    loss = np.unique(max(atoms, key=lambda a: a.loss.size).loss)
    if loss.size == 0:  # every atom at an infinite loss (disjoint supports): no lattice to find
        return None
    gaps = np.diff(loss)
    gaps = gaps[gaps > 1e-9 * max(1.0, float(np.abs(loss).max()))]
    if gaps.size == 0:
        return None
    d = float(gaps.min())
    span = float(loss[-1] - loss[0])
    d = span / round(span / d)  # from the whole range: one gap carries its losses' rounding (5.5e-13 of 0.04)
    for j in range(1, 9):  # the coarsest d/j that holds every loss
        g = d / j
        if all(_on(at, g) for at in atoms):
            return g
    return None


def _on_lattice_spacing(orient: dict[str, list[tuple[Pair, int]]], g: float, h: float,
                        tail: float) -> tuple[float, bool]:
    """(spacing, convolve) for losses on the lattice of spacing g: g itself with a direct convolution when that is
    cheaper than the FFT (`_convolve_first`); else the coarsest g/j ≤ `_MAX_H` for the FFT when it is no finer than
    the tolerance's h; else h (the rounding path)."""
    sizes = [(lattice_pairs(atoms_of(p, g, tail), g, 0.0, False)[0].p.size, c)
             for pairs in orient.values() for p, c in pairs]
    sub = g / math.ceil(g / _MAX_H)
    span = max(sum(c * (n - 1) for (n, c) in sizes[i:i + len(pairs)]) + 1
               for i, pairs in zip(_starts(orient), orient.values(), strict=True))
    if _convolve_first(direct.convolution_ops(sizes), span * g / sub):
        return g, True
    return (sub, False) if sub >= h else (_aligned_h(orient, h, tail), False)


def _starts(orient: dict[str, list[tuple[Pair, int]]]) -> list[int]:
    """Index of each orientation's first pair in the flat list of all pairs."""
    out, at = [], 0
    for pairs in orient.values():
        out.append(at)
        at += len(pairs)
    return out


def _convolve_first(ops: float, points: float) -> bool:
    """Whether a direct convolution of ``ops`` multiply-adds is preferred to an FFT over the composed lattice of
    ``points`` points: always when cheap (`_CHEAP_OPS`), up to `_MAX_EXACT_OPS` when within `_FFT_RATIO` of the
    FFT's points·log₂(points) (the FFT's window is smaller than the whole lattice, so this leans to the exact sum).
    Discrete Gaussian ×100 (0.04 apart): 3e7 against 9,500 points, the FFT (2 ms; the convolution took 25 ms);
    randomized response ×2228: 1.3e7 against 6.7e5 points on the lattice subdivided to 0.05, the convolution."""
    if ops <= _CHEAP_OPS:
        return True
    return ops <= _MAX_EXACT_OPS and ops <= _FFT_RATIO * points * math.log2(max(points, 2.0))


def _on(at: Atoms, g: float) -> bool:
    """Every loss of ``at`` within 1e-11 of a cell from the lattice of spacing g through its heaviest point mass."""
    k = (at.loss - offset(at, g)) / g
    return bool(np.all(np.abs(k - np.round(k)) <= 1e-11))


def _eps_scale(orient: dict[str, list[tuple[Pair, int]]], total: int, delta: float, h: float) -> float:
    """How many nats the target ``rtol·ε`` is worth, in [1, 100], for sizing the first lattice: half a normal
    approximation of ε (mean + √(2 ln 1/δ)·sd of the composed loss, from the most frequent pair's atoms). Only
    the work depends on it (a lattice too coarse for the bracket is refined by the next pass); 1 where the loss has
    mass at +∞. Laplace ×1000 at ε = 17.4: one pass at 24,000 points instead of 72,000."""
    pair, _ = max(orient["remove"], key=lambda pc: pc[1])
    at = _coarse_atoms(pair, tail_mass(total, delta))
    mass = float(at.p.sum())
    if at.p_inf > 0.0 or at.p_high > 0.0 or not mass > 0.0:
        return 1.0
    mean, var = _mean_var(at.p, at.loss)
    est = total * mean + math.sqrt(total * var * 2.0 * math.log(1.0 / delta))
    return min(100.0, max(1.0, 0.5 * est)) if math.isfinite(est) else 1.0


#: the FFT pass runs at spacings up to this (its tilts and window are sized for it)
_MAX_H = 0.05
#: a composition is convolved directly (on its own lattice when its losses lie on one) when that costs at most this
#: many multiply-adds (np.convolve: 1–2 ns each measured at load 11, so ≲ 0.2 s; booked at `CONV_OP_SECONDS`); else
#: it is composed by the FFT (on that lattice subdivided to at most `_MAX_H`). Randomized response ×2228: 1.3e7, one
#: exact convolution of 4,457 atoms instead of a 204,800-point FFT (1.9 → 0.1 s); discrete Laplace ×1397: 7.7e7,
#: 0.29 s instead of an 800,000-point FFT (4.6 s)
_MAX_EXACT_OPS = 1e8
#: below this many multiply-adds the direct convolution is always taken
_CHEAP_OPS = 2e6
#: the direct convolution is taken when it costs at most this many multiply-adds per point·log₂ of the FFT's lattice
_FFT_RATIO = 20.0
#: error of one step's loss as represented, in units of 1 + |loss| + 2|log P| + h of its worst atom: its masses to a
#: few ulps, the logs of P and Q (each to an ulp of itself), the lattice offset (below h), and the lower pair
#: counting a point mass within rounding below a lattice point as on it (`atoms.SNAP_ULPS`); composed, every
#: composed loss may move by Σ count·this·(that scale)
_LOSS_ULPS = 8.0 * UNIT_ROUNDOFF + SNAP_ULPS


def _position_error(orient: dict[str, list[tuple[Pair, int]]], h: float, tail: float) -> float:
    """A bound on how far the composed losses may sit from their lattice positions (`_LOSS_ULPS` per step, added
    over the steps of the orientation). At ε = 17,924 (randomized response ×2228) it is 2e-10: a bracket 1e-10 wide
    there has to move out by it."""
    err = 0.0
    for pairs in orient.values():
        total = 0.0
        for pair, count in pairs:
            at = _coarse_atoms(pair, tail)
            with np.errstate(divide="ignore"):
                scale = float(np.max(np.abs(at.loss) + 2.0 * np.abs(np.log(at.p)))) if at.loss.size else 0.0
            total += count * _LOSS_ULPS * (1.0 + scale + h)
        err = max(err, total)
    return err


def _pass(pairs: list[tuple[Pair, int]], h: float, delta: float, lower: bool,
          convolve: bool = False, parts: tuple[Parts, Parts] | None = None,
          settle: float = -math.inf, tau: float = TAU) -> tuple[float, float, int]:
    """(ε_lower, ε_upper, points) of one orientation at spacing h: one or two steps summed directly; more steps
    convolved directly when ``convolve`` or when that is cheaper (`_convolve_first`), else composed by the FFT; and
    convolved after all (up to `direct.MAX_CONVOLUTION_OPS`) when the FFT's lower curve gave nothing. ``parts``: the
    pairs already discretised at h (with their lower pairs). An upper-bound-only pass returns the hockey-stick
    Chernoff bound of its upper pairs instead of composing them when that is already at most ``settle``
    (`passes.eps_pass`)."""
    total = sum(c for _, c in pairs)
    tail = tail_mass(total, delta)
    ups, los = parts if parts is not None else _discretise(pairs, h, tail, lower)
    if total <= direct.MAX_DIRECT_STEPS:
        return direct_eps(unit_parts(ups), unit_parts(los) if lower else None, h, delta)
    ops = direct.convolution_ops([(d.p.size, c) for d, c in ups])
    points = sum(c * (d.p.size - 1) for d, c in ups) + 1.0
    if convolve or _convolve_first(ops, points):  # every composed atom to a relative error bound: no FFT, no tilt
        return _convolved(ups, los if lower else None, h, delta, ops)
    top = _theta_top(ups, h)
    if not lower and math.isfinite(settle):
        bound = hockey_stick_eps(ups, h, theta_grid(top), delta)
        if bound <= settle:
            return 0.0, bound, 0
    e_lo, e_up, n = eps_of_passes(lambda g: compose_pass(ups, los if lower else None, h, delta, g, None, top, tau),
                                  delta, None, h)
    if lower and e_lo <= 0.0 < e_up and ops <= direct.MAX_CONVOLUTION_OPS:
        # the lower curve's aliasing bound swamped δ at every window (ε near the top of a bounded loss: Laplace ×3
        # at δ = 1e-10 had [0, 3] at every lattice): the direct convolution has no such term
        c_lo, c_up, c_n = _convolved(ups, los, h, delta, ops)
        return max(e_lo, c_lo), min(e_up, c_up), max(n, c_n)
    return e_lo, e_up, n


def _convolved(ups: Parts, los: Parts | None, h: float, delta: float, ops: float) -> tuple[float, float, int]:
    """`convolved_eps`, its multiply-adds booked against the work budget first."""
    _limits.charge(CONV_OP_SECONDS * ops * (1 if los is None else 2), f"a direct convolution of {len(ups)} losses")
    return convolved_eps(ups, los, h, delta)


@dataclass
class _First:
    """The first pass's plan: spacing ``h``, the orientation ``main`` expected to be the worse (largest Chernoff
    estimate), and the probe's pairs when the probe's own lattice is used (``parts``, keyed by orientation)."""

    h: float
    main: str
    parts: dict[str, tuple[Parts, Parts]]


def _first_spacing(orient: dict[str, list[tuple[Pair, int]]], h: float, delta: float, tol: float, a_tol: float,
                   tail: float) -> _First:
    """The first lattice from the asked tolerance (`sizing`). The orientation with the largest ε (`_atoms_chernoff`,
    from the pairs' cached atoms: no lattice) is discretised at a probe spacing (twice the count-based ``h``), its
    bracket width and ε predicted from the probe's pairs, and the spacing that gives it a width of 70 % of
    rtol·ε + atol (ε from 0.85 of its Chernoff estimate, which lies above it) chosen, at most twice the probe's. The
    probe's lattice and pairs are used as they are when that spacing is within 30 % above the probe's, or further
    above it while the probe's composition stays small (`_REUSE_POINTS`): discretising again would cost more than
    the finer FFT (Laplace ×1,000: 8,000 points instead of 4,320)."""
    hp = _aligned_h(orient, min(2.0 * h, _MAX_H), tail)
    guess = {name: _atoms_chernoff(pairs, delta, tail) for name, pairs in orient.items()}
    main = max(guess, key=lambda k: guess[k])
    parts = _discretise(orient[main], hp, tail, True)
    theta, est = sizing.chernoff_eps(parts[0], hp, delta)
    if not math.isfinite(est):
        return _First(hp, main, {main: parts})
    width = sizing.predicted_width(*parts, hp, theta)
    # at most twice the probe's spacing: the prediction fails near the top of a bounded loss (Laplace(1) ×10 at
    # δ = 1e-5 sits at ε ≈ 10, where the width was 150 predicted widths at h = 0.01)
    want = min(_MAX_H, 2.0 * hp, sizing.spacing_for(hp, width, tol * 0.85 * est + a_tol))
    if hp <= want <= 1.3 * hp or (want > hp and _REUSE_SDS * _composed_sd(parts[0], hp) / hp <= _REUSE_POINTS):
        return _First(hp, main, {main: parts})
    return _First(_aligned_h(orient, max(1e-7, want), tail), main, {})


#: the probe's lattice is kept when the composition there spans at most this many points (estimated as
#: `_REUSE_SDS` standard deviations of the composed loss): an FFT of that size costs less than a second
#: discretisation (Laplace ×1,000: 8,000 points, 0.5 ms more than at the 1.9× coarser lattice, which cost 0.8 ms to
#: discretise)
_REUSE_POINTS = 16384
_REUSE_SDS = 12.0


def _composed_sd(ups: Parts, h: float) -> float:
    """Standard deviation of the composed loss of the lattice pairs (0 when it has no finite mass)."""
    var = math.fsum(c * _mean_var(d.p, (d.k0 + np.arange(d.p.size)) * h + d.c)[1] for d, c in ups if d.p.sum() > 0.0)
    return math.sqrt(var) if var > 0.0 else 0.0


def _mean_var(p: np.ndarray, loss: np.ndarray) -> tuple[float, float]:
    """Mean and variance of the losses under the masses ``p`` normalised (their total must be positive)."""
    mass = float(p.sum())
    mean = float(p @ loss) / mass
    return mean, float(p @ (loss - mean) ** 2) / mass


def _atoms_chernoff(pairs: list[tuple[Pair, int]], delta: float, tail: float) -> float:
    """An approximate Chernoff ε of one orientation from its pairs' atoms for a unit lattice (`_coarse_atoms`,
    cached; their mass at +∞ left out, as `sizing.chernoff_eps` does): it only chooses which orientation sizes the
    first lattice."""
    th = sizing.THETAS
    k = np.zeros(th.size)
    for pair, count in pairs:
        at = _coarse_atoms(pair, tail)
        keep = at.p > 0.0
        if not keep.any():
            return math.inf
        z = np.log(at.p[keep])[:, None] + at.loss[keep][:, None] * th[None, :]
        mx = z.max(axis=0)
        k += count * (np.log(np.exp(z - mx).sum(axis=0)) + mx)
    return float(np.min((k - math.log(delta)) / th))


def _first_passes(orient: dict[str, list[tuple[Pair, int]]], first: _First, delta: float, lows: dict[str, float],
                  ups: dict[str, float], tau: float = TAU) -> dict[str, tuple[float, float, int]]:
    """The first pass: the main orientation with both ends at the planned spacing; each other one first with its
    upper end only, at a lattice four times coarser (an orientation whose upper end is below the main one's lower end
    cannot be the worse), and with both ends at the planned spacing only when it is not settled so."""
    h = first.h
    res = {first.main: _pass(orient[first.main], h, delta, True, parts=first.parts.get(first.main), tau=tau)}
    for name in orient:
        if name == first.main:
            continue
        coarse = _aligned_h(orient, min(4.0 * h, _MAX_H), tail_mass(sum(c for _, c in orient[name]), delta))
        _, up, _ = _pass(orient[name], coarse, delta, False, settle=res[first.main][0], tau=tau)
        if up > res[first.main][0]:
            res[name] = _pass(orient[name], h, delta, True, parts=first.parts.get(name), tau=tau)
            up = min(up, res[name][1])
            res[name] = (res[name][0], up, res[name][2])
        else:
            res[name] = (0.0, up, 0)
    return res


def epsilon_generic(components: list[tuple[PrivacyLoss, int]], delta: float, *, rtol: float | None,
                    atol: float, max_iter: int = 10) -> EpsBracket:
    """Certified ε bracket of the composition (both orientations; the worse reported, lower bound the larger): the
    lattice refined until the bracket meets the tolerance, or finer lattices stop narrowing it, or the memory cap
    stops them; then the tightest bracket found, ``met = False``. Raises only without a finite upper end.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    rtol : float | None
        Relative tolerance of the root finder.
    atol : float
    max_iter : int

    Returns
    -------
    EpsBracket

    Raises
    ------
    DomainError
        An input (``atol``) outside its domain; the one-line message names it and the allowed range.
    """
    d = check_delta(delta)
    tol = check_rtol(rtol)
    a_tol = float(v.check_range("atol", atol, 0.0, 1.0))
    exact = gdp_mixture.eps_bracket(components, d) or single.eps_bracket(components, d)
    if exact is not None:
        return toleranced(exact, tol, a_tol)
    orient = orientations(components)
    total = sum(c for _, c in components)
    scale = _eps_scale(orient, total, d, min(0.05, math.sqrt(1e-3 / total)))
    h = min(0.05, max(1e-7, _COARSE * math.sqrt((tol * 0.5 * scale + a_tol) / (4.0 * total))))
    width_before = math.inf
    n, stalled = 0, 0
    lows = dict.fromkeys(orient, 0.0)  # per orientation: the best bounds over the passes (each pass's are valid)
    ups = dict.fromkeys(orient, math.inf)
    tail = tail_mass(total, d)
    on_lattice = _exact_lattice(orient, tail)
    worst, e_lo, e_up = "remove", 0.0, math.inf
    first: _First | None = None
    for i in range(max_iter):
        # losses that all lie on one lattice (RR, discrete Laplace, pure DP): that lattice, no rounding at all
        convolve = False
        try:
            if i == 0 and on_lattice is not None:
                h, convolve = _on_lattice_spacing(orient, on_lattice, h, tail)
            elif i == 0:
                first = _first_spacing(orient, h, d, tol, a_tol, tail)
                h = first.h
            else:
                h = _aligned_h(orient, min(h, _MAX_H), tail)
            # an orientation whose upper end is below another's lower end cannot be the worse: not composed again
            live = [name for name in orient if ups[name] > max(lows.values())]
            if first is not None and i == 0:
                res = _first_passes(orient, first, d, lows, ups, window_tau(tol))
            else:
                res = {name: _pass(orient[name], h, d, True, convolve, tau=window_tau(tol)) for name in live}
        except MemoryCapError:
            if not math.isfinite(e_up):
                raise
            break  # the tightest bracket so far
        for name, r in res.items():
            lows[name], ups[name] = max(lows[name], r[0]), min(ups[name], r[1])
        worst = max(ups, key=lambda k: ups[k])
        e_lo, e_up = max(lows.values()), ups[worst]
        n = max((r[2] for r in res.values()), default=n)
        if e_lo == math.inf:  # the mass at loss +∞ alone exceeds δ (e.g. an (ε, δ₀) release at δ < δ₀): no finite ε
            return toleranced(EpsBracket(math.inf, math.inf, d, worst, h, n), tol, a_tol)
        width = e_up - e_lo
        target = tol * e_up + a_tol
        if math.isfinite(e_up) and width <= target:
            break
        stalled = stalled + 1 if math.isfinite(width) and width > 0.9 * width_before else 0
        if stalled >= 2:
            break
        width_before = width
        h *= (max(0.05, min(0.5 if stalled else 0.9, 0.9 * math.sqrt(target / width)))
              if math.isfinite(width) and width > 0 else 0.25)
    if not math.isfinite(e_up):
        raise no_finite_bound(e_lo, e_up, d)
    # the ends moved out by the error of the composed losses' positions and of the float ε itself
    err = _position_error(orient, h, tail)
    e_up = e_up + err + 4.0 * UNIT_ROUNDOFF * e_up
    e_lo = max(0.0, e_lo - err - 4.0 * UNIT_ROUNDOFF * e_lo)
    return toleranced(EpsBracket(e_lo, e_up, d, worst, h, n, {"iterations": float(i + 1)}), tol, a_tol)


def _delta_pass(pairs: list[tuple[Pair, int]], h: float, e: float, err: float) -> tuple[float, float, int]:
    """(δ_lower, δ_upper, points) of one orientation at ε and spacing h: summed directly (one or two steps),
    convolved directly when cheap, else by the FFT; the upper curve read at ε − err and the lower at ε + err
    (``err`` the composed losses' position error, `_position_error`)."""
    total = sum(c for _, c in pairs)
    tail = tail_mass(total, 1e-30)
    up_p, lo_p = _discretise(pairs, h, tail, True)
    e_up, e_lo = max(0.0, e - err), e + err
    if total <= direct.MAX_DIRECT_STEPS:
        uu, ll = unit_parts(up_p), unit_parts(lo_p)
        a_u, b_u = (uu[0], uu[1]) if total == 2 else (direct.identity(), uu[0])
        a_l, b_l = (ll[0], ll[1]) if total == 2 else (direct.identity(), ll[0])
        return (direct.delta_of_pair(a_l, b_l, h, False)(e_lo), direct.delta_of_pair(a_u, b_u, h, True)(e_up),
                max(p.p.size for p in uu))
    ops = direct.convolution_ops([(d.p.size, c) for d, c in up_p])
    if _convolve_first(ops, sum(c * (d.p.size - 1) for d, c in up_p) + 1.0):
        _limits.charge(CONV_OP_SECONDS * ops * 2, f"a direct convolution of {len(up_p)} losses")
        (w_up, r_up), (w_lo, r_lo) = direct.compose(up_p, True), direct.compose(lo_p, False)
        du = direct.with_error(direct.delta_of_pair(direct.identity(), w_up, h, True), r_up, True)(e_up)
        dl = direct.with_error(direct.delta_of_pair(direct.identity(), w_lo, h, False), r_lo, False)(e_lo)
        return float(dl), float(du), w_up.p.size
    ps = compose_pass(up_p, lo_p, h, 1e-30, e, e, _theta_top(up_p, h))
    assert ps.lo is not None
    return ps.lo.delta(e_lo), ps.up.delta(e_up), ps.n


#: δ brackets: passes at most (the spacing halved after each that does not meet the tolerance)
_DELTA_PASSES = 3


def delta_generic(components: list[tuple[PrivacyLoss, int]], eps: float) -> DeltaBracket:
    """Certified δ bracket at ε of the composition (the worse orientation), at a lattice sized from the count and
    halved (at most `_DELTA_PASSES` passes) until δ_upper − δ_lower ≤ 1e-3·δ_upper; the best bounds of every pass
    are kept (each is valid), ``met`` says whether they meet that.

    Parameters
    ----------
    components : list[tuple[PrivacyLoss, int]]
    eps : float
        Privacy level ε.

    Returns
    -------
    DeltaBracket

    Raises
    ------
    DomainError
        An input (``eps``) outside its domain; the one-line message names it and the allowed range.
    """
    e = float(v.check_range("eps", eps, 0.0, math.inf))
    exact = gdp_mixture.delta_bracket(components, e) or single.delta_bracket(components, e)
    if exact is not None:
        return delta_toleranced(exact)
    total = sum(c for _, c in components)
    h = float(min(0.05, max(1e-6, 0.6 * math.sqrt(1e-3 * max(e, 0.1) / total))))
    orient = orientations(components)
    tail = tail_mass(total, 1e-30)
    lows = dict.fromkeys(orient, 0.0)
    ups = dict.fromkeys(orient, 1.0)
    n, best = 0, None
    on_lattice = _exact_lattice(orient, tail)
    for i in range(_DELTA_PASSES):
        try:
            on_grid = False
            if i == 0 and on_lattice is not None:  # losses on one lattice, convolved on it when cheap: exact
                g, on_grid = _on_lattice_spacing(orient, on_lattice, h, tail)
                h = g if on_grid else h
            if not on_grid:
                h = _aligned_h(orient, h, tail)
            err = _position_error(orient, h, tail) + 4.0 * UNIT_ROUNDOFF * e
            res = {name: _delta_pass(pairs, h, e, err) for name, pairs in orient.items()}
        except MemoryCapError:
            if best is None:
                raise
            break
        for name, (dl, du, npts) in res.items():
            lows[name], ups[name] = max(lows[name], max(0.0, dl)), min(ups[name], min(1.0, du))
            n = max(n, npts)
        worst = max(ups, key=lambda k: ups[k])
        best = delta_toleranced(DeltaBracket(max(lows.values()), ups[worst], e, worst, h, n))
        if best.met or on_grid:  # on its own lattice nothing is rounded: a finer one cannot do better
            break
        h *= 0.5
    assert best is not None
    return best
