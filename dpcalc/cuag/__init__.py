"""CUAG-PFL privacy analysis (Li, Xiao & Chen 2024; paper 002): sampling rate, the σ_t schedule (16), noise variance
(15), the audit of its "fixed privacy budget" claim, eq. (3) and the DP-SCAFFOLD / PriFedSync baseline curves.

Source: Li, Xiao & Chen, "Communication-efficient and Utility-Aware Adaptive Gaussian Differential Privacy for
Personalized Federated Learning", Chinese Journal of Computers 2024. The errata
labels E1–E25 used here are listed in ``docs/cuag.md``; the catalog is ``formulas/002_cuag.toml``.

Accounting model of the paper (§6): client n's updates are Poisson-subsampled Gaussian steps with sampling rate
ρ = 2λB/|D_n|, tP steps after round t, and μ-GDP via the CLT (Theorem 4, corrected: erratum E1).
Rounds are counted from t = 1 (erratum E3: eq. (16) divides by zero at t = 0).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP, SAFE_UP_LOG, log1p_exp
from dpcalc.accounting import gdp
from dpcalc.cuag import compression
from dpcalc.errors import DomainError, ErratumWarning, EstimateWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["DPSCAFFOLD_RHO", "DPSCAFFOLD_ZETA", "PAPER_DELTA", "PRIFEDSYNC_K", "PRIFEDSYNC_SIGMA", "Audit",
           "Baselines", "audit", "audit_eps", "baseline_eps", "baselines", "classic_eps", "classic_sigma",
           "compression", "dpscaffold_eps", "effective_mu", "harmonic", "noise_variance",
           "noise_variance_from_sigma", "prifedsync_eps", "prifedsync_mu", "rounds_to_eps", "sampling_rate", "sigma",
           "sigma_schedule"]


#: PriFedSync curve constant K = ρ·√(local-step factor) (reverse-engineered: only K in [0.009999,
#: 0.010007] reproduces the paper's two-decimal PriFedSync range [0.41, 10.24]).
PRIFEDSYNC_K = 0.01
PRIFEDSYNC_SIGMA = 0.45
#: DP-SCAFFOLD curve: eq. (3) inverted with s_f = C = 1, ρ = λ = 0.1, ζ = 1.0 (reverse-engineered: it reproduces
#: the paper's range [1.52, 26.28] and its Table 1 values at integer t).
DPSCAFFOLD_RHO = 0.1
DPSCAFFOLD_ZETA = 1.0
PAPER_DELTA = 1e-5


@v.named_shapes
def sampling_rate(lam: ArrayLike, B: ArrayLike, D: ArrayLike) -> FloatOrArray:
    """ρ = 2λB/|D_n| (proof of Theorem 5, §6). λ in (0, 1], B, |D_n| integers >= 1, ρ <= 1.

    Parameters
    ----------
    lam : ArrayLike
        Client participation rate (probability), in ``(0, 1]``.
    B : ArrayLike
        Local batch size (samples), in ``[1, inf) integer``.
    D : ArrayLike
        Local data set size (the paper never gives it) (samples), in ``[1, inf) integer``.

    Returns
    -------
    FloatOrArray
        Sampling rate of a client's local steps (probability); a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``lam``, ``B``, ``D``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.cuag import sampling_rate
    >>> sampling_rate(0.5, 32, 1000)
    0.032
    """
    la = v.check_range("lam", lam, 0.0, 1.0, lo_open=True)
    b = v.integer_at_least("B", B, 1)
    d = v.integer_at_least("D", D, 1)
    rho = 2.0 * la * b / d
    if np.any(rho > 1.0):
        raise DomainError("sampling rate 2*lam*B/D must be <= 1 (raise D or lower lam*B)")
    return v.scalar_or_array(rho)


def _round_index(t: ArrayLike) -> FloatArray:
    tt = v.as_array("t", t)
    if np.any(tt == 0.0):
        raise DomainError("t must be an integer >= 1 (got 0): eq. (16) divides by zero at t = 0; rounds are "
                          "counted from 1 (CUAG-PFL erratum E3)")
    return v.integer_at_least("t", tt, 1)


def _log_ratio(mu: FloatArray, lam: FloatArray, B: FloatArray, D: FloatArray, t: FloatArray,
               P: FloatArray) -> FloatArray:
    """log(μ²|D|²/(4λ²B²tP)) = 2 log μ − 2 log ρ − log(tP), ρ = 2λB/|D|."""
    return 2.0 * np.log(mu) + 2.0 * (np.log(D) - np.log(2.0 * lam * B)) - np.log(t) - np.log(P)


def _inputs(mu: ArrayLike, lam: ArrayLike, B: ArrayLike, D: ArrayLike, t: ArrayLike,
            P: ArrayLike) -> tuple[FloatArray, ...]:
    m = v.positive("mu", mu)
    tt = _round_index(t)
    p = v.integer_at_least("P", P, 1)
    sampling_rate(lam, B, D)
    return (m, v.as_array("lam", lam), v.as_array("B", B), v.as_array("D", D), tt, p)


@v.named_shapes
def sigma(mu: ArrayLike, lam: ArrayLike, B: ArrayLike, D: ArrayLike, t: ArrayLike, P: ArrayLike) -> FloatOrArray:
    """Eq. (16): ``σ_t = √(1/ln(μ²|D|²/(4λ²B²tP) + 1))``, the noise multiplier of round t (t >= 1).

    It is the σ whose CLT μ over tP steps at rate ρ = 2λB/|D| equals μ (inverse of Theorem 4); computed as
    ``1/√(log1p_exp(log ratio))`` (no overflow). The CLT is an estimate (EstimateWarning).

    Parameters
    ----------
    mu : ArrayLike
        Per-client GDP budget, in ``(0, inf)``.
    lam : ArrayLike
        Client participation rate (probability), in ``(0, 1]``.
    B : ArrayLike
        Local batch size (samples), in ``[1, inf) integer``.
    D : ArrayLike
        Local data set size (the paper never gives it) (samples), in ``[1, inf) integer``.
    t : ArrayLike
        Round (rounds), in ``[1, inf) integer``.
    P : ArrayLike
        Local steps per round (local steps), in ``[1, inf) integer``.

    Returns
    -------
    FloatOrArray
        Adaptive noise multiplier σₜ of round t (noise multiplier); a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``lam``, ``B``, ``D``, ``t``, ``P``) outside its domain; the one-line message names it and the
        allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import sigma
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = sigma(0.5, 0.5, 32, 1000, 1, 10)
    ...
    >>> result
    0.5559587149571034
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    m, la, b, d, tt, p = _inputs(mu, lam, B, D, t, P)
    lg = log1p_exp(_log_ratio(m, la, b, d, tt, p))
    with np.errstate(divide="ignore"):
        s = 1.0 / np.sqrt(lg)
    s = s * SAFE_UP_LOG  # outward: never below the exact σ_t (convention 5)
    v.finite_result("sigma", s, "mu*D/(lam*B*sqrt(tP)) is too small (sigma overflows)")
    v.warn(gdp.CLT_WARNING, EstimateWarning)
    return v.scalar_or_array(s)


