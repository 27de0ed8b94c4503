"""MkDocs hooks: the generated part of the documentation site (nothing generated is committed).

* one page per catalog paper (``papers/<id>.md``) from ``formulas/*.toml``: every formula in LaTeX, its source
  and equation, inputs with domains and units, assumptions, status, errata with evidence, a worked example
  computed now, and the paper's figure presets (``dpcalc/plot/presets/*.toml``) drawn now as PNG;
* ``reference/cli.md`` from the Typer app; ``reference/api/`` (`api`: one mkdocstrings page per public module);
* ``accuracy.md``: the ``dpcalc verify --all`` table, run now;
* in every page, ``<!-- dpcalc: ARGS -->`` is replaced by ``$ dpcalc ARGS`` and its real output
  (``<!-- dpcalc-md: ARGS -->``: the output is Markdown, e.g. ``--format markdown``, and is rendered);
* math (``$…$``, ``$$…$$`` through ``pymdownx.arithmatex``) is converted to MathML at build time, so pages need
  no JavaScript and no network to show formulas.
* text that was not written as Markdown — catalog prose, command output, plain-text TeX — is made to render as a
  reader should see it by `render` (escaping, tables of command output, exponents, break points in cells).

A new family appears by data alone: its catalog file gives its paper page and its preset file its figures.
Environment: ``DPCALC_DOCS_VERIFY_SAMPLES`` (Monte Carlo samples of the accuracy page; default: verify's own).
"""

from __future__ import annotations

import html
import io
import os
import re
import shlex
import sys
import time
from collections import OrderedDict
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from mkdocs.structure.files import File, Files

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api
import render

GENERATED_NAV_SECTION = "Papers"
API_NAV_ENTRY = "API reference"
_RUN = re.compile(r"^<!--\s*dpcalc(-md)?:\s*(.*?)\s*-->\s*$", re.MULTILINE)
_MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)


# ------------------------------------------------------------------------------------------ helpers

def run_cli(args: list[str], stderr: bool = True) -> tuple[int, str]:
    """Run ``dpcalc ARGS`` in-process through the console entry point; (exit code, stdout then stderr; without
    ``stderr`` stdout alone, e.g. Markdown output, whose warnings are already in its text)."""
    from dpcalc.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue() + (err.getvalue() if stderr or code != 0 else "")


def console(args: str) -> str:
    """A console block: ``$ dpcalc ARGS`` and its real output (a failing command fails the build)."""
    code, text = run_cli(shlex.split(args))
    if code != 0:
        raise RuntimeError(f"docs: `dpcalc {args}` exited with {code}: {text.strip()[:300]}")
    return f"```console\n$ dpcalc {args}\n{text.rstrip()}\n```\n"


md_cell = render.inline  # text safe inside a Markdown table cell or line: every Markdown character an entity
prose = render.prose  # catalog prose: the same, with plain-text exponents and subscripts set


def identifier_link(identifier: str) -> str:
    """A paper identifier of the catalog's ``doi`` field as a link: ``arXiv:ID`` to arxiv.org, a DOI to doi.org."""
    ident = identifier.strip()
    if ident.lower().startswith("arxiv:"):
        number = ident.split(":", 1)[1].strip()
        return f"[arXiv:{number}](https://arxiv.org/abs/{number})"
    return f"DOI [{ident}](https://doi.org/{ident})"


def anchor(formula_id: str) -> str:
    return formula_id.replace(".", "-")


def papers() -> OrderedDict[str, list[Any]]:
    """Catalog formulas grouped by paper id, in catalog order (the numbered papers first, then the references)."""
    from dpcalc import catalog

    groups: OrderedDict[str, list[Any]] = OrderedDict()
    same: dict[str, str] = {}  # one page per publication: reference entries of two catalog files, one paper
    for f in catalog.load().values():
        pid = f.paper.id
        if not pid.isdigit() and f.paper.doi:
            pid = same.setdefault(f.paper.doi.strip(), pid)
        groups.setdefault(pid, []).append(f)
    return OrderedDict(sorted(groups.items(), key=lambda kv: (not kv[0].isdigit(), nav_label(kv[1][0].paper).lower())))


