"""Privacy-loss-distribution (PLD) accountant with a certified bracket ε_lower ≤ ε ≤ ε_upper.

Compositions of Gaussian and Poisson-subsampled Gaussian mechanisms, homogeneous or any schedule of
``(q_t, σ_t, count_t)``, under add/remove neighbours (both directions are composed; the worse is reported).
NumPy FFT only (no dp-accounting). See ``docs/pld.md`` for the derivation and measurements.

Method (own implementation after reading Koskela et al. 2020/2021, Gopi et al. 2021, Doroshenko et al. 2022):

* **Privacy loss** of one step: with z = (2x − 1)/(2σ²), remove: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²),
  L(x) = log((1−q) + q e^z); add: P = N(0,σ²), Q = the mixture, L = −that. δ(ε) = E_P[(1 − e^{ε−L})₊].
* **Upper pair** (pessimistic): "connect the dots" (Doroshenko et al. 2022): the Q-mass is split between
  neighbouring lattice points g_j = j·h linearly in s = e^L ("hat" weights), P-mass of atom j = e^{g_j}·Q_j.
  This pair dominates (its privacy profile is the chord interpolation of the convex true profile in e^ε), so
  its composition bounds δ from above; the error is second order in h.
* **Lower pair** (optimistic): the *same* hat weights used as a randomised post-processing (a channel) give a
  pair dominated by (P, Q) (data processing); its atoms' losses log(P_j/Q_j) lie within O(h²) of g_j. Atoms
  below g_j borrow a fraction of the atom above (another post-processing) until their loss is ≥ g_j, then every
  atom is moved down to its lattice point (a decrease of the loss under P, which lowers δ). Also second order.
* **Tails:** the x-range is cut where the neglected P-mass is ≤ ``tail``; for the upper pair that mass goes to
  an atom at +∞ (or up to the lowest lattice point), for the lower pair to the top lattice point (or dropped).
* **Composition:** exponential tilting by λ (the Chernoff-optimal order, so δ down to 1e-30 is resolved), one
  real FFT per distinct step, powers in the Fourier domain (cost independent of T), one inverse FFT. The window
  [lo, hi] of the composed loss is chosen from Chernoff bounds of the discrete PLDs; mass outside it
  (which the circular convolution aliases into the window) is bounded and charged to δ on the safe side.
* **Round-off:** a componentwise error bound of the forward FFT (10·u·log₂n·‖x‖₁), its propagation through the
  powers and products, and of the inverse FFT gives a pointwise bound E; the upper array is max(W, 0) + E, the
  lower max(W − E, 0). Quadrature (Gauss–Legendre in x) and summation errors are covered by a relative margin
  ``_MARGIN`` (measured errors are ~1e-14; this part is a numerical, not a proved, guarantee).

The bracket width is controlled by the lattice spacing h, adapted until ε_upper − ε_lower ≤ rtol·ε_upper + atol
(defaults rtol 1e-3, atol 1e-6 nats). Memory: the FFT length is capped at ``MAX_FFT`` points (peak ≈ 64 bytes ×
MAX_FFT ≈ 540 MB); beyond it a :class:`~dpcalc.errors.DomainError` names the cause instead of allocating more.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Literal

import numpy as np

from dpcalc import _validate as v
from dpcalc._progress import progress
from dpcalc.errors import DomainError, InfeasibleError

FloatArray = v.FloatArray
Direction = Literal["remove", "add"]

#: Largest FFT length (points); below it the memory cap of :mod:`dpcalc._limits` (default 2 GiB, ≈112 bytes per
#: point, i.e. ≈19 million points) decides.
MAX_FFT = 1 << 27
#: Smallest δ the accountant certifies (below it the lattice needed exceeds the memory cap).
DELTA_MIN = 1e-50
#: Default relative bracket width: ε_upper − ε_lower ≤ RTOL·ε_upper + ATOL.
RTOL = 1e-3
#: Default absolute floor of the bracket width (nats): a tiny ε (σ = 1e3, q = 0.01, T = 10: ε ≈ 4e-6) does not ask
#: for a lattice finer than this (a relative 1e-3 of it needed 3e7 points and hit the memory cap after 12 s).
ATOL = 1e-6
_U = float(np.finfo(np.float64).eps) / 2.0
_FFT_C = 10.0  # componentwise FFT error constant: |Δx̂_k| ≤ _FFT_C·u·log2(n)·‖x‖₁
_MARGIN = 1e-9  # relative safety margin for quadrature / summation rounding
_TAU = 1e-7  # share of δ given to each truncation / aliasing term
_GL_NODES = 5
_GL_WIDTH = 0.35  # GL error ~ (Δx·z/σ)^(2·nodes)/(2·nodes)! <= 1e-13 with 5 nodes
#: cells with half-width·(max|x| + 2) <= _GL_NARROW·σ² take 3 nodes: the integrands (Gaussians centred at 0 and 1 times
#: the hat weight, linear in e^{L}, |dL/dx| <= 1/σ²) vary there like e^{cx} with c <= 0.01 per half-width, where 3-node
#: Gauss–Legendre is exact to rounding. Measured against 9 nodes everywhere: atom masses within 2e-13 relative (5
#: nodes alone: 4e-13 at σ = 1, q = 0.01; the rest is round-off), far inside _MARGIN
_GL_NARROW = 0.01
_LIFT = math.log(1e6)  # tilt so that e^{−λε}·E[e^{λS}] <= δ·_LIFT (Chernoff form)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


class MemoryCapError(DomainError):
    """The requested accuracy needs more memory than the cap (:mod:`dpcalc._limits`) or :data:`MAX_FFT` points."""


_BYTES_PER_POINT = 112  # peak working memory per grid point (both pairs' arrays, spectra and δ-curves)


def _check_points(npts: int, what: str, h: float) -> None:
    """Raise :class:`MemoryCapError` before allocating ``npts`` grid points beyond the memory cap or MAX_FFT."""
    from dpcalc import _limits

    need = npts * _BYTES_PER_POINT
    cap = _limits.max_memory()
    if npts > MAX_FFT or need > cap:
        limit = (f"the cap of {MAX_FFT} points" if npts > MAX_FFT else
                 f"the memory cap of {_limits.human(cap)} (raise it with --max-memory or {_limits.ENV_VAR})")
        raise MemoryCapError(f"pld: {what} needs {npts:.3g} grid points at spacing {h:.3g}, about "
                             f"{_limits.human(need)} of memory, over {limit}; or loosen rtol, or use rdp")


# --- schedule ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """``count`` compositions of the Poisson-subsampled Gaussian with rate ``q`` and noise multiplier ``sigma``."""

    sigma: float
    q: float = 1.0
    count: int = 1


def _schedule(schedule: Iterable[Step | tuple[float, float, int] | Sequence[float]]) -> list[Step]:
    out: list[Step] = []
    for item in schedule:
        st = item if isinstance(item, Step) else Step(float(item[0]), float(item[1]), int(item[2]))
        s, q, c = st.sigma, st.q, st.count
        # plain floats/ints in range skip the (array) validators; anything else gets their one-line errors
        if not (type(s) is float and 0.0 < s < math.inf and type(q) is float and 0.0 < q <= 1.0
                and type(c) is int and c >= 1):
            s = float(v.positive("sigma", s))
            q = float(v.check_range("q", q, 0.0, 1.0, lo_open=True))
            c = int(v.integer_at_least("count", c, 1))
        out.append(Step(s, q, c))
    if not out:
        raise DomainError("schedule must contain at least one step (sigma, q, count)")
    # q = 1 steps are Gaussians: they compose exactly into one Gaussian with 1/σ² = Σ count/σ²
    full = [st for st in out if st.q == 1.0]
    rest = [st for st in out if st.q < 1.0]
    if len(full) > 1 or (full and full[0].count > 1):
        merged_sigma = math.exp(-0.5 * _log_precision(full))
        if merged_sigma == 0.0:
            raise DomainError("sigma is too small: the q = 1 steps compose into one Gaussian whose noise multiplier "
                              "sigma/sqrt(count) underflows float64")
        full = [Step(merged_sigma, 1.0, 1)]
    # identical steps merge
    merged: dict[tuple[float, float], int] = {}
    for st in rest + full:
        merged[(st.sigma, st.q)] = merged.get((st.sigma, st.q), 0) + st.count
    return [Step(s, q, c) for (s, q), c in merged.items()]


def _log_precision(steps: list[Step]) -> float:
    """log Σ count/σ² over ``steps`` (log-sum-exp: σ from 1e-300 to 1e300 neither overflows nor underflows)."""
    terms = [math.log(st.count) - 2.0 * math.log(st.sigma) for st in steps]
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms))


# --- one step: privacy loss and its discretisation ---------------------------------------------------

@dataclass
class _Mech:
    sigma: float
    q: float
    direction: Direction

    def lrem(self, x: FloatArray) -> FloatArray:
        z = (2.0 * x - 1.0) / (2.0 * self.sigma ** 2)
        if self.q == 1.0:
            return z
        return np.logaddexp(math.log1p(-self.q), math.log(self.q) + z)

    def loss(self, x: FloatArray) -> FloatArray:
        return self.lrem(x) if self.direction == "remove" else -self.lrem(x)

    def p_mass_outside(self, x_lo: float, x_hi: float) -> tuple[float, float]:
        """P-mass below x_lo and above x_hi."""
        s = self.sigma
        if self.direction == "add" or self.q == 1.0:
            mu = 0.0 if self.direction == "add" else 1.0
            return _ndtr((x_lo - mu) / s), _ndtr((mu - x_hi) / s)
        q = self.q
        below = (1 - q) * _ndtr(x_lo / s) + q * _ndtr((x_lo - 1.0) / s)
        above = (1 - q) * _ndtr(-x_hi / s) + q * _ndtr((1.0 - x_hi) / s)
        return below, above


def _ndtr(z: float) -> float:
    """Standard normal CDF (scalar, relative accuracy ~1e-15 in the lower tail via erfc)."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@cache
