"""Paper-ready LaTeX tables (``dpcalc table … --format latex``): every example spec compiles with pdflatex without
an overfull box in a standard one-column article, in one column of a two-column one with the default layout, and as
``table*`` across both, with plain numbers and with siunitx ``S`` columns; headers are short (symbol, then unit, a
scientific column's shared power of ten), one ε (``\varepsilon``), one notation per column (``× 10^0`` only in a
column that is scientific throughout), notes left-aligned with TeX quotes, assignments in captions set as math;
several specs at once."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dpcalc.report import table
from dpcalc.report.latex import _shifted, _table_format, latex_caption, latex_float, one_epsilon, paper_number
from tests.support import processes
from tests.support.cli_runner import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.toml"))


def _float(spec: Path, **layout: str) -> str:
    return latex_float(table.build(table.read(spec)), **layout)


def test_cells_keep_their_digits_and_never_print_times_ten_to_the_zero() -> None:
    assert paper_number(0.1, ".4g", False) == "$0.1000$"  # 4 significant digits, as 0.2235 beside it
    assert paper_number(0.22353, ".4g", False) == "$0.2235$"
    assert paper_number(1.2661, ".3e", False) == "$1.266$"
    assert paper_number(0.067332, ".3e", False) == r"$6.733 \times 10^{-2}$"
    assert paper_number(1000.0, ".0e", False) == "$10^{3}$"
    assert paper_number(5.0, ".2g", True) == "$5$"
    assert paper_number(float("inf"), ".4g", False) == r"$\infty$"
    assert paper_number(float("nan"), ".4g", False) == "--"
    for spec in EXAMPLES:
        for line in _float(spec).splitlines():  # a row's cells: × 10^0 only beside other powers of ten
            assert "10^{0}" not in line or line.count("10^{") >= 2


def test_one_notation_per_column() -> None:
    """The published σ² of Zeng et al. 2022 spans 1.266 to 5.795e-5: every cell in scientific notation, the first
    as 1.266 × 10^0 (was 1.266 beside 2.532 × 10^-1); a column that never needs an exponent keeps none."""
    spec = ROOT / "docs" / "examples" / "gauss_erratum.toml"
    body = _float(spec).split(r"\midrule")[1].split(r"\bottomrule")[0]
    published = [line.split(" & ")[1] for line in body.strip().splitlines()]
    assert published[0] == r"$1.266 \times 10^{0}$" and all(r"\times 10^{" in x for x in published)
    assert "1.266e0" in _float(spec, numbers="siunitx") and "retain-zero-exponent" in _float(spec, numbers="siunitx")
    assert "10^" not in _float(ROOT / "docs" / "examples" / "midp_sigma.toml").split("\\midrule")[1].split(" & ")[2]


def test_one_epsilon_left_aligned_notes_and_tex_quotes() -> None:
    for spec in EXAMPLES:
        tex = _float(spec)
        assert r"\epsilon" not in tex.replace(r"\varepsilon", "")
    tex = _float(ROOT / "docs" / "examples" / "gauss_erratum.toml")
    assert r"\raggedright" in tex and "``+''" in tex and "'+'" not in tex
    assert "gauss.case2" not in tex and "Zeng, Yang" in tex  # the paper and equation, not a catalog id


def test_a_narrow_scientific_column_shows_its_power_of_ten_once_in_the_header() -> None:
    spec = ROOT / "docs" / "examples" / "gaussian_delta.toml"
    for numbers in ("plain", "siunitx"):
        tex = _float(spec, numbers=numbers)
        head, body = tex.split(r"\midrule")
        assert r"(probability, $\times 10^{-5}$)" in head
        assert "10^" not in body and "e-" not in body.split(r"\bottomrule")[0]
    assert "$0.733$" in _float(spec)  # 7.33e-6 as 0.733 × 10^-5: its three significant digits kept
    wide = ROOT / "docs" / "examples" / "gauss_erratum.toml"  # σ² spans five decades: each cell keeps its exponent
    assert r"$5.795 \times 10^{-5}$" in _float(wide) and "5.795e-5" in _float(wide, numbers="siunitx")
    assert _shifted(7.3349e-6, 3, -5) == "0.733" and _shifted(-4.1649e-5, 3, -5) == "-4.16"
    assert _shifted(9.9996e-4, 4, -3) == "1.000" and _shifted(123.0, 3, 0) == "123"


def test_siunitx_columns_take_their_table_format_from_the_data() -> None:
    assert _table_format(["1.266", "6.733e-2", "5.795e-5"]) == "1.3e-1"
    assert _table_format(["101", "-3.25"]) == "-3.2"
    assert _table_format(["1.2e10", "3"]) == "1.1e2"
    tex = _float(ROOT / "docs" / "examples" / "gauss_erratum.toml", numbers="siunitx")
    assert (r"\begin{tabular}{S[table-format=1.0]S[table-format=1.3e-1,retain-zero-exponent]S[table-format=1.3e-1]"
            in tex)
    assert "needs \\usepackage{booktabs, graphicx, siunitx}" in tex and "{published}" in tex
    assert "needs \\usepackage{booktabs})" in _float(ROOT / "docs" / "examples" / "gauss_erratum.toml", scale="none")
    with pytest.raises(ValueError, match="numbers one of"):
        _float(ROOT / "docs" / "examples" / "midp_sigma.toml", numbers="sci")


def test_captions_set_assignments_and_greek_as_math() -> None:
    assert latex_caption("noise for ε-MI-DP, N = 10, C = 1") == r"noise for $\varepsilon$-MI-DP, $N = 10$, $C = 1$"
    assert latex_caption("at δ = 1e-05 and σ_k = 2.5") == r"at $\delta = 10^{-5}$ and $\sigma_{\mathrm{k}} = 2.5$"
    assert latex_caption("eq. (14) & 50%") == r"eq. (14) \& 50\%"


def test_headers_are_symbol_then_unit_with_published_and_corrected_under_one_header() -> None:
    tex = _float(ROOT / "docs" / "examples" / "gauss_erratum.toml")
    head = tex.split(r"\toprule")[1].split(r"\midrule")[0]
    assert r"\multicolumn{2}{c}{$\sigma^2$}" in head and "(bits)" in head
    assert "published & corrected & published & corrected" in head and "[published]" not in head
    assert all(len(line) < 120 for line in head.splitlines())


def test_float_and_scale_options() -> None:
    spec = ROOT / "docs" / "examples" / "midp_sigma.toml"
    wide = _float(spec, env="table*", scale="fit")
    assert r"\begin{table*}[tp]" in wide and r"\end{table*}" in wide and r"\resizebox{\linewidth}{!}{%" in wide
    assert r"\small" in _float(spec, scale="small")
    with pytest.raises(ValueError, match="env must be one of"):
        _float(spec, env="figure")
    code, out, _ = run("table", str(spec), "--float", "table*", "--scale", "footnotesize", "-f", "latex")
    assert code == 0 and r"\begin{table*}" in out and r"\footnotesize" in out
    code, _, err = run("table", str(spec), "--float", "sideways")
    assert code == 2 and err.startswith("dpcalc: error:") and err.count("\n") == 1


def test_several_specs_give_one_table_each() -> None:
    args = [str(p) for p in EXAMPLES]
    code, out, _ = run("table", *args, "-f", "latex")
    assert code == 0 and out.count(r"\begin{table}") == len(EXAMPLES) == out.count(r"\end{table}")
    code, out, _ = run("table", *args, "--json")
    doc = json.loads(out)
    assert code == 0 and len(doc["tables"]) == len(EXAMPLES) and doc["meta"]["formula"]
    code, out, _ = run("table", *args, "-f", "markdown")
    assert code == 0 and len(re.findall(r"^\|---", out, flags=re.M)) == len(EXAMPLES)


def _compile(tmp_path: Path, name: str, preamble: str, body: str) -> str:
    doc = f"{preamble}\n\\usepackage[T1]{{fontenc}}\n\\usepackage{{booktabs}}\n\\usepackage{{graphicx}}\n" \
          + ("\\usepackage{siunitx}\n" if "S[table-format" in body else "") + \
          f"\\begin{{document}}\n{body}\n\\end{{document}}\n"
    (tmp_path / f"{name}.tex").write_text(doc, encoding="utf-8")
    proc = processes.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=tmp_path,
                         capture_output=True, text=True, cpu_seconds=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return (tmp_path / f"{name}.log").read_text(encoding="latin-1")


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex not installed (Debian: texlive-latex-base texlive-latex-recommended); the "
                           "LaTeX was checked structurally only (tests/report/test_table.py)")
@pytest.mark.parametrize("spec", EXAMPLES, ids=[p.stem for p in EXAMPLES])
@pytest.mark.parametrize("numbers", ["plain", "siunitx"])
def test_example_compiles_without_an_overfull_box(spec: Path, numbers: str, tmp_path: Path) -> None:
    if numbers == "siunitx" and subprocess.run(["kpsewhich", "siunitx.sty"], capture_output=True).returncode:
        pytest.skip("siunitx.sty not installed (Debian: texlive-science); the siunitx mode was checked structurally")
    cases = {"one-column": (r"\documentclass{article}", {}),
             "one-of-two-columns": (r"\documentclass[twocolumn]{article}", {}),  # the default layout
             "one-of-two-columns-11pt": (r"\documentclass[twocolumn,11pt]{article}", {}),
             "two-column": (r"\documentclass[twocolumn]{article}", {"env": "table*"}),
             "fit": (r"\documentclass[twocolumn]{article}", {"scale": "fit"})}
    for name, (preamble, layout) in cases.items():
        log = _compile(tmp_path, name, preamble, _float(spec, numbers=numbers, **layout))
        overfull = re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)
        assert not overfull, f"{spec.name} ({name}, {numbers}): overfull by {overfull} pt"
        assert "undefined" not in log
    if spec.stem == "gauss_erratum":  # the check sees an overflow: the natural size is too wide for one column
        log = _compile(tmp_path, "natural", r"\documentclass[twocolumn]{article}",
                       _float(spec, numbers=numbers, scale="none"))
        assert re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)


# Calls the library fuzz found (tests/support/fuzz_library.py): one-line errors naming the argument.
@pytest.mark.parametrize(("call", "message"), [
    (lambda: one_epsilon({"x": 1}), "tex must be a string"),  # TypeError from re.sub
    (lambda: one_epsilon(np.array([1.0, 2.0])), "tex must be a string"),
    (lambda: paper_number([np.int64(3), [1.0, 2.0]], "", True), "value must be a number, a text or None"),
    (lambda: paper_number(np.array([[2.0], [2.0]]), "", True), "value must be a number"),  # .item() ValueError
    (lambda: paper_number(10**400, ".4g", False), "value must be a number"),  # OverflowError
    (lambda: paper_number(1 + 2j, ".4g", False), "value must be a number"),
    (lambda: latex_float(652.5, scale=np.ones((2, 2))), "env must be one of"),  # truth value of an array
])
def test_bad_input_is_one_line(call, message: str) -> None:  # type: ignore[no-untyped-def]
    from dpcalc.errors import DomainError

    with pytest.raises(DomainError) as info:
        call()
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
