"""dpcalc: privacy accounting and privacy–utility analysis for differentially private federated learning.

Import the package and reach every part of it as an attribute; each subpackage is loaded on first use, so
``import dpcalc`` stays cheap (no SciPy, SymPy or matplotlib until a function needs them)::

    import dpcalc

    dpcalc.accounting.gaussian_mechanism.sigma_analytic(1.0, 1e-5)      # exact Gaussian noise (Balle & Wang 2018)
    dpcalc.midp.server_sigma(5.0, 1000)                                 # ε-MI-DP noise (He & He 2023)

Packages:

* `dpcalc.accounting` — privacy notions and accountants: the Gaussian mechanism, μ-GDP, RDP, zCDP, the
  certified PLD accountant, noise calibration;
* the families, one per paper: `dpcalc.midp` (ε-MI-DP, He & He 2023), `dpcalc.gaussian_mi`
  (mutual-information privacy of Gaussian parameters, Zeng, Yang & Dai 2022), `dpcalc.cuag` (CUAG-PFL,
  Li, Xiao & Chen 2024), `dpcalc.nbafl` (NbAFL, Wei et al. 2020), `dpcalc.secagg` (DP of secure
  aggregation, Zhang et al. 2024);
* `dpcalc.catalog` (the formula catalog), `dpcalc.sim` (the Monte Carlo core), `dpcalc.verify`
  (closed forms against simulation), `dpcalc.units`, `dpcalc.files`, `dpcalc.plot`.

Every bad input raises `DomainError` (a ``ValueError``) with a one-line message naming the parameter and its
allowed range; results outside a formula's proven domain carry an `OutOfDomainWarning`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dpcalc.errors import (
    DomainError,
    DpcalcError,
    ErratumWarning,
    EstimateWarning,
    InfeasibleError,
    OutOfDomainWarning,
)

if TYPE_CHECKING:
    from dpcalc import (
        accounting,
        catalog,
        cuag,
        files,
        gaussian_mi,
        midp,
        nbafl,
        plot,
        secagg,
        sim,
        units,
        verify,
    )

__version__ = "0.1.0"

#: the subpackages and modules reachable as attributes of ``dpcalc`` (imported on first access)
SUBPACKAGES = ("accounting", "midp", "gaussian_mi", "cuag", "nbafl", "secagg", "catalog", "sim", "verify", "units",
               "files", "plot")

__all__ = [
    "DomainError", "DpcalcError", "ErratumWarning", "EstimateWarning", "InfeasibleError", "OutOfDomainWarning",
    "__version__",
    # the subpackages (SUBPACKAGES), imported on first access
    "accounting", "catalog", "cuag", "files", "gaussian_mi", "midp", "nbafl", "plot", "secagg", "sim", "units",
    "verify",
]


def __getattr__(name: str) -> Any:
    """``dpcalc.<subpackage>``: imported on first access (PEP 562)."""
    if name in SUBPACKAGES:
        return importlib.import_module(f"dpcalc.{name}")
    raise AttributeError(f"module 'dpcalc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *SUBPACKAGES})
