"""Verification recipes of CUAG-PFL's compression (Li, Xiao & Chen 2024, ``formulas/002_cuag_compression.toml``).

* ``cuag_layer_rate_decimal`` — Algorithm 2 re-implemented with `decimal` (the exact binary value of each float,
  quantised half-even: what Python's ``round`` does) instead of ``round``.
* ``cuag_matrix_partition`` — Algorithm 3's matrix built densely: every column covered exactly once, b rows, and the
  number of rows of z + 1 ones counted (the only count that makes a partition).
* ``cuag_coherence_fft`` — eq. (14) against the DFT basis from the FFT of each row's indicator (no dense basis).
* ``cuag_uplink_simulated`` — every layer of a random model compressed with y = φx; the uplink counts the floats
  actually produced (× T × 4 bytes / 2³⁰).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.checks._util import exact_result, failed, value_of
from dpcalc.checks.registry import CheckContext, CheckResult, recipe
from dpcalc.cuag import compression as comp
from dpcalc.errors import DomainError

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__: list[str] = []  # verification recipes register themselves (checks.registry)


def _round_decimal(x: float, digits: int) -> float:
    return float(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN))


@recipe("cuag_layer_rate_decimal")
def _layer_rate_decimal(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    w, hi, lo = value_of(values, "weight"), value_of(values, "r_max"), value_of(values, "r_min")
    if w < lo:
        want = _round_decimal(hi - _round_decimal(w, 2), 1)
    elif _round_decimal(w, 1) < hi:
        want = _round_decimal(w, 1)
    else:
        want = hi
    return exact_result(cf, want, 0.0, "Algorithm 2 with decimal half-even rounding of the exact float values")


def _dense_partition(formula: Formula, values: Mapping[str, Any], ctx: CheckContext, size: str
                     ) -> tuple[float, np.ndarray, int] | CheckResult:
    """(closed form, dense φ, z) after checking the rows partition the columns, or a failing result."""
    cf = float(formula.call(values, published=ctx.published))
    n = int(value_of(values, size))
    try:
        m = comp.measurement_matrix(value_of(values, "r"), n)
    except DomainError as exc:
        return failed(cf, "exact-numeric", str(exc))
    phi = m.dense()
    if not np.array_equal(phi.sum(axis=0), np.ones(n)):
        return failed(cf, "exact-numeric", "the rows do not partition the columns")
    return cf, phi, m.z


@recipe("cuag_matrix_partition")
@recipe("cuag_coherence_fft")
def _matrix_checks(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    coherence = "a" in values
    built = _dense_partition(formula, values, ctx, "a" if coherence else "layer_size")
    if isinstance(built, CheckResult):
        return built
    cf, phi, z = built
    if coherence:
        spectra = np.abs(np.fft.fft(phi, axis=1))  # √a·|⟨φ_i, ψ_j⟩| for the unitary DFT basis
        v = float(np.max(spectra / np.sqrt(phi.sum(axis=1, keepdims=True))))
        return exact_result(cf, v, 1e-12, "eq. (14) from the FFT of each row (unitary DFT basis)")
    if formula.output.name == "b":
        est, what = float(phi.shape[0]), "rows of the dense matrix"
    else:
        est, what = float(np.sum(phi.sum(axis=1) == z + 1)), f"rows with z + 1 = {z + 1} ones"
    return exact_result(cf, est, 0.0, f"Algorithm 3 built densely; every column covered exactly once; {what}")


@recipe("cuag_uplink_simulated")
def _uplink_simulated(formula: Formula, values: Mapping[str, Any], ctx: CheckContext) -> CheckResult:
    cf = float(formula.call(values, published=ctx.published))
    sizes = [int(x) for x in values["layer_sizes"]]
    rate = value_of(values, "rate")
    rng = ctx.rng()
    sent = 0
    for n in sizes:
        y = comp.measurement_matrix(rate, n).apply(rng.standard_normal(n))
        sent += y.size
    if formula.output.name == "reduction":
        return exact_result(cf, 1.0 - sent / sum(sizes), 1e-14, "1 − floats sent/parameters, layers compressed by φ")
    t = value_of(values, "T")
    return exact_result(cf, t * sent * 4 / 2 ** 30, 1e-14, f"{sent} floats produced by y = φx over the layers, "
                                                            f"× T × 4 bytes / 2³⁰ (= {sent * 4 * t / 1e9:.4f} GB)")

