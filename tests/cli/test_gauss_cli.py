"""CLI ``dpcalc gauss``: the documented JSON keys, units on every row, errata columns, errors (exit 2, one line)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tests.support.cli_runner import run, run_json


def _json(*args: str) -> dict[str, Any]:
    return run_json("gauss", *args)


def test_case2_fig5_grid_with_published() -> None:
    """Zeng, Yang & Dai 2022, Fig. 5 parameters (n = 101, σ_m² = 2, σ_k² = 1.8), ε = 1..10: 10 rows; the corrected and
    published columns match reference values from exact log-determinants (6 digits)."""
    doc = _json("case2", "--eps", "1:10:1", "--n", "101", "--var", "2", "--cov", "1.8", "--as-published")
    rows = doc["rows"]
    assert len(rows) == 10
    assert {"sigma2", "u_max", "sigma2_published", "u_published", "leakage_published", "units"} <= set(rows[0])
    assert all(r["units"] == "bits" for r in rows)
    assert rows[0]["sigma2"] == pytest.approx(0.0673326, rel=1e-5)
    assert rows[0]["leakage_published"] == pytest.approx(0.106786, rel=1e-5)
    assert rows[2]["u_published"] == pytest.approx(1.101886, rel=1e-6)
    assert any("gauss.case2_sigma2" in w for w in doc["warnings"])


def test_case1_case3_keys() -> None:
    r1 = _json("case1", "--eps", "1", "--variances", "1,0.5,0.25")["rows"][0]
    assert r1["sigma2"] == pytest.approx(1 / 3) and r1["u_max"] == pytest.approx(0.68821383616)
    assert r1["units"] == "bits"
    r3 = _json("case3", "--eps", "1", "--n", "101", "--var", "30", "--cov", "2")["rows"][0]
    assert {"sigma2", "sigma_e2", "u_max", "units"} <= set(r3)
    assert r3["u_max"] == pytest.approx(1.008740, rel=1e-6)
    r3n = _json("case3", "--eps", "1", "--n", "101", "--var", "30", "--cov", "2", "--nonneg")["rows"][0]
    assert r3n["sigma_e2"] == 0 and r3n["u_max"] == pytest.approx(1.008537, rel=1e-6)


def test_custom_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """custom: .csv and .npy covariances; privacy/utility equal the Case-2 closed forms (rtol 1e-10)."""
    from dpcalc import gaussian_mi as gauss

    sx = gauss.equicorrelated_matrix(5, 2.0, 1.8)
    np.savetxt(tmp_path / "sx.csv", sx, delimiter=",")
    np.save(tmp_path / "sz.npy", 0.3 * np.eye(5))
    row = _json("custom", "--sigma-x", str(tmp_path / "sx.csv"), "--sigma-z", str(tmp_path / "sz.npy"))["rows"][0]
    assert row["privacy"] == pytest.approx(gauss.case2_privacy(0.3, 2, 1.8, 5), rel=1e-10)
    assert row["utility"] == pytest.approx(gauss.case2_utility(0.3, 2, 1.8, 5), rel=1e-10)
    assert row["units"] == "bits"
    (tmp_path / "asym.csv").write_text("2,1\n0,2\n")
    code, _, err = run("gauss", "custom", "--sigma-x", str(tmp_path / "asym.csv"), "--sigma-z",
                       str(tmp_path / "sz.npy"))
    assert code == 2 and "symmetric" in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown", "latex"])
@pytest.mark.parametrize("number", ["4", "5", "6", "7"])
def test_figures_every_format(number: str, fmt: str) -> None:
    code, out, err = run("gauss", "figure", number, "--format", fmt)
    assert code == 0, err
    assert "published" in out.lower() or fmt in ("json", "csv")
    if fmt == "json":
        rows = json.loads(out)["rows"]
        assert rows and all("u_published" in r and "u_max" in r and r["units"] == "bits" for r in rows)


@pytest.mark.parametrize(("args", "needle"), [
    (["case2", "--eps", "1", "--n", "101", "--var", "2", "--cov", "2"], "cov must be < var"),
    (["case2", "--eps", "1", "--n", "101", "--var", "2", "--cov", "-0.1"], "cov must be > -var/(n-1)"),
    (["case2", "--eps", "1", "--n", "1", "--var", "2", "--cov", "1.8"], "n must be an integer >= 2"),
    (["case2", "--eps", "1", "--n", "101", "--var", "-1", "--cov", "1.8"], "var must be"),
    (["case2", "--eps", "-1", "--n", "101", "--var", "2", "--cov", "1.8"], "eps must be"),
    (["case2", "--eps", "abc", "--n", "101", "--var", "2", "--cov", "1.8"], "--eps must be a number"),
    (["case2", "--eps", "1", "--n", "101", "--var", "2"], "Missing option '--cov'"),
    (["figure", "8"], "figure must be"),
])
def test_errors_exit_2_one_line(args: list[str], needle: str) -> None:
    code, _, stderr = run("gauss", *args)
    assert code == 2, stderr
    err = [line for line in stderr.splitlines() if line.startswith("dpcalc: error")]
    assert len(err) == 1 and needle in err[0]


def test_case3_grid_keeps_rows_where_sigma2_is_not_attained() -> None:
    """Regression: one point without a finite σ² no longer drops the grid; u_max exists for both."""
    doc = _json("case3", "--eps", "0.001,2", "--n", "101", "--var", "30", "--cov", "2", "--as-published")
    rows = doc["rows"]
    assert len(rows) == 2
    assert rows[0]["sigma2"] is None and rows[0]["sigma_e2"] is None and rows[0]["leakage_published"] is None
    assert rows[0]["u_max"] > 0 and rows[1]["sigma2"] == pytest.approx(1.8831018106934683, rel=1e-12)


def test_case2_tiny_eps_is_a_one_line_error() -> None:
    """Regression: ``--eps 1e-310 --json`` tracebacked on inf; now exit 2, one line."""
    code, out, err = run("gauss", "case2", "--eps", "1e-310", "--n", "101", "--var", "2", "--cov", "1.8", "--json")
    assert code == 2
    assert "overflows" in err and "Traceback" not in err + out and len(err.strip().splitlines()) == 1


def test_noise_command_case3_at_chosen_noise_with_published_forms() -> None:
    doc = _json("noise", "--sigma2", "3", "--sigma-e2", "1", "--n", "4", "--var", "30", "--cov", "2",
                "--as-published")
    r = doc["rows"][0]
    assert r["determinant"] == pytest.approx(17084928, rel=1e-13)
    assert r["determinant_published"] == pytest.approx(15843072, rel=1e-13)
    assert r["privacy"] > r["privacy_published"] and r["utility"] > 0


def test_custom_per_client_leakages(tmp_path: Any) -> None:
    sx, sz = tmp_path / "sx.csv", tmp_path / "sz.csv"
    sx.write_text("1,0\n0,1\n")
    sz.write_text("1e14,3e13\n3e13,1e14\n")
    doc = _json("custom", "--sigma-x", str(sx), "--sigma-z", str(sz), "--per-client", "--units", "nats")
    assert [r["client"] for r in doc["rows"]] == [1, 2]
    assert doc["rows"][0]["leakage"] == pytest.approx(0.5 / (0.91e14), rel=1e-12)
    assert doc["rows"][0]["utility"] == pytest.approx(0.5 / 0.91e14, rel=1e-12)
