"""Per-client vectors and matrices from the command line: values and ranges (the syntax of
`parse_values`), a file of numbers, or inline rows ``a,b;c,d`` (files are read by
`dpcalc.files`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dpcalc.errors import DomainError
from dpcalc.report.grid import parse_values

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["parse_matrix", "parse_vector", "path_exists"]


def path_exists(text: str) -> bool:
    """``Path(text).exists()``, False for a name the OS refuses (too long, an embedded NUL) instead of OSError."""
    try:
        return Path(text).exists()
    except (OSError, ValueError, TypeError):  # name too long, embedded NUL, not a string: not an existing file
        return False


def _looks_like_path(text: str) -> bool:
    return os.sep in text or Path(text).suffix.lower() in (".csv", ".txt", ".tsv", ".dat", ".npy")


def parse_vector(option: str, text: str) -> list[float]:
    """A per-client vector: values/ranges as in `parse_values`, or the path of a file of numbers.

    Files are read by `dpcalc.files.read_vector` (text/CSV one row or column, or ``.npy``).
    """
    from dpcalc import files

    text = str(text)
    if path_exists(text):
        return [float(x) for x in files.read_vector(option, text)]
    try:
        return parse_values(option, text)
    except DomainError:
        if "," not in text and _looks_like_path(text):
            files.read_vector(option, text)  # raises the file's own one-line error (e.g. does not exist)
        raise


def parse_matrix(option: str, text: str) -> NDArray[np.float64]:
    """A matrix: a file (.npy or a text table, `dpcalc.files.read_matrix`) or inline rows separated by ';'
    (``1,0.3;0.3,0.5``; each row parsed as `parse_values`)."""
    from dpcalc import files

    text = str(text)
    if path_exists(text) or ("," not in text and ";" not in text):
        return files.read_matrix(option, text)
    rows = [parse_values(option, row) for row in text.split(";")]
    if len({len(r) for r in rows}) != 1:
        raise DomainError(f"{option}: the rows of {text!r} have different lengths {[len(r) for r in rows]}")
    return np.array(rows, dtype=np.float64)
