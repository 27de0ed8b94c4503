"""Inputs are bounded before they are read: a device or pipe, a file over its cap, a document nested too deeply, a
figure title whose math nests too deeply — each one line naming the option, exit 2 (`dpcalc.files`).

Before: ``account --event /dev/zero`` read without end (16 GB resident, killed after 73 s); an event JSON nested
10⁵ deep, a TOML 5,000 deep and 300 nested ``self_composed`` gave RecursionError tracebacks; ``plot sweep --title``
with braces 400 deep gave a RecursionError of 2,999 lines. The depth checks count brackets without recursion, so
the tests also run them inside a deep call stack.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from dpcalc import files
from dpcalc.errors import DomainError
from tests.support.cli_runner import run

GAUSSIAN = {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}


def _error(*argv: str) -> str:
    code, _, err = run(*argv)
    lines = err.strip("\n").split("\n")
    assert code == 2 and len(lines) == 1 and lines[0].startswith("dpcalc: error: "), (code, err[-2000:])
    return lines[0]


def _self_composed(levels: int) -> dict[str, object]:
    event: dict[str, object] = GAUSSIAN
    for _ in range(levels - 1):
        event = {"class_name": "SelfComposedDpEvent", "count": 2, "event": event}
    return event


# ------------------------------------------------------------------------------------------ not a regular file

@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
@pytest.mark.parametrize("argv", [
    ["account", "--event", "/dev/zero", "--delta", "1e-5"],
    ["table", "/dev/zero"],
    ["secagg", "waterfill", "--cov", "/dev/zero", "--normalization", "sec5", "--sigma2", "0.1"],
    ["cuag", "rates", "--layer-norms", "/dev/zero"],
], ids=["event", "table", "matrix", "vector"])
def test_a_device_is_refused_before_it_is_read(argv: list[str]) -> None:
    assert "is not a regular file (a device, pipe or socket" in _error(*argv)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    """Opening a pipe for reading blocks until a writer comes: refused by its type, before it is opened."""
    fifo = tmp_path / "event.json"
    os.mkfifo(fifo)
    assert "--event" in _error("account", "--event", str(fifo), "--delta", "1e-5")


def test_a_document_over_its_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "event.json"
    big.write_text(json.dumps(GAUSSIAN) + " " * 2000)
    monkeypatch.setattr(files, "MAX_DOCUMENT_BYTES", 1000)
    line = _error("account", "--event", str(big), "--delta", "1e-5")
    assert "--event" in line and "is over 1000 B" in line


def test_a_file_that_grows_while_read_stops_at_the_cap(tmp_path: Path) -> None:
    """The read itself is bounded (one byte past the cap is an error), not only the size stat reported."""
    p = tmp_path / "x.json"
    p.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(DomainError, match=r"^--event: .* is over 10 B"):
        files._read_bounded("--event", p, 10)


# ------------------------------------------------------------------------------------------ nesting

@pytest.mark.parametrize("name, body", [
    ("deep.json", "[" * 100_000 + "]" * 100_000),
    ("deep.toml", "x = " + "[" * 5_000 + "]" * 5_000 + "\n"),
    ("composed.json", json.dumps(_self_composed(300))),
    # a TOML header nests without brackets: refused on the parsed tables (before the event constructors recurse)
    ("dotted.toml", 'class_name = "GaussianDpEvent"\n[' + ".".join(["event"] * 300) + "]\nx = 1\n"),
], ids=["json-1e5", "toml-5000", "self-composed-300", "toml-dotted-300"])
def test_an_event_nested_too_deeply_is_one_line(tmp_path: Path, name: str, body: str) -> None:
    (tmp_path / name).write_text(body, encoding="utf-8")
    line = _error("account", "--event", str(tmp_path / name), "--delta", "1e-5")
    assert line.startswith("dpcalc: error: --event ") and "nested too deeply" in line, line
    assert f"at most {files.MAX_NESTING})" in line or f"more than {files.MAX_NESTING} levels" in line, line


def test_an_event_at_the_deepest_nesting_is_accounted(tmp_path: Path) -> None:
    """`MAX_NESTING` levels are read and accounted by every accountant (no recursion limit is near)."""
    p = tmp_path / "e.json"
    p.write_text(json.dumps(_self_composed(files.MAX_NESTING)))
    assert files.nesting(p.read_text(), "JSON") == files.MAX_NESTING
    code, out, err = run("account", "--event", str(p), "--delta", "1e-5", "--json")
    assert code == 0, err
    assert all(r["eps"] > 0 for r in json.loads(out)["rows"])


def test_a_table_spec_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "nested.toml"
    spec.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    assert "nested.toml: arrays, objects or tables nested too deeply (3000 levels; at most 64)" in _error(
        "table", str(spec))


@pytest.mark.parametrize("text, kind, depth", [
    ('{"a": "[[[[{{", "b": [[1], {"c": []}]}', "JSON", 4),
    ('{"a": "\\"[[[", "b": [1]}', "JSON", 2),
    ("x = \"[[[\" # [[[[\ny = [[1], {a = [2]}]\nz = '''[[[\n[[['''\nw = '[['\nv = \"\"\"[[\"\"\"\n", "TOML", 3),
    ("[[column]]\nformula = 'x'\n[[column]]\n", "TOML", 2),
    (r"$\left(\left(x\right)\right)\leftarrow\{\}$", "mathtext", 2),
    (r"$x^{\frac{1}{\sqrt[3]{2}}}$", "mathtext", 3),
    ("", "JSON", 0),
])
def test_nesting_counts_brackets_outside_strings_and_comments(text: str, kind: str, depth: int) -> None:
    assert files.nesting(text, kind) == depth


def test_the_depth_checks_need_no_stack(tmp_path: Path) -> None:
    """Run with only ~50 frames of Python stack left: the checks themselves do not recurse."""
    deep = "[" * 200_000 + "]" * 200_000

    def nested(levels: int) -> None:
        if levels:
            nested(levels - 1)
            return
        with pytest.raises(DomainError, match="200000 levels"):
            files.parse_document("x", deep, "JSON")
        tower: list[object] = []
        for _ in range(5000):
            tower = [tower]
        with pytest.raises(DomainError, match="more than 64 levels"):
            files.check_depth("x", tower)

    nested(sys.getrecursionlimit() - 150)


# ------------------------------------------------------------------------------------------ figure titles

def test_a_title_whose_math_nests_too_deeply_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from dpcalc.plot.figure import MAX_MATH_NESTING

    title = "$x^" + "{" * 400 + "1" + "}" * 400 + "$"
    out = tmp_path / "f.svg"
    line = _error("plot", "sweep", "gdp.delta_from_eps", "--x", "eps=0.5:3:0.5", "--set", "mu=1", "--title", title,
                  "-o", str(out))
    assert line.startswith("dpcalc: error: --title: matplotlib cannot typeset ")
    assert line.endswith(f"(braces or \\left…\\right nested too deeply (400 levels; at most {MAX_MATH_NESTING}))")
    assert not out.exists()


@pytest.mark.parametrize("title", [
    "$" + r"\sqrt{\left(" * 5 + "x" + r"\right)}" * 5 + "$",  # 10 levels, the most allowed (~23 overflow the parser)
    "$" + r"\frac{1}{" * 10 + "x" + "}" * 10 + "$",
    "{" * 400 + " no math: braces are text",
])
def test_titles_up_to_the_nesting_cap_are_drawn(title: str, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "f.svg"
    code, _, err = run("plot", "sweep", "gdp.delta_from_eps", "--x", "eps=0.5:3:0.5", "--set", "mu=1", "--title",
                       title, "-o", str(out))
    assert code == 0 and out.stat().st_size > 0, err
