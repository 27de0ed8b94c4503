"""The documentation site: generated pages (fast, no MkDocs), ``mkdocs build --strict`` and a check of the built
pages in headless Chromium as a reader would see them (slow; each skips with its reason when a tool is missing)."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from dpcalc import catalog
from tests.support import processes

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "docs" / "gen" / "hooks.py"


def _hooks() -> Any:
    spec = importlib.util.spec_from_file_location("dpcalc_docs_hooks", HOOKS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mkdocs_missing = importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None
needs_docs_extra = pytest.mark.skipif(mkdocs_missing, reason="the 'docs' extra (mkdocs-material, mkdocstrings) "
                                                             "is not installed: pip install -e '.[docs]'")


@needs_docs_extra
def test_every_catalog_entry_has_its_section() -> None:
    hooks = _hooks()
    groups = hooks.papers()
    assert sum(len(fs) for fs in groups.values()) == len(catalog.load())
    for pid, fs in groups.items():
        page = hooks.paper_page(fs, [])
        for f in fs:
            assert f"## `{f.id}`" in page and f.latex in page, f.id
            if f.erratum is not None:
                assert '!!! danger "Erratum"' in page and hooks.prose(f.erratum.evidence) in page, f.id
            if f.examples:
                assert f"catalog.get({f.id!r}).call(" in page, f.id
        assert pid in hooks.papers_index(groups, {})


def test_catalog_prose_sets_exponents_and_subscripts_but_not_identifiers() -> None:
    prose = _hooks().prose
    assert prose("Var(X_i | X^{-i}), sigma_m^2, 2^{2eps}") == \
        "Var(X<sub>i</sub> \\| X<sup>-i</sup>), sigma<sub>m</sub><sup>2</sup>, 2<sup>2eps</sup>"
    assert prose("erratum gauss.case2_sigma2, midp.server_sigma, p_max, `a^b`") == \
        "erratum gauss.case2_sigma2, midp.server_sigma, p_max, `a^b`"


@needs_docs_extra
def test_cli_reference_lists_every_command() -> None:
    text = _hooks().cli_reference()
    for command in ("dpcalc sigma", "dpcalc table", "dpcalc plot preset", "dpcalc plot sweep", "dpcalc verify",
                    "dpcalc gauss case2"):
        assert f"## `{command}`" in text, command
    assert "-f, --format" in text and "[default: table]" in text


@needs_docs_extra
def test_a_new_family_appears_from_data_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new catalog file (and a preset for it) gives a paper page, a nav entry and its figure, no code edit."""
    from dpcalc.plot import spec as plot_spec

    hooks = _hooks()
    for src in catalog.catalog_dir().glob("*.toml"):
        shutil.copy(src, tmp_path / src.name)
    new = (catalog.catalog_dir() / "000_midp.toml").read_text(encoding="utf-8")
    new = new.replace('id = "000"', 'id = "099"', 1).replace('id = "midp.', 'id = "newfam.')
    (tmp_path / "099_newfam.toml").write_text(new, encoding="utf-8")
    presets = tmp_path / "presets"
    presets.mkdir()
    for src in plot_spec.PRESET_DIR.glob("*.toml"):
        shutil.copy(src, presets / src.name)
    (presets / "099_newfam.toml").write_text(
        '[[figure]]\nid = "099-fig1"\npaper = "099"\ntitle = "new"\nx = "eps"\nx_values = "1:3"\n'
        '[[figure.series]]\nformula = "newfam.server_sigma"\ninputs = { d = 10, C = 1, p_max = 1 }\nlabel = "l"\n',
        encoding="utf-8")
    import dpcalc.catalog as catalog_pkg

    raw = getattr(catalog_pkg, "raw", None)  # the catalog package reads files through catalog.raw.catalog_dir
    monkeypatch.setattr(raw if raw is not None else catalog, "catalog_dir", lambda: tmp_path)
    monkeypatch.setattr(catalog, "catalog_dir", lambda: tmp_path)
    monkeypatch.setattr(plot_spec, "PRESET_DIR", presets)

    def clear() -> None:
        for fn in (catalog.load, getattr(catalog, "find", None), getattr(raw, "fragment", None),
                   getattr(raw, "entry", None), plot_spec.presets):
            if fn is not None and hasattr(fn, "cache_clear"):
                fn.cache_clear()

    clear()
    try:
        groups = hooks.papers()
        assert "099" in groups and len(groups["099"]) == len(catalog.by_paper("000"))
        figures = [f for f in plot_spec.presets().values() if f.paper == "099"]
        page = hooks.paper_page(groups["099"], figures)
        assert "## `newfam.server_sigma`" in page and "(../figures/099-fig1.png)" in page
        config = {"nav": [{"Home": "index.md"}, {"Papers": "papers/index.md"}]}
        nav = hooks.on_config(config)["nav"][1]["Papers"]
        assert {"099 · He & He, IEEE Access 2023": "papers/099.md"} in nav
    finally:
        monkeypatch.undo()
        clear()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mkdocs build --strict`` of the real docs into a temporary directory (once per module)."""
    if mkdocs_missing:
        pytest.skip("the 'docs' extra (mkdocs-material, mkdocstrings) is not installed: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "DPCALC_DOCS_VERIFY_SAMPLES": "20000", "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = processes.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                         env=env, capture_output=True, text=True, cpu_seconds=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


@pytest.mark.slow
def test_mkdocs_build_strict(site: Path) -> None:
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    for page in ("index.html", "tutorial.html", "accuracy.html", "reference/cli.html", "reference/api.html",
                 "papers/index.html", "papers/000.html", "papers/001.html", "papers/002.html"):
        assert page in pages
    accuracy = (site / "accuracy.html").read_text(encoding="utf-8")
    assert "midp.server_sigma" in accuracy and "pass" in accuracy
    tutorial = re.sub(r"<[^>]+>", "", (site / "tutorial.html").read_text(encoding="utf-8"))
    assert "$ dpcalc calibrate --eps 3" in tutorial and "\\begin{table}" in tutorial  # real outputs, built now
    for fig in (site / "figures").glob("*.png"):
        assert fig.stat().st_size > 10_000


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


_FRAMES_PER_RUN = 20


def _browse(site: Path, harness: str, pages: list[str], origin: str) -> list[dict[str, Any]]:
    """Load ``pages`` in iframes of one headless Chromium window and return the harness's report of each."""
    import html as html_mod

    frames = "\n".join(f'<iframe src="{page}" width="1200" height="900"></iframe>' for page in pages)
    (site / "_check.html").write_text(harness.replace("__FRAMES__", frames), encoding="utf-8")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    proc = processes.run([str(browser), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--dump-dom", f"{origin}/_check.html"], capture_output=True, text=True, cpu_seconds=600)
    match = re.search(r'<pre id="out">(.*?)</pre>', proc.stdout, re.DOTALL)
    assert match and match.group(1) != "pending", proc.stdout[-2000:] + proc.stderr[-2000:]
    result: list[dict[str, Any]] = json.loads(html_mod.unescape(match.group(1)))
    return result


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="Chromium is not installed (Debian: apt-get install chromium); the built site was only "
                           "checked by mkdocs --strict")
def test_pages_in_headless_chromium(site: Path) -> None:
    """Every page as a reader sees it: not empty, formulas rendered (MathML, no raw TeX), images loaded,
    every internal link and anchor resolves."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if p.name not in ("404.html", "_check.html"))
    harness = (ROOT / "docs" / "gen" / "browser_check.html").read_text(encoding="utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    report: list[dict[str, Any]] = []
    try:
        # a few frames per browser run: with all 60 pages in one window headless Chromium sat idle without firing
        # the load event (200 s, 2 % CPU), while two halves of the same pages finished in 13 s and 16 s
        for start in range(0, len(pages), _FRAMES_PER_RUN):
            batch = pages[start:start + _FRAMES_PER_RUN]
            report += _browse(site, harness, batch, origin)
    finally:
        server.shutdown()
        server.server_close()
    ids = {r["url"]: set(r.get("ids", [])) for r in report}
    assert sorted(r["url"] for r in report) == pages
    for r in report:
        assert "error" not in r, r
        where = r["url"]
        assert r["chars"] > 200, f"{where}: empty page"
        assert not r["raw_math"], f"{where}: raw TeX visible: {r['raw_math']}"
        assert r["images"] == [] or all(img["ok"] for img in r["images"]), f"{where}: image failed: {r['images']}"
        assert all(w > 0 for w in r["math_width"]), f"{where}: a formula rendered with zero width"
        for link in r["links"]:
            target, _, frag = link[len(origin) + 1:].partition("#")
            target = target or "index.html"
            path = site / target
            assert path.is_file() or (path / "index.html").is_file(), f"{where}: broken link {link}"
            if frag and target in ids:
                assert frag in ids[target], f"{where}: missing anchor {link}"
    by_page = {r["url"]: r for r in report}
    assert by_page["papers/001.html"]["math"] > 30  # every formula of paper 001 (Zeng, Yang & Dai 2022)
    assert len(by_page["papers/001.html"]["images"]) >= 6  # its figure presets


_ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const|ref|term):(?=[`\w])")


@pytest.mark.slow
def test_no_raw_rest_in_the_built_site(site: Path) -> None:
    """The API reference renders: no raw Sphinx roles (``:func:`x```) and no reStructuredText tables anywhere."""
    for page in site.rglob("*.html"):
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        roles = _ROLE.findall(text)
        assert not roles, f"{page.relative_to(site)}: {len(roles)} raw roles, e.g. {roles[:3]}"
        assert not re.search(r"^\s*={4,}(\s+={4,})+\s*$", text, re.M), f"{page.relative_to(site)}: a reST table"


@pytest.mark.slow
def test_external_links_and_offline_search(site: Path) -> None:
    """arXiv ids link to arxiv.org and DOIs to doi.org; search works from file:// (Material's offline plugin with
    the vendored Web Worker shim: no page loads a script from the network)."""
    for page in site.rglob("*.html"):
        html_text = page.read_text(encoding="utf-8")
        assert "doi.org/arXiv" not in html_text and "doi.org/arxiv" not in html_text, page
        assert "unpkg.com" not in html_text, f"{page.relative_to(site)} loads a script from the network"
    assert (site / "search" / "search_index.js").is_file() and (site / "js" / "iframe-worker-shim.js").is_file()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="Chromium is not installed (Debian: apt-get install chromium); offline search was only "
                           "checked by its files")
def test_search_answers_from_file_url(site: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    url = (site / "index.html").as_uri() + "?q=accountant"
    proc = processes.run([str(browser), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
                          "--dump-dom", url], capture_output=True, text=True, cpu_seconds=600)
    match = re.search(r'md-search-result__meta">(\d+) matching document', proc.stdout)
    assert match and int(match.group(1)) > 3, proc.stdout[-1500:]


def test_every_page_is_in_the_navigation() -> None:
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)

    def walk(item: Any) -> list[str]:
        if isinstance(item, str):
            return [item]
        if isinstance(item, dict):
            return [p for v in item.values() for p in walk(v)]
        if isinstance(item, list):
            return [p for v in item for p in walk(v)]
        return []

    in_nav = set(walk(config["nav"]))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")
             if p.relative_to(ROOT / "docs").parts[0] not in ("gen", "examples")}
    assert not pages - in_nav, f"pages missing from the nav in mkdocs.yml: {sorted(pages - in_nav)}"
