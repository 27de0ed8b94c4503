"""dpcalc: privacy accounting and privacy-utility analysis for differentially private federated learning.

Families (one module each): :mod:`dpcalc.midp` (ε-MI-DP, He & He 2023). Heavy dependencies (SciPy, SymPy)
are imported lazily, only by the functions that need them.
"""

from __future__ import annotations

from dpcalc.errors import (
    DomainError,
    DpcalcError,
    ErratumWarning,
    EstimateWarning,
    InfeasibleError,
    OutOfDomainWarning,
)

__version__ = "0.1.0"

__all__ = [
    "DomainError",
    "DpcalcError",
    "ErratumWarning",
    "EstimateWarning",
    "InfeasibleError",
    "OutOfDomainWarning",
    "__version__",
]
