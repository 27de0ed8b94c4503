"""A discretised privacy-loss distribution of one step: atoms on a lattice of losses, plus mass at +∞."""

from __future__ import annotations

from dataclasses import dataclass

from dpcalc._repr import short_repr
from dpcalc.accounting.pld.common import FloatArray

__all__ = ["LatticePmf"]


@short_repr
@dataclass
class LatticePmf:
    """A discretised single-step PLD on the lattice g_j = (k0 + j)·h + c (finite atoms under P)."""

    k0: int
    p: FloatArray
    p_inf: float = 0.0  # P-mass at +∞ (upper pair only)
    c: float = 0.0  # lattice offset: atom j sits at loss (k0 + j)·h + c

    @property
    def k1(self) -> int:
        return self.k0 + self.p.size - 1

