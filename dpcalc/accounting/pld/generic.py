"""Composition of any privacy losses: each pair discretised on the lattice (connect-the-dots upper pair, hat-channel
lower pair), then the FFT pass of :mod:`dpcalc.accounting.pld.passes`."""

from __future__ import annotations

from dpcalc.accounting.pld.accountant import DeltaBracket, EpsBracket
from dpcalc.accounting.pld.losses import PrivacyLoss
from dpcalc.errors import DomainError

__all__ = ["delta_generic", "epsilon_generic"]


def epsilon_generic(components: list[tuple[PrivacyLoss, int]], delta: float, *, rtol: float | None,
                    atol: float) -> EpsBracket:
    raise DomainError("pld: this composition is not supported yet")


def delta_generic(components: list[tuple[PrivacyLoss, int]], eps: float) -> DeltaBracket:
    raise DomainError("pld: this composition is not supported yet")
