"""The front door: one call from Python gives what the corresponding command prints — the same accountant, the same
numbers, the same JSON row (`PrivacyResult.to_dict`, `Calibration.to_dict`, `Statement.to_dict`)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import dpcalc
from tests.support.cli_runner import run

RUN = {"noise_multiplier": 1.1, "dataset_size": 60000, "batch_size": 256, "epochs": 60}
ARGS = ("--dataset-size", "60000", "--batch-size", "256", "--epochs", "60", "-z", "1.1", "--delta", "1e-5")


def _json(*argv: str) -> dict[str, Any]:
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row as JSON writes it (tuples become lists, inf stays a float)."""
    out: dict[str, Any] = json.loads(json.dumps(row, allow_nan=True))
    return out


def test_epsilon_of_a_training_run_is_the_commands_headline_row() -> None:
    r = dpcalc.epsilon(**RUN, delta=1e-5)
    doc = _json("account", *ARGS, "-a", "pld", "-a", "rdp")
    rows = {row["accountant"]: row for row in doc["rows"]}
    assert doc["meta"]["headline"][0]["accountant"] == r.accountant == "pld"
    assert rows["pld"] == _plain(r.to_dict())
    assert float(r) == rows["pld"]["eps"] == doc["meta"]["headline"][0]["eps"]
    assert 2.380 < float(r) < 2.383


def test_epsilon_of_a_dp_accounting_event_object_is_the_commands(tmp_path: Path) -> None:
    dpa = pytest.importorskip("dp_accounting")
    peer = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    path = tmp_path / "event.json"
    path.write_text(json.dumps(peer.to_named_tuple()))  # the positional form json.dumps writes
    r = dpcalc.epsilon(peer, delta=1e-5)
    doc = _json("account", "--event", str(path), "--delta", "1e-5", "-a", "pld")
    assert doc["rows"] == [_plain(r.to_dict())]
    assert dpcalc.epsilon(json.loads(path.read_text()), delta=1e-5) == r
    assert dpcalc.epsilon(peer.to_named_tuple(), delta=1e-5) == r


def test_the_noise_multiplier_for_eps_3_is_the_commands() -> None:
    c = dpcalc.calibrate(eps=3, delta=1e-5, dataset_size=60000, batch_size=256, epochs=60)
    doc = _json("calibrate", "--eps", "3", "--delta", "1e-5", "--dataset-size", "60000", "--batch-size", "256",
                "--epochs", "60", "-a", "pld")
    assert doc["rows"] == [_plain(c.to_dict())]
    assert c.value == doc["rows"][0]["value"] and c.result.value <= 3.0
    assert c.value == pytest.approx(0.968977, abs=1e-5)  # the CLI's and the event path's: one calibrator now


def test_the_epochs_affordable_at_eps_8_are_the_commands() -> None:
    c = dpcalc.calibrate(eps=8, delta=1e-5, solve_for="epochs", noise_multiplier=1.1, dataset_size=60000,
                         batch_size=256)
    doc = _json("calibrate", "--eps", "8", "--delta", "1e-5", "--solve-for", "epochs", "-z", "1.1",
                "--dataset-size", "60000", "--batch-size", "256", "-a", "pld")
    assert doc["rows"] == [_plain(c.to_dict())] and c.value == doc["rows"][0]["value"]
    assert c.result.value <= 8.0 < c.next_result.value  # type: ignore[union-attr]


def test_the_statement_is_the_commands() -> None:
    s = dpcalc.statement(**RUN, delta=1e-5)
    code, out, err = run("statement", *ARGS, "-f", "json")
    assert code == 0, err
    assert json.loads(out) == _plain(s.to_dict())
    assert s.headline is not None and s.to_dict()["headline"]["eps"] == float(s.headline)


def test_import_dpcalc_offers_the_verbs_and_nothing_private() -> None:
    public = dir(dpcalc)
    for verb in ("epsilon", "delta", "account", "calibrate", "statement", "events", "PrivacyResult"):
        assert (verb in public and callable(getattr(dpcalc, verb))) or verb == "events"
    assert not {"Any", "annotations", "importlib", "TYPE_CHECKING"} & set(public)
    assert dpcalc.accounting.events.Gaussian is dpcalc.events.Gaussian  # reachable after `import dpcalc`


def test_python_m_dpcalc() -> None:
    out = subprocess.run([sys.executable, "-m", "dpcalc", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("dpcalc ")


@pytest.mark.parametrize("knob", ["noise_multiplier", "noise-multiplier"])
def test_knob_names_with_underscores_or_dashes(knob: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = dpcalc.calibrate(eps=2.0, delta=1e-5, solve_for=knob, q=0.01, steps=1000, accountant="rdp")
    assert c.field == "noise_multiplier"


def test_result_types_read_well() -> None:
    r = dpcalc.epsilon(**RUN, delta=1e-5)
    assert repr(r).startswith("PrivacyResult(ε = 2.382") and len(repr(r)) < 120
    assert "<strong>" in r._repr_html_()
    c = dpcalc.calibrate(eps=3, delta=1e-5, q=0.01, steps=1000, accountant="rdp")
    assert repr(c).startswith("Calibration(noise_multiplier = ") and float(c) == c.value


def test_a_calibration_reads_on_its_safe_side() -> None:
    """The repr rounds as the CLI's table does: more noise up, more epochs down, ε at the value up."""
    from dpcalc._rounding import ROUND_DOWN, ROUND_UP, format_number

    noise = dpcalc.calibrate(eps=3, delta=1e-5, dataset_size=60000, batch_size=256, epochs=60)
    want = format_number(noise.value, ".6g" + ROUND_UP)
    assert f"noise_multiplier = {want} " in repr(noise) and float(want) >= noise.value
    assert f"ε = {format_number(noise.result.value, '.6g' + ROUND_UP)} " in repr(noise)
    q = dpcalc.calibrate(eps=2.0, delta=1e-5, solve_for="q", noise_multiplier=1.1, steps=1000, accountant="rdp")
    shown = repr(q).split(" = ")[1].split(" ")[0]
    assert shown == format_number(q.value, ".6g" + ROUND_DOWN) and float(shown) <= q.value