def _tail_z(p: float) -> float:
    """z with Φ(−z) <= p (z in [6, 40]), by bisection on erfc (no SciPy import)."""
    lo, hi = 0.0, 40.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _ndtr(-mid) > p:
            lo = mid
        else:
            hi = mid
    return min(40.0, max(6.0, hi))


@cache
def _gl(nodes: int = _GL_NODES) -> tuple[FloatArray, FloatArray]:
    from numpy.polynomial.legendre import leggauss

    x, w = leggauss(nodes)
    return np.asarray(x), np.asarray(w)


@dataclass
class _Discrete:
    """A discretised single-step PLD on the lattice g_j = (k0 + j)·h + c (finite atoms under P)."""

    k0: int
    p: FloatArray
    p_inf: float = 0.0  # P-mass at +∞ (upper pair only)
    c: float = 0.0  # lattice offset: atom j sits at loss (k0 + j)·h + c

    @property
    def k1(self) -> int:
        return self.k0 + self.p.size - 1


#: first lattice: bracket width ≈ T·h²·max(_WIDTH_C, _WIDTH_C_THETA·(1 + θ*)), θ* the Chernoff-optimal order at δ.
#: Measured on 150 random (σ, q, T, δ): width/(T·h²) spreads from 0.2 to 381 (a constant 4 alone needed a second
#: lattice for 63 % of them), width/((1 + θ*)·T·h²) has quantiles 0.14 / 0.22 / 0.52 at 10 / 50 / 75 %
_WIDTH_C = 4.0
_WIDTH_C_THETA = 0.5
_ALIGN = 0.3  # a remove step's lowest loss log(1 − q) sits this many h below a lattice point
_DOT_MASS = 1e-4  # dots thin out where the tilted P-mass beyond them is below this (see _discretise_many)
_DOT_MAX = 64  # widest dot spacing, in lattice steps


@cache
def _approx_log_mgf(sigma: float, q: float, direction: Direction, tail: float, top: float = 512.0) -> FloatArray:
    """Approximate log E_P[e^{θL}] of one step on ``_thetas(top)`` (trapezoid rule on 513 points in x, used only to
    choose where atoms may be sparse, never in a bound)."""
    m = _Mech(sigma, q, direction)
    zt = _tail_z(max(tail, 1e-300))
    xs = np.linspace(-zt * sigma, 1.0 + zt * sigma, 513)
    lx = np.asarray(m.loss(xs), dtype=np.float64)
    lfp = _log_fp(xs, lx, np.float64(sigma), direction)
    z = lfp[None, :] + _thetas(top)[:, None] * lx[None, :] + math.log(xs[1] - xs[0])
    mx = z.max(axis=1)
    return np.asarray(np.log(np.exp(z - mx[:, None]).sum(axis=1)) + mx)


def _saddle(steps: list[Step], direction: Direction, delta: float, tail: float,
            eps: float | None = None) -> tuple[float, float]:
    """(θ*, ε*): the Chernoff-optimal order of the composition at δ and its Chernoff ε (both approximate; θ* weights
    the tails in :func:`_discretise_many`, ε* sizes the first lattice)."""
    top = _theta_top(steps, direction)
    thetas = _thetas(top)
    k = np.zeros(thetas.size)
    for st in steps:
        k += st.count * _approx_log_mgf(st.sigma, st.q, direction, tail, top)
    if eps is not None:  # the saddle point at a given ε
        nn = thetas >= 0
        return float(thetas[nn][int(np.nanargmin(k[nn] - thetas[nn] * eps))]), eps
    pos = thetas > 0
    with np.errstate(invalid="ignore"):
        cher = (k[pos] - math.log(delta)) / thetas[pos]
    if not np.isfinite(cher).any():
        return 0.0, math.inf
    i = int(np.nanargmin(cher))
    return float(thetas[pos][i]), float(cher[i])


def _losses(x: FloatArray, sig: FloatArray, q: FloatArray, direction: Direction) -> FloatArray:
    """Privacy loss at x of steps with noise multipliers ``sig`` and rates ``q`` (broadcast; q = 1 is exact: the
    log(1 − q) term is −∞ and logaddexp returns z)."""
    z = (2.0 * x - 1.0) / (2.0 * sig * sig)
    with np.errstate(divide="ignore"):
        lr = np.logaddexp(np.log1p(-q), np.log(q) + z)
    return lr if direction == "remove" else -lr


def _x_of_losses(loss: FloatArray, sig: FloatArray, q: FloatArray, direction: Direction) -> FloatArray:
    """Inverse of :func:`_losses` in x (broadcast)."""
    lr = loss if direction == "remove" else -loss
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = lr + np.log1p(-(1.0 - q) * np.exp(-lr)) - np.log(q)
    return sig * sig * z + 0.5


def _log_fq(x: FloatArray, loss: FloatArray, sig: FloatArray, direction: Direction) -> FloatArray:
    """log f_Q at x given the loss there (f_P = f_Q·e^L; the unshifted Gaussian is P (add) or Q (remove))."""
    base = -0.5 * (x / sig) ** 2 - np.log(sig) - _LOG_SQRT_2PI
    return base if direction == "remove" else base - loss


def _log_fp(x: FloatArray, loss: FloatArray, sig: FloatArray, direction: Direction) -> FloatArray:
    base = -0.5 * (x / sig) ** 2 - np.log(sig) - _LOG_SQRT_2PI
    return base + loss if direction == "remove" else base


