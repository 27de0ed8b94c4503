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

    undefined = r"^gives_nan is undefined at x=1 \(an indeterminate form in float64, such as 0/0 or ∞ − ∞\)$"
    with pytest.raises(DomainError, match=undefined):
        gives_nan(1.0)
    with pytest.raises(DomainError, match=r"^overflows_quietly: the result overflows float64 at x=1e\+10 "):
        overflows_quietly(1e10)
    with pytest.raises(DomainError, match=r"^overflows_quietly: .* at x of shape \(2,\)"):
        overflows_quietly(np.array([1.0, 1e10]))
    assert documents_inf(2.0) == math.inf  # a documented inf (an RDP order outside a bound's range) passes
    with pytest.raises(DomainError, match=r"^overflows: an intermediate result is not representable"):
        overflows(1e300)
    assert overflows(3.0) == 9.0


def test_one_element_arrays_are_numbers_for_scalar_parameters() -> None:
    """pld.delta_upper([1.1], …) and schedule.epsilon(accountant=['a', 1]) leaked TypeErrors (library fuzz)."""
    from dpcalc.accounting import pld, schedule

    assert pld.delta_upper([1.1], 0.01, np.array([1]), 1.1) == pld.delta_upper(1.1, 0.01, 1, 1.1)
    with pytest.raises(DomainError, match=r"^accountant must be one of .* \(got \['a', 1\]\)$"):
        schedule.epsilon(1.0, 0.01, 10, 1e-5, accountant=["a", 1])  # type: ignore[arg-type]


def test_messages_are_one_line_and_name_the_parameter() -> None:
    from dpcalc.gaussian_mi import engine
    from dpcalc.sim import aggregation_distortion
    with pytest.raises(DomainError, match=r"^sigma is too small for this sensitivity"):
        gaussian_mechanism.eps_analytic(np.array([5.8e16, 8e-247]), 1e-9)
    with pytest.raises(DomainError, match=r"^n = 193860 would need about 280 GiB of memory"):
        engine.equicorrelated_matrix(193860, 1.0, 0.1)
    with pytest.raises(DomainError) as info:
        aggregation_distortion([0.5, 0.5], 4, seed=np.ones((2, 3), dtype=int))
    assert "\n" not in str(info.value) and str(info.value).startswith("seed must be")


def test_a_nan_inside_a_result_object_is_refused() -> None:
    """Result dataclasses are checked for NaN too (their documented infinities stay: attained, reason)."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Res:
        value: float
        bound: float

    @v.named_shapes
    def gives(x: float) -> Res:
        return Res(x - x if x == math.inf else x, math.inf)

    assert gives(2.0) == Res(2.0, math.inf)
    with pytest.raises(DomainError, match=r"^gives is undefined at x=inf"):
        gives(math.inf)
