"""The public type aliases of dpcalc's signatures.

Every vectorised function takes `ArrayLike` inputs (a number, a list, a NumPy array; broadcast against each other)
and returns a `FloatOrArray`: a Python ``float`` when every input is a scalar, else a `FloatArray` of the broadcast
shape.

``dpcalc._validate.FloatArray``, the name used before, is the same object and stays importable.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ArrayLike", "FloatArray", "FloatOrArray"]

FloatArray: TypeAlias = NDArray[np.float64]
"""A NumPy array of float64: what a vectorised function returns for array input."""

FloatOrArray: TypeAlias = float | NDArray[np.float64]
"""A ``float`` for scalar input, else a `FloatArray` of the inputs' broadcast shape."""
