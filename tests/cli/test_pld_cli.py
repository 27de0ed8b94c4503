"""The PLD path of the CLI: ``--backend dpcalc|dp-accounting`` on ``dpcalc account``/``calibrate`` and the tight ε of
``dpcalc cuag audit``. Errors are one stderr line and exit code 2."""

from __future__ import annotations

import json

import pytest

from tests.support.cli_runner import run

BASE = ["--noise-multiplier", "1", "--q", "0.01", "--steps", "1000", "--delta", "1e-5"]


def _rows(*args: str) -> list[dict]:  # type: ignore[type-arg]
    code, out, err = run(*args, "--json")
    assert code == 0, err
    return json.loads(out)["rows"]  # type: ignore[no-any-return]


def test_default_backend_is_dpcalc_with_its_bracket() -> None:
    (row,) = _rows("account", *BASE, "-a", "pld")
    assert row["eps_lower"] <= 1.82824 <= row["eps_upper"] == row["eps"]


def test_backend_dp_accounting_one_value_no_bracket() -> None:
    pytest.importorskip("dp_accounting")
    (row,) = _rows("account", *BASE, "-a", "pld", "--backend", "dp-accounting")
    assert row["eps"] == pytest.approx(1.8282436455855091, abs=1e-6)  # dp-accounting 0.6.0, vdi 1e-4
    assert row["eps_lower"] is None and row["eps_upper"] is None


def test_backend_dp_accounting_missing_is_one_line_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    from dpcalc.accounting.accountants import pld as pld_accountant

    monkeypatch.setattr(pld_accountant, "peer_available", lambda: False)
    for cmd in (["account", *BASE], ["calibrate", "--eps", "2", "--q", "0.01", "--steps", "1000", "--delta", "1e-5"]):
        code, _out, err = run(*cmd, "-a", "pld", "--backend", "dp-accounting")
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert "not installed" in err and "pip install" in err


def test_backend_bad_name_exit_2() -> None:
    code, _out, err = run("account", *BASE, "--backend", "prv")
    assert code == 2 and "--backend" in err and len(err.strip().splitlines()) == 1


def test_calibrate_backends_agree() -> None:
    pytest.importorskip("dp_accounting")
    args = ["calibrate", "--eps", "2", "--q", "0.01", "--steps", "1000", "--delta", "1e-5", "-a", "pld"]
    (own,) = _rows(*args)
    (peer,) = _rows(*args, "--backend", "dp-accounting", "--rtol", "1e-4")
    # the tight σ is a little above 0.9592 (dp-accounting 0.6.0 at vdi 1e-3: 0.95924);
    # both are on the safe side within their tolerances
    assert own["noise_multiplier"] == pytest.approx(peer["noise_multiplier"], rel=3e-3)


def _audit(rounds: int) -> dict:  # type: ignore[type-arg]
    (row,) = _rows("cuag", "audit", "--mu", "0.25", "--rounds", str(rounds), "--lam", "0.1", "--B", "50",
                   "--data-size", "500", "--P", "25")
    return row


def test_cuag_audit_reports_the_tight_eps_of_its_schedule() -> None:
    from dpcalc import cuag
    from dpcalc.accounting import pld

    row = _audit(10)
    with pytest.warns(Warning):
        sig = cuag.sigma_schedule(0.25, 0.1, 50, 500, 10, 25)
    br = pld.epsilon([(float(s), 0.02, 25) for s in sig], 1e-5)
    assert row["eps_pld_lower"] == pytest.approx(br.eps_lower, rel=1e-12)
    assert row["eps_pld_upper"] == pytest.approx(br.eps_upper, rel=1e-12)
    assert row["eps_pld_lower"] <= row["eps_pld_upper"] <= row["eps_pld_lower"] * (1 + 1e-3) + 1e-12


def test_cuag_audit_without_the_schedule_has_no_pld_column() -> None:
    (plain,) = _rows("cuag", "audit", "--mu", "0.25", "--rounds", "300")
    assert "eps_pld_upper" not in plain


@pytest.mark.slow
def test_cuag_schedule_against_dp_accounting() -> None:
    """The 100-round CUAG schedule (2500 steps, 100 distinct σ_t): dp-accounting's pessimistic PLD (vdi 1e-4) lies
    in [our lower bound, our upper bound − its discretisation error]."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    from dpcalc import cuag

    row = _audit(100)
    with pytest.warns(Warning):
        sig = cuag.sigma_schedule(0.25, 0.1, 50, 500, 100, 25)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    for s in sig:
        acc.compose(dp_accounting.PoissonSampledDpEvent(0.02, dp_accounting.GaussianDpEvent(float(s))), 25)
    ref = float(acc.get_epsilon(1e-5))
    assert row["eps_pld_lower"] <= ref
    assert row["eps_pld_upper"] <= ref + 2e-4 + 1e-3 * ref
