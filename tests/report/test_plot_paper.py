"""Figures for papers: one column wide (3.5 in) with text of 7 pt or more at that size, ``--width``, ``--dpi`` and
``--font serif|sans``; ``plot sweep`` on every catalog entry of scalar inputs, by catalog or command-line names;
``plot list`` in plain text; legends in the order of the curves; every estimate line marked ▲."""

from __future__ import annotations

import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.plot import presets
from dpcalc.plot.data import lines
from dpcalc.plot.figure import MIN_TEXT_PT, STYLE, draw, legend_order
from dpcalc.plot.sweep import eligible, sweep_spec
from dpcalc.plot.text import plain_text
from tests.support.cli_runner import run

pytest.importorskip("matplotlib")

ENTRIES = sorted(e.id for e in catalog.load().values() if eligible(e))


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("name", ["001-fig5", "002-fig4a", "003-fig7"])
def test_default_is_one_column_with_readable_text(name: str) -> None:
    """3.5 in wide at 300 dpi (1050 px); the smallest text 7 pt at that width (was 6.4 in with 8 pt: 4.4 pt once
    scaled into a 3.5 in column)."""
    drawn = draw(presets()[name], "png")
    assert drawn.size[0] == 3.5 and _png_size(drawn.data)[0] == 1050
    assert drawn.smallest_text >= MIN_TEXT_PT


def test_width_dpi_and_font(tmp_path: Path) -> None:
    out = tmp_path / "wide.png"
    code, _, err = run("plot", "preset", "001-fig5", "--width", "7", "--dpi", "100", "-o", str(out))
    assert code == 0, err
    assert _png_size(out.read_bytes()) == (700, round(7 * 0.62 * 100))
    serif, sans = tmp_path / "serif.pdf", tmp_path / "sans.pdf"
    assert run("plot", "preset", "001-fig5", "--font", "serif", "-o", str(serif))[0] == 0
    assert run("plot", "preset", "001-fig5", "-o", str(sans))[0] == 0
    assert b"STIX" in serif.read_bytes() and b"DejaVuSans" not in serif.read_bytes()
    assert b"DejaVuSans" in sans.read_bytes()
    for args, message in [(("--width", "0.5"), "--width"), (("--dpi", "5"), "--dpi"), (("--font", "comic"), "--font")]:
        code, _, err = run("plot", "preset", "001-fig5", *args, "-o", str(tmp_path / "x.png"))
        assert code == 2 and message in err and err.count("\n") == 1, err


@pytest.mark.parametrize("entry_id", ENTRIES)
def test_sweep_every_catalog_entry_of_scalar_inputs(entry_id: str) -> None:
    """Every entry of scalar inputs sweeps over its first input with nothing else given: the catalog's values
    (default or first test vector) for the other inputs, a decade either side of the first one's (5 points, the
    catalog's value in the middle); a value at that middle point equal to the formula there."""
    entry = catalog.get(entry_id)
    x = entry.inputs[0].name
    spec = sweep_spec(entry_id, (x, ""), None, {}, points=5)
    drawn, _ = lines(spec)  # warnings are collected, not raised
    (line,) = drawn
    assert np.isfinite(line.y).any(), f"{entry_id}: no finite value over {x} = {line.x}"
    fixed = dict(spec.series[0].step.inputs)
    middle = len(line.x) // 2
    if np.isfinite(line.y[middle]):
        with _quiet():
            direct = float(np.asarray(entry.call({**fixed, x: float(line.x[middle])}), dtype=float))
        assert line.y[middle] == pytest.approx(direct, rel=1e-12, nan_ok=True)


@contextmanager
def _quiet() -> Iterator[None]:
    """The formula's own warnings (e.g. out of its proven domain) are not what is tested here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_sweep_takes_the_command_line_names(tmp_path: Path) -> None:
    out = tmp_path / "s.png"
    for args in (("--x", "steps"), ("--x", "sigma"), ("--x", "noise-multiplier", "--set", "q=0.02"),
                 ("--x", "steps=100:1000:100", "--set", "noise-multiplier=1.1", "--by", "q=0.01,0.02")):
        code, stdout, err = run("plot", "sweep", "accountant.eps_rdp", *args, "-o", str(out), "--force", "--dpi", "50")
        assert code == 0 and "wrote" in stdout, (args, err)
    spec = sweep_spec("accountant.eps_rdp", ("noise_multiplier", ""), ("q", ""), {"--delta": "1e-6"}, points=5)
    assert spec.x == "sigma" and spec.logx and spec.series[0].by == ("q", (0.005, 0.01, 0.02))
    assert spec.series[0].step.inputs == {"steps": 1000.0, "delta": 1e-6}


def test_plot_list_is_plain_text() -> None:
    code, out, _ = run("plot", "list")
    assert code == 0 and "$" not in out and "\\" not in out
    assert "σₘ² = 2" in out and "δ = 10⁻⁵" in out
    assert plain_text(r"$\sigma_{\mathrm{server}}$, $U_{\max}$, $x^*$") == "σ_server, U_max, x*"


def test_legend_lists_lines_as_their_curves_end() -> None:
    """000-utility-vs-N: U grows with ε, so the legend reads ε = 10, 5, 1 from the top (it read 1, 5, 10)."""
    spec = presets()["000-utility-vs-N"]
    drawn, _ = lines(spec)
    assert legend_order(drawn) == [2, 1, 0]
    assert [line.y[-1] for line in (drawn[k] for k in legend_order(drawn))] == sorted(
        (line.y[-1] for line in drawn), reverse=True)
    legend = draw(spec, "png", dpi=40).legend
    assert [entry.split(" — ")[0] for entry in legend] == [r"$U$ at $\varepsilon = 10$", r"$U$ at $\varepsilon = 5$",
                                                           r"$U$ at $\varepsilon = 1$"]


@pytest.mark.parametrize("name", [n for n, f in presets().items()
                                  if any(s.kind == "estimate" for s in f.series)])
def test_every_estimate_line_is_marked_with_a_triangle(name: str) -> None:
    drawn = draw(presets()[name], "png", dpi=40)
    kinds = [line.kind for line in drawn.lines]
    assert "estimate" in kinds
    for kind, marker in zip(kinds, drawn.markers, strict=True):
        if kind in ("estimate", "published", "corrected", "disputed", "bound"):
            assert marker == STYLE[kind]["marker"], (name, kind, marker)
