"""Discretisation of one step's privacy loss on a lattice: the dominating upper pair ("connect the dots",
Doroshenko et al. 2022) and the dominated lower pair (the same hat weights as a channel, then `relabel`), for
many steps at once."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from dpcalc.accounting.pld import common
from dpcalc.accounting.pld.common import MARGIN, Direction, FloatArray, check_points
from dpcalc.accounting.pld.mechanism import Mechanism, log_fp, log_fq, losses, tail_z, x_of_losses
from dpcalc.accounting.pld.pmf import LatticePmf
from dpcalc.accounting.pld.relabel import labels, relabel
from dpcalc.accounting.pld.schedule import Step

__all__ = ["discretise_many"]

_GL_NODES = 5
_GL_WIDTH = 0.35  # GL error ~ (Δx·z/σ)^(2·nodes)/(2·nodes)! <= 1e-13 with 5 nodes
#: cells with half-width·(max|x| + 2) <= _GL_NARROW·σ² take 3 nodes: the integrands (Gaussians centred at 0 and 1 times
#: the hat weight, linear in e^{L}, |dL/dx| <= 1/σ²) vary there like e^{cx} with c <= 0.01 per half-width, where 3-node
#: Gauss–Legendre is exact to rounding. Measured against 9 nodes everywhere: atom masses within 2e-13 relative (5
#: nodes alone: 4e-13 at σ = 1, q = 0.01; the rest is round-off), far inside MARGIN
_GL_NARROW = 0.01
_ALIGN = 0.3  # a remove step's lowest loss log(1 − q) sits this many h below a lattice point
_DOT_MASS = 1e-4  # dots thin out where the tilted P-mass beyond them is below this (see discretise_many)
_DOT_MAX = 64  # widest dot spacing, in lattice steps
#: dots also thin out where a stretch of s lattice points holds a tilted mass m·s with m·s³ below this
_DOT_LOCAL = 1e-5


@cache
def _gl(nodes: int = _GL_NODES) -> tuple[FloatArray, FloatArray]:
    from numpy.polynomial.legendre import leggauss

    x, w = leggauss(nodes)
    return np.asarray(x), np.asarray(w)



def _seg_starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


#: per step: x_lo, x_hi, l_min, l_max, offset c, k0, k1, g* (`_lattices`)
Lattices = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, np.ndarray, np.ndarray, FloatArray]


def _lattices(sig: FloatArray, qq: FloatArray, direction: Direction, h: float, zt: float,
              balance: bool = True) -> Lattices:
    """Per step: x-range [x_lo, x_hi], loss range [l_min, l_max], lattice offset c, lattice indices k0..k1 and the
    lattice point g* of the lower pair's merged edge labels (NaN: none; `_offsets`, only when ``balance``: a pass
    without a lower pair keeps the plain offset)."""
    x_lo, x_hi = -zt * sig, 1.0 + zt * sig
    l_a, l_b = losses(x_lo, sig, qq, direction), losses(x_hi, sig, qq, direction)
    l_min, l_max = np.minimum(l_a, l_b), np.maximum(l_a, l_b)
    cc, gstar = _offsets(sig, qq, direction, h, x_lo, l_min, l_max, balance)
    span = (l_max - l_min) / h + 2.0  # lattice points, in float: an int64 cast would wrap past 2**63
    worst = int(np.argmax(span))
    if not span[worst] <= common.MAX_FFT:
        check_points(int(min(span[worst], 1e300)), f"one step (sigma = {sig[worst]:g}, q = {qq[worst]:g})", h)
    k0 = np.floor((l_min - cc) / h).astype(np.int64)
    k1 = np.ceil((l_max - cc) / h).astype(np.int64)
    return x_lo, x_hi, l_min, l_max, cc, k0, k1, gstar


_EDGE_ROUNDS = 12  # regula-falsi rounds of the edge balance
_EDGE_CELLS = 8  # the merged labels at the edge span at most this many cells
_EDGE_GRID = 4  # positions tried per cell for the first sign change of the balance
_EDGE_FINE = 128  # positions tried inside that bracket before the regula falsi
#: the regula falsi stops when the bracket is this narrow (× h): g* then lies at most that far below the root, which
#: costs the merged labels (at most all of a step's mass) that much loss each: at most T·1e-5·h, for T = 14,063 and
#: h = 2e-4 a 2.8e-5 of a bracket 8e-4 wide; measured on 8 schedules, the widths moved by at most 8e-5 of themselves
#: against 1e-7, and one secant round replaced two (the first lands about 1e-6·h from the root)
_EDGE_TOL = 1e-5


def _offsets(sig: FloatArray, qq: FloatArray, direction: Direction, h: float, x_lo: FloatArray, l_min: FloatArray,
             l_max: FloatArray, balance: bool = True) -> tuple[FloatArray, FloatArray]:
    """Per step, the lattice offset c (lattice points k·h + c) and the lattice point g* onto which the lower pair
    merges its labels at the loss's hard edge (NaN: none).

    A subsampled step's loss piles up at one edge: at log(1 − q) (remove; the P-mass within 1e-3 of it is 54 % at
    σ = 0.55, q = 0.0043) or −log(1 − q) (add). The lower pair's labels next to that edge have no neighbour beyond
    it to borrow from, so whatever ratio they have beyond their lattice point is lost when they are moved down to it:
    first order in h, and erratic in the edge's position (the lower pair's mean loss was 1–50 % low for
    h = 1e-4…1e-3, the upper pair's 0.004–0.04 % high). Here the lattice is placed so that every label between the
    edge and a lattice point g* (and the share of the next cell that the hat channel leaves at g*) has, together,
    ratio e^{g*}: `_edge_balance` = 0, its first root within `_EDGE_CELLS` cells of the edge, on the side where the
    ratio is at or above it. Those labels merged onto g* lose only the mixing (second order). q = 1 (no pile), or
    no root: a lattice point 0.3·h above the lower edge (remove) or 0 (add), as before, and no merge."""
    cc = np.where((qq < 1.0) & (direction == "remove"), l_min - (np.ceil(l_min / h) - _ALIGN) * h, 0.0)
    gstar = np.full(sig.size, np.nan)
    sub = np.flatnonzero((qq < 1.0) & (l_max - l_min > 4.0 * _EDGE_CELLS * h))
    if sub.size == 0 or not balance:
        return cc, gstar
    s, q, a = sig[sub], qq[sub], x_lo[sub]
    # candidate inner points g, moving away from the edge: (l_min, l_min + 8h] (remove), [l_max − 8h, l_max) (add)
    t = np.arange(1, _EDGE_CELLS * _EDGE_GRID + 1) / _EDGE_GRID * h
    gs = l_min[sub][:, None] + t if direction == "remove" else l_max[sub][:, None] - t
    ns, nt = gs.shape
    bal = _edge_balance(gs.ravel(), np.repeat(s, nt), np.repeat(q, nt), np.repeat(a, nt), h, direction)
    bal = bal.reshape(ns, nt)
    # the first position where the balance changes sign: remove, from positive at the edge (the cell above the
    # edge has ratio above g) to negative; add, from negative at the edge (the top cell below g) to positive
    change = (bal < 0.0) if direction == "remove" else (bal >= 0.0)
    first = np.argmax(change, axis=1)
    ok = change.any(axis=1)
    rows = np.arange(ns)
    edge = l_min[sub] if direction == "remove" else l_max[sub]
    # the ends on the side where the ratio is at or above e^g (balance >= 0) and on the other side; Illinois
    # regula falsi between them (the answer is the end on the first side, so it need not converge to be valid)
    prev = np.where(first > 0, gs[rows, np.maximum(first - 1, 0)], edge)
    f_prev = np.where(first > 0, bal[rows, np.maximum(first - 1, 0)], np.nan)
    at_edge = np.isnan(f_prev)  # the first position already changed sign: start just off the edge
    if at_edge.any():  # rare: evaluated only then (one balance evaluation is a few dozen NumPy calls)
        prev = np.where(at_edge, edge + (h if direction == "remove" else -h) * 1e-6, prev)
        f_prev = np.where(at_edge, _edge_balance(prev, s, q, a, h, direction), f_prev)
    x_ok, f_ok = (prev, f_prev) if direction == "remove" else (gs[rows, first], bal[rows, first])
    x_no, f_no = (gs[rows, first], bal[rows, first]) if direction == "remove" else (prev, f_prev)
    # a finer grid inside each bracket, all rows in one evaluation: the regula falsi then starts _EDGE_FINE + 1
    # times closer and needs a few rounds, not about eight (each round one evaluation)
    tf = np.arange(1, _EDGE_FINE + 1) / (_EDGE_FINE + 1)
    xf = x_ok[:, None] + (x_no - x_ok)[:, None] * tf[None, :]
    bf = _edge_balance(xf.ravel(), np.repeat(s, _EDGE_FINE), np.repeat(q, _EDGE_FINE), np.repeat(a, _EDGE_FINE), h,
                       direction).reshape(ns, _EDGE_FINE)
    bad = ~(bf >= 0.0)  # ordered from the ok end to the other: the first point whose balance is negative (or NaN)
    j = np.argmax(bad, axis=1)
    hit = bad.any(axis=1)
    last_ok = np.where(hit, j - 1, _EDGE_FINE - 1)
    moved = last_ok >= 0
    k_ok = np.maximum(last_ok, 0)
    x_ok, f_ok = np.where(moved, xf[rows, k_ok], x_ok), np.where(moved, bf[rows, k_ok], f_ok)
    x_no, f_no = np.where(hit, xf[rows, j], x_no), np.where(hit, bf[rows, j], f_no)
    side = np.zeros(ns, dtype=np.int8)
    t_ok, t_no = f_ok, f_no  # the balances as evaluated (f_ok, f_no carry the Illinois halvings)
    for _ in range(_EDGE_ROUNDS):
        # done when the ok end is within the tolerance of the root: the bracket is that narrow, or the secant
        # through the evaluated ends puts the root that close (the answer is the ok end either way)
        with np.errstate(invalid="ignore", divide="ignore"):
            near = np.abs(t_ok * (x_no - x_ok) / (t_ok - t_no))
        if float(np.max(np.minimum(np.abs(x_no - x_ok), np.where(np.isfinite(near), near, np.inf)))) <= _EDGE_TOL * h:
            break
        with np.errstate(invalid="ignore", divide="ignore"):
            x = x_no - f_no * (x_no - x_ok) / (f_no - f_ok)
        x = np.where(np.isfinite(x) & ((x - x_ok) * (x - x_no) < 0.0), x, 0.5 * (x_ok + x_no))
        f = _edge_balance(x, s, q, a, h, direction)
        good = f >= 0.0
        f_no = np.where(good & (side == 1), 0.5 * f_no, f_no)  # Illinois: the end kept twice counts half
        f_ok = np.where(~good & (side == -1), 0.5 * f_ok, f_ok)
        x_ok, f_ok, t_ok = np.where(good, x, x_ok), np.where(good, f, f_ok), np.where(good, f, t_ok)
        x_no, f_no, t_no = np.where(good, x_no, x), np.where(good, f_no, f), np.where(good, t_no, f)
        side = np.where(good, 1, -1).astype(np.int8)
    g = x_ok  # the end where the merged labels' ratio is at or above e^g
    ok &= t_ok >= 0.0
    idx = sub[ok]
    cc[idx] = (g - np.floor(g / h) * h)[ok]
    gstar[idx] = g[ok]
    return cc, gstar


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _ndtr(x: FloatArray) -> FloatArray:
    """Φ(x) elementwise as erfc(−x/√2)/2 (math.erfc: no SciPy import on the PLD's main path)."""
    return np.asarray(_ERFC(-np.asarray(x, dtype=np.float64) / math.sqrt(2.0)), dtype=np.float64) * 0.5


def _edge_balance(g: FloatArray, sig: FloatArray, q: FloatArray, x_lo: FloatArray, h: float,
                  direction: Direction) -> FloatArray:
    """P − e^{g}·Q of the lower pair's two labels at the loss's edge, g the inner one's lattice point (hat channel:
    every atom between the edge and g, and the share of the cell beyond g that stays at g). Remove: edge below,
    the cell [g, g + h]; add: edge above, the cell [g − h, g]. Closed forms in Φ for the first part, 8-node
    Gauss–Legendre for the cell."""
    def x_of(loss: FloatArray, s: FloatArray, qs: FloatArray, lo: FloatArray) -> FloatArray:
        """x at the loss, within the range [x_lo, ∞) (at the edge itself x is −∞ or NaN)."""
        x = x_of_losses(loss, s, qs, direction)
        return np.where(np.isnan(x) | (x < lo), lo, x)

    # the cell's ends in x with g's own (one evaluation of the inverse loss for the three)
    far = losses(1.0 + 40.0 * sig, sig, q, direction)
    c_lo, c_hi = (g, np.minimum(g + h, far)) if direction == "remove" else (np.maximum(g - h, far), g)
    n = g.size
    xs3 = x_of(np.concatenate([g, c_lo, c_hi]), np.tile(sig, 3), np.tile(q, 3), np.tile(x_lo, 3))
    b, xa, xb = xs3[:n], xs3[n:2 * n], xs3[2 * n:]
    # N(0) and N(1) masses of x in (x_lo, b), the four Φ in one call
    cdf = _ndtr(np.concatenate([b / sig, x_lo / sig, (b - 1.0) / sig, (x_lo - 1.0) / sig]))
    q0, q1 = cdf[:n] - cdf[n:2 * n], cdf[2 * n:3 * n] - cdf[3 * n:]
    edge = np.log1p(-q)  # log(1 − q): the remove loss's infimum, minus the add loss's supremum
    if direction == "remove":  # f_P − e^g f_Q = (1 − q − e^g) N(0) + q N(1) below g
        inner = q * q1 - np.exp(edge) * np.expm1(g - edge) * q0
        mass = (1.0 - q) * q0 + q * q1
    else:  # P = N(0), Q = (1 − q) N(0) + q N(1): f_P − e^g f_Q = (1 − e^{g + edge}) N(0) − q e^g N(1) above g
        inner = -np.expm1(g + edge) * q0 - q * np.exp(g) * q1
        mass = q0
    gx, gw = _gl(8)
    mid, half = 0.5 * (xa + xb), 0.5 * (xb - xa)
    xs = mid[:, None] + half[:, None] * gx[None, :]
    lx = losses(xs, sig[:, None], q[:, None], direction)
    lfq = log_fq(xs, lx, sig[:, None], direction)
    gg = g[:, None]
    d = np.expm1(lx - gg)  # e^{L − g} − 1
    # share staying at g: 1 − u above g (remove), u below g (add), u the hat weight of the upper lattice point
    share = 1.0 - d / math.expm1(h) if direction == "remove" else np.expm1(lx - (gg - h)) / math.expm1(h)
    cell = np.sum(gw * np.clip(share, 0.0, 1.0) * d * np.exp(lfq + gg), axis=1) * np.abs(half)
    # less 4·margin of the P-mass: the merged label's ratio at least (1 + 4·margin)·e^g, so that it stays at g
    # (`relabel.labels` moves a label whose ratio is below (1 + margin)·e^g down a cell)
    return np.asarray(inner + cell - 4.0 * MARGIN * mass)


#: quadrature nodes per block of `_hat_masses`: its dozen temporaries then take about 200 kB together, which the
#: allocator reuses from its heap call after call; at 6,500 nodes in one block (Poisson-subsampled Gaussian ×1,000)
#: they grew the heap by some 700 kB that it gave back after each call, 180 page faults to take again every time
_BLOCK_NODES = 2048
_CHUNK_POINTS = 1 << 15  # steps are discretised together in chunks of about this many lattice points


def discretise_many(steps: list[Step], direction: Direction, h: float, tail: float,
                    lam: float = 0.0, lower: bool = True, sparse: bool = True) -> list[tuple[LatticePmf, LatticePmf]]:
    """Upper (dominating) and lower (dominated) lattice PLDs of each step; ``tail`` = neglected P-mass per side;
    ``lam`` the tilt the composition will use (it only decides where atoms may be sparse).

    All steps are discretised together: their lattices, dots, quadrature cells and labels are concatenated in flat
    arrays (segment r belongs to step r), so a schedule of many distinct steps costs a few NumPy passes, not a few
    per step. Each segment is computed exactly as a single step would be.

    **Dots.** Every lattice point in the bulk, thinning out to spacing ``s·h`` (s ≤ `_DOT_MAX`) where the
    P-mass tilted by e^{λL} beyond the point (on the far side from the bulk) is M < `_DOT_MASS`, with
    s ≈ √(_DOT_MASS/M). Connect-the-dots and the hat channel are valid for any set of dots (Doroshenko et al. 2022),
    so the choice affects only the width of the bracket: a tail interval of width H and tilted mass M adds ≈ M·H² to
    the error, i.e. ≈ _DOT_MASS·h² per decade of M. ``sparse=False`` keeps every lattice point (the direct sum of one
    or two steps, whose δ at tiny values lives in the far tail, where sparse dots held the bracket at ≈ 64·h).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    direction : Direction
    h : float
    tail : float
    lam : float
    lower : bool
    sparse : bool

    Returns
    -------
    list[tuple[LatticePmf, LatticePmf]]
    """
    sig = np.array([st.sigma for st in steps])
    qq = np.array([st.q for st in steps])
    zt = tail_z(max(tail, 1e-300))
    lat = _lattices(sig, qq, direction, h, zt, lower)
    k0, k1 = lat[5], lat[6]
    nat = k1 - k0 + 1
    for r in range(len(steps)):
        check_points(int(nat[r]), f"one step (sigma = {sig[r]:g}, q = {qq[r]:g})", h)
    out: list[tuple[LatticePmf, LatticePmf]] = []
    start, acc = 0, 0
    for r in range(len(steps)):  # chunks of consecutive steps (big lattices alone: cache-friendly arrays)
        acc += int(nat[r])
        if acc >= _CHUNK_POINTS or r == len(steps) - 1:
            part: Lattices = (lat[0][start:r + 1], lat[1][start:r + 1], lat[2][start:r + 1], lat[3][start:r + 1],
                              lat[4][start:r + 1], lat[5][start:r + 1], lat[6][start:r + 1], lat[7][start:r + 1])
            out.extend(_discretise_chunk(sig[start:r + 1], qq[start:r + 1], direction, h, zt, lam, lower, sparse, part))
            start, acc = r + 1, 0
    return out


def _discretise_chunk(sig: FloatArray, qq: FloatArray, direction: Direction, h: float, zt: float,
                      lam: float, lower: bool = True, sparse: bool = True,
                      lat: Lattices | None = None) -> list[tuple[LatticePmf, LatticePmf]]:
    """`discretise_many` for the steps (sig, qq): flat arrays, segment r is step r. With ``lower=False``
    only the upper pair is built (the second element repeats it): an upper-bound-only pass skips the relabelling."""
    ns = sig.size
    one = ns == 1  # one step: its per-step values as scalars, not gathered onto every point

    def per(values: np.ndarray, index: np.ndarray) -> np.ndarray:
        """Each point's step's value: ``values[index]`` (one segment: ``values[0]``, broadcast)."""
        return values[0] if one else values[index]

    x_lo, x_hi, l_min, l_max, cc, k0, k1, gstar = (lat if lat is not None else
                                                   _lattices(sig, qq, direction, h, zt, lower))
    nat = k1 - k0 + 1
    # --- dots: tilted tail masses on 513 points per step
    tt = np.linspace(0.0, 1.0, 513)
    xs5 = x_lo[:, None] + (x_hi - x_lo)[:, None] * tt[None, :]
    xs5[:, -1] = x_hi
    s2, q2 = sig[:, None], qq[:, None]
    lx5 = losses(xs5, s2, q2, direction)
    lw = log_fp(xs5, lx5, s2, direction) + lam * lx5
    w5 = np.exp(lw - lw.max(axis=1, keepdims=True))
    cw = np.cumsum(w5, axis=1)
    share = w5 / cw[:, -1:]
    left = cw / cw[:, -1:]
    right = 1.0 - left + share
    if direction == "add":  # loss decreasing in x: order by loss
        lx5, left, right, share = lx5[:, ::-1], right[:, ::-1], left[:, ::-1], share[:, ::-1]
    far = np.minimum(left, right)
    # the tilted mass per lattice point near each of the 513 points (its share over the lattice points its x-cell
    # spans): where that is tiny, even with much mass beyond (a heavy tilted tail), dots may thin out too
    dl = np.abs(np.diff(lx5, axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        per_point = share * h / np.concatenate([dl, dl[:, -1:]], axis=1)
        s_local = np.cbrt(_DOT_LOCAL / np.where(per_point > 0.0, per_point, 1e-300))
    sp = np.clip(np.maximum(np.sqrt(_DOT_MASS / np.maximum(far, 1e-300)), np.nan_to_num(s_local, nan=1.0)), 1.0,
                 float(_DOT_MAX) if sparse else 1.0)
    lx_m = np.maximum.accumulate(lx5, axis=1)
    # flat lattice of all steps; np.interp per segment via a per-segment shift of both abscissae
    ls = _seg_starts(nat)
    ntot = int(nat.sum())
    row = np.repeat(np.arange(ns), nat)
    jj = np.arange(ntot) - per(ls, row)
    g = (per(k0, row) + jj) * h + per(cc, row)
    span = float((lx_m[:, -1] - lx_m[:, 0]).max()) + float(g.max() - g.min()) + 1.0
    shift = np.arange(ns) * 2.0 * span - lx_m[:, :1].ravel()
    s_j = np.interp(g + per(shift, row), (lx_m + shift[:, None]).ravel(), sp.ravel())
    s_j = np.where(per(nat, row) <= 3, 1.0, s_j)
    # every lattice point a dot from the edge to one cell past g* (the merged labels and the cell the balance counts)
    with np.errstate(invalid="ignore"):
        edge = (g <= per(gstar, row) + 1.5 * h) if direction == "remove" else (g >= per(gstar, row) - 1.5 * h)
    s_j = np.where(edge, 1.0, s_j)
    csum = np.cumsum(1.0 / s_j)
    before = np.concatenate([[0.0], csum])[ls]
    pos = np.floor(csum - per(before, row))
    keep = np.empty(ntot, dtype=bool)
    keep[1:] = pos[1:] != pos[:-1]
    keep[ls] = True
    keep[ls + nat - 1] = True
    dpos = np.flatnonzero(keep)  # flat lattice positions of the dots
    drow = row[dpos]
    nd = np.bincount(drow, minlength=ns)
    ds = _seg_starts(nd)
    idx = jj[dpos]  # local lattice index of each dot (dots = k0 + idx)
    gd = g[dpos]
    # --- quadrature cells: breaks at the dots' x (interior dots strictly inside the loss range) and a uniform grid
    first_d = np.zeros(gd.size, dtype=bool)
    first_d[ds] = True
    last_d = np.zeros(gd.size, dtype=bool)
    last_d[ds + nd - 1] = True
    inner = ~first_d & ~last_d & (gd > per(l_min, drow)) & (gd < per(l_max, drow))
    xb = x_of_losses(gd[inner], per(sig, drow[inner]), per(qq, drow[inner]), direction)
    nu = np.maximum(2, np.ceil((x_hi - x_lo) * zt / (_GL_WIDTH * sig))).astype(np.int64)
    urow = np.repeat(np.arange(ns), nu + 1)
    uj = np.arange(urow.size) - _seg_starts(nu + 1)[urow]
    xu = x_lo[urow] + (x_hi - x_lo)[urow] * (uj / nu[urow])
    xu[_seg_starts(nu + 1) + nu] = x_hi
    brx = np.concatenate([xb, xu])
    brr = np.concatenate([drow[inner], urow])
    if ns == 1:  # one step: a plain sort
        brx = np.sort(brx)
    else:
        o = np.lexsort((brx, brr))
        brx, brr = brx[o], brr[o]
    ok = (brr[1:] == brr[:-1]) & (brx[1:] > brx[:-1])
    a_, b_, crow = brx[:-1][ok], brx[1:][ok], brr[:-1][ok]
    mid, half = 0.5 * (a_ + b_), 0.5 * (b_ - a_)
    cs, cq = per(sig, crow), per(qq, crow)
    # the cell's dot: the last dot at or below the loss at the midpoint, within the cell's own segment
    qpos = (losses(mid, cs, cq, direction) - per(cc, crow)) / h - per(k0, crow) + per(ls, crow)
    cell = np.searchsorted(dpos.astype(np.float64), qpos, side="right") - 1
    cell = np.clip(cell, per(ds, crow), per(ds, crow) + per(nd, crow) - 2)
    dspan = np.append(gd[1:] - gd[:-1], 1.0)
    em1_span, e_span = np.expm1(dspan), np.exp(dspan)
    ndt = gd.size
    # narrow cells (most of them: the dots' cells at large losses) need fewer nodes (see _GL_NARROW)
    wide_x = np.maximum(np.abs(a_), np.abs(b_)) + 2.0
    narrow = half * wide_x <= _GL_NARROW * (cs * cs)
    if 4 * np.count_nonzero(narrow) < narrow.size:  # a second group costs more than it saves
        narrow[:] = False
    qs_d = np.zeros(ndt)
    p_d = np.zeros(ndt)
    for sel, nodes in ((narrow, 3), (~narrow, _GL_NODES)):
        cells = np.flatnonzero(sel)
        # in blocks: their temporaries stay small enough to be reused from the heap (`_BLOCK_NODES`)
        step = max(1, _BLOCK_NODES // nodes)
        for at in range(0, cells.size, step):
            cb = cells[at:at + step]
            j, dq, dp = _hat_masses(mid[cb], half[cb], cell[cb], sig[0] if one else cs[cb][None, :],
                                    qq[0] if one else cq[cb][None, :], direction, gd, em1_span, e_span, nodes)
            qs_d[j:j + dq.size] += dq
            p_d[j:j + dp.size] += dp
    tails = [Mechanism(float(sig[r]), float(qq[r]), direction).p_mass_outside(float(x_lo[r]), float(x_hi[r]))
             for r in range(ns)]
    # lower pair: the hat channel (data processing), then a second channel that moves a fraction of the
    # neighbouring label into each label so that its loss is (just above) g_j: from the label above when the
    # loss is below g_j, from the label below when it is above; finally every atom down to its lattice point
    p_up_all = np.zeros(ntot)
    p_up_all[dpos] = qs_d * (1.0 + MARGIN)

    def upper_of(r: int) -> tuple[LatticePmf, float]:
        """Step r's upper pair (connect the dots: P-mass e^{g_j} Q_j; tails to +∞ / to the lowest atom) and the
        P-mass of its high tail."""
        below, above = tails[r]
        low_tail, high_tail = (below, above) if direction == "remove" else (above, below)
        p_up = p_up_all[ls[r]:ls[r] + nat[r]]
        p_up[0] += low_tail
        return LatticePmf(int(k0[r]), p_up, min(1.0, high_tail * (1.0 + MARGIN)), float(cc[r])), high_tail

    if not lower:
        return [(u, u) for u, _ in map(upper_of, range(ns))]
    p_m, qs_m = _merge_edge(np.asarray(p_d, dtype=np.float64), np.asarray(qs_d, dtype=np.float64), gd, gstar, drow,
                            ds, nd, h, direction)
    p2, qs2, pr, qsr = relabel(p_m, qs_m, gd, first_d, last_d)
    lab = labels(p2, qs2, gd, per(cc, drow), h, per(k0, drow), idx)
    lab_r = labels(pr, qsr, gd, per(cc, drow), h, per(k0, drow), idx)
    lo_shift = -np.minimum(0, np.minimum(np.minimum.reduceat(lab, ds), np.minimum.reduceat(lab_r, ds)))  # k0 − lo_k0
    top = np.floor((l_max - cc) / h).astype(np.int64) - k0 + lo_shift
    lab_s, lab_rs = lab + per(lo_shift, drow), lab_r + per(lo_shift, drow)
    lo_size = np.maximum(np.maximum(np.maximum.reduceat(lab_s, ds), np.maximum.reduceat(lab_rs, ds)), top) + 1
    lo_st = _seg_starts(lo_size)
    size = int(lo_size.sum())
    p_lo_all = np.asarray(np.bincount(lab_s + per(lo_st, drow), p2 * (1.0 - MARGIN), size)
                          + np.bincount(lab_rs + per(lo_st, drow), pr * (1.0 - MARGIN), size), dtype=np.float64)
    out: list[tuple[LatticePmf, LatticePmf]] = []
    for r in range(ns):
        upper, high_tail = upper_of(r)
        p_lo = p_lo_all[lo_st[r]:lo_st[r] + lo_size[r]]
        p_lo[top[r]] += high_tail * (1.0 - MARGIN)
        out.append((upper, LatticePmf(int(k0[r] - lo_shift[r]), p_lo, 0.0, float(cc[r]))))
    return out


def _merge_edge(p: FloatArray, qs: FloatArray, gd: FloatArray, gstar: FloatArray, drow: np.ndarray, ds: np.ndarray,
                nd: np.ndarray, h: float, direction: Direction) -> tuple[FloatArray, FloatArray]:
    """The hat channel's labels between the edge and g* (`_offsets`) merged into the label at g* (a post-processing:
    their P- and Q-masses add; Q is kept scaled by each label's own e^{g})."""
    rows = np.flatnonzero(np.isfinite(gstar))
    if rows.size == 0:
        return p, qs
    p, qs = p.copy(), qs.copy()
    for r in rows:  # one per distinct step, dense dots at the edge: a few array slices each
        seg = slice(int(ds[r]), int(ds[r] + nd[r]))
        gseg = gd[seg]
        t = int(np.argmin(np.abs(gseg - gstar[r])))
        if not abs(gseg[t] - gstar[r]) < 0.5 * h:
            continue
        side = np.arange(gseg.size) < t if direction == "remove" else np.arange(gseg.size) > t
        pp, qq = p[seg], qs[seg]
        pp[t] += float(pp[side].sum())
        qq[t] += float((qq[side] * np.exp(gseg[t] - gseg[side])).sum())
        pp[side] = 0.0
        qq[side] = 0.0
    return p, qs


def _hat_masses(mid: FloatArray, half: FloatArray, cell: np.ndarray, s2: FloatArray, q2: FloatArray,
                direction: Direction, gd: FloatArray, em1_span: FloatArray, e_span: FloatArray,
                nodes: int) -> tuple[int, FloatArray, FloatArray]:
    """Gauss–Legendre (``nodes`` points) masses of the cells [mid ± half] split between their dot ``cell`` and the
    next by the hat weights: (the first dot j touched, Q-masses scaled by each dot's e^{g}, P-masses) for the dots
    j, j + 1, …. ``em1_span``/``e_span``:
    e^{Δ} − 1 and e^{Δ} of each dot's span Δ to the next; ``s2``/``q2`` scalars or rows (one value per cell).

    Laid out nodes × cells (a row per node): every elementwise operation runs along the cells, not along a handful of
    nodes per cell (cells × nodes made NumPy loop once per cell in each broadcast)."""
    gx, gw = _gl(nodes)
    xs = mid[None, :] + half[None, :] * gx[:, None]
    wq = half[None, :] * gw[:, None]
    lx = losses(xs, s2, q2, direction)
    ga = gd[cell]
    et = np.expm1(lx - ga)  # e^{L − g_a} − 1 (t = L − g_a is in [0, span] up to rounding at the cell edges)
    u = np.clip(et / em1_span[cell], 0.0, 1.0)  # hat weight of the upper dot
    lfq = log_fq(xs, lx, s2, direction)
    # Q-masses are accumulated scaled by their dot's e^{g} (Q_j e^{g_j} ≈ P_j: no underflow at large losses);
    # f_P = f_Q·e^{L} = (f_Q e^{g_a})·e^{t}
    fqa = np.exp(lfq + ga) * wq
    fqb = fqa * e_span[cell]
    fp = fqa * (1.0 + et)
    # onto the dots the cells touch, from the lowest one: a block's arrays are its own size, not the lattice's
    first = int(cell.min())
    ci = np.tile(cell - first, nodes)
    uu = u.ravel()
    span = int(cell.max()) - first + 2
    qs = np.bincount(ci, fqa.ravel() * (1 - uu), span) + np.bincount(ci + 1, fqb.ravel() * uu, span)
    p = np.bincount(ci, fp.ravel() * (1 - uu), span) + np.bincount(ci + 1, fp.ravel() * uu, span)
    return first, np.asarray(qs, dtype=np.float64), np.asarray(p, dtype=np.float64)

