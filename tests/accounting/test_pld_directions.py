"""ε is the larger of the two neighbour directions: when the add direction looked worse at the coarse lattice and its
refinement ended below the remove direction's upper bound, the add bound alone was returned — below the exact ε (found
by the deep PLD sweep: σ = 48.3, q = 2e-5, T = 1, δ = 4.46e-8 gave ε_upper = 3.5416e-7 for the exact 3.5904e-7; the
bracket was within atol, so it looked converged)."""

from __future__ import annotations

import mpmath
import pytest

from dpcalc.accounting import pld
from tests.support.pld_reference import eps_subsampled_gaussian


@pytest.mark.parametrize(("sigma", "q", "delta"), [
    (48.325423575779325, 1.9906693817522273e-05, 4.458101791617762e-08),
])
def test_bracket_contains_the_worse_direction(sigma: float, q: float, delta: float) -> None:
    with mpmath.workdps(30):
        exact = float(eps_subsampled_gaussian(sigma, q, delta))
    br = pld.epsilon_subsampled_gaussian(sigma, q, 1, delta)
    assert br.eps_lower <= exact <= br.eps_upper
    assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL
