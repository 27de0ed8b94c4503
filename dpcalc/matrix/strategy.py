"""A strategy by name, and its sensitivity under a participation pattern by the best proven method.

``Strategy("tree", steps)`` (``restart`` for restarts), ``Strategy("banded", steps, coefficients=…)`` (default:
the bands of the prefix-sum square root), ``Strategy("matrix", steps, matrix=C)`` (any lower-triangular C, e.g.
from `load_strategy`), ``Strategy("identity", steps)`` (noise on every step's sum: DP-SGD without sampling).
`Strategy.sensitivity` dispatches: trees to the exact dynamic program of `dpcalc.matrix.tree` (a labelled upper
bound from `dpcalc.matrix.sensitivity.min_sep` beyond its work cap), everything else to `min_sep`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.matrix import strategies, tree
from dpcalc.matrix.participation import Participation
from dpcalc.matrix.sensitivity import Sensitivity, best_linear, min_sep

__all__ = ["KINDS", "Strategy", "banded_sensitivity", "tree_restart_delta", "tree_restart_sensitivity",
           "tree_sensitivity"]

KINDS: tuple[str, ...] = ("tree", "banded", "matrix", "identity")


@dataclass(frozen=True)
class Strategy:
    """A strategy matrix C over ``steps`` steps (module docstring)."""

    kind: str
    steps: int
    restart: int | None = None
    coefficients: tuple[float, ...] | None = None
    bands: int | None = None
    matrix_: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        v.choice("kind", self.kind, KINDS, "the strategy: tree aggregation, banded Toeplitz, a matrix, or the identity")
        v.integer_at_least("steps", self.steps, 1)
        if self.restart is not None:
            v.integer_at_least("restart", self.restart, 1)
        if self.kind == "matrix":
            if self.matrix_ is None:
                raise DomainError("strategy 'matrix' needs the matrix (a file or inline rows)")
            c = strategies.check_strategy(self.matrix_)
            if c.shape[0] != self.steps:
                raise DomainError(f"the strategy matrix has {c.shape[0]} steps but steps = {self.steps}")

    @classmethod
    def from_matrix(cls, matrix: Any) -> Strategy:
        c = strategies.check_strategy(matrix)
        return cls("matrix", c.shape[0], matrix_=c)

    def matrix(self) -> v.FloatArray:
        """C as a dense array."""
        if self.kind == "tree":
            return strategies.tree_matrix(self.steps, self.restart)
        if self.kind == "identity":
            return np.eye(int(self.steps))
        if self.kind == "banded":
            return strategies.banded_toeplitz(self.band_coefficients(), self.steps)
        return np.asarray(self.matrix_, dtype=np.float64)

    def band_coefficients(self) -> tuple[float, ...]:
        """The banded strategy's first column (default: ``bands`` coefficients of the prefix-sum square root)."""
        if self.coefficients is not None:
            return tuple(float(x) for x in v.vector("coefficients", list(self.coefficients)))
        bands = self.bands if self.bands is not None else min(int(self.steps), 16)
        return tuple(float(x) for x in strategies.sqrt_prefix_coefficients(bands))

    def sensitivity(self, participation: Participation) -> Sensitivity:
        """ℓ2 sensitivity under ``participation`` (units of the clipping norm; exact or a labelled bracket)."""
        if participation.steps != self.steps:
            raise DomainError(f"the participation has {participation.steps} steps but the strategy {self.steps}")
        if self.kind in ("banded", "identity"):
            coef = np.asarray(self.band_coefficients() if self.kind == "banded" else (1.0,))
            if coef.size <= int(participation.separation):  # columns b apart are orthogonal: exact, O(n·k)
                n = int(self.steps)
                tail = np.concatenate([np.cumsum((coef ** 2)[::-1])[::-1], [0.0]])  # tail[m] = Σ_{i >= m} c_i²
                rows = np.minimum(n - np.arange(n), coef.size)  # column j meets c_0 … c_{rows − 1}
                norms = tail[0] - tail[rows]
                sq = float(best_linear(norms, participation.max_participations, int(participation.separation)))
                return Sensitivity.from_squares(sq, sq, True, "banded")
        if self.kind == "tree" and self.restart is not None and self.restart < self.steps \
                and int(participation.separation) == int(self.restart):
            sq = tree.one_per_epoch_squared(int(self.steps), int(self.restart), participation.max_participations)
            return Sensitivity.from_squares(sq, sq, True, "tree")
        if self.kind == "tree":
            cost = tree.work(int(self.steps), participation.max_participations, int(participation.separation),
                             self.restart)
            if cost <= tree.MAX_WORK:
                sq = tree.tree_sensitivity_squared(participation, self.restart)
                return Sensitivity.from_squares(sq, sq, True, "tree")
        return min_sep(self.matrix(), participation)


