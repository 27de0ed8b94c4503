"""The shared layer every public function goes through (``dpcalc._validate.evaluate``, ``dpcalc._validate.warn``).

* dpcalc's own warnings point at the user's line, not at a decorator in ``_validate.py``;
* NumPy floating-point flags inside a computation never leak as ``RuntimeWarning`` (nor raise under a user's
  ``np.seterr(all="raise")``); a NaN result and a bare Python ``OverflowError`` become one-line DomainErrors.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpcalc import _validate as v
from dpcalc.accounting import gaussian_mechanism, gdp
from dpcalc.errors import DomainError, EstimateWarning, OutOfDomainWarning


def test_warnings_point_at_the_callers_line() -> None:
    with pytest.warns(EstimateWarning) as caught:
        gdp.clt_mu(0.01, 1.0, 100)  # decorated (named_shapes) and warns from inside
    assert caught[0].filename == __file__
    with pytest.warns(OutOfDomainWarning) as caught:
        gaussian_mechanism.classic_sigma(2.0, 1e-5)
    assert caught[0].filename == __file__


def test_numpy_flags_stay_inside_the_computation() -> None:
    from dpcalc.accounting import zcdp

    old = np.seterr(all="raise")  # a user's strict NumPy setting must not turn internal overflows into errors
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert zcdp.delta_from_rho(668.0, 131.0) == 1.0  # eps < rho: delta 1 (overflowing intermediates)
    finally:
        np.seterr(**old)


def test_a_nan_result_and_a_python_overflow_are_one_line_errors() -> None:
    @v.named_shapes
    def gives_nan(x: float) -> float:
        return math.inf - math.inf

    @v.scalar_params
    def overflows(x: float) -> float:
        return x ** 2

    @v.named_shapes
    def overflows_quietly(x: float) -> float:
        return x * 1e300

    @v.named_shapes
    @v.documented_inf
    def documents_inf(x: float) -> float:
        return math.inf if x > 1 else x

    with pytest.raises(DomainError, match=r"^gives_nan is undefined at x=1 \(the computation gave NaN\)$"):
        gives_nan(1.0)
    with pytest.raises(DomainError, match=r"^overflows_quietly: the result overflows float64 at x=1e\+10 "):
        overflows_quietly(1e10)
    with pytest.raises(DomainError, match=r"^overflows_quietly: .* at x of shape \(2,\)"):
        overflows_quietly(np.array([1.0, 1e10]))
    assert documents_inf(2.0) == math.inf  # a documented inf (an RDP order outside a bound's range) passes
    with pytest.raises(DomainError, match=r"^overflows: an intermediate result is not representable"):
        overflows(1e300)
    assert overflows(3.0) == 9.0
