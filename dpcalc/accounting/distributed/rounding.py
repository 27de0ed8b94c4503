"""Conditional randomized rounding onto the integer grid (Kairouz, Liu & Steinke 2021, Sec. 4.1 and Thm. 1).

A client's flattened, scaled vector ``x`` (‖x‖₂ ≤ c in grid units, i.e. clip / γ) is rounded coordinatewise to
⌊x⌋ or ⌈x⌉ with the probabilities that keep it unbiased; the rounding is repeated until ‖x̃‖₂ ≤ Δ₂, where

    Δ₂² = min{ c² + d/4 + √(2 ln(1/β))·(c + √d/2),  (c + √d)² }

(β ∈ [0, 1); β = 0 keeps only the deterministic bound (c + √d)², which every rounding satisfies). Unconditionally
``P(‖x̃‖₂ > Δ₂) ≤ β``, so a client rounds 1/(1 − β) times in expectation at most; conditioning biases each coordinate
by at most β/(1 − β) (|x̃ − x| < 1 and E[x̃ − x] = 0). On the integer grid ‖x̃‖₁ ≤ min(√d·Δ₂, Δ₂²).

Sensitivities of the sum (one client's rounded vector) are then Δ₂ and Δ₁ in grid units; they are what the
noise bounds of `dpcalc.accounting.distributed.noise` take.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP

__all__ = ["DEFAULT_BETA", "expected_rounding_attempts", "rounded_l1_bound", "rounded_l2_bound",
           "rounding_bias_bound"]

FloatOrArray = float | v.FloatArray

#: The conditional-rounding parameter of the papers' experiments (Kairouz, Liu & Steinke 2021, Sec. 6).
DEFAULT_BETA = math.exp(-0.5)


def _beta(beta: ArrayLike) -> v.FloatArray:
    return v.check_range("beta", beta, 0.0, 1.0, hi_open=True)


@v.named_shapes
def rounded_l2_bound(c: ArrayLike, d: ArrayLike, beta: ArrayLike = DEFAULT_BETA) -> FloatOrArray:
    """Δ₂ after conditional randomized rounding of a vector of ℓ2 norm ≤ ``c`` (grid units) in dimension ``d``:
    ``min{√(c² + d/4 + √(2 ln(1/β))(c + √d/2)), c + √d}`` (Kairouz, Liu & Steinke 2021, Thm. 1); β = 0 gives
    c + √d.

    Examples:
        >>> from dpcalc.accounting.distributed.rounding import rounded_l2_bound
        >>> round(rounded_l2_bound(100.0, 1024, 0.6065306597126334), 6)
        101.843016
    """
    cc = v.nonnegative("c", c)
    dd = v.integer_at_least("d", d, 1)
    b = _beta(beta)
    sqrt_d = np.sqrt(dd)
    det = cc + sqrt_d
    with np.errstate(divide="ignore"):
        lead = np.sqrt(2.0 * np.log(1.0 / np.where(b > 0.0, b, 1.0)))
    prob = np.sqrt(cc * cc + dd / 4.0 + lead * (cc + sqrt_d / 2.0))
    return v.scalar_or_array(np.where(b > 0.0, np.minimum(det, prob), det) * SAFE_UP)  # an upper bound


@v.named_shapes
def rounded_l1_bound(l2: ArrayLike, d: ArrayLike) -> FloatOrArray:
    """ℓ1 bound of an integer vector of ℓ2 norm ≤ ``l2`` in dimension ``d``: ``l2·min(√d, l2)`` (Cauchy–Schwarz,
    and |x| ≤ x² on the integers).

    Examples:
        >>> from dpcalc.accounting.distributed.rounding import rounded_l1_bound
        >>> rounded_l1_bound(10.0, 64)
        80.0
    """
    l2v = v.nonnegative("l2", l2)
    dd = v.integer_at_least("d", d, 1)
    return v.scalar_or_array(l2v * np.minimum(np.sqrt(dd), l2v))


@v.named_shapes
def expected_rounding_attempts(beta: ArrayLike = DEFAULT_BETA) -> FloatOrArray:
    """Upper bound 1/(1 − β) on the expected number of roundings until ‖x̃‖₂ ≤ Δ₂ (each succeeds w.p. ≥ 1 − β).

    Examples:
        >>> from dpcalc.accounting.distributed.rounding import expected_rounding_attempts
        >>> round(expected_rounding_attempts(0.5), 6)
        2.0
    """
    b = _beta(beta)
    return v.scalar_or_array(1.0 / (1.0 - b))


@v.named_shapes
def rounding_bias_bound(beta: ArrayLike = DEFAULT_BETA) -> FloatOrArray:
    """Bound β/(1 − β) on |E[x̃ᵢ − xᵢ]| per coordinate after conditioning on the norm test (grid units): the
    unconditional error has mean 0 and magnitude < 1, and the test fails with probability ≤ β.

    Examples:
        >>> from dpcalc.accounting.distributed.rounding import rounding_bias_bound
        >>> rounding_bias_bound(0.2)
        0.25
    """
    b = _beta(beta)
    return v.scalar_or_array(b / (1.0 - b))
