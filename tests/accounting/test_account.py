"""Accountants (dpcalc.accounting.accountants) on a training run given by q and steps, and the CLI commands
``dpcalc account`` / ``dpcalc calibrate``.

Values at q = 0.01, σ = 1, T = 1000, δ = 1e-5: exact RDP 2.101365271648395 (mpmath quadrature of A_α at 30 digits
over the Opacus orders; 1e-12), GDP-CLT 1.6177118087467188 (the closed form; 1e-12), PLD 1.8282436455855091
(dp-accounting 0.6.0 PLDAccountant, default vdi 1e-4, pessimistic; ±1e-6 at the same settings); the consensus tight
ε 1.82824 ± 1e-5 (dp-accounting 0.6.0 PLD at vdi 1e-5 and prv-accountant 0.2.0 agree); errors are one stderr line
and exit code 2.
"""

from __future__ import annotations

import json
import sys
import warnings

import pytest

from dpcalc.accounting import accountants, schedule
from dpcalc.accounting.events import TrainingRun
from dpcalc.errors import DomainError
from tests.support import processes
from tests.support.cli_runner import run


def _eps(name: str, sigma: float, q: float, steps: int, delta: float) -> tuple[float, dict[str, object]]:
    r = accountants.get(name).epsilon(TrainingRun(sigma, q=q, steps=steps), delta, "add_remove")
    return r.value, dict(r.details)

BASE = ["--noise-multiplier", "1", "--q", "0.01", "--steps", "1000", "--delta", "1e-5"]


def rows(*args: str) -> list[dict]:  # type: ignore[type-arg]
    code, out, err = run(*args, "--json")
    assert code == 0, err
    return json.loads(out)["rows"]  # type: ignore[no-any-return]


def test_accountant_interface_values() -> None:
    """Every accountant's (eps, extra) at the reference point (q = 0.01, σ = 1, T = 1000,
    δ = 1e-5), with its bound kind."""
    eps, extra = _eps("rdp", 1.0, 0.01, 1000, 1e-5)
    assert eps == pytest.approx(2.101365271648395, rel=1e-12) and extra["order"] == 7.8
    assert accountants.get("rdp").kind == "upper" and accountants.get("gdp-clt").kind == "estimate"
    with pytest.warns(UserWarning, match="underestimate"):
        eps, extra = _eps("gdp-clt", 1.0, 0.01, 1000, 1e-5)
    assert eps == pytest.approx(1.6177118087467188, rel=1e-12)
    assert extra["mu"] == pytest.approx(0.4145216313365378, rel=1e-14)
    lemma1, _ = _eps("rdp-lemma1", 1.0, 0.01, 1000, 1e-5)
    assert lemma1 > 2.101365271648395
    with pytest.raises(DomainError, match="needs Gaussian noise without sampling"):
        _eps("zcdp", 1.0, 0.01, 1000, 1e-5)
    with pytest.raises(DomainError, match="accountant must be one of"):
        accountants.get("moments")


def test_full_batch_ordering() -> None:
    """q = 1, σ = 1, T = 1: analytic 4.377178095681224 (exact) <= zCDP 4.728386984943314 <= RDP grid 4.728507067217623
    (dp-accounting 0.6.0 get_epsilon_gaussian at tol 1e-15, autodp 0.2.3.1 continuous-order RDP, dp-accounting 0.6.0
    RdpAccountant at its default orders; 1e-12)."""
    a = _eps("analytic", 1.0, 1.0, 1, 1e-5)[0]
    z = _eps("zcdp", 1.0, 1.0, 1, 1e-5)[0]
    r = _eps("rdp", 1.0, 1.0, 1, 1e-5)[0]
    assert a == pytest.approx(4.377178095681224, rel=1e-12)
    assert z == pytest.approx(4.728386984943314, rel=1e-12)
    assert r == pytest.approx(4.728507067217623, rel=1e-12)
    assert a <= z <= r