def _seg_starts(sizes: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def _lattices(sig: FloatArray, qq: FloatArray, direction: Direction, h: float,
              zt: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, np.ndarray, np.ndarray]:
    """Per step: x-range [x_lo, x_hi], loss range [l_min, l_max], lattice offset c and lattice indices k0..k1."""
    x_lo, x_hi = -zt * sig, 1.0 + zt * sig
    l_a, l_b = _losses(x_lo, sig, qq, direction), _losses(x_hi, sig, qq, direction)
    l_min, l_max = np.minimum(l_a, l_b), np.maximum(l_a, l_b)
    # lattice offset: for a subsampled remove step the loss has a hard lower edge log(1 − q) where the mass piles
    # up; a lattice point _ALIGN·h above it keeps the lower pair's error small (its error depends on that position)
    cc = np.where((qq < 1.0) & (direction == "remove"), l_min - (np.ceil(l_min / h) - _ALIGN) * h, 0.0)
    span = (l_max - l_min) / h + 2.0  # lattice points, in float: an int64 cast would wrap past 2**63
    worst = int(np.argmax(span))
    if not span[worst] <= MAX_FFT:
        _check_points(int(min(span[worst], 1e300)), f"one step (sigma = {sig[worst]:g}, q = {qq[worst]:g})", h)
    k0 = np.floor((l_min - cc) / h).astype(np.int64)
    k1 = np.ceil((l_max - cc) / h).astype(np.int64)
    return x_lo, x_hi, l_min, l_max, cc, k0, k1


_CHUNK_POINTS = 1 << 15  # steps are discretised together in chunks of about this many lattice points


def _discretise_many(steps: list[Step], direction: Direction, h: float, tail: float,
                     lam: float = 0.0, lower: bool = True) -> list[tuple[_Discrete, _Discrete]]:
    """Upper (dominating) and lower (dominated) lattice PLDs of each step; ``tail`` = neglected P-mass per side;
    ``lam`` the tilt the composition will use (it only decides where atoms may be sparse).

    All steps are discretised together: their lattices, dots, quadrature cells and labels are concatenated in flat
    arrays (segment r belongs to step r), so a schedule of many distinct steps costs a few NumPy passes, not a few
    per step. Each segment is computed exactly as a single step would be.

    **Dots.** Every lattice point in the bulk, thinning out to spacing ``s·h`` (s ≤ :data:`_DOT_MAX`) where the
    P-mass tilted by e^{λL} beyond the point (on the far side from the bulk) is M < :data:`_DOT_MASS`, with
    s ≈ √(_DOT_MASS/M). Connect-the-dots and the hat channel are valid for any set of dots (Doroshenko et al. 2022),
    so the choice affects only the width of the bracket: a tail interval of width H and tilted mass M adds ≈ M·H² to
    the error, i.e. ≈ _DOT_MASS·h² per decade of M."""
    sig = np.array([st.sigma for st in steps])
    qq = np.array([st.q for st in steps])
    zt = _tail_z(max(tail, 1e-300))
    *_, k0, k1 = _lattices(sig, qq, direction, h, zt)
    nat = k1 - k0 + 1
    for r in range(len(steps)):
        _check_points(int(nat[r]), f"one step (sigma = {sig[r]:g}, q = {qq[r]:g})", h)
    out: list[tuple[_Discrete, _Discrete]] = []
    start, acc = 0, 0
    for r in range(len(steps)):  # chunks of consecutive steps (big lattices alone: cache-friendly arrays)
        acc += int(nat[r])
        if acc >= _CHUNK_POINTS or r == len(steps) - 1:
            out.extend(_discretise_chunk(sig[start:r + 1], qq[start:r + 1], direction, h, zt, lam, lower))
            start, acc = r + 1, 0
    return out


def _discretise_chunk(sig: FloatArray, qq: FloatArray, direction: Direction, h: float, zt: float,
                      lam: float, lower: bool = True) -> list[tuple[_Discrete, _Discrete]]:
    """:func:`_discretise_many` for the steps (sig, qq): flat arrays, segment r is step r. With ``lower=False``
    only the upper pair is built (the second element repeats it): an upper-bound-only pass skips the relabelling."""
    ns = sig.size
    x_lo, x_hi, l_min, l_max, cc, k0, k1 = _lattices(sig, qq, direction, h, zt)
    nat = k1 - k0 + 1
    # --- dots: tilted tail masses on 513 points per step
    tt = np.linspace(0.0, 1.0, 513)
    xs5 = x_lo[:, None] + (x_hi - x_lo)[:, None] * tt[None, :]
    xs5[:, -1] = x_hi
    s2, q2 = sig[:, None], qq[:, None]
    lx5 = _losses(xs5, s2, q2, direction)
    lw = _log_fp(xs5, lx5, s2, direction) + lam * lx5
    w5 = np.exp(lw - lw.max(axis=1, keepdims=True))
    cw = np.cumsum(w5, axis=1)
    left = cw / cw[:, -1:]
    right = 1.0 - left + w5 / cw[:, -1:]
    if direction == "add":  # loss decreasing in x: order by loss
        lx5, left, right = lx5[:, ::-1], right[:, ::-1], left[:, ::-1]
    far = np.minimum(left, right)
    sp = np.clip(np.sqrt(_DOT_MASS / np.maximum(far, 1e-300)), 1.0, float(_DOT_MAX))
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
    xb = _x_of_losses(gd[inner], sig[drow[inner]], qq[drow[inner]], direction)
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
    qpos = (_losses(mid, cs if ns > 1 else sig[0], cq if ns > 1 else qq[0], direction) - cc[crow]) / h - k0[crow] \
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
    tails = [_Mech(float(sig[r]), float(qq[r]), direction).p_mass_outside(float(x_lo[r]), float(x_hi[r]))
             for r in range(ns)]
    # lower pair: the hat channel (data processing), then a second channel that moves a fraction of the
    # neighbouring label into each label so that its loss is (just above) g_j: from the label above when the
    # loss is below g_j, from the label below when it is above; finally every atom down to its lattice point
    p_up_all = np.zeros(ntot)
    p_up_all[dpos] = qs_d * (1.0 + _MARGIN)

    def upper_of(r: int) -> tuple[_Discrete, float]:
        """Step r's upper pair (connect the dots: P-mass e^{g_j} Q_j; tails to +∞ / to the lowest atom) and the
        P-mass of its high tail."""
        below, above = tails[r]
        low_tail, high_tail = (below, above) if direction == "remove" else (above, below)
        p_up = p_up_all[ls[r]:ls[r] + nat[r]]
        p_up[0] += low_tail
        return _Discrete(int(k0[r]), p_up, min(1.0, high_tail * (1.0 + _MARGIN)), float(cc[r])), high_tail

    if not lower:
        return [(u, u) for u, _ in map(upper_of, range(ns))]
    p2, qs2 = _relabel(np.asarray(p_d, dtype=np.float64), np.asarray(qs_d, dtype=np.float64), gd, first_d, last_d)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio_ok = p2 >= (1.0 + _MARGIN) * qs2
        lab = np.where(ratio_ok, idx,
                       np.floor((np.log(p2) - np.log(qs2) + gd - cc[drow] - 4 * _MARGIN) / h) - k0[drow])
    lab = np.where(p2 > 0, lab, 0)
    lab = np.minimum(lab, idx).astype(np.int64)
    lo_shift = -np.minimum(0, np.minimum.reduceat(lab, ds))  # k0 − lo_k0 >= 0
    top = np.floor((l_max - cc) / h).astype(np.int64) - k0 + lo_shift
    lab_s = lab + lo_shift[drow]
    lo_size = np.maximum(np.maximum.reduceat(lab_s, ds), top) + 1
    lo_st = _seg_starts(lo_size)
    p_lo_all = np.asarray(np.bincount(lab_s + lo_st[drow], p2 * (1.0 - _MARGIN), int(lo_size.sum())), dtype=np.float64)
    out: list[tuple[_Discrete, _Discrete]] = []
    for r in range(ns):
        upper, high_tail = upper_of(r)
        p_lo = p_lo_all[lo_st[r]:lo_st[r] + lo_size[r]]
        p_lo[top[r]] += high_tail * (1.0 - _MARGIN)
        out.append((upper, _Discrete(int(k0[r] - lo_shift[r]), p_lo, 0.0, float(cc[r]))))
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
    lx = _losses(xs, s2, q2, direction)
    ga = gd[cell][:, None]
    et = np.expm1(lx - ga)  # e^{L − g_a} − 1 (t = L − g_a is in [0, span] up to rounding at the cell edges)
    u = np.clip(et / em1_span[cell][:, None], 0.0, 1.0)  # hat weight of the upper dot
    lfq = _log_fq(xs, lx, s2, direction)
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


def _relabel(p: FloatArray, qs: FloatArray, g: FloatArray, first: np.ndarray | None = None,
             last: np.ndarray | None = None) -> tuple[FloatArray, FloatArray]:
    """Post-processing of the hat channel's labels: label j keeps a fraction k_j of its own (P, Q) mass and takes
    φ_j of label j+1 (when P_j/Q_j < e^{g_j}) or ψ_j of label j−1 (when P_j/Q_j > e^{g_j}) so that its ratio lands at
    e^{g_j}·(1 + 2·margin) or above. ψ is computed with the smallest own fraction k that the lending can leave, so
    the real ratio is never below the target (more own mass only raises it).

    Q-masses are passed and returned scaled by each label's own e^{g_j} (``qs_j = Q_j e^{g_j}``, comparable to P_j),
    so nothing overflows at large losses. ``first``/``last`` mark the first/last label of each step when several
    steps' labels are concatenated (no lending across them); default: one step."""
    if first is None or last is None:
        first = np.zeros(p.size, dtype=bool)
        last = np.zeros(p.size, dtype=bool)
        first[0] = last[-1] = True

    inner_last = np.flatnonzero(last[:-1])  # step boundaries inside the arrays
    inner_first = np.flatnonzero(first[1:]) + 1

    def up(a: FloatArray) -> FloatArray:  # a[j+1] at j, 0 at the last label of a step
        out = np.append(a[1:], 0.0)
        out[inner_last] = 0.0
        return out

    def down(a: FloatArray) -> FloatArray:  # a[j−1] at j, 0 at the first label of a step
        out = np.concatenate([[0.0], a[:-1]])
        out[inner_first] = 0.0
        return out

    m2 = 1.0 + 2.0 * _MARGIN
    dg = np.diff(g)
    with np.errstate(over="ignore"):
        e_up = np.append(np.exp(-dg), 0.0)  # e^{g_j − g_{j+1}}
        e_up[inner_last] = 0.0
        e_dn = np.concatenate([[0.0], np.exp(dg)])  # e^{g_j − g_{j−1}}
        e_dn[inner_first] = 0.0
    qs_up = up(qs) * e_up  # Q_{j+1}·e^{g_j}
    qs_dn = down(qs) * e_dn  # Q_{j−1}·e^{g_j}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        need = m2 * qs - p  # > 0: ratio below target
        spare_up = up(p) - m2 * qs_up  # label above, measured against this label's target
        phi = np.where((need > 0) & (spare_up > 0), np.minimum(need / spare_up, 1.0), 0.0)
        lack_dn = m2 * qs_dn - down(p)  # label below lacks mass against this label's target
        excess = -need
        psi1 = np.where((excess > 0) & (lack_dn > 0), excess / lack_dn, 0.0)  # may be +inf (lack_dn tiny)
        lent1 = down(phi) + up(np.minimum(psi1, 1.0))
        k_min = np.clip(1.0 - lent1, 0.0, 1.0)
        psi = np.where((psi1 > 0) & (k_min > 0), np.minimum(k_min * psi1, 1.0), 0.0)  # k_min = 0: nothing (no 0·inf)
        lent = down(phi) + up(psi)
        over = np.maximum(lent, 1.0)  # a label cannot lend more than all of itself
        over_up = np.append(over[1:], 1.0)
        over_up[inner_last] = 1.0
        over_dn = np.concatenate([[1.0], over[:-1]])
        over_dn[inner_first] = 1.0
        phi_a = phi / over_up
        psi_a = psi / over_dn
        keep = 1.0 - (down(phi_a) + up(psi_a))
    keep = np.clip(keep, 0.0, 1.0)
    p2 = keep * p + phi_a * up(p) + psi_a * down(p)
    qs2 = keep * qs + phi_a * qs_up + psi_a * qs_dn
    return p2, qs2


# --- Chernoff bounds of the discrete PLDs -----------------------------------------------------------------

_THETAS = np.concatenate([-np.geomspace(1e-2, 16.0, 4)[::-1], [0.0], np.geomspace(1e-2, 512.0, 16)])


@cache
def _thetas(top: float) -> FloatArray:
    """The orders θ of the Chernoff bounds and of the tilt: :data:`_THETAS`, continued geometrically (≈3.4 per
    decade, as below 512) up to ``top`` for schedules whose privacy loss is tiny (large σ): there the tilt that
    resolves δ = 1e-30 is ≈ ln(1/δ)/ε ~ 1e4–1e6 (σ = 899, q = 0.1, T = 10: ε ≈ 0.003), and with orders capped at
    512 the FFT round-off floor kept ε_upper at 0.067 however fine the lattice."""
    if top <= 512.0:
        return _THETAS
    n = math.ceil(3.4 * math.log10(top / 512.0)) + 1
    return np.concatenate([_THETAS, np.geomspace(512.0, top, n)[1:]])


def _loss_variance(steps: Sequence[Step]) -> float:
    """Approximate variance of the composed privacy loss, Σ count·min(q²(e^{1/σ²} − 1), 1/σ²) (small-q expansion,
    capped by the unsubsampled Gaussian's exact 1/σ²; the mean is about half of it)."""
    out = []
    for st in steps:
        inv = math.exp(min(-2.0 * math.log(st.sigma), 700.0))  # 1/σ², without overflow
        out.append(st.count * min(st.q * st.q * math.expm1(min(inv, 700.0)), inv))
    return math.fsum(out)


def _theta_top(steps: Sequence[Step], direction: Direction) -> float:
    """Largest order needed: ≈ 100/std of the composed loss (std² ≈ Σ count·q²·(e^{1/σ²} − 1)), at least 512,
    rounded up to a power of 2 (few distinct grids, cached). Remove direction only: the add direction's loss is
    bounded above by −log(1 − q), its Chernoff bound improves with θ without end, and a huge tilt there left the
    window too narrow (an infinite ε_upper at σ = 1.03, q = 1.4e-3, T = 1)."""
    if direction == "add":
        return 512.0
    var = _loss_variance(steps)
    if not var > 0.0:
        return 512.0
    top = min(1e9, max(512.0, 100.0 / math.sqrt(var)))
    return float(2.0 ** math.ceil(math.log2(top)))


def _log_mgf(d: _Discrete, h: float, thetas: FloatArray) -> FloatArray:
    """Upper bound on log E[e^{θL}] (finite atoms) for each θ (see :func:`_exp_rel`)."""
    nz = np.flatnonzero(d.p > 0)
    z = np.log(d.p[nz])[None, :] + thetas[:, None] * ((d.k0 + nz) * h + d.c)[None, :]
    mx = z.max(axis=1)
    return np.log(_exp_rel(z, mx[:, None]).sum(axis=1)) + mx


def _exp_rel(z: FloatArray, top: FloatArray) -> FloatArray:
    """e^{z − top} in place of z, each term raised to at least e^{−700}: an upper bound of the sum off by < n·1e-304
    relative, without the slow subnormal range of exp (−745 < z − top < −708 cost 2× on the log-MGFs)."""
    z -= top
    np.maximum(z, -700.0, out=z)
    return np.exp(z, out=z)


def _total_mgf(parts: list[tuple[_Discrete, int]], h: float, thetas: FloatArray) -> FloatArray:
    """log-MGF bound of the composition: Σ count·K_i(θ) (each K_i as in :func:`_log_mgf`). The atoms of all steps
    are concatenated (chunks of about 2^16 atoms) and the per-step log-sum-exps are segment reductions."""
    out = np.zeros(thetas.size)
    chunk: list[tuple[np.ndarray, np.ndarray, int]] = []
    size = 0

    def flush() -> None:
        nonlocal size
        if not chunk:
            return
        lm = np.concatenate([c[0] for c in chunk])
        g = np.concatenate([c[1] for c in chunk])
        sizes = np.array([c[0].size for c in chunk])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        z = lm[None, :] + thetas[:, None] * g[None, :]
        mx = np.maximum.reduceat(z, starts, axis=1)
        sm = np.add.reduceat(_exp_rel(z, np.repeat(mx, sizes, axis=1)), starts, axis=1)
        out[:] += (np.log(sm) + mx) @ np.array([float(c[2]) for c in chunk])
        chunk.clear()
        size = 0

    for d, c in parts:
        nz = np.flatnonzero(d.p > 0)
        if nz.size >= 1 << 13:  # a big step alone: no concatenation
            out += c * _log_mgf(d, h, thetas)
            continue
        chunk.append((np.log(d.p[nz]), (d.k0 + nz) * h + d.c, c))
        size += nz.size
        if size >= 1 << 16:
            flush()
    flush()
    return out


# --- composition -----------------------------------------------------------------------------------------

def _fft_len(n: int) -> int:
    """Smallest 2^a·3^b·5^c ≥ n."""
    best = 1 << max(0, (n - 1).bit_length())
    f5 = 1
    while f5 < best:
        f35 = f5
        while f35 < best:
            f = f35
            while f < n:
                f *= 2
            best = min(best, f)
            f35 *= 3
        f5 *= 5
    return best


def _ipow(x: np.ndarray, c: int) -> np.ndarray:
    """x**c elementwise by repeated squaring (c >= 1); at most 2·log2(c) multiplications."""
    result: np.ndarray | None = None
    base = x
    while c:
        if c & 1:
            result = base.copy() if result is None else result * base
        c >>= 1
        if c:
            base = base * base
    assert result is not None
    return result


_ROWS_BYTES = 1 << 25  # spectra transformed together (rows × n) stay below ~32 MB per array


def _tilted_rows(ds: list[_Discrete], h: float, lam: float, n: int) -> tuple[FloatArray, FloatArray, FloatArray,
                                                                               FloatArray]:
    """Tilted atoms of several steps on the circle of length n, one row each: row r holds w_j = p_j e^{λ g_j}/z_r
    (Σw = 1) at position k mod n. Returns (rows, log z_r, log of the tilted mass of the atoms whose w_j underflows to
    0 (−inf: none), Σw)."""
    nzs = [np.flatnonzero(d.p > 0) for d in ds]
    sizes = np.array([nz.size for nz in nzs])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    p = np.concatenate([d.p[nz] for d, nz in zip(ds, nzs, strict=True)])
    k = np.concatenate([d.k0 + nz for d, nz in zip(ds, nzs, strict=True)])
    off = np.repeat(np.array([d.c for d in ds]), sizes)
    lw = np.log(p) + lam * (k * h + off)
    mx = np.maximum.reduceat(lw, starts)
    lz = mx + np.log(np.add.reduceat(np.exp(lw - np.repeat(mx, sizes)), starts))
    w = np.exp(lw - np.repeat(lz, sizes))
    rows = np.repeat(np.arange(len(ds)), sizes)
    arr = np.asarray(np.bincount(rows * n + k % n, w, len(ds) * n), dtype=np.float64).reshape(len(ds), n)
    gone = w == 0.0
    log_dropped = np.full(len(ds), -math.inf)
    if gone.any():  # their tilted weights e^{lw − lz} < 1e-323, summed in log space
        zd = np.where(gone, lw - np.repeat(lz, sizes), -math.inf)
        top = np.maximum.reduceat(zd, starts)
        with np.errstate(invalid="ignore"):
            sm = np.add.reduceat(np.exp(zd - np.repeat(np.where(np.isfinite(top), top, 0.0), sizes)), starts)
        with np.errstate(divide="ignore"):
            log_dropped = np.where(np.isfinite(top), top + np.log(sm), -math.inf)
    return arr, np.asarray(lz), np.asarray(log_dropped), np.asarray(np.add.reduceat(w, starts))


def _compose(parts: list[tuple[_Discrete, int]], h: float, lam: float, k_lo: int, n: int,
             upper: bool) -> tuple[FloatArray, float, float, float]:
    """Tilted circular composition; returns (W clipped ± E, logk, log R, E) with R = Σ count·(tilted mass of the atoms
    whose tilted weight underflowed and were left out). Those atoms change δ(ε) of the composition by at most
    e^{logk + log R − λε} (their share of the composed tilted mass is <= R, and a composed atom at s > ε weighs
    e^{logk − λs}·(its tilted mass)): the upper curve adds that term; the lower one may ignore them.

    Steps with the same count are transformed together (one batched real FFT) and raised to their count by repeated
    squaring, so only multiplications touch the spectra. Round-off: with f̃ the computed spectra, |f̃ − f| ≤ Δ
    componentwise (Δ = 10·u·log2(n)·Σw), and every complex product carries a relative error ≤ 4u, the computed
    product P̃ of powers satisfies |P̃ − Π f^c| ≤ Π(|f̃|+Δ)^c − Π|f̃|^c + ρ·Π|f̃|^c with ρ = (1+4u)^{2(Σc + k)} − 1.
    """
    m = n // 2 + 1
    spec: np.ndarray | None = None  # product of the powers (complex)
    up: np.ndarray | None = None  # product of (|f̃| + Δ)^c (real, an upper bound of the moduli)
    logk = 0.0
    log_drops: list[float] = []
    lg2 = math.log2(n)
    total = 0
    by_count: dict[int, list[_Discrete]] = {}
    for d, c in parts:
        by_count.setdefault(c, []).append(d)
        total += c
    for c, ds in by_count.items():
        rows = max(1, _ROWS_BYTES // (16 * n))
        for s in range(0, len(ds), rows):
            chunk = ds[s:s + rows]
            arr, lz, dr, wsum = _tilted_rows(chunk, h, lam, n)
            dl = (_FFT_C * _U * lg2 * wsum)[:, None]
            logk += c * math.fsum(lz)
            log_drops.extend((math.log(c) + dr[np.isfinite(dr)]).tolist())
            f = np.fft.rfft(arr, axis=1)
            b = np.abs(f)  # in place below: three passes over rows × n without temporaries
            b *= 1.0 + 2.0 * _U
            b += dl
            # Π_i f_i^c = (Π_i f_i)^c: multiply the rows (one reduction, in row order), then one power
            fr, br = np.multiply.reduce(f, axis=0), np.multiply.reduce(b, axis=0)
            fp, bp = _ipow(fr, c), _ipow(br, c)
            spec = fp if spec is None else spec * fp
            up = bp if up is None else up * bp
    assert spec is not None and up is not None
    rho = math.expm1(2.0 * (total * (len(parts) + 1) + len(parts) + 1) * math.log1p(4.0 * _U))
    mod = np.abs(spec)
    up_c = up * (1.0 + rho)  # >= Π(|f̃|+Δ)^c and >= Π|f̃|^c
    low = mod * (1.0 - 2.0 * _U) / (1.0 + rho)  # <= Π|f̃|^c
    err = np.maximum(up_c - low, 0.0) + rho * up_c
    out = np.fft.irfft(spec, n)
    e_bound = ((2.0 / n) * float(err.sum()) + _FFT_C * _U * lg2 * (2.0 / n) * float(mod.sum()) * (1.0 + 4.0 * _U)
               + 1e-300)
    assert spec.size == m
    # circular position (k mod n) -> window index
    out = np.roll(out, -(k_lo % n))
    out = np.maximum(out, 0.0) + e_bound if upper else np.maximum(out - e_bound, 0.0)
    top = max(log_drops, default=-math.inf)
    log_r = top + math.log(math.fsum(math.exp(x - top) for x in log_drops)) if log_drops else -math.inf
    return out, logk, log_r, e_bound


def _discounted_suffix(w: FloatArray, log_a: float) -> FloatArray:
    """S(m) = Σ_{k>m} w_k a^{k−m} with a = e^{log_a} < 1, in blocks (no under/overflow)."""
    n = w.size
    blk = max(1, min(n, int(600.0 / max(-log_a, 1e-300))))
    out = np.empty(n)
    carry = 0.0  # T(e) = Σ_{k≥e} w_k a^{k−e}
    for e in range(n, 0, -blk):
        s = max(0, e - blk)
        i = np.arange(e - s)
        rc = np.cumsum((w[s:e] * np.exp(log_a * i))[::-1])[::-1]
        tin = rc * np.exp(-log_a * i) + np.exp(log_a * (e - s - i)) * carry  # T(m), m = s + i
        out[s:e] = np.append(tin[1:], carry) * math.exp(log_a)
        carry = float(tin[0])
    return out


#: below this A_m (the tilted suffix sum) the δ-curve is summed term by term in log space (:meth:`_Curve._direct`)
_A_DIRECT = 1e-280


def _exp_or_inf(x: float) -> float:
    """``e^x``, +inf past the double range (a δ that large only ever fails a comparison with a target)."""
    return math.exp(x) if x < 709.0 else math.inf


@dataclass(frozen=True)
class _Curve:
    """δ(ε) of one composed PLD: δ(x_m + t) = e^{logk − λx_m}(A_m − e^t·B_m ± R_m) + extra ± e^{log_tilt − λε}.

    The last term is signed like the curve: the upper curve's bound on the atoms left out of the composition (their
    tilted weights underflowed, :func:`_compose`), the lower curve's bound on the aliased mass (subtracted).

    R_m bounds the rounding of the difference: A_m and B_m are sums of up to n − m positive terms (relative error
    ≤ (n − m + 4)·u each, ×8 for the blocked form), and A_m − e^t·B_m cancels where one heavy atom sits just above
    ε (its two terms agree to rounding as t → h). ``upper`` adds R_m, the lower curve subtracts it. Without it the
    upper δ just below a heavy atom came out as 0 (σ = 3.63, q = 1, δ = 1.7e-27: ε_upper 2.7105 below the exact
    2.9178, found by the deep PLD sweep)."""

    x: FloatArray
    a: FloatArray
    b: FloatArray
    lam: float
    logk: float
    extra: float
    log_tilt: float  # −inf: no such term
    upper: bool = True
    w: FloatArray | None = None  # the composed tilted masses (for the direct sum where A_m underflows)

    @cached_property
    def _log_w(self) -> FloatArray:
        """log W (−inf where W = 0), computed once, on the first direct sum."""
        assert self.w is not None
        with np.errstate(divide="ignore"):
            return np.asarray(np.log(self.w))

    def tilt_term(self, eps: float) -> float:
        """The signed e^{log_tilt − λε} term at ε."""
        if self.log_tilt == -math.inf:
            return 0.0
        val = _exp_or_inf(self.log_tilt - self.lam * eps)
        return val if self.upper else -val

    def ab(self, m: int) -> tuple[float, float]:
        """(A_m, B_m) = Σ_{k>m} W_k·(e^{−λh(k−m)}, e^{−(λ+1)h(k−m)})."""
        return float(self.a[m]), float(self.b[m])

    def delta(self, eps: float) -> float:
        if eps < self.x[0]:
            raise DomainError("pld: internal window does not contain eps")
        m = min(int((eps - self.x[0]) // (self.x[1] - self.x[0])), self.x.size - 1)
        t = eps - self.x[m]
        a, b = self.ab(m)
        if a < _A_DIRECT and m + 1 < self.x.size and self.w is not None:
            return self._direct(m, eps) + self.extra + self.tilt_term(eps)
        etb = math.exp(t) * b
        rounding = 8.0 * (self.x.size - m + 4) * _U * (a + etb)
        diff = a - etb + (rounding if self.upper else -rounding)
        # in log space: at a large tilt (λ ~ 1e5 for a tiny loss) e^{logk − λx_m} alone overflows where δ is small
        fin = _exp_or_inf(self.logk - self.lam * float(self.x[m]) + math.log(diff)) if diff > 0.0 else 0.0
        return fin + self.extra + self.tilt_term(eps)

    def _direct(self, m: int, eps: float) -> float:
        """Σ_{k>m} P_k·(1 − e^{ε − x_k}) with log P_k = log W_k + logk − λx_k, term by term (positive terms: no
        cancellation). Used where A_m is below :data:`_A_DIRECT`: its discounted terms e^{−λh(k−m)} underflow at a
        large λh (a few atoms far above ε then vanish from A_m and δ came out as 0: σ = 1e4, q = 1, δ = 1e-20 at a
        coarse lattice gave ε_upper 4.4e-5 below the exact 8.0e-4)."""
        xs = self.x[m + 1:]
        with np.errstate(divide="ignore", under="ignore"):
            v = self._log_w[m + 1:] + self.logk - self.lam * xs + np.log(-np.expm1(eps - xs))
            v = v[v > -math.inf]
            total = float(np.exp(np.minimum(v, 709.0)).sum()) if v.size else 0.0
        if v.size and float(v.max()) >= 709.0:
            return math.inf if self.upper else total
        n = xs.size
        if self.upper:  # summation error, and terms below the normal range (at most 2.3e-308 each)
            return total * (1.0 + 8.0 * (n + 4) * _U) + n * 2.3e-308
        return max(0.0, total * (1.0 - 8.0 * (n + 4) * _U))

    def eps(self, delta: float) -> float:
        """Smallest ε ≥ 0 on the window with δ(ε) ≤ delta (δ(ε) is non-increasing): lattice bisection, then
        bisection inside the cell."""
        x0 = max(0.0, float(self.x[0]))
        if self.delta(x0) <= delta:
            return x0
        # the cell containing x0 (x[i_lo] <= x0: the first lattice point >= x0 skipped [x0, x[i_lo]), where a small ε
        # can lie: σ = 4.54, q = 0.0044, T = 2 gave both bounds 7.86e-4 for the true 2.34e-4, the lower one unsafe)
        i_lo = max(0, int(np.searchsorted(self.x, x0, side="right")) - 1)
        i_hi = self.x.size - 1
        if self.delta(float(self.x[i_hi])) > delta:
            return math.inf
        while i_hi - i_lo > 1:
            mid = (i_lo + i_hi) // 2
            if self.delta(float(self.x[mid])) <= delta:
                i_hi = mid
            else:
                i_lo = mid
        lo, hi = max(float(self.x[i_lo]), x0), float(self.x[i_hi])
        # inside the cell δ is explicit up to the (small) e^{−λε} term: start the bisection at that root
        xm0 = float(self.x[i_lo])
        rhs_base = delta - self.extra - self.tilt_term(lo)
        rhs = (_exp_or_inf(math.log(rhs_base) + self.lam * xm0 - self.logk) if rhs_base > 0.0 else
               (0.0 if rhs_base == 0.0 else -math.inf))
        a_m, b_m = self.ab(i_lo)
        if b_m > 0.0 and math.isfinite(rhs) and a_m > rhs:
            c = xm0 + math.log((a_m - rhs) / b_m)
            eta = 1e-12 * max(1.0, abs(c))
            if lo < c - eta and c + eta < hi and self.delta(c + eta) <= delta:
                hi = c + eta
                if self.delta(c - eta) > delta:
                    lo = c - eta
        for _ in range(100):
            xm = 0.5 * (lo + hi)
            if self.delta(xm) <= delta:
                hi = xm
            else:
                lo = xm
            if hi - lo <= 1e-15 * max(1.0, abs(hi)):
                break
        return hi


def _curve(w: FloatArray, k_lo: int, h: float, off: float, lam: float, logk: float, extra: float,
           log_tilt: float, upper: bool) -> _Curve:
    j = np.arange(w.size, dtype=np.float64)
    x = (k_lo + j) * h + off
    if (lam + 1.0) * h * w.size < 700.0:  # the powers do not underflow: one reversed cumulative sum each
        a, b = _suffix_direct(w, np.exp(-lam * h * j)), _suffix_direct(w, np.exp(-(lam + 1.0) * h * j))
    else:
        a, b = _discounted_suffix(w, -lam * h), _discounted_suffix(w, -(lam + 1.0) * h)
    return _Curve(x, a, b, lam, logk, extra, log_tilt, upper, w)


def _suffix_direct(w: FloatArray, pw: FloatArray) -> FloatArray:
    """S(m) = Σ_{k>m} w_k·pw_k/pw_m for pw_k = a^k with a^n not underflowing (all terms are >= 0)."""
    t = w * pw
    s = np.cumsum(t[::-1])[::-1]
    return np.append(s[1:], 0.0) / pw


def _min_over(vals: FloatArray) -> float:
    vals = vals[np.isfinite(vals)]
    return float(vals.min()) if vals.size else math.inf


# --- one direction at one lattice spacing -------------------------------------------------------------------

@dataclass
class _Pass:
    up: _Curve
    lo: _Curve | None
    n: int
    eg: float = 0.0  # the lower curve is valid for ε >= eg


def _run(steps: list[Step], direction: Direction, h: float, delta: float, eps_guess: float | None,
         eps_query: float | None, lower: bool = True) -> _Pass:
    total = sum(st.count for st in steps)
    if eps_query is not None:
        # δ at ε needs the window from ε up past the loss's mean (≈ half its variance; the Chernoff top is >= the
        # mean): refuse before discretising a lattice that cannot fit (T = 1e9 discretised for 11 s first). A
        # quarter of the estimate, as the small-q mean may overstate the true one; an ε query's window sits around
        # ε instead and is sized after the discretisation
        span = max(0.5 * _loss_variance(steps) - eps_query, 0.0)
        _check_points(int(min(0.25 * span / h, 1e18)), f"the composed privacy loss of the schedule (steps = {total})",
                      h)
    tail = _TAU * delta / (4.0 * total)
    ups: list[tuple[_Discrete, int]] = []
    los: list[tuple[_Discrete, int]] = []
    theta, _ = _saddle(steps, direction, delta, tail, eps_query)
    for st, (u, lo_d) in zip(steps, _discretise_many(steps, direction, h, tail, theta, lower), strict=True):
        ups.append((u, st.count))
        los.append((lo_d, st.count))
    th = _thetas(_theta_top(steps, direction))
    k_up = _total_mgf(ups, h, th)
    k_lo = _total_mgf(los, h, th) if lower else k_up
    log_td = math.log(_TAU * delta)
    pos = th > 0
    if eps_query is None:
        cher = (k_up[pos] - math.log(delta)) / th[pos]
        eps_ch = float(np.nanmin(cher))
        # the lower curve is valid for ε >= eg; callers re-run when ε_lower < eg (None: a heuristic guess)
        eg = 0.5 * eps_ch if eps_guess is None else max(0.0, eps_guess)
        eg = max(0.0, min(eg, eps_ch))
    else:
        eps_ch = eps_query
        eg = eps_query
    # tilt: the smallest λ >= 0 that lifts the region near ε to within _LIFT of the bulk (FFT round-off is
    # relative to the bulk); a larger λ would widen the window (the tilted loss is heavy-tailed)
    nonneg = th >= 0
    ok = nonneg & (k_up - th * eps_ch <= math.log(delta) + _LIFT)
    lam = float(th[ok].min()) if ok.any() else float(th[nonneg][int(np.nanargmin((k_up - th * eps_ch)[nonneg]))])
    # refine θ around λ (the aliasing bounds need θ close to λ), then the window: upper tail of the upper PLD,
    # aliasing of the lower one (above and below)
    if lam > 0:
        loc = np.concatenate([lam * (1.0 + np.geomspace(1e-3, 4.0, 10)), lam * (1.0 - np.geomspace(1e-3, 0.9, 6))])
        th = np.concatenate([th, loc])
        k_up = np.concatenate([k_up, _total_mgf(ups, h, loc)])
        k_lo = np.concatenate([k_lo, _total_mgf(los, h, loc)]) if lower else k_up
    pos, gt, lt = th > 0, th > lam, th < lam
    lo_w = float(np.nanmax((log_td + lam * eg - k_lo[lt]) / (lam - th[lt])))
    lo_w = min(lo_w, eg) - 2 * h
    hi1 = _min_over((k_up[pos] - log_td) / th[pos])
    # mass of the lower PLD above x_hi + (eg − x_lo) is the only aliased mass that lands above ε
    hi2 = _min_over((k_lo[gt] - lam * eg - log_td) / (th[gt] - lam)) - (eg - lo_w)
    hi = max(hi1, hi2, eps_ch) + 2 * h
    off = math.fsum(c * d.c for d, c in ups)  # the composed lattice's offset: index k is loss k·h + off
    kk_lo = math.floor((lo_w - off) / h)
    need = math.ceil((hi - off) / h) - kk_lo + 1
    _check_points(need, f"the composed privacy loss of the schedule (steps = {sum(c for _, c in ups)})", h)
    n = _fft_len(max(need, 16))  # at least a few cells: the δ curve interpolates between lattice points
    x_hi = (kk_lo + n - 1) * h + off
    # upper: composed mass at +∞ and P(S > window) by Chernoff
    p_inf = -math.expm1(sum(c * math.log1p(-d.p_inf) for d, c in ups))
    tail_up = math.exp(min(0.0, _min_over(k_up[pos] - th[pos] * x_hi)))
    w_up, lk_up, log_r, _ = _compose(ups, h, lam, kk_lo, n, upper=True)
    extra = min(1.0, p_inf + tail_up)
    # lower: aliasing bounds (coefficient of e^{−λε})
    x_lo = kk_lo * h + off
    # in log space (an e^700 cap on the coefficients would understate a larger bound: the lower curve too high)
    log_alias = float(np.logaddexp(_min_over(k_lo[gt] - (th[gt] - lam) * (x_hi + eg - x_lo)),
                                   _min_over(k_lo[lt] + (lam - th[lt]) * x_lo)))
    up = _curve(w_up, kk_lo, h, off, lam, lk_up, extra * (1 + _MARGIN), lk_up + log_r + _MARGIN, True)
    if not lower:
        return _Pass(up, None, n, eg)
    w_lo, lk_lo, _, _ = _compose(los, h, lam, kk_lo, n, upper=False)
    lo = _curve(w_lo, kk_lo, h, off, lam, lk_lo, 0.0, log_alias + _MARGIN, False)
    return _Pass(up, lo, n, eg)


# --- public API ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EpsBracket:
    """ε_lower ≤ ε ≤ ε_upper at δ for a schedule; ``eps_upper`` is the guarantee."""

    eps_lower: float
    eps_upper: float
    delta: float
    direction: str  # neighbour direction of the worse (upper) case
    grid: float  # lattice spacing h of the loss
    fft_len: int
    details: dict[str, float] = field(default_factory=dict, compare=False)

    @property
    def width(self) -> float:
        return self.eps_upper - self.eps_lower


@dataclass(frozen=True)
class DeltaBracket:
    """δ_lower ≤ δ(ε) ≤ δ_upper for a schedule; ``delta_upper`` is the guarantee."""

    delta_lower: float
    delta_upper: float
    eps: float
    direction: str
    grid: float
    fft_len: int


def _dominating(steps: list[Step], ratio: float = 1.2) -> list[Step]:
    """A coarser schedule that dominates ``steps``: each σ rounded down to a power of ``ratio`` (σ' ≤ σ dominates σ:
    adding N(0, σ² − σ'²) noise is a post-processing of both neighbours), equal steps merged. Its upper bound is an
    upper bound of the schedule's; used to settle the add direction with few distinct steps."""
    if len(steps) <= 4:
        return steps
    lr = math.log(ratio)
    return _schedule([(math.exp(math.floor(math.log(st.sigma) / lr) * lr) * (1.0 - 1e-15), st.q, st.count)
                      for st in steps])


def _directions(steps: list[Step]) -> list[Direction]:
    return ["remove"] if all(st.q == 1.0 for st in steps) else ["remove", "add"]


def _h0(steps: list[Step], rtol: float, scale: float) -> float:
    """Initial lattice spacing: second-order error ≈ c·T·h² against the tolerance rtol·scale."""
    total = sum(st.count for st in steps)
    return float(min(0.05, max(1e-6, 0.6 * math.sqrt(rtol * max(scale, 1e-3) / total))))


def _check_rtol(rtol: float | None) -> float:
    return RTOL if rtol is None else float(v.check_range("rtol", rtol, 1e-8, 1.0, lo_open=True))


def _eps_pass(steps: list[Step], direction: Direction, h: float, delta: float, guess: float | None,
              lower: bool) -> tuple[float, float, int]:
    """(ε_lower, ε_upper, FFT length) of one direction at spacing h; ε_lower = 0 when ``lower`` is False."""
    g = guess
    for _ in range(4):
        ps = _run(steps, direction, h, delta, g, None, lower)
        e_up = ps.up.eps(delta)
        if ps.lo is None:
            return 0.0, e_up, ps.n
        e_lo = ps.lo.eps(delta)
        if e_lo >= ps.eg or ps.eg == 0.0:  # the lower curve is valid for ε >= the window's guess
            return e_lo, e_up, ps.n
        g = max(0.0, e_lo - 0.1 * abs(e_lo) - 4 * h) if math.isfinite(e_lo) else 0.0
    return 0.0, e_up, ps.n


def _certainly_zero(steps: list[Step], delta: float) -> bool:
    """True when ε(δ) = 0 exactly: the schedule is dominated by its un-subsampled Gaussians (joint convexity of the
    hockey-stick divergence, both directions), which compose into one Gaussian with μ = √(Σ count/σ²), whose
    δ(0) = erf(μ/(2√2)) (:func:`dpcalc.accounting.gdp.delta_at_zero`) is at most μ/√(2π) (erf x ≤ 2x/√π). That
    bound ≤ δ is tested in log space with an outward margin: huge σ would otherwise reach the lattice as a loss
    range of ~1e-40 and break its sizing; schedules near the boundary take the lattice path."""
    log_bound = 0.5 * _log_precision(steps) - 0.5 * math.log(2.0 * math.pi)
    return log_bound + 1e-12 <= math.log(delta)


@v.named_shapes
def epsilon(schedule: Iterable[Step | tuple[float, float, int]], delta: float, *, rtol: float | None = None,
            max_iter: int = 8, grid: float | None = None, atol: float = ATOL) -> EpsBracket:
    """Certified bracket on ε(δ) of a schedule of ``(sigma, q, count)`` steps (see the module docstring).

    Both neighbour directions are bounded from above (the reported ε_upper is the larger); the lower bound is the
    remove direction's. The lattice is refined until ``eps_upper − eps_lower ≤ rtol·eps_upper + atol`` (defaults
    1e-3 and 1e-6 nats);
    if that is not reached within ``max_iter`` refinements the (still valid) wider bracket is returned with
    ``details['converged'] = 0``. ``grid`` starts at that lattice spacing instead of a coarse one (a warm start,
    e.g. the ``grid`` of a bracket for a nearby schedule; calibration uses it).
    """
    steps = _schedule(schedule)
    d = float(v.check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    if d < DELTA_MIN:
        raise DomainError(f"pld: delta must be >= {DELTA_MIN:g} for the PLD accountant (got {d:g}); use rdp below")
    tol = _check_rtol(rtol)
    a_tol = float(v.check_range("atol", atol, 0.0, 1.0))
    if _certainly_zero(steps, d):
        return EpsBracket(0.0, 0.0, d, "remove", 0.0, 0, {"converged": 1.0, "iterations": 0.0, "exact_zero": 1.0})
    total = sum(st.count for st in steps)
    # first pass: width ≈ T·h²·max(_WIDTH_C, _WIDTH_C_THETA·(1 + θ*)) (θ* the Chernoff order at δ), ε from the
    # approximate Chernoff bound
    th_ch, e_ch = _saddle(steps, "remove", d, _TAU * d / (4.0 * total))
    e_est = 0.8 * e_ch if math.isfinite(e_ch) and e_ch > 0 else 1.0
    c_width = max(_WIDTH_C, _WIDTH_C_THETA * (1.0 + max(th_ch, 0.0)))
    h_first = min(0.05, max(1e-6, math.sqrt((tol * max(e_est, 1e-2) + a_tol) / (c_width * total))))
    h_coarse = min(0.05, 4.0 * h_first)
    h = float(v.positive("grid", grid)) if grid is not None else h_first
    guess: float | None = None
    e_lo = e_up = math.nan
    n = 0
    converged = False
    it = 0
    stalled = 0  # consecutive refinements that did not narrow the bracket
    add_open = any(st.q < 1.0 for st in steps)  # add neighbours still to be bounded
    a_up = -math.inf
    long_work = total >= 10**6 or len(steps) >= 50  # seconds, not milliseconds: a bar on a terminal
    with progress(max_iter if long_work else 0, "pld") as advance:
        while it < max_iter:
            it += 1
            advance(1, f"lattice {h:.2g}")
            p_lo, p_up, n = _eps_pass(steps, "remove", h, d, guess, True)
            if p_lo > p_up * (1.0 + 1e-9) + 1e-12:  # pragma: no cover - would mean a broken bound
                raise RuntimeError(f"pld: internal error, lower bound {p_lo!r} above upper bound {p_up!r}")
            # every pass's bounds are valid: keep the intersection of the brackets
            width_before = e_up - e_lo if it > 1 else math.inf
            e_lo = p_lo if it == 1 else max(e_lo, p_lo)
            e_up = p_up if it == 1 else min(e_up, p_up)
            width = e_up - e_lo
            if add_open and it == 1:
                # add neighbours at a coarse lattice: settled for good when their upper bound is below the remove
                # direction's lower bound (ε_add ≤ a_up ≤ e_lo ≤ ε_remove ≤ every later e_up)
                _, a_up, na = _eps_pass(_dominating(steps), "add", max(h, h_coarse), d, 0.0, False)
                if a_up <= e_lo:
                    add_open = False
            target = tol * e_up + a_tol
            if math.isfinite(e_up) and width <= target:
                converged = True
                break
            stalled = stalled + 1 if math.isfinite(width) and width > 0.9 * width_before else 0
            if stalled >= 2:
                # two finer lattices in a row no longer narrow the bracket: the width is held by the round-off and
                # truncation terms, which grow with the lattice (σ = 0.8, q = 0.01, T = 1 at rtol 1e-6: 2.9e-6 wide
                # at 7,680 points, 1.5e-3 at 5.8 million after 29 s); return the valid, wider bracket. One such step
                # alone is no sign of it: at coarse lattices the width is not monotone in h (σ = 1.74, q = 1,
                # δ = 7.7e-26: 0.0130 at h = 0.036, 0.0194 at h = 0.022, then 1e-4 at h = 0.001)
                break
            guess = max(0.0, 0.9 * e_lo - 4 * h) if math.isfinite(e_lo) else 0.0
            h_old = h
            if not math.isfinite(e_up) or e_up <= 0.0 or width <= 0.0:
                h /= 4.0
            else:
                # after a lattice that did not narrow the bracket, at least halve h: near the target the width is
                # not monotone in h, and 12 % steps stalled twice (σ = 26.3, q = 1, T = 1135, δ = 5.2e-28: 0.0198,
                # 0.0192, 0.0208 wide at h = 0.041, 0.032, 0.025 against a target of 0.0145; 0.0007 at h = 0.01)
                h *= max(0.05, min(0.5 if stalled else 0.9, 0.9 * math.sqrt(target / width)))
            if it < max_iter and math.isfinite(e_up) and width > 0.0:
                # the lattice the width model (width ∝ h²) predicts for the target, checked before spending time on
                # the steps towards it (rtol 1e-6 at σ = 0.8 refined for 30 s into the memory cap)
                h_final = min(h, 0.9 * h_old * math.sqrt(target / width))
                _check_points(int(n * h_old / h_final), f"a bracket width of rtol = {tol:g}, atol = {a_tol:g}",
                              h_final)
    direction = "remove"
    # the un-subsampled Gaussians dominate the schedule in both directions and compose exactly (μ² = Σ count/σ²)
    e_gauss = _gaussian_eps_upper(steps, d, e_up)
    e_up = min(e_up, e_gauss)
    if add_open and min(a_up, e_gauss) > e_up:
        # add neighbours: an upper bound at a finer lattice is needed unless it is below the remove case (the
        # dominating Gaussian bounds it too: q = 1 − 1e-16 needs no add refinement)
        ha = h
        for _ in range(3):
            try:
                _, a_try, na = _eps_pass(steps, "add", ha * 2.0, d, 0.0, False)
            except MemoryCapError:  # keep the last (coarser, valid) upper bound of the add direction
                break
            a_up = min(a_up, a_try)
            if a_up <= e_up:
                break
            ha /= 2.0
        if a_up > e_up:
            direction = "add"
            e_up = min(a_up, e_gauss)
            n = max(n, na)
            converged = e_up - e_lo <= tol * e_up + a_tol
    return EpsBracket(e_lo, e_up, d, direction, h, n, {"converged": float(converged), "iterations": float(it)})


def _dominating_mu(steps: list[Step]) -> float:
    """μ of the un-subsampled Gaussian composition that dominates the schedule, μ² = Σ count/σ², rounded up."""
    return math.exp(0.5 * _log_precision(steps)) * (1.0 + 1e-14)


def _gaussian_eps_upper(steps: list[Step], delta: float, below: float = math.inf) -> float:
    """ε(δ) of the dominating Gaussian composition (μ² = Σ count/σ²), on the safe side (gdp.eps_from_mu); inf
    without computing it when it cannot be below ``below``: for μ >= 3 and δ < 0.37 < δ_G(μ²/2) it exceeds μ²/2
    (1 ms saved on the common small-q schedules, where μ is large)."""
    from dpcalc.accounting.gdp import eps_from_mu

    mu = _dominating_mu(steps)
    if mu >= 3.0 and delta < 0.37 and below <= 0.5 * mu * mu:
        return math.inf
    try:
        return float(eps_from_mu(mu, delta))
    except DomainError:  # μ beyond 1e150: no useful bound
        return math.inf


def _gaussian_delta_upper(mu: float, eps: float) -> float:
    """δ(ε) of μ-GDP rounded up (relative 1e-12; the smallest positive double where it underflows: a Gaussian's δ is
    never 0, so 0.0 would sit below the truth)."""
    from dpcalc.accounting.gdp import log_delta as gdp_log_delta

    if mu == 0.0:
        return 0.0
    try:
        ld = float(gdp_log_delta(mu, eps))
    except DomainError:  # log δ below −1e308
        return 5e-324
    return min(1.0, max(math.exp(ld + 1e-12), 5e-324))


@v.named_shapes
def delta_for_eps(schedule: Iterable[Step | tuple[float, float, int]], eps: float, *,
                  grid: float | None = None) -> DeltaBracket:
    """Certified bracket on δ(ε) of a schedule, at lattice spacing ``grid`` (default from the schedule); the upper
    end is also capped by δ(ε) of the dominating Gaussian composition (μ² = Σ count/σ², exact when every q = 1)."""
    steps = _schedule(schedule)
    e = float(v.check_range("eps", eps, 0.0, math.inf))
    # the schedule is dominated by its un-subsampled Gaussians, which compose into one Gaussian (μ² = Σ count/σ²;
    # exact for q = 1): its δ(ε) bounds δ from above in both directions
    mu_g = _dominating_mu(steps)
    d_gauss = _gaussian_delta_upper(mu_g, e)
    if mu_g < 1e-9:  # σ > ~1e9·√T: a loss range below the lattice's resolution; δ <= δ_G(ε) < 4e-10
        return DeltaBracket(0.0, d_gauss, e, "remove", 0.0, 0)
    dirs = _directions(steps)
    h = float(v.positive("grid", grid)) if grid is not None else _h0(steps, RTOL, max(e, 0.1))
    lows, ups = [], []
    for dr in dirs:
        ps = _run(steps, dr, h, 1e-30, None, e)  # truncation budget sized for δ down to 1e-30
        assert ps.lo is not None
        dl, du = max(0.0, ps.lo.delta(e)), min(1.0, ps.up.delta(e))
        lows.append(dl)
        ups.append((du, dr, ps.n))
    du, worst, n = max(ups)
    return DeltaBracket(max(lows), min(du, d_gauss), e, worst, h, n)


@v.scalar_params
def delta_upper(sigma: float, q: float, steps: float, eps: float) -> float:
    """Certified upper bound on δ(ε) of ``steps`` Poisson-subsampled Gaussian steps (the catalog's and the verify
    recipe's entry point; ``delta_for_eps`` gives the whole bracket)."""
    return delta_for_eps([_step(sigma, q, steps)], eps).delta_upper


@v.scalar_params
def epsilon_subsampled_gaussian(sigma: float, q: float, steps: float, delta: float, *,
                                rtol: float | None = None) -> EpsBracket:
    """ε bracket of ``steps`` Poisson-subsampled Gaussian steps (noise multiplier σ, rate q) at δ."""
    return epsilon([_step(sigma, q, steps)], delta, rtol=rtol)


def _step(sigma: float, q: float, steps: float) -> Step:
    """One validated homogeneous step: each argument checked with a one-line error naming it."""
    return Step(v.scalar("sigma", v.positive("sigma", sigma)),
                v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True)),
                int(v.scalar("steps", v.integer_at_least("steps", steps, 1))))


@v.scalar_params
def sigma_for_eps(eps: float, delta: float, q: float, steps: float, *, rtol: float | None = None,
                  sigma_rtol: float = 1e-3) -> float:
    """Smallest noise multiplier σ (within ``sigma_rtol`` relative, safe side) whose certified ε_upper ≤ ``eps``.

    Secant steps in (log σ, log ε): first on the middle of coarse brackets (rtol 2e-2), then on the certified
    ε_upper at the requested ``rtol``; every evaluation after the first reuses the lattice spacing of the previous
    one at the same tolerance (warm start), and the returned σ is one whose ε_upper was evaluated ≤ ``eps``. Both
    phases fall back to bisection in log σ where a secant step would leave the bracket or ε is 0 (large δ: ε(σ)
    reaches 0 at a finite σ), see :func:`_safeguarded`.
    """
    target = float(v.positive("eps", eps))
    t = int(v.integer_at_least("steps", steps, 1))
    qq = float(v.check_range("q", q, 0.0, 1.0, lo_open=True))
    d = float(v.probability("delta", delta))
    srt = float(v.check_range("sigma_rtol", sigma_rtol, 1e-8, 0.1))
    fine_tol = _check_rtol(rtol)
    coarse_tol = max(2e-2, fine_tol)
    lt = math.log(target)
    last: dict[float, tuple[float, float]] = {}  # tolerance -> (log σ, lattice spacing) of the last evaluation
    seen: dict[tuple[float, float], EpsBracket] = {}

    def ev(x: float, tol: float) -> EpsBracket:
        if (x, tol) not in seen:
            prev = last.get(tol)
            grid = prev[1] if prev is not None and abs(prev[0] - x) < 0.05 else None
            if prev is None and coarse_tol in last and abs(last[coarse_tol][0] - x) < 0.05:
                grid = last[coarse_tol][1] * math.sqrt(tol / coarse_tol)  # width ∝ h²
            br = epsilon([Step(math.exp(x), qq, t)], d, rtol=tol, grid=grid)
            last[tol] = (x, br.grid)
            seen[(x, tol)] = br
        return seen[(x, tol)]

    def mid(x: float) -> float:  # log ε (middle of a coarse bracket) − log target; −inf where ε = 0
        br = ev(x, coarse_tol)
        e = 0.5 * (br.eps_lower + br.eps_upper)
        return math.log(e) - lt if e > 0.0 else -math.inf

    fine = [fine_tol]

    def up(x: float) -> float:
        e = ev(x, fine[0]).eps_upper
        return math.log(e) - lt if e > 0.0 else -math.inf

    x_min, x_max = math.log(0.05), math.log(1e6)
    # coarse phase on the middle of coarse brackets, then the fine phase on the certified upper bound
    x, slope, _ = _safeguarded(mid, 0.0, -2.0, lambda f: abs(f) <= 0.25 * coarse_tol, 0.0, x_min, x_max, target)
    # the certified ε only needs to resolve σ to sigma_rtol: where ε is steep in σ (|d log ε / d log σ| large, e.g. at
    # large δ) a bracket of relative width |slope|·sigma_rtol/2 is enough, and much cheaper than rtol
    fine[0] = max(fine_tol, min(coarse_tol, -slope * srt / 2.0))
    x_hi = _safeguarded(up, x + srt / 2.0, slope, lambda f: -slope * srt / 2.0 >= -f >= 0.0, srt, x_min, x_max,
                        target)[2]
    return math.exp(x_hi)


def _safeguarded(f: Callable[[float], float], x: float, slope: float, done: Callable[[float], bool], bias: float,
                 x_min: float, x_max: float, target: float) -> tuple[float, float, float]:
    """Root of the non-increasing f(x) = log ε(e^x) − log target by secant steps in x = log σ (steps capped at a factor
    8 in σ, pushed by ``bias`` towards the safe side), falling back to bisection whenever a step leaves the bracket
    [lo, hi] (f(lo) > 0 ≥ f(hi)) or f is infinite (ε = 0 or ∞). Returns (last x, slope, hi): hi is the smallest
    evaluated x with f(x) ≤ 0, returned when ``done(f)`` or when the bracket is narrower than ``bias`` (or 1e-4)."""
    lo, hi = -math.inf, math.inf
    prev: tuple[float, float] | None = None
    cap = math.log(8.0)
    for _ in range(60):
        fx = f(x)
        if fx > 0.0:
            lo = max(lo, x)
        else:
            hi = min(hi, x)
        if math.isfinite(fx):
            if prev is not None and prev[0] != x and (fx - prev[1]) / (x - prev[0]) < -0.05:
                slope = (fx - prev[1]) / (x - prev[0])
            prev = (x, fx)
            if done(fx):
                return x, slope, hi if math.isfinite(hi) else x
            step = max(-cap, min(cap, -fx / slope)) + (bias / 2.0 if fx > 0 else -bias / 4.0)
        else:
            step = cap if fx > 0 else -cap
        if hi - lo <= max(bias, 1e-4):
            return x, slope, hi
        x_new = x + step
        if math.isfinite(lo) and math.isfinite(hi) and not lo < x_new < hi:
            x_new = 0.5 * (lo + hi)
        x_new = min(x_max, max(x_min, x_new))
        if x_new == x:
            if x == x_max:
                raise InfeasibleError(f"eps = {target:g} is unreachable: sigma = 1e6 gives a larger eps (pld)")
            raise InfeasibleError(f"eps = {target:g} is so large that sigma < 0.05 meets it (pld calibrates sigma "
                                  "in [0.05, 1e6])")
        x = x_new
    if math.isfinite(hi):  # pragma: no cover - the steps converge in practice
        return x, slope, hi
    raise InfeasibleError(f"pld: calibration did not converge for eps = {target:g}")  # pragma: no cover
