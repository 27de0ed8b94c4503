"""Exact sensitivity of tree aggregation (with or without restarts) under b-min-sep participation.

The tree strategy's Gram matrix X = CᵀC is non-negative, so the worst contribution puts the same unit vector in
every participation and the squared sensitivity is max over patterns π of 1ᵀX_π1 = Σ over tree nodes of
(number of participations in the node)² (Choquette-Choo et al. 2023, ICML, Thm. 2; Kairouz et al. 2021, App. D for
the tree). A tree over n steps (or a forest, restarted every r steps) is a concatenation of complete binary
subtrees (the binary digits of n, of each epoch), so a dynamic program over subtrees is exact:

V(k; lead, tail) = the largest Σ count² over a segment's nodes with exactly k participations, the first at
least ``lead`` steps after the segment's start and the last at least ``tail`` steps before its end (lead, tail in
0 … b − 1: a constraint of b − 1 already separates any neighbour). Joining segments L and R:
k₁ = 0 passes ``lead`` into R, k₂ = 0 passes ``tail`` into L, otherwise max over j of
V_L(k₁; lead, j) + V_R(k₂; b − 1 − j, tail) (gap >= (j + 1) + (b − 1 − j) = b), plus k² when the join is a counted
node (a complete subtree's root).
Cost: Σ over the O(log n) distinct subtrees of K²·b³/2 with K = min(k, ⌈size/b⌉); `work` estimates it and
`dpcalc.matrix.strategy` falls back to a labelled upper bound beyond ``MAX_WORK``.
This is our own formulation (TensorFlow Privacy's ``tree_aggregation_accountant`` computes the single-tree case by
a different recursion; its test values are reproduced in the tests).
"""

from __future__ import annotations

import math

import numpy as np

from dpcalc.matrix.participation import Participation

__all__ = ["MAX_WORK", "one_per_epoch_squared", "tree_sensitivity_squared", "work"]

#: The largest DP work (element operations) done before the caller falls back to an upper bound.
MAX_WORK = 5e9
_CHUNK = 4_000_000  # elements per vectorised block
_NEG = -np.inf


def work(steps: int, participations: int, separation: int, restart: int | None = None) -> float:
    """Element operations the dynamic program needs (an estimate of its cost)."""
    b = separation
    size = steps if restart is None or restart >= steps else restart

    def join(sz: int) -> float:
        k = min(participations, math.ceil(sz / b))
        return k * k * b ** 3 / 2.0 + k * b * b

    total = sum(join(2 ** h) for h in range(1, size.bit_length()))  # complete subtrees
    total += size.bit_length() * join(size)  # their concatenation
    forest = size
    while forest < steps:  # binary powers of the epochs
        forest *= 2
        total += 2 * join(min(forest, steps))
    return total


Values = np.ndarray  # (K + 1, b, b): V(k; lead, tail)


