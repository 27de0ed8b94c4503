"""The PLD at subnormal rates and noise multipliers whose square underflows: the loss variance that sizes the lattice
is computed in log space, so a lattice that cannot fit is refused in one line before the Chernoff step (whose
orders were all NaN there: `delta_upper(sigma=1e-300, q=5e-324, …)` failed with "All-NaN slice encountered")."""

from __future__ import annotations

import math

import mpmath
import pytest

from dpcalc.accounting import pld
from dpcalc.accounting.pld.schedule import Step, loss_variance
from dpcalc.errors import DomainError


def _reference(sigma: float, q: float, count: int) -> float:
    """count·min(q²(e^{1/σ²} − 1), min(1/σ², e^700)) at 50 digits (the cap as in the code)."""
    with mpmath.workdps(50):
        s, qq = mpmath.mpf(sigma), mpmath.mpf(q)
        inv = min(1 / s**2, mpmath.e**700)
        return float(count * min(qq**2 * mpmath.expm1(min(1 / s**2, mpmath.mpf(mpmath.e**700))), inv))


@pytest.mark.parametrize(("sigma", "q", "count"), [
    (1.0, 0.01, 1), (0.5, 1e-3, 7), (3.0, 0.2, 100), (1e3, 1e-200, 1), (1e-3, 1.0, 1), (30.0, 0.5, 2),
    (1e-300, 5e-324, 1), (1e-100, 1e-300, 3), (0.05, 1e-170, 1),
])
def test_loss_variance_against_mpmath(sigma: float, q: float, count: int) -> None:
    got, ref = loss_variance([Step(sigma, q, count)]), _reference(sigma, q, count)
    assert got == pytest.approx(ref, rel=1e-12, abs=0.0)


def test_subnormal_rate_keeps_its_variance() -> None:
    """q² underflowed to 0 and e^{1/σ²} was clipped: the product was 0; the true term is 1/σ² (capped at e^700)."""
    assert loss_variance([Step(1e-300, 5e-324, 1)]) == pytest.approx(math.exp(700.0), rel=1e-12)


@pytest.mark.parametrize("q", [5e-324, 1e-300, 0.5])
def test_underflowing_sigma_refused_in_one_line(q: float) -> None:
    with pytest.raises(DomainError, match=r"^pld: the composed privacy loss .* grid points") as info:
        pld.delta_upper(sigma=1e-300, q=q, steps=1, eps=5e-324)
    assert "\n" not in str(info.value) and "NaN" not in str(info.value)
