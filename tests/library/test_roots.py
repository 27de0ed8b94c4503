"""The one root finder (dpcalc._roots): the scalar searches added for the PLD, the calibration and the GDP bracket.

Each returns an evaluated end on the requested side; the tolerances are the documented ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcalc import _roots


def test_bisect_returns_the_end_where_the_predicate_holds() -> None:
    calls: list[float] = []

    def pred(x: float) -> bool:
        calls.append(x)
        return x * x >= 2.0

    lo, hi = _roots.bisect(pred, 0.0, 2.0, rtol=1e-15, atol=1e-15)
    assert pred(hi) and not pred(lo) and hi - lo <= 1e-15 * (hi + 1.0)
    assert hi == pytest.approx(math.sqrt(2.0), rel=2e-15)
    # stops at adjacent doubles however small the tolerance
    lo, hi = _roots.bisect(lambda x: x >= 0.1, 0.0, 1.0)
    assert np.nextafter(lo, 1.0) == hi and hi >= 0.1


def test_integer_search_is_the_first_integer_where_the_predicate_holds() -> None:
    seen: list[int] = []

    def pred(n: int) -> bool:
        seen.append(n)
        return n * n >= 1000

    assert _roots.integer_search(pred, 0, 100) == 32
    assert len(seen) <= math.ceil(math.log2(100))
    assert _roots.integer_search(lambda n: True, 5, 6) == 6


@pytest.mark.parametrize("increasing", [False, True])
def test_secant_search_brackets_the_root_on_both_sides(increasing: bool) -> None:
    """f(x) = ±(x − log 7) + 0.1·sin(x) (monotone): the final bracket is an evaluated pair around the root no wider
    than xtol; with an acceptance test it stops at the first safe point close enough (linearised)."""
    import mpmath

    sign = 1.0 if increasing else -1.0
    root_of = float(mpmath.findroot(lambda x: x - mpmath.log(7) + mpmath.sin(x) / 10, 1.8))

    def f(x: float) -> float:
        return sign * (x - math.log(7.0) + 0.1 * math.sin(x))

    safe = "lo" if increasing else "hi"
    found = _roots.secant_search(f, 0.0, increasing=increasing, safe=safe, slope=sign, x_min=-10.0, x_max=10.0,
                                 xtol=1e-12, overshoot=1e-12 / 256)
    assert found.status == "width" and found.hi - found.lo <= 1e-12
    assert sign * f(found.lo) < 0.0 <= sign * f(found.hi)
    assert found.lo <= root_of <= found.hi
    close = _roots.secant_search(f, 0.0, increasing=increasing, safe=safe, slope=sign, x_min=-10.0, x_max=10.0,
                                 xtol=1e-9, overshoot=1e-6, done=lambda v: 0.0 <= -v <= 1e-6)
    assert close.status == "done" and -1e-6 <= f(close.x) <= 0.0


def test_secant_search_reports_the_limit_it_ran_into() -> None:
    found = _roots.secant_search(lambda x: 5.0 - x, 0.0, increasing=False, safe="hi", slope=-1.0, x_min=-3.0,
                                 x_max=3.0, xtol=1e-9)
    assert found.status == "limit" and found.x == 3.0
    # infinite values move by the step cap towards the root
    found = _roots.secant_search(lambda x: math.inf if x < 1.0 else 2.0 - x, -6.0, increasing=False, safe="hi",
                                 slope=-1.0, x_min=-10.0, x_max=10.0, xtol=1e-9)
    assert found.status == "width" and found.hi == pytest.approx(2.0, abs=1e-9)


def test_expand_moves_each_bracket_up_until_it_holds_the_root() -> None:
    roots = np.array([0.5, 3.0, 40.0])

    def f(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return x - roots[idx]

    lo, hi = _roots.expand(f, np.zeros(3), np.ones(3), increasing=True, step=2.0)
    np.testing.assert_array_equal(hi, [1.0, 3.0, 41.0])
    np.testing.assert_array_equal(lo, [0.0, 1.0, 39.0])  # the one where f(1) >= 0 was not moved
