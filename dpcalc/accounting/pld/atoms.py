"""A pair's privacy-loss distribution as weighted atoms (loss, P-mass, Q-mass), exactly for finite and discrete pairs
and by Gauss–Legendre quadrature between the lattice's preimages for continuous ones, and its lattice pairs.

Connect-the-dots (Doroshenko et al. 2022) splits each atom's Q-mass between the lattice points g_a ≤ ℓ < g_{a+1}
linearly in e^ℓ (the hat weight u = (e^ℓ − e^{g_a})/(e^{g_{a+1}} − e^{g_a})): the upper pair (Q_j, e^{g_j}Q_j)
dominates the atom's pair (the δ of each atom is convex in e^ε), so the lattice pair of every atom together does.
The same split applied to both P and Q is a channel: the lower pair is dominated by data processing, then relabelled
(`relabel`) and moved down to its lattice points. Atoms with Q = 0 (loss +∞) are kept at
+∞ in both pairs; the quadrature's cut tails go to +∞ / the top lattice point (high side) and to the lattice point
above the cut / nowhere (low side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from dpcalc.accounting.pld.common import MARGIN, FloatArray, check_points
from dpcalc.accounting.pld.losses import AtomPair, LabelledPair, NoisePair, Pair
from dpcalc.accounting.pld.mechanism import tail_z
from dpcalc.accounting.pld.pmf import LatticePmf
from dpcalc.accounting.pld.preimages import laplace_preimages
from dpcalc.accounting.pld.relabel import labels, relabel

__all__ = ["SNAP_ULPS", "Atoms", "aligned", "atoms_of", "edge_offset", "lattice_pairs", "offset"]

_GL_NODES = 5
#: a point mass this many units of roundoff (relative to 1 + |loss| + |offset|) below a lattice point is on it
SNAP_ULPS = 8.0 * float(np.finfo(np.float64).eps) / 2.0
_CELL = 0.35  # widest quadrature cell, in units of the noise scale (Gauss–Legendre error ~1e-13 on Gaussians)
_BISECT = 64  # rounds of the preimage search (at most)
_TABLE = 4096  # cells of the table that brackets each preimage


@dataclass
class Atoms:
    """Atoms of a PLD: losses ``loss`` (finite), P-masses ``p``; ``p_inf`` exact P-mass at loss +∞; ``p_high`` the
    cut tail above the largest finite loss, ``p_low`` the cut tail below the smallest."""

    loss: FloatArray
    p: FloatArray
    p_inf: float = 0.0
    p_high: float = 0.0
    p_low: float = 0.0
    p_drop: float = 0.0  # mass left out: at +∞ in the upper pair, dropped from the lower one
    exact: np.ndarray | None = None  # atoms that are point masses of the PLD (not quadrature nodes); None: all

    def exact_mask(self) -> np.ndarray:
        return np.ones(self.loss.size, dtype=bool) if self.exact is None else self.exact


@cache
def _gl(nodes: int = _GL_NODES) -> tuple[FloatArray, FloatArray]:
    from numpy.polynomial.legendre import leggauss

    x, w = leggauss(nodes)
    return np.asarray(x), np.asarray(w)


def atoms_of(pair: Pair, h: float, tail: float) -> Atoms:
    """The atoms of ``pair`` for a lattice of spacing h (continuous pairs: quadrature cells broken at the preimages of
    the lattice points); ``tail`` bounds the P-mass cut on each side.

    Parameters
    ----------
    pair : Pair
    h : float
    tail : float

    Returns
    -------
    Atoms
    """
    if isinstance(pair, AtomPair):
        p, q = np.asarray(pair.p, dtype=np.float64), np.asarray(pair.q, dtype=np.float64)
        fin = (p > 0) & (q > 0)
        with np.errstate(divide="ignore"):
            loss = np.log(p[fin]) - np.log(q[fin])
        return Atoms(loss, p[fin], float(p[(p > 0) & (q == 0)].sum()))
    if isinstance(pair, LabelledPair):
        # labels of probability below the tail budget are left out (charged at +∞ above, dropped below)
        kept = [(w, pr) for w, pr in pair.parts if w > tail]
        left = math.fsum(w for w, _ in pair.parts if w <= tail) + pair.rest
        parts = [(w, atoms_of(pr, h, tail / w)) for w, pr in kept]
        return Atoms(np.concatenate([a.loss for _, a in parts]), np.concatenate([w * a.p for w, a in parts]),
                     math.fsum(w * a.p_inf for w, a in parts), math.fsum(w * a.p_high for w, a in parts),
                     math.fsum(w * a.p_low for w, a in parts),
                     math.fsum(w * a.p_drop for w, a in parts) + left,
                     np.concatenate([a.exact_mask() for _, a in parts]))
    if pair.kind in ("discrete_laplace", "discrete_gaussian"):
        return _discrete(pair, tail)
    return _continuous(pair, h, tail)


# --- additive noise: log-densities of the mixtures

def _log_mix(x: FloatArray, shifts: tuple[float, ...], weights: tuple[float, ...], kind: str,
             scale: float) -> FloatArray:
    """log Σ wᵢ μ(x − sᵢ) for the noise ``kind`` (continuous densities, or discrete masses up to the normaliser)."""
    terms = []
    for s, w in zip(shifts, weights, strict=True):
        if w <= 0.0:
            continue
        d = x - s
        if kind in ("gaussian", "discrete_gaussian"):
            lm = -0.5 * (d / scale) ** 2
        elif kind == "laplace":
            lm = -np.abs(d) / scale
        else:  # discrete Laplace, parameter t: e^{−t|k|}
            lm = -scale * np.abs(d)
        terms.append(lm + math.log(w))
    out = terms[0]
    for t in terms[1:]:
        out = np.logaddexp(out, t)
    return np.asarray(out, dtype=np.float64)


def _loss(pair: NoisePair, x: FloatArray) -> FloatArray:
    return _log_mix(x, pair.p_shifts, pair.p_weights, pair.kind, pair.scale) - \
        _log_mix(x, pair.q_shifts, pair.q_weights, pair.kind, pair.scale)


def _discrete(pair: NoisePair, tail: float) -> Atoms:
    """Integer outputs k over a range whose P-mass outside is below ``tail`` (charged at +∞ for the upper pair)."""
    shifts = pair.p_shifts + pair.q_shifts
    t = pair.scale
    if pair.kind == "discrete_laplace":
        # P(X ≥ m) = e^{−tm}/(1 + e^{−t}) for X discrete Laplace
        reach = math.ceil(max(0.0, -math.log(max(tail, 1e-300))) / t) + 1
        log_norm = math.log(math.tanh(t / 2))  # 1/Σ e^{−t|k|} = (1 − e^{−t})/(1 + e^{−t})
    else:
        reach = math.ceil(t * (tail_z(max(tail, 1e-300)) + 2.0)) + 1
        kk = np.arange(-reach - 1, reach + 2, dtype=np.float64)
        log_norm = -float(np.logaddexp.reduce(-0.5 * (kk / t) ** 2))
    lo, hi = math.floor(min(shifts)) - reach, math.ceil(max(shifts)) + reach
    scale_name = "noise_parameter" if pair.kind == "discrete_laplace" else "sigma"
    check_points(hi - lo + 1, f"the outputs of {pair.kind.replace('_', ' ')} noise ({scale_name} {t:g}, shift up to "
                 f"{max(abs(s) for s in shifts):g})", 1.0)
    k = np.arange(lo, hi + 1, dtype=np.float64)
    lp = _log_mix(k, pair.p_shifts, pair.p_weights, pair.kind, t) + log_norm
    lq = _log_mix(k, pair.q_shifts, pair.q_weights, pair.kind, t) + log_norm
    p = np.exp(lp)
    keep = p > 0
    loss = lp - lq
    if pair.kind == "discrete_gaussian":
        # the normaliser itself is a truncated sum: the two tails are bounded analytically, left out (at +∞ in the
        # upper pair, dropped from the lower one: a bound on a tail is not its mass)
        m = reach
        outside = max(1.0 - math.fsum(p.tolist()),
                      2.0 * math.exp(-0.5 * (m / t) ** 2 + log_norm) / -math.expm1(-m / (t * t)))
        return Atoms(loss[keep], p[keep], 0.0, 0.0, 0.0, outside * (1.0 + 1e-9))
    # each tail's P-mass exactly, P(X ≥ m) = e^{−tm}/(1 + e^{−t}) for X discrete Laplace and m ≥ 1, assigned to the
    # side of the loss it lies on (the loss is monotone in the output; the lower pair moves the high tail down onto
    # the top lattice point, so counting the low tail there too made its δ too large: a lower bound above the truth)
    tail_up = math.fsum(w * math.exp(-t * (hi + 1 - s)) for s, w in zip(pair.p_shifts, pair.p_weights, strict=True))
    tail_dn = math.fsum(w * math.exp(-t * (s - lo + 1)) for s, w in zip(pair.p_shifts, pair.p_weights, strict=True))
    tail_up, tail_dn = tail_up / (1.0 + math.exp(-t)), tail_dn / (1.0 + math.exp(-t))
    high, low = (tail_up, tail_dn) if loss[-1] >= loss[0] else (tail_dn, tail_up)
    return Atoms(loss[keep], p[keep], 0.0, high, low)


def _continuous(pair: NoisePair, h: float, tail: float) -> Atoms:
    """Gaussian or Laplace mixtures: Gauss–Legendre cells between the preimages of the lattice points (the loss is
    monotone in x), the shifts and a grid of width ≤ 0.35·scale; Laplace's constant-loss ends are exact atoms."""
    s = pair.scale
    shifts = pair.p_shifts + pair.q_shifts
    s_lo, s_hi = min(shifts), max(shifts)
    ends: list[tuple[float, float]] = []
    if pair.kind == "laplace":
        x_lo, x_hi = s_lo, s_hi
        cut_low = cut_high = 0.0
        for edge in (s_lo, s_hi):  # beyond the outermost shifts the loss is constant: one exact atom each
            lpe = float(_log_mix(np.array([edge]), pair.p_shifts, pair.p_weights, "laplace", s)[0])
            lqe = float(_log_mix(np.array([edge]), pair.q_shifts, pair.q_weights, "laplace", s)[0])
            # P-mass beyond the edge: Σ wᵢ ½ e^{−|edge − sᵢ|/b}, the same ratio to Q's all the way
            ends.append((lpe - lqe, 0.5 * math.exp(lpe)))
    else:
        z = tail_z(max(tail, 1e-300))
        x_lo, x_hi = s_lo - z * s, s_hi + z * s
        from dpcalc._numerics import normal_cdf

        below = math.fsum(w * normal_cdf((x_lo - a) / s) for a, w in zip(pair.p_shifts, pair.p_weights, strict=True))
        above = math.fsum(w * normal_cdf((a - x_hi) / s) for a, w in zip(pair.p_shifts, pair.p_weights, strict=True))
        l_a, l_b = _loss(pair, np.array([x_lo, x_hi]))
        cut_low, cut_high = (below, above) if l_b >= l_a else (above, below)
    if x_hi <= x_lo:  # Laplace with one shift on each side equal: nothing between
        loss = np.array([e[0] for e in ends])
        return Atoms(loss, np.array([e[1] for e in ends]), 0.0, 0.0, 0.0)
    lx = _loss(pair, np.array([x_lo, x_hi]))
    incr = lx[1] >= lx[0]
    l_min, l_max = float(min(lx)), float(max(lx))
    k0, k1 = math.ceil(l_min / h), math.floor(l_max / h)
    check_points(max(0, k1 - k0 + 1), f"the privacy loss of {pair.kind} (scale {s:g})", h)
    breaks = [np.linspace(x_lo, x_hi, max(2, math.ceil((x_hi - x_lo) / (_CELL * s)) + 1)),
              np.array([a for a in shifts if x_lo < a < x_hi])]
    if k1 >= k0:
        g = np.arange(k0, k1 + 1, dtype=np.float64) * h
        breaks.append(laplace_preimages(pair, g, x_lo, x_hi) if pair.kind == "laplace"
                      else _preimages(pair, g, x_lo, x_hi, bool(incr)))
    xb = np.unique(np.concatenate(breaks))
    gx, gw = _gl()
    mid, half = 0.5 * (xb[1:] + xb[:-1]), 0.5 * (xb[1:] - xb[:-1])
    xs = (mid[:, None] + half[:, None] * gx[None, :]).ravel()
    ws = (half[:, None] * gw[None, :]).ravel()
    lp = _log_mix(xs, pair.p_shifts, pair.p_weights, pair.kind, s)
    lq = _log_mix(xs, pair.q_shifts, pair.q_weights, pair.kind, s)
    norm = -math.log(s * math.sqrt(2 * math.pi)) if pair.kind == "gaussian" else -math.log(2 * s)
    p = ws * np.exp(lp + norm)
    loss = np.concatenate([lp - lq, [e[0] for e in ends]])
    exact = np.concatenate([np.zeros(p.size, dtype=bool), np.ones(len(ends), dtype=bool)])
    p = np.concatenate([p, [e[1] for e in ends]])
    return Atoms(loss, p, 0.0, cut_high, cut_low, 0.0, exact)


