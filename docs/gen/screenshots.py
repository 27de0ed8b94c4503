"""Screenshots of three pages of a built site, for the record: ``python docs/gen/screenshots.py SITE_DIR``.

Writes small PNGs to ``docs/img/`` (headless Chromium, 1200×900 viewport, reduced to a 256-colour palette).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = {"index": "index.html", "paper-001": "papers/001.html", "tutorial": "tutorial.html"}
OUT = Path(__file__).resolve().parent.parent / "img"


def main(site: str) -> None:
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium is not installed (Debian: apt-get install chromium)")
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, page in PAGES.items():
            shot = Path(tmp) / f"{name}.png"
            url = (Path(site).resolve() / page).as_uri()
            subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1200,900", "--virtual-time-budget=5000", f"--screenshot={shot}", url],
                           check=True, capture_output=True, timeout=120)
            image = Image.open(shot).convert("RGB")
            image.quantize(colors=256).save(OUT / f"{name}.png", optimize=True)
            print(f"wrote {OUT / f'{name}.png'} ({(OUT / f'{name}.png').stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "site")
