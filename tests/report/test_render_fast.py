"""The vectorised renderers write exactly what the per-cell reference formatter writes, in every format.

The fast path (:func:`dpcalc.report.cells.column_cells`: distinct values formatted once, integers through int64,
LaTeX exponents by one regular expression; rows joined without per-row Python) is compared byte for byte with
naive row-by-row renderers built on :func:`dpcalc.report.cells.cell`, on random values and edge cases: 0, -0,
subnormals, 1e±300, the float extremes, integer-valued floats beyond 2^53 and 2^63, values printed in 'e'
notation, ±inf (a stated reason), text, None, ints, bools and NumPy scalars.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcalc import __version__
from dpcalc.report import _chunks as chunks
from dpcalc.report import render as R
from dpcalc.report._exact import csv_value, json_value
from dpcalc.report._text import display_width
from dpcalc.report.cells import Kind, cell, column_cells
from dpcalc.report.formats import units_of
from dpcalc.report.grid import Rows, flatten
from dpcalc.report.render import Column, Format, Result, render

EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1e-300, -1e300, 1e300,
         1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0, 3.0, 1e15, 1e16, 1e17, 123456789012.0,
         2.0**53, 2.0**53 + 2, 2.0**63, -2.0**63, 2.0**64, 1e22, 1e23, 0.1, 0.3, 1e-4, 1e-5, 9.9999999995e-5,
         0.00012345678901, 12345.678901234, 9999999999.5, 99999.99999999, 1e10, 1e-10, 0.5, 2.5, -2.5, 1 / 3,
         2 / 3, 123456.5, 1e5, 1e6, 999999.5, np.inf, -np.inf]
KINDS: tuple[Kind, ...] = ("text", "latex", "csv", "json")
NUMBERS = ("", ".4g", ".3e", ".5f", ".17g", ".1e")


def _values(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        wide = rng.standard_normal(n) * 10.0 ** rng.integers(-320, 309, n)
    parts = [np.array(EDGES), wide, rng.integers(-10**6, 10**6, n).astype(float), np.round(rng.random(n), 3),
             rng.choice(EDGES, n)]  # repeats: the distinct-value path
    return rng.permutation(np.concatenate(parts))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize("number", NUMBERS)
def test_column_cells_equal_the_reference(kind: Kind, integer: bool, number: str) -> None:
    a = _values(7, 700)
    for chunk in (a, a[:40], np.repeat(a[:50], 9), a[:0]):  # all distinct, few (no dedup), many repeats, empty
        want = [cell(x, kind, integer, number) for x in chunk.tolist()]
        assert column_cells(chunk, kind, integer, number) == want
        assert column_cells(chunk.tolist(), kind, integer, number) == want


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=300), st.sampled_from(KINDS), st.booleans(),
       st.sampled_from(NUMBERS))
def test_column_cells_on_any_floats(xs: list[float], kind: Kind, integer: bool, number: str) -> None:
    xs = xs * (1 + 300 // len(xs))  # long enough to take the distinct-value path too
    assert column_cells(np.array(xs), kind, integer, number) == [cell(x, kind, integer, number) for x in xs]


def test_nan_in_json_is_an_error_as_in_the_reference() -> None:
    with pytest.raises(ValueError, match="JSON"):
        column_cells(np.array([1.0, np.nan]), "json")
    assert column_cells(np.array([np.nan]), "latex") == ["--"] == [cell(np.nan, "latex")]


# ------------------------------------------------------------------ naive row-by-row reference renderers


def _cells(result: Result, kind: Kind) -> list[list[str]]:
    return [[cell(r.get(c.key), kind, c.integer, c.number) for c in result.columns] for r in result.rows]


def _ref_csv(result: Result) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.key for c in result.columns])
    w.writerows([csv_value(r.get(c.key), c.integer) for c in result.columns] for r in result.rows)
    return buf.getvalue()


def _ref_json(result: Result) -> str:
    meta = {"formula": result.formula, "units": units_of(result), "dpcalc_version": __version__, **result.meta}
    rows = [{c.key: json_value(r.get(c.key), c.integer) for c in result.columns} for r in result.rows]
    return json.dumps({"rows": rows, "warnings": result.warnings, "meta": meta}, indent=2, allow_nan=False) + "\n"


def _ref_markdown(result: Result) -> str:
    out = "| " + " | ".join(c.header.replace("|", "\\|") for c in result.columns) + " |\n|" + "|".join(
        ":---" if c.text else "---:" for c in result.columns)
    out += "|\n" + "".join("| " + " | ".join(x.replace("|", "\\|") if c.text else x
                                             for x, c in zip(row, result.columns, strict=True)) + " |\n"
                           for row in _cells(result, "text"))
    tail = (["", result.note] if result.note else []) + [f"\n> warning: {w}" for w in result.warnings]
    return out + ("\n".join(tail) + "\n" if tail else "")


def _ref_latex_body(result: Result) -> str:
    return "".join("  " + " & ".join(row) + " \\\\\n" for row in _cells(result, "latex"))


def _ref_table(result: Result) -> str:
    body = _cells(result, "text")
    heads = [c.header for c in result.columns]
    widths = [max([display_width(h)] + [display_width(row[i]) for row in body]) for i, h in enumerate(heads)]

    def line(row: list[str], bar: str) -> str:
        cells_ = [(f" {x}{' ' * (w - display_width(x))} " if c.text else f" {' ' * (w - display_width(x))}{x} ")
                  for x, w, c in zip(row, widths, result.columns, strict=True)]
        return bar + bar.join(cells_) + bar

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    out = [result.title] if result.title else []
    out += [rule("┏", "━", "┳", "┓"), line(heads, "┃"), rule("┡", "━", "╇", "┩")]
    out += [line(row, "│") for row in body] + [rule("└", "─", "┴", "┘")]
    return "\n".join(out + ([result.note] if result.note else [])) + "\n"


def _check(result: Result) -> None:
    assert render(result, Format.csv) == _ref_csv(result)
    assert render(result, Format.json) == _ref_json(result)
    assert render(result, Format.markdown) == _ref_markdown(result)
    latex = render(result, Format.latex)
    assert latex.split("\\midrule\n", 1)[1] == _ref_latex_body(result) + "\\bottomrule\n\\end{tabular}\n"
    assert render(result, Format.table) == _ref_table(result)
    for small in (0, 10**9):  # the table cell by cell (a small result) and in chunks (a large one): the same text
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(R, "_SMALL", small)
            assert render(result, Format.table) == _ref_table(result)


NUMBER_COLUMNS = [Column("a", "α (x)", r"$\alpha$"), Column("b", "b", integer=True), Column("c", "c", number=".4g"),
                  Column("d", "d", integer=True, number=".3e"), Column("e", "e", number=".5f"),
                  Column("f", "f", text=True)]


def test_column_stored_sweep_matches_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "CHUNK", 1000)  # several chunks, the last one short
    a = _values(3, 1000)
    rng = np.random.default_rng(4)
    rows = Rows({c.key: rng.permutation(a) for c in NUMBER_COLUMNS})
    _check(Result(columns=[*NUMBER_COLUMNS, Column("absent", "absent")], rows=rows, title="sweep",
                  note="inf means no finite bound", warnings=["a stated reason"]))


def test_broadcast_grid_matches_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "CHUNK", 333)
    eps = np.array([0.001, 0.5, 1.0, 2.0, 1e-5, -0.0, 0.0, 1e300, np.inf, 2.0**70])[:, None, None]
    d = np.array([1.0, 2.0, 1000.0, 1e20, 3.5, 1e16, 7.0])[None, :, None]
    n = np.arange(1.0, 15.0)[None, None, :]
    with np.errstate(all="ignore"):
        sigma = eps * 3.3 / np.sqrt(d) + n
    rows = flatten({"eps": eps, "d": d, "n": n}, {"sigma": sigma, "k": np.broadcast_to(d, sigma.shape)})
    assert rows.distinct("eps") is not None and rows.distinct("sigma") is None
    cols = [Column("eps", "ε", number=".3e"), Column("d", "d", integer=True), Column("n", "N", integer=True),
            Column("sigma", "σ"), Column("k", "k", text=True, integer=True)]
    _check(Result(columns=cols, rows=rows, title="grid", note="∞ where eps is inf"))


def test_rows_of_dicts_with_text_match_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "CHUNK", 500)
    texts = ["abc", "a|b", "ü€σ 字", "x,y", 'q"t', "1e5", "  sp", "tab\t", "_&%$#{}~^\\<>", "", "line\nbreak"]
    others: list[Any] = [None, 1, 2.5, np.float64(3.25), True, "txt", 7.0, np.int64(4), 10**20, -0.0]
    a = _values(5, 300).tolist()
    rows = [{"x": a[i], "name": texts[i % len(texts)], "k": others[i % len(others)], "i": float(i % 5),
             "y": a[-i]} for i in range(len(a))]
    cols = [Column("x", "x"), Column("name", "name", text=True), Column("k", "k"), Column("i", "i", integer=True),
            Column("y", "y", number=".6g"), Column("missing", "m")]
    _check(Result(columns=cols, rows=rows, title="dicts", note="n"))
    _check(Result(columns=[Column("only", "only")], rows=[{"only": None}, {"only": ""}, {"only": 1.5}]))


@pytest.mark.parametrize("constant", ["bits", "a,b", 'q"t', "σ² ü", "", 2.5, None, 7])
def test_constant_and_missing_cells_of_a_sweep_match_the_reference(monkeypatch: pytest.MonkeyPatch,
                                                                   constant: Any) -> None:
    monkeypatch.setattr(chunks, "CHUNK", 97)
    a = _values(9, 100)
    gone = a.copy()
    gone[::3] = np.nan  # "no value" (an optimum not attained): None in the row, — in a table
    z = np.broadcast_to(gone[:, None], (a.size, 3))
    rows = flatten({"x": a[:, None]}, {"y": gone[:, None] * np.ones(3), "z": z}, missing=("y", "z"))
    rows = rows.with_constants(units=constant)
    assert rows[0]["y"] is None and rows[0]["units"] == constant and rows.column("y", 0, 1) == [None]
    assert rows.distinct("z") is not None  # a broadcast output with missing cells: not formatted as distinct
    cols = [Column("x", "x"), Column("y", "y", integer=True), Column("units", "units", text=True),
            Column("z", "z")]
    _check(Result(columns=cols, rows=rows, note="inf: no finite value"))
    _check(Result(columns=[Column("units", "units", text=True)], rows=rows))
    R.check_finite(Result(columns=cols, rows=rows, note="inf: none"))  # a missing key's NaN is no failure


def test_empty_and_columnless_results() -> None:
    _check(Result(columns=[Column("x")], rows=[]))
    _check(Result(columns=[Column("x"), Column("y", text=True)], rows=Rows({"x": np.array([])})))


def test_progress_is_shown_for_large_sweeps_only_and_never_changes_the_output(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from dpcalc import _progress

    rows = flatten({"a": np.arange(300.0)[:, None]}, {"b": np.ones((300, 2))})
    result = Result(columns=[Column("a"), Column("b")], rows=rows)
    assert R._progress_total(result, Format.csv, None) == 0  # below PROGRESS_ROWS
    monkeypatch.setattr(R, "PROGRESS_ROWS", 100)
    monkeypatch.setattr(chunks, "CHUNK", 64)
    assert R._progress_total(result, Format.csv, None) == 600
    assert R._progress_total(result, Format.table, None) == 1200  # two passes
    assert R._progress_total(result, Format.json, None) == 0  # JSON is for programs
    monkeypatch.setattr(_progress, "enabled", lambda: True)
    for fmt in (Format.csv, Format.table):
        R.emit(result, fmt)
        out = capsys.readouterr().out
        assert out == render(result, fmt)  # the bar on stderr never takes stdout's rows