def _preimages(pair: NoisePair, g: FloatArray, x_lo: float, x_hi: float, incr: bool) -> FloatArray:
    """x with loss(x) = g for each lattice point g: the cell of a table of the monotone loss on [x_lo, x_hi] that
    holds it, then vectorised regula falsi (Illinois) inside the cell; a point stops when its loss is within
    1e-14·(1 + |g|) of g or its bracket is below 1e-13 of the range (at most ``_BISECT`` rounds)."""
    sign = 1.0 if incr else -1.0
    table = np.linspace(x_lo, x_hi, _TABLE + 1)  # a first bracket from a table of the loss
    lt = np.maximum.accumulate(sign * _loss(pair, table))
    i = np.clip(np.searchsorted(lt, sign * g), 1, _TABLE)
    lo, hi = table[i - 1], table[i]
    f_lo, f_hi = lt[i - 1] - sign * g, lt[i] - sign * g
    tol = 1e-13 * (x_hi - x_lo)
    ftol = 1e-14 * (1.0 + np.abs(g))  # the loss at the break within a few units of round-off of g
    x = np.where(np.abs(f_lo) <= np.abs(f_hi), lo, hi)
    done = np.minimum(np.abs(f_lo), np.abs(f_hi)) <= ftol
    side = np.zeros(g.size, dtype=np.int8)
    for _ in range(_BISECT):
        if bool(done.all()):
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            x_new = np.where(f_hi > f_lo, hi - f_hi * (hi - lo) / (f_hi - f_lo), 0.5 * (lo + hi))
        x_new = np.where((x_new > lo) & (x_new < hi), x_new, 0.5 * (lo + hi))
        x = np.where(done, x, x_new)
        fx = sign * (_loss(pair, x) - g)
        up = fx >= 0.0  # the root is at or below x
        # Illinois: halve the kept end's value when the same end moved twice
        f_lo = np.where(up & (side == 1), 0.5 * f_lo, f_lo)
        f_hi = np.where(~up & (side == -1), 0.5 * f_hi, f_hi)
        hi, f_hi = np.where(up, x, hi), np.where(up, fx, f_hi)
        lo, f_lo = np.where(up, lo, x), np.where(up, f_lo, fx)
        side = np.where(up, 1, -1).astype(np.int8)
        done |= (np.abs(fx) <= ftol) | (hi - lo <= tol)
    return x


