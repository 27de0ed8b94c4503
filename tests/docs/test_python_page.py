"""Every ``>>>`` example of the documentation (docs/python.md "Use it from Python", and any other page under docs/
that has one, found by walking the tree) runs and prints what the page shows (stdlib doctest).

Floats on the pages are rounded or formatted, so the comparison is exact text; ``...`` stands for a traceback's
middle. Warnings the examples do not catch would reach pytest's ``error`` filter and fail the example.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "\n>>> " in p.read_text(encoding="utf-8"))


def test_the_python_page_is_among_them() -> None:
    assert DOCS / "python.md" in PAGES and DOCS / "pld.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).as_posix() for p in PAGES])
def test_every_example_on_a_page_runs_as_shown(page: Path) -> None:
    result = doctest.testfile(str(page), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= (25 if page.name == "python.md" else 1)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page.name} differ (see above)"
