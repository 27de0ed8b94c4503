"""The SciPy-free normal tails (`dpcalc._normal`) and log Γ (`dpcalc._numerics.gammaln`) against mpmath at 40
digits over their whole domains, in both array forms (the Python loop for small arrays, SciPy's ufuncs for large
ones). Tolerances in units of roundoff u = 2⁻⁵³ of the exact value; the measured worst cases are in the comments."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcalc import _normal as nm
from dpcalc._numerics import gammaln

U = 2.0**-53


def _points(lo: float, hi: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n points in [lo, hi] (log-uniform over a range of more than three decades of one sign), ends included."""
    if lo > 0 and hi / lo > 1e3:
        x = np.exp(rng.uniform(math.log(lo), math.log(hi), n))
    elif hi < 0 and lo / hi > 1e3:
        x = -np.exp(rng.uniform(math.log(-hi), math.log(-lo), n))
    else:
        x = rng.uniform(lo, hi, n)
    return np.concatenate([[lo, hi], x])


def _ulps(got: float, exact: mpmath.mpf) -> float:
    if exact == 0:
        return 0.0 if got == 0 else math.inf
    return float(abs((mpmath.mpf(got) - exact) / exact)) / U


def _erfcx(x: float) -> mpmath.mpf:
    return mpmath.exp(mpmath.mpf(x) ** 2) * mpmath.erfc(mpmath.mpf(x))


def _log_ndtr(x: float) -> mpmath.mpf:
    # log1p(−Φ(−x)) keeps the digits of log Φ as Φ → 1
    return mpmath.log1p(-mpmath.ncdf(-mpmath.mpf(x))) if x > 0 else mpmath.log(mpmath.ncdf(mpmath.mpf(x)))


# (function, reference, [(lo, hi, tolerance in ulps)]): ranges cover the domain where the result is a normal float.
# Φ(x) for x < 0 and log Φ(x) for x > 0 go through erfc(|x|/√2), whose condition number 2z² = x² carries the
# rounding of x/√2: ours corrects it, SciPy's ufuncs (the large-array path) do not and get 2x² ulps on top
CASES = [
    ("erfcx", _erfcx, [(-26.5, -5.0, 8), (-5.0, 0.0, 8), (0.0, 5.0, 8), (5.0, 25.99, 8), (25.99, 30.0, 8),
                       (30.0, 1e3, 8), (1e3, 1e150, 8)]),  # measured ≤ 4.2
    ("ndtr", lambda x: mpmath.ncdf(mpmath.mpf(x)), [(-37.0, -5.0, 8), (-5.0, 0.0, 8), (0.0, 5.0, 4), (5.0, 8.0, 4)]),
    ("log_ndtr", _log_ndtr, [(-1e150, -1e5, 8), (-1e5, -20.0, 8), (-20.0, -5.0, 8), (-5.0, 0.0, 8), (0.0, 5.0, 8),
                             (5.0, 37.0, 8)]),
]
_CONDITIONED = {"ndtr": lambda x: x < 0, "log_ndtr": lambda x: x > 0}


@pytest.mark.parametrize(("name", "ref", "ranges"), CASES, ids=[c[0] for c in CASES])
def test_normal_tails_match_mpmath(name: str, ref, ranges, rng: np.random.Generator) -> None:  # type: ignore[no-untyped-def]
    scalar = getattr(nm, name)
    array = getattr(nm, f"{name}_array")
    with mpmath.workdps(40):
        for lo, hi, tol in ranges:
            xs = _points(lo, hi, 120, rng)
            exact = [ref(float(x)) for x in xs]
            small = array(xs)  # the Python loop (fewer than VECTOR_MIN elements)
            large = array(np.tile(xs, nm.VECTOR_MIN // xs.size + 1))[: xs.size]  # SciPy's ufunc
            for x, e, a, b in zip(xs, exact, small, large, strict=True):
                tol_sp = tol + (2.0 * x * x if name in _CONDITIONED and _CONDITIONED[name](x) else 0.0)
                assert _ulps(scalar(float(x)), e) <= tol, (name, x)
                assert _ulps(float(a), e) <= tol, (name, x)
                assert _ulps(float(b), e) <= max(tol_sp, 600), (name, "scipy", x)  # SciPy's erfcx: 497 ulps below −5


def test_erfcx_overflows_to_inf_and_ndtr_ends() -> None:
    assert nm.erfcx(-27.0) == math.inf
    assert nm.ndtr(-math.inf) == 0.0 and nm.ndtr(math.inf) == 1.0
    assert nm.log_ndtr(-math.inf) == -math.inf and nm.log_ndtr(math.inf) == 0.0
    assert nm.ndtri(0.0) == -math.inf and nm.ndtri(1.0) == math.inf and math.isnan(nm.ndtri(1.5))


@pytest.mark.parametrize(("lo", "hi"), [(1e-300, 1e-20), (1e-20, 0.02), (0.02, 0.5), (0.5, 0.98), (0.98, 1 - 1e-12)])
def test_ndtri_inverts_ndtr(lo: float, hi: float, rng: np.random.Generator) -> None:
    """Φ⁻¹ within 8 ulps of the mpmath root of Φ(x) = p (measured ≤ 3.7; SciPy's ndtri 4.4)."""
    with mpmath.workdps(60):
        for p in _points(lo, hi, 60, rng):
            got = nm.ndtri(float(p))
            exact = mpmath.findroot(lambda x, p=p: mpmath.log(mpmath.ncdf(x)) - mpmath.log(mpmath.mpf(float(p))),
                                    mpmath.mpf(got))
            assert _ulps(got, exact) <= 8, p
        assert np.array_equal(nm.ndtri_array(np.array([0.25, 1e-30])), [nm.ndtri(0.25), nm.ndtri(1e-30)])


def test_gammaln_matches_mpmath(rng: np.random.Generator) -> None:
    """log Γ within 8 ulps of max(1, |log Γ|) (measured ≤ 4.6; near its zeros at 1 and 2 the error is absolute) from
    1e-3 to 1e6."""
    xs = np.concatenate([_points(1e-3, 0.9, 50, rng), _points(3.0, 60.0, 50, rng), np.arange(3.0, 2100.0, 37.0),
                         _points(2100.0, 1e6, 50, rng)])
    got = gammaln(xs)
    with mpmath.workdps(40):
        for x, g in zip(xs, got, strict=True):
            exact = mpmath.loggamma(mpmath.mpf(float(x)))
            assert float(abs(mpmath.mpf(float(g)) - exact)) <= 8 * U * max(1.0, float(abs(exact))), x
