"""Optimal rounds T* (Theorem 2) and optimal sampled clients K* (Theorem 3) of NbAFL (Wei et al. 2020).

* T* — integer scan of eq. (6) over T = 1 … T_max (no closed form when κ0 > 0: f′(T) = 0 is transcendental), the
  continuous minimiser near it (golden section), every local minimum of the scanned curve (the bound is **not**
  convex in T in general, although the paper's remark on Theorem 2 says so), and, when κ0 = 0 (ρ = 0), the
  Lambert-W closed form
  T* = [1 + a − W₀(e^{1+a})]/λ with λ = −ln P, a = λΘε/κ1.
* K* — integer scan of eq. (8) over the valid K (eq. 7's domain K > N(1 − e^{−ε/T}) and 0 < Q < 1), reporting
  whether the minimiser sits at the domain's lower boundary or at K = N (the paper's interior optimum is largely an
  artifact of b's singularity at the boundary).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._roots import bracket
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.nbafl import bound as _b
from dpcalc.typing import FloatArray

__all__ = ["MAX_SCAN", "OptimalK", "OptimalT", "check_scan", "k_domain_min", "lambert_w0_exp", "local_minima",
           "optimal_k", "optimal_t", "t_star_lambert"]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0

MAX_SCAN = 20_000_000
"""Most integer points (values of K or T) the scans of one call may cover in all: ~1 µs and ~128 bytes each."""
_BYTES_PER_POINT = 128.0  # the curve's temporaries (measured ~80 B per K at N = 1e5)


def check_scan(what: str, points: float) -> None:
    """Raise a one-line DomainError before scanning if ``points`` integer points exceed `MAX_SCAN` or (at
    ~128 bytes each, one scan at a time) the memory cap. ``what`` names the parameter(s) that set the length.

    Parameters
    ----------
    what : str
    points : float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    from dpcalc import _limits

    if not points <= MAX_SCAN:
        raise DomainError(f"{what}: the integer scan covers {points:.4g} points in all; at most {MAX_SCAN:.3g} "
                          f"(~1 µs each)")
    _limits.check_memory(what, points * _BYTES_PER_POINT)


@short_repr
@dataclass(frozen=True)
class OptimalT:
    """Result of the T* scan of eq. (6) at one ε."""

    t_star: int
    bound: float
    t_continuous: float
    bound_continuous: float
    local_minima: tuple[int, ...]
    t_lambert: float | None
    t_max: int
    curve: FloatArray  # bound at T = 1 … t_max

    @property
    def multiple_minima(self) -> bool:
        return len(self.local_minima) > 1


@short_repr
@dataclass(frozen=True)
class OptimalK:
    """Result of the K* scan of eq. (8) at one (ε, T)."""

    k_star: int
    bound: float
    k_min: int
    k_max: int
    at_lower_boundary: bool
    at_full: bool
    lower_reason: str
    local_minima: tuple[int, ...]
    ks: FloatArray
    curve: FloatArray


@v.named_shapes
def local_minima(curve: ArrayLike, xs: ArrayLike) -> tuple[int, ...]:
    """x values where the sampled curve has a local minimum (ends included; plateaus report their first point).

    Parameters
    ----------
    curve : ArrayLike
    xs : ArrayLike

    Returns
    -------
    tuple[int, ...]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    f = np.asarray(curve, dtype=np.float64)
    x = np.asarray(xs)
    if f.size == 1:
        return (int(x[0]),)
    left = np.concatenate(([np.inf], f[:-1]))
    right = np.concatenate((f[1:], [np.inf]))
    mask = (f < left) & (f <= right)
    return tuple(int(t) for t in x[mask])


@v.scalar_params
def lambert_w0_exp(y: float) -> float:
    """W₀(e^y) for real y: the x > 0 with x + ln x = y (no overflow for large y).

    Safeguarded Newton of the shared root finder (`dpcalc._roots.bracket`) on the bracket
    [e^y/(1 + e^y), max(y, 1)] (x + ln x − y < 0 at the left end because t/(1 + t) < ln(1 + t), > 0 at the right),
    started at y − ln y for y > 1; the end of the final bracket with the smaller residual. Below y = −700,
    W₀(e^y) = e^y(1 − e^y + …) is e^y to double precision.

    Parameters
    ----------
    y : float

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    y = float(y)
    if y < -700.0:
        return math.exp(y)
    lo = 1.0 / (1.0 + math.exp(-y))  # e^y/(1 + e^y), no overflow at large y
    hi = max(y, 1.0)
    start = min(max(y - math.log(y), lo), hi) if y > 1.0 else lo

    def f(x: FloatArray, _: np.ndarray) -> tuple[FloatArray, FloatArray]:
        return x + np.log(x) - y, 1.0 + 1.0 / x

    a, b = bracket(f, np.array([lo]), np.array([hi]), increasing=True, rtol=4e-16, x0=np.array([start]), newton=True)
    ends = np.array([a[0], b[0]])
    return float(ends[int(np.argmin(np.abs(f(ends, np.arange(2))[0])))])  # the end nearer the root