def lattice_pairs(at: Atoms, h: float, c: float = 0.0, lower: bool = True,
                  edge: tuple[float, int] | None = None) -> tuple[LatticePmf, LatticePmf]:
    """The upper (dominating) and lower (dominated) lattice PLDs of the atoms on g_j = (k0 + j)·h + c; ``edge``
    (g*, side) merges the lower pair's labels beyond g* (side −1: below it, +1: above it) into the label at g*
    before the relabelling (`edge_offset`).

    Parameters
    ----------
    at : Atoms
    h : float
    c : float
    lower : bool
    edge : tuple[float, int] | None

    Returns
    -------
    tuple[LatticePmf, LatticePmf]
    """
    loss, p = at.loss, at.p
    if loss.size == 0:  # all mass at ±∞
        one = LatticePmf(0, np.zeros(1), min(1.0, (at.p_inf + at.p_high + at.p_drop) * (1 + MARGIN)), c)
        return one, LatticePmf(0, np.zeros(1), at.p_inf * (1 - MARGIN), c)
    l_min, l_max = float(loss.min()), float(loss.max())
    k0 = math.floor((l_min - c) / h)
    k1 = math.floor((l_max - c) / h) + 1
    n = k1 - k0 + 1
    check_points(n, "one step's privacy loss", h)
    g = np.asarray((k0 + np.arange(n)) * h + c, dtype=np.float64)
    a = np.clip(np.floor((loss - c) / h).astype(np.int64) - k0, 0, n - 2)
    t = loss - g[a]
    u = np.clip(np.expm1(t) / math.expm1(h), 0.0, 1.0)
    # upper: P-mass of lattice point j is Q_j e^{g_j}; an atom's Q-mass p·e^{−ℓ} splits (1 − u, u)
    qs = np.bincount(a, p * np.exp(-t) * (1.0 - u), n) + np.bincount(a + 1, p * np.exp(h - t) * u, n)
    up_p = np.asarray(qs, dtype=np.float64) * (1.0 + MARGIN)
    if at.p_low > 0.0:  # the low cut tail (losses below l_min) up to the lattice point at or above l_min
        up_p[min(n - 1, math.ceil((l_min - c) / h) - k0)] += at.p_low * (1.0 + MARGIN)
    upper = LatticePmf(k0, up_p, min(1.0, (at.p_inf + at.p_high + at.p_drop) * (1.0 + MARGIN)), c)
    if not lower:
        return upper, upper
    # point masses: each rounded down to its lattice point (a lower loss under P lowers the composed δ); a loss
    # within the rounding of its logs below a lattice point counts as on it, by at most `SNAP_ULPS`·(1 + |loss| +
    # 2|log P| + |c|) nats (the caller moves the composed ends out by that much per step: `generic._position_error`;
    # the discrete Gaussian's losses are differences of log-masses near −60: 8 ulps of |loss| alone put atoms a cell
    # down, and its ×100 lower end at 9.288 for the exact 9.997)
    ex = at.exact_mask()
    with np.errstate(divide="ignore"):
        snap = SNAP_ULPS * (1.0 + np.abs(loss[ex]) + 2.0 * np.abs(np.log(p[ex])) + abs(c)) / h
    ax = np.clip(np.floor((loss[ex] - c) / h + snap).astype(np.int64) - k0, 0, n - 1)
    exact_lo = np.bincount(ax, p[ex], n)
    qd = ~ex
    pd = np.asarray(np.bincount(a[qd], (p * (1.0 - u))[qd], n) + np.bincount(a[qd] + 1, (p * u)[qd], n),
                    dtype=np.float64)
    qsd = np.asarray(np.bincount(a[qd], (p * np.exp(-t) * (1.0 - u))[qd], n)
                     + np.bincount(a[qd] + 1, (p * np.exp(h - t) * u)[qd], n), dtype=np.float64)
    if edge is not None:  # the labels between the loss's edge and g* onto g* (a post-processing)
        t_idx = round((edge[0] - c) / h) - k0
        if 0 <= t_idx < n:
            side = np.arange(n) < t_idx if edge[1] < 0 else np.arange(n) > t_idx
            pd[t_idx] += float(pd[side].sum())
            qsd[t_idx] += float((qsd[side] * np.exp(g[t_idx] - g[side])).sum())
            pd[side] = 0.0
            qsd[side] = 0.0
    _fold_edges(pd, qsd, g, 0 if edge is None else edge[1])
    p2, qs2, pr, qsr = relabel(pd, qsd, g)
    idx = np.arange(n)
    lab, lab_r = labels(p2, qs2, g, c, h, k0, idx), labels(pr, qsr, g, c, h, k0, idx)
    shift = -min(0, int(lab.min()), int(lab_r.min()))
    top = k1 - 1 - k0 + shift  # the lattice point at or below l_max: the high cut tail goes there
    size = max(int(lab.max()) + shift, int(lab_r.max()) + shift, top, n - 1 + shift) + 1
    lo_p = np.asarray(np.bincount(lab + shift, p2 * (1.0 - MARGIN), size)
                      + np.bincount(lab_r + shift, pr * (1.0 - MARGIN), size), dtype=np.float64)
    lo_p[shift:shift + n] += exact_lo * (1.0 - MARGIN)
    lo_p[top] += at.p_high * (1.0 - MARGIN)
    return upper, LatticePmf(k0 - shift, lo_p, at.p_inf * (1.0 - MARGIN), c)


