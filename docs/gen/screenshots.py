"""Screenshots of pages of a built site, for the record:
``python docs/gen/screenshots.py SITE_DIR [SUFFIX] [NAME=PAGE ...]``.

Writes small PNGs ``docs/img/<name><suffix>.png`` (headless Chromium, 1200×900 viewport, reduced to a 256-colour
palette). Without pages: the tutorial, the API reference and the PLD page.
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
            url = (Path(site).resolve() / page).as_uri()
            subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1200,900", "--virtual-time-budget=5000", f"--screenshot={shot}", url],
                           check=True, capture_output=True, timeout=120)
            target = OUT / f"{name}{suffix}.png"
            Image.open(shot).convert("RGB").quantize(colors=256).save(target, optimize=True)
            print(f"wrote {target} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    args = sys.argv[1:]
    extra = dict(a.split("=", 1) for a in args[2:]) or None
    main(args[0] if args else "site", args[1] if len(args) > 1 else "", extra)
