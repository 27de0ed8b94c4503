"""The closed-form preimages of a Laplace pair's loss (`dpcalc.accounting.pld.preimages.laplace_preimages`) against
the generic search (a table of the loss, then regula falsi) and against the loss itself: the quadrature cells of the
Laplace family break there."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcalc.accounting.pld import atoms
from dpcalc.accounting.pld.losses import NoisePair
from dpcalc.accounting.pld.preimages import laplace_preimages


@pytest.mark.parametrize("seed", range(6))
def test_laplace_preimages_match_the_search_and_the_loss(seed: int) -> None:
    """Random mixtures over shifts {−1, 0, 1, 2} against Laplace(0) (both orientations), b from 0.01 to 30: the
    closed form lies within 1e-12 of the range from the search's preimage and the loss there is g to 1e-13."""
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(60):
        b = float(10 ** rng.uniform(-2, 1.5))
        k = int(rng.integers(1, 4))
        shifts = tuple(sorted(float(s) for s in rng.choice([-1.0, 0.0, 1.0, 2.0], size=k, replace=False)))
        w = rng.random(k)
        pair = NoisePair("laplace", b, shifts, tuple((w / w.sum()).tolist()))
        if rng.random() < 0.5:
            pair = pair.swapped()
        x_lo, x_hi = min(pair.p_shifts + pair.q_shifts), max(pair.p_shifts + pair.q_shifts)
        ends = atoms._loss(pair, np.array([x_lo, x_hi]))
        l_min, l_max = float(ends.min()), float(ends.max())
        if not (x_hi > x_lo and l_max > l_min):
            continue
        h = (l_max - l_min) / float(rng.integers(3, 300))
        g = np.arange(math.ceil(l_min / h), math.floor(l_max / h) + 1) * h
        got = laplace_preimages(pair, g, x_lo, x_hi)
        ref = atoms._preimages(pair, g, x_lo, x_hi, bool(ends[1] >= ends[0]))
        assert np.all((got >= x_lo) & (got <= x_hi))
        assert float(np.max(np.abs(got - ref))) <= 1e-12 * (x_hi - x_lo)
        assert float(np.max(np.abs(atoms._loss(pair, got) - g) / (1.0 + np.abs(g)))) <= 1e-13
        checked += 1
    assert checked >= 30


def test_a_value_outside_the_range_goes_to_the_nearer_end() -> None:
    pair = NoisePair("laplace", 2.0, (1.0,), (1.0,))  # loss (|x| − |x − 1|)/2 on [0, 1]: from −0.5 to 0.5
    got = laplace_preimages(pair, np.array([-0.7, -0.5, 0.0, 0.5, 0.9]), 0.0, 1.0)
    np.testing.assert_allclose(got, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-15)
