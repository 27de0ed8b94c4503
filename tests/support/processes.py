"""Child processes of the tests, bounded by the CPU time they use and by a stall — never by wall time.

``subprocess.run(..., timeout=120)`` is a wall-clock limit: on a loaded machine a child that needs 10 s of CPU can
take minutes and be killed. `run` takes the same arguments as ``subprocess.run`` but, instead of ``timeout``,

* ``cpu_seconds``: the child runs under ``RLIMIT_CPU`` (set by a tiny exec wrapper, so the test process needs no
  ``preexec_fn``): past it the kernel ends the child (SIGXCPU) and `run` fails, naming the limit. Each process the
  child starts inherits the same limit;
* a stall: every `tests.support.call_limits.STALL_SECONDS` of wall time the child's session (the child and every
  process it started; read from ``/proc``) must have used `tests.support.call_limits.STALL_CPU` seconds of CPU,
  else it is killed and `run` fails — only a child that waits, not one that is slowed down, can trip it.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.support.call_limits import STALL_CPU, STALL_SECONDS

__all__ = ["run", "session_cpu"]

_WRAPPER = ("import os, resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_CPU, (n, n + 10)); "
            "os.execvp(sys.argv[2], sys.argv[2:])")


def session_cpu(sid: int) -> float | None:
    """CPU seconds (user + system, with reaped children's) of every process in session ``sid``; None without /proc."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        if int(fields[3]) == sid:  # state, ppid, pgrp, session, …, utime (11), stime, cutime, cstime (14)
            total += sum(int(x) for x in fields[11:15])
    return total / tick


def run(args: Sequence[str | os.PathLike[str]], *, cpu_seconds: float, check: bool = False,
        capture_output: bool = False, input: str | bytes | None = None, **kwargs: Any
        ) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(args, ...)`` with the child bounded by ``cpu_seconds`` of CPU and by a stall (module doc)."""
    argv = [sys.executable, "-c", _WRAPPER, str(math.ceil(cpu_seconds)), *(os.fspath(a) for a in args)]
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with subprocess.Popen(argv, start_new_session=True, **kwargs) as child:
        used = 0.0
        while True:
            try:
                out, err = child.communicate(input, timeout=STALL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                input = None  # already written
                now = session_cpu(child.pid)
                if now is not None and now - used < STALL_CPU:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.communicate()
                    raise AssertionError(f"{os.fspath(args[0])} stalled: {now - used:.3g} s of CPU in "
                                         f"{STALL_SECONDS:g} s (waiting, not computing)") from None
                used = now if now is not None else used
    code = child.returncode
    if code in (-signal.SIGXCPU, -signal.SIGKILL):  # the soft limit, or the hard one 10 s later (or another kill)
        raise AssertionError(f"{os.fspath(args[0])} ended by signal {-code}: over its {cpu_seconds:g} s of CPU time? "
                             f"(stderr: {err[-500:]!r})")
    done = subprocess.CompletedProcess(list(args), code, out, err)
    if check:
        done.check_returncode()
    return done
