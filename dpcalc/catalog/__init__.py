"""The formula catalog: one TOML file per paper in ``formulas/`` (schema: ``docs/catalog.md``).

* `dpcalc.catalog.types` — the entry's parts (frozen dataclasses) and `CatalogError` (a leaf module);
* `dpcalc.catalog.formula` — one entry, `Formula`: its implementation, SymPy form and sampler;
* `dpcalc.catalog.schema` — validation, loading and lookup;
* `dpcalc.catalog.symbolic` — the SymPy form (parsed in a restricted namespace, no ``eval``) and its mpmath
  evaluation at any precision;
* `dpcalc.catalog.sampling` — random in-domain points and the ``sample_where`` conditions;
* `dpcalc.catalog.evaluate` — an entry over a grid of inputs (``dpcalc eval``);
* `dpcalc.catalog.raw` — one entry as plain TOML data (the CLI's start-up path for column labels).

The names below are imported from their modules on first use (PEP 562), so that importing
`dpcalc.catalog.raw` does not build the schema's dataclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dpcalc.catalog.formula import Formula
    from dpcalc.catalog.schema import by_paper, catalog_dir, find, get, load, load_file
    from dpcalc.catalog.types import INPUT_KINDS, STATUSES, CatalogError, Domain, Erratum, Example, Input, Output, Paper

__all__ = [
    "INPUT_KINDS", "STATUSES", "CatalogError", "Domain", "Erratum", "Example", "Formula", "Input", "Output", "Paper",
    "by_paper", "catalog_dir", "find", "get", "load", "load_file",
]


_HOME = {"Formula": "formula", "by_paper": "schema", "catalog_dir": "schema", "find": "schema", "get": "schema",
         "load": "schema", "load_file": "schema"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        import importlib

        return getattr(importlib.import_module(f"dpcalc.catalog.{_HOME.get(name, 'types')}"), name)
    raise AttributeError(f"module 'dpcalc.catalog' has no attribute {name!r}")
