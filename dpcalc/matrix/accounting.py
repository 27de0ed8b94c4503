"""ε of the matrix mechanism and the calibration of its noise.

The release B(Cx + z), z ~ N(0, σ²I) with σ = z·(clipping norm), is the Gaussian mechanism applied to Cx: its
privacy is that of one Gaussian with sensitivity s = sens(C) (`dpcalc.matrix.sensitivity`), so it is μ-GDP with
μ = s/z — exactly, also for adaptively chosen inputs (Denisov et al. 2022, Thm. 2.1 for single participation;
Choquette-Choo et al. 2023, ICML, Thm. 2.1 for multiple participations) — and ε(δ) is the Gaussian's exact profile
(Dong, Roth & Su 2022, Cor. 2.13; `dpcalc.accounting.gdp`). Under replace-one neighbours the user's contribution
moves by 2 instead of 1 (μ = 2s/z).

**Amplification** (`amplified_epsilon`): a b-banded C (C[i, j] = 0 for i − j >= b) with the data split into b
groups, group t mod b used at step t and each of its examples included independently with probability p, is as
private as DP-SGD — the Poisson-subsampled Gaussian with noise multiplier z/max‖C[:, j]‖ and rate p — run for
⌈n/b⌉ steps (Choquette-Choo et al. 2023, NeurIPS, Thm. 4; add/remove neighbours). It is accounted by the PLD
accountant (`dpcalc.accounting.pld.epsilon`). Nothing similar is proven for trees or general C here.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.accounting import gdp
from dpcalc.errors import DomainError
from dpcalc.matrix import strategies

__all__ = ["RELATIONS", "amplified_epsilon", "calibrate_noise", "delta", "dpsgd_epsilon", "epsilon", "mu"]

RELATIONS: tuple[str, ...] = ("add_remove", "replace_one", "replace_special")


def _factor(relation: str) -> float:
    return 2.0 if v.choice("relation", relation, RELATIONS, "the neighbouring relation") == "replace_one" else 1.0


@v.named_shapes
def mu(noise_multiplier: ArrayLike, sensitivity: ArrayLike, relation: str = "add_remove") -> float | v.FloatArray:
    """μ = s/z of the matrix mechanism (2s/z under replace-one).

    Examples:
        >>> from dpcalc.matrix import mu
        >>> mu(2.0, 3.0)
        1.5
    """
    z = v.positive("noise_multiplier", noise_multiplier)
    s = v.nonnegative("sensitivity", sensitivity)
    return v.scalar_or_array(_factor(relation) * s / z)


@v.named_shapes
def delta(eps: ArrayLike, noise_multiplier: ArrayLike, sensitivity: ArrayLike,
          relation: str = "add_remove") -> float | v.FloatArray:
    """δ(ε) of the matrix mechanism: the Gaussian profile at μ = s/z (module docstring).

    Examples:
        >>> from dpcalc.matrix import delta
        >>> f"{delta(1.0, 4.0, 2.0):.6e}"
        '6.829595e-03'
    """
    m, e = v.broadcast(mu=mu(noise_multiplier, sensitivity, relation), eps=v.nonnegative("eps", eps))
    d = np.where(m > 0.0, gdp.delta(np.where(m > 0.0, m, 1.0), e), 0.0)  # μ = 0 (s = 0): nothing is released
    return v.scalar_or_array(np.asarray(d, dtype=np.float64))


@v.named_shapes
def epsilon(noise_multiplier: ArrayLike, sensitivity: ArrayLike, delta: ArrayLike,
            relation: str = "add_remove") -> float | v.FloatArray:
    """ε at δ of the matrix mechanism (exact: μ-GDP with μ = s/z).

    Examples:
        >>> from dpcalc.matrix import epsilon
        >>> round(epsilon(4.0, 2.0, 1e-5), 6)
        1.993091
    """
    return gdp.eps_from_mu(mu(noise_multiplier, sensitivity, relation), delta)


@v.named_shapes
def calibrate_noise(sensitivity: ArrayLike, eps: ArrayLike, delta: ArrayLike,
                    relation: str = "add_remove") -> float | v.FloatArray:
    """The smallest noise multiplier z whose ε at δ is at most ``eps``: z = s/μ(ε, δ) (safe side).

    Examples:
        >>> from dpcalc.matrix import calibrate_noise
        >>> round(calibrate_noise(2.0, 1.993091, 1e-5), 5)
        4.0
    """
    s = v.positive("sensitivity", sensitivity)
    m = np.asarray(gdp.mu_from_eps(v.positive("eps", eps), delta))
    return v.scalar_or_array(_factor(relation) * s / m * SAFE_UP)


def _banded(c: v.FloatArray, bands: int) -> None:
    have = strategies.bands_of(c)
    if have > bands:
        raise DomainError(f"amplification needs a strategy with at most {bands} bands (the separation b); this one "
                          f"has {have}")


@v.scalar_params
def amplified_epsilon(strategy: ArrayLike, noise_multiplier: float, sampling_prob: float, separation: int,
                      delta: float) -> float:
    """ε at δ of a b-banded matrix mechanism with b-min-sep Poisson sampling at rate ``sampling_prob`` within each
    of the b groups (Choquette-Choo et al. 2023, NeurIPS, Thm. 4): the PLD accountant's upper end for ⌈n/b⌉
    Poisson-subsampled Gaussian steps at noise multiplier z/max‖C[:, j]‖. Add/remove neighbours.

    Examples:
        >>> from dpcalc.matrix import amplified_epsilon, banded_toeplitz
        >>> round(amplified_epsilon(banded_toeplitz([1.0, 0.5], 100), 2.0, 0.1, 2, 1e-5), 2)
        1.94
    """
    from dpcalc.accounting import pld

    c = strategies.check_strategy(strategy, "strategy")
    b = int(v.scalar("separation", v.integer_at_least("separation", separation, 1)))
    n = c.shape[0]
    if b > n:
        raise DomainError(f"separation must be <= steps ({n}) (got separation = {b})")
    _banded(c, b)
    z = float(v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier)))
    p = float(v.scalar("sampling_prob", v.check_range("sampling_prob", sampling_prob, 0.0, 1.0, lo_open=True)))
    kappa = float(np.max(np.sqrt(np.sum(c * c, axis=0))))
    if kappa == 0.0:
        return 0.0
    return float(pld.epsilon([(z / kappa, p, math.ceil(n / b))], delta).eps_upper)


@v.scalar_params
def dpsgd_epsilon(noise_multiplier: float, q: float, steps: int, delta: float) -> float:
    """ε at δ of DP-SGD with Poisson sampling (the comparison line): `dpcalc.accounting.pld.epsilon` of ``steps``
    subsampled Gaussian steps, its upper end.

    Examples:
        >>> from dpcalc.matrix import dpsgd_epsilon
        >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5), 3)
        1.829
    """
    from dpcalc.accounting import pld

    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    rate = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    t = int(v.scalar("steps", v.integer_at_least("steps", steps, 1)))
    return float(pld.epsilon([(z, rate, t)], delta).eps_upper)
