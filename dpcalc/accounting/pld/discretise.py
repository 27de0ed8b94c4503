"""Discretisation of one step's privacy loss on a lattice: the dominating upper pair ("connect the dots",
Doroshenko et al. 2022) and the dominated lower pair (the same hat weights as a channel, then `relabel`), for
many steps at once."""

from __future__ import annotations

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


@cache
def _gl(nodes: int = _GL_NODES) -> tuple[FloatArray, FloatArray]:
    from numpy.polynomial.legendre import leggauss

    x, w = leggauss(nodes)
    return np.asarray(x), np.asarray(w)



def _seg_starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def _lattices(sig: FloatArray, qq: FloatArray, direction: Direction, h: float,
              zt: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, np.ndarray, np.ndarray]:
    """Per step: x-range [x_lo, x_hi], loss range [l_min, l_max], lattice offset c and lattice indices k0..k1."""
    x_lo, x_hi = -zt * sig, 1.0 + zt * sig
    l_a, l_b = losses(x_lo, sig, qq, direction), losses(x_hi, sig, qq, direction)
    l_min, l_max = np.minimum(l_a, l_b), np.maximum(l_a, l_b)
    # lattice offset: for a subsampled remove step the loss has a hard lower edge log(1 − q) where the mass piles
    # up; a lattice point _ALIGN·h above it keeps the lower pair's error small (its error depends on that position)
    cc = np.where((qq < 1.0) & (direction == "remove"), l_min - (np.ceil(l_min / h) - _ALIGN) * h, 0.0)
    span = (l_max - l_min) / h + 2.0  # lattice points, in float: an int64 cast would wrap past 2**63
    worst = int(np.argmax(span))
    if not span[worst] <= common.MAX_FFT:
        check_points(int(min(span[worst], 1e300)), f"one step (sigma = {sig[worst]:g}, q = {qq[worst]:g})", h)
    k0 = np.floor((l_min - cc) / h).astype(np.int64)
    k1 = np.ceil((l_max - cc) / h).astype(np.int64)
    return x_lo, x_hi, l_min, l_max, cc, k0, k1


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
    or two steps, whose δ at tiny values lives in the far tail, where sparse dots held the bracket at ≈ 64·h)."""
    sig = np.array([st.sigma for st in steps])
    qq = np.array([st.q for st in steps])
    zt = tail_z(max(tail, 1e-300))
    *_, k0, k1 = _lattices(sig, qq, direction, h, zt)
    nat = k1 - k0 + 1
    for r in range(len(steps)):
        check_points(int(nat[r]), f"one step (sigma = {sig[r]:g}, q = {qq[r]:g})", h)
    out: list[tuple[LatticePmf, LatticePmf]] = []
    start, acc = 0, 0
    for r in range(len(steps)):  # chunks of consecutive steps (big lattices alone: cache-friendly arrays)
        acc += int(nat[r])
        if acc >= _CHUNK_POINTS or r == len(steps) - 1:
            out.extend(_discretise_chunk(sig[start:r + 1], qq[start:r + 1], direction, h, zt, lam, lower, sparse))
            start, acc = r + 1, 0
    return out


def _discretise_chunk(sig: FloatArray, qq: FloatArray, direction: Direction, h: float, zt: float,
                      lam: float, lower: bool = True, sparse: bool = True) -> list[tuple[LatticePmf, LatticePmf]]:
    """`discretise_many` for the steps (sig, qq): flat arrays, segment r is step r. With ``lower=False``
    only the upper pair is built (the second element repeats it): an upper-bound-only pass skips the relabelling."""
    ns = sig.size
    x_lo, x_hi, l_min, l_max, cc, k0, k1 = _lattices(sig, qq, direction, h, zt)
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
    left = cw / cw[:, -1:]
    right = 1.0 - left + w5 / cw[:, -1:]
    if direction == "add":  # loss decreasing in x: order by loss
        lx5, left, right = lx5[:, ::-1], right[:, ::-1], left[:, ::-1]
    far = np.minimum(left, right)
    sp = np.clip(np.sqrt(_DOT_MASS / np.maximum(far, 1e-300)), 1.0, float(_DOT_MAX) if sparse else 1.0)
    lx_m = np.maximum.accumulate(lx5, axis=1)
    # flat lattice of all steps; np.interp per segment via a per-segment shift of both abscissae
    ls = _seg_starts(nat)
    ntot = int(nat.sum())
    row = np.repeat(np.arange(ns), nat)
    jj = np.arange(ntot) - ls[row]
    g = (k0[row] + jj) * h + cc[row]
    span = float((lx_m[:, -1] - lx_m[:, 0]).max()) + float(g.max() - g.min()) + 1.0
    shift = np.arange(ns) * 2.0 * span - lx_m[:, :1].ravel()
    s_j = np.interp(g + shift[row], (lx_m + shift[:, None]).ravel(), sp.ravel())
    s_j = np.where(nat[row] <= 3, 1.0, s_j)
    csum = np.cumsum(1.0 / s_j)
    before = np.concatenate([[0.0], csum])[ls]
    pos = np.floor(csum - before[row])
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
    inner = ~first_d & ~last_d & (gd > l_min[drow]) & (gd < l_max[drow])
    xb = x_of_losses(gd[inner], sig[drow[inner]], qq[drow[inner]], direction)
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
    cs, cq = sig[crow], qq[crow]
    # the cell's dot: the last dot at or below the loss at the midpoint, within the cell's own segment
    qpos = (losses(mid, cs if ns > 1 else sig[0], cq if ns > 1 else qq[0], direction) - cc[crow]) / h - k0[crow] \
        + ls[crow]
    cell = np.searchsorted(dpos.astype(np.float64), qpos, side="right") - 1
    cell = np.clip(cell, ds[crow], ds[crow] + nd[crow] - 2)
    dspan = np.append(gd[1:] - gd[:-1], 1.0)
    em1_span, e_span = np.expm1(dspan), np.exp(dspan)
    ndt = gd.size
    # narrow cells (most of them: the dots' cells at large losses) need fewer nodes (see _GL_NARROW)
    wide_x = np.maximum(np.abs(a_), np.abs(b_)) + 2.0
    narrow = half * wide_x <= _GL_NARROW * (cs * cs if ns > 1 else sig[0] * sig[0])
    if 4 * np.count_nonzero(narrow) < narrow.size:  # a second group costs more than it saves
        narrow[:] = False
    qs_d = np.zeros(ndt)
    p_d = np.zeros(ndt)
    for sel, nodes in ((narrow, 3), (~narrow, _GL_NODES)):
        if not sel.any():
            continue
        one = ns == 1  # one step: scalar parameters, no per-cell broadcasting
        dq, dp = _hat_masses(mid[sel], half[sel], cell[sel], sig[0] if one else cs[sel][:, None],
                             qq[0] if one else cq[sel][:, None], direction, gd, em1_span, e_span, nodes)
        qs_d += dq
        p_d += dp
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
    p2, qs2, pr, qsr = relabel(np.asarray(p_d, dtype=np.float64), np.asarray(qs_d, dtype=np.float64), gd, first_d,
                               last_d)
    lab = labels(p2, qs2, gd, cc[drow], h, k0[drow], idx)
    lab_r = labels(pr, qsr, gd, cc[drow], h, k0[drow], idx)
    lo_shift = -np.minimum(0, np.minimum(np.minimum.reduceat(lab, ds), np.minimum.reduceat(lab_r, ds)))  # k0 − lo_k0
    top = np.floor((l_max - cc) / h).astype(np.int64) - k0 + lo_shift
    lab_s, lab_rs = lab + lo_shift[drow], lab_r + lo_shift[drow]
    lo_size = np.maximum(np.maximum(np.maximum.reduceat(lab_s, ds), np.maximum.reduceat(lab_rs, ds)), top) + 1
    lo_st = _seg_starts(lo_size)
    size = int(lo_size.sum())
    p_lo_all = np.asarray(np.bincount(lab_s + lo_st[drow], p2 * (1.0 - MARGIN), size)
                          + np.bincount(lab_rs + lo_st[drow], pr * (1.0 - MARGIN), size), dtype=np.float64)
    out: list[tuple[LatticePmf, LatticePmf]] = []
    for r in range(ns):
        upper, high_tail = upper_of(r)
        p_lo = p_lo_all[lo_st[r]:lo_st[r] + lo_size[r]]
        p_lo[top[r]] += high_tail * (1.0 - MARGIN)
        out.append((upper, LatticePmf(int(k0[r] - lo_shift[r]), p_lo, 0.0, float(cc[r]))))
    return out


def _hat_masses(mid: FloatArray, half: FloatArray, cell: np.ndarray, s2: FloatArray, q2: FloatArray,
                direction: Direction, gd: FloatArray, em1_span: FloatArray, e_span: FloatArray,
                nodes: int) -> tuple[FloatArray, FloatArray]:
    """Gauss–Legendre (``nodes`` points) masses of the cells [mid ± half] split between their dot ``cell`` and the
    next by the hat weights: (Q-masses scaled by each dot's e^{g}, P-masses) per dot. ``em1_span``/``e_span``:
    e^{Δ} − 1 and e^{Δ} of each dot's span Δ to the next."""
    gx, gw = _gl(nodes)
    xs = mid[:, None] + half[:, None] * gx[None, :]
    wq = half[:, None] * gw[None, :]
    lx = losses(xs, s2, q2, direction)
    ga = gd[cell][:, None]
    et = np.expm1(lx - ga)  # e^{L − g_a} − 1 (t = L − g_a is in [0, span] up to rounding at the cell edges)
    u = np.clip(et / em1_span[cell][:, None], 0.0, 1.0)  # hat weight of the upper dot
    lfq = log_fq(xs, lx, s2, direction)
    # Q-masses are accumulated scaled by their dot's e^{g} (Q_j e^{g_j} ≈ P_j: no underflow at large losses);
    # f_P = f_Q·e^{L} = (f_Q e^{g_a})·e^{t}
    fqa = np.exp(lfq + ga) * wq
    fqb = fqa * e_span[cell][:, None]
    fp = fqa * (1.0 + et)
    ci = np.broadcast_to(cell[:, None], xs.shape).ravel()
    uu = u.ravel()
    ndt = gd.size
    qs = np.bincount(ci, fqa.ravel() * (1 - uu), ndt) + np.bincount(ci + 1, fqb.ravel() * uu, ndt)
    p = np.bincount(ci, fp.ravel() * (1 - uu), ndt) + np.bincount(ci + 1, fp.ravel() * uu, ndt)
    return np.asarray(qs, dtype=np.float64), np.asarray(p, dtype=np.float64)