@v.scalar_params
def sigma_schedule(mu: float, lam: float, B: int, D: int, T: int, P: int) -> FloatArray:
    """σ_1..σ_T of eq. (16) (array of length T).

    Parameters
    ----------
    mu : float
        Μ of μ-GDP, > 0.
    lam : float
    B : int
    D : int
    T : int
    P : int

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``T``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import sigma_schedule
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = sigma_schedule(0.5, 0.5, 32, 1000, 3, 10)
    ...
    >>> result
    array([0.55595871, 0.62248241, 0.67230118])
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    tt = v.scalar("T", v.integer_at_least("T", T, 1))
    from dpcalc import _limits

    _limits.check_memory(f"T ({tt:.4g} rounds, one σ_t each)", tt * 8.0 * 6.0, "recompose fewer rounds")
    return np.asarray(sigma(mu, lam, B, D, np.arange(1.0, tt + 1.0), P), dtype=np.float64)


@v.named_shapes
def noise_variance(mu: ArrayLike, lam: ArrayLike, B: ArrayLike, D: ArrayLike, t: ArrayLike, P: ArrayLike,
                   C: ArrayLike = 1.0) -> FloatOrArray:
    """Eq. (15) (= (17)): ``ξ = 4C²/(B²·ln(μ²|D|²/(4λ²B²tP) + 1))`` = (2Cσ_t/B)², the per-coordinate noise
    variance of the layer update with sensitivity 2C/B.

    Parameters
    ----------
    mu : ArrayLike
        Per-client GDP budget, in ``(0, inf)``.
    lam : ArrayLike
        Client participation rate (probability), in ``(0, 1]``.
    B : ArrayLike
        Local batch size (samples), in ``[1, inf) integer``.
    D : ArrayLike
        Local data set size (the paper never gives it) (samples), in ``[1, inf) integer``.
    t : ArrayLike
        Round (rounds), in ``[1, inf) integer``.
    P : ArrayLike
        Local steps per round (local steps), in ``[1, inf) integer``.
    C : ArrayLike
        Clipping threshold (parameter units), in ``(0, inf)``.

    Returns
    -------
    FloatOrArray
        Gaussian noise variance ξ of round t (sensitivity 2C/B) (parameter units squared); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``lam``, ``B``, ``D``, ``t``, ``P``, ``C``) outside its domain; the one-line message names it
        and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import noise_variance
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = noise_variance(0.5, 0.5, 32, 1000, 1, 10)
    ...
    >>> result
    0.0012073831747528236
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    m, la, b, d, tt, p = _inputs(mu, lam, B, D, t, P)
    c = v.positive("C", C)
    lg = log1p_exp(_log_ratio(m, la, b, d, tt, p))
    with np.errstate(divide="ignore", over="ignore"):
        xi = 4.0 * c * c / (b * b * lg) * SAFE_UP_LOG  # outward (convention 5)
    v.finite_result("xi", xi, "the log term underflows (mu*D/(lam*B) too small)")
    v.warn(gdp.CLT_WARNING, EstimateWarning)
    return v.scalar_or_array(xi)