def _fold_edges(pd: FloatArray, qsd: FloatArray, g: FloatArray, merged: int) -> None:
    """Fold the outermost labels of the quadrature atoms into their inner neighbours where the relabelling could not
    use them (in place; merging two labels is a post-processing): the top label when its ratio is below e^{g} (no
    label above has mass to lend it, so it would be moved down a cell, its loss above that cell lost) and the bottom
    one when its ratio is above e^{g} (no label below to lift, its excess lost when moved down). Folded, the top one
    gives its neighbour an excess that neighbour spends lifting mass from below, and the bottom one a deficit its
    neighbour covers from above: second order instead of about h/2 of loss on each. Laplace ×1,000 (b = 10): the
    lower end's error 0.0026 against the upper end's 0.00018 before. ``merged``: the side the edge merge already
    balanced (−1 below, +1 above), left as it is."""
    live = np.flatnonzero(pd > 0.0)
    if live.size < 2:
        return
    top, bottom = int(live[-1]), int(live[0])
    if merged != 1 and pd[top] < (1.0 + MARGIN) * qsd[top]:
        pd[top - 1] += pd[top]
        qsd[top - 1] += qsd[top] * math.exp(g[top - 1] - g[top])
        pd[top] = qsd[top] = 0.0
    if merged != -1 and bottom + 1 < pd.size and pd[bottom] > (1.0 + MARGIN) * qsd[bottom]:
        pd[bottom + 1] += pd[bottom]
        qsd[bottom + 1] += qsd[bottom] * math.exp(g[bottom + 1] - g[bottom])
        pd[bottom] = qsd[bottom] = 0.0


