"""CLI ``dpcalc cuag sigma|audit|baseline``: reference values of Li, Xiao & Chen 2024 (eq. (16) and the audit, SciPy,
6-7 digits) through the CLI, E3/E15 behaviour, errors."""

from __future__ import annotations

import pytest

from tests.support.cli_runner import run, run_json

#: the paper's setting (μ = 0.25, λ = 0.1, B = 50, P = 25) with |D| = 500
SETTING = ("--mu", "0.25", "--lam", "0.1", "--B", "50", "--data-size", "500", "--P", "25")


def test_sigma_schedule_rows() -> None:
    """σ at t = 1, 10, 300 for |D| = 500 (6 decimals) and ξ at t = 1 (0.000807672)."""
    rows = run_json("cuag", "sigma", *SETTING, "--t", "1,10,300")["rows"]
    assert [r["t"] for r in rows] == [1, 10, 300]
    for r, want in zip(rows, (0.710489, 1.435165, 6.964071), strict=True):
        assert abs(r["sigma"] - want) <= 5e-7
    assert abs(rows[0]["xi"] - 0.000807672) <= 5e-10 and rows[0]["rho"] == pytest.approx(0.02)


def test_sigma_t0_is_e3() -> None:
    code, _, err = run("cuag", "sigma", *SETTING, "--t", "0")
    assert code == 2 and "E3" in err and err.count("\n") == 1


def test_audit_headline_and_schedule() -> None:
    """μ = 0.25, T = 300: μ_eff = 0.626631, ε = 2.5675 at δ = 1e-5 (not 0.92), recomposed from σ_1..σ_300."""
    row = run_json("cuag", "audit", "--mu", "0.25", "--rounds", "300")["rows"][0]
    assert abs(row["mu_eff"] - 0.626631) <= 5e-7 and abs(row["eps"] - 2.5675) <= 5e-5
    assert abs(row["eps_claimed"] - 0.926342) <= 5e-7 and "log_delta" in row
    # the schedule recomposed from σ_1..σ_30 (30 rounds: the tight PLD of 300 distinct steps at ρ = 0.002 takes
    # minutes, see docs/pld.md); CLT 1.99 vs certified [5.925, 5.930]: the early small σ_τ are far from Gaussian
    row = run_json("cuag", "audit", "--mu", "0.25", "--rounds", "30", "--lam", "0.1", "--B", "50", "--data-size",
                   "5000", "--P", "25")["rows"][0]
    assert row["mu_schedule"] == pytest.approx(row["mu_eff"], rel=1e-12)
    assert row["eps"] < row["eps_pld_lower"] <= row["eps_pld_upper"] <= row["eps_pld_lower"] * (1 + 1e-3)
    assert row["eps_pld_lower"] == pytest.approx(5.92522, abs=2e-3) and row["eps_pld_upper"] == pytest.approx(
        5.92918, abs=2e-3)
    code, out, _ = run("cuag", "audit", "--mu", "0.25", "--rounds", "300")
    assert code == 0 and "2.56746" in out
    doc = run_json("cuag", "audit", "--mu", "0.25", "--rounds", "300", "--as-published")
    assert doc["rows"][0]["mu_published"] == 0.25 and any("E15" in w for w in doc["warnings"])
    code, _, err = run("cuag", "audit", "--mu", "0.25", "--rounds", "300", "--lam", "0.1")
    assert code == 2 and "give all of" in err


def test_baseline_curves() -> None:
    """DP-SCAFFOLD [1.517427, 26.282609] and PriFedSync [0.406841, 10.235670] at t = 1, 300."""
    rows = run_json("cuag", "baseline", "--t", "1,300")["rows"]
    assert abs(rows[0]["eps_dp_scaffold"] - 1.517427) <= 5e-7 and abs(rows[1]["eps_dp_scaffold"] - 26.282609) <= 5e-7
    assert abs(rows[0]["eps_prifedsync"] - 0.406841) <= 5e-7 and abs(rows[1]["eps_prifedsync"] - 10.235670) <= 5e-7
    rows = run_json("cuag", "baseline", "--t", "11", "--method", "dp-scaffold")["rows"]
    assert set(rows[0]) == {"t", "delta", "eps_dp_scaffold"} and abs(rows[0]["eps_dp_scaffold"] - 5.0327) <= 5e-5
    code, _, err = run("cuag", "baseline", "--t", "0")
    assert code == 2 and err.count("\n") == 1


def test_audit_grid_is_vectorised_and_equals_the_scalar_audit() -> None:
    """Without --lam the audit's closed forms run over the whole grid at once (a scalar call per row took 34 s for
    10^4 rows, > 60 s for the fuzz's --mu 1:1e6:1); every row is cuag.audit at that point: μ exactly, the
    certified ε to 1e-14 relative (the scalar root starts its Newton steps from a plain-float estimate, the
    vectorised one from the bound: two certified brackets of width ~1e-14, measured within 4.5e-15 of each other)."""
    import warnings

    from dpcalc import cuag
    from dpcalc.errors import EstimateWarning

    data = run_json("cuag", "audit", "--mu", "0.25,1,7", "--rounds", "1,300", "--delta", "0.5,1e-5")
    assert len(data["rows"]) == 12
    for row in data["rows"]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EstimateWarning)
            a = cuag.audit(row["mu"], int(row["T"]), row["delta"])
        assert row["mu_eff"] == a.mu_effective
        for got, want in ((row["eps_claimed"], a.eps_claimed), (row["eps"], a.eps_effective), (row["ratio"], a.ratio)):
            if want is None:  # the ratio where the claimed ε is 0 (δ = 0.5 at μ = 0.25)
                assert got is None
            else:
                assert abs(got - want) <= 1e-14 * abs(want), (row, got, want)


def test_uplink_layer_size_beyond_2_53_names_model() -> None:
    """--model 10,10,10,1e300: the library's 2^53 cap on layer sizes spoke of layer_sizes, not --model (CLI fuzz)."""
    code, out, err = run("cuag", "uplink", "--model", "10,10,10,1e300", "--rate", "0.5,0.4,0.3")
    assert code == 2 and out == "" and err.startswith("dpcalc: error: model must be an integer in [1, 9.0072e+15]")
