"""Sweeps in blocks (dpcalc.sim.sweep): the blocks tile the product grid in row order, and the streamed CSV holds
exactly the values of the in-memory evaluation, for any block size and on a local pool."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from dpcalc.errors import DomainError
from dpcalc.sim import sweep


@pytest.mark.parametrize("sizes", [[1], [7], [3, 5], [4, 1, 6], [2, 3, 4, 5]])
@pytest.mark.parametrize("block_rows", [1, 2, 5, 7, 24, 1000])
def test_blocks_tile_the_grid_in_row_order(sizes: list[int], block_rows: int) -> None:
    options = {f"x{i}": [float(10 * i + j) for j in range(n)] for i, n in enumerate(sizes)}
    rows = []
    for block in sweep.plan(sizes, block_rows):
        sub = sweep.block_options(options, block)
        part = list(itertools.product(*sub.values()))
        assert 1 <= len(part) <= block_rows
        rows.extend(part)
    assert rows == list(itertools.product(*options.values()))


def test_plan_rejects_empty_and_oversized_grids() -> None:
    with pytest.raises(DomainError, match="at least one value"):
        sweep.plan([3, 0])
    with pytest.raises(DomainError, match="rows"):
        sweep.plan([10**6, 10**6])


def _sigma(options: dict[str, list[float]]) -> dict[str, np.ndarray]:
    """A vectorised evaluator over a product grid (np.ix_ axes, first option slowest)."""
    eps, d = np.ix_(np.asarray(options["eps"]), np.asarray(options["d"]))
    value = np.sqrt(2 * np.log1p(d / eps)) * np.expm1(-eps)
    shape = value.shape
    return {"eps": np.broadcast_to(eps, shape).ravel(), "d": np.broadcast_to(d, shape).ravel(),
            "value": value.ravel()}


@pytest.mark.parametrize(("block_rows", "workers"), [(1 << 18, 1), (37, 1), (50, 2)])
def test_streamed_csv_equals_the_whole_grid(tmp_path: Path, block_rows: int, workers: int) -> None:
    options = {"eps": [0.1 * k for k in range(1, 41)], "d": [10.0**k for k in range(9)] + [math.pi]}
    whole = _sigma(options)
    path = tmp_path / "s.csv"
    assert sweep.write_csv(_sigma, options, path, block_rows=block_rows, workers=workers) == 400
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "eps,d,value"
    got = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    for j, key in enumerate(("eps", "d", "value")):
        assert np.array_equal(got[:, j], whole[key]), key


def _first_fast(options: dict[str, list[float]]) -> float:
    """A block task: the first block returns at once, every other sleeps 60 s (a run the user interrupts) and then
    leaves a mark in $DPCALC_TEST_MARKS (a task that ran to its end)."""
    import os
    import time
    from pathlib import Path

    if options["x"][0] > 0:
        time.sleep(60)
        (Path(os.environ["DPCALC_TEST_MARKS"]) / f"{options['x'][0]:g}").touch()
    return options["x"][0]


def test_a_sweep_left_early_ends_its_pool_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A consumer that stops reading (an interrupt, an error) closes the generator: the pool's running tasks are
    ended, not waited for (before: the close waited for every running task; with the garbage collector doing the
    close the interruption surfaced as 'Exception ignored in: <generator object run_blocks>'). Shown by what
    happened, not by a clock: after the close no pool process is left and no sleeping task reached its end."""
    import multiprocessing

    monkeypatch.setenv("DPCALC_TEST_MARKS", str(tmp_path))  # the pool's processes start inside run_blocks
    others = set(multiprocessing.active_children())  # e.g. a Dask cluster of other tests: not the pool's
    blocks = sweep.run_blocks(_first_fast, {"x": [0.0, 1.0, 2.0, 3.0]}, workers=2, block_rows=1)
    assert next(blocks) == 0.0
    blocks.close()
    pool = [child for child in multiprocessing.active_children() if child not in others]
    for child in pool:  # an ended process is reaped at once; one that was waited for sleeps its 60 s out
        child.join()
    assert [child for child in multiprocessing.active_children() if child not in others] == []
    assert list(tmp_path.iterdir()) == []  # no task slept its 60 s out: they were ended


def test_an_empty_scheduler_address_is_refused() -> None:
    with pytest.raises(DomainError, match="address without spaces"):
        next(sweep.run_blocks(_first_fast, {"x": [0.0]}, scheduler=""))
