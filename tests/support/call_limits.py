"""Per-call limits for the fuzz harnesses (``fuzz_cli``, ``fuzz_library``): CPU time, a stall, and optionally memory.

No wall-clock limit: a loaded machine stretches wall time, not the CPU time a call needs, so a limit on wall time
trips on a busy machine (``test_contract_holds[verify]`` hit its 60 s wall limit under ``pytest -n 2`` on a loaded
machine). The limits are

* CPU time: the process's user + system time (every thread, so BLAS threads count too), ``ITIMER_PROF`` →
  :class:`Slow` when the call has used ``cpu_seconds``;
* a stall: a call that sleeps (waits on a socket, a pipe, a lock) uses no CPU and would never meet the CPU limit
  (CPU here: the call's own and that of every process it started, `family_cpu_seconds`).
  Every `STALL_SECONDS` of wall time the call must have used at least `STALL_CPU` seconds of CPU, else
  :class:`Slow`. That is a share of 0.05 %: the scheduler gives a runnable process far more on any machine that
  still answers (at a load of 100 on 2 cores a process gets 2 %), so load cannot trip it — only sleeping can;
* optionally memory: an address-space limit of ``memory`` bytes above the current size (→ MemoryError).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["STALL_CPU", "STALL_SECONDS", "Slow", "cpu_seconds", "family_cpu_seconds", "limits"]

STALL_SECONDS = 120.0
"""Wall-time window of the stall check."""
STALL_CPU = 0.06
"""Least CPU time a call must use in each `STALL_SECONDS` window (0.05 % of it)."""


class Slow(BaseException):
    """A call used more than its CPU time, or stalled (a BaseException: the code under test cannot swallow it)."""


def cpu_seconds() -> float:
    """This process's CPU time so far (user + system, every thread)."""
    return time.process_time()


def family_cpu_seconds() -> float:
    """CPU time of this process and of every process it started (live descendants read from /proc, reaped ones from
    the kernel's accounting): a command that hands its work to a process pool waits while its children compute,
    and that is not a stall (``matrix compare --stream`` on a loaded machine: 0.03 s of the caller's CPU in 120 s
    while its pool worked)."""
    own = cpu_seconds() + sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])
    proc = Path("/proc")
    if not proc.is_dir():
        return own
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            pid = int(stat.parent.name)
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
        parent[pid] = int(fields[1])  # state, ppid, …, utime (11), stime, cutime, cstime (14)
        ticks[pid] = sum(int(x) for x in fields[11:15])
    me, total = os.getpid(), 0
    for pid in ticks:
        p, seen = parent.get(pid), 0
        while p is not None and p > 1 and p != me and seen < 64:  # walk up to this process (or the root)
            p, seen = parent.get(p), seen + 1
        if p == me and pid != me:
            total += ticks[pid]
    return own + total / os.sysconf("SC_CLK_TCK")


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


@contextlib.contextmanager
def limits(cpu: float, memory: int | None = None) -> Iterator[None]:
    """At most ``cpu`` seconds of CPU time and no stall for one call (module doc); with ``memory``, at most that
    many bytes of new address space."""
    last = [family_cpu_seconds()]

    def over_cpu(signum: int, frame: Any) -> None:
        raise Slow(f"more than {cpu:g} s of CPU time")

    def stalled(signum: int, frame: Any) -> None:
        now = family_cpu_seconds()
        if now - last[0] < STALL_CPU:
            raise Slow(f"stalled: {now - last[0]:.3g} s of CPU in {STALL_SECONDS:g} s (waiting, not computing)")
        last[0] = now

    old_prof, old_alarm = signal.signal(signal.SIGPROF, over_cpu), signal.signal(signal.SIGALRM, stalled)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if memory is not None:
        cap = _vm_bytes() + memory
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    signal.setitimer(signal.ITIMER_PROF, cpu)
    signal.setitimer(signal.ITIMER_REAL, STALL_SECONDS, STALL_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old_alarm)
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
