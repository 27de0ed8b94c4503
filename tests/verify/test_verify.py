"""`dpcalc verify` and the verification library: correct formulas pass, perturbed ones are flagged.

Statistical settings under test: Monte Carlo checks use two-sided 99.9 % intervals at the default 400 000 samples
(false-alarm rate ≈ 0.1 % per Monte Carlo check and seed); exact-numeric checks use each recipe's stated tolerance.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpcalc import catalog, midp
from dpcalc import verify as V
from dpcalc.checks import registry
from dpcalc.errors import DomainError
from tests.support import processes
from tests.support.cli_runner import run


def _one(fid: str, **kw: Any) -> V.CheckRow:
    rows = V.verify([catalog.get(fid)], **kw)
    assert len(rows) == 1
    return rows[0]


def test_paper_000_passes_at_default_settings() -> None:
    rows = V.verify(catalog.by_paper("000"))
    assert [r.id for r in rows] == [f.id for f in catalog.by_paper("000")]
    bad = [(r.id, r.verdict, r.detail) for r in rows if r.verdict != "pass"]
    assert not bad
    assert V.exit_code(rows) == 0
    assert {r.method for r in rows} == {"monte-carlo", "exact-numeric"}
    for r in rows:
        assert r.ci_low <= r.closed_form <= r.ci_high
        assert (r.z is not None) == (r.method == "monte-carlo")


def _scale(fn: Callable[..., Any], factor: float) -> Callable[..., Any]:
    return lambda *a, **k: np.asarray(fn(*a, **k)) * factor


_ORIG = {name: getattr(midp, name) for name in dir(midp) if callable(getattr(midp, name))}

# (catalog id, library function the catalog points at, perturbed replacement): typical slips
PERTURBATIONS: list[tuple[str, str, Callable[..., Any]]] = [
    ("midp.server_sigma", "server_sigma", _scale(_ORIG["server_sigma"], 0.9)),
    ("midp.server_sigma_equal", "server_sigma_equal", _scale(_ORIG["server_sigma_equal"], 0.9)),
    ("midp.client_sigma", "client_sigma",  # dropped Σp² factor
     lambda eps, d, C=1.0, p_max=1.0, sum_p2=1.0, **k: _ORIG["client_sigma"](eps, d, C=C, p_max=p_max, **k)),
    ("midp.client_sigma_equal", "client_sigma_equal", _scale(_ORIG["client_sigma_equal"], 0.9)),
    ("midp.server_leakage", "server_leakage", _scale(_ORIG["server_leakage"], 2.0)),  # dropped ½
    ("midp.client_leakage", "client_leakage", _scale(_ORIG["client_leakage"], 0.5)),
    ("midp.utility_server", "utility_server", _scale(_ORIG["utility_server"], 0.81)),  # σ × 0.9 inside
    ("midp.utility_client", "utility_client",  # dropped Σp²
     lambda sigma, d, sum_p2=1.0: _ORIG["utility_client"](sigma, d, 1.0)),
    ("midp.utility_at_budget", "utility_at_budget",  # dropped factor 2 in e^{2ε/d}
     lambda eps, d, C=1.0, p_max=1.0, **k: _ORIG["utility_at_budget"](eps / 2, d, C=C, p_max=p_max, **k)),
    ("midp.alpha", "alpha", _scale(_ORIG["alpha"], 0.9)),
    ("midp.optimal_utility", "optimal_utility", _scale(_ORIG["optimal_utility"], 0.99)),
    ("midp.optimal_utility_product", "optimal_utility_product_form", _scale(_ORIG["optimal_utility_product_form"],
                                                                            1.01)),
    ("midp.optimal_weights", "optimal_weights", lambda alphas: np.full(len(alphas), 1.0 / len(alphas))),
    ("midp.corollary2_sigma", "corollary2_sigmas", lambda alphas: np.asarray(alphas) / len(alphas)),  # /N for /√N
    ("midp.personalized_leakage", "personalized_leakage", _scale(_ORIG["personalized_leakage"], 0.9)),
    ("midp.personalized_utility", "personalized_utility", _scale(_ORIG["personalized_utility"], 0.9)),
    ("midp.baseline_client_sigma", "baseline_client_sigma", _scale(_ORIG["baseline_client_sigma"], 0.9)),
    ("midp.baseline_server_sigma", "baseline_server_sigma", _scale(_ORIG["baseline_server_sigma"], 0.9)),
    ("midp.clip_update", "clip_update", lambda C, w_norm, eta: C + eta * (C - w_norm)),  # sign slip
]


def test_every_midp_entry_has_a_perturbation() -> None:
    assert {p[0] for p in PERTURBATIONS} == {f.id for f in catalog.by_paper("000")}


@pytest.mark.parametrize(("fid", "name", "wrong"), PERTURBATIONS, ids=[p[0] for p in PERTURBATIONS])
def test_perturbed_implementation_is_flagged(monkeypatch: pytest.MonkeyPatch, fid: str, name: str,
                                             wrong: Callable[..., Any]) -> None:
    """At the default settings (400k samples, 99.9 %), each slip moves the closed form out of the interval."""
    monkeypatch.setattr(midp, name, wrong)
    row = _one(fid)
    assert row.verdict == "fail", row
    assert V.exit_code([row]) == 1


def test_any_registered_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """No check may be unable to fail: scaling the implementation's output by 2 (a dropped factor ½) or, for
    one-sided checks of bounds (where a doubled upper bound is still valid), by ½ is flagged for every catalog
    entry whose recipe is registered (all families; 20k samples, which still resolves a factor 2)."""
    real_function = catalog.Formula.function
    factor = {"value": 2.0}

    def scaled(self: catalog.Formula, published: bool = False) -> Callable[..., Any]:
        fn = real_function(self, published)
        return lambda *a, **k: np.asarray(fn(*a, **k), dtype=np.float64) * factor["value"]

    monkeypatch.setattr(catalog.Formula, "function", scaled)
    unflagged = []
    for f in catalog.load().values():
        if registry.get_recipe(str(f.check.get("recipe", ""))) is None:
            continue
        verdicts = []
        for factor["value"] in (2.0, 0.5):
            row = V.run_check(f, samples=20_000)
            verdicts.append(row.verdict)
            if row.verdict != "pass" or row.closed_form == 0:
                break
        if verdicts == ["pass", "pass"]:
            unflagged.append((f.id, row.detail))
    assert not unflagged


def test_false_alarm_rate_is_controlled() -> None:
    """Coverage of the intervals: at level 99 %, 300 seeds of two Monte Carlo checks (a ratio estimate and the
    root-of-a-simulated-curve estimate) fail about 1 % of the time; we require at most 10 of 300 each
    (binomial(300, 0.01) exceeds 10 with probability < 1e-3)."""
    for fid in ("midp.utility_server", "midp.server_sigma"):
        f = catalog.get(fid)
        fails = sum(V.run_check(f, samples=5_000, seed=s, level=0.99).verdict == "fail" for s in range(300))
        assert fails <= 10, (fid, fails)


def test_missing_and_error_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    base = catalog.get("midp.alpha")
    ghost = dataclasses.replace(base, id="test.ghost", check={"method": "monte-carlo", "recipe": "no_such_recipe"})
    row = V.run_check(ghost)
    assert row.verdict == "missing" and "no_such_recipe" in row.detail
    assert V.exit_code([row]) == 1
    assert V.run_check(dataclasses.replace(base, check={})).verdict == "missing"
    assert V.run_check(dataclasses.replace(base, examples=(), check={"recipe": "midp_alpha_bound"})).verdict \
        == "missing"

    def boom(formula: Any, values: Any, ctx: Any) -> Any:
        raise RuntimeError("kaput")

    monkeypatch.setitem(registry._RECIPES, "test_boom", boom)
    row = V.run_check(dataclasses.replace(base, check={"method": "exact-numeric", "recipe": "test_boom"}))
    assert row.verdict == "error" and "kaput" in row.detail
    assert row.as_dict()["estimate"] is None  # NaN never reaches JSON


def test_as_published_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry whose erratum has a published form gets a second row, checked against that form; it fails and
    does not count for the exit code."""
    monkeypatch.setattr(midp, "_test_published_sigma", _scale(_ORIG["server_sigma"], 1.5), raising=False)
    base = catalog.get("midp.server_sigma")
    err = catalog.Erratum(text="test erratum", evidence="test", published_sympy="3/2*" + base.sympy,
                          published_implementation="dpcalc.midp._test_published_sigma")
    f = dataclasses.replace(base, status="corrected", erratum=err)
    assert V.has_published_form(f)
    rows = V.verify([f], as_published=True)
    assert [(r.published, r.verdict) for r in rows] == [(False, "pass"), (True, "fail")]
    assert rows[1].closed_form == pytest.approx(1.5 * rows[0].closed_form)
    assert V.exit_code(rows) == 0
    assert V.summary(rows)["published_forms_failing"] == "1/1"
    assert len(V.verify([f])) == 1
    sympy_only = dataclasses.replace(f, erratum=dataclasses.replace(err, published_implementation=""))
    rows = V.verify([sympy_only], as_published=True, samples=2000)
    assert [(r.published, r.verdict) for r in rows] == [(False, "pass"), (True, "missing")]


