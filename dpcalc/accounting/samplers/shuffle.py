"""A certified lower bound on the ε of shuffled fixed-size batches (Chua et al., ICML 2024 and NeurIPS 2024).

Each epoch shuffles the n records and cuts them into t = n/b batches of b; step i releases the batch's sum of
clipped gradients plus N(0, z²) (units of the clipping norm C; one coordinate suffices). Take the neighbours in which
every other record's gradient is −1 (n mod b records are left over each epoch: the changed one is in a batch
with probability γ = t·b/n) and the differing record's is +1 against ⊥ (contributes 0; add/remove with the
removed record's slot kept, or replace_special) or −1 (replace_one). Shifting every sum by +b, the outputs are
MoG(a) = (1/t)Σᵢ N(a·eᵢ, z²I_t): the changed record's batch is uniformly random, every other batch the same under
both neighbours. add/remove: MoG(2) against MoG(1) (Chua et al. 2024, the pair of their lower bound) or, with the
others at 0, MoG(1) against N(0); replace_one: MoG(2) against N(0) (one record moves the sum by 2C) or MoG(1)
against MoG(−1). Every such pair's divergence is at most the mechanism's.

Post-processing by M = maxᵢ xᵢ (Chua et al. 2024, the "cube" test) and by binning M into slices can only lower the
divergence; P(M ≤ c) = Φ((c − a)/z)·Φ(c/z)^{t−1}, so each slice's two masses are exact differences of log-CDFs.
Epochs reshuffle independently: the binned pair composes `epochs` times, by the PLD accountant, whose certified
lower end is then a lower bound on the true ε of the mechanism (the best over the candidate pairs is kept).
Slice masses carry floating-point relative errors of ~1e-13, far below the accountant's bracket.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.pld.losses import AtomPair, PrivacyLoss
from dpcalc.accounting.samplers.params import shuffle
from dpcalc.errors import DomainError

__all__ = ["PAIRS", "ShuffleLower", "epsilon_lower", "max_cdf", "max_log_cdf", "max_statistic_loss"]

#: candidate (a, b) pairs MoG(a) against MoG(b) per relation (module docstring)
PAIRS: dict[str, tuple[tuple[float, float], ...]] = {
    "add_remove": ((2.0, 1.0), (1.0, 0.0)),
    "replace_special": ((2.0, 1.0), (1.0, 0.0)),
    "replace_one": ((2.0, 0.0), (1.0, -1.0)),
}
_SLICE = 1e-3  # slice width in units of z² (the loss moves by about (a − b)·_SLICE per slice)
_REACH = 1e-18  # the slices span the outputs but this much mass on either side (the two outer cells hold the rest)
_MAX_SLICES = 1_000_000  # at most this many slices (reached below z ≈ 0.05)
_MASS_MIN = 1e-300  # a cell's masses are normal float64 numbers, relative error ~1e-13 (module docstring)


def max_cdf(c: np.ndarray, mean: float, noise_multiplier: float, num_steps: int, used: float = 1.0) -> np.ndarray:
    """log P(maxᵢ xᵢ ≤ c) when the changed record is in one of the t batches with probability γ = ``used`` (else
    left over, all batches alike): log[γΦ((c − mean)/z) + (1 − γ)Φ(c/z)] + (t − 1)·log Φ(c/z) (by symmetry the
    record's batch is the first)."""
    from scipy.special import log_ndtr, ndtr

    z = noise_multiplier
    own = log_ndtr((c - mean) / z)
    if used < 1.0:
        x1, x0 = (c - mean) / z, c / z
        upper = used * ndtr(-x1) + (1.0 - used) * ndtr(-x0)  # P(own > c): log1p keeps its digits when small
        with np.errstate(divide="ignore"):
            lower = np.logaddexp(math.log(used) + own, math.log1p(-used) + log_ndtr(x0))
            own = np.where(upper < 0.5, np.log1p(-np.minimum(upper, 0.5)), lower)
    return own + (num_steps - 1) * log_ndtr(c / z)


def max_log_cdf(c: float, mean: float, noise_multiplier: float, num_steps: int, used: float = 1.0) -> float:
    """log P(M ≤ c) of one shuffled epoch, M the largest of the t noisy batch sums shifted by +b, when the changed
    record's batch sum is moved by ``mean`` and the record is in a batch with probability ``used`` (`max_cdf`).

    Examples:
        >>> from dpcalc.accounting.samplers.shuffle import max_log_cdf
        >>> round(max_log_cdf(3.0, 2.0, 1.1, 10), 6)
        -0.22925
    """
    cc = v.scalar("c", v.as_array("c", c))
    m = v.scalar("mean", v.as_array("mean", mean))
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    t = int(v.scalar("num_steps", v.integer_at_least("num_steps", num_steps, 1)))
    g = v.scalar("used", v.check_range("used", used, 0.0, 1.0, lo_open=True))
    return float(max_cdf(np.asarray(cc), m, z, t, g))


def _slices(lcdf: np.ndarray) -> np.ndarray:
    """Masses of the cells (−∞, c₀], (c₀, c₁], …, (c_last, ∞) from log-CDF values at the edges."""
    lo = lcdf[:-1]
    hi = lcdf[1:]
    inner = np.exp(hi) * -np.expm1(lo - hi)
    first = math.exp(float(lcdf[0]))
    last = -math.expm1(float(lcdf[-1]))
    return np.concatenate(([first], inner, [last]))


@lru_cache(maxsize=32)
def _pair(a: float, b: float, z: float, t: int, used: float) -> AtomPair:
    from scipy.special import ndtri

    lo = min(a, b, 0.0) + z * float(ndtri(math.exp(math.log(_REACH) / t)))
    hi = max(a, b, 0.0) - z * float(ndtri(_REACH / t))
    # coarser slices where z is small (z = 0.001 asked for 2e9 of them): a coarser binning is still post-processing,
    # so the bound stays a valid lower bound, only less tight
    step = max(_SLICE * z * z, (hi - lo) / _MAX_SLICES)
    edges = np.arange(lo, hi + step, step)
    p = np.maximum(_slices(max_cdf(edges, a, z, t, used)), 0.0)
    q = np.maximum(_slices(max_cdf(edges, b, z, t, used)), 0.0)
    p, q = _overlapping(p, q)
    return AtomPair(tuple(p.tolist()), tuple(q.tolist()))


def _overlapping(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells merged so that each holds a normal float64 mass (>= `_MASS_MIN`) under both laws: a run of cells
    where one mass underflowed (to 0, or to a subnormal number with few digits) joins the next cell that has both
    (the last such cell for a trailing run). A coarser binning is post-processing, so the bound stays valid; a cell
    with one mass at 0 would be an infinite loss the mechanism does not have (at z = 0.01 the laws are 100 standard
    deviations apart and ε_lower was inf)."""
    good = np.flatnonzero((p >= _MASS_MIN) & (q >= _MASS_MIN))
    if good.size == 0:  # no cell with both masses: one cell, no information (ε_lower = 0, still a lower bound)
        return np.array([p.sum()]), np.array([q.sum()])
    group = np.minimum(np.searchsorted(good, np.arange(p.size)), good.size - 1)
    return np.bincount(group, weights=p, minlength=good.size), np.bincount(group, weights=q, minlength=good.size)


def max_statistic_loss(noise_multiplier: float, num_steps: int, mean_p: float, mean_q: float,
                       used: float = 1.0) -> PrivacyLoss:
    """One shuffled epoch seen through the binned maximum: the pair (law of M under MoG(mean_p), under MoG(mean_q))
    and its swap, the record in a batch with probability ``used`` (γ = t·b/n, 1 when b divides n). Its divergence is
    at most the epoch's for that pair of datasets (post-processing).

    Examples:
        >>> from dpcalc.accounting.samplers.shuffle import max_statistic_loss
        >>> loss = max_statistic_loss(1.1, 234, 2.0, 1.0)
        >>> loss.description
        'shuffle_max_statistic(z=1.1, t=234, MoG(2) vs MoG(1))'
    """
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    t = int(v.scalar("num_steps", v.integer_at_least("num_steps", num_steps, 1)))
    a = v.scalar("mean_p", v.as_array("mean_p", mean_p))
    b = v.scalar("mean_q", v.as_array("mean_q", mean_q))
    g = v.scalar("used", v.check_range("used", used, 0.0, 1.0, lo_open=True))
    if a == b:
        raise DomainError(f"mean_p must differ from mean_q (got {a:g} for both)")
    pair = _pair(float(a), float(b), z, t, g)
    return PrivacyLoss(f"shuffle_max_statistic(z={z:.10g}, t={t}, MoG({a:g}) vs MoG({b:g}))", "replace_special",
                       pair, pair.swapped(), False)


@dataclass(frozen=True)
class ShuffleLower:
    """A certified lower bound ``eps_lower`` on the ε(δ) of the shuffled mechanism, from the pair ``pair``
    (MoG(a) against MoG(b)); ``kind`` is always "lower"."""

    eps_lower: float
    delta: float
    pair: tuple[float, float]
    relation: str
    epochs: int
    num_steps: int
    kind: str = "lower"


def epsilon_lower(noise_multiplier: float, dataset_size: int, batch_size: int, epochs: int, delta: float,
                  relation: str = "add_remove", drop_last: bool = True) -> ShuffleLower:
    """Lower bound on ε(δ) of ``epochs`` epochs of shuffled batches of ``batch_size`` out of ``dataset_size``
    records (each epoch reshuffled; the n mod b left over are unused that epoch), Gaussian noise multiplier z: the
    best of the relation's candidate pairs (module docstring), each through the binned maximum and the PLD
    accountant's lower end. Below z ≈ 0.015 the laws of the binned maximum share no cell at float64 precision and
    the bound is 0 (valid, uninformative).

    Examples:
        >>> from dpcalc.accounting.samplers.shuffle import epsilon_lower
        >>> r = epsilon_lower(1.1, 60000, 256, 1, 1e-5)
        >>> r.kind, r.pair
        ('lower', (2.0, 1.0))
    """
    from dpcalc.accounting.pld import epsilon_composed

    sh = shuffle(noise_multiplier, dataset_size, batch_size, epochs, drop_last)
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    if relation not in PAIRS:
        raise DomainError(f"relation must be one of {', '.join(PAIRS)} (got {v.brief(relation)})")
    best: ShuffleLower | None = None
    for a, b in PAIRS[relation]:
        loss = max_statistic_loss(sh.noise_multiplier, sh.num_steps, a, b, sh.used)
        eps = epsilon_composed([(loss, sh.epochs)], d).eps_lower
        if best is None or eps > best.eps_lower:
            best = ShuffleLower(float(eps), d, (a, b), relation, sh.epochs, sh.num_steps)
    assert best is not None
    return best
