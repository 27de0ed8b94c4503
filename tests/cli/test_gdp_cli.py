"""CLI ``dpcalc gdp ...``: the usage examples, JSON keys (eps, delta and always log_delta), lists, warnings,
--as-published, errors (one stderr line, exit 2)."""

from __future__ import annotations

import math

import pytest

from dpcalc.accounting import gdp
from tests.support.cli_runner import run, run_json


def test_eps_example() -> None:
    """`dpcalc gdp eps --mu 0.25 --delta 1e-5` → ε = 0.926342 (Li, Xiao & Chen 2024's μ; eq. (6)), keys
    eps/delta/log_delta."""
    code, out, _ = run("gdp", "eps", "--mu", "0.25", "--delta", "1e-5")
    assert code == 0 and "0.926342" in out  # 6 significant digits in the table
    row = run_json("gdp", "eps", "--mu", "0.25", "--delta", "1e-5")["rows"][0]
    assert {"eps", "delta", "log_delta", "mu"} <= set(row)
    assert row["eps"] == pytest.approx(0.9263415039982, rel=1e-12)
    assert row["log_delta"] == pytest.approx(math.log(1e-5), rel=1e-15)


def test_delta_example_below_double_range() -> None:
    """`dpcalc gdp delta --mu 1 --eps 40`: δ underflows (0.0) but log_delta = −788.4234127739917 (mpmath, 1e-14)."""
    doc = run_json("gdp", "delta", "--mu", "1", "--eps", "40")
    row = doc["rows"][0]
    assert row["delta"] == 0.0
    assert row["log_delta"] == pytest.approx(-788.4234127739917, rel=1e-14)
    assert row["delta_decimal"].startswith("3.90897") and row["delta_decimal"].endswith("e-343")
    assert any("underflows" in w for w in doc["warnings"])
    code, out, _ = run("gdp", "delta", "--mu", "1", "--eps", "40")
    assert code == 0 and "-788.423" in out


