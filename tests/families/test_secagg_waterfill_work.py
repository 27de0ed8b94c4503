"""WF-NA's work: a diagonal covariance (a list of eigenvalues) is filled in closed form, without an
eigendecomposition; a dense one's O(K³) work is estimated before it starts (`dpcalc.secagg.waterfill`).

Before: ``secagg waterfill`` with 3,000 eigenvalues ran two 3,000 × 3,000 eigendecompositions (85 s; 40 s of CPU
on this machine), and one negative eigenvalue among them was found only after both. The tests count
eigendecompositions (what the code does), not seconds. Three ways: the closed form against an exact sum
(``math.fsum``), against the eigendecomposition path on the same spectrum in a rotated basis, and the CLI result.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from dpcalc import _limits, secagg
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.secagg import analysis, waterfill
from tests.support.cli_runner import run


@pytest.fixture
def eighs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The sizes of every symmetric eigendecomposition WF-NA runs (SciPy's eigh, NumPy's eigvalsh)."""
    import scipy.linalg

    sizes: list[int] = []
    eigh, eigvalsh = scipy.linalg.eigh, np.linalg.eigvalsh

    def counted(fn: Any) -> Any:
        def wrapper(a: Any, *args: Any, **kwargs: Any) -> Any:
            sizes.append(int(np.shape(a)[0]))
            return fn(a, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(scipy.linalg, "eigh", counted(eigh))
    monkeypatch.setattr(np.linalg, "eigvalsh", counted(eigvalsh))
    yield sizes


def test_eigenvalues_are_filled_without_an_eigendecomposition(eighs: list[int], rng: np.random.Generator) -> None:
    lam = rng.uniform(0, 1, 3000)
    s2 = 0.1
    wf = analysis.water_filling_from(s2, eigenvalues=lam, normalization="sec5")
    assert eighs == []
    exact = math.fsum(max(s2 - x, 0.0) for x in lam.tolist())
    assert wf.added_power == pytest.approx(exact, rel=1e-13)
    assert np.array_equal(wf.eigenvalues, np.sort(lam)) and np.array_equal(wf.filled, np.maximum(np.sort(lam), s2))
    assert wf.min_eigenvalue_after == s2 and wf.isotropic_power == pytest.approx(3000 * s2, rel=1e-15)
    assert np.array_equal(np.diag(wf.noise_cov), np.maximum(s2 - lam, 0.0))
    assert np.count_nonzero(wf.noise_cov) == np.count_nonzero(lam < s2)


def test_the_closed_form_equals_the_eigendecomposition_in_a_rotated_basis(rng: np.random.Generator) -> None:
    """Same spectrum, dense (rotated by a random orthogonal Q) and diagonal: the same fill, up to round-off."""
    lam = np.concatenate([rng.uniform(0, 0.05, 20), rng.uniform(0.05, 1, 20)])
    q = np.linalg.qr(rng.standard_normal((40, 40)))[0]
    dense = secagg.water_filling((q * lam) @ q.T, 0.05, normalization="sec5")
    diagonal = secagg.water_filling(np.diag(lam), 0.05, normalization="sec5")
    assert diagonal.added_power == pytest.approx(dense.added_power, rel=1e-12)
    np.testing.assert_allclose(diagonal.eigenvalues, dense.eigenvalues, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(q @ diagonal.noise_cov @ q.T, dense.noise_cov, atol=1e-14)
    assert diagonal.min_eigenvalue_after == pytest.approx(dense.min_eigenvalue_after, rel=1e-12)


def test_blocks_of_a_diagonal_covariance_fill_the_same(eighs: list[int]) -> None:
    with pytest.warns(ErratumWarning, match="E8"):
        blocked = secagg.water_filling(np.diag([0.01, 0.2, 0.03, 0.5]), 0.1, normalization="sec5", blocks=2)
    whole = secagg.water_filling(np.diag([0.01, 0.2, 0.03, 0.5]), 0.1, normalization="sec5")
    assert eighs == [] and blocked.added_power == whole.added_power == pytest.approx(0.16, rel=1e-15)
    assert blocked.blocks == 2 and blocked.min_eigenvalue_after == 0.1


def test_one_bad_eigenvalue_of_3000_is_refused_before_any_matrix(eighs: list[int],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    diag = np.diag
    monkeypatch.setattr(np, "diag", lambda v, *a: made.append(np.size(v)) or diag(v, *a))
    values = ",".join([str(i / 3000) for i in range(1, 3000)] + ["-1"])
    code, _, err = run("secagg", "waterfill", "--eigenvalues", values, "--normalization", "sec5", "--sigma2", "0.1")
    assert code == 2 and "--eigenvalues must be >= 0: item 3000 is -1" in err
    assert eighs == [] and made == []


def test_the_cli_result_of_3000_eigenvalues(eighs: list[int]) -> None:
    lam = [i / 3000 for i in range(1, 3001)]
    doc = json.loads(run("secagg", "waterfill", "--eigenvalues", ",".join(map(str, lam)), "--normalization", "sec5",
                         "--sigma2", "0.1", "--json")[1])
    assert eighs == []
    assert doc["summary"]["K"] == 3000 and doc["summary"]["min_eigenvalue_after"] == 0.1
    assert doc["summary"]["added_power"] == pytest.approx(math.fsum(max(0.1 - x, 0.0) for x in lam), rel=1e-13)


def test_a_dense_covariance_over_the_minute_is_refused_before_its_eigendecomposition(
        eighs: list[int], rng: np.random.Generator) -> None:
    k = int((1.2 * _limits.MAX_SECONDS / waterfill.EIGH_SECONDS) ** (1 / 3)) + 1  # 2,885: ~72 s by the estimate
    a = rng.standard_normal((k, 8))
    with pytest.raises(DomainError, match=rf"^cov \({k} × {k}\) would take about .* min of work"):
        secagg.water_filling(a @ a.T, 0.1, normalization="sec5")
    assert eighs == []


def test_the_memory_of_many_eigenvalues_is_checked_before_the_matrix() -> None:
    with pytest.raises(DomainError, match=r"eigenvalues \(100000 values: K × K matrices\) would need about 447 GiB"):
        analysis.water_filling_from(0.1, eigenvalues=np.ones(100_000), normalization="sec5")
