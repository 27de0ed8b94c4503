"""Participation patterns of one user (record) across the n steps of a streaming mechanism.

``Participation(steps, participations=k, separation=b)``: the user takes part in at most k steps t₁ < … < t_k of
0 … n − 1 with t_{j+1} − t_j >= b ("b-min-sep participation"; Choquette-Choo et al. 2023, NeurIPS, Def. 2). b = 1
lets any steps be used; one participation is Denisov et al. 2022's single participation. Only ⌈n/b⌉ participations
fit, so k is capped there. (TensorFlow Privacy's ``min_separation`` counts the steps *between* two participations:
it is b − 1.)

The **fixed-epoch** pattern ((k, b)-participation of Choquette-Choo et al. 2023, ICML, Sec. 2) is the special case
t_j = i + (j − 1)b for an offset i < b: every user in the same slot of every epoch of b steps.

Training terms (`from_training`): N clients, n per round, T rounds with the clients cycled in fixed cohorts give
b = ⌊N/n⌋ rounds between two participations of a client and k = ⌈T/b⌉.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["Participation", "from_training"]


@dataclass(frozen=True)
class Participation:
    """At most ``participations`` steps of ``steps``, at least ``separation`` apart (module docstring)."""

    steps: int
    participations: int = 1
    separation: int = 1

    def __post_init__(self) -> None:
        n = int(v.scalar("steps", v.integer_at_least("steps", self.steps, 1)))
        v.integer_at_least("participations", self.participations, 1)
        b = int(v.scalar("separation", v.integer_at_least("separation", self.separation, 1)))
        if b > n:
            raise DomainError(f"separation must be <= steps ({n}): two participations {b} steps apart do not fit "
                              f"in the run (got separation = {b})")

    @property
    def max_participations(self) -> int:
        """k capped at the ⌈n/b⌉ participations that fit."""
        return min(int(self.participations), math.ceil(int(self.steps) / int(self.separation)))


def from_training(clients: int, clients_per_round: int, rounds: int) -> Participation:
    """Training terms → participation: T = ``rounds`` steps, b = ⌊N/n⌋ (fixed cohorts cycled), k = ⌈T/b⌉.

    Examples:
        >>> from dpcalc.matrix import from_training
        >>> from_training(1000, 100, 2000)
        Participation(steps=2000, participations=200, separation=10)
    """
    big_n = int(v.scalar("clients", v.integer_at_least("clients", clients, 1)))
    n = int(v.scalar("clients_per_round", v.integer_at_least("clients_per_round", clients_per_round, 1)))
    t = int(v.scalar("rounds", v.integer_at_least("rounds", rounds, 1)))
    if n > big_n:
        raise DomainError(f"clients_per_round must be <= clients ({big_n}) (got {n})")
    b = min(big_n // n, t)
    return Participation(t, math.ceil(t / b), b)
