"""Per-call limits for the fuzz harnesses (``fuzz_cli``, ``fuzz_library``): wall time and, optionally, memory."""

from __future__ import annotations

import contextlib
import resource
import signal
from collections.abc import Iterator
from typing import Any


class Slow(BaseException):
    """A call ran longer than its time limit (a BaseException: the code under test cannot swallow it)."""


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


@contextlib.contextmanager
def limits(seconds: float, memory: int | None = None) -> Iterator[None]:
    """A wall-time limit (SIGALRM → :class:`Slow`) and, if ``memory`` is given, an address-space limit of that many
    bytes above the current size (→ MemoryError) for one call."""
    def handler(signum: int, frame: Any) -> None:
        raise Slow(f"more than {seconds:g} s")

    old_handler = signal.signal(signal.SIGALRM, handler)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if memory is not None:
        cap = _vm_bytes() + memory
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
