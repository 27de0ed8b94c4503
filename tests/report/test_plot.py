"""dpcalc plot: every preset renders (size, non-blank pixels, line count), data checks, errors, CLI."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from dpcalc.errors import DomainError, EstimateWarning
from dpcalc.plot import data, presets
from dpcalc.plot.spec import Spec, parse_figures
from tests.support.cli_runner import run

mpl = pytest.importorskip("matplotlib", reason="the 'plot' extra (matplotlib) is not installed")

PRESETS = list(presets())


def test_presets_cover_the_seed_figures() -> None:
    want = {"000-sigma-vs-eps", "000-utility-vs-N", "001-fig4", "001-fig5", "001-fig6", "001-fig7", "002-fig4a",
            "002-fig4b", "002-audit"}
    assert want <= set(PRESETS)


@pytest.mark.parametrize("name", PRESETS)
def test_preset_renders_png(name: str) -> None:
    from matplotlib.image import imread

    from dpcalc.plot import draw

    spec = presets()[name]
    drawn = draw(spec, "png")
    assert drawn.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert 15_000 < len(drawn.data) < 400_000
    pixels = imread(io.BytesIO(drawn.data), format="png")[..., :3]
    assert pixels.shape[0] >= 400 and pixels.shape[1] >= 600
    ink = np.mean(np.any(pixels < 0.9, axis=-1))  # share of pixels that are not (near) white
    assert 0.02 < ink < 0.5, ink
    colour = np.mean((pixels.max(axis=-1) - pixels.min(axis=-1)) > 0.2)  # coloured curves were drawn
    assert colour > 0.002, colour
    assert drawn.artists == len(drawn.lines) == spec.line_count
    for line in drawn.lines:
        assert np.all(np.isfinite(line.y)), line.label
        if spec.logy:
            assert np.all(line.y > 0), line.label


def test_published_and_corrected_are_marked() -> None:
    lines, warns = data.lines(presets()["001-fig5"])
    assert [ln.kind for ln in lines] == ["corrected", "published"]
    assert lines[1].legend.endswith("— published")
    assert any("erratum gauss.case2_sigma2" in w for w in warns)
    # U_max at ε = 1 (Zeng, Yang & Dai 2022, Fig. 5 parameters; exact log-det), as the gauss CLI warning quotes them
    assert lines[0].y[0] == pytest.approx(1.04122158, rel=1e-8)
    assert lines[1].y[0] == pytest.approx(0.140288, rel=1e-5)


def test_audit_preset_matches_the_audit() -> None:
    from dpcalc import cuag

    spec = presets()["002-fig4a"]
    lines, _ = data.lines(spec)
    composed = lines[3]
    assert composed.kind == "estimate"  # the CLT ε of the composed μ: not a guarantee
    with pytest.warns(EstimateWarning, match="CLT"):
        audit = cuag.audit(0.25, 300, 1e-5)
    assert composed.y[-1] == pytest.approx(audit.eps_effective, rel=1e-12)
    assert lines[2].y == pytest.approx(np.full(300, 0.92631), rel=1e-4)  # the claimed fixed budget


def test_integer_inputs_are_rounded() -> None:
    x = data.x_grid(presets()["002-audit"])
    assert np.array_equal(x, np.unique(np.round(x))) and x[0] == 1 and x[-1] == 1000


@pytest.mark.parametrize("fmt,magic", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_vector_formats_are_reproducible(fmt: str, magic: bytes) -> None:
    from dpcalc.plot import draw

    a, b = draw(presets()["001-fig5"], fmt), draw(presets()["001-fig5"], fmt)
    assert a.data.startswith(magic) and a.data == b.data


def test_missing_matplotlib_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpcalc.plot import MissingExtraError, draw

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match=r"'plot' extra.*dpcalc\[plot\]"):
        draw(presets()["001-fig5"])


BAD = [
    ('[[figure]]\nid = "a"\npaper = "x"\ntitle = "t"\nx = "eps"\nx_values = "1:3"\n\n[[figure.series]]\n'
     'formula = "midp.server_sigmaa"\nlabel = "l"\n', r"<spec>:9: \[\[figure\]\] #1 \[\[series\]\] #1 key 'formula': "
     r"unknown formula id 'midp.server_sigmaa'; did you mean midp.server_sigma"),
    ('[[figure]]\nid = "a"\npaper = "x"\ntitle = "t"\nx = "eps"\n\n[[figure.series]]\nformula = "midp.server_sigma"\n'
     'label = "l"\n', r"<spec>:1: \[\[figure\]\] #1 key 'x_values': is required"),
    ('[[figure]]\nid = "a"\npaper = "x"\ntitle = "t"\nx = "eps"\nx_values = "1:3"\nlogx = "yes"\n'
     '[[figure.series]]\nformula = "midp.server_sigma"\nlabel = "l"\n',
     r"<spec>:7: \[\[figure\]\] #1 key 'logx': must be true or false \(got 'yes'\)"),
    ('[[figure]]\nid = "a"\npaper = "x"\ntitle = "t"\nx = "eps"\nx_values = "1:3"\ncolour = 1\n'
     '[[figure.series]]\nformula = "midp.server_sigma"\nlabel = "l"\n', r"<spec>:7: .*key 'colour': unknown key"),
    ('[[figure]]\nid = "a"\npaper = "x"\ntitle = "t"\nx = "eps"\nx_values = "3:1"\n'
     '[[figure.series]]\nformula = "midp.server_sigma"\nlabel = "l"\n', r"<spec>:6: .*'x_values': .*start <= stop"),
    ('[[figure]\n', r"<spec>: not valid TOML"),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_presets_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(DomainError, match=message) as info:
        parse_figures(Spec.parse(text))
    assert "\n" not in str(info.value)


def test_cli_preset_and_sweep(tmp_path: pytest.TempPathFactory) -> None:
    out = tmp_path / "f.svg"  # type: ignore[operator]
    code, stdout, _ = run("plot", "preset", "002-audit", "-o", str(out))
    assert code == 0 and out.read_bytes().startswith(b"<?xml") and "2 lines" in stdout
    code, _, err = run("plot", "preset", "002-audit", "-o", str(out))
    assert code == 2 and "exists" in err and "\n" not in err.strip()
    png = tmp_path / "s.png"  # type: ignore[operator]
    code, stdout, _ = run("plot", "sweep", "midp.server_sigma_equal", "--x", "eps=0.5:5:0.5", "--by", "N=1,10",
                          "--set", "d=100", "--set", "C=1", "--logy", "-o", str(png))
    assert code == 0 and "2 lines" in stdout and png.stat().st_size > 10_000


@pytest.mark.parametrize("args,message", [
    (("preset", "001-fig9"), "unknown figure preset '001-fig9'; did you mean"),
    (("sweep", "midp.server_sigma", "--x", "epsilon=1:3"), "has no input 'epsilon'"),
    (("sweep", "midp.server_sigma", "--x", "eps="), "--x takes NAME[=VALUES]"),
    (("sweep", "accountant.eps_rdp", "--x", "sigma", "--set", "noise-multiplier=1"), "given once"),
    (("sweep", "accountant.eps_rdp", "--x", "z"), "inputs: sigma (--noise-multiplier), q, steps, delta"),
    (("sweep", "midp.server_sigma", "--x", "eps=1:3", "--set", "d=10", "--set", "C=1", "--set", "p_max=1",
      "--published"), "has no published"),
    (("preset", "001-fig5", "--format", "jpg"), "figure format must be one of png, svg, pdf"),
])
def test_cli_errors(args: tuple[str, ...], message: str) -> None:
    code, _, err = run("plot", *args)
    assert code == 2 and message in err and err.count("\n") == 1, err