def paper_title(paper: Any) -> str:
    return f"{paper.id} · {paper.short}" if paper.id.isdigit() else paper.short


def nav_label(paper: Any) -> str:
    """A paper's entry in the sidebar: its short citation; an entry that gathers three or more papers is a topic,
    named by its title."""
    if paper.doi and paper.doi.count(";") >= 2:
        return str(paper.title)
    return paper_title(paper)


# ------------------------------------------------------------------------------------------ pages

def _example(f: Any) -> str:
    """The entry's first example, evaluated now through the catalog (the same call dpcalc eval makes)."""
    import warnings

    if not f.examples:
        return "_No example in the catalog._\n"
    ex = f.examples[0]
    args = ", ".join(f"{k!r}: {v!r}" for k, v in ex.inputs.items())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = f.call(dict(ex.inputs))
    shown = repr(float(value)) if isinstance(value, float | int) or getattr(value, "ndim", 1) == 0 else repr(value)
    lines = ["```pycon", ">>> from dpcalc import catalog",
             f">>> catalog.get({f.id!r}).call({{{args}}})", shown, "```"]
    cli = _eval_command(f, ex)
    out = "\n".join(lines) + "\n"
    if cli:
        out = cli + "\n" + out
    if caught:
        out += "".join(f"\n> warning: {md_cell(str(w.message))}\n" for w in caught[:2])
    src = f" (expected {ex.expected!r}" + (f", {prose(ex.source)})" if ex.source else ")")
    return out + f"\nComputed at build time{src}.\n"


def _eval_command(f: Any, ex: Any) -> str:
    """``dpcalc eval ID --input value …`` with its output, when the CLI has an ``eval`` command and it accepts
    the example (vector inputs as comma lists); else empty."""
    from dpcalc.cli.main import app

    if not any(getattr(c, "name", None) == "eval" for c in app.registered_commands):
        return ""
    parts = ["eval", f.id]
    for name, value in ex.inputs.items():
        text = ",".join(repr(float(v)) for v in value) if isinstance(value, list) else repr(value)
        parts += [f"--{name.replace('_', '-')}", text]
    parts += ["--format", "markdown"]  # a table that wraps inside the content column
    code, text = run_cli(parts, stderr=False)
    if code != 0:
        return ""
    return f"```console\n$ dpcalc {' '.join(parts)}\n```\n\n{render.output_box(render.cli_markdown(text))}"


def formula_section(f: Any) -> str:
    status = {"verified": "verified", "corrected": "corrected (the paper is wrong; dpcalc implements the fix)",
              "disputed": "disputed"}[f.status]
    out = [f"## `{f.id}`: {prose(f.title)} {{#{anchor(f.id)}}}\n",
           f"**Source:** {md_cell(f.paper.short)}, {md_cell(f.equation)} · **Status:** {status} · "
           f"**Implementation:** `{f.implementation}`\n",
           f"$$\n{f.latex}\n$$\n",
           "| Input | Symbol | Unit | Domain | Description |", "|---|---|---|---|---|"]
    for i in f.inputs:
        kind = f" ({i.kind})" if i.kind != "scalar" else ""
        symbol = i.symbol.replace("|", r"\vert ")  # a '|' would end the table cell before the math is read
        out.append(f"| `{i.name}`{kind} | ${symbol}$ | {prose(i.unit)} | `{i.domain}` | {prose(i.description)} |")
    o = f.output
    out.append(f"\n**Output:** `{o.name}`, ${o.symbol}$ ({prose(o.unit)})"
               + (f": {prose(o.description)}" if o.description else "") + "\n")
    if f.assumptions:
        out.append("**Assumptions**\n")
        out += [f"- {prose(a)}" for a in f.assumptions]
        out.append("")
    if f.notes:
        out.append(f"**Notes.** {prose(f.notes)}\n")
    if f.erratum is not None:
        e = f.erratum
        body = ['!!! danger "Erratum"', f"    {prose(e.text)}", "", f"    **Evidence:** {prose(e.evidence)}"]
        if e.published_latex:
            body += ["", "    Published form:", "", "    $$", f"    {e.published_latex.strip()}", "    $$"]
        if e.reference:
            body += ["", f"    **Reference:** {prose(e.reference)}"]
        out.append("\n".join(body) + "\n")
    check = dict(f.check)
    if check:
        out.append(f"**Verification:** {md_cell(check.get('method', ''))} recipe `{check.get('recipe', '')}`"
                   + (f": {prose(check['note'])}" if check.get("note") else "") + "\n")
    out.append("**Example**\n")
    out.append(_example(f))
    return "\n".join(out) + "\n"


