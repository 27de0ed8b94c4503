"""CLI ``dpcalc secagg …`` and ``dpcalc cuag uplink|rates|matrix|coherence``: vectors through the console entry point,
explicit normalisation, one-line errors (exit 2)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcalc import secagg
from tests.support.cli_runner import run, run_json


def test_rdp_eigenvalue_sum_and_normalisations() -> None:
    args = ("secagg", "rdp", "--B", "32", "--C", "10", "--data-size", "1200", "--alpha", "2:64:1", "--delta", "1e-4")
    doc = run_json(*args, "--eig-min-sum", "5", "--normalization", "sec4")
    rows = {r["alpha"]: r for r in doc["rows"]}
    assert rows[2.0]["rdp"] == pytest.approx(float(secagg.theorem2_rdp(2.0, 5, 32, 10, 1200, normalization="sec4")))
    assert rows[60.0]["rdp"] is None and rows[59.0]["rdp"] is not None  # α_max = D·S/C² = 60
    assert doc["summary"]["alpha_max"] == pytest.approx(60.0)
    same = run_json(*args, "--eig-min-sum", str(5 / 32), "--normalization", "sec5")
    ours, theirs = [r["rdp"] for r in same["rows"]], [r["rdp"] for r in doc["rows"]]
    assert [x is None for x in ours] == [x is None for x in theirs]  # the same orders beyond α_max
    assert [x for x in ours if x is not None] == pytest.approx([x for x in theirs if x is not None], rel=1e-12)
    assert doc["meta"]["formula"] == "secagg.theorem2_rdp"
    code, _, err = run(*args, "--eig-min-sum", "5")
    assert code == 2 and "normalization" in err and err.count("\n") == 1


def test_rdp_from_gradient_file(tmp_path, rng: np.random.Generator) -> None:  # type: ignore[no-untyped-def]
    g = rng.standard_normal((3, 60))
    g /= np.linalg.norm(g, axis=0)
    path = tmp_path / "g.npy"
    np.save(path, np.stack([g, g[:, ::-1]]))
    doc = run_json("secagg", "rdp", "--gradients", str(path), "--B", "8", "--C", "1", "--alpha", "2,3", "--delta",
                   "1e-5")
    s = 2 * np.linalg.eigvalsh(g @ g.T / 60)[0]
    assert doc["summary"]["S_sec4"] == pytest.approx(s, rel=1e-10)
    assert doc["meta"]["users"] == 2 and doc["meta"]["K"] == 3
    code, _, err = run("secagg", "rdp", "--gradients", str(tmp_path / "missing.npy"), "--B", "8", "--C", "1",
                       "--delta", "1e-5")
    assert code == 2 and "does not exist" in err


def test_table1_rows() -> None:
    doc = run_json("secagg", "table1", "--n", "50", "--sigma2", "0.01", "--B", "32", "--C", "10",
                   "--data-size", "1200", "--delta", "1e-4")
    eps = [r["eps"] for r in doc["rows"]]
    assert eps[0] == pytest.approx(1.002008345, rel=1e-9) and eps[2] == pytest.approx(0.1014395864, rel=1e-9)
    assert eps[4] == pytest.approx(0.1603876394, rel=1e-9) and eps[5] == pytest.approx(0.2287771964, rel=1e-9)
    assert eps[1] is None and eps[3] is None and "No DP guarantee" in doc["rows"][1]["note"]
    pub = run_json("secagg", "table1", "--n", "50", "--sigma2", "0.01", "--B", "32", "--C", "10", "--data-size", "1200",
                   "--delta", "1e-4", "--as-published")
    assert pub["rows"][5]["eps"] == pytest.approx(pub["rows"][4]["eps"], rel=1e-12)
    assert any("E1" in w for w in pub["meta"].get("warnings", pub.get("warnings", [])))


def test_divergence_both_forms_and_inf() -> None:
    doc = run_json("secagg", "divergence", "--mu1", "0.1,-0.2", "--cov1", "1,0.3;0.3,0.5", "--mu2", "0,0",
                   "--cov2", "1.2,0.1;0.1,0.6", "--alpha", "1.5,2,5")
    assert [r["divergence"] for r in doc["rows"]] == pytest.approx([0.1524053247698, 0.1793630967055,
                                                                    0.2828779168193], rel=1e-12)
    code, out, _ = run("secagg", "divergence", "--dmu", "0.5", "--lam1", "1.5", "--lam2", "1", "--alpha", "3")
    assert code == 0 and "not positive definite" in out
    code, _, err = run("secagg", "divergence", "--mu1", "0,0", "--cov1", "1,0.5;0.1,1", "--mu2", "0,0",
                       "--cov2", "1,0;0,1", "--alpha", "2")
    assert code == 2 and "symmetric" in err and err.count("\n") == 1


def test_waterfill_mi_bound_and_span_check(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = run_json("secagg", "waterfill", "--cov", "0.2266667,0.08;0.08,0.1483333", "--normalization", "sec5",
                   "--sigma2", "0.1")
    assert doc["summary"]["added_power"] == pytest.approx(0.0015731597, abs=1e-7)
    assert doc["summary"]["min_eigenvalue_after"] == pytest.approx(0.1)
    blk = run("secagg", "waterfill", "--cov", "1,0.9;0.9,1", "--normalization", "sec5", "--sigma2", "1",
              "--blocks", "2")
    assert blk[0] == 0 and "E8" in blk[1] + blk[2]
    mi = run_json("secagg", "mi-bound", "--c-const", "1", "--d", "100", "--n", "10", "--B", "32")
    assert mi["rows"][0]["mi"] == pytest.approx(5.615248005114, rel=1e-12)
    code, _, err = run("secagg", "mi-bound", "--c-const", "1", "--d", "100", "--n", "1", "--B", "32")
    assert code == 2 and err.startswith("dpcalc: error: --n must be")
    g = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    path = tmp_path / "g.npy"
    np.save(path, g)
    inside = run_json("secagg", "span-check", "--gradients", str(path), "--g-new", "0.3,0.4,0")
    outside = run_json("secagg", "span-check", "--gradients", str(path), "--g-new", "0.3,0.4,0.1",
                       "--sampling", "iid", "--B", "1")
    assert inside["rows"][0]["in_span"] == "yes" and outside["rows"][0]["in_span"] == "no"
    assert outside["rows"][0]["delta_threshold"] == pytest.approx(0.5)


def test_cuag_compression_commands() -> None:
    doc = run_json("cuag", "uplink", "--model", "vgg16-cifar10", "--rate", "0.5,0.4,0.3")
    assert [round(r["uplink"], 4) for r in doc["rows"]] == [75.0468, 60.0375, 45.0281]
    cnn = run_json("cuag", "uplink", "--model", "cnn-cifar10", "--rate", "1,0.5,0.4,0.3")
    assert [round(r["uplink"], 4) for r in cnn["rows"]] == [0.8918, 0.4459, 0.3567, 0.2675]
    assert round(run_json("cuag", "uplink", "--model", "cnn-cifar10", "--rate", "1", "--copies", "2")["rows"][0][
        "uplink"], 4) == 1.7836
    rates = run_json("cuag", "rates", "--layer-norms", "3,0.1,4,0.5")
    assert [r["rate"] for r in rates["rows"]] == [0.5, 0.5, 0.5, 0.4]
    assert run_json("cuag", "rates", "--layer-norms", "0.05,0.9987492178", "--rounding", "numpy")["rows"][0][
        "rate"] == 0.4
    mat = run_json("cuag", "matrix", "--rate", "0.3", "--layer-size", "64")["rows"][0]
    assert (mat["b"], mat["z"], mat["count"]) == (19, 3, 7)
    code, _, err = run("cuag", "matrix", "--rate", "0.2", "--layer-size", "7")
    assert code == 2 and "E7" in err and err.count("\n") == 1
    coh = run_json("cuag", "coherence", "--rate", "0.5", "--a", "512")["rows"][0]
    assert coh["coherence"] == pytest.approx(2 ** 0.5, rel=1e-12) and coh["coherence_dct"] == pytest.approx(2.0,
                                                                                                             abs=1e-4)


def test_span_check_users_with_different_k_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Inline 2 × 2 gradients beside a 3 × 20 file: a NumPy concatenation traceback (CLI fuzz, once the fuzz
    reached span-check's success path with a prepared grads.npy)."""
    path = tmp_path / "grads.npy"
    np.save(path, np.eye(3, 20) * 0.5)
    code, out, err = run("secagg", "span-check", "--gradients", "0.6,0.8;0.8,-0.6", "--gradients", str(path),
                         "--g-new", "0.3,0.4,0.1")
    assert code == 2 and out == ""
    assert err.strip() == ("dpcalc: error: --gradients: user 2 has K = 3 rows but user 1 has K = 2 (each user's "
                           "matrix is K × D_i with one K)")
    code, out, _ = run("secagg", "span-check", "--gradients", str(path), "--g-new", "0.3,0.4,0.1")
    assert code == 0 and "in span" in out


def test_a_gradient_file_name_too_long_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Path.exists raised OSError (ENAMETOOLONG) before the file reader could say so: a traceback (CLI fuzz)."""
    code, out, err = run("secagg", "span-check", "--gradients", str(tmp_path / ("x" * 300 + ".csv")), "--g-new", "1,0")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("dpcalc: error: --gradients: cannot read ") and err.rstrip().endswith("file name too long")
