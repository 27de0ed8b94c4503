"""The certified bracket of any composition of privacy losses (`dpcalc.accounting.pld.losses`): ε at δ and δ at ε.

Compositions whose every step is a (Poisson-subsampled) Gaussian in the add/remove form go to the schedule
accountant (`dpcalc.accounting.pld.accountant.epsilon`: same numbers as before); every other composition is
discretised pair by pair (`dpcalc.accounting.pld.generic`) and composed by the same FFT pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from dpcalc import _validate as v
from dpcalc.accounting.pld.accountant import DeltaBracket, EpsBracket, delta_for_eps, epsilon
from dpcalc.accounting.pld.common import ATOL
from dpcalc.accounting.pld.losses import NoisePair, Pair, PrivacyLoss
from dpcalc.accounting.pld.schedule import Step
from dpcalc.errors import DomainError

__all__ = ["Components", "delta_composed", "epsilon_composed", "gaussian_step"]

Components = Sequence[tuple[PrivacyLoss, int]]


def gaussian_step(pair: Pair) -> tuple[float, float] | None:
    """(σ/Δ, q) when ``pair`` is ((1 − q)N(0, σ²) + qN(Δ, σ²), N(0, σ²)) with Δ > 0 (q = 1: no zero shift), else
    None: the form the schedule accountant composes (the add orientation is its swap).

    Parameters
    ----------
    pair : Pair

    Returns
    -------
    tuple[float, float] | None
    """
    if not isinstance(pair, NoisePair) or pair.kind != "gaussian" or pair.q_shifts != (0.0,):
        return None
    w: dict[float, float] = {}
    for s, a in zip(pair.p_shifts, pair.p_weights, strict=True):
        w[s] = w.get(s, 0.0) + a
    moved = [s for s, a in w.items() if s != 0.0 and a > 0.0]
    if len(moved) != 1 or moved[0] <= 0.0:
        return None
    q = w[moved[0]]
    if not 0.0 < q <= 1.0:
        return None
    return pair.scale / moved[0], (1.0 if q >= 1.0 else q)


def _validated(components: Components) -> list[tuple[PrivacyLoss, int]]:
    out = []
    try:
        items = list(components)
    except TypeError:
        raise DomainError(f"components must be a sequence of (loss, count) pairs (got {v.brief(components)})") \
            from None
    if not items:
        raise DomainError("components must contain at least one (loss, count) pair")
    for i, item in enumerate(items):
        if not (isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[0], PrivacyLoss)):
            raise DomainError(f"components[{i}] must be a (PrivacyLoss, count) pair (got {v.brief(item)})")
        out.append((item[0], int(v.scalar(f"components[{i}] count", v.integer_at_least("count", item[1], 1)))))
    return out


def _as_schedule(components: list[tuple[PrivacyLoss, int]]) -> list[Step] | None:
    """The schedule of (σ, q, count) steps when every loss is an add/remove-form Gaussian, else None."""
    steps = []
    for loss, count in components:
        st = gaussian_step(loss.remove)
        if st is None:
            return None
        if not loss.symmetric and gaussian_step(loss.add.swapped()) != st:  # the add orientation is the swap
            return None
        steps.append(Step(st[0], st[1], count))
    return steps


def epsilon_composed(components: Components, delta: float, *, rtol: float | None = None,
                     atol: float = ATOL) -> EpsBracket:
    """Certified bracket ε_lower ≤ ε(δ) ≤ ε_upper of the composition of ``count`` copies of each loss (both
    orientations composed separately; the worse is reported).

    Parameters
    ----------
    components : Components
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    rtol : float | None
        Relative tolerance of the root finder.
    atol : float

    Returns
    -------
    EpsBracket

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> from dpcalc.accounting.pld import gaussian
    >>> epsilon_composed([(gaussian(1.0), 10)], 1e-5)  # Gaussians without sampling: μ-GDP, no lattice
    EpsBracket(eps_lower=17.85658683010695, eps_upper=17.856586830108032, delta=1e-05, direction='remove',
    grid=0.0, fft_len=0, details={'converged': 1.0, 'iterations': 0.0, 'exact': 1.0}, met=True, rtol=0.001,
    atol=1e-06)
    """
    comps = _validated(components)
    steps = _as_schedule(comps)
    if steps is not None:
        return epsilon(steps, delta, rtol=rtol, atol=atol)
    from dpcalc.accounting.pld.generic import epsilon_generic

    return epsilon_generic(comps, delta, rtol=rtol, atol=atol)


def delta_composed(components: Components, eps: float) -> DeltaBracket:
    """Certified bracket δ_lower ≤ δ(ε) ≤ δ_upper of the composition (the worse orientation).

    Parameters
    ----------
    components : Components
    eps : float
        Privacy level ε.

    Returns
    -------
    DeltaBracket

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import delta_composed
    >>> from dpcalc.accounting.pld import gaussian
    >>> delta_composed([(gaussian(1.0), 10)], 3.0)
    DeltaBracket(delta_lower=0.6218469324666899, delta_upper=0.6218469324679644, eps=3.0, direction='remove',
    grid=0.0, fft_len=0, met=True, rtol=0.001, atol=0.0)
    """
    comps = _validated(components)
    steps = _as_schedule(comps)
    if steps is not None:
        return delta_for_eps(steps, eps)
    from dpcalc.accounting.pld.generic import delta_generic

    return delta_generic(comps, eps)
