"""dpcalc: privacy accounting and privacy–utility analysis for differentially private federated learning.

The verbs, one call each (the same numbers as the command that asks the question)::

    import dpcalc

    dpcalc.epsilon(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60, delta=1e-5)
    dpcalc.calibrate(eps=3, delta=1e-5, noise_multiplier=None, dataset_size=60000, batch_size=256, epochs=60)
    dpcalc.statement(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60, delta=1e-5)

`epsilon`, `delta`, `account`, `calibrate` and `statement` take a training run's terms or an event (`events`: the
constructors; a dp-accounting ``DpEvent`` or its ``to_named_tuple()`` form is read as well) and return
`PrivacyResult` (``float(result)`` is the guaranteed value), `Calibration` or `Statement`.

The packages, loaded on first use (``import dpcalc`` imports no SciPy, SymPy or matplotlib): `accounting`
(accountants, events, the PLD, RDP, GDP, zCDP), the families — `midp` (He & He 2023), `gaussian_mi` (Zeng, Yang &
Dai 2022), `cuag` (Li, Xiao & Chen 2024), `nbafl` (Wei et al. 2020), `secagg` (Zhang et al. 2024) — and `catalog`,
`sim`, `verify`, `units`, `files`, `plot`.

Every bad input raises `DomainError` (a ``ValueError``) with a one-line message naming the parameter and its
allowed range; results outside a formula's proven domain carry an `OutOfDomainWarning`.
"""

from __future__ import annotations

import importlib as _importlib

from dpcalc.errors import (
    DomainError,
    DpcalcError,
    ErratumWarning,
    EstimateWarning,
    InfeasibleError,
    OutOfDomainWarning,
    ToleranceWarning,
)

__version__ = "0.1.0"

#: the subpackages and modules reachable as attributes of ``dpcalc`` (imported on first access)
SUBPACKAGES = ("accounting", "midp", "gaussian_mi", "cuag", "nbafl", "secagg", "samplers", "risk", "audit",
               "distributed", "matrix", "catalog", "sim", "verify", "units", "files", "plot")
#: the verbs and types at the top, by the module that defines them (imported on first access)
_TOP = {"epsilon": "dpcalc.api", "delta": "dpcalc.api", "account": "dpcalc.api", "calibrate": "dpcalc.api",
        "statement": "dpcalc.api", "event_of": "dpcalc.api",
        "events": "dpcalc.accounting.events", "PrivacyResult": "dpcalc.accounting.result",
        "Calibration": "dpcalc.accounting.calibrate", "Accounting": "dpcalc.accounting.account",
        "Statement": "dpcalc.report.statement"}

__all__ = ["Accounting", "Calibration", "DomainError", "DpcalcError", "ErratumWarning", "EstimateWarning",
           "InfeasibleError", "OutOfDomainWarning", "PrivacyResult", "Statement", "ToleranceWarning", "__version__",
           "account", "accounting", "audit", "calibrate", "catalog", "cuag", "delta", "distributed", "epsilon",
           "event_of", "events", "files", "gaussian_mi", "matrix", "midp", "nbafl", "plot", "risk", "samplers",
           "secagg", "sim", "statement", "units", "verify"]


def __getattr__(name: str) -> object:
    """``dpcalc.epsilon``, ``dpcalc.events``, ``dpcalc.<subpackage>``: imported on first access (PEP 562)."""
    if name == "events":
        return _importlib.import_module("dpcalc.accounting.events")
    if name in _TOP:
        return getattr(_importlib.import_module(_TOP[name]), name)
    if name in SUBPACKAGES:
        return _importlib.import_module(f"dpcalc.{name}")
    raise AttributeError(f"module 'dpcalc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
