"""What a command computed, before rendering: its columns (`Column`) and rows (`Result`), and the
output formats (`Format`). Rendering is `dpcalc.report.render`.

JSON shape (stable, for programs): ``{"rows": [{input: value, …, output: value}], "warnings": […],
"meta": {"formula": id, "units": {column: unit, …}, "dpcalc_version": …, …}}``; a command may add ``"summary"``.
``meta.units`` is always a dict: the units of the columns (from the catalog, see `dpcalc.report.columns`)
updated by `Result.units`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, NamedTuple

__all__ = ["Column", "Format", "Result"]


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    latex = "latex"


class Column(NamedTuple):
    """One output column: ``key`` in JSON/CSV, ``label`` (with unit) in tables, ``latex`` in LaTeX.

    ``unit`` goes to ``meta.units`` (JSON); build columns of catalog quantities with
    `dpcalc.report.columns.column` / `columns_for` rather than by hand.
    (A named tuple rather than a dataclass: defining one costs microseconds at start-up, a dataclass ~1.5 ms.)
    """

    key: str
    label: str = ""
    latex: str = ""
    integer: bool = False
    text: bool = False  # left-aligned (ids, names); numbers are right-aligned
    number: str = ""  # format spec of the shown number (e.g. ".4g", ".3e"); default ".6g"; JSON/CSV keep all digits
    unit: str = ""
    detail: bool = False  # JSON and CSV only: a field programs read that a table for people leaves out

    @property
    def header(self) -> str:
        return self.label or self.key


class Result:
    """What a command computed, before rendering (a plain class: cheap to define at start-up)."""

    __slots__ = ("columns", "exit_code", "formula", "latex_float", "meta", "note", "rows", "summary", "title",
                 "units", "warnings")

    def __init__(self, columns: list[Column], rows: Sequence[dict[str, Any]], title: str = "", note: str = "",
                 formula: str | list[str] = "", units: dict[str, str] | None = None, warnings: list[str] | None = None,
                 meta: dict[str, Any] | None = None, summary: dict[str, Any] | None = None, exit_code: int = 0,
                 latex_float: bool = False) -> None:
        self.columns = columns
        self.rows = rows  # a list of dicts, or column-stored grid.Rows (a sweep)
        self.title, self.note, self.formula = title, note, formula
        self.units: dict[str, str] = {} if units is None else units  # overrides/additions to the columns' units
        self.warnings: list[str] = [] if warnings is None else warnings
        self.meta: dict[str, Any] = {} if meta is None else meta
        self.summary = summary
        self.exit_code = exit_code  # the process exit code after rendering (e.g. 1 when a verification failed)
        self.latex_float = latex_float  # LaTeX: a ``table`` float with \caption, \label (meta["label"]) and the note

    def replace(self, **changes: Any) -> Result:
        """A copy with ``changes`` (as `dataclasses.replace`)."""
        return Result(**{**{k: getattr(self, k) for k in self.__slots__}, **changes})

    def __repr__(self) -> str:
        return (f"Result(title={self.title!r}, columns={[c.key for c in self.columns]}, rows={len(self.rows)}, "
                f"formula={self.formula!r}, warnings={len(self.warnings)})")
