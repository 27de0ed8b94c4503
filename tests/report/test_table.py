"""dpcalc table: spec parsing (one-line errors), grid and columns, formatting, example specs, LaTeX that compiles."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from dpcalc.report import table
from dpcalc.report.render import Format
from dpcalc.report.spec import Spec, SpecError
from tests.support import processes
from tests.support.cli_runner import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.toml"))
sys.path.insert(0, str(ROOT / "docs" / "examples"))
import regenerate  # noqa: E402

GOOD = """title = "t"
[grid]
eps = [1, 5]
d = "1000,1e6"
[inputs]
C = 1
N = 10
[[column]]
input = "eps"
[[column]]
formula = "midp.server_sigma_equal"
digits = 3
"""


def build(text: str) -> table.Result:
    return table.build(table.parse(Spec.parse(text, "spec.toml")))


def test_grid_rows_columns_and_formats() -> None:
    from dpcalc import midp

    result = build(GOOD)
    assert [c.key for c in result.columns] == ["eps", "server_sigma_equal"]
    assert [r["eps"] for r in result.rows] == [1, 1, 5, 5]  # first grid key slowest
    assert result.rows[1]["server_sigma_equal"] == midp.server_sigma_equal(1, 1e6, C=1, N=10)  # full precision kept
    md = table.render_table(result, Format.markdown)
    assert "| ε (nats) | σ_s (parameter units) |" in md and "| 1 | 0.0707 |" in md  # 3 significant digits
    doc = json.loads(table.render_table(result, Format.json))
    assert doc["meta"]["formula"] == ["midp.server_sigma_equal"] and doc["meta"]["units"]["eps"] == "nats"
    assert doc["rows"][0]["server_sigma_equal"] == pytest.approx(0.070682, rel=1e-4)
    csv = table.render_table(result, Format.csv).splitlines()
    assert csv[0] == "eps,server_sigma_equal" and len(csv) == 5


def test_vector_inputs_and_column_input_overrides() -> None:
    from dpcalc import gaussian_mi

    text = """[grid]