def paper_page(formulas: list[Any], figures: list[Any]) -> str:
    p = formulas[0].paper
    out = [f"# {md_cell(paper_title(p))}\n", f"**{md_cell(p.title)}**\n"]
    meta = [f"catalog file for paper id `{p.id}`"]
    if p.doi:
        meta.append(", ".join(identifier_link(i) for i in p.doi.split(";") if i.strip()))
    if p.units:
        meta.append(f"units: {md_cell(p.units)}")
    out.append(" · ".join(meta) + "\n")
    if p.notes:
        out.append(f"{prose(p.notes)}\n")
    n_err = sum(1 for f in formulas if f.erratum is not None)
    out.append(f"{len(formulas)} formulas, {n_err} with an erratum. Every number below is computed when this page "
               "is built. List them in a terminal with `dpcalc formulas list --paper " + p.id + "`.\n")
    out += ["| Formula | Title | Status |", "|---|---|---|"]
    out += [f"| [`{f.id}`](#{anchor(f.id)}) | {prose(f.title)} | {f.status} |" for f in formulas]
    out.append("")
    if figures:
        out.append("## Figures {#figures}\n")
        out.append("Drawn at build time from the presets in `dpcalc/plot/presets/`; each legend entry says what "
                   "its line is (published, corrected, disputed, estimate, bound, verified; see "
                   "[Figures](../figures.md)). Redraw one with `dpcalc plot preset ID -o FILE.png`.\n")
        for fig in figures:
            out.append(f"### `{fig.id}` {{#fig-{fig.id}}}\n")
            out.append(f"![{md_cell(fig.title)}](../figures/{fig.id}.png)\n")
            if fig.caption:
                out.append(f"{prose(fig.caption)}\n")
            out.append(f"`dpcalc plot preset {fig.id} -o {fig.id}.png`\n")
    out += [formula_section(f) for f in formulas]
    return "\n".join(out)


def papers_index(groups: OrderedDict[str, list[Any]], figures: dict[str, list[Any]]) -> str:
    out = ["# Papers\n", "One page per paper of the formula catalog (`formulas/*.toml`), generated at build time: "
           "each formula in LaTeX with its source, inputs, assumptions, status, errata and a computed example, and "
           "the paper's figures.\n", "| Paper | Formulas | Errata | Figures |", "|---|---:|---:|---:|"]
    for pid, fs in groups.items():
        n_err = sum(1 for f in fs if f.erratum is not None)
        out.append(f"| [{md_cell(paper_title(fs[0].paper))}]({pid}.md) | {len(fs)} | {n_err} | "
                   f"{len(figures.get(pid, []))} |")
    total = sum(len(fs) for fs in groups.values())
    out.append(f"\n{total} catalog entries in {len(groups)} papers.\n")
    return "\n".join(out)