def aligned(at: Atoms, h: float) -> tuple[float, float]:
    """(h', c): a spacing h' ≤ h and offset c that put the two heaviest point masses of the atoms on lattice points
    (the lower pair rounds point masses down: a heavy atom off the lattice costs up to h·mass, and at h/2 it may sit
    just as far off again); the two heaviest distinct losses l₁, l₂ give h' = |l₁ − l₂|/⌈|l₁ − l₂|/h⌉.

    Parameters
    ----------
    at : Atoms
    h : float

    Returns
    -------
    tuple[float, float]
    """
    ex = at.exact_mask()
    if not ex.any():
        return h, 0.0
    loss, p = at.loss[ex], at.p[ex]
    order = np.argsort(-p)
    l1 = float(loss[order[0]])
    h2 = h
    for i in order[1:]:
        d = abs(float(loss[i]) - l1)
        if d > 1e-9 * max(1.0, abs(l1)) and p[i] > 1e-3 * p[order[0]]:
            h2 = d / math.ceil(d / h)
            break
    return h2, offset(at, h2)


_EDGE_CELLS = 8  # the merged labels at an edge span at most this many cells
_EDGE_GRID = 4  # positions tried per cell
_EDGE_ROUNDS = 40  # bisection rounds (h·2^-40)


def _edge_balance(loss: FloatArray, p: FloatArray, g: float, h: float, side: int) -> float:
    """P − e^{g}·Q of the lower pair's labels between the loss's edge and g (side −1: the bottom edge, +1: the top)
    with the share of the next cell the hat channel leaves at g, less 4·margin of their P-mass."""
    d = -np.expm1(g - loss)  # (P − e^g Q)/P of each atom
    if side < 0:
        beyond, cell = loss < g, (loss >= g) & (loss < g + h)
        share = 1.0 - np.expm1(loss[cell] - g) / math.expm1(h)
    else:
        beyond, cell = loss >= g, (loss < g) & (loss >= g - h)
        share = np.expm1(loss[cell] - (g - h)) / math.expm1(h)
    share = np.clip(share, 0.0, 1.0)
    mass = float(p[beyond].sum()) + float((share * p[cell]).sum())
    return math.fsum([float(p[beyond] @ d[beyond]), float((share * p[cell]) @ d[cell]), -4.0 * MARGIN * mass])


