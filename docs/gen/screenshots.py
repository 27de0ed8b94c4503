"""Screenshots of pages of a built site, for the record:
``python docs/gen/screenshots.py SITE_DIR [SUFFIX] [NAME=PAGE ...]``.

Writes small PNGs ``docs/img/<name><suffix>.png`` (headless Chromium, 1200×900 viewport, reduced to a 256-colour
palette). A page may end in ``#anchor`` (the shot then starts there). Without pages: the tutorial, the API
reference and the accounting page.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = {"tutorial": "tutorial.html", "api": "reference/api.html", "accounting": "accounting.html"}
OUT = Path(__file__).resolve().parent.parent / "img"


def main(site: str, suffix: str = "", pages: dict[str, str] | None = None) -> None:
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium is not installed (Debian: apt-get install chromium)")
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, page in (pages or PAGES).items():
            shot = Path(tmp) / f"{name}.png"
            path, _, fragment = page.partition("#")
            source = Path(site).resolve() / path
            if fragment:  # headless Chromium draws a blank frame deep in a long page: shoot a copy cut there
                source = _cut_at(source, fragment, Path(tmp))
            url = source.as_uri()
            subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1200,900", "--virtual-time-budget=5000", f"--screenshot={shot}", url],
                           check=True, capture_output=True, timeout=120)
            if source.name.startswith("_shot_"):
                source.unlink()
            target = OUT / f"{name}{suffix}.png"
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
    extra = dict(a.split("=", 1) for a in args[2:]) or None
    main(args[0] if args else "site", args[1] if len(args) > 1 else "", extra)
