"""Strategy matrices C of the matrix mechanism (the release is B(Cx + z), z Gaussian; Denisov et al. 2022).

* `tree_matrix` — binary-tree aggregation (DP-FTRL; Kairouz et al. 2021): one row per completed dyadic interval
  [j·2^h, (j + 1)·2^h) ⊆ [0, n) (the nodes an online tree has released by step n), with restarts every ``restart``
  steps (a forest of trees, one per epoch).
* `banded_toeplitz` — lower-triangular Toeplitz with ``len(coefficients)`` bands (Choquette-Choo et al. 2023,
  NeurIPS); `sqrt_prefix_coefficients` gives the bands of the square root of the prefix-sum matrix
  (coefficients C(2j, j)/4^j), a common choice.
* `load_strategy` — any square lower-triangular matrix from a file (.npy, or a text table).
* `check_strategy` — a finite, square, lower-triangular matrix (C is causal: step t's row uses steps ≤ t).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["MAX_STEPS", "banded_toeplitz", "bands_of", "check_strategy", "load_strategy", "sqrt_prefix_coefficients",
           "tree_depth", "tree_matrix"]

#: The largest number of steps a dense strategy matrix is built for (n² float64 = 200 MB at 5,000).
MAX_STEPS = 5000


def _steps(n: int) -> int:
    steps = int(v.scalar("steps", v.integer_at_least("steps", n, 1)))
    if steps > MAX_STEPS:
        raise DomainError(f"steps must be <= {MAX_STEPS} for a dense strategy matrix (got {steps})")
    return steps


def tree_depth(steps: int) -> int:
    """⌊log₂ n⌋ + 1: the most completed dyadic nodes any leaf of a tree over n steps lies in.

    Examples:
        >>> from dpcalc.matrix import tree_depth
        >>> tree_depth(1600), tree_depth(8), tree_depth(7)
        (11, 4, 3)
    """
    n = int(v.scalar("steps", v.integer_at_least("steps", steps, 1)))
    return n.bit_length()


def _tree_rows(n: int) -> list[tuple[int, int]]:
    rows = []
    width = 1
    while width <= n:
        for start in range(0, (n // width) * width, width):
            rows.append((start, start + width))
        width *= 2
    return rows


def tree_matrix(steps: int, restart: int | None = None) -> v.FloatArray:
    """The 0/1 tree-aggregation strategy over ``steps`` steps (rows: completed dyadic intervals; columns: steps),
    restarted every ``restart`` steps (None: one tree).

    Examples:
        >>> from dpcalc.matrix import tree_matrix
        >>> tree_matrix(3).astype(int).tolist()
        [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]]
    """
    n = _steps(steps)
    size = n if restart is None else int(v.scalar("restart", v.integer_at_least("restart", restart, 1)))
    spans = [(start + lo, start + hi) for start in range(0, n, size) for lo, hi in _tree_rows(min(size, n - start))]
    out = np.zeros((len(spans), n))  # filled in place: a list of rows copied into an array took twice the memory
    for i, (lo, hi) in enumerate(spans):
        out[i, lo:hi] = 1.0
    return out


@v.named_shapes
def sqrt_prefix_coefficients(bands: int) -> v.FloatArray:
    """The first ``bands`` coefficients C(2j, j)/4^j of the square root of the lower-triangular all-ones
    (prefix-sum) matrix: (1 − x)^{−1/2} = Σ_j C(2j, j)/4^j xʲ.

    Examples:
        >>> from dpcalc.matrix import sqrt_prefix_coefficients
        >>> sqrt_prefix_coefficients(4).tolist()
        [1.0, 0.5, 0.375, 0.3125]
    """
    b = int(v.scalar("bands", v.integer_at_least("bands", bands, 1)))
    if b > MAX_STEPS:  # a band beyond the longest strategy is never used (a 3e8-band loop ran for minutes)
        raise DomainError(f"bands must be <= {MAX_STEPS}, the most steps of a strategy (got {b})")
    j = np.arange(1, b, dtype=np.float64)
    return np.concatenate([[1.0], np.cumprod((2.0 * j - 1.0) / (2.0 * j))])


def banded_toeplitz(coefficients: ArrayLike, steps: int) -> v.FloatArray:
    """The n × n lower-triangular Toeplitz matrix with first column ``coefficients`` (zero below its last band).

    Examples:
        >>> from dpcalc.matrix import banded_toeplitz
        >>> banded_toeplitz([1.0, 0.5], 3).tolist()
        [[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.5, 1.0]]
    """
    c = v.vector("coefficients", coefficients)
    n = _steps(steps)
    out = np.zeros((n, n))
    for j, value in enumerate(c[:n]):
        idx = np.arange(n - j)
        out[idx + j, idx] = value
    return out


def check_strategy(matrix: ArrayLike, name: str = "matrix") -> v.FloatArray:
    """A finite, square, lower-triangular strategy matrix (a one-line `DomainError` naming ``name`` otherwise).

    Examples:
        >>> from dpcalc.matrix import check_strategy
        >>> check_strategy([[1, 1], [0, 1]])
        Traceback (most recent call last):
        ...
        dpcalc.errors.DomainError: matrix must be lower-triangular: entry (1, 2) = 1 is above the diagonal
    """
    c = v.as_array(name, matrix)
    if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] == 0:
        raise DomainError(f"{name} must be a square n × n matrix (got shape {c.shape})")
    if c.shape[0] > MAX_STEPS:
        raise DomainError(f"{name} must have at most {MAX_STEPS} steps (got {c.shape[0]})")
    upper = np.triu(c, 1)
    if np.any(upper != 0.0):
        i, j = (int(x) for x in np.argwhere(upper != 0.0)[0])
        raise DomainError(f"{name} must be lower-triangular: entry ({i + 1}, {j + 1}) = {c[i, j]:g} is above "
                          "the diagonal")
    return c


def bands_of(matrix: ArrayLike) -> int:
    """The number of bands b of a lower-triangular matrix: C[i, j] = 0 whenever i − j >= b.

    Examples:
        >>> from dpcalc.matrix import bands_of, banded_toeplitz
        >>> bands_of(banded_toeplitz([1.0, 0.5, 0.25], 10))
        3
    """
    c = check_strategy(matrix)
    nz = np.argwhere(c != 0.0)
    return 0 if nz.size == 0 else int(np.max(nz[:, 0] - nz[:, 1])) + 1


def load_strategy(path: str | Path, name: str = "path") -> v.FloatArray:
    """A strategy matrix from a file: ``.npy``, or a text table (`dpcalc.files.read_matrix`); checked square and
    lower-triangular (errors name ``name``, the option or parameter that gave the file, and the file).

    Examples:
        >>> from dpcalc.matrix import load_strategy
        >>> import tempfile, pathlib
        >>> f = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
        >>> _ = f.write_text("1 0\\n0.5 1\\n")
        >>> load_strategy(f).tolist()
        [[1.0, 0.0], [0.5, 1.0]]
    """
    from dpcalc.files import read_matrix

    data = read_matrix(name, path)  # the one reader: missing, unreadable, complex or ragged files named in one line
    try:
        return check_strategy(data, name)
    except DomainError as exc:
        raise DomainError(f"{exc} (in {Path(path).name})") from None