def test_account_example_rows() -> None:
    """`dpcalc account --sigma 1 --q 0.01 --steps 1000 --delta 1e-5 --accountant rdp,rdp-lemma1,gdp-clt`: one row
    per accountant with accountant, eps, bound and (RDP) order; the CLT's warning lands in JSON 'warnings'."""
    code, out, err = run("account", *BASE, "--accountant", "rdp,rdp-lemma1,gdp-clt", "--json")
    assert code == 0, err
    doc = json.loads(out)
    by = {r["accountant"]: r for r in doc["rows"]}
    assert set(by) == {"rdp", "rdp-lemma1", "gdp-clt"}
    assert by["rdp"]["eps"] == pytest.approx(2.101365271648395, rel=1e-12) and by["rdp"]["order"] == 7.8
    assert by["rdp"]["kind"] == "upper" and by["gdp-clt"]["kind"] == "estimate"
    assert by["gdp-clt"]["order"] is None
    assert any("underestimate" in w for w in doc["warnings"])


def test_account_default_lists_every_applicable_accountant() -> None:
    """Without --accountant: rdp, rdp-lemma1, gdp-clt, pld; zcdp/analytic only at q = 1. The PLD row is dpcalc's
    certified bracket: it contains the consensus tight value 1.82824 ± 1e-5, ε = ε upper."""
    got = {r["accountant"]: r for r in rows("account", *BASE)}
    assert {"rdp", "rdp-lemma1", "gdp-clt", "pld"} <= set(got) and "zcdp" not in got
    p = got["pld"]
    assert p["eps_lower"] <= 1.82824 - 1e-5 and p["eps_upper"] >= 1.82824 + 1e-5 and p["eps"] == p["eps_upper"]
    assert p["eps_upper"] - p["eps_lower"] <= 1e-3 * p["eps_upper"] and p["kind"] == "bracket" and p["met"]
    assert got["rdp"]["eps_lower"] is None
    full = {r["accountant"] for r in rows("account", "--noise-multiplier", "1", "--q", "1", "--steps", "1", "--delta",
                                          "1e-5", "-a", "rdp,zcdp,analytic")}
    assert full == {"rdp", "zcdp", "analytic"}


def test_account_keeps_the_zcdp_order() -> None:
    """zCDP's ε comes with its optimal Rényi order (Bun & Steinke), like RDP's; the others have none."""
    got = {r["accountant"]: r for r in rows("account", "--noise-multiplier", "1", "--q", "1", "--steps", "10",
                                             "--delta", "1e-5", "-a", "zcdp,analytic,rdp")}
    assert got["zcdp"]["order"] is not None and got["zcdp"]["order"] > 1
    assert got["analytic"]["order"] is None and got["rdp"]["order"] is not None


def test_account_grid_table_and_csv() -> None:
    """Lists give one row per combination × accountant; table and CSV render."""
    r = rows("account", "--noise-multiplier", "0.8,1.2", "--q", "0.01", "--steps", "100:300:100", "--delta", "1e-5",
             "-a", "rdp")
    assert len(r) == 6 and r[0]["eps"] > r[-1]["eps"]
    code, out, _ = run("account", *BASE, "-a", "rdp")
    assert code == 0 and "2.10137" in out and "upper" in out
    code, out, _ = run("account", *BASE, "-a", "rdp", "--format", "csv")
    assert code == 0 and out.splitlines()[0].startswith("noise_multiplier,q,steps,event,relation,sampling,level,k,"
                                                        "method,delta,accountant,eps,eps_lower,eps_upper,kind,met,order")


def test_pld_needs_no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """dpcalc's own PLD runs without dp-accounting (the optional extra is only the comparison backend)."""
    from dpcalc.accounting.accountants import pld as pld_accountant

    monkeypatch.setattr(pld_accountant, "peer_available", lambda: False)
    got = {r["accountant"]: r for r in rows("account", *BASE, "--accountant", "pld")}
    assert got["pld"]["eps"] == pytest.approx(1.82824, abs=2e-3)
    with pytest.raises(DomainError, match=r"pip install 'dpcalc\[pld\]'"):
        accountants.get("pld").epsilon(TrainingRun(1.0, q=0.01, steps=10), 1e-5, "add_remove",
                                       accountants.Options(backend="dp-accounting"))


@pytest.mark.parametrize("bad", [["--delta", "1"], ["--delta", "0"], ["--q", "0"], ["--q", "1.5"],
                                 ["--noise-multiplier", "-1"], ["--steps", "2.5"], ["--noise-multiplier", "nan"],
                                 ["--orders", "0.5,2"],
                                 ["--accountant", "nope"], ["--accountant", "zcdp"]])
