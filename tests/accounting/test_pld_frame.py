"""The curves' shared frame: the discounts e^{rate·j} as products of two exponentials stay as accurate as one
exponential of the rounded argument (checked with mpmath at 40 digits)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from dpcalc.accounting.pld.curve import _geometric, frame

U = 2.0**-53


@pytest.mark.parametrize(("rate", "n"), [(-0.0023, 10800), (-1.2e-5, 38400), (-0.0069, 8000), (-0.06, 11000),
                                         (-1.0, 600), (0.0, 5)])
def test_the_powers_are_within_their_argument_rounding(rate: float, n: int) -> None:
    g = _geometric(rate, n)
    assert g.shape == (n,) and g[0] == 1.0
    idx = np.unique(np.linspace(0, n - 1, 300).astype(int))
    with mpmath.workdps(40):
        for j in idx:
            exact = mpmath.exp(mpmath.mpf(rate) * int(j))
            rel = abs(float((mpmath.mpf(float(g[j])) - exact) / exact))
            # the exponent rate·j is rounded (relative u) in any float evaluation: |rate·j|·u, plus a few ulps
            assert rel <= (abs(rate) * j + 4.0) * U


def test_both_curves_of_a_pass_share_the_frame() -> None:
    fr = frame(1000, -40, 0.01, 0.003, 2.5)
    assert fr.powers is not None
    np.testing.assert_allclose(fr.x, (-40 + np.arange(1000)) * 0.01 + 0.003, rtol=0, atol=1e-15)
    np.testing.assert_allclose(fr.powers[1], fr.powers[0] * np.exp(-0.01 * np.arange(1000)), rtol=1e-13)
    assert frame(100_000, 0, 0.01, 0.0, 2.5).powers is None  # (λ + 1)·h·n ≥ 700: the blocked suffix sums