def _u_over_a(a: float) -> float:
    """``ln W₀(e^{1+a})/a`` below a = 1e-5: 1/2 − a/16 + a²/192 (error O(a³), < 1e-17)."""
    return 0.5 - a / 16.0 + a * a / 192.0


def _log_w0_exp1p(a: float) -> float:
    """``u = ln W₀(e^{1+a})`` for a >= 0: the root of ``expm1(u) + u = a`` (w = e^u solves w + ln w = 1 + a).

    No cancellation at either end: u = a/2 − a²/16 + a³/192 + O(a⁴) below a = 1e-5; u = ln a + (1 − u)/a + … is
    ln a to double precision above a = 1e20; between, safeguarded Newton of the shared root finder on
    [log1p(a/2), min(a/2, log1p(a))] (expm1(u) >= u and expm1(u) <= a bound u from above; at log1p(a/2),
    expm1(u) = a/2 >= u)."""
    if a < 1e-5:
        return a * _u_over_a(a)
    if a > 1e20:
        return math.log(a)
    lo, hi = math.log1p(0.5 * a), min(0.5 * a, math.log1p(a))

    def f(u: FloatArray, _: np.ndarray) -> tuple[FloatArray, FloatArray]:
        return np.expm1(u) + u - a, np.exp(u) + 1.0

    b_lo, b_hi = bracket(f, np.array([lo]), np.array([hi]), increasing=True, rtol=4e-16, x0=np.array([hi]),
                         newton=True)
    ends = np.array([b_lo[0], b_hi[0]])
    return float(ends[int(np.argmin(np.abs(f(ends, np.arange(2))[0])))])  # the end nearer the root


@v.scalar_params
def t_star_lambert(eps: float, *, theta: float, p: float, kappa1: float) -> float:
    """The minimiser of eq. (6) when κ0 = 0: T* = [1 + a − W₀(e^{1+a})]/λ, λ = −ln P, a = λΘε/κ1 (from f′(T) = 0).

    Computed as T* = ln W₀(e^{1+a})/λ (w + ln w = 1 + a, so 1 + a − w = ln w), with u = ln w the root of
    expm1(u) + u = a: 1 + a − W₀ cancelled at both ends (a = 1e-13: 4.996e-8 for 5.0e-8; a = 1.4e11: 7 digits).
    For a < 1e-5 the series gives T* = (Θε/κ1)(u/a) (no division by a small λ); a that
    overflows is taken in log space.

    Parameters
    ----------
    eps : float
        Privacy level ε.
    theta : float
    p : float
    kappa1 : float

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input (``eps``, ``theta``, ``kappa1``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.nbafl import t_star_lambert
    >>> t_star_lambert(10.0, theta=2.3, p=0.9, kappa1=0.5)
    14.000520076109051
    """
    e = v.scalar("eps", v.positive("eps", eps))
    th = v.scalar("theta", v.nonnegative("theta", theta))
    pp = v.scalar("P", v.probability("P", p))
    k1 = v.scalar("kappa1", v.positive("kappa1", kappa1))
    lam = -math.log(pp)  # > 0: P < 1
    if th == 0.0:
        return 0.0
    log_a = math.log(lam) + math.log(th) + math.log(e) - math.log(k1)
    if log_a > 46.0:  # a > 1e20: u = ln a to double precision (a itself may overflow)
        return log_a / lam
    a = math.exp(log_a)
    if a < 1e-5:
        return th * e / k1 * _u_over_a(a)
    return _log_w0_exp1p(a) / lam