@v.named_shapes
def noise_variance_from_sigma(sigma: ArrayLike, B: ArrayLike, C: ArrayLike = 1.0) -> FloatOrArray:
    """ξ = (2Cσ/B)²: Gaussian mechanism with sensitivity 2C/B and noise multiplier σ (§5.4).

    Parameters
    ----------
    sigma : ArrayLike
        Noise standard deviation, > 0.
    B : ArrayLike
    C : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``B``, ``C``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import noise_variance_from_sigma
    >>> noise_variance_from_sigma(1.0, 32)
    0.00390625
    """
    s = v.positive("sigma", sigma)
    b = v.integer_at_least("B", B, 1)
    c = v.positive("C", C)
    return v.scalar_or_array(v.finite_result("xi", (2.0 * c * s / b) ** 2, "C*sigma is too large"))


@v.named_shapes
def harmonic(T: ArrayLike) -> FloatOrArray:
    """H_T = Σ_{τ=1}^T 1/τ (exact sum up to 1e6 terms, then ψ(T+1) + γ).

    Parameters
    ----------
    T : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``T``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.cuag import harmonic
    >>> harmonic(100)
    5.187377517639621
    """
    from scipy import special

    tt = v.integer_at_least("T", T, 1)
    out = np.where(tt <= 1e6, 0.0, special.digamma(tt + 1.0) + np.euler_gamma)
    small = tt <= 1e6
    if np.any(small):
        mx = int(np.max(tt[small]))
        cums = np.cumsum(1.0 / np.arange(1.0, mx + 1.0))
        out = np.asarray(out, dtype=np.float64)
        out[small] = cums[tt[small].astype(np.int64) - 1]
    return v.scalar_or_array(np.asarray(out, dtype=np.float64))


