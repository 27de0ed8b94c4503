"""Domain sweeps of every catalogued public function of papers 000 (midp; He & He 2023), 001 (gaussian_mi;
Zeng, Yang & Dai 2022), 002 (cuag; Li, Xiao & Chen 2024), 003 (nbafl; Wei et al. 2020), 004 (secagg; Zhang et al.
2024), of the distributed discrete Gaussian and Skellam entries and of the matrix-mechanism entries against the
entry's own SymPy form in mpmath (>= 40 digits, precision raised until it settles).

Points are drawn from each entry's documented sampling domain (the catalog's ``sample``/``sample_where``, seeded by
the id) plus the ends of every scalar range (edges); published forms are swept too. Every point asserts the
entry's documented ``rtol`` and, for bounds and inverses (noise σ/σ², guaranteed leakage ε), the safe side:
the returned value is never below the exact one. A ``DomainError`` is accepted only where the exact value is not
a normal float64 (checked against the reference). Budget: ``DPCALC_SWEEP_POINTS`` (deep run: 10000).
"""

from __future__ import annotations

import warnings
import zlib
from typing import Any

import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.errors import DomainError, ErratumWarning, EstimateWarning, InfeasibleError, OutOfDomainWarning
from tests.support.catalog_ref import catalog_ref
from tests.support.sweep import Axis, deep, sweep

FAMILIES = ("midp", "gauss", "cuag", "nbafl", "secagg", "distributed", "matrix")
#: bounds and inverses: a value below the exact one is on the unsafe side (less noise / a smaller guaranteed ε)
SAFE_ABOVE = {"midp.server_sigma", "midp.server_sigma_equal", "midp.client_sigma", "midp.client_sigma_equal",
              "midp.server_leakage", "midp.client_leakage", "midp.alpha", "midp.personalized_leakage",
              "midp.baseline_client_sigma", "midp.baseline_server_sigma", "midp.corollary2_sigma",
              "gauss.case1_sigma2", "gauss.case2_sigma2", "gauss.case3_sigma2", "cuag.sigma", "cuag.noise_variance",
              "cuag.classic_sigma",
              # Wei et al. 2020 (paper 003): noise levels and the convergence upper bound
              "nbafl.client_sigma", "nbafl.server_sigma", "nbafl.server_sigma_sampled", "nbafl.server_required_sigma",
              "nbafl.convergence_bound", "nbafl.convergence_bound_sampled",
              # Zhang et al. 2024 (paper 004): RDP / DP upper bounds and the leakage bound
              "secagg.theorem2_rdp", "secagg.theorem2_rdp_unsimplified", "secagg.theorem3_rdp", "secagg.theorem4_rdp",
              "secagg.table1_gd_iso_eps", "secagg.table1_gsgd_iso_rdp", "secagg.table1_gsgd_wfna_rdp",
              "secagg.table1_sgd_iid_iso_eps", "secagg.mi_leakage_bound", "secagg.wfna_covariance_change_bound",
              "secagg.gaussian_closed_form_eps",
              # distributed DP (Kairouz, Liu & Steinke 2021; Agarwal, Kairouz & Liu 2021): RDP bounds, the rounded
              # norm, the wrap-around probability bound; matrix mechanisms: sensitivities
              "distributed.ddg_rdp", "distributed.ddg_zcdp_rho", "distributed.skellam_rdp",
              "distributed.rounded_l2_bound", "distributed.modular_failure_bound", "matrix.tree_sensitivity",
              "matrix.tree_restart_sensitivity", "matrix.banded_sensitivity"}
#: implementations that read their rates as the decimal they print as (``Fraction(repr(r))``, see the header of
#: formulas/002_cuag_compression.toml): the reference reads them the same way (0.2 = 1/5 exactly)
DECIMAL = {"cuag.measurement_rows", "cuag.measurement_count", "cuag.binary_coherence_dft", "cuag.uplink_gib",
           "cuag.uplink_reduction"}
#: Monte-Carlo-only or estimate entries whose SymPy form is not a closed form of the implementation's inputs
SKIP: dict[str, str] = {}

ENTRIES = [f for f in catalog.load().values() if f.id.split(".")[0] in FAMILIES and f.id not in SKIP]
CASES = [(f.id, False) for f in ENTRIES] + [(f.id, True) for f in ENTRIES
                                            if f.erratum is not None and f.erratum.published_sympy
                                            and f.erratum.published_implementation]
DEFAULT_POINTS = 12
_TINY = np.finfo(np.float64).tiny
_HUGE = np.finfo(np.float64).max


def _values(f: catalog.Formula, i: int) -> dict[str, Any]:
    rng = np.random.default_rng([zlib.crc32(f.id.encode()), i])
    return f.sample_inputs(rng)


def _call(f: catalog.Formula, values: dict[str, Any], published: bool) -> float:
    """The implementation at ``values``; a published form must warn (ErratumWarning) whenever it returns a value.
    A rejection (DomainError/InfeasibleError, e.g. (24)'s non-positive log argument) propagates without the
    warning check: the caller decides whether that rejection is legitimate."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = float(f.call(values, published=True) if published else f.call(values))
    unexpected = [w for w in seen if not issubclass(w.category, (EstimateWarning, OutOfDomainWarning, ErratumWarning))
                  or (issubclass(w.category, ErratumWarning) and not published)]
    assert not unexpected, (f.id, values, [str(w.message) for w in unexpected])
    if published:
        assert any(issubclass(w.category, ErratumWarning) for w in seen), (f.id, values, "published form: no warning")
    return got


@pytest.mark.parametrize(("fid", "published"), CASES, ids=[f"{i}{'-published' if p else ''}" for i, p in CASES])
def test_domain_sweep(fid: str, published: bool) -> None:
    f = catalog.get(fid)
    ref = catalog_ref(fid, published=published, decimal=fid in DECIMAL)
    cache: dict[int, dict[str, Any]] = {}

    def values(p: dict[str, float]) -> dict[str, Any]:
        i = int(p["i"])
        if i not in cache:
            cache[i] = _values(f, i)
        return cache[i]

    def fn(p: dict[str, float]) -> float:
        vals = values(p)
        try:
            return _call(f, vals, published)
        except (DomainError, InfeasibleError):
            want = ref(vals)
            # a rejection is legitimate only where the exact value is not a normal float64
            assert want is None or not (_TINY <= abs(float(want)) <= _HUGE), (fid, vals, "rejected", want)
            raise

    def reference(p: dict[str, float]) -> Any:
        return ref(values(p))

    safe = "above" if fid in SAFE_ABOVE and not published else None
    from tests.support.sweep import points

    n = points(DEFAULT_POINTS)  # n distinct seeded sample points (i = 0 .. n − 1)
    res = sweep(fid + (" (published)" if published else ""), [Axis("i", 0, max(n - 1, 1), "int")], fn=fn,
                ref=reference, rtol=f.rtol, n=n, safe=safe, allow_reject=0.2 if not deep() else 0.5,
                check=False, extra=[{"i": float(i)} for i in range(n)], random=False)
    assert not res.failures, res.summary() + "\n" + "\n".join(res.failures[:8])
    assert res.n >= 1, res.summary()