def _golden(f: object, lo: float, hi: float, iters: int = 90) -> float:
    fn = f  # callable float -> float
    a, b = lo, hi
    c, d = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
    fc, fd = fn(c), fn(d)  # type: ignore[operator]
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - _GOLDEN * (b - a)
            fc = fn(c)  # type: ignore[operator]
        else:
            a, c, fc = c, d, fd
            d = a + _GOLDEN * (b - a)
            fd = fn(d)  # type: ignore[operator]
        if b - a < 1e-12 * max(1.0, abs(a)):
            break
    return 0.5 * (a + b)


@v.scalar_params
def optimal_t(eps: float, delta: float = 0.01, *, pl: float = 0.1, lipschitz: float = 1.0, smoothness: float = 0.2,
              dissimilarity: float = 1.0, prox_mu: float = 1.0, theta: float = 2.3, C: float = 20.0, m: float = 100,
              N: float = 50, c_scale: float = 1.25, t_max: int = 1000,
              as_published: bool = True) -> OptimalT:
    """T* of Theorem 2 by integer scan over 1 … t_max (see the module doc); ErratumWarning if ``as_published``.

    Parameters
    ----------
    eps : float
        Privacy level ε.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    pl : float
    lipschitz : float
    smoothness : float
    dissimilarity : float
    prox_mu : float
    theta : float
    C : float
    m : float
    N : float
    c_scale : float
    t_max : int
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    OptimalT

    Raises
    ------
    DomainError
        An input (``eps``, ``theta``, ``t_max``) outside its domain; the one-line message names it and the allowed
        range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.nbafl import optimal_t
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = optimal_t(10.0)
    ...
    >>> result
    OptimalT(t_star=9, bound=1.0992677405694842, t_continuous=9.385516082436173,
    bound_continuous=1.0981638846063684, local_minima=(9,), t_lambert=None, t_max=1000, curve=array(shape=(1000,),
    min=1.099, max=161.4))
    >>> sorted({w.category.__name__ for w in caught})
    ['ErratumWarning']
    """
    e = v.scalar("eps", v.positive("eps", eps))
    tm = int(v.scalar("t_max", v.integer_at_least("t_max", t_max, 1)))
    check_scan(f"t_max = {tm:g} (the scan over T = 1 … t_max)", tm)
    ll, r, b, mm = (float(x) for x in _b._constants(pl, smoothness, dissimilarity, prox_mu))
    th = v.scalar("theta", v.nonnegative("theta", theta))
    p = float(_b._p(np.asarray(ll), np.asarray(r), np.asarray(b), np.asarray(mm)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        k1, k0 = (float(x) for x in _b.kappas(delta, pl=ll, lipschitz=lipschitz, smoothness=r, dissimilarity=b,
                                              prox_mu=mm, C=C, m=m, N=N, c_scale=c_scale,
                                              as_published=as_published))
    if as_published:
        v.warn(_b._ERRATUM, ErratumWarning)
    ts = np.arange(1, tm + 1, dtype=np.float64)
    pa, k1a, k0a, ea, tha = (np.asarray(x) for x in (p, k1, k0, e, th))
    curve = _b.curve_full(ts, ea, tha, pa, k1a, k0a)
    if np.any(np.isnan(curve)) or not np.any(np.isfinite(curve)):
        raise DomainError(f"eps is too small: at eps = {e:.6g} eq. (6)'s noise term (κ1·T/ε + κ0·T²/ε²)(1 − P^T) "
                          f"overflows float64 at every T in 1 … {tm}")
    i = int(np.argmin(curve))
    t_int = i + 1

    def f(t: float) -> float:
        return float(_b.curve_full(np.asarray(t), ea, tha, pa, k1a, k0a))

    t_cont = _golden(f, max(t_int - 1.0, 1.0), min(t_int + 1.0, float(tm)))
    lam_t = t_star_lambert(e, theta=th, p=p, kappa1=k1) if k0 == 0.0 and k1 > 0.0 else None
    return OptimalT(t_int, float(curve[i]), t_cont, f(t_cont), local_minima(curve, ts), lam_t, tm, curve)


@v.scalar_params
def k_domain_min(eps: float, T: float, N: float) -> int:
    """Smallest integer K with K > N(1 − e^{−ε/T}) (eq. 7's domain), at least 1.

    Parameters
    ----------
    eps : float
        Privacy level ε.
    T : float
    N : float

    Returns
    -------
    int

    Raises
    ------
    DomainError
        An input (``eps``, ``T``, ``N``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import k_domain_min
    >>> k_domain_min(10.0, 25, 50)
    17
    """
    e = v.scalar("eps", v.positive("eps", eps))
    t = v.scalar("T", v.positive("T", T))
    n = v.scalar("N", v.integer_at_least("N", N, 1))
    kmin = -n * math.expm1(-e / t)
    k = max(1, math.floor(kmin) + 1)
    while k > 1 and (k - 1) > kmin:
        k -= 1
    while k <= kmin:
        k += 1
    return k


@v.scalar_params
def optimal_k(eps: float, delta: float = 0.01, *, T: float = 25, pl: float = 0.1, lipschitz: float = 1.0,
              smoothness: float = 0.2, dissimilarity: float = 1.0, prox_mu: float = 1.0, theta: float = 2.3,
              C: float = 20.0, m: float = 100, N: float = 50, c_scale: float = 1.25) -> OptimalK:
    """K* of Theorem 3 by integer scan over the valid K (see the module doc).

    Parameters
    ----------
    eps : float
        Privacy level ε.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    T : float
    pl : float
    lipschitz : float
    smoothness : float
    dissimilarity : float
    prox_mu : float
    theta : float
    C : float
    m : float
    N : float
    c_scale : float

    Returns
    -------
    OptimalK

    Raises
    ------
    DomainError
        An input (``eps``, ``T``, ``N``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import optimal_k
    >>> optimal_k(10.0)
    OptimalK(k_star=17, bound=0.557349043002727, k_min=17, k_max=50, at_lower_boundary=True, at_full=False,
    lower_reason="eq. 7's domain K > N(1 - e^(-eps/T))", local_minima=(17, 50), ks=array(shape=(34,), min=17,
    max=50), curve=array(shape=(34,), min=0.5573, max=0.6272))
    """
    e = v.scalar("eps", v.positive("eps", eps))
    t = v.scalar("T", v.integer_at_least("T", T, 1))
    n = int(v.scalar("N", v.integer_at_least("N", N, 1)))
    ll, r, b, mm = (float(x) for x in _b._constants(pl, smoothness, dissimilarity, prox_mu))
    k_dom = k_domain_min(e, t, n)
    if k_dom > n:  # pragma: no cover - K = N is always inside (1 − e^{−x} < 1)
        raise DomainError(f"no K in [1, N = {n}] satisfies K > N(1 - e^(-eps/T))")
    check_scan(f"N = {n:g} (the scan over K in [{k_dom}, {n}])", n - k_dom + 1.0)
    ks_all = np.arange(k_dom, n + 1, dtype=np.float64)
    q = _b.q_factor(np.asarray(ll), np.asarray(r), np.asarray(b), np.asarray(mm), ks_all)
    ok = (q > 0.0) & (q < 1.0)
    if not np.any(ok):
        raise DomainError(f"Q must be in (0, 1) for some K in [{k_dom}, {n}] (no valid K); Theorem 3 needs a smaller "
                          "pl or a larger prox_mu")
    first = int(np.argmax(ok))
    if not np.all(ok[first:]):
        bad = ks_all[first:][~ok[first:]]
        raise DomainError(f"Q must be in (0, 1) (fails at K = {bad[0]:g}); Theorem 3 needs a smaller pl or a larger "
                          "prox_mu")
    ks = ks_all[first:]
    reason = "eq. 7's domain K > N(1 - e^(-eps/T))" if first == 0 else "0 < Q < 1"
    curve = np.asarray(_b.convergence_bound_sampled(e, delta, T=t, K=ks, pl=ll, lipschitz=lipschitz, smoothness=r,
                                                    dissimilarity=b, prox_mu=mm, theta=theta, C=C, m=m, N=n,
                                                    c_scale=c_scale))
    i = int(np.argmin(curve))
    k_star = int(ks[i])
    return OptimalK(k_star, float(curve[i]), int(ks[0]), n, k_star == int(ks[0]), k_star == n, reason,
                    local_minima(curve, ks), ks, curve)
