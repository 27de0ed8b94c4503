"""ε-MI-DP in federated learning: minimum Gaussian noise, utility, personalized budgets (paper 000).

Source: He & He, "Minimum Gaussian Noise Variance of Federated Learning in the Presence of Mutual
Information Based Differential Privacy", IEEE Access 2023; the catalog ``formulas/000_midp.toml`` records how each
form was verified and the paper's errata.

Privacy notion: client-level ε-MI-DP (Cuff & Yu 2016), ``sup I(w_i; w̄ | w^{-i}) ≤ ε`` **nats**.
Every σ here inverts the paper's *upper bound* on that leakage, ``(d/2)·ln(1 + p_i²C²/(dσ²))``
(eqs. (1.40), (2.47)): it is **sufficient** for ε-MI-DP, and minimal only relative to that bound,
not proven minimal (the bound — Hadamard, AM-GM, max-entropy — is not attained under ‖w‖ <= C). Pass
``units="bits"`` to give ε in bits (ε_nats = ε_bits·ln 2).

All functions broadcast over NumPy arrays and return a float for scalar input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP, SAFE_UP_LOG, half_d_log1p_ratio, log_snr_budget
from dpcalc.errors import DomainError
from dpcalc.typing import FloatArray, FloatOrArray
from dpcalc.units import Units, from_nats, nats_per_unit

__all__ = ["PersonalizedPlan", "alpha", "baseline_client_sigma", "baseline_server_sigma", "client_leakage",
           "client_sigma", "client_sigma_equal", "clip_schedule", "clip_update", "corollary2_sigmas",
           "equal_weight_stats", "optimal_utility", "optimal_utility_product_form", "optimal_weights",
           "personalized", "personalized_leakage", "personalized_utility", "server_leakage", "server_sigma",
           "server_sigma_equal", "utility_at_budget", "utility_client", "utility_server", "weight_stats"]



def _eps_nats(eps: ArrayLike, units: Units, name: str = "eps") -> FloatArray:
    scale = nats_per_unit(units)  # validates units first (one message for every family: dpcalc.units)
    return v.positive(name, eps) * scale


def _to_units(eps_nats: FloatArray, units: Units) -> FloatArray:
    return from_nats(eps_nats, units)


def _sigma_from_budget(eps: FloatArray, d: FloatArray, scale: FloatArray,
                       log_scale: Callable[[], FloatArray]) -> FloatArray:
    """σ = scale / sqrt(d·expm1(2ε/d)) with ``scale = C·p…``.

    Fast direct path (a few ulps); elements where it overflows, underflows or loses digits to subnormals are
    recomputed in log space, ``exp(log scale − ½·log g(ε, d))``, so ε/d up to ~1e300 neither overflows nor NaNs.
    """
    with np.errstate(all="ignore"):
        g = np.asarray(np.divide(eps, d))
        g *= 2.0
        np.expm1(g, out=g)
        g *= d
        np.sqrt(g, out=g)
        sigma = np.divide(scale, g, out=g) if np.shape(scale) in ((), g.shape) else np.divide(scale, g)
    tiny = np.finfo(np.float64).tiny
    sigma *= SAFE_UP  # outward: σ never below the exact minimum (convention 5)
    lo, hi = np.min(sigma), np.max(sigma)
    if lo >= tiny and hi < np.inf:
        return sigma
    # rare: redo the offending elements in log space (the test above is also False for NaN)
    bad = ~((sigma >= tiny) & (sigma < np.inf))
    eb, db, lb = (np.broadcast_to(a, sigma.shape)[bad] for a in (eps, d, log_scale()))
    sigma[bad] = np.exp(lb - 0.5 * log_snr_budget(eb, db)) * SAFE_UP_LOG
    if np.any(sigma < tiny):  # zero or subnormal: digits lost
        raise DomainError("eps/d is so large that sigma underflows float64 (< 2.2e-308); reduce eps or raise d")
    return v.finite_result("sigma", sigma, "eps/d is too small; raise eps")


@v.named_shapes
def server_sigma(eps: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, p_max: ArrayLike = 1.0,
                 units: Units = "nats") -> FloatOrArray:
    """Server-side noise std for ε-MI-DP with arbitrary weights, eq. (4.7).

    ``σ_s = C·max_i p_i / sqrt(d·(e^{2ε/d} − 1))``, computed via ``expm1`` in log space.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level ε > 0 (nats, or bits with ``units="bits"``).
    d : ArrayLike
        Model dimension, an integer >= 1.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), > 0.
    p_max : ArrayLike
        The largest aggregation weight max_i p_i, in (0, 1].
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Server-side minimum Gaussian noise std, arbitrary aggregation weights (parameter units (same as C)); a float for
        scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``d``, ``C``, ``p_max``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.midp import server_sigma
    >>> server_sigma(1.0, 10, p_max=0.1)
    0.06720606792639669
    """
    e = _eps_nats(eps, units)
    dd = v.integer_at_least("d", d, 1)
    c = v.positive("C", C)
    p = v.check_range("p_max", p_max, 0.0, 1.0, lo_open=True)
    return v.scalar_or_array(_sigma_from_budget(e, dd, c * p, lambda: np.log(c) + np.log(p)))


@v.named_shapes
def server_sigma_equal(eps: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, N: ArrayLike = 1,
                       units: Units = "nats") -> FloatOrArray:
    """Server-side noise std with equal weights p_i = 1/N, eq. (4.8): ``C / (N·sqrt(d·(e^{2ε/d} − 1)))``.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    N : ArrayLike
        Number of clients, in ``[1, inf) integer``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Server-side minimum Gaussian noise std, equal weights 1/N (parameter units); a float for scalar inputs, else an
        array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``d``, ``C``, ``N``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import server_sigma_equal
    >>> server_sigma_equal(1.0, 10, N=10)
    0.06720606792639669
    """
    n = v.integer_at_least("N", N, 1)
    return server_sigma(eps, d, C=C, p_max=1.0 / n, units=units)


@v.named_shapes
def client_sigma(eps: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, p_max: ArrayLike = 1.0,
                 sum_p2: ArrayLike = 1.0, units: Units = "nats") -> FloatOrArray:
    """Client-side noise std (every client adds N(0, σ_c²I)), eq. (4.9).

    ``σ_c = C·max_i p_i / sqrt(d·(e^{2ε/d} − 1)·Σ_k p_k²)``. ``sum_p2`` is Σ p_k², in [p_max², 1].

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    p_max : ArrayLike
        Largest aggregation weight, in ``(0, 1]``.
    sum_p2 : ArrayLike
        Sum of squared aggregation weights, in ``(0, 1]``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Client-side minimum Gaussian noise std, arbitrary aggregation weights (parameter units); a float for scalar
        inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``d``, ``C``, ``p_max``, ``sum_p2``) outside its domain; the one-line message names it and
        the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import client_sigma
    >>> client_sigma(1.0, 10, p_max=0.1, sum_p2=0.1)
    0.2125242472314029
    """
    e = _eps_nats(eps, units)
    dd = v.integer_at_least("d", d, 1)
    c = v.positive("C", C)
    p = v.check_range("p_max", p_max, 0.0, 1.0, lo_open=True)
    s2 = v.check_range("sum_p2", sum_p2, 0.0, 1.0, lo_open=True)
    if np.any(s2 < p * p * (1 - 1e-12)):
        raise DomainError("sum_p2 must be >= p_max**2 (sum of squared weights includes the largest one)")
    return v.scalar_or_array(_sigma_from_budget(e, dd, c * (p / np.sqrt(s2)),
                                                lambda: np.log(c) + np.log(p) - 0.5 * np.log(s2)))


@v.named_shapes
def client_sigma_equal(eps: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, N: ArrayLike = 1,
                       units: Units = "nats") -> FloatOrArray:
    """Client-side noise std with equal weights, eq. (4.11): ``C / sqrt(d·N·(e^{2ε/d} − 1))``.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    N : ArrayLike
        Number of clients, in ``[1, inf) integer``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Client-side minimum Gaussian noise std, equal weights 1/N (parameter units); a float for scalar inputs, else an
        array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``d``, ``C``, ``N``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import client_sigma_equal
    >>> client_sigma_equal(1.0, 10, N=10)
    0.2125242472314029
    """
    n = v.integer_at_least("N", N, 1)
    return client_sigma(eps, d, C=C, p_max=1.0 / n, sum_p2=1.0 / n, units=units)


@v.named_shapes
def weight_stats(weights: ArrayLike) -> tuple[float, float]:
    """Validate aggregation weights (non-negative, sum 1) and return ``(max p, Σ p²)``.

    Parameters
    ----------
    weights : ArrayLike

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input (``weights``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import weight_stats
    >>> weight_stats([0.5, 0.25, 0.25])
    (0.5, 0.375)
    """
    p = v.weights("weights", weights)
    return float(np.max(p)), float(np.sum(p * p))


@v.named_shapes
def equal_weight_stats(N: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
    """``(max p, Σ p²)`` of equal weights ``p_i = 1/N`` (both ``1/N``; ``N`` an integer >= 1, broadcast).

    Parameters
    ----------
    N : ArrayLike

    Returns
    -------
    tuple[FloatOrArray, FloatOrArray]

    Raises
    ------
    DomainError
        An input (``N``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import equal_weight_stats
    >>> equal_weight_stats(4)
    (0.25, 0.25)
    """
    n = v.integer_at_least("N", N, 1)
    return v.scalar_or_array(1.0 / n), v.scalar_or_array(1.0 / n)


@v.named_shapes
def server_leakage(sigma: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, p_max: ArrayLike = 1.0,
                   units: Units = "nats") -> FloatOrArray:
    """ε-MI-DP level guaranteed by server noise σ: bound (1.40), ``(d/2)·ln(1 + p_max²C²/(dσ²))``.

    An upper bound on the worst-case leakage (not attained under ‖w‖ <= C); the inverse of `server_sigma`.

    Parameters
    ----------
    sigma : ArrayLike
        Gaussian noise std (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    p_max : ArrayLike
        Largest aggregation weight, in ``(0, 1]``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Ε-MI-DP leakage bound of server-side Gaussian noise (inverse of (4.7)) (nats); a float for scalar inputs, else
        an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``d``, ``C``, ``p_max``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.midp import server_leakage
    >>> server_leakage(0.1, 10, p_max=0.1)
    0.4765508990216718
    """
    s = v.positive("sigma", sigma)
    dd = v.integer_at_least("d", d, 1)
    c = v.positive("C", C)
    p = v.check_range("p_max", p_max, 0.0, 1.0, lo_open=True)
    eps = half_d_log1p_ratio(dd, 2.0 * (np.log(c) + np.log(p) - np.log(s))) * SAFE_UP_LOG  # outward
    return v.scalar_or_array(_to_units(eps, units))


@v.named_shapes
def client_leakage(sigma: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, p_max: ArrayLike = 1.0,
                   sum_p2: ArrayLike = 1.0, units: Units = "nats") -> FloatOrArray:
    """ε-MI-DP level guaranteed by client noise σ: bound (2.47), ``(d/2)·ln(1 + p_max²C²/(dσ²Σp²))``.

    Parameters
    ----------
    sigma : ArrayLike
        Gaussian noise std (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    p_max : ArrayLike
        Largest aggregation weight, in ``(0, 1]``.
    sum_p2 : ArrayLike
        Sum of squared aggregation weights, in ``(0, 1]``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Ε-MI-DP leakage bound of client-side Gaussian noise (inverse of (4.9)) (nats); a float for scalar inputs, else
        an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``d``, ``C``, ``p_max``, ``sum_p2``) outside its domain; the one-line message names it and
        the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import client_leakage
    >>> client_leakage(0.1, 10, p_max=0.1, sum_p2=0.1)
    3.4657359028000716
    """
    s = v.positive("sigma", sigma)
    dd = v.integer_at_least("d", d, 1)
    c = v.positive("C", C)
    p = v.check_range("p_max", p_max, 0.0, 1.0, lo_open=True)
    s2 = v.check_range("sum_p2", sum_p2, 0.0, 1.0, lo_open=True)
    eps = half_d_log1p_ratio(dd, 2.0 * (np.log(c) + np.log(p) - np.log(s)) - np.log(s2)) * SAFE_UP_LOG  # outward
    return v.scalar_or_array(_to_units(eps, units))


@v.named_shapes
def utility_server(sigma: ArrayLike, d: ArrayLike) -> FloatOrArray:
    """Utility with server noise, eqs. (4.12), (4.15), (3.49): ``U_cdp = 1/(d·σ_s²)`` (1/parameter-units²).

    Parameters
    ----------
    sigma : ArrayLike
        Gaussian noise std (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.

    Returns
    -------
    FloatOrArray
        Utility with server-side noise: 1/E‖w̄ − noisy w̄‖² (central DP) (1/parameter-units^2); a float for scalar
        inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``d``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import utility_server
    >>> utility_server(0.1, 10)
    10.0
    """
    s = v.positive("sigma", sigma)
    dd = v.integer_at_least("d", d, 1)
    return v.scalar_or_array(v.finite_result("utility", 1.0 / (dd * s * s), "sigma is too small"))


@v.named_shapes
def utility_client(sigma: ArrayLike, d: ArrayLike, sum_p2: ArrayLike = 1.0) -> FloatOrArray:
    """Utility with client noise, eqs. (4.12), (4.14), (3.50): ``U_ldp = 1/(d·σ_c²·Σp_k²)``.

    Parameters
    ----------
    sigma : ArrayLike
        Gaussian noise std (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    sum_p2 : ArrayLike
        Sum of squared aggregation weights, in ``(0, 1]``.

    Returns
    -------
    FloatOrArray
        Utility with client-side noise: 1/E‖w̄ − noisy w̄‖² (local DP) (1/parameter-units^2); a float for scalar inputs,
        else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sigma``, ``d``, ``sum_p2``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import utility_client
    >>> utility_client(0.1, 10, sum_p2=0.1)
    99.99999999999999
    """
    s = v.positive("sigma", sigma)
    dd = v.integer_at_least("d", d, 1)
    s2 = v.check_range("sum_p2", sum_p2, 0.0, 1.0, lo_open=True)
    return v.scalar_or_array(v.finite_result("utility", 1.0 / (dd * s * s * s2), "sigma is too small"))


@v.named_shapes
def utility_at_budget(eps: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, p_max: ArrayLike = 1.0,
                      units: Units = "nats") -> FloatOrArray:
    """Theorem 2, eq. (4.16)/(3.51): ``U_ldp = U_cdp = (e^{2ε/d} − 1)/(C²·max p²)`` at the minimum σ.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    p_max : ArrayLike
        Largest aggregation weight, in ``(0, 1]``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Theorem 2: utility at the minimum noise, equal for client- and server-side noise (1/parameter-units^2); a float
        for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``d``, ``C``, ``p_max``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.midp import utility_at_budget
    >>> utility_at_budget(1.0, 10, p_max=0.1)
    22.14027581601698
    """
    e = _eps_nats(eps, units)
    dd = v.integer_at_least("d", d, 1)
    c = v.positive("C", C)
    p = v.check_range("p_max", p_max, 0.0, 1.0, lo_open=True)
    with np.errstate(over="ignore"):
        u = np.expm1(2.0 * e / dd) / (c * c * p * p)
    return v.scalar_or_array(v.finite_result("utility", u, "eps/d is too large"))


# --- Personalized budgets (Section V) -------------------------------------------------------------

@v.named_shapes
def alpha(eps: ArrayLike, d: ArrayLike, *, C: ArrayLike = 1.0, units: Units = "nats") -> FloatOrArray:
    """Per-client noise scale ``α_k = C_k / sqrt(d·(e^{2ε_k/d} − 1))``, eq. (5.31).

    Erratum: the printed (5.27) has ``C_{i,t}`` in the numerator; it must be ``C_{k,t}`` as in (5.31)
    and the proof of Theorem 3.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatOrArray
        Per-client noise scale αₖ for personalized budgets (parameter units); a float for scalar inputs, else an array
        of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eps``, ``d``, ``C``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import alpha
    >>> alpha(1.0, 10)
    0.6720606792639668
    """
    e = _eps_nats(eps, units)
    dd = v.integer_at_least("d", d, 1)
    c = v.positive("C", C)
    return v.scalar_or_array(_sigma_from_budget(e, dd, c, lambda: np.log(c)))


@v.named_shapes
def optimal_utility(alphas: ArrayLike, d: ArrayLike) -> float:
    """Theorem 3, eq. (5.29), in the stable form ``U* = (Σ_k 1/α_k)² / d``.

    Equal to the published product form ``(1/d)(Σ_i Π_{j≠i} α_j / Π_j α_j)²``, which over/underflows
    for large N (a product of N scales leaves the float range).

    Parameters
    ----------
    alphas : ArrayLike
        Per-client noise scales (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.

    Returns
    -------
    float
        Theorem 3: maximum utility under personalized budgets (stable form) (1/parameter-units^2).

    Raises
    ------
    DomainError
        An input (``alphas``, ``d``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import optimal_utility
    >>> optimal_utility([1.0, 2.0], 10)
    0.22499999999999998
    """
    a = v.vector("alphas", alphas, 0.0, lo_open=True)
    dd = v.scalar("d", v.integer_at_least("d", d, 1))
    a_min = float(np.min(a))
    with np.errstate(over="ignore"):  # Σ 1/α = Σ(α_min/α)/α_min: the sum cannot overflow, only the result
        u = (np.sum(a_min / a) / a_min / np.sqrt(dd)) ** 2
    return float(v.finite_result("utility", np.asarray(u), "alphas too small (U* overflows float64)"))


@v.named_shapes
def optimal_utility_product_form(alphas: ArrayLike, d: ArrayLike) -> float:
    """The published product form of (5.29), kept to show it equals `optimal_utility` (small N only).

    Parameters
    ----------
    alphas : ArrayLike
        Per-client noise scales (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.

    Returns
    -------
    float
        Theorem 3 as printed (product form); equal to midp.optimal_utility (1/parameter-units^2).

    Raises
    ------
    DomainError
        An input (``alphas``, ``d``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import optimal_utility_product_form
    >>> optimal_utility_product_form([1.0, 2.0], 10)
    0.225
    """
    a = v.vector("alphas", alphas, 0.0, lo_open=True)
    dd = v.scalar("d", v.integer_at_least("d", d, 1))
    n = a.size
    leave_one_out = np.array([np.prod(np.delete(a, i)) for i in range(n)])
    value = (np.sum(leave_one_out) / np.prod(a)) ** 2 / dd
    return float(v.finite_result("utility", np.asarray(value), "the product form over/underflows; use "
                                 "optimal_utility"))


@v.named_shapes
def optimal_weights(alphas: ArrayLike) -> FloatArray:
    """Theorem 3, eq. (5.30): ``p_k* = (1/α_k) / Σ_i (1/α_i)`` (equal to the published product ratio).

    Parameters
    ----------
    alphas : ArrayLike
        Per-client noise scales (parameter units), in ``(0, inf)``.

    Returns
    -------
    FloatArray
        Theorem 3: optimal aggregation weights pₖ* ∝ 1/αₖ.

    Raises
    ------
    DomainError
        An input (``alphas``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import optimal_weights
    >>> optimal_weights([1.0, 2.0])
    array([0.66666667, 0.33333333])
    """
    a = v.vector("alphas", alphas, 0.0, lo_open=True)
    inv = np.min(a) / a  # 1/α_k scaled by α_min: in (0, 1], so no overflow (1/1e-310 would be inf, then NaN)
    return np.asarray(inv / np.sum(inv))


@v.named_shapes
def corollary2_sigmas(alphas: ArrayLike) -> FloatArray:
    """Corollary 2, eq. (5.32): ``σ_k = α_k/√N``, a point of the optimal set ``Σ σ_k²/α_k² = 1``.

    Parameters
    ----------
    alphas : ArrayLike
        Per-client noise scales (parameter units), in ``(0, inf)``.

    Returns
    -------
    FloatArray
        Corollary 2: per-client noise std σₖ = αₖ/√N (parameter units).

    Raises
    ------
    DomainError
        An input (``alphas``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import corollary2_sigmas
    >>> corollary2_sigmas([1.0, 2.0])
    array([0.70710678, 1.41421356])
    """
    a = v.vector("alphas", alphas, 0.0, lo_open=True)
    return a / np.sqrt(a.size) * SAFE_UP


@v.named_shapes
def personalized_leakage(weights: ArrayLike, sigmas: ArrayLike, C: ArrayLike, d: ArrayLike, *,
                         units: Units = "nats") -> FloatArray:
    """Per-client leakage bound (5.25): ``(d/2)·ln(1 + p_k²C_k²/(d·Σ_i p_i²σ_i²))``.

    Parameters
    ----------
    weights : ArrayLike
        Aggregation weights, summing to 1, in ``[0, 1]``.
    sigmas : ArrayLike
        Per-client noise stds (parameter units), in ``(0, inf)``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    FloatArray
        Per-client leakage bound with per-client noise and weights (nats).

    Raises
    ------
    DomainError
        An input (``weights``, ``sigmas``, ``C``, ``d``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.midp import personalized_leakage
    >>> personalized_leakage([0.5, 0.5], [0.2, 0.4], [1.0, 1.0], 10)
    array([2.02732554, 2.02732554])
    """
    p = v.weights("weights", weights)
    s = v.vector("sigmas", sigmas, 0.0)
    c = v.vector("C", C, 0.0, lo_open=True)
    if not (p.size == s.size == c.size):
        raise DomainError("weights, sigmas and C must have one entry per client (same length)")
    dd = v.scalar("d", v.integer_at_least("d", d, 1))
    log_noise = _log_aggregate_noise(p, s)
    with np.errstate(divide="ignore"):
        log_ratio2 = 2.0 * (np.log(p) + np.log(c)) - log_noise
    return _to_units(half_d_log1p_ratio(dd, log_ratio2) * SAFE_UP_LOG, units)  # outward (convention 5)


def _aggregate_noise(p: FloatArray, s: FloatArray) -> tuple[float, float]:
    """``Σ_i p_i²σ_i² = m²·S`` as ``(m, S)`` with ``m = max p_iσ_i`` and ``S = Σ(p_iσ_i/m)² in [1, N]``: no
    overflow or underflow of the squares. A DomainError if the noise is zero."""
    ps = p * s
    m = float(np.max(ps))
    if not m > 0.0:
        raise DomainError("sigmas must give positive aggregate noise (sum p_k^2 sigma_k^2 > 0)")
    return m, float(np.sum((ps / m) ** 2))


def _log_aggregate_noise(p: FloatArray, s: FloatArray) -> float:
    """``log Σ_i p_i²σ_i²`` without overflow (see `_aggregate_noise`)."""
    m, total = _aggregate_noise(p, s)
    return 2.0 * float(np.log(m)) + float(np.log(total))


@v.named_shapes
def personalized_utility(weights: ArrayLike, sigmas: ArrayLike, d: ArrayLike) -> float:
    """Global-model utility (5.24) for arbitrary weights and per-client noise: ``U = 1/(d·Σ_i p_i²σ_i²)``
    (1/parameter-units²; client k adds N(0, σ_k²I), the server averages with weights p_k).

    Parameters
    ----------
    weights : ArrayLike
    sigmas : ArrayLike
    d : ArrayLike

    Returns
    -------
    float
        Global-model utility with per-client noise and arbitrary weights (1/parameter units^2).

    Raises
    ------
    DomainError
        An input (``weights``, ``sigmas``, ``d``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.midp import personalized_utility
    >>> personalized_utility([0.5, 0.5], [0.2, 0.4], 10)
    1.9999999999999996
    """
    p = v.weights("weights", weights)
    s = v.vector("sigmas", sigmas, 0.0)
    if p.size != s.size:
        raise DomainError("weights and sigmas must have one entry per client (same length)")
    dd = v.scalar("d", v.integer_at_least("d", d, 1))
    m, total = _aggregate_noise(p, s)
    with np.errstate(over="ignore"):
        u = (1.0 / m / np.sqrt(dd * total)) ** 2
    return float(v.finite_result("utility", np.asarray(u), "the aggregate noise sum p_k^2 sigma_k^2 is too small"))


def _per_client(eps: ArrayLike, C: ArrayLike, units: Units) -> tuple[FloatArray, FloatArray]:
    e = v.vector("eps", eps, 0.0, lo_open=True)
    if v.as_array("C", C).ndim == 0:  # as_array first: np.ndim of a ragged list is NumPy's own error
        c = np.broadcast_to(v.check_range("C", C, 0.0, lo_open=True), e.shape)
    else:
        c = v.vector("C", C, 0.0, lo_open=True)
    if c.shape != e.shape:
        raise DomainError(f"C must have one entry per client ({e.size}), got {c.size}")
    return e, c


@v.named_shapes
def baseline_client_sigma(eps: ArrayLike, C: ArrayLike, d: ArrayLike, *, units: Units = "nats") -> float:
    """Baseline (5.21): every client adds ``σ_c = max_k C_k / sqrt(d·N·(e^{2ε_k/d} − 1))``.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    float
        Baseline: every client adds the worst client's noise (parameter units).

    Raises
    ------
    DomainError
        An input (``eps``, ``C``, ``d``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import baseline_client_sigma
    >>> baseline_client_sigma([1.0, 2.0], [1.0, 1.0], 10)
    0.47521866367638826
    """
    e, c = _per_client(eps, C, units)
    return float(np.max(np.asarray(alpha(e, d, C=c, units=units)))) / float(np.sqrt(e.size))


@v.named_shapes
def baseline_server_sigma(eps: ArrayLike, C: ArrayLike, d: ArrayLike, *, units: Units = "nats") -> float:
    """Baseline (5.22): the server adds ``σ_s = max_k C_k / (N·sqrt(d·(e^{2ε_k/d} − 1)))``.

    Parameters
    ----------
    eps : ArrayLike
        Privacy level (nats), in ``(0, inf)``.
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    d : ArrayLike
        Model dimension, in ``[1, inf) integer``.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    float
        Baseline: the server adds the worst client's noise (parameter units).

    Raises
    ------
    DomainError
        An input (``eps``, ``C``, ``d``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import baseline_server_sigma
    >>> baseline_server_sigma([1.0, 2.0], [1.0, 1.0], 10)
    0.3360303396319834
    """
    e, c = _per_client(eps, C, units)
    return float(np.max(np.asarray(alpha(e, d, C=c, units=units)))) / e.size


@dataclass(frozen=True)
class PersonalizedPlan:
    """Theorem 3 / Corollary 2 plan for per-client budgets, beside the worst-client baselines (5.21)/(5.22).

    Attributes are per-client arrays (``alpha``, ``sigma``, ``weights``) and scalars. Utilities are in
    1/parameter-units²; ``baseline_utility`` is the utility of both baselines with equal weights.
    """

    alpha: FloatArray
    sigma: FloatArray
    weights: FloatArray
    utility: float
    baseline_sigma_client: float
    baseline_sigma_server: float
    baseline_utility: float

    @property
    def gain(self) -> float:
        """``U* / U_baseline = (Σ_k α_max/α_k / N)²`` (>= 1), from the α_k: finite even where both utilities
        underflow to 0 (huge C)."""
        a = np.asarray(self.alpha, dtype=np.float64)
        return float((np.sum(np.max(a) / a) / a.size) ** 2)


@v.named_shapes
def personalized(eps: ArrayLike, C: ArrayLike, d: ArrayLike, *, units: Units = "nats") -> PersonalizedPlan:
    """Personalized ε_k-MI-DP (Section V): optimal σ_k, p_k, U* and the baselines (5.21)/(5.22).

    Parameters
    ----------
    eps : ArrayLike
        Per-client budgets ε_k > 0 (1-D).
    C : ArrayLike
        Per-client clipping bounds C_k > 0 (1-D, same length, or a scalar for all).
    d : ArrayLike
        Model dimension.
    units : Units
        ``"nats"`` (default) or ``"bits"``: the unit of ε and of information quantities.

    Returns
    -------
    PersonalizedPlan

    Raises
    ------
    DomainError
        An input (``d``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import personalized
    >>> plan = personalized([1.0, 2.0], [1.0, 1.0], 10)
    >>> plan.sigma
    array([0.47521866, 0.31884516])
    >>> plan.utility
    1.373201226762146
    """
    e, c = _per_client(eps, C, units)
    a = np.asarray(alpha(e, d, C=c, units=units), dtype=np.float64)
    n = a.size
    a_max = float(np.max(a))
    dd = v.scalar("d", v.integer_at_least("d", d, 1))
    return PersonalizedPlan(
        alpha=a,
        sigma=corollary2_sigmas(a),
        weights=optimal_weights(a),
        utility=optimal_utility(a, dd),
        baseline_sigma_client=baseline_client_sigma(e, c, dd, units=units),
        baseline_sigma_server=baseline_server_sigma(e, c, dd, units=units),
        baseline_utility=n * n / (dd * a_max * a_max),
    )


# --- Adaptive clipping (5.17)-(5.19) --------------------------------------------------------------

@v.named_shapes
def clip_update(C: ArrayLike, w_norm: ArrayLike, eta: ArrayLike) -> FloatOrArray:
    """One step of (5.18) on the loss (5.17): ``C_{t+1} = C_t − η(C_t − ‖w_t‖) = (1−η)C_t + η‖w_t‖``.

    η is restricted to (0, 1] so the threshold stays a convex combination (positive).

    Parameters
    ----------
    C : ArrayLike
        Clipping bound on ‖w_i‖ (parameter units), in ``(0, inf)``.
    w_norm : ArrayLike
        Norm of the client's update (parameter units), in ``[0, inf)``.
    eta : ArrayLike
        Threshold learning rate, in ``(0, 1]``.

    Returns
    -------
    FloatOrArray
        Adaptive clipping threshold update (parameter units); a float for scalar inputs, else an array of their
        broadcast shape.

    Raises
    ------
    DomainError
        An input (``C``, ``w_norm``, ``eta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import clip_update
    >>> clip_update(1.0, 0.5, 0.2)
    0.9
    """
    c = v.positive("C", C)
    w = v.nonnegative("w_norm", w_norm)
    et = v.check_range("eta", eta, 0.0, 1.0, lo_open=True)
    return v.scalar_or_array((1.0 - et) * c + et * w)


@v.scalar_params
@v.named_shapes
def clip_schedule(C0: ArrayLike, norms: ArrayLike, eta: float) -> FloatArray:
    """Thresholds C_1..C_{T+1} from (5.18) for norms ‖w_t‖ of shape (T,) or (T, N clients).

    Row t is the threshold used in round t+1 (row 0 is ``C0``); (5.19) then clips ‖w_k^t‖ <= C_{k,t}.

    Parameters
    ----------
    C0 : ArrayLike
    norms : ArrayLike
    eta : float

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``C0``, ``norms``, ``eta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.midp import clip_schedule
    >>> clip_schedule(1.0, [0.5, 0.8, 1.2], eta=0.5)
    array([1.    , 0.75  , 0.775 , 0.9875])
    """
    c0 = v.positive("C0", C0)
    w = v.nonnegative("norms", norms)
    if w.ndim == 0:
        w = w.reshape(1)
    et = v.scalar("eta", v.check_range("eta", eta, 0.0, 1.0, lo_open=True))
    out = np.empty((w.shape[0] + 1, *np.broadcast_shapes(c0.shape, w.shape[1:])))
    out[0] = c0
    for t in range(w.shape[0]):
        out[t + 1] = (1.0 - et) * out[t] + et * w[t]
    return out