class _Dp:
    def __init__(self, k: int, b: int) -> None:
        self.k, self.b = k, b
        self._complete: dict[int, Values] = {}

    def cap(self, size: int) -> int:
        return min(self.k, math.ceil(size / self.b))

    def complete(self, h: int) -> Values:
        """V of a complete subtree of 2^h leaves (its root and every inner node counted)."""
        if h not in self._complete:
            if h == 0:
                leaf = np.full((2, self.b, self.b), _NEG)
                leaf[0] = 0.0
                leaf[1, 0, 0] = 1.0
                self._complete[h] = leaf[: self.cap(1) + 1]
            else:
                half = self.complete(h - 1)
                self._complete[h] = self.join(half, 2 ** (h - 1), half, 2 ** (h - 1), counted=True)
        return self._complete[h]

    def join(self, left: Values, ls: int, right: Values, rs: int, counted: bool) -> Values:
        """V of the segment L then R (module docstring); ``counted``: the join is a tree node over both."""
        b = self.b
        kmax = self.cap(ls + rs)
        idx = np.arange(b)
        lead_r = np.maximum(idx - ls, 0)  # a lead constraint that passes over an empty left part
        tail_l = np.maximum(idx - rs, 0)
        flipped = right[:, ::-1, :]  # flipped at (k, j, tail) = V_R(k; b − 1 − j, tail)
        nl, nr = left.shape[0], right.shape[0]
        out = np.full((kmax + 1, b, b), _NEG)
        step = max(1, _CHUNK // b ** 3)
        for k in range(kmax + 1):
            best = out[k]
            if k < nr:
                np.maximum(best, right[k][lead_r, :], out=best)
            if k < nl:
                np.maximum(best, left[k][:, tail_l], out=best)
            lo, hi = max(1, k - nr + 1), min(k - 1, nl - 1)  # k1 with both parts non-empty
            for a in range(lo, hi + 1, step):
                k1 = np.arange(a, min(a + step, hi + 1))
                total = left[k1][:, :, :, None] + flipped[k - k1][:, None, :, :]  # (c, lead, j, tail)
                np.maximum(best, total.max(axis=(0, 2)), out=best)
            if counted:
                best += k * k
        return out

    def power(self, seg: Values, size: int, times: int) -> tuple[Values, int]:
        """``times`` copies of a segment side by side (uncounted joins), by binary powers."""
        result: tuple[Values, int] | None = None
        base = (seg, size)
        while times:
            if times & 1:
                result = base if result is None else (self.join(result[0], result[1], base[0], base[1], False),
                                                      result[1] + base[1])
            times >>= 1
            if times:
                base = (self.join(base[0], base[1], base[0], base[1], False), 2 * base[1])
        assert result is not None
        return result

    def tree(self, size: int) -> Values:
        """V of one tree over ``size`` steps: its complete subtrees (binary digits of size) side by side."""
        acc: Values | None = None
        acc_size = 0
        for h in range(size.bit_length() - 1, -1, -1):
            if size >> h & 1:
                seg = self.complete(h)
                acc = seg if acc is None else self.join(acc, acc_size, seg, 2 ** h, counted=False)
                acc_size += 2 ** h
        assert acc is not None
        return acc


def tree_sensitivity_squared(participation: Participation, restart: int | None = None) -> float:
    """max over b-min-sep patterns of at most k participations of Σ over the tree's nodes of count² (module
    docstring): the squared ℓ2 sensitivity of tree aggregation over ``participation.steps`` steps, one tree or a
    forest restarted every ``restart`` steps. Exact.

    Examples:
        >>> from dpcalc.matrix import Participation
        >>> from dpcalc.matrix.tree import tree_sensitivity_squared
        >>> tree_sensitivity_squared(Participation(24, 8, 3))
        88.0
    """
    n = int(participation.steps)
    dp = _Dp(participation.max_participations, int(participation.separation))
    size = n if restart is None or restart >= n else int(restart)
    full, rest = divmod(n, size)
    acc, acc_size = dp.power(dp.tree(size), size, full)
    if rest:
        acc = dp.join(acc, acc_size, dp.tree(rest), rest, counted=False)
    return float(np.max(acc[:, 0, 0]))


def one_per_epoch_squared(steps: int, restart: int, participations: int) -> float:
    """Squared sensitivity of trees restarted every ``restart`` steps when participations are exactly ``restart``
    apart at least (separation = restart, DP-FTRL-TreeRestart): each tree holds at most one participation and its
    first leaf is one of its deepest (it lies in the tree's largest complete subtree), so the first leaves of any k
    trees are a feasible worst pattern: the sum of the k largest tree depths ⌊log₂ size⌋ + 1. Exact, O(n/r).

    Examples:
        >>> from dpcalc.matrix.tree import one_per_epoch_squared
        >>> one_per_epoch_squared(2000, 10, 200)
        800.0
    """
    depths = sorted((min(restart, steps - start).bit_length() for start in range(0, steps, restart)), reverse=True)
    return float(sum(depths[:participations]))