def test_delta_grid_rows_and_formats() -> None:
    doc = run_json("gdp", "delta", "--mu", "0.5,1", "--eps", "0:2:1")
    assert [(r["mu"], r["eps"]) for r in doc["rows"]] == [(0.5, 0), (0.5, 1), (0.5, 2), (1, 0), (1, 1), (1, 2)]
    for r in doc["rows"]:
        assert r["delta"] == pytest.approx(gdp.delta(r["mu"], r["eps"]), rel=1e-15)
        assert "log_delta" in r
    code, out, _ = run("gdp", "delta", "--mu", "1", "--eps", "1", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "mu,eps,delta,log_delta"


def test_zero_mu_is_perfect_privacy() -> None:
    """0-GDP: ε(0, δ) = 0 for every δ, from the library (no special case in the command)."""
    assert run_json("gdp", "eps", "--mu", "0", "--delta", "1e-5")["rows"][0]["eps"] == 0.0
    assert run_json("gdp", "compose", "--mus", "0,0", "--delta", "1e-5")["rows"][0]["eps"] == 0.0


def test_mu_compose_tradeoff() -> None:
    row = run_json("gdp", "mu", "--eps", "0.92", "--delta", "1e-5")["rows"][0]
    assert abs(row["mu"] - 0.248439) <= 5e-7 and "log_delta" in row
    row = run_json("gdp", "compose", "--mus", "0.6,0.8", "--delta", "1e-5")["rows"][0]
    assert row["mu"] == pytest.approx(1.0, rel=1e-15) and row["n"] == 2
    assert row["eps"] == pytest.approx(4.377178095681224, rel=1e-12)
    rows = run_json("gdp", "tradeoff", "--mu", "1", "--alpha", "0,0.05,1")["rows"]
    assert rows[0]["beta"] == 1.0 and rows[2]["beta"] == 0.0
    assert rows[1]["beta"] == pytest.approx(0.7404889771585559, rel=1e-13)


def test_clt_estimate_and_as_published() -> None:
    """q = 0.01, σ = 1, T = 1000, δ = 1e-5: μ = 0.4145216313365378, ε = 1.6177118087467188 (closed forms); warnings
    carry the estimate caveat; the printed Theorem-4 form only with --as-published (ErratumWarning text names E1)."""
    doc = run_json("gdp", "clt", "--q", "0.01", "--noise-multiplier", "1", "--steps", "1000", "--delta", "1e-5")
    row = doc["rows"][0]
    assert row["mu"] == pytest.approx(0.4145216313365378, rel=1e-14)
    assert row["eps"] == pytest.approx(1.6177118087467188, rel=1e-12)
    assert "mu_published" not in row
    assert any("underestimate" in w for w in doc["warnings"])
    doc = run_json("gdp", "clt", "--q", "0.01", "--noise-multiplier", "1", "--steps", "1000", "--delta", "1e-5",
                   "--as-published")
    assert doc["rows"][0]["mu_published"] == pytest.approx(0.5433684240009314, rel=1e-14)
    assert any("E1" in w for w in doc["warnings"])


def test_clt_caveat_printed_once() -> None:
    """The CLT caveat reaches the reader once (the warning on stderr), not again in the table's note."""
    code, out, err = run("gdp", "clt", "--q", "0.01", "--noise-multiplier", "1", "--steps", "1000", "--delta", "1e-5")
    assert code == 0
    assert (out + err).count(gdp.CLT_WARNING) == 1 and "bound: estimate" in out


@pytest.mark.parametrize("args", [
    ("gdp", "eps", "--mu", "-0.5", "--delta", "1e-5"),
    ("gdp", "eps", "--mu", "1", "--delta", "1"),
    ("gdp", "eps", "--mu", "1", "--delta", "nan"),
    ("gdp", "delta", "--mu", "-1", "--eps", "1"),
    ("gdp", "mu", "--eps", "x", "--delta", "1e-5"),
    ("gdp", "clt", "--q", "2", "--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"),
    ("gdp", "clt", "--q", "0.1", "--noise-multiplier", "1", "--steps", "0", "--delta", "1e-5"),
    ("gdp", "clt", "--q", "0.1", "--noise-multiplier", "1", "--steps", "10"),  # δ has no default
    ("gdp", "compose", "--mus", "1,-1", "--delta", "1e-5"),
])
def test_errors_exit_2_one_line(args: tuple[str, ...]) -> None:
    code, _out, err = run(*args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dpcalc: error:") and "Traceback" not in err


def test_log_delta_option() -> None:
    """--log-delta for targets below the double range: ε(1, ln δ = −788.4234…) = 40 (rtol 1e-12); rows still carry
    delta (0.0 here) and log_delta; exactly one of --delta/--log-delta."""
    row = run_json("gdp", "eps", "--mu", "1", "--log-delta", "-788.4234127739917")["rows"][0]
    assert row["eps"] == pytest.approx(40.0, rel=1e-12) and row["delta"] == 0.0
    assert row["log_delta"] == -788.4234127739917
    row = run_json("gdp", "mu", "--eps", "40", "--log-delta", "-788.4234127739917")["rows"][0]
    assert row["mu"] == pytest.approx(1.0, rel=1e-12)
    code, _, err = run("gdp", "eps", "--mu", "1")
    assert code == 2 and "exactly one" in err
    code, _, err = run("gdp", "eps", "--mu", "1", "--delta", "1e-5", "--log-delta", "-3")
    assert code == 2 and "exactly one" in err


def test_the_library_sigma_is_named_as_the_noise_multiplier_option() -> None:
    """gdp clt -z 1e-300: 'sigma is too small' named no option of the command (CLI fuzz, 8 vectors)."""
    code, out, err = run("gdp", "clt", "--q", "0.01", "-z", "1e-300", "--steps", "100", "--delta", "1e-5")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.rstrip().endswith("(sigma: --noise-multiplier/-z)")
