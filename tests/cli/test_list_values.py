"""A list of many values with one bad value: every value is checked against its input's domain before the sweep
is split, so the bad one costs one call of the command's body, not a bisection of reruns (`dpcalc.cli.sweep`).

Before: ``account -z`` with 3,000 values, the last -1, re-ran the accountants on halves of the list for the 30 s
the split may take and then refused (537 s on a loaded machine, 114 s of CPU); 300 values took 35 s. The tests count
the body's calls (what the code does), not seconds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from dpcalc.cli import sweep
from tests.support.cli_runner import run


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, list[float]]]]:
    """The axes of every call of a command's body made while a failed sweep is split."""
    seen: list[dict[str, list[float]]] = []
    original = sweep.split

    class Counted:
        def __init__(self, cmd: Any) -> None:
            self._cmd = cmd

        def __getattr__(self, name: str) -> Any:
            return getattr(self._cmd, name)

        def body(self, args: Any) -> Any:
            seen.append({n: list(v) for n, v in args.axes().items()})
            return self._cmd.body(args)

    monkeypatch.setattr(sweep, "split", lambda cmd, *a, **k: original(Counted(cmd), *a, **k))
    yield seen


def _values(n: int, bad: dict[int, str]) -> str:
    return ",".join(bad.get(i, str(i + 1)) for i in range(n))


def test_one_bad_value_of_3000_is_one_call(calls: list[dict[str, list[float]]]) -> None:
    code, out, err = run("sigma", "--eps", _values(3000, {2999: "-1"}), "--d", "1000", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert len(rows) == 3000 and [r["eps"] for r in rows[-2:]] == [2999.0, -1.0]
    assert rows[-1]["sigma"] is None and rows[-1]["reason"].startswith("--eps must be a finite number > 0")
    assert all(r["reason"] is None and r["sigma"] > 0 for r in rows[:-1])
    assert [len(c["eps"]) for c in calls] == [2999, 1]  # the values inside in one call, the bad one on its own


def test_bad_values_anywhere_keep_the_grid_order(calls: list[dict[str, list[float]]]) -> None:
    code, out, err = run("sigma", "--eps", _values(40, {0: "-1", 10: "0", 11: "-2", 39: "-5"}), "--d", "1000,2000",
                         "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    missing = [(r["eps"], r["d"]) for r in rows if r["sigma"] is None]
    assert missing == [(e, d) for e in (-1.0, 0.0, -2.0, -5.0) for d in (1000.0, 2000.0)]
    assert [(r["eps"], r["d"]) for r in rows] == [(e, d) for e in [-1, *range(2, 11), 0, -2, *range(13, 40), -5]
                                                  for d in (1000.0, 2000.0)]
    assert len(calls) == 6  # 4 bad values (one point each) and the 2 runs between them


def test_a_refused_amount_of_work_is_refused_at_once(calls: list[dict[str, list[float]]]) -> None:
    """The values inside the domain are estimated as one call: over the minute, one line, nothing computed."""
    code, _, err = run("account", "-z", ",".join([str(1 + i / 1000) for i in range(2999)] + ["-1"]), "--q", "0.01",
                       "--steps", "10", "--delta", "1e-5")
    assert code == 2 and err.count("\n") == 1 and "at most 1 min per call" in err, err
    assert [len(c["sigma"]) for c in calls] == [2999]


def test_a_value_the_body_takes_outside_the_declared_domain_is_computed(calls: list[dict[str, list[float]]]) -> None:
    """μ = 0 is outside the catalog's (0, inf) but μ-GDP's ε(δ) takes it (ε = 0): its row is computed."""
    code, out, err = run("gdp", "eps", "--mu", "0,1,-1", "--delta", "1e-5", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [(r["mu"], r["eps"]) for r in rows[:2]] == [(0.0, 0.0), (1.0, pytest.approx(4.377178, rel=1e-6))]
    assert rows[2]["eps"] is None and "--mu must be" in rows[2]["reason"]


def test_a_bad_value_of_another_option_refuses_without_splitting(calls: list[dict[str, list[float]]]) -> None:
    """Every point fails: the bad single value is outside its domain, the 3,000 are not split into points."""
    code, _, err = run("sigma", "--eps", "1:3000:1", "--d", "-1,-2")
    assert code == 2 and err.count("\n") == 1 and "--d must be" in err
    assert [{n: len(v) for n, v in c.items()} for c in calls] == [{"eps": 1, "d": 1, "C": 1}]  # one point: the reason
