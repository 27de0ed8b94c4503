"""dpcalc account --event / calibrate --event --solve-for: a dp-accounting event file as it is, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_runner import run

DPSGD = {"class_name": "SelfComposedDpEvent", "count": 1000, "module_name": "dp_accounting.dp_event",
         "event": {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01,
                   "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}}


def _file(tmp_path: Path, data: object, name: str = "event.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return str(p)


def test_account_event_file_written_by_dp_accounting(tmp_path: Path) -> None:
    dpa = pytest.importorskip("dp_accounting")
    peer = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)

    def plain(x: object) -> object:
        if hasattr(x, "_asdict"):
            return {k: plain(v) for k, v in x._asdict().items()}  # type: ignore[attr-defined]
        return [plain(v) for v in x] if isinstance(x, list) else x

    path = _file(tmp_path, plain(peer.to_named_tuple()))
    code, out, _ = run(*("account", "--event", path, "--delta", "1e-5", "--json"))
    assert code == 0
    rows = {r["accountant"]: r for r in json.loads(out)["rows"]}
    assert rows["rdp"]["eps"] == pytest.approx(2.101365271648501, rel=1e-12)
    assert rows["pld"]["eps_lower"] <= rows["pld"]["eps"] < rows["rdp"]["eps"]
    assert rows["rdp"]["relation"] == "add-remove" and rows["rdp"]["sampling"] == "poisson q=0.01"
    assert "exact" not in rows  # does not apply to a sampled event: left out, named in meta with the reason
    assert set(json.loads(out)["meta"]["not_applicable"]) == {"exact", "zcdp", "analytic"}
    assert "without sampling" in json.loads(out)["meta"]["not_applicable"]["zcdp"]


def test_replace_one_gaussian_and_toml(tmp_path: Path) -> None:
    p = tmp_path / "g.toml"
    p.write_text('type = "self_composed"\ncount = 10\n[event]\ntype = "gaussian"\nnoise_multiplier = 3\n')
    code, out, _ = run(*("account", "--event", str(p), "--delta", "1e-5", "--neighbours", "replace-one",
                            "-a", "exact", "--json"))
    assert code == 0
    (row,) = json.loads(out)["rows"]
    assert row["eps"] == pytest.approx(10.66952280966845, rel=1e-12) and row["kind"] == "exact"


@pytest.mark.parametrize(("data", "extra", "message"), [
    ({"class_name": "UnsupportedDpEvent"}, [], "rdp cannot account UnsupportedDpEvent"),
    ({"class_name": "GaussianDpEvent", "noise_multiplier": -1}, [], "noise_multiplier must be"),
    ({"class_name": "FooDpEvent"}, [], "unknown event class 'FooDpEvent'"),
    (DPSGD, ["--neighbours", "swap"], "neighbours must be one of add-remove, replace-one, replace-special"),
    (DPSGD, ["-a", "zcdp"], "zcdp needs Gaussian noise without sampling"),
    (DPSGD, ["-a", "moments"], "accountant must be one of rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld, exact"),
    (DPSGD, ["-a", "exact"], "exact cannot account SelfComposedDpEvent"),
])
def test_errors_are_one_line_exit_2(tmp_path: Path, data: object, extra: list[str], message: str) -> None:
    code, _, err = run(*("account", "--event", _file(tmp_path, data), "--delta", "1e-5", *extra))
    assert code == 2 and message in err and err.count("\n") <= 1


@pytest.mark.parametrize("accountant", ["pld", "exact"])
def test_no_finite_epsilon_is_one_line_exit_2(tmp_path: Path, accountant: str) -> None:
    data = {"class_name": "EpsilonDeltaDpEvent", "epsilon": 2.0, "delta": 1e-9}
    code, _, err = run(*("account", "--event", _file(tmp_path, data), "--delta", "1e-12", "-a", accountant))
    assert code == 2 and "no finite epsilon" in err and err.count("\n") <= 1


def test_non_private_event_says_why_epsilon_is_infinite(tmp_path: Path) -> None:
    code, out, _ = run(*("account", "--event", _file(tmp_path, {"class_name": "NonPrivateDpEvent"}), "--delta",
                         "1e-5", "-a", "pld"))
    assert code == 0 and "epsilon is infinite" in out


def test_schedule_options_still_required_without_event() -> None:
    code, _, err = run(*("account", "--q", "0.1", "--steps", "3", "--delta", "1e-5"))
    assert code == 2 and "--noise-multiplier is required (or describe the mechanism with --event FILE)" in err


def test_calibrate_event_field(tmp_path: Path) -> None:
    path = _file(tmp_path, DPSGD)
    code, out, _ = run(*("calibrate", "--event", path, "--eps", "2", "--delta", "1e-5", "--solve-for",
                            "event.event.noise_multiplier", "--json"))
    assert code == 0
    rows = {r["accountant"]: r for r in json.loads(out)["rows"]}
    assert set(rows) == {"rdp", "rdp-lemma1", "gdp-clt", "pld"}  # every accountant that applies
    row = rows["rdp"]
    assert row["value"] == pytest.approx(1.0222897932691466, rel=1e-8) and row["eps"] <= 2.0
    code, _, err = run(*("calibrate", "--event", path, "--eps", "2", "--delta", "1e-5"))
    assert code == 2 and "--solve-for is needed with --event" in err


def test_with_replacement_rdp_says_what_it_charged_to_delta(tmp_path: Path) -> None:
    event = {"class_name": "SelfComposedDpEvent", "count": 10, "event": {
        "class_name": "SampledWithReplacementDpEvent", "source_dataset_size": 60000, "sample_size": 256,
        "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.1}}}
    path = tmp_path / "wr.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    code, out, err = run("account", "--event", str(path), "--delta", "1e-5", "--neighbours", "replace-one", "-a", "rdp")
    assert code == 0, err
    assert "18.109" in out
    assert "left out of the RDP curve and charged to δ" in " ".join(out.split())
