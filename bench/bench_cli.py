"""CLI start-up latency: median wall time of ``dpcalc sigma --eps 5 --d 1000`` over that of
``python -c "import typer, numpy"``, measured alternately in one run (target ratio <= 1.3).

Two settings, both printed:

* ``source`` — Python compiles every dpcalc module it imports on each run (no bytecode cache: a checkout run with
  ``PYTHONDONTWRITEBYTECODE=1``, as the development shell here sets it). The code on the ``sigma`` path is the cost:
  keep it small (docs/conventions.md §7).
* ``cached`` — like a regular install (pip compiles ``.pyc`` files at install time): the children cache bytecode in
  a temporary ``PYTHONPYCACHEPREFIX``, so nothing is written into the source tree.

Run: python bench/bench_cli.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import os
import pty
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path


def _time(cmd: list[str], env: dict[str, str], tty: bool = False) -> float:
    """Wall time of one run; with ``tty`` stdout is a pseudo-terminal (the styled table a person sees)."""
    if tty:
        master, slave = pty.openpty()
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=slave, stderr=subprocess.DEVNULL, env=env)
        elapsed = time.perf_counter() - t0
        os.close(slave)
        os.close(master)
        return elapsed
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t0


def _measure(name: str, ours: list[str], base: list[str], env: dict[str, str], repeats: int) -> None:
    for _ in range(3):  # warm the file cache (and, cached, the bytecode)
        _time(ours, env), _time(base, env)
    t_ours, t_tty, t_base = [], [], []
    for _ in range(repeats):
        t_ours.append(_time(ours, env))
        t_base.append(_time(base, env))
        t_tty.append(_time(ours, env, tty=True))
    m_ours, m_tty, m_base = (statistics.median(t) for t in (t_ours, t_tty, t_base))
    print(f"[{name}] dpcalc sigma --eps 5 --d 1000 (pipe): median {m_ours * 1e3:7.1f} ms, on a terminal "
          f"{m_tty * 1e3:7.1f} ms; python -c 'import typer, numpy': {m_base * 1e3:7.1f} ms; "
          f"ratio {m_ours / m_base:.3f} (target <= 1.3), terminal {m_tty / m_base:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args()
    # The console script next to this interpreter (not a pyenv/asdf shim, whose own start-up would be timed).
    script = Path(sysconfig.get_path("scripts")) / "dpcalc"
    exe = str(script) if script.exists() else shutil.which("dpcalc")
    dpcalc = [exe] if exe else [sys.executable, "-m", "dpcalc.cli.main"]
    ours = [*dpcalc, "sigma", "--eps", "5", "--d", "1000"]
    base = [sys.executable, "-c", "import typer, numpy"]
    _measure("source", ours, base, {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, args.repeats)
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        _measure("cached", ours, base, {**env, "PYTHONPYCACHEPREFIX": cache}, args.repeats)


if __name__ == "__main__":
    main()
