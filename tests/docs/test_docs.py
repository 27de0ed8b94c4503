"""The documentation site: generated pages (fast, no MkDocs), ``mkdocs build --strict`` and a check of the built
pages in headless Chromium as a reader would see them (slow; each skips with its reason when a tool is missing)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from dpcalc import catalog
from tests.support import browser, processes

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
    """Catalog prose reaches a page as inline HTML Markdown leaves alone: ``*`` and ``|`` of a formula stay
    characters (entities), exponents and subscripts are set, identifiers and code keep their underscores."""
    prose = _hooks().prose
    assert prose("Var(X_i | X^{-i}), sigma_m^2, 2^{2eps}") == \
        "Var(X<sub>i</sub> &#124; X<sup>-i</sup>), sigma<sub>m</sub><sup>2</sup>, 2<sup>2eps</sup>"
    assert prose("erratum gauss.case2_sigma2, p_max, `a^b|c`") == \
        "erratum gauss.case2&#95;sigma2, p&#95;max, <code>a^b&#124;c</code>"
    assert prose("mu = q*sqrt(T*(exp(1/sigma^2) - 1)), 1/mu + rho*B/mu") == \
        "mu = q&#42;sqrt(T&#42;(exp(1/sigma<sup>2</sup>) - 1)), 1/mu + rho&#42;B/mu"


def _render() -> Any:
    _hooks()  # puts docs/gen on sys.path
    import render

    return render


def test_command_output_tables_render_as_tables() -> None:
    """A terminal box table or ``--format markdown`` output inside a console block becomes a table under its
    command line; other commands stay in the console block."""
    render = _render()
    block = "\n".join(["```console", "$ cat x.toml", "a = 1", "$ dpcalc account -z 1 --q 0.01 --steps 10",
                       "Privacy loss", "┏━━━━━━┳━━━━━━━━━━━┓", "┃ z    ┃  ε (nats) ┃", "┃ (nm) ┃           ┃",
                       "┡━━━━━━╇━━━━━━━━━━━┩", "│ rdp  │     0.5*2 │", "└──────┴───────────┘", "bound: upper",
                       "$ dpcalc gdp eps -f markdown", "| a | b |", "|---:|---:|", "| q*sqrt(T) | 2 |",
                       "", "> warning: rho*B/mu", "```"])
    out = render.console_blocks(block)
    assert out.count("```console") == 3 and "$ cat x.toml\na = 1\n" in out
    assert '<p class="cli-title">Privacy loss</p>' in out
    assert "| z (nm) | ε (nats) |\n|---|---:|\n| rdp | 0.5&#42;2 |" in out and "bound: upper" in out
    assert "| q&#42;sqrt(T) | 2 |" in out and "> warning: rho&#42;B/mu" in out


def test_prose_markdown_fixes() -> None:
    """A list right after a paragraph line starts a list; a '*' glued to a word (T*, q*sqrt) is a character while
    *emphasis* stays; plain-text TeX exponents render as sup/sub outside code; long identifiers in cells get break
    points that never split a word or a number."""
    render = _render()
    assert render.loose_lists("Options:\n- a\n- b\n") == "Options:\n\n- a\n- b\n"
    assert render.literal_stars("T*/K*, *up*, `a*b`") == "T\\*/K\\*, *up*, `a*b`"
    assert render.html_text("<p>e^{(α−1)ε} P_{K≤k₀}(S) <code>x^{2}</code></p>") == \
        "<p>e<sup>(α−1)ε</sup> P<sub>K≤k₀</sub>(S) <code>x^{2}</code></p>"
    assert render.html_text("<td>OutOfDomainWarning dpcalc.accounting 0.004266666667 1e-05</td>") == \
        ('<td>Out<wbr>Of<wbr>Domain<wbr>Warning dpcalc.<wbr>accounting 0.004266666667 '
         '<span class="nobreak">1e-05</span></td>')


def test_api_reference_documents_each_object_once() -> None:
    """One page per public module; each exported object on exactly one page, the shallowest module exporting it."""
    _hooks()
    import api

    names = api.public_modules()
    assert "dpcalc.midp" in names and "dpcalc.typing" in names and not any(".cli" in n or "._" in n for n in names)
    where = api.homes(names)
    assert where["dpcalc.nbafl.optimal"]["optimal_t"] == "dpcalc.nbafl"
    pages = api.pages()
    assert set(pages) == {f"reference/api/{n}.md" for n in names} | {"reference/api/index.md"}
    assert "members: [" in pages["reference/api/dpcalc.nbafl.md"]
    assert "[`optimal_t`][dpcalc.nbafl.optimal_t]" in pages["reference/api/dpcalc.nbafl.optimal.md"]


@needs_docs_extra
def test_cli_reference_lists_every_command() -> None:
    text = _hooks().cli_reference()
    for command in ("dpcalc sigma", "dpcalc table", "dpcalc plot preset", "dpcalc plot sweep", "dpcalc verify",
                    "dpcalc gauss case2"):
        assert f"## `{command}`" in text, command
    assert "-f, --format" in text and "&#91;default: table&#93;" in text  # brackets as entities: never a link


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
        assert "](099.md)" in hooks.papers_index(groups, {})  # the overview links it
        config = {"nav": [{"Home": "index.md"}, {"Papers": "papers/index.md"}]}
        nav = hooks.on_config(config)["nav"][1]["Papers"]
        # a numbered paper is in the sidebar once, as its family's guide page: the catalog's list has references only
        assert not any("099" in str(entry) or "000" in str(entry) for entry in nav) and len(nav) > 10
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
    for page in ("index.html", "tutorial.html", "accuracy.html", "reference/cli.html", "reference/api/index.html",
                 "reference/api/dpcalc.midp.html", "reference/api/dpcalc.typing.html",
                 "papers/index.html", "papers/000.html", "papers/001.html", "papers/002.html"):
        assert page in pages
    assert not (site / "design" / "evidence").exists()  # the screenshots of the design notes: not shipped
    assert (site / "img" / "samplers-eps-vs-epochs.png").exists()  # a figure a page shows is
    accuracy = re.sub(r"<[^>]+>", "", (site / "accuracy.html").read_text(encoding="utf-8"))  # cells hold <wbr>
    assert "midp.server_sigma" in accuracy and "pass" in accuracy
    tutorial = re.sub(r"<[^>]+>", "", (site / "tutorial.html").read_text(encoding="utf-8"))
    assert "$ dpcalc calibrate --eps 3" in tutorial and "\\begin{table}" in tutorial  # real outputs, built now
    for fig in (site / "figures").glob("*.png"):
        assert fig.stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.skipif(browser.browser() is None,
                    reason="Chromium is not installed (Debian: apt-get install chromium); the built site was only "
                           "checked by mkdocs --strict")
def test_pages_in_headless_chromium(site: Path) -> None:
    """Every page as a reader sees it in a 1280 px window (`tests.support.browser`, a batch of pages a browser run):
    not empty; formulas rendered (MathML) and no raw TeX (``^{``, ``_{``, ``\\frac`` …) or ``\\|`` outside math
    and code blocks; no ``*`` swallowed as emphasis (an ``<em>`` glued to the letters around it); no table wider than
    the content column; no word split mid-word in a table cell; images loaded; every internal link and anchor
    resolves."""
    pages = browser.site_pages(site)
    report = browser.pages_report(site, pages)
    assert [r["url"] for r in report] == pages
    problems = {r["url"]: found for r in report if (found := browser.problems(r))}
    assert not problems, "\n".join(f"{url}: {line}" for url, lines in problems.items() for line in lines)
    ids = {r["url"]: set(r.get("ids", [])) for r in report}
    for r in report:
        where, origin = r["url"], r["origin"]
        assert r["chars"] > 200, f"{where}: empty page"
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


#: modules of the accounting core whose signatures still spell the private alias (``v.FloatArray``)
_CORE = ("dpcalc.accounting.events", "dpcalc.accounting.accountants", "dpcalc.accounting.training",
         "dpcalc.accounting.knobs", "dpcalc.accounting.calibrate", "dpcalc.accounting.group")


@pytest.mark.slow
def test_api_signatures_use_public_types(site: Path) -> None:
    """API pages outside the accounting core show public types: no ``v.FloatArray`` (the private module alias)."""
    for page in sorted((site / "reference" / "api").glob("*.html")):
        if page.stem.startswith(_CORE):
            continue
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        assert "v.FloatArray" not in text, page.name


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
    exe = browser.browser()
    url = (site / "index.html").as_uri() + "?q=accountant"
    proc = processes.run([str(exe), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
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
             if p.relative_to(ROOT / "docs").parts[0] not in ("gen", "examples")
             and not p.relative_to(ROOT / "docs").as_posix().startswith("design/evidence/")}  # not shipped
    assert not pages - in_nav, f"pages missing from the nav in mkdocs.yml: {sorted(pages - in_nav)}"
