"""NbAFL convergence bounds: Theorem 2 (eq. 6, all N clients) and Theorem 3 (eq. 8, K of N sampled clients)
(Wei et al., IEEE TIFS 2020, §3.3.3, §3.4.3).

Inputs (dpcalc name: paper symbol): ``pl``: l, the Polyak–Łojasiewicz constant (assumption 1.2); ``lipschitz``:
β (1.4); ``smoothness``: ρ (1.5); ``dissimilarity``: B (local dissimilarity); ``prox_mu``: μ, the FedProx proximal
weight; ``theta``: Θ = F(w⁰) − F(w*); clipping C, smallest local data set m, clients N (and K), privacy (ε, δ)
through c = c_scale·√(2 ln(1.25/δ)), rounds T. (Spelled out so that no name means two quantities: ``mu`` is the
GDP parameter and ``rho`` the zCDP parameter elsewhere in dpcalc.)

**Status: disputed.** λ1 = 1/μ + ρB/μ as published is said to be a misprint of
1 + ρB/μ (comment on the paper, arXiv 2406.05858): ``as_published=True`` (the default, with an
`ErratumWarning`) uses the published λ1, ``as_published=False`` the comment's. Talaei & Izadi
(2024) reject the bound as a whole. κ1, κ0 correspond to total noise std σ_U/√N with L = T (no server noise: the
1/(1 − P) factors come from a geometric recursion with a constant per-round term), so eq. 6 does not describe
L < T/√N; at K = N eq. 8 does not reduce to eq. 6 (it scales as 1/N, not 1/√N).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["STATUS_NOTE", "contraction_p", "contraction_q", "convergence_bound", "convergence_bound_sampled",
           "curve_full", "kappas", "lambda1", "q_factor"]


STATUS_NOTE = ("Convergence bound status: disputed. lambda1 = 1/mu + rho*B/mu as published, 1 + rho*B/mu per the "
               "comment (arXiv 2406.05858); Talaei & Izadi 2024 reject the bound; eq. 6 implies L = T (noise "
               "sigma_U/sqrt(N), no server noise) and at K = N eq. 8 does not reduce to eq. 6 (1/N instead of "
               "1/sqrt(N)). Constants l, beta, rho, B, Theta are assumptions, not estimates.")

_ERRATUM = ("lambda1 = 1/mu + rho*B/mu as published (Thm 2) is disputed: the comment on the paper (arXiv 2406.05858) "
            "says it is a misprint of 1 + rho*B/mu and rejects the bound; pass as_published=False (CLI --lambda1 "
            "comment) for the comment's lambda1")


def _constants(pl: ArrayLike, smoothness: ArrayLike, dissimilarity: ArrayLike,
               prox_mu: ArrayLike) -> tuple[FloatArray, ...]:
    return (v.positive("pl", pl), v.nonnegative("smoothness", smoothness),
            v.nonnegative("dissimilarity", dissimilarity), v.positive("prox_mu", prox_mu))


def _in_unit(name: str, value: FloatArray, hint: str) -> FloatArray:
    bad = ~((value > 0.0) & (value < 1.0))
    if np.any(bad):
        got = float(np.asarray(value)[bad].flat[0]) if np.ndim(value) else float(value)
        raise DomainError(f"{name} must be in (0, 1) (got {name} = {got:.6g}); {hint}")
    return value


def _p_minus_1(pl: FloatArray, rho: FloatArray, b: FloatArray, mu: FloatArray) -> FloatArray:
    """P − 1 = 2lλ2 of Theorem 2, computed directly (1 − P and log P from it do not cancel as P → 1)."""
    lam2 = -1.0 / mu + rho * b / mu ** 2 + rho * b * b / (2.0 * mu ** 2)
    return np.asarray(2.0 * pl * lam2, dtype=np.float64)


def _p(pl: FloatArray, rho: FloatArray, b: FloatArray, mu: FloatArray) -> FloatArray:
    return _in_unit("P", 1.0 + _p_minus_1(pl, rho, b, mu),
                    "need prox_mu > smoothness*dissimilarity*(1 + dissimilarity/2) and pl small enough "
                    "(pl < 1/(2*(1/mu - rho*B/mu^2 - rho*B^2/(2*mu^2))) with mu, rho, B the proximal weight, "
                    "smoothness and dissimilarity)")


@v.named_shapes
def contraction_p(pl: ArrayLike = 0.1, smoothness: ArrayLike = 0.2, dissimilarity: ArrayLike = 1.0,
                  prox_mu: ArrayLike = 1.0) -> FloatOrArray:
    """P = 1 + 2l(−1/μ + ρB/μ² + ρB²/(2μ²)) of Theorem 2; must lie in (0, 1) (DomainError otherwise).

    Parameters
    ----------
    pl : ArrayLike
    smoothness : ArrayLike
    dissimilarity : ArrayLike
    prox_mu : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import contraction_p
    >>> contraction_p()
    0.86
    """
    return v.scalar_or_array(_p(*_constants(pl, smoothness, dissimilarity, prox_mu)))


@v.named_shapes
def contraction_q(pl: ArrayLike = 0.1, smoothness: ArrayLike = 0.2, dissimilarity: ArrayLike = 1.0,
                  prox_mu: ArrayLike = 1.0, *, K: ArrayLike) -> FloatOrArray:
    """Q = 1 + (2l/μ²)(ρB²/2 + ρB + ρB²/K + 2ρB²/√K + μB/√K − μ) of Theorem 3; must lie in (0, 1).

    Parameters
    ----------
    pl : ArrayLike
    smoothness : ArrayLike
    dissimilarity : ArrayLike
    prox_mu : ArrayLike
    K : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``K``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.nbafl import contraction_q
    >>> contraction_q(K=10)
    0.9525437744847146
    """
    ll, r, b, m = _constants(pl, smoothness, dissimilarity, prox_mu)
    k = v.integer_at_least("K", K, 1)
    return v.scalar_or_array(_q(ll, r, b, m, k))


def _q_minus_1(pl: FloatArray, rho: FloatArray, b: FloatArray, mu: FloatArray, K: FloatArray
               ) -> FloatArray:
    """Q − 1 of Theorem 3, computed directly (see `_p_minus_1`)."""
    sk = np.sqrt(K)
    inner = rho * b * b / 2.0 + rho * b + rho * b * b / K + 2.0 * rho * b * b / sk + mu * b / sk - mu
    return np.asarray(2.0 * pl / mu ** 2 * inner, dtype=np.float64)


def q_factor(pl: FloatArray, rho: FloatArray, b: FloatArray, mu: FloatArray, K: FloatArray) -> FloatArray:
    """Q of Theorem 3 from validated (l, ρ, B, μ, K), unchecked (may lie outside (0, 1)).

    Parameters
    ----------
    pl : FloatArray
    rho : FloatArray
        Ρ of ρ-zCDP, > 0.
    b : FloatArray
    mu : FloatArray
        Μ of μ-GDP, > 0.
    K : FloatArray

    Returns
    -------
    FloatArray
    """
    return np.asarray(1.0 + _q_minus_1(pl, rho, b, mu, K), dtype=np.float64)


def _q(pl: FloatArray, rho: FloatArray, b: FloatArray, mu: FloatArray, K: FloatArray) -> FloatArray:
    return _in_unit("Q", q_factor(pl, rho, b, mu, K), "Theorem 3 needs 0 < Q < 1 (smaller pl, larger prox_mu or K)")


def _c(delta: ArrayLike, c_scale: ArrayLike) -> FloatArray:
    from dpcalc.nbafl.noise import c_constant

    return np.asarray(c_constant(delta, c_scale=c_scale), dtype=np.float64)


@v.named_shapes
def lambda1(smoothness: ArrayLike = 0.2, dissimilarity: ArrayLike = 1.0, prox_mu: ArrayLike = 1.0, *,
            as_published: bool = True) -> FloatOrArray:
    """λ1 of Theorem 2: 1/μ + ρB/μ as published (ErratumWarning: disputed) or 1 + ρB/μ (the comment).

    Parameters
    ----------
    smoothness : ArrayLike
    dissimilarity : ArrayLike
    prox_mu : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.nbafl import lambda1
    >>> lambda1(as_published=False)
    1.2
    """
    _, r, b, m = _constants(1.0, smoothness, dissimilarity, prox_mu)
    if as_published:
        v.warn(_ERRATUM, ErratumWarning)
        return v.scalar_or_array(1.0 / m + r * b / m)
    return v.scalar_or_array(1.0 + r * b / m)


@v.named_shapes
def kappas(delta: ArrayLike = 0.01, *, pl: ArrayLike = 0.1, lipschitz: ArrayLike = 1.0, smoothness: ArrayLike = 0.2,
           dissimilarity: ArrayLike = 1.0, prox_mu: ArrayLike = 1.0, C: ArrayLike = 20.0, m: ArrayLike = 100,
           N: ArrayLike = 50, c_scale: ArrayLike = 1.25,
           as_published: bool = True) -> tuple[FloatOrArray, FloatOrArray]:
    """(κ1, κ0) of Theorem 2: κ1 = λ1·βcC/(m(1−P))·√(2/(Nπ)), κ0 = ρc²C²/(2m²(1−P)N).

    Parameters
    ----------
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    pl : ArrayLike
    lipschitz : ArrayLike
    smoothness : ArrayLike
    dissimilarity : ArrayLike
    prox_mu : ArrayLike
    C : ArrayLike
    m : ArrayLike
    N : ArrayLike
    c_scale : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    tuple[FloatOrArray, FloatOrArray]

    Raises
    ------
    DomainError
        An input (``lipschitz``, ``C``, ``m``, ``N``) outside its domain; the one-line message names it and the allowed
        range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.nbafl import kappas
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = kappas()
    ...
    >>> result
    (0.7513823985168517, 0.008621988816611251)
    >>> sorted({w.category.__name__ for w in caught})
    ['ErratumWarning']
    """
    ll, r, b, mm = _constants(pl, smoothness, dissimilarity, prox_mu)
    _p(ll, r, b, mm)  # P in (0, 1), else DomainError
    one_minus_p = -_p_minus_1(ll, r, b, mm)
    c = _c(delta, c_scale)
    cc = v.positive("C", C)
    m_ = v.integer_at_least("m", m, 1)
    n = v.integer_at_least("N", N, 1)
    if as_published:
        v.warn(_ERRATUM, ErratumWarning)
    lam1 = (1.0 / mm if as_published else 1.0) + r * b / mm
    k1 = lam1 * v.nonnegative("lipschitz", lipschitz) * c * cc / (m_ * one_minus_p) * np.sqrt(2.0 / (n * math.pi))
    k0 = r * c * c * cc * cc / (2.0 * m_ * m_ * one_minus_p * n)
    return v.scalar_or_array(np.asarray(k1)), v.scalar_or_array(np.asarray(k0))


def _outward(T: FloatArray, log_p: FloatArray) -> FloatArray:
    """Outward factor of a convergence bound (an upper bound: convention 5): 1 + 16u(4 + T|log P|), u the unit
    roundoff — a first-order bound on the float64 error (log P = log1p(P − 1) and 1 − P to a few u, P^T to
    ~T|log P|·u), with a factor 16 for the remaining operations. Measured without it: up to 2.1e-14 below the
    50-digit SymPy form (300 points, tests/families/test_sweep_seeds.py)."""
    u = np.finfo(np.float64).eps / 2.0
    return np.asarray(1.0 + 16.0 * u * (4.0 + T * np.abs(log_p)), dtype=np.float64)


def _rounds(T: ArrayLike) -> FloatArray:
    return v.integer_at_least("T", T, 1)


def curve_full(T: FloatArray, eps: FloatArray, theta: FloatArray, p: FloatArray, k1: FloatArray,
               k0: FloatArray, log_p: FloatArray | None = None) -> FloatArray:
    """Eq. (6) at (real) T from validated constants: P^TΘ + (κ1T/ε + κ0T²/ε²)(1 − P^T), via expm1.

    Parameters
    ----------
    T : FloatArray
    eps : FloatArray
        Privacy level ε.
    theta : FloatArray
    p : FloatArray
    k1 : FloatArray
    k0 : FloatArray
    log_p : FloatArray | None

    Returns
    -------
    FloatArray
    """
    if log_p is None:
        log_p = np.log(p)
    pt = np.exp(T * log_p)
    x = T / eps
    return np.asarray(pt * theta - (k1 * x + k0 * x * x) * np.expm1(T * log_p), dtype=np.float64)


@v.named_shapes
def convergence_bound(eps: ArrayLike, delta: ArrayLike = 0.01, *, T: ArrayLike = 25, pl: ArrayLike = 0.1,
                      lipschitz: ArrayLike = 1.0, smoothness: ArrayLike = 0.2, dissimilarity: ArrayLike = 1.0,
                      prox_mu: ArrayLike = 1.0, theta: ArrayLike = 2.3, C: ArrayLike = 20.0, m: ArrayLike = 100,
                      N: ArrayLike = 50, c_scale: ArrayLike = 1.25,
                      as_published: bool = True) -> FloatOrArray:
    """Theorem 2 (eq. 6): E[F(w̃^T) − F(w*)] <= P^TΘ + (κ1T/ε + κ0T²/ε²)(1 − P^T). Status disputed (module doc).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    T : ArrayLike
    pl : ArrayLike
    lipschitz : ArrayLike
    smoothness : ArrayLike
    dissimilarity : ArrayLike
    prox_mu : ArrayLike
    theta : ArrayLike
    C : ArrayLike
    m : ArrayLike
    N : ArrayLike
    c_scale : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``theta``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.nbafl import convergence_bound
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = convergence_bound(10.0)
    ...
    >>> result
    1.940813820484716
    >>> sorted({w.category.__name__ for w in caught})
    ['ErratumWarning']
    """
    e = v.positive("eps", eps)
    t = _rounds(T)
    th = v.nonnegative("theta", theta)
    ll, r, b, mm = _constants(pl, smoothness, dissimilarity, prox_mu)
    p = _p(ll, r, b, mm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ErratumWarning)
        k1, k0 = kappas(delta, pl=ll, lipschitz=lipschitz, smoothness=r, dissimilarity=b, prox_mu=mm, C=C, m=m,
                        N=N, c_scale=c_scale, as_published=as_published)
    if as_published:
        v.warn(_ERRATUM, ErratumWarning)
    log_p = np.log1p(_p_minus_1(ll, r, b, mm))  # no cancellation as P → 1
    out = curve_full(t, e, th, p, np.asarray(k1), np.asarray(k0), log_p)
    return v.scalar_or_array(out * _outward(t, log_p))


def _partial_terms(eps: FloatArray, delta: ArrayLike, T: FloatArray, K: FloatArray, N: FloatArray,
                   lipschitz: ArrayLike, rho: FloatArray, b: FloatArray, mu: FloatArray, C: ArrayLike,
                   m: ArrayLike, c_scale: ArrayLike) -> FloatArray:
    """The bracket of eq. (8): cCα1β/(mK·g)·√(2/π) + c²C²α0/(m²K²g²), g = −ln(1 − N/K + (N/K)e^{−ε/T})."""
    from dpcalc.nbafl.noise import _sampling_g_low

    g = _sampling_g_low(eps, T, N, K)  # low g: the bracket rounds up (an upper bound, convention 5)
    c = _c(delta, c_scale)
    cc = v.positive("C", C)
    m_ = v.integer_at_least("m", m, 1)
    a0 = 2.0 * rho * K / N + rho
    a1 = 1.0 + 2.0 * rho * b / mu + 2.0 * rho * b * np.sqrt(K) / (mu * N)
    lin = c * cc * a1 * v.nonnegative("lipschitz", lipschitz) / (m_ * K * g) * math.sqrt(2.0 / math.pi)
    quad = (c * cc) ** 2 * a0 / ((m_ * K * g) ** 2)
    return np.asarray(lin + quad, dtype=np.float64)


@v.named_shapes
def convergence_bound_sampled(eps: ArrayLike, delta: ArrayLike = 0.01, *, T: ArrayLike = 25, K: ArrayLike,
                              pl: ArrayLike = 0.1, lipschitz: ArrayLike = 1.0, smoothness: ArrayLike = 0.2,
                              dissimilarity: ArrayLike = 1.0, prox_mu: ArrayLike = 1.0, theta: ArrayLike = 2.3,
                              C: ArrayLike = 20.0, m: ArrayLike = 100, N: ArrayLike = 50,
                              c_scale: ArrayLike = 1.25) -> FloatOrArray:
    """Theorem 3 (eq. 8): Q^TΘ + (1 − Q^T)/(1 − Q)·[cCα1β/(mKg)·√(2/π) + c²C²α0/(m²K²g²)], K of N clients.

    g = −ln(1 − N/K + (N/K)e^{−ε/T}) (= bε/T) needs K > N(1 − e^{−ε/T}); α0 = 2ρK/N + ρ,
    α1 = 1 + 2ρB/μ + 2ρB√K/(μN). Status disputed/unverified (no available copy of the paper has eq. 8 to compare).

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε.
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    T : ArrayLike
    K : ArrayLike
    pl : ArrayLike
    lipschitz : ArrayLike
    smoothness : ArrayLike
    dissimilarity : ArrayLike
    prox_mu : ArrayLike
    theta : ArrayLike
    C : ArrayLike
    m : ArrayLike
    N : ArrayLike
    c_scale : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``K``, ``theta``, ``N``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.nbafl import convergence_bound_sampled
    >>> convergence_bound_sampled(10.0, K=20)
    0.6178456687350695
    """
    e = v.positive("eps", eps)
    t = _rounds(T)
    k = v.integer_at_least("K", K, 1)
    n = v.integer_at_least("N", N, 1)
    from dpcalc.nbafl.noise import _check_k

    _check_k(n, k)
    th = v.nonnegative("theta", theta)
    ll, r, b, mm = _constants(pl, smoothness, dissimilarity, prox_mu)
    _q(ll, r, b, mm, k)  # Q in (0, 1), else DomainError
    q_minus_1 = _q_minus_1(ll, r, b, mm, k)
    bracket = _partial_terms(e, delta, t, k, n, lipschitz, r, b, mm, C, m, c_scale)
    log_q = np.log1p(q_minus_1)  # no cancellation as Q → 1
    out = np.exp(t * log_q) * th + np.expm1(t * log_q) / q_minus_1 * bracket
    return v.scalar_or_array(np.asarray(out * _outward(t, log_q), dtype=np.float64))