@v.named_shapes
def effective_mu(mu: ArrayLike, T: ArrayLike, *, as_published: bool = False) -> FloatOrArray:
    """μ_eff = μ·√H_T: the CLT μ of the whole schedule (16) over rounds 1..T (CUAG-PFL erratum E15).

    Round τ runs P steps at σ_τ with ρ²P(e^{1/σ_τ²} − 1) = μ²/τ, so μ_eff² = Σ_τ μ²/τ = μ²H_T, whatever
    |D|, λ, B and P are. The paper claims the budget stays μ: ``as_published=True`` returns that claim (μ,
    broadcast against T) with an `ErratumWarning`.

    Parameters
    ----------
    mu : ArrayLike
        Per-client GDP budget, in ``(0, inf)``.
    T : ArrayLike
        Number of rounds, in ``[1, inf) integer``.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        Audit: composed CLT μ of the schedule (16) over rounds 1..T; a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``mu``, ``T``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.cuag import effective_mu
    >>> effective_mu(0.5, 100)
    1.1387907531280297
    """
    m = v.positive("mu", mu)
    eff = m * np.sqrt(np.asarray(harmonic(T)))
    if not as_published:
        return v.scalar_or_array(eff)
    claimed, composed = np.ravel(np.broadcast_to(m, np.shape(eff))), np.ravel(eff)
    worst = int(np.argmax(composed / claimed))  # the point where the claim is furthest off
    where = "" if composed.size == 1 else f" where it is furthest off ({composed.size} points)"
    v.warn(f"CUAG-PFL erratum E15: returning the claimed fixed budget mu = {claimed[worst]:.6g}; "
           f"the composed schedule (16) gives mu*sqrt(H_T) = {composed[worst]:.6g}{where}",
           ErratumWarning)
    return v.scalar_or_array(np.broadcast_to(m, np.shape(eff)).astype(np.float64))


@dataclass(frozen=True)
class Audit:
    """Audit of the "fixed privacy budget" claim of CUAG-PFL after T rounds (erratum E15)."""

    mu: float
    T: int
    delta: float
    mu_effective: float
    eps_claimed: float
    eps_effective: float
    mu_from_schedule: float | None = None

    @property
    def ratio(self) -> float | None:
        """ε_eff / ε_claimed (None when the claimed ε is 0, e.g. at a large δ: no ratio exists)."""
        return self.eps_effective / self.eps_claimed if self.eps_claimed > 0 else None


