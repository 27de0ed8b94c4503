"""The privacy loss of one step (Poisson-subsampled Gaussian, remove or add neighbours) and its densities.

With z = (2x − 1)/(2σ²): remove neighbours P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²), L(x) = log((1−q) + q e^z);
add neighbours P = N(0,σ²), Q = the mixture, L = −that. δ(ε) = E_P[(1 − e^{ε−L})₊].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from dpcalc._numerics import normal_cdf
from dpcalc._roots import bisect
from dpcalc.accounting.pld.common import Direction, FloatArray

__all__ = ["Mechanism", "log_fp", "log_fq", "losses", "tail_z", "x_of_losses"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@dataclass
class Mechanism:
    """One step: the Poisson-subsampled Gaussian with noise multiplier ``sigma`` and rate ``q``, one neighbour
    direction."""

    sigma: float
    q: float
    direction: Direction

    def loss(self, x: FloatArray) -> FloatArray:
        """The privacy loss L(x) (`losses`)."""
        return losses(np.asarray(x, dtype=np.float64), np.float64(self.sigma), np.float64(self.q), self.direction)

    def p_mass_outside(self, x_lo: float, x_hi: float) -> tuple[float, float]:
        """P-mass below x_lo and above x_hi."""
        s = self.sigma
        if self.direction == "add" or self.q == 1.0:
            mu = 0.0 if self.direction == "add" else 1.0
            return normal_cdf((x_lo - mu) / s), normal_cdf((mu - x_hi) / s)
        q = self.q
        below = (1 - q) * normal_cdf(x_lo / s) + q * normal_cdf((x_lo - 1.0) / s)
        above = (1 - q) * normal_cdf(-x_hi / s) + q * normal_cdf((1.0 - x_hi) / s)
        return below, above


@cache
def tail_z(p: float) -> float:
    """z with Φ(−z) <= p (z in [6, 40]): 60 halvings of [0, 40] on erfc (no SciPy import), the end where it holds.

    Parameters
    ----------
    p : float

    Returns
    -------
    float
    """
    _, hi = bisect(lambda z: normal_cdf(-z) <= p, 0.0, 40.0, max_iter=60)
    return min(40.0, max(6.0, hi))


def losses(x: FloatArray, sig: FloatArray, q: FloatArray, direction: Direction) -> FloatArray:
    """Privacy loss at x of steps with noise multipliers ``sig`` and rates ``q`` (broadcast; q = 1 is exact: the
    log(1 − q) term is −∞ and logaddexp returns z).

    Parameters
    ----------
    x : FloatArray
    sig : FloatArray
    q : FloatArray
        Sampling probability, in (0, 1].
    direction : Direction

    Returns
    -------
    FloatArray
    """
    z = (2.0 * x - 1.0) / (2.0 * sig * sig)
    with np.errstate(divide="ignore"):
        lr = np.logaddexp(np.log1p(-q), np.log(q) + z)
    return lr if direction == "remove" else -lr


def x_of_losses(loss: FloatArray, sig: FloatArray, q: FloatArray, direction: Direction) -> FloatArray:
    """Inverse of `losses` in x (broadcast).

    Parameters
    ----------
    loss : FloatArray
    sig : FloatArray
    q : FloatArray
        Sampling probability, in (0, 1].
    direction : Direction

    Returns
    -------
    FloatArray
    """
    lr = loss if direction == "remove" else -loss
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = lr + np.log1p(-(1.0 - q) * np.exp(-lr)) - np.log(q)
    return sig * sig * z + 0.5


def log_fq(x: FloatArray, loss: FloatArray, sig: FloatArray, direction: Direction) -> FloatArray:
    """log f_Q at x given the loss there (f_P = f_Q·e^L; the unshifted Gaussian is P (add) or Q (remove)).

    Parameters
    ----------
    x : FloatArray
    loss : FloatArray
    sig : FloatArray
    direction : Direction

    Returns
    -------
    FloatArray
    """
    base = -0.5 * (x / sig) ** 2 - np.log(sig) - _LOG_SQRT_2PI
    return base if direction == "remove" else base - loss


def log_fp(x: FloatArray, loss: FloatArray, sig: FloatArray, direction: Direction) -> FloatArray:
    base = -0.5 * (x / sig) ** 2 - np.log(sig) - _LOG_SQRT_2PI
    return base + loss if direction == "remove" else base

