"""Best-effort control of the BLAS thread count of already-loaded OpenBLAS libraries (NumPy's and SciPy's).

Checks run single-threaded BLAS so that (a) results are bit-identical whether a check runs in-process or in a
worker process (threaded BLAS reductions sum in a different order) and (b) W worker processes do not oversubscribe
the cores. Without OpenBLAS (or off Linux) this is a no-op.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_SYMBOLS = (("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
            ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
            ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
            ("openblas_set_num_threads", "openblas_get_num_threads"))


def _controls() -> list[tuple[str, Any, Any]]:
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", fh.read())))
    except OSError:
        return []
    out = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in _SYMBOLS:
            if hasattr(lib, set_name) and hasattr(lib, get_name):
                out.append((path, getattr(lib, set_name), getattr(lib, get_name)))
                break
    return out


_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the block with every loaded OpenBLAS set to one thread (and the thread variables set to 1, so a BLAS
    first loaded inside the block, e.g. SciPy's, starts single-threaded); restore everything afterwards."""
    import os

    controls = _controls()
    known = {path for path, _, _ in controls}
    saved = []
    for _, set_fn, get_fn in controls:
        try:
            saved.append((set_fn, int(get_fn())))
            set_fn(1)
        except Exception:  # pragma: no cover - foreign library without the expected ABI
            continue
    saved_env = {k: os.environ.get(k) for k in _ENV}
    os.environ.update({k: "1" for k in _ENV})
    try:
        yield
    finally:
        for k, val in saved_env.items():
            if val is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = val
        for set_fn, n in saved:
            set_fn(n)
        if saved_env["OPENBLAS_NUM_THREADS"] is None:  # libraries first loaded inside: back to the default
            from dpcalc.sim.parallel import default_workers

            for path, set_fn, _ in _controls():
                if path not in known:
                    set_fn(default_workers())