def tree_sensitivity(steps: int, participations: int = 1, separation: int = 1, restart: int | None = None) -> float:
    """ℓ2 sensitivity of tree aggregation over ``steps`` steps (restarted every ``restart``) under b-min-sep
    participation: the exact dynamic program of `dpcalc.matrix.tree` (single participation: √(⌊log₂ n⌋ + 1)).

    Examples:
        >>> from dpcalc.matrix.strategy import tree_sensitivity
        >>> round(tree_sensitivity(1600) ** 2, 9), round(tree_sensitivity(24, 8, 3) ** 2, 9)
        (11.0, 88.0)
    """
    n = int(v.scalar("steps", v.integer_at_least("steps", steps, 1)))
    return Strategy("tree", n, restart).sensitivity(Participation(n, int(participations), int(separation))).value


def tree_restart_sensitivity(epochs: int, epoch_steps: int) -> float:
    """Tree aggregation restarted every epoch of ``epoch_steps`` steps, one participation per epoch (DP-FTRL-
    TreeRestart; Kairouz et al. 2021, App. D): √(E·(⌊log₂ b⌋ + 1)), computed by the exact dynamic program.

    Examples:
        >>> from dpcalc.matrix.strategy import tree_restart_sensitivity
        >>> round(tree_restart_sensitivity(200, 10) ** 2, 9)
        800.0
    """
    e = int(v.scalar("epochs", v.integer_at_least("epochs", epochs, 1)))
    b = int(v.scalar("epoch_steps", v.integer_at_least("epoch_steps", epoch_steps, 1)))
    return tree_sensitivity(e * b, e, b, restart=b)


@v.named_shapes
def tree_restart_delta(eps: ArrayLike, noise_multiplier: ArrayLike, epochs: ArrayLike,
                       epoch_steps: ArrayLike) -> float | v.FloatArray:
    """δ(ε) of DP-FTRL-TreeRestart (add/remove): the Gaussian profile at μ = `tree_restart_sensitivity`/z;
    broadcasts over the inputs.

    Examples:
        >>> from dpcalc.matrix.strategy import tree_restart_delta
        >>> f"{tree_restart_delta(1.0, 10.0, 4, 16):.6e}"
        '3.185055e-03'
    """
    from dpcalc.matrix.accounting import delta

    named = {"eps": v.nonnegative("eps", eps), "noise_multiplier": v.positive("noise_multiplier", noise_multiplier),
             "epochs": v.integer_at_least("epochs", epochs, 1),
             "epoch_steps": v.integer_at_least("epoch_steps", epoch_steps, 1)}

    def one(eps: float, noise_multiplier: float, epochs: float, epoch_steps: float) -> float:
        return float(delta(eps, noise_multiplier, tree_restart_sensitivity(int(epochs), int(epoch_steps))))

    return v.elementwise(one, **named)


def banded_sensitivity(coefficients: Any, participations: int) -> float:
    """Sensitivity of the banded Toeplitz strategy with ``coefficients`` (b bands) over n = k·b steps under b-min-sep
    participation (k = ``participations``): the exact banded program (Choquette-Choo et al. 2023, NeurIPS, Thm. 3),
    which equals √(k·Σⱼcⱼ²) here.

    Examples:
        >>> from dpcalc.matrix.strategy import banded_sensitivity
        >>> round(banded_sensitivity([1.0, 0.5, 0.375], 4) ** 2, 9)
        5.5625
    """
    c = v.vector("coefficients", coefficients)
    k = int(v.scalar("participations", v.integer_at_least("participations", participations, 1)))
    b = c.size
    s = Strategy("banded", k * b, coefficients=tuple(float(x) for x in c))
    return s.sensitivity(Participation(k * b, k, b)).value
