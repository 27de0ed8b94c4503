"""Privacy accounting: events, the accountants that account them, and the notions they rest on.

* `dpcalc.accounting.events` — what was released (one module per mechanism and sampling scheme, each owning its
  privacy maps), compositions, and a training run in its own terms;
* `dpcalc.accounting.accountants` — one registry: rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld, exact; each takes
  an event and returns `dpcalc.accounting.result.PrivacyResult`;
* `dpcalc.accounting.account` — every accountant side by side and the headline; `dpcalc.accounting.calibrate` —
  any knob for a target (ε, δ) (the search: `dpcalc.accounting.search`); `dpcalc.accounting.group` — user level;
* the notions: `gaussian_mechanism` (Dwork & Roth 2014; Balle & Wang 2018), `gdp` (Dong, Roth & Su 2022), `rdp`
  (Mironov et al. 2019), `zcdp` (Bun & Steinke 2016), `conversion` (RDP → (ε, δ)), `pld` (the certified PLD
  accountant), `finite` (exact finite sums);
* the mathematics of two families that their events use: `samplers` (random allocation's bounds, the shuffle lower
  bound) and `distributed` (distributed discrete noise), re-exported by `dpcalc.samplers` and `dpcalc.distributed`.

Every module imports SciPy lazily, inside the functions that need it; the modules are attributes of this package,
imported on first access (``dpcalc.accounting.pld.epsilon(...)`` after ``import dpcalc``).
"""

from __future__ import annotations

import importlib
from typing import Any

#: the modules reachable as attributes of ``dpcalc.accounting`` (imported on first access, PEP 562)
MODULES = ("account", "accountants", "calibrate", "conversion", "distributed", "events", "finite", "gaussian_mechanism",
           "gdp", "group", "pld", "rdp", "result", "samplers", "schedule", "search", "zcdp")

__all__ = list(MODULES)


def __getattr__(name: str) -> Any:
    if name in MODULES:
        return importlib.import_module(f"dpcalc.accounting.{name}")
    raise AttributeError(f"module 'dpcalc.accounting' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(MODULES)
