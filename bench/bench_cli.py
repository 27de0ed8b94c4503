"""CLI start-up latency: median wall time of `dpcalc sigma --eps 5 --d 1000` over that of
`python -c "import typer, numpy"`, measured alternately in one run (target ratio <= 1.3; issue 2 §6).

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
import time
from pathlib import Path

# Like a regular install (pip compiles .pyc files at install time): let the children cache bytecode even if
# this shell sets PYTHONDONTWRITEBYTECODE, so neither side is timed compiling source.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(cmd: list[str], tty: bool = False) -> float:
    """Wall time of one run; with ``tty`` stdout is a pseudo-terminal (the rich table path a person sees)."""
    if tty:
        master, slave = pty.openpty()
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=slave, stderr=subprocess.DEVNULL, env=_ENV)
        elapsed = time.perf_counter() - t0
        os.close(slave)
        os.close(master)
        return elapsed
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_ENV)
    return time.perf_counter() - t0


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
    for _ in range(3):  # warm the file cache
        _time(ours), _time(base)
    t_ours, t_tty, t_base = [], [], []
    for _ in range(args.repeats):
        t_ours.append(_time(ours))
        t_base.append(_time(base))
        t_tty.append(_time(ours, tty=True))
    m_ours, m_tty, m_base = (statistics.median(t) for t in (t_ours, t_tty, t_base))
    print(f"dpcalc sigma --eps 5 --d 1000 (pipe): median {m_ours * 1e3:7.1f} ms")
    print(f"dpcalc sigma --eps 5 --d 1000 (tty) : median {m_tty * 1e3:7.1f} ms  (styled table)")
    print(f"python -c 'import typer, numpy'     : median {m_base * 1e3:7.1f} ms")
    print(f"ratio {m_ours / m_base:.3f} (target <= 1.3); on a terminal {m_tty / m_base:.3f}")


if __name__ == "__main__":
    main()