@v.named_shapes
def audit_eps(mu: ArrayLike, T: ArrayLike, delta: ArrayLike = PAPER_DELTA) -> tuple[FloatOrArray, FloatOrArray,
                                                                                       FloatOrArray]:
    """The closed forms of `audit`, broadcast over arrays: (μ√H_T, ε(μ, δ), ε(μ√H_T, δ)) — the composed CLT μ
    of schedule (16) after T rounds, the ε the paper claims and the ε of the composition (CUAG-PFL erratum E15).
    CLT-based: an estimate (`EstimateWarning`).

    Parameters
    ----------
    mu : ArrayLike
        Μ of μ-GDP, > 0.
    T : ArrayLike
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    tuple[FloatOrArray, FloatOrArray, FloatOrArray]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import audit_eps
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = audit_eps(0.5, 100)
    ...
    >>> result
    (1.1387907531280297, 1.9930914044151442, 5.091530022615738)
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    mu_eff = effective_mu(mu, T)
    eps_claimed, eps_eff = gdp.eps_from_mu(mu, delta), gdp.eps_from_mu(mu_eff, delta)
    v.warn(gdp.CLT_WARNING, EstimateWarning)
    return mu_eff, eps_claimed, eps_eff


@v.scalar_params
def audit(mu: float, T: int, delta: float = PAPER_DELTA, *, lam: float | None = None, B: int | None = None,
          D: int | None = None, P: int | None = None) -> Audit:
    """The claimed budget (μ, ε(μ, δ)) against the composed schedule (μ√H_T, ε(μ√H_T, δ)).

    E.g. μ = 0.25, T = 300, δ = 1e-5: μ_eff = 0.626631 and ε_eff = 2.5675, not 0.92. When lam, B, D, P are all
    given, μ is also recomposed from the actual σ_1..σ_T with the heterogeneous CLT (must agree).

    Parameters
    ----------
    mu : float
        Μ of μ-GDP, > 0.
    T : int
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    lam : float | None
    B : int | None
    D : int | None
    P : int | None

    Returns
    -------
    Audit

    Raises
    ------
    DomainError
        An input (``mu``, ``T``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import audit
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = audit(0.5, 100)
    ...
    >>> result
    Audit(mu=0.5, T=100, delta=1e-05, mu_effective=1.1387907531280297, eps_claimed=1.9930914044151442,
    eps_effective=5.091530022615738, mu_from_schedule=None)
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    m = v.scalar("mu", v.positive("mu", mu))
    tt = int(v.scalar("T", v.integer_at_least("T", T, 1)))
    d = v.scalar("delta", v.probability("delta", delta))
    sched = None
    if None not in (lam, B, D, P):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EstimateWarning)
            sig = sigma_schedule(m, lam, B, D, tt, P)  # type: ignore[arg-type]
            rho = float(sampling_rate(lam, B, D))  # type: ignore[arg-type]
            sched = gdp.clt_mu_schedule(rho, sig, P)  # type: ignore[arg-type]
    elif any(x is not None for x in (lam, B, D, P)):
        raise DomainError("give all of lam, B, D, P (to recompose the actual schedule) or none")
    mu_eff, eps_claimed, eps_eff = (float(x) for x in audit_eps(m, tt, d))
    return Audit(mu=m, T=tt, delta=d, mu_effective=mu_eff, eps_claimed=eps_claimed, eps_effective=eps_eff,
                 mu_from_schedule=sched)


# --- eq. (3) and the baselines ---------------------------------------------------------------------

def _eq3_check(s_f: ArrayLike, rho: ArrayLike, T: ArrayLike, delta: ArrayLike) -> tuple[FloatArray, ...]:
    s = v.positive("s_f", s_f)
    r = v.check_range("rho", rho, 0.0, 1.0, lo_open=True)
    t = v.integer_at_least("T", T, 1)
    d = v.probability("delta", delta)
    return s, r, t, d


@v.named_shapes
def classic_sigma(eps: ArrayLike, delta: ArrayLike, rho: ArrayLike, T: ArrayLike,
                  s_f: ArrayLike = 1.0) -> FloatOrArray:
    """Eq. (3): ``ζ = s_f·√(2ρT ln(1/δ))/ε`` (Theorem 1 of the paper; the UDP form, erratum E18: not Abadi et al.'s).

    Not a proven bound for subsampled composition (the paper gives no constant conditions); kept to reproduce
    the DP-SCAFFOLD curve.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    delta : ArrayLike
        Failure probability, in ``(0, 1)``.
    rho : ArrayLike
        Ρ of ρ-zCDP, > 0 (probability), in ``(0, 1]``.
    T : ArrayLike
        Number of rounds, in ``[1, inf) integer``.
    s_f : ArrayLike

    Returns
    -------
    FloatOrArray
        Gaussian noise std for (ε, δ)-DP over T rounds at rate ρ (UDP form) (query units); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``, ``rho``, ``T``, ``s_f``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.cuag import classic_sigma
    >>> classic_sigma(1.0, 1e-5, 0.1, 100)
    15.174271293852222
    """
    e = v.positive("eps", eps)
    s, r, t, d = _eq3_check(s_f, rho, T, delta)
    zeta = s * np.sqrt(2.0 * r * t * -np.log(d)) / e * SAFE_UP  # outward (convention 5)
    return v.scalar_or_array(v.finite_result("zeta", zeta, "eps is too small"))


