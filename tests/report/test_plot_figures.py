"""Figures a reviewer trusts: math-text labels, what each line is, coinciding curves visible, optimum markers,
a colour-blind-safe palette, embedded fonts, and clean one-line errors for text matplotlib cannot typeset."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="the 'plot' extra (matplotlib) is not installed")

from dpcalc.errors import DomainError
from dpcalc.plot import data, draw, presets
from dpcalc.plot.figure import PALETTE, coinciding
from dpcalc.plot.spec import KINDS
from tests.support.cli_runner import run


@pytest.mark.parametrize("fig_id", list(presets()))
def test_every_label_is_mathtext_and_every_formula_line_says_what_it_is(fig_id: str) -> None:
    from matplotlib.mathtext import MathTextParser

    spec = presets()[fig_id]
    lines, _ = data.lines(spec)
    parser = MathTextParser("agg")
    for text in (spec.title, spec.x_label, spec.y_label, *(line.legend for line in lines)):
        assert not re.search(r"[A-Za-zσμλεΣ]_[A-Za-z{]", re.sub(r"\$[^$]*\$", "", text)), f"raw subscript: {text!r}"
        if "$" in text:
            parser.parse(text)  # raises on anything mathtext cannot typeset
    for line in lines:
        assert line.kind in KINDS
        if line.formula and not line.formula.startswith("dpcalc."):
            assert line.kind, f"{fig_id}: {line.label!r} does not say what it is"


def test_estimates_disputed_bounds_and_the_optimum_are_named() -> None:
    audit, _ = data.lines(presets()["002-audit"])
    assert [ln.kind for ln in audit] == ["published", "estimate"]  # the CLT ε of the composed μ is an estimate
    assert "varepsilon" in audit[0].label  # an ε axis: the claimed μ is shown as its ε
    nbafl = presets()["003-fig7"]
    lines, _ = data.lines(nbafl)
    assert {ln.kind for ln in lines} == {"disputed"} and nbafl.optimum == "min" and nbafl.optimum_label == "T^*"
    assert [int(ln.x[np.argmin(ln.y)]) for ln in lines] == [7, 9, 20, 25]  # the integer T* of the caption
    svg = draw(nbafl, "svg").data.decode()
    assert len(re.findall(r"<g id=\"PathCollection_\d+\"", svg)) == len(lines)  # one star per curve


def test_coinciding_curves_are_found_and_drawn_apart() -> None:
    lines, _ = data.lines(presets()["001-fig6-ratio"])
    assert coinciding(lines) == [-1, -1, 0]  # Case 3 with σ_e² free lies on Case 2: drawn over a band
    lines, _ = data.lines(presets()["001-fig7"])
    assert coinciding(lines)[1] == 0
    lines, _ = data.lines(presets()["002-fig4a"])
    assert coinciding(lines) == [-1, -1, -1, -1]  # touching at two early rounds is not coinciding


def test_colour_blind_safe_palette_and_embedded_fonts() -> None:
    assert PALETTE[:3] == ("#0072B2", "#E69F00", "#009E73")  # Okabe & Ito
    pdf = draw(presets()["003-fig7"], "pdf").data
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType, embedded
    svg = draw(presets()["003-fig7"], "svg").data
    assert b"<text" not in svg  # text drawn as paths: no font needed to view it


@pytest.mark.parametrize("title", [r"$\undefinedmacro$", "$" + "{" * 200, "$x^$"])
def test_a_title_matplotlib_cannot_typeset_is_one_line_exit_2(title: str, tmp_path: Path) -> None:
    code, _, err = run("plot", "sweep", "midp.server_sigma_equal", "--x", "eps=1:3", "--by", "N=1,10", "--set",
                       "d=100", "--set", "C=1", "--title", title, "-o", str(tmp_path / "t.png"))
    assert code == 2 and err.startswith("dpcalc: error: --title: matplotlib cannot typeset") and err.count("\n") == 1
    assert "Traceback" not in err and not (tmp_path / "t.png").exists()


def test_plain_braces_in_a_title_are_text() -> None:
    spec = presets()["001-fig5"]
    from dataclasses import replace

    assert draw(replace(spec, title="{" * 200), "png", dpi=40).data[:4] == b"\x89PNG"
    with pytest.raises(DomainError, match="title: matplotlib cannot typeset"):
        draw(replace(spec, title=r"$\undefinedmacro$"), "png", dpi=40)


def test_many_lines_get_a_colour_scale_and_no_raw_warning(tmp_path: Path) -> None:
    code, out, err = run("plot", "sweep", "midp.server_sigma_equal", "--x", "eps=1:10:1", "--by", "N=1:300:1",
                         "--set", "d=1000", "--set", "C=1", "-o", str(tmp_path / "s.png"))
    assert code == 0 and "300 lines" in out
    assert "UserWarning" not in err and "figure.py" not in err and "savefig" not in err, err
