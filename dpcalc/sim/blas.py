"""Single-threaded BLAS for a block of code, through ``threadpoolctl`` (NumPy's and SciPy's OpenBLAS, MKL, …).

Checks run single-threaded BLAS so that (a) results are bit-identical whether a check runs in-process or in a
worker process (threaded BLAS reductions sum in a different order) and (b) W worker processes do not oversubscribe
the cores. ``threadpoolctl`` finds every loaded BLAS by its symbols and restores the previous counts on exit
(it replaced 76 lines of ctypes probing of ``/proc/self/maps`` here); SciPy's BLAS is loaded first so the
limit covers it too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["single_threaded_blas"]


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with every BLAS library (NumPy's and SciPy's) limited to one thread; restore afterwards."""
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, so that the limit applies to it as well)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