def cli_reference() -> str:
    """Every command of the Typer app: usage, help and options (generated from the app itself).

    Duck-typed on the Click API (Typer may vendor its own Click): groups have ``list_commands``, parameters a
    ``param_type_name``.
    """
    import typer.main

    from dpcalc.cli.main import app

    root = typer.main.get_command(app)
    out = ["# CLI reference\n", "Generated from the Typer app at build time. Every numeric option takes a value, a "
           "comma list or a range `start:stop:step`; see [Command line](../cli.md).\n"]

    def walk(cmd: Any, path: list[str], parent: Any = None) -> None:
        ctx = cmd.context_class(cmd, info_name=path[-1], parent=parent)
        if hasattr(cmd, "list_commands"):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, [*path, name], ctx)
            return
        title = " ".join(path)
        out.append(f"## `{title}` {{#{'-'.join(path[1:]) or 'dpcalc'}}}\n")
        out.append(f"```text\n{cmd.get_usage(ctx).strip()}\n```\n")
        if cmd.help:
            out.append(md_cell(" ".join(cmd.help.split())) + "\n")
        rows = []
        for p in cmd.params:
            if p.param_type_name == "argument":
                rows.append(f"| `{(p.name or '').upper()}` (argument) | {md_cell(getattr(p, 'help', '') or '')} |")
                continue
            record = p.get_help_record(ctx) if not getattr(p, "hidden", False) else None
            if record:
                rows.append(f"| **{md_cell(record[0])}** | {md_cell(' '.join(record[1].split()))} |")
        if rows:
            out.extend(["| Option | Meaning |", "|---|---|", *rows, ""])

    walk(root, ["dpcalc"])
    return "\n".join(out)


def accuracy_page() -> str:
    """The numerical-accuracy page: the text in docs/gen/accuracy_intro.md and the verify --all table, run now."""
    here = os.path.dirname(__file__)
    with open(os.path.join(here, "accuracy_intro.md"), encoding="utf-8") as fh:
        intro = fh.read()
    args = ["verify", "--all", "--format", "markdown", "--workers", "1"]
    samples = os.environ.get("DPCALC_DOCS_VERIFY_SAMPLES")
    if samples:
        args += ["--samples", samples]
    start = time.perf_counter()
    code, text = run_cli(args)
    seconds = time.perf_counter() - start
    if code not in (0, 1):
        raise RuntimeError(f"docs: dpcalc verify --all exited with {code}: {text[:300]}")
    table = "\n".join(line for line in text.splitlines() if line.startswith("|"))
    rows = max(table.count("\n") - 1, 0)
    verdict = "every check passed" if code == 0 else "**some checks did not pass** (see the verdict column)"
    return (intro + f"\n## The `verify --all` table\n\nRun when this page was built: `dpcalc {' '.join(args)}` "
            f"({rows} rows, {seconds:.0f} s, exit code {code}: {verdict}).\n\n{table}\n")


# ------------------------------------------------------------------------------------------ figures

def figure_files(config: Any) -> tuple[dict[str, list[Any]], list[File]]:
    from dpcalc.plot import draw, presets

    by_paper: dict[str, list[Any]] = {}
    files = []
    for fig in presets().values():
        by_paper.setdefault(fig.paper, []).append(fig)
        files.append(File.generated(config, f"figures/{fig.id}.png", content=draw(fig, "png", dpi=100).data))
    return by_paper, files


# ------------------------------------------------------------------------------------------ hooks

def on_config(config: Any) -> Any:
    """The generated parts of the navigation: one entry per catalog paper under "Papers" (a numbered paper is in
    the nav once, as its family's page, which links to its catalog page), and one page per module under
    "API reference"."""
    groups = papers()
    nav = config["nav"]

    def walk(items: list[Any]) -> None:
        for k, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            if GENERATED_NAV_SECTION in item:
                index = item[GENERATED_NAV_SECTION]
                items[k] = {GENERATED_NAV_SECTION: [{"Overview": index}] + [
                    {nav_label(fs[0].paper): f"papers/{pid}.md"} for pid, fs in groups.items() if not pid.isdigit()]}
            elif API_NAV_ENTRY in item:
                items[k] = {API_NAV_ENTRY: api.nav()}
            else:
                for value in item.values():
                    if isinstance(value, list):
                        walk(value)

    walk(nav)
    return config