def test_published_rows_for_every_catalog_erratum() -> None:
    """Every catalog entry with a published form is run published (rows marked), reproducing the erratum."""
    with_pub = [f for f in catalog.load().values() if V.has_published_form(f)]
    rows = V.verify(with_pub, samples=20_000, as_published=True)
    assert sum(r.published for r in rows) == len(with_pub)


def test_same_seed_same_rows_any_workers() -> None:
    fs = [catalog.get(i) for i in ("midp.server_sigma", "midp.utility_client", "midp.alpha", "midp.optimal_utility")]
    one = V.verify(fs, samples=20_000, seed=7, workers=1)
    two = V.verify(fs, samples=20_000, seed=7, workers=2)
    key = [(r.id, r.closed_form, r.estimate, r.ci_low, r.ci_high, r.verdict) for r in one]
    assert key == [(r.id, r.closed_form, r.estimate, r.ci_low, r.ci_high, r.verdict) for r in two]
    other = V.verify(fs[:1], samples=20_000, seed=8)
    assert other[0].estimate != one[0].estimate


def test_library_argument_errors() -> None:
    with pytest.raises(DomainError, match="samples"):
        V.verify([catalog.get("midp.alpha")], samples=5)
    with pytest.raises(DomainError, match="level"):
        V.verify([catalog.get("midp.alpha")], level=1.0)
    with pytest.raises(KeyError):
        V.select(["midp.nope"])
    with pytest.raises(KeyError):
        V.select([], paper="999")
    assert V.select([]) == []
    sel = V.select(["midp.alpha"], paper="000")
    assert sel[0].id == "midp.alpha" and len(sel) == len(catalog.by_paper("000"))


