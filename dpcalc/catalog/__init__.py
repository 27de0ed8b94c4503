"""The formula catalog: one TOML file per paper in ``formulas/`` (schema: ``docs/catalog.md``).

* :mod:`dpcalc.catalog.schema` — the entry dataclasses, validation, loading and lookup (standard library only);
* :mod:`dpcalc.catalog.symbolic` — the SymPy form (parsed in a restricted namespace, no ``eval``) and its mpmath
  evaluation at any precision;
* :mod:`dpcalc.catalog.sampling` — random in-domain points and the ``sample_where`` conditions;
* :mod:`dpcalc.catalog.evaluate` — an entry over a grid of inputs (``dpcalc eval``);
* :mod:`dpcalc.catalog.raw` — one entry as plain TOML data (the CLI's start-up path for column labels).

The names below are imported from :mod:`~dpcalc.catalog.schema` on first use (PEP 562), so that importing
:mod:`dpcalc.catalog.raw` does not build the schema's dataclasses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dpcalc.catalog.schema import (
        INPUT_KINDS,
        STATUSES,
        CatalogError,
        Domain,
        Erratum,
        Example,
        Formula,
        Input,
        Output,
        Paper,
        by_paper,
        catalog_dir,
        find,
        get,
        load,
        load_file,
    )

__all__ = [
    "INPUT_KINDS", "STATUSES", "CatalogError", "Domain", "Erratum", "Example", "Formula", "Input", "Output", "Paper",
    "by_paper", "catalog_dir", "find", "get", "load", "load_file",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from dpcalc.catalog import schema

        return getattr(schema, name)
    raise AttributeError(f"module 'dpcalc.catalog' has no attribute {name!r}")
