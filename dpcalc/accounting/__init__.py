"""Privacy accounting: the Gaussian mechanism and the notions that compose it.

* `dpcalc.accounting.gaussian_mechanism` — classical and analytic Gaussian mechanism (Dwork & Roth 2014;
  Balle & Wang 2018).
* `dpcalc.accounting.gdp` — μ-Gaussian DP (Dong, Roth & Su 2022): privacy profile, conversions, CLT.
* `dpcalc.accounting.rdp` — Rényi DP of the (Poisson-subsampled) Gaussian (Mironov et al. 2019).
* `dpcalc.accounting.zcdp` — zero-concentrated DP (Bun & Steinke 2016).
* `dpcalc.accounting.conversion` — the one RDP → (ε, δ) conversion and its minimisers over orders.
* `dpcalc.accounting.pld` — the PLD accountant with a certified bracket (a package, one concept per module).
* `dpcalc.accounting.accountants` — ε of a DP-SGD schedule under every accountant.
* `dpcalc.accounting.calibrate` — σ (one monotone knob) for a target ε under every accountant.
* `dpcalc.accounting.training` — training terms (dataset, batch, epochs; clients, rounds) → q and T.
* `dpcalc.accounting.knobs` — any one knob of a training run for a target (ε, δ).
* `dpcalc.accounting.group` — user-level ε when a user contributes up to k examples (group privacy).

Every module imports SciPy lazily, inside the functions that need it; the modules are attributes of this package,
imported on first access (``dpcalc.accounting.pld.epsilon(...)`` after ``import dpcalc``).
"""

from __future__ import annotations

import importlib
from typing import Any

#: the modules reachable as attributes of ``dpcalc.accounting`` (imported on first access, PEP 562)
MODULES = ("accountants", "calibrate", "conversion", "gaussian_mechanism", "gdp", "group", "knobs", "pld", "rdp",
           "training", "zcdp")

__all__ = ["accountants", "calibrate", "conversion", "gaussian_mechanism", "gdp", "group", "knobs", "pld", "rdp",
           "training", "zcdp"]


def __getattr__(name: str) -> Any:
    if name in MODULES:
        return importlib.import_module(f"dpcalc.accounting.{name}")
    raise AttributeError(f"module 'dpcalc.accounting' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *MODULES})