@v.named_shapes
def classic_eps(zeta: ArrayLike, delta: ArrayLike, rho: ArrayLike, T: ArrayLike,
                s_f: ArrayLike = 1.0) -> FloatOrArray:
    """Eq. (3) inverted: ``ε = s_f·√(2ρT ln(1/δ))/ζ``.

    Parameters
    ----------
    zeta : ArrayLike
    delta : ArrayLike
        Failure probability, in ``(0, 1)``.
    rho : ArrayLike
        Ρ of ρ-zCDP, > 0 (probability), in ``(0, 1]``.
    T : ArrayLike
        Number of rounds, in ``[1, inf) integer``.
    s_f : ArrayLike

    Returns
    -------
    FloatOrArray
        Ε of eq. (3) for a given noise std ζ (nats); a float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``zeta``, ``delta``, ``rho``, ``T``, ``s_f``) outside its domain; the one-line message names it and
        the allowed range.

    Examples
    --------
    >>> from dpcalc.cuag import classic_eps
    >>> classic_eps(1.0, 1e-5, 0.1, 100)
    15.174271293851463
    """
    z = v.positive("zeta", zeta)
    s, r, t, d = _eq3_check(s_f, rho, T, delta)
    return v.scalar_or_array(v.finite_result("eps", s * np.sqrt(2.0 * r * t * -np.log(d)) / z, "zeta is too small"))


@v.named_shapes
def dpscaffold_eps(t: ArrayLike, delta: ArrayLike = PAPER_DELTA) -> FloatOrArray:
    """DP-SCAFFOLD baseline curve of Fig. 4(a)/Table 1: eq. (3) inverted with s_f = 1, ρ = 0.1, ζ = 1.0.

    At δ = 1e-5 this is √(t·ln 10): 1.517427 at t = 1, 26.282609 at t = 300 (the paper's [1.52, 26.28]).

    Parameters
    ----------
    t : ArrayLike
        Round (rounds), in ``[1, inf) integer``.
    delta : ArrayLike
        Failure probability, in ``(0, 1)``.

    Returns
    -------
    FloatOrArray
        DP-SCAFFOLD baseline ε after t rounds (Fig. 4(a), Table 1) (nats); a float for scalar inputs, else an array of
        their broadcast shape.

    Raises
    ------
    DomainError
        An input (``t``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.cuag import dpscaffold_eps
    >>> dpscaffold_eps(10)
    4.798525912188081
    """
    return classic_eps(DPSCAFFOLD_ZETA, delta, DPSCAFFOLD_RHO, _round_index(t))


@v.named_shapes
def prifedsync_mu(t: ArrayLike) -> FloatOrArray:
    """PriFedSync CLT μ after t rounds: ``K·√(t(e^{1/0.45²} − 1))`` with K = 0.01 (reverse-engineered
    from the paper's range [0.41, 10.24] and its Table 1). An estimate (EstimateWarning).

    Parameters
    ----------
    t : ArrayLike
        Round (rounds), in ``[1, inf) integer``.

    Returns
    -------
    FloatOrArray
        PriFedSync baseline CLT μ after t rounds (σ = 0.45); a float for scalar inputs, else an array of their broadcast
        shape.

    Raises
    ------
    DomainError
        An input (``t``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import prifedsync_mu
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = prifedsync_mu(10)
    ...
    >>> result
    0.37219468024402375
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    tt = _round_index(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)
        mu = gdp.clt_mu(PRIFEDSYNC_K, PRIFEDSYNC_SIGMA, tt)
    v.warn(gdp.CLT_WARNING, EstimateWarning)
    return mu


@v.named_shapes
def prifedsync_eps(t: ArrayLike, delta: ArrayLike = PAPER_DELTA) -> FloatOrArray:
    """PriFedSync baseline curve: ε(μ_t, δ) with μ_t of `prifedsync_mu` (0.406841 at t = 1, 10.235670 at
    t = 300 for δ = 1e-5: the paper's [0.41, 10.24]).

    Parameters
    ----------
    t : ArrayLike
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).

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
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import prifedsync_eps
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = prifedsync_eps(10)
    ...
    >>> result
    1.4357462513941126
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    mu = prifedsync_mu(t)
    return gdp.eps_from_mu(mu, delta)


