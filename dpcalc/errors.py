"""Exceptions and warnings shared by every dpcalc family.

Every bad input raises `DomainError` (a `ValueError`) whose message is one line that names
the parameter and its allowed range. The CLI turns it into exit code 2 without a traceback.
"""

from __future__ import annotations

__all__ = ["DomainError", "DpcalcError", "ErratumWarning", "EstimateWarning", "InfeasibleError",
           "OutOfDomainWarning", "ToleranceWarning", "UnknownNameError"]


class DpcalcError(ValueError):
    """Base class of dpcalc's input errors (a ``ValueError``)."""


class DomainError(DpcalcError):
    """A parameter lies outside its allowed range, is NaN/inf, or is not a number."""


class UnknownNameError(DomainError, KeyError):
    """An unknown name in a lookup (a formula id, a paper, a column): a `DomainError` like every bad input,
    and a ``KeyError`` for callers that catch failed lookups."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InfeasibleError(DpcalcError):
    """A requested target cannot be reached by any parameter value (e.g. an unreachable ε)."""


class OutOfDomainWarning(UserWarning):
    """A result was computed outside the domain in which its formula is proven (e.g. classic Gaussian, ε ≥ 1)."""


class ErratumWarning(UserWarning):
    """A published (erroneous) form was requested; the message names the erratum and the correct value."""


class EstimateWarning(UserWarning):
    """A value is an approximation/estimate, not a guaranteed bound (e.g. a CLT approximation)."""


class ToleranceWarning(UserWarning):
    """A certified bracket came back wider than the tolerance asked (both ends still hold the true value)."""
