"""Every example of docs/python.md ("Use it from Python") runs and prints what the page shows (stdlib doctest).

Floats on the page are rounded or formatted, so the comparison is exact text; ``...`` stands for a traceback's
middle. Warnings the examples do not catch would reach pytest's ``error`` filter and fail the example.
"""

from __future__ import annotations

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_every_example_on_the_python_page_runs_as_shown() -> None:
    result = doctest.testfile(str(PAGE), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 25
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {PAGE.name} differ (see above)"