def on_files(files: Files, config: Any) -> Files:
    groups = papers()
    figures, images = figure_files(config)
    alias = {f.paper.id: pid for pid, fs in groups.items() for f in fs}  # a catalog file merged into its DOI's page
    merged: dict[str, list[Any]] = {}
    for paper_id, figs in figures.items():
        merged.setdefault(alias.get(paper_id, paper_id), []).extend(figs)
    figures = merged
    pages = {"papers/index.md": papers_index(groups, figures), "reference/cli.md": cli_reference(),
             "accuracy.md": accuracy_page(), **api.pages()}
    for pid, fs in groups.items():
        pages[f"papers/{pid}.md"] = paper_page(fs, figures.get(pid, []))
    orphans = sorted(set(figures) - set(groups))
    if orphans:
        raise RuntimeError(f"docs: figure presets for papers not in the catalog: {orphans}")
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    for image in images:
        files.append(image)
    return files


def raw_output(args: str) -> str:
    """``$ dpcalc ARGS`` as a console line, then its output inserted as Markdown (a ``--format markdown`` table
    renders as an HTML table that wraps inside the content column, where a terminal table would be cut off)."""
    code, text = run_cli(shlex.split(args), stderr=False)
    if code != 0:
        raise RuntimeError(f"docs: `dpcalc {args}` exited with {code}: {text.strip()[:300]}")
    return f"```console\n$ dpcalc {args}\n```\n\n{render.output_box(render.cli_markdown(text))}"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """``<!-- dpcalc: ARGS -->`` → a console block with the real output; ``<!-- dpcalc-md: ARGS -->`` → the
    output itself as Markdown."""
    markdown = render.console_blocks(render.literal_stars(render.loose_lists(markdown)))
    return _RUN.sub(lambda m: raw_output(m.group(2)) if m.group(1) else console(m.group(2)), markdown)


SHIM_URL = "https://unpkg.com/iframe-worker/shim"
SHIM_LOCAL = "js/iframe-worker-shim.js"


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Search from ``file://`` without a network: Material's offline plugin loads the Web Worker shim from unpkg;
    point it to the vendored copy (``docs/js/iframe-worker-shim.js``) instead."""
    depth = page.file.dest_uri.count("/")
    return output.replace(SHIM_URL, "../" * depth + SHIM_LOCAL)


def on_post_build(config: Any) -> None:
    """The same for the one page written without ``on_post_page`` (404.html)."""
    path = os.path.join(config["site_dir"], "404.html")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text.replace(SHIM_URL, "/" + SHIM_LOCAL if config.get("site_url") else SHIM_LOCAL))


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    """Math to MathML (no JavaScript or network needed to read the formulas); then the text outside code and math
    (`render.html_text`: plain-text TeX exponents and subscripts, break opportunities in table cells)."""
    from latex2mathml.converter import convert

    def repl(m: re.Match[str]) -> str:
        tex = html.unescape(m.group(2)).strip()
        display = m.group(1) == "div"
        for left, right in (("\\[", "\\]"), ("\\(", "\\)"), ("$$", "$$"), ("$", "$")):
            if tex.startswith(left) and tex.endswith(right):
                tex = tex[len(left):len(tex) - len(right)].strip()
                break
        try:
            mathml = convert(tex, display="block" if display else "inline")
        except Exception as exc:  # a formula that cannot be converted fails the build, naming it
            raise RuntimeError(f"docs: {page.file.src_uri}: cannot convert math {tex[:80]!r}: {exc}") from exc
        return f'<{m.group(1)} class="math">{mathml}</{m.group(1)}>'

    return render.html_text(_MATH.sub(repl, content))
