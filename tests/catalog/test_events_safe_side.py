"""The PLD-side event entries never err on the unsafe side: at the generic test's random points (the same seeded
draws, so the 50-digit values come from the memo in tests/data/mp_reference) the implementation — the PLD
accountant's δ_upper — is at least the exact δ(ε) of the entry's SymPy form (relative slack 1e-12 for the
50-digit value's rounding to a double)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.errors import DomainError
from tests.support.mp_cache import evaluate_mp


def _source(path: str) -> str:
    import importlib
    import inspect

    module, _, name = path.rpartition(".")
    return inspect.getsource(getattr(importlib.import_module(module), name))

#: the entries whose implementation is the PLD accountant's δ_upper (`dpcalc.accounting.events.forms.pld_delta`)
UPPER = sorted(f.id for f in catalog.load().values()
               if f.implementation.startswith("dpcalc.accounting.events.") and f.id.startswith("events.")
               and f.implementation.endswith("_delta") and "pld_delta" in _source(f.implementation))
POINTS = 25


def test_every_pld_side_entry_is_listed() -> None:
    assert len(UPPER) == 10


@pytest.mark.parametrize("fid", UPPER)
def test_upper_end_is_never_below_the_exact_value(fid: str) -> None:
    f = catalog.get(fid)
    if f.check.get("skip_random_points"):  # too slow to evaluate at random points: its examples instead
        for ex in f.examples:
            assert float(f.call(ex.inputs)) >= float(evaluate_mp(f, ex.inputs)) * (1 - 1e-12), (fid, ex.inputs)
        return
    rng = np.random.default_rng(zlib.crc32(fid.encode()))
    checked = 0
    for _ in range(POINTS):
        vals = f.sample_inputs(rng)
        try:
            got = float(f.call(vals))
        except DomainError:
            continue
        want = float(evaluate_mp(f, vals, dps=50))
        assert got >= want * (1 - 1e-12) - 1e-300, (fid, vals, got, want)
        checked += 1
    assert checked >= POINTS * 0.8
