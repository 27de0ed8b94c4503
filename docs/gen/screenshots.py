"""Screenshots of pages of a built site, for the record (maintainer tool, not run by the build or the tests):
``python docs/gen/screenshots.py SITE_DIR SUFFIX [NAME=PAGE[#anchor] ...]``.

Writes ``docs/design/evidence/<name>-<suffix>.png`` (a folder the site does not ship): headless Chromium in a
1280 × 1000 px window, reduced to a 256-colour palette. A page may end in ``#anchor``: the shot then starts at
that heading (headless Chromium draws a blank frame deep in a long page, so it shoots a copy of the page cut
there: the title, then the element that carries the id). Without pages: ``PAGES``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = {
    "tutorial": "tutorial.html#2-compare-accountants-at-the-chosen-z",
    "training": "training.html#dp-sgd-on-60000-examples",
    "events": "events.html#reading-dp-accountings-events",
    "nbafl": "nbafl.html#worked-example-the-optimal-number-of-rounds",
    "api": "reference/api/dpcalc.midp.html#dpcalc.midp.server_sigma",
}
OUT = Path(__file__).resolve().parent.parent / "design" / "evidence"
WIDTH, HEIGHT = 1280, 1000
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars")


def main(site: str, suffix: str, pages: dict[str, str] | None = None) -> None:
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium is not installed (Debian: apt-get install chromium)")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, page in (pages or PAGES).items():
            shot = Path(tmp) / f"{name}.png"
            path, _, fragment = page.partition("#")
            source = Path(site).resolve() / path
            if fragment:
                source = _cut_at(source, fragment, Path(tmp))
            subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp}/profile", f"--window-size={WIDTH},{HEIGHT}",
                            "--virtual-time-budget=5000", f"--screenshot={shot}", source.as_uri()],
                           check=True, capture_output=True, timeout=300)
            if source.name.startswith("_shot_"):
                source.unlink()
            target = OUT / f"{name}-{suffix}.png"
            Image.open(shot).convert("RGB").quantize(colors=256).save(target, optimize=True)
            print(f"wrote {target} ({target.stat().st_size} bytes)")


def _cut_at(page: Path, anchor: str, tmp: Path) -> Path:
    """A copy of ``page`` (beside it, so its relative links hold) whose content starts at ``anchor``: the page
    title, then the element that carries the id (a mkdocstrings object from its block, else the heading)."""
    html = page.read_text(encoding="utf-8")
    at = html.index(f'id="{anchor}"')
    title_end = html.index("</h1>") + len("</h1>")
    block = html.rfind('<div class="doc doc-object', title_end, at)
    start = block if block >= 0 and at - block < 2000 else html.rfind("<h", title_end, at)
    copy = page.with_name(f"_shot_{tmp.name}_{page.name}")
    copy.write_text(html[:title_end] + html[start:], encoding="utf-8")
    return copy


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    extra = dict(a.split("=", 1) for a in args[2:]) or None
    main(args[0], args[1], extra)