# --- CLI ------------------------------------------------------------------------------------------------

def test_cli_json_rows() -> None:
    code, out, _ = run("verify", "midp.alpha", "midp.utility_server", "--json", "--samples", "20000")
    assert code == 0
    doc = json.loads(out)
    assert [r["id"] for r in doc["rows"]] == ["midp.alpha", "midp.utility_server"]
    for r in doc["rows"]:
        assert {"id", "method", "closed_form", "estimate", "ci_low", "ci_high", "verdict", "z", "rel_error",
                "published"} <= set(r)
        assert r["verdict"] == "pass"
    assert doc["rows"][0]["method"] == "exact-numeric" and doc["rows"][0]["z"] is None
    assert doc["rows"][1]["method"] == "monte-carlo" and isinstance(doc["rows"][1]["z"], float)
    assert doc["meta"]["samples"] == 20000 and doc["summary"]["pass"] == 2


def test_cli_all_covers_every_entry() -> None:
    """`verify --all` (small --samples) has one row per catalog entry of every formulas/*.toml; unregistered recipes
    show as 'missing' and make the exit code 1."""
    code, out, _ = run("verify", "--all", "--json", "--samples", "2000", "--workers", "2")
    doc = json.loads(out)
    assert [r["id"] for r in doc["rows"]] == list(catalog.load())
    assert all(r["verdict"] in V.VERDICTS for r in doc["rows"])
    expected = 0 if all(r["verdict"] == "pass" for r in doc["rows"]) else 1
    assert code == expected


def test_cli_table_and_other_formats(tmp_path: Any) -> None:
    code, out, _ = run("verify", "--paper", "000", "--samples", "20000")
    assert code == 0
    assert "midp.server_sigma" in out and "verdict" in out and "false-alarm" in out
    code, out, _ = run("verify", "midp.alpha", "--format", "csv")
    assert code == 0 and out.splitlines()[0].startswith("id,published,method,closed_form,estimate")
    code, out, _ = run("verify", "midp.alpha", "--format", "markdown")
    assert code == 0 and "| midp.alpha |" in out
    target = tmp_path / "v.json"
    code, _, _ = run("verify", "midp.alpha", "--json", "--output", str(target))
    assert code == 0 and json.loads(target.read_text())["rows"][0]["verdict"] == "pass"
    code, _, err = run("verify", "midp.alpha", "--json", "--output", str(target))
    assert code == 2 and "--force" in err


def test_cli_failure_exit_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(midp, "alpha", _scale(_ORIG["alpha"], 0.9))
    code, out, _ = run("verify", "midp.alpha", "--json", "--workers", "1")
    assert code == 1
    assert json.loads(out)["rows"][0]["verdict"] == "fail"


@pytest.mark.parametrize("args", [
    ["verify"], ["verify", "midp.nope"], ["verify", "--paper", "999"], ["verify", "--all", "--samples", "5"],
    ["verify", "--all", "--workers", "0"], ["verify", "--all", "--level", "1.5"], ["verify", "--all", "--samples", "x"],
])
def test_cli_bad_input(args: list[str]) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert "Traceback" not in err


def test_cli_help_states_false_alarm_rate() -> None:
    code, out, _ = run("verify", "--help")
    assert code == 0 and "false-alarm" in out and "Example: dpcalc verify" in out


@pytest.mark.skipif(shutil.which("dpcalc") is None, reason="console script not installed")
def test_installed_dpcalc_verify_subprocess() -> None:
    res = processes.run(["dpcalc", "verify", "midp.clip_update", "--json"], capture_output=True, text=True,
                        cpu_seconds=120)
    assert res.returncode == 0, res.stderr
    row = json.loads(res.stdout)["rows"][0]
    assert row["verdict"] == "pass" and math.isclose(row["closed_form"], 1.5)
    assert sys.executable  # the same interpreter's environment provides the script
