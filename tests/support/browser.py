"""The built documentation site as a reader's browser shows it: every page in headless Chromium, in batches.

``pages_report(site)`` serves ``site`` on 127.0.0.1, loads its pages ``BATCH`` at a time as 1280 px wide iframes of
the harness ``docs/gen/browser_check.html`` and returns the harness's report of each page (rendered text, math,
images, links, raw TeX, swallowed ``*``, tables wider than the content column, words split mid-word in a cell).

The work is bounded, not the wall time: each browser run gets a virtual-time budget (Chromium's clock advances
only while the page is idle, so a loaded machine takes longer without failing), a batch holds at most ``BATCH``
pages (with all 60 pages in one window headless Chromium once sat idle without firing the load event), `CONCURRENT`
runs go side by side, and a page still loading when the budget is spent is retried once on its own. No wall-clock
limit: each browser run is bounded by its CPU time and a stall (`tests.support.processes.run`).

Run by hand: ``python -m tests.support.browser SITE_DIR`` prints each page with a finding and the time taken.
"""

from __future__ import annotations

import concurrent.futures
import functools
import html
import http.server
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.support import processes

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "docs" / "gen" / "browser_check.html"
BATCH = 12
#: browser runs at a time: a run waits far more than it computes (a batch of 12 pages: about 10 s of wall time for
#: 2 s of CPU), so three side by side take about the time of one
CONCURRENT = 3
WIDTH = 1280
VIRTUAL_MS = 60_000
CPU_S = 900  # CPU seconds of one browser run (a batch takes 5-20 s)
#: ``--single-process``: one process renders (the same Blink layout; a one-page run took 1.0 s instead of 2.1 s)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--single-process")

#: Findings of the harness that fail a page, with the message shown for each.
FINDINGS = {"raw_math": "raw TeX or Markdown visible", "stars": "'*' swallowed as emphasis",
            "wide_tables": "table wider than the content column", "split_words": "word split mid-word in a cell"}


def browser() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def site_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if p.name != "404.html" and not p.name.startswith("_check"))


def _run(site: Path, pages: list[str], origin: str, tag: str) -> list[dict[str, Any]]:
    frames = "\n".join(f'<iframe src="{p}" width="{WIDTH}" height="900"></iframe>' for p in pages)
    name = f"_check_{tag}.html"
    (site / name).write_text(HARNESS.read_text(encoding="utf-8").replace("__FRAMES__", frames), encoding="utf-8")
    exe = browser()
    assert exe is not None, "Chromium is not installed"
    with tempfile.TemporaryDirectory() as profile:
        try:
            proc = processes.run([exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH + 40},1000",
                                  f"--virtual-time-budget={VIRTUAL_MS}", "--dump-dom", f"{origin}/{name}"],
                                 capture_output=True, text=True, cpu_seconds=CPU_S)
        except AssertionError as exc:  # a browser that sat idle (the stall rule): its pages are retried like pending
            if "stalled" not in str(exc):
                raise
            (site / name).unlink()
            return [{"url": p, "pending": True} for p in pages]
    (site / name).unlink()
    match = re.search(r'<pre id="out">(.*?)</pre>', proc.stdout, re.DOTALL)
    if not match or match.group(1) == "pending":  # the window's load event never came: every frame is pending
        return [{"url": p, "pending": True} for p in pages]
    result: list[dict[str, Any]] = json.loads(html.unescape(match.group(1)))
    return result


def pages_report(site: Path, pages: list[str] | None = None) -> list[dict[str, Any]]:
    """The harness's report of each page (``pages``: all of the site), in the order given."""
    pages = site_pages(site) if pages is None else pages
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    report: dict[str, dict[str, Any]] = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(CONCURRENT) as pool:
            runs = [pool.submit(_run, site, pages[k:k + BATCH], origin, str(k)) for k in range(0, len(pages), BATCH)]
            for run in runs:
                for r in run.result():
                    report[r["url"]] = r
        for url in [u for u, r in report.items() if r.get("pending")]:
            report[url] = _run(site, [url], origin, "retry")[0]
    finally:
        server.shutdown()
        server.server_close()
    for r in report.values():
        r["origin"] = origin
    return [report[p] for p in pages]


def problems(r: dict[str, Any]) -> list[str]:
    """What a reader would see wrong on one page, one line each."""
    if r.get("pending") or "error" in r:
        return [f"did not load: {r.get('error', 'still loading after the virtual-time budget')}"]
    return [f"{msg}: {r[key]}" for key, msg in FINDINGS.items() if r.get(key)]


def main(site: str) -> None:
    start = time.perf_counter()
    report = pages_report(Path(site))
    seconds = time.perf_counter() - start
    bad = 0
    for r in report:
        found = problems(r)
        bad += bool(found)
        for line in found:
            print(f"{r['url']}: {line}")
    print(f"{len(report)} pages in {seconds:.0f} s ({BATCH} a batch); {bad} with a finding")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "site")