@dataclass(frozen=True)
class Baselines:
    """The baseline curves of Fig. 4 / Table 1 at rounds t and δ (broadcast); None where not asked for."""

    eps_dp_scaffold: FloatOrArray | None
    mu_prifedsync: FloatOrArray | None
    eps_prifedsync: FloatOrArray | None


@v.named_shapes
def baselines(t: ArrayLike, delta: ArrayLike = PAPER_DELTA, *, dp_scaffold: bool = True,
              prifedsync: bool = True) -> Baselines:
    """DP-SCAFFOLD ε (`dpscaffold_eps`) and PriFedSync μ and ε (`prifedsync_mu`, ε(μ_t, δ)) at t, δ.

    Parameters
    ----------
    t : ArrayLike
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).
    dp_scaffold : bool
    prifedsync : bool

    Returns
    -------
    Baselines

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import baselines
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = baselines(10)
    ...
    >>> result
    Baselines(eps_dp_scaffold=4.798525912188081, mu_prifedsync=0.37219468024402375,
    eps_prifedsync=1.4357462513941126)
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    mu = prifedsync_mu(t) if prifedsync else None
    return Baselines(eps_dp_scaffold=dpscaffold_eps(t, delta) if dp_scaffold else None, mu_prifedsync=mu,
                     eps_prifedsync=None if mu is None else gdp.eps_from_mu(mu, delta))


@v.named_shapes
def baseline_eps(method: str, t: ArrayLike, delta: ArrayLike = PAPER_DELTA) -> FloatOrArray:
    """ε after t rounds of ``method`` in {"dp-scaffold", "prifedsync"}.

    Parameters
    ----------
    method : str
    t : ArrayLike
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``method``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import baseline_eps
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter('always')
    ...     result = baseline_eps('prifedsync', 10)
    ...
    >>> result
    1.4357462513941126
    >>> sorted({w.category.__name__ for w in caught})
    ['EstimateWarning']
    """
    key = v.text("method", method).lower().replace("_", "-")
    if key == "dp-scaffold":
        return dpscaffold_eps(t, delta)
    if key == "prifedsync":
        return prifedsync_eps(t, delta)
    raise DomainError(f"method must be 'dp-scaffold' or 'prifedsync' (got {method!r})")


@v.scalar_params
def rounds_to_eps(method: str, eps: float, delta: float = PAPER_DELTA, t_max: int = 10**6) -> int:
    """The first round t (1..t_max) at which the baseline's ε reaches ``eps`` (curves increase with t).

    Parameters
    ----------
    method : str
    eps : float
        Privacy level ε.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    t_max : int

    Returns
    -------
    int

    Raises
    ------
    DomainError
        An input (``eps``, ``t_max``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    EstimateWarning
        An approximation, not a bound.

    Examples
    --------
    >>> from dpcalc.cuag import rounds_to_eps
    >>> rounds_to_eps('prifedsync', 2.0)
    19
    """
    e = v.scalar("eps", v.positive("eps", eps))
    lo, hi = 1, int(v.scalar("t_max", v.integer_at_least("t_max", t_max, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)
        if float(baseline_eps(method, hi, delta)) < e:
            raise DomainError(f"eps {e:g} is not reached by {method} within t_max = {hi} rounds")
        if float(baseline_eps(method, lo, delta)) >= e:
            return lo
        from dpcalc._roots import integer_search

        return integer_search(lambda t: float(baseline_eps(method, t, delta)) >= e, lo, hi)