def edge_offset(at: Atoms, h: float) -> tuple[float, tuple[float, int] | None]:
    """(c, edge): the lattice offset and the merge point (g*, side) of the lower pair at the edge of a continuous
    loss where it piles up (a Gaussian mixture against one of its parts: 0.99 N(0) + 0.01 N(1) against N(0) has
    its loss within 3e-3 of its infimum log 0.99 for most of its mass). As `discretise._offsets` does for the
    subsampled Gaussian: the first g within `_EDGE_CELLS` cells of the edge where the labels beyond it (and the
    share of the next cell left at g) have together ratio e^g·(1 + 4·margin), at the heavier edge; the labels are
    merged onto g (`lattice_pairs`). Atoms with point masses keep `offset` (the heaviest on the lattice); no pile
    or no root: `offset`, no merge.

    Parameters
    ----------
    at : Atoms
    h : float

    Returns
    -------
    tuple[float, tuple[float, int] | None]
    """
    base = offset(at, h), None
    if at.exact is None or at.exact.any() or at.loss.size < 4:
        return base
    loss, p = at.loss, at.p
    lo, hi = float(loss.min()), float(loss.max())
    if hi - lo <= 4.0 * _EDGE_CELLS * h:
        return base
    bottom, top = float(p[loss < lo + h].sum()), float(p[loss > hi - h].sum())
    side = -1 if bottom >= top else 1
    if max(bottom, top) < 1e-3 * float(p.sum()):
        return base
    edge = lo if side < 0 else hi
    ts = np.arange(1, _EDGE_CELLS * _EDGE_GRID + 1) / _EDGE_GRID * h
    prev_g = edge
    for t in ts:  # moving away from the edge: the balance changes sign (bottom: + to −; top: − to +) once
        g = edge - side * t
        b = _edge_balance(loss, p, g, h, side)
        if (b < 0.0) if side < 0 else (b >= 0.0):
            near, far = prev_g, g
            break
        prev_g = g
    else:
        return base
    for _ in range(_EDGE_ROUNDS):
        mid = 0.5 * (near + far)
        moved = (_edge_balance(loss, p, mid, h, side) >= 0.0) == (side < 0)
        near, far = (mid, far) if moved else (near, mid)
    g = near if side < 0 else far  # the end where the merged labels' ratio is at or above e^g
    if not _edge_balance(loss, p, g, h, side) >= 0.0:
        return base
    return g - math.floor(g / h) * h, (g, side)


def offset(at: Atoms, h: float) -> float:
    """The lattice offset c in [0, h) that puts the heaviest point mass on a lattice point (0 without one).

    Parameters
    ----------
    at : Atoms
    h : float

    Returns
    -------
    float
    """
    ex = at.exact_mask()
    if not ex.any():
        return 0.0
    l1 = float(at.loss[ex][int(np.argmax(at.p[ex]))])
    return l1 - math.floor(l1 / h) * h