eps = [1, 2]
[inputs]
variances = [1, 0.5, 0.25]
big = 3
[[column]]
input = "eps"
[[column]]
formula = "gauss.case1_u_max"
[[column]]
formula = "gauss.case1_sigma2"
inputs = { var_max = "big" }
"""
    rows = build(text).rows
    assert rows[1]["case1_u_max"] == pytest.approx(gaussian_mi.case1_u_max(2, [1, 0.5, 0.25]), rel=1e-14)
    assert rows[0]["case1_sigma2"] == pytest.approx(gaussian_mi.case1_sigma2(1, 3), rel=1e-14)


def test_published_columns_warn_and_are_labelled() -> None:
    result = table.build(table.read(ROOT / "docs" / "examples" / "gauss_erratum.toml"))
    assert any("erratum gauss.case2_sigma2" in w for w in result.warnings)
    assert [c.key for c in result.columns][1:3] == ["case2_sigma2_published", "case2_sigma2"]
    assert "[published]" in result.columns[1].label


@pytest.mark.parametrize("spec", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_regenerate_to_the_committed_outputs(spec: Path) -> None:
    for path, text in regenerate.outputs(spec).items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run python docs/examples/regenerate.py"


def _structure(tex: str) -> None:
    """What must hold for the LaTeX to compile, checked without a TeX engine."""
    assert tex.isascii(), [ch for ch in tex if not ch.isascii()]
    assert tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")
    for env in ("table", "tabular"):
        assert tex.count(rf"\begin{{{env}}}") == tex.count(rf"\end{{{env}}}") == 1
    ncols = len(re.search(r"\\begin\{tabular\}\{(r+)\}", tex).group(1))  # type: ignore[union-attr]
    body = tex.split(r"\toprule")[1].split(r"\bottomrule")[0]
    body = re.sub(r"\\cmidrule\(lr\)\{\d+-\d+\}", "", body.replace(r"\midrule", ""))
    rows = [r for r in body.split(r"\\") if r.strip()]
    for row in rows:  # every row spans every column (a \multicolumn{n} counts n)
        spans = sum(int(n) - 1 for n in re.findall(r"\\multicolumn\{(\d+)\}", row))
        assert len(re.findall(r"(?<!\\)&", row)) + spans == ncols - 1, row
    for line in tex.splitlines():
        if not line.startswith("%"):
            assert line.count("$") % 2 == 0 or "\\$" in line, line


NASTY = """title = "Worst case: 50% of #clients & σ_k² ≤ ε_{max} ~ $5 {braces} under_score \\\\ back"
label = "tab:nasty"
note = "note with & and %"
[grid]
eps = [0.001, 1e5]
[inputs]
d = 1000
C = 1
N = 1
[[column]]
input = "eps"
label = "ε & % # _"
notation = "sci"
[[column]]
formula = "midp.server_sigma_equal"
[[column]]
formula = "midp.utility_at_budget"
inputs = { p_max = "N" }
"""


def _documents() -> dict[str, str]:
    docs = {p.stem: regenerate.outputs(p)[p.with_suffix(".tex")] for p in EXAMPLES}
    docs["nasty"] = table.render_table(build(NASTY), Format.latex)
    return docs


@pytest.mark.parametrize("name", ["midp_sigma", "gauss_erratum", "nasty"])
def test_latex_structure(name: str) -> None:
    _structure(_documents()[name])


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex not installed (Debian: texlive-latex-base texlive-latex-recommended); "
                           "the structural check test_latex_structure ran instead")
def test_latex_compiles_with_pdflatex(tmp_path: Path) -> None:
    body = "\n\n".join(_documents().values())
    doc = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\begin{document}\n"
           f"{body}\nSee Table~\\ref{{tab:midp-sigma}}.\n\\end{{document}}\n")
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    for _ in range(2):  # twice, so \ref resolves
        proc = processes.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                             capture_output=True, text=True, cpu_seconds=120)
        assert proc.returncode == 0, proc.stdout[-3000:]
    log = (tmp_path / "t.log").read_text(encoding="latin-1")
    assert "undefined" not in log, "an unresolved reference or undefined control sequence"
    assert (tmp_path / "t.pdf").stat().st_size > 5_000


BAD = [
    ("[grid]\neps = [1]\n[[column]]\nformula = \"midp.server_sigmaa\"\n",
     r"^spec.toml:4: \[\[column\]\] #1 key 'formula': unknown formula id 'midp.server_sigmaa'; did you mean"),
    ("[[column]]\ninput = \"eps\"\n", r"^spec.toml: key 'grid': is required: the parameter grid"),
    ("[grid]\neps = [1]\n[[column]]\ninput = \"eps\"\ncolour = \"red\"\n",
     r"^spec.toml:5: \[\[column\]\] #1 key 'colour': unknown key; allowed: input, formula"),
    ("[grid]\neps = [1]\n[[column]]\ninput = \"eps\"\n[[column]]\nformula = \"midp.server_sigma\"\ndigits = \"4\"\n",
     r"^spec.toml:7: \[\[column\]\] #2 key 'digits': must be an integer in \[1, 17\] \(got '4'\)"),
    ("[grid]\neps = [1, \"a\"]\n[[column]]\ninput = \"eps\"\n",
     r"^spec.toml:2: \[grid\] key 'eps': element 2 must be a number \(got 'a'\)"),
    ("[grid]\neps = [1]\n[[column]]\nformula = \"midp.server_sigma\"\n",
     r"^spec.toml:4: \[\[column\]\] #1 key 'formula': midp.server_sigma needs input 'd'"),
    ("[grid]\neps = [1]\n[[column]]\ninput = \"delta\"\n",
     r"^spec.toml:4: \[\[column\]\] #1 key 'input': 'delta' is not in \[grid\] or \[inputs\]"),
    ("[grid]\neps = [1]\n[[column]]\ninput = \"eps\"\n[[column]]\ninput = \"eps\"\n",
     r"^spec.toml:5: \[\[column\]\] #2 key 'key': duplicate column key 'eps'"),
    ("[grid]\neps = \"1:x\"\n[[column]]\ninput = \"eps\"\n", r"^spec.toml:2: \[grid\] key 'eps': eps must be a number"),
    ("[grid]\neps = [1]\n[[column]]\nformula = \"midp.server_sigma\"\npublished = true\ninputs = {d=1, C=1, p_max=1}\n",
     r"^spec.toml:5: \[\[column\]\] #1 key 'published': midp.server_sigma has no published"),
    ("title = 3\n[grid]\neps = [1]\n[[column]]\ninput = \"eps\"\n", r"^spec.toml:1: key 'title': must be a string"),
    ("[grid\n", r"^spec.toml: not valid TOML: "),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_specs_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as info:
        build(text)
    assert "\n" not in str(info.value)


def test_cli(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(GOOD, encoding="utf-8")
    code, out, _ = run("table", str(spec), "--format", "latex")
    assert code == 0 and r"\caption{t}" in out and r"\toprule" in out
    code, out, _ = run("table", str(spec), "--json")
    assert code == 0 and len(json.loads(out)["rows"]) == 4
    dest = tmp_path / "t.tex"
    assert run("table", str(spec), "-f", "latex", "-o", str(dest))[0] == 0 and dest.read_text().startswith("%")
    code, _, err = run("table", str(spec), "-f", "latex", "-o", str(dest))
    assert code == 2 and "exists" in err
    spec.write_text(GOOD.replace("midp.server_sigma_equal", "midp.nope"), encoding="utf-8")
    code, _, err = run("table", str(spec))
    assert code == 2 and err.startswith("dpcalc: error: s.toml:11: [[column]] #2 key 'formula': unknown formula id")
    assert err.count("\n") == 1
    code, _, err = run("table", str(tmp_path / "missing.toml"))
    assert code == 2 and "does not exist" in err and err.count("\n") == 1
