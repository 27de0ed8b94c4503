"""Bounds from dominating schedules: the un-subsampled Gaussians (μ² = Σ count/σ², exact for q = 1), which cap ε and
δ in both directions, and a coarser schedule of few distinct steps for the add direction."""

from __future__ import annotations

import math

from dpcalc.accounting.pld.schedule import Step, log_precision, normalise
from dpcalc.errors import DomainError

__all__ = ["certainly_zero", "coarse_dominating", "dominating_mu", "gaussian_delta_lower", "gaussian_delta_upper",
           "gaussian_eps_upper"]


def coarse_dominating(steps: list[Step], ratio: float = 1.2) -> list[Step]:
    """A coarser schedule that dominates ``steps``: each σ rounded down to a power of ``ratio`` (σ' ≤ σ dominates σ:
    adding N(0, σ² − σ'²) noise is a post-processing of both neighbours), equal steps merged. Its upper bound is an
    upper bound of the schedule's; used to settle the add direction with few distinct steps.

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    ratio : float

    Returns
    -------
    list[Step]
    """
    if len(steps) <= 4:
        return steps
    lr = math.log(ratio)
    return normalise([(math.exp(math.floor(math.log(st.sigma) / lr) * lr) * (1.0 - 1e-15), st.q, st.count)
                      for st in steps])



def certainly_zero(steps: list[Step], delta: float) -> bool:
    """True when ε(δ) = 0 exactly: the schedule is dominated by its un-subsampled Gaussians (joint convexity of the
    hockey-stick divergence, both directions), which compose into one Gaussian with μ = √(Σ count/σ²), whose
    δ(0) = erf(μ/(2√2)) (`dpcalc.accounting.gdp.delta_at_zero`) is at most μ/√(2π) (erf x ≤ 2x/√π). That
    bound ≤ δ is tested in log space with an outward margin: huge σ would otherwise reach the lattice as a loss
    range of ~1e-40 and break its sizing; schedules near the boundary take the lattice path.

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    bool
    """
    log_bound = 0.5 * log_precision(steps) - 0.5 * math.log(2.0 * math.pi)
    return log_bound + 1e-12 <= math.log(delta)


def dominating_mu(steps: list[Step]) -> float:
    """μ of the un-subsampled Gaussian composition that dominates the schedule, μ² = Σ count/σ², rounded up.

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.

    Returns
    -------
    float
    """
    return math.exp(0.5 * log_precision(steps)) * (1.0 + 1e-14)


def gaussian_eps_upper(steps: list[Step], delta: float, below: float = math.inf) -> float:
    """ε(δ) of the dominating Gaussian composition (μ² = Σ count/σ²), on the safe side (gdp.eps_from_mu); inf
    without computing it when it cannot be below ``below``: for μ >= 3 and δ < 0.37 < δ_G(μ²/2) it exceeds μ²/2
    (1 ms saved on the common small-q schedules, where μ is large).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    below : float

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    from dpcalc.accounting.gdp import eps_from_mu

    mu = dominating_mu(steps)
    if mu >= 3.0 and delta < 0.37 and below <= 0.5 * mu * mu:
        return math.inf
    try:
        return float(eps_from_mu(mu, delta))
    except DomainError:  # μ beyond 1e150: no useful bound
        return math.inf


def gaussian_delta_upper(mu: float, eps: float) -> float:
    """δ(ε) of μ-GDP rounded up (relative 1e-12; the smallest positive double where it underflows: a Gaussian's δ is
    never 0, so 0.0 would sit below the truth).

    Parameters
    ----------
    mu : float
        Μ of μ-GDP, > 0.
    eps : float
        Privacy level ε.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    ld = _gaussian_log_delta(mu, eps)
    return 0.0 if ld is None else min(1.0, max(math.exp(ld + 1e-12), 5e-324))


def gaussian_delta_lower(mu: float, eps: float) -> float:
    """δ(ε) of μ-GDP rounded down (relative 1e-12; 0 where it underflows).

    Parameters
    ----------
    mu : float
        Μ of μ-GDP, > 0.
    eps : float
        Privacy level ε.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    ld = _gaussian_log_delta(mu, eps)
    return 0.0 if ld is None else min(1.0, math.exp(ld - 1e-12))


def _gaussian_log_delta(mu: float, eps: float) -> float | None:
    """log δ(ε) of μ-GDP; None for μ = 0 (δ = 0), −inf below the double range."""
    from dpcalc.accounting.gdp import log_delta as gdp_log_delta

    if mu == 0.0:
        return None
    try:
        return float(gdp_log_delta(mu, eps))
    except DomainError:  # log δ below −1e308
        return -math.inf
