"""Large sweeps: 10^6 rows in every format, wall time and peak memory (issue 14: <= 5 s and <= 500 MB).

Run: ``python bench/bench_sweep.py`` (each format in a fresh ``dpcalc`` process; peak RSS from ``wait4``).
The sweep is ``dpcalc sigma --eps 0.001:1:0.001 --d 1:1000:1`` (1000 x 1000 = 10^6 rows, 6 columns), written
to stdout (a pipe to /dev/null) and to ``--output``; rows are column-stored (``grid.Rows``) and rendered in
chunks of 20,000, so memory stays flat.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARGS = ["sigma", "--eps", "0.001:1:0.001", "--d", "1:1000:1"]
FORMATS = ["table", "json", "csv", "markdown", "latex"]


def run(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of ``dpcalc *argv`` with stdout to /dev/null."""
    t0 = time.perf_counter()
    with open(os.devnull, "w") as null:
        proc = subprocess.Popen([sys.executable, "-m", "dpcalc.cli.main", *argv], stdout=null,
                                stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    print(f"dpcalc {' '.join(ARGS)}  (10^6 rows)")
    print(f"{'format':<10} {'stdout s':>9} {'peak MB':>8} {'--output s':>11} {'peak MB':>8} {'file MB':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in FORMATS:
            wall, peak, code = run([*ARGS, "-f", fmt])
            out = Path(tmp) / f"sweep.{fmt}"
            wall_o, peak_o, code_o = run([*ARGS, "-f", fmt, "-o", str(out)])
            size = out.stat().st_size / 1e6 if out.exists() else float("nan")
            flag = "" if code == code_o == 0 else f"  exit {code}/{code_o}"
            print(f"{fmt:<10} {wall:9.2f} {peak:8.0f} {wall_o:11.2f} {peak_o:8.0f} {size:8.1f}{flag}")


if __name__ == "__main__":
    main()
