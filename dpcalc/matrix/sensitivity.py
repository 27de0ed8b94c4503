"""ℓ2 sensitivity of a strategy matrix C under a participation pattern (the noise Cx + z must hide).

A user contributes vectors u_t (‖u_t‖ ≤ 1, in units of the clipping norm) at its participation steps π, so
sens² = max_π max_u ‖Σ_{t∈π} C[:, t] u_t‖² = max_π max_u Σ_{s,t∈π} X_{st}⟨u_s, u_t⟩ with X = CᵀC.

* single participation: the largest column norm (Denisov et al. 2022) — exact;
* X >= 0 elementwise: equal u_t are worst, sens² = max_π 1ᵀX_π1 (Choquette-Choo et al. 2023, ICML, Thm. 2) —
  exact for every pattern family where the maximum over π is computed exactly: the fixed-epoch patterns (b offsets),
  b-min-sep on trees (`dpcalc.matrix.tree`), and brute force (`brute_force`, small n);
* X with X_{st} = 0 whenever |s − t| >= b (a b-banded C under b-min-sep): the cross terms vanish, sens² = the best
  sum of k diagonal entries X_tt at separation b, a 1-D dynamic program — exact whatever the signs (Choquette-Choo
  et al. 2023, NeurIPS, Thm. 3);
* otherwise an **upper bound** (labelled): Σ_{s,t∈π}|X_st| <= Σ_{s∈π} r_s with r_s = max over patterns of the
  |X|-row sum (π is one of them), maximised by the same 1-D program (Choquette-Choo et al. 2023, NeurIPS, Alg. 4),
  and a lower bound from the best fixed-epoch pattern, so the answer is a bracket.

`Sensitivity` carries the value, whether it is exact, and the bracket.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.errors import DomainError
from dpcalc.matrix.participation import Participation

__all__ = ["BRUTE_FORCE_MAX", "Method", "Sensitivity", "best_linear", "brute_force", "fixed_epoch", "min_sep",
           "single_participation"]

Method = Literal["single", "tree", "banded", "nonnegative-fixed-epoch", "upper-bound", "brute-force"]
#: The most patterns `brute_force` enumerates.
BRUTE_FORCE_MAX = 2_000_000


@dataclass(frozen=True)
class Sensitivity:
    """ℓ2 sensitivity (units of the clipping norm): ``value`` (= ``upper``), ``lower`` <= truth <= ``upper``,
    ``exact`` when lower = upper by a proven method (``method``)."""

    value: float
    lower: float
    upper: float
    exact: bool
    method: str
    note: str = ""

    @classmethod
    def from_squares(cls, lower_sq: float, upper_sq: float, exact: bool, method: str, note: str = "") -> Sensitivity:
        """From squared bounds, moved outward by `SAFE_UP` (their float64 rounding: the upper end is never below
        the exact value, the lower end never above it)."""
        up = math.sqrt(max(upper_sq, 0.0)) * SAFE_UP
        lo = math.sqrt(max(lower_sq, 0.0)) / SAFE_UP
        return cls(up, lo, up, exact, method, note)


def _matrix(c: ArrayLike) -> v.FloatArray:
    m = v.as_array("c", c)
    if m.ndim != 2:
        raise DomainError(f"c (the strategy matrix C) must be 2-D, rows by steps (got shape {m.shape})")
    return m


def _finite(x: v.FloatArray, what: str) -> v.FloatArray:
    if not np.all(np.isfinite(x)):
        raise DomainError(f"c (the strategy matrix C) has entries too large: {what} overflows float64")
    return x


def _gram(c: ArrayLike) -> v.FloatArray:
    m = _matrix(c)
    return _finite(m.T @ m, "CᵀC")


def _sensitivity(lower_sq: float, upper_sq: float, exact: bool, method: str, note: str = "") -> Sensitivity:
    _finite(np.array([lower_sq, upper_sq]), "the sum of CᵀC over a pattern")
    return Sensitivity.from_squares(lower_sq, upper_sq, exact, method, note)


def _pattern(participation: object, n: int) -> tuple[int, int]:
    """(k, b) of ``participation`` over the n steps (columns) of C, checked: a `Participation` of n steps."""
    if not isinstance(participation, Participation):
        raise DomainError(f"participation must be a dpcalc.matrix.Participation(steps, participations, separation) "
                          f"(got {v.brief(participation)})")
    if participation.steps != n:
        raise DomainError(f"the participation has {participation.steps} steps but the strategy c has {n} columns")
    return participation.max_participations, int(participation.separation)


@v.named_shapes
def single_participation(c: ArrayLike) -> Sensitivity:
    """The largest column norm of C: the sensitivity when every user takes part once (Denisov et al. 2022).

    Examples:
        >>> from dpcalc.matrix import single_participation, tree_matrix
        >>> round(single_participation(tree_matrix(8)).value, 12)
        2.0
    """
    top = float(np.max(_finite(np.sum(_matrix(c) ** 2, axis=0), "a column's squared norm")))
    return _sensitivity(top, top, True, "single")


def best_linear(x: ArrayLike, k: int, b: int) -> float | v.FloatArray:
    """max over b-min-sep patterns of at most k steps of Σ_{t∈π} x_t: a 1-D dynamic program, O(n·k), over the
    last axis (rows of a matrix are separate problems).

    Examples:
        >>> from dpcalc.matrix.sensitivity import best_linear
        >>> best_linear([3.0, 1.0, 1.0, 3.0], 2, 2)
        6.0
    """
    xs = np.asarray(x, dtype=np.float64)
    n = xs.shape[-1]
    pad = np.zeros((*xs.shape[:-1], b))
    f = np.zeros((*xs.shape[:-1], n + b))  # f[..., t]: the best over steps t … n − 1 with the budget so far
    for _ in range(min(int(k), math.ceil(n / b))):
        take = np.concatenate([xs + f[..., b: b + n], pad], axis=-1)  # take t, then the best from t + b on
        f = np.maximum.accumulate(take[..., ::-1], axis=-1)[..., ::-1]  # … or skip to a later step
    best = np.maximum(f[..., 0], 0.0)
    return float(best) if best.ndim == 0 else best


def _fixed_epoch_value(x: v.FloatArray, k: int, b: int) -> float:
    n = x.shape[0]
    best = 0.0
    for i in range(min(b, n)):
        idx = np.arange(i, n, b)[:k]
        best = max(best, float(np.sum(x[np.ix_(idx, idx)])))
    return best


@v.named_shapes
def fixed_epoch(c: ArrayLike, participation: Participation) -> Sensitivity:
    """Sensitivity over the fixed-epoch patterns {i, i + b, …} (k steps, offsets i < b; Choquette-Choo et al. 2023,
    ICML, Sec. 2): exact when CᵀC >= 0, else the upper bound with |CᵀC| (labelled).

    Examples:
        >>> from dpcalc.matrix import Participation, fixed_epoch, tree_matrix
        >>> round(fixed_epoch(tree_matrix(8), Participation(8, 2, 4)).value ** 2, 9)
        10.0
    """
    x = _gram(c)
    k, b = _pattern(participation, x.shape[0])
    nonneg = bool(np.all(x >= -1e-12 * max(float(np.max(np.abs(x))), 1e-300)))
    upper = _fixed_epoch_value(np.abs(x), k, b)
    lower = upper if nonneg else max(_fixed_epoch_value(x, k, b), float(np.max(np.diag(x))))
    note = "" if nonneg else "CᵀC has negative entries: |CᵀC| gives an upper bound (Choquette-Choo et al. 2023, eq. 5)"
    return _sensitivity(lower, upper, nonneg, "nonnegative-fixed-epoch" if nonneg else "upper-bound",
                                    note)


def _is_banded(x: v.FloatArray, b: int) -> bool:
    n = x.shape[0]
    far = np.abs(np.subtract.outer(np.arange(n), np.arange(n))) >= b
    return not np.any(x[far] != 0.0)


@v.named_shapes
def min_sep(c: ArrayLike, participation: Participation) -> Sensitivity:
    """Sensitivity of C under b-min-sep participation (module docstring): exact for a single participation and for
    Gram matrices that vanish at distance >= b; otherwise the upper bound with the best fixed-epoch pattern as its
    lower end.

    Examples:
        >>> from dpcalc.matrix import Participation, banded_toeplitz, min_sep
        >>> s = min_sep(banded_toeplitz([1.0, 0.5], 6), Participation(6, 3, 2))
        >>> round(s.value ** 2, 12), s.exact
        (3.75, True)
    """
    x = _gram(c)
    k, b = _pattern(participation, x.shape[0])
    if k == 1:
        return single_participation(c)
    if _is_banded(x, b):
        value = float(best_linear(np.diag(x), k, b))
        return _sensitivity(value, value, True, "banded")
    rows = np.asarray(best_linear(np.abs(x), k, b))  # each row's best pattern: Σ_{s∈π} Σ_{t∈π}|X_st| <= Σ_{s∈π} r_s
    upper = float(best_linear(rows, k, b))
    nonneg = bool(np.all(x >= 0.0))
    lower = _fixed_epoch_value(x, k, b) if nonneg else float(np.max(np.diag(x)))
    exact = upper <= lower * (1.0 + 1e-12)
    return _sensitivity(lower, upper, exact, "upper-bound",
                                    "" if exact else "upper bound (Choquette-Choo et al. 2023, NeurIPS, Alg. 4); "
                                                     "lower end: the best fixed-epoch pattern")


@v.named_shapes
def brute_force(c: ArrayLike, participation: Participation) -> Sensitivity:
    """max over every b-min-sep pattern of at most k steps of 1ᵀ|X_π|1 by enumeration (small n): the exact
    sensitivity when CᵀC >= 0, otherwise the |X| upper bound (labelled).

    Examples:
        >>> from dpcalc.matrix import Participation, brute_force, tree_matrix
        >>> round(brute_force(tree_matrix(7), Participation(7, 3, 3)).value ** 2, 9)
        9.0
    """
    x = _gram(c)
    n = x.shape[0]
    k, b = _pattern(participation, n)
    ax = np.abs(x)
    # patterns of s steps at least b apart among n: C(n − (s − 1)(b − 1), s)
    count = sum(math.comb(max(n - (s - 1) * (b - 1), 0), s) for s in range(1, k + 1))
    if count > BRUTE_FORCE_MAX:
        raise DomainError(f"brute force needs {count:.3g} patterns here (at most {BRUTE_FORCE_MAX}); use fewer steps")
    best = 0.0
    for size in range(1, k + 1):
        for pi in itertools.combinations(range(n), size):
            if any(pi[j + 1] - pi[j] < b for j in range(size - 1)):
                continue
            idx = np.array(pi)
            best = max(best, float(np.sum(ax[np.ix_(idx, idx)])))
    nonneg = bool(np.all(x >= 0.0))
    return _sensitivity(best if nonneg else 0.0, best, nonneg, "brute-force",
                                    "" if nonneg else "CᵀC has negative entries: the |CᵀC| bound")
