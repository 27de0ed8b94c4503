"""``dpcalc eval``: every catalog entry at every example (implementation, published form, mpmath digits)."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import pytest

from dpcalc import catalog
from tests.support.cli_runner import run, run_json

ALL = catalog.load()
CASES = [(fid, k) for fid in sorted(ALL) for k in range(len(ALL[fid].examples))]


def _args(f: catalog.Formula, inputs: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for i in f.inputs:
        value = inputs[i.name]
        text = ",".join(repr(float(x)) for x in value) if i.kind == "vector" else repr(float(value))
        out += [f"--{i.name}={text}"]
    return out


def _close(got: float, want: float, rtol: float, atol: float) -> bool:
    return math.isfinite(got) and abs(got - want) <= atol + rtol * abs(want)


def test_every_entry_has_an_example() -> None:
    assert [fid for fid, f in ALL.items() if not f.examples] == []


@pytest.mark.parametrize(("fid", "k"), CASES, ids=[f"{fid}#{k}" for fid, k in CASES])
def test_eval_every_example(fid: str, k: int) -> None:
    f = ALL[fid]
    ex = f.examples[k]
    published = ex.published_expected is not None
    doc = run_json("eval", fid, *_args(f, dict(ex.inputs)), *(["--as-published"] if published else []))
    (row,) = doc["rows"]
    out = f.output.name
    assert _close(float(row[out]), float(ex.expected), ex.rtol, ex.atol), (row[out], ex.expected)
    if published:
        assert _close(float(row[f"{out}_published"]), float(ex.published_expected), ex.rtol, ex.atol)
        assert doc["warnings"]  # the published form says it is wrong (an ErratumWarning)
    assert doc["meta"]["formula"] == fid


def test_precision_prints_the_digits() -> None:
    """--precision 40: the SymPy form at 40 significant digits, equal to mpmath's own value of eq. (4.7)."""
    doc = run_json("eval", "midp.server_sigma", "--eps", "5", "--d", "1000", "--C", "1", "--p_max", "1",
                   "--precision", "40")
    digits = doc["rows"][0]["sigma_digits"]
    with mpmath.workdps(60):
        want = mpmath.nstr(1 / mpmath.sqrt(1000 * mpmath.expm1(mpmath.mpf(10) / 1000)), 40, strip_zeros=False)
    assert digits == want and len(digits.replace(".", "").lstrip("0")) == 40
    assert float(digits) == pytest.approx(doc["rows"][0]["sigma"], rel=1e-14)
    assert mpmath.mp.dps == 15  # no global precision leaks from the evaluation


def test_grid_and_errors() -> None:
    doc = run_json("eval", "gdp.delta_from_eps", "--eps", "0:2:1", "--mu", "0.5,1")
    assert [(r["eps"], r["mu"]) for r in doc["rows"]] == [(0, 0.5), (0, 1), (1, 0.5), (1, 1), (2, 0.5), (2, 1)]
    for args, needle in [(["nope.id"], "unknown formula id"), (["gdp.delta_from_eps", "--eps", "1"], "needs --mu"),
                         (["gdp.delta_from_eps", "--eps", "1", "--mu", "1", "--zz", "1"], "no input 'zz'"),
                         (["gdp.delta_from_eps", "--eps", "1", "--mu", "1", "--as-published"], "no published form")]:
        code, _, err = run("eval", *args)
        assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
