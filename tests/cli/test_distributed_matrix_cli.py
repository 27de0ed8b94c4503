"""``dpcalc distributed …`` and ``dpcalc matrix …``: the commands give the library's numbers, and bad input is one
line naming the option (exit code 2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpcalc import distributed as dd
from dpcalc import matrix
from tests.support.cli_runner import run, run_json


def test_distributed_epsilon_matches_library() -> None:
    doc = run_json("distributed", "epsilon", "--clip", "1", "--sigma", "0.5", "--gamma", "0.001", "--d", "4096",
                   "--clients", "1000", "--clients-per-round", "100", "--rounds", "50", "--delta", "1e-5",
                   "--mechanism", "skellam")
    (row,) = doc["rows"]
    p = dd.Pipeline("skellam", c=1.0, sigma=0.5, gamma=0.001, n=100, d=4096, q=0.1, rounds=50)
    assert row["eps"] == pytest.approx(dd.epsilon(p, 1e-5).eps, rel=1e-12)
    assert row["z"] == pytest.approx(5.0) and row["wrap"] is None
    assert "distributed.skellam_rdp" in doc["meta"]["formula"]


def test_distributed_bits_and_failure() -> None:
    doc = run_json("distributed", "bits", "--bits", "10,16", "--clip", "1", "--sigma", "0.5", "--d", "1024",
                   "--n", "50", "--delta", "1e-5")
    eps = [r["eps"] for r in doc["rows"]]
    assert eps[0] > eps[1]
    assert eps == pytest.approx(list(dd.epsilon_for_bits([10, 16], "ddg", 1.0, 0.5, 50, 1024, 1e-5)), rel=1e-12)
    doc = run_json("distributed", "failure", "--bits", "16", "--clip", "1", "--gamma", "0.001", "--sigma", "0.5",
                   "--n", "100", "--d", "65536")
    (row,) = doc["rows"]
    assert row["wrap"] == pytest.approx(dd.modular_failure_bound(16, 1.0, 0.001, 0.5, 100, 65536), rel=1e-12)
    assert row["l2"] == pytest.approx(dd.rounded_l2_bound(1000.0, 65536), rel=1e-12)


def test_matrix_commands_match_library(tmp_path: Path) -> None:
    doc = run_json("matrix", "epsilon", "-z", "5", "--delta", "1e-5", "--restart", "10", "--clients", "1000",
                   "--clients-per-round", "100", "--rounds", "2000")
    (row,) = doc["rows"]
    assert row["sensitivity"] ** 2 == pytest.approx(800, rel=1e-12)
    assert row["eps"] == pytest.approx(matrix.epsilon(5.0, row["sensitivity"], 1e-5), rel=1e-12)
    c = np.tril(np.full((6, 6), 0.5)) + np.eye(6) * 0.5
    np.save(tmp_path / "c.npy", c)
    doc = run_json("matrix", "sensitivity", "--strategy", "matrix", "--strategy-file", str(tmp_path / "c.npy"),
                   "--steps", "6", "--participations", "2", "--separation", "2")
    (row,) = doc["rows"]
    assert row["sensitivity"] == pytest.approx(matrix.brute_force(c, matrix.Participation(6, 2, 2)).value,
                                               rel=1e-12)
    doc = run_json("matrix", "epsilon", "-z", "2", "--delta", "1e-5", "--strategy", "banded", "--coefficients",
                   "1,0.5", "--steps", "100", "--separation", "2", "--participations", "50", "--sampling-prob", "0.1")
    assert doc["rows"][0]["eps"] == pytest.approx(
        matrix.amplified_epsilon(matrix.banded_toeplitz([1.0, 0.5], 100), 2.0, 0.1, 2, 1e-5), rel=1e-12)


@pytest.mark.parametrize(("args", "message"), [
    (["distributed", "calibrate", "--clip", "1", "--eps", "8", "--delta", "1e-5", "--bits", "6", "--d", "4096",
      "--n", "100"], "bits = 6 is too small for the noise"),
    (["distributed", "epsilon", "--clip", "1", "--sigma", "0.5", "--bits", "12", "--gamma", "1e-6", "--d", "4096",
      "--n", "100", "--delta", "1e-5"], "modulus overflow: bits = 12"),
    (["distributed", "epsilon", "--clip", "1", "--sigma", "0.5", "--bits", "80", "--d", "4096", "--n", "100",
      "--delta", "1e-5"], "--bits must be an integer in [1, 62]"),
    (["distributed", "epsilon", "--clip", "1", "--sigma", "0.5", "--gamma", "0.01", "--d", "8", "--n", "10",
      "--q", "0.5", "--delta", "1e-5", "--neighbours", "replace-one"], "relation must be"),
    (["matrix", "sensitivity", "--steps", "10", "--participations", "2", "--separation", "11"],
     "--separation must be <= steps (10)"),
    (["matrix", "epsilon", "-z", "1", "--delta", "1e-5", "--strategy", "banded", "--coefficients", "1,1,1",
      "--steps", "9", "--separation", "2", "--sampling-prob", "0.5"], "at most 2 bands"),
])
def test_one_line_errors(args: list[str], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_not_lower_triangular_names_the_option(tmp_path: Path) -> None:
    (tmp_path / "upper.txt").write_text("1 1\n0 1\n")
    code, _, err = run("matrix", "sensitivity", "--strategy", "matrix", "--strategy-file",
                       str(tmp_path / "upper.txt"), "--steps", "2")
    assert code == 2 and err.startswith("dpcalc: error: --strategy-file must be lower-triangular")
