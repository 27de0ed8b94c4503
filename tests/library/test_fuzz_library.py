"""Fuzz every public ``dpcalc`` library function and hold the contract (see ``tests/support/fuzz_library.py``).

Budget: ``DPCALC_FUZZ_LIBRARY_EXAMPLES`` calls per function (default 8, a few seconds in all); a deep run is
``DPCALC_FUZZ_LIBRARY_EXAMPLES=1000 python -m pytest -n 1 tests/library/test_fuzz_library.py`` or, to tally
every class without stopping at the first, ``python -m tests.support.fuzz_library 1000``. Derandomized unless
``DPCALC_FUZZ_RANDOM=1``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.fuzz_library import Function, call, call_for, functions, paths_for, violations

EXAMPLES = int(os.environ.get("DPCALC_FUZZ_LIBRARY_EXAMPLES", "8"))
RANDOM = os.environ.get("DPCALC_FUZZ_RANDOM", "") == "1"
FUNCTIONS = functions()
PATHS = paths_for(Path(tempfile.mkdtemp(prefix="dpcalc-libfuzz-")) / "in")


def test_the_public_api_is_discovered() -> None:
    names = {f.qualname for f in FUNCTIONS}
    assert {"dpcalc.midp.server_sigma", "dpcalc.accounting.schedule.sigma_for_eps", "dpcalc.secagg.table1",
            "dpcalc.gaussian_mi.case3_optimum", "dpcalc.nbafl.optimal_t", "dpcalc.cuag.audit"} <= names
    called = [f for f in FUNCTIONS if not f.skip_reason]
    assert len(called) >= 180, len(called)


# Open classes owned by another change in progress (reported to the lead; remove an entry once it passes).
KNOWN_OPEN = {
}


@pytest.mark.parametrize("function", FUNCTIONS, ids=[f.qualname.removeprefix("dpcalc.") for f in FUNCTIONS])
def test_contract_holds(function: Function, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if function.skip_reason:
        pytest.skip(function.skip_reason)
    if function.qualname in KNOWN_OPEN:
        pytest.xfail(KNOWN_OPEN[function.qualname])
    monkeypatch.chdir(tmp_path)  # anything written by a relative name lands here

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not RANDOM,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        args, kwargs = data.draw(call_for(function, PATHS), label="call")
        problems = violations(function, call(function, args, kwargs), kwargs)
        assert not problems, f"{function.qualname}(**{kwargs!r}): {problems}"

    check()


# Calls the deep runs found (each a class fixed at its root); they run on every suite run.
REGRESSIONS: list[tuple[str, dict[str, Any]]] = [
    ("dpcalc.accounting.schedule.sigma_for_eps", {"eps": [1.0, 2.0], "delta": 1e-5, "q": [0.01, 0.1, 0.2],
                                                    "steps": 100}),  # shapes clash: a named one-line error
    ("dpcalc.accounting.rdp.subsampled_gaussian_curve", {"q": 0.1, "sigma": 5e-324}),  # ZeroDivisionError
    ("dpcalc.cuag.sigma_schedule", {"mu": 0.5, "lam": [0.1, 0.2], "B": 50, "D": 500, "T": 3, "P": 1}),  # TypeError
    # NumPy RuntimeWarnings leaking out of public functions (now one floating-point state for every public call)
    ("dpcalc.accounting.rdp.gaussian", {"alpha": [948.6], "sigma": 1.5, "sensitivity": [1.7976931348623157e308, 1.0]}),
    ("dpcalc.accounting.zcdp.delta_from_rho", {"rho": 668, "eps": 131}),
    ("dpcalc.accounting.zcdp.delta_from_rho", {"rho": 4.87e99, "eps": 4.87e99}),  # NaN: optimum x underflows
    ("dpcalc.gaussian_mi.case3_optimum", {"eps": 301, "var": 301, "cov": 162, "n": 162}),
    ("dpcalc.gaussian_mi.case3_u_max", {"eps": 475, "var": 475, "cov": 88, "n": 475}),
    ("dpcalc.gaussian_mi.case3_privacy", {"sigma2": 1.0, "sigma_e2": 0.1, "var": 1.7976931348623157e308, "cov": 1.0,
                                          "n": 1.7976931348623157e308}),  # NaN: inf/inf in the Schur complement
    ("dpcalc.nbafl.contraction_q", {"pl": 1, "smoothness": 1000, "dissimilarity": 1000, "prox_mu": 1e231, "K": 5}),
    ("dpcalc.cuag.noise_variance_from_sigma", {"sigma": [1.7976931348623157e308, 419.3], "B": [[50, 50, 50]] * 2}),
    ("dpcalc.nbafl.sampling_gamma", {"eps": 8204866539547535.0, "L": 365, "N": 244, "K": 244}),  # undocumented inf
    # MemoryError: the memory cap is checked before allocating
    ("dpcalc.accounting.rdp.sampled_gaussian", {"alpha": 4900431308565688.0, "q": 0.01, "sigma": 184.0}),
    ("dpcalc.cuag.compression.measurement_matrix", {"r": 1e-9, "layer_size": 1e20}),
    # ragged lists and strings: one line naming the parameter
    ("dpcalc.cuag.compression.mutual_coherence", {"phi": 1.19e-7, "psi": [5e-63, 44.1, [[2.0, 1.0], [1.0, 2.0]]]}),
    ("dpcalc.units.to_nats", {"x": {"a": 1}, "units": "nats"}),
    ("dpcalc.units.from_nats", {"x": [[1, 2], [3]], "units": "bits"}),
    ("dpcalc.units.from_nats", {"x": "abc", "units": "nats"}),
    ("dpcalc.report.cells.cell", {"value": 1 + 2j, "kind": "json"}),  # json.dumps' TypeError
    ("dpcalc.secagg.dp_from_rdp", {"alpha": 8.0, "rdp": [0.1, [0.2, 0.3]], "delta": 1e-5}),  # ragged: bare ValueError
    ("dpcalc.secagg.dp_from_rdp", {"alpha": [[2.0, 2.0]], "rdp": [[0.1, 0.1]], "delta": 0.5}),  # 2-D: TypeError
    # wrongly typed names and schedules, a reduction over NaN: bare ValueError/TypeError before the shared checks
    ("dpcalc.accounting.pld.delta_upper", {"sigma": 1e-300, "q": 5e-324, "steps": 1, "eps": 5e-324}),  # All-NaN
    ("dpcalc.secagg.theorem2_alpha_max", {"eig_min_sum": 1.0, "C": 1.0, "D": 10,
                                          "normalization": np.array([1.0, 2.0])}),
    ("dpcalc.secagg.table1_eps", {"row": np.array(["gd_iso", "gsgd_iso"]), "N": 10, "sigma2": 1.0, "delta": 1e-5,
                                  "B": 1, "C": 1.0, "D": 10}),
    ("dpcalc.secagg.table1_eps", {"row": "gd_iso", "N": 10, "sigma2": 1.0, "delta": 1e-5, "B": 1, "C": 1.0, "D": 10,
                                  "method": np.array(["lemma1"])}),
    ("dpcalc.accounting.pld.epsilon", {"schedule": 5.0, "delta": 1e-5}),
    ("dpcalc.accounting.pld.epsilon", {"schedule": [(1.0, 0.1)], "delta": 1e-5}),  # IndexError
    ("dpcalc.nbafl.optimal_t", {"eps": 5e-324}),  # an inf bound without a reason
    ("dpcalc.secagg.renyi_gaussian_codiagonal", {"dmu": [1e308], "lam1": [2.0], "lam2": [1.2], "alpha": 2.0}),
]
_BY_NAME = {f.qualname: f for f in FUNCTIONS}


@pytest.mark.parametrize("qualname, kwargs", REGRESSIONS, ids=[f"{q.removeprefix('dpcalc.')}-{i}"
                                                               for i, (q, _) in enumerate(REGRESSIONS)])
def test_regression_calls(qualname: str, kwargs: dict[str, Any]) -> None:
    function = _BY_NAME[qualname]
    problems = violations(function, call(function, [], kwargs), kwargs)
    assert not problems, f"{qualname}(**{kwargs!r}): {problems}"
