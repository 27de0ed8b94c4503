"""The schedule of a composition: steps ``(σ, q, count)`` of the Poisson-subsampled Gaussian, validated and merged."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["Step", "log_precision", "loss_variance", "normalise"]


@dataclass(frozen=True)
class Step:
    """``count`` compositions of the Poisson-subsampled Gaussian with rate ``q`` and noise multiplier ``sigma``."""

    sigma: float
    q: float = 1.0
    count: int = 1


def normalise(schedule: Iterable[Step | tuple[float, float, int] | Sequence[float]]) -> list[Step]:
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
        merged_sigma = math.exp(-0.5 * log_precision(full))
        if merged_sigma == 0.0:
            raise DomainError("sigma is too small: the q = 1 steps compose into one Gaussian whose noise multiplier "
                              "sigma/sqrt(count) underflows float64")
        full = [Step(merged_sigma, 1.0, 1)]
    # identical steps merge
    merged: dict[tuple[float, float], int] = {}
    for st in rest + full:
        merged[(st.sigma, st.q)] = merged.get((st.sigma, st.q), 0) + st.count
    return [Step(s, q, c) for (s, q), c in merged.items()]


def log_precision(steps: list[Step]) -> float:
    """log Σ count/σ² over ``steps`` (log-sum-exp: σ from 1e-300 to 1e300 neither overflows nor underflows).

    Parameters
    ----------
    steps : list[Step]
        Number of compositions T, an integer >= 1.

    Returns
    -------
    float
    """
    terms = [math.log(st.count) - 2.0 * math.log(st.sigma) for st in steps]
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms))



def loss_variance(steps: Sequence[Step]) -> float:
    """Approximate variance of the composed privacy loss, Σ count·min(q²(e^{1/σ²} − 1), 1/σ²) (small-q expansion,
    capped by the unsubsampled Gaussian's exact 1/σ²; the mean is about half of it). In log space: q² underflows
    to 0 for q < 1.5e-162 and e^{1/σ²} overflows, and their product (0 at q = 5e-324, σ = 1e-300, where the true
    term is capped at 1/σ²) had let a lattice that cannot fit reach the Chernoff step, whose all-NaN orders failed.

    Parameters
    ----------
    steps : Sequence[Step]
        Number of compositions T, an integer >= 1.

    Returns
    -------
    float
    """
    out = []
    for st in steps:
        log_inv = min(-2.0 * math.log(st.sigma), 700.0)  # log 1/σ², capped below overflow
        inv = math.exp(log_inv)
        log_expm1 = inv if inv > 40.0 else math.log(math.expm1(inv))  # log(e^{1/σ²} − 1)
        out.append(st.count * math.exp(min(2.0 * math.log(st.q) + log_expm1, log_inv)))
    return math.fsum(out)

