"""Large sweeps: 10^6 rows in every format, wall time and peak memory (targets: <= 5 s and <= 500 MB).

Run: ``python bench/bench_sweep.py [--repeat N] [--formats csv,json] [--sweep gauss]`` — each run is a fresh
``dpcalc`` process (start-up, the computation, the check for NaN/inf and the rendering); wall time is the best
of ``--repeat`` runs, peak RSS (from ``wait4``) the largest; the 1-minute load average is printed with every
line, since the machine is shared (numbers taken under load are inflated; compare ratios taken together).

Sweeps: ``sigma`` (default) is ``dpcalc sigma --eps 0.001:1:0.001 --d 1:1000:1`` (1000 x 1000 = 10^6 rows, 5
columns); ``gauss`` is ``dpcalc gauss case2 --eps 0.001:1:0.001 --n 2:1001:1 --var 2 --cov 1.8`` (10^6 rows,
7 columns, a text column). Written to stdout (a pipe to /dev/null) and to ``--output``.

Quiet machine, 2026-11-23 20:13 UTC (load 1.4-2.0), main 733b663, --repeat 1, seconds stdout / --output, peak MB:
sigma: table 1.85/1.45 (154), json 1.89/2.64 (140), csv 2.10/2.16 (114), markdown 1.51/1.37 (116), latex 1.52/1.19
(125); gauss: table 3.69/3.85 (202), json 3.63/3.14 (180), csv 2.33/3.76 (143), markdown 2.11/2.63 (141), latex
2.19/1.99 (154).

How: rows are column-stored (``grid.Rows``); each chunk of 65,536 rows is formatted a column at a time
(``report/cells.py``: a grid input's distinct values are formatted once, integers through int64, LaTeX exponents
by one regular expression) and joined into one string without per-row Python; the table keeps its number cells
between its two passes (widths, then lines). Only the outputs (``float.__repr__``: ~0.8 µs a value for 17-digit
shortest round-trip; ``format(x, ".10g")``: ~0.5 µs) cost per cell.

Measured 2026-11-23 on the shared 2-core machine (s = wall seconds, MB = peak RSS; stdout / --output), before
(main 55baa4a, the per-row renderers) and after, run back to back (``cd /tmp`` first: ``python -m`` puts the
current directory ahead of PYTHONPATH). The machine was NOT quiet (1-minute load 8-15 from parallel test
suites), so absolute times are inflated ~3x; a quiet rerun is the lead's:

    sigma sweep (10^6 rows, 5 columns)
                 before (load 9.2-12.3)             after (load 9.0-9.2)
    format     stdout s   MB  --output s   MB    stdout s   MB  --output s   MB
    table        19.00    93     15.44     96      3.46   143      3.70   153
    json          9.90    97      9.27    103      3.51   123      3.82   139
    csv           7.40    82      6.59     83      3.45   111      2.66   114
    markdown      4.78    89      4.88     89      1.86   112      1.97   116
    latex         7.63    92      5.88     93      2.45   121      2.91   127

    gauss sweep (10^6 rows, 7 columns incl. a text column; before: a dict per row)
                 before (load 8.2-9.1)              after (load 8.3-8.8)
    table           —      —         —      —      6.30   188      6.18   203
    json         22.69   548     24.44    548      7.59   151      6.22   180
    csv          21.75   533     17.92    533      5.54   135      6.07   143
    markdown        —      —         —      —      3.53   136      3.46   140
    latex           —      —         —      —      5.22   140      4.61   154

In process at load ~3.5 (17:42, ``iter_render`` only, sigma sweep): table 12.2 → 1.3 s, json 9.1 → 1.8 s,
csv 5.5 → 1.9 s, markdown 3.8 → 1.3 s, latex 4.3 → 1.5 s. The gauss sweep costs more per row only for its two
17-digit output columns (2 x 10^6 ``repr`` calls). Earlier measurements (22-48 s and 1-1.8 GB, later 35-149 s)
were of the row-dict renderers under heavy load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SWEEPS = {
    "sigma": ["sigma", "--eps", "0.001:1:0.001", "--d", "1:1000:1"],
    "gauss": ["gauss", "case2", "--eps", "0.001:1:0.001", "--n", "2:1001:1", "--var", "2", "--cov", "1.8"],
}
FORMATS = ["table", "json", "csv", "markdown", "latex"]


def run(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of ``dpcalc *argv`` with stdout to /dev/null."""
    t0 = time.perf_counter()
    with open(os.devnull, "w") as null:
        proc = subprocess.Popen([sys.executable, "-m", "dpcalc.cli.main", *argv], stdout=null,
                                stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def best(argv: list[str], repeat: int) -> tuple[float, float, int]:
    """Smallest wall time, largest peak RSS, and the first non-zero exit code of ``repeat`` runs."""
    runs = [run(argv) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs), next((r[2] for r in runs if r[2]), 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (best wall time)")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--sweep", choices=sorted(SWEEPS), default="sigma")
    args = parser.parse_args()
    sweep = SWEEPS[args.sweep]
    print(f"dpcalc {' '.join(sweep)}  (10^6 rows); uptime: {os.popen('uptime').read().strip()}")
    print(f"{'format':<10} {'stdout s':>9} {'peak MB':>8} {'--output s':>11} {'peak MB':>8} {'file MB':>8} "
          f"{'load':>5}")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in args.formats.split(","):
            load = os.getloadavg()[0]
            wall, peak, code = best([*sweep, "-f", fmt], args.repeat)
            out = Path(tmp) / f"sweep.{fmt}"
            wall_o, peak_o, code_o = best([*sweep, "-f", fmt, "-o", str(out), "--force"], args.repeat)
            size = out.stat().st_size / 1e6 if out.exists() else float("nan")
            flag = "" if code == code_o == 0 else f"  exit {code}/{code_o}"
            print(f"{fmt:<10} {wall:9.2f} {peak:8.0f} {wall_o:11.2f} {peak_o:8.0f} {size:8.1f} {load:5.2f}{flag}")


if __name__ == "__main__":
    main()