def test_account_bad_input_exit_2(bad: list[str]) -> None:
    args = dict(zip(BASE[::2], BASE[1::2], strict=True))
    for k, v in zip(bad[::2], bad[1::2], strict=True):
        args[k] = v
    flat = [x for kv in args.items() for x in kv]
    code, _out, err = run("account", *flat)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_calibrate_example() -> None:
    """`dpcalc calibrate --eps 2 --delta 1e-5 --q 0.01 --steps 1000 -a rdp,gdp-clt`: rows with accountant and
    sigma; rdp σ = 1.0222898 (dp-accounting 0.6.0 calibrate_dp_mechanism with RDP, to 1e-6), and it is conservative."""
    r = {x["accountant"]: x for x in rows("calibrate", "--eps", "2", "--delta", "1e-5", "--q", "0.01", "--steps",
                                          "1000", "-a", "rdp,gdp-clt")}
    assert r["rdp"]["value"] == r["rdp"]["noise_multiplier"] == pytest.approx(1.0222898455164913, rel=1e-6)
    assert schedule.epsilon(r["rdp"]["value"], 0.01, 1000, 1e-5) <= 2.0
    assert r["gdp-clt"]["kind"] == "estimate"


def test_calibrate_unreachable_exit_2() -> None:
    code, _, err = run("calibrate", "--eps", "0.01", "--q", "0.01", "--steps", "1000", "--delta", "1e-5", "-a",
                       "rdp-lemma1")
    assert code == 2 and "unreachable" in err and len(err.strip().splitlines()) == 1


def test_help_has_examples() -> None:
    for cmd in ("account", "calibrate"):
        code, out, _ = run(cmd, "--help")
        assert code == 0 and "Example: dpcalc " + cmd in out


def test_console_script_subprocess() -> None:
    """The installed entry point prints the rdp row (real process, exit 0)."""
    proc = processes.run([sys.executable, "-m", "dpcalc.cli.main", "account", *BASE, "-a", "rdp", "--json"],
                         capture_output=True, text=True, cpu_seconds=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["rows"][0]["order"] == 7.8


def test_failing_accountant_is_listed_with_its_reason() -> None:
    """At δ = 1e-300 the PLD cannot represent δ: it is listed with the reason (library: `Accounting.failed`; CLI:
    the note and meta.failed), and the RDP row is 86.1696."""
    import dpcalc

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the CLT estimate answers too, labelled one (its kind, its note), unwarned
        found = dpcalc.account(noise_multiplier=1.0, q=0.01, steps=1000, delta=1e-300)
    clt = next(r for r in found.results if r.accountant == "gdp-clt")
    assert clt.kind == "estimate" and any("estimate, not a bound" in n for n in clt.notes)
    rdp = next(r for r in found.results if r.accountant == "rdp")
    assert rdp.value == pytest.approx(86.1696, rel=1e-5) and rdp.details["order"] == 9.3
    assert "pld" in found.failed and "delta" in found.failed["pld"] and found.headline is rdp
    with pytest.raises(DomainError, match="no finite epsilon at delta = 0"):
        _eps("rdp", 1.0, 0.01, 1000, 0.0)  # δ = 0: the Gaussian's loss is unbounded
    _, out, _ = run("account", "--noise-multiplier", "1", "--q", "0.01", "--steps", "1000", "--delta", "1e-300",
                    "--json")
    doc = json.loads(out)
    got = {r["accountant"]: r for r in doc["rows"]}
    assert got["rdp"]["eps"] == pytest.approx(86.1696, rel=1e-5) and "pld" not in got
    assert "delta" in doc["meta"]["failed"]["pld"]
    _, out, _ = run("account", "--noise-multiplier", "1", "--q", "0.01", "--steps", "1000", "--delta", "1e-300")
    assert "No answer: pld" in " ".join(out.split())


def test_grid_work_cap_is_one_line_before_any_work() -> None:
    """Fuzz finding: `account -z 0.5:100:0.001` (99,501 points) ran for more than 10 minutes with no cap; the
    estimated work (points × accountants × seconds each) is now refused above 5 minutes, before computing."""
    code, out, err = run("account", "-z", "0.5:100:0.001", "--q", "0.01", "--steps", "100", "--delta", "1e-5", "-a",
                         "rdp")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("dpcalc: error: --noise-multiplier × --q × --steps × --delta give 99,501 grid points")
    code, _, err = run("calibrate", "--eps", "0.5:3:0.001", "--q", "0.01", "--steps", "100", "--delta", "1e-5", "-a",
                       "rdp")
    assert code == 2 and "min of work" in err and err.count("\n") == 1
