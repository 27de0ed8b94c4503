"""A table spec's grid evaluated block by block (`dpcalc.sim.sweep`): for tables too large for memory or run
on a Dask cluster (``dpcalc table SPEC --stream FILE.csv [--scheduler ADDRESS]``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from dpcalc.report.grid import Rows
from dpcalc.report.table import TableSpec, build

__all__ = ["TableBlock"]


@dataclasses.dataclass(frozen=True)
class TableBlock:
    """The evaluator of one block of ``spec``'s grid: `dpcalc.report.table.build` on the block's sub-grid,
    its columns by key (the values a whole-grid ``build`` gives for the same rows)."""

    spec: TableSpec

    def __call__(self, options: Mapping[str, list[float]]) -> dict[str, Any]:
        rows = build(dataclasses.replace(self.spec, grid=dict(options))).rows
        assert isinstance(rows, Rows)  # build's rows are column-wise (dpcalc.report.grid.flatten)
        return {c.key: rows.array(c.key, 0, len(rows)) for c in self.spec.columns}
