"""The formula catalog: one TOML file per paper in ``formulas/`` (schema: ``docs/catalog.md``).

* :mod:`dpcalc.catalog.schema` — the entry dataclasses, validation, loading and lookup (standard library only);
* :mod:`dpcalc.catalog.symbolic` — the SymPy form (parsed in a restricted namespace, no ``eval``) and its mpmath
  evaluation at any precision;
* :mod:`dpcalc.catalog.sampling` — random in-domain points and the ``sample_where`` conditions;
* :mod:`dpcalc.catalog.evaluate` — an entry over a grid of inputs (``dpcalc eval``).
"""

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
