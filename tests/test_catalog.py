"""Every catalog entry: schema valid, implementation importable, SymPy form parses, examples hold, and the
implementation agrees with the SymPy form evaluated by mpmath at 50 digits at random in-domain points.

Tolerance: each entry's ``rtol`` (default 1e-12 relative); examples use their own ``rtol``/``atol``.
"""

from __future__ import annotations

import math
import zlib

import mpmath
import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.errors import DomainError, ErratumWarning

ALL = catalog.load()
IDS = sorted(ALL)
POINTS = 25


def _close(got: float, want: float, rtol: float, atol: float = 0.0) -> bool:
    return math.isfinite(got) and abs(got - want) <= atol + rtol * abs(want)


def test_catalog_loads_and_ids_are_namespaced() -> None:
    assert len(ALL) >= 15
    for fid, f in ALL.items():
        family = fid.split(".")[0]
        assert family == f.paper.family or f.paper.family == "", fid
        assert f.implementation.startswith("dpcalc."), fid


@pytest.mark.parametrize("fid", IDS)
def test_entry_is_complete(fid: str) -> None:
    f = ALL[fid]
    f.function()  # importable
    f.sympy_expr()  # parses
    assert f.latex and f.equation and f.output.unit
    for i in f.inputs:
        assert i.unit and i.symbol
    if f.status != "verified":
        assert f.erratum is not None and f.erratum.text and f.erratum.evidence
    if f.erratum is not None and f.erratum.published_sympy:
        f.sympy_expr(published=True)
    if f.erratum is not None and f.erratum.published_implementation:
        f.function(published=True)


@pytest.mark.parametrize("fid", IDS)
def test_examples(fid: str) -> None:
    f = ALL[fid]
    for ex in f.examples:
        got = float(f.call(ex.inputs))
        assert _close(got, float(ex.expected), ex.rtol, ex.atol), (fid, ex.inputs, got, ex.expected)
        assert _close(float(f.evaluate_mp(ex.inputs)), float(ex.expected), max(ex.rtol, 1e-14), ex.atol)
        if ex.published_expected is not None:
            with pytest.warns(ErratumWarning):  # the published form must always say it is wrong
                pub = float(f.call(ex.inputs, published=True))
            assert _close(pub, float(ex.published_expected), ex.rtol, ex.atol), (fid, "published", pub)


@pytest.mark.parametrize("fid", IDS)
def test_implementation_matches_sympy_at_50_digits(fid: str) -> None:
    f = ALL[fid]
    if f.check.get("skip_random_points"):
        pytest.skip(str(f.check["skip_random_points"]))
    rng = np.random.default_rng(zlib.crc32(fid.encode()))
    checked = 0
    for _ in range(POINTS):
        vals = f.sample_inputs(rng)
        try:
            got = float(f.call(vals))
        except DomainError:
            continue  # an in-domain draw the library rejects as unrepresentable (e.g. underflow) is not silent
        want = f.evaluate_mp(vals, dps=50)
        assert _close(got, float(want), f.rtol), (fid, vals, got, mpmath.nstr(want, 20))
        checked += 1
    assert checked >= POINTS * 0.8, f"{fid}: only {checked} of {POINTS} random points were representable"


def test_unknown_key_is_rejected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.toml"
    bad.write_text('[paper]\nid="x"\nseed="s"\nshort="s"\ntitle="t"\n[[formula]]\nid="a.b"\nbogus=1\n')
    with pytest.raises(catalog.CatalogError, match="unknown key"):
        catalog.load_file(bad)


def test_missing_key_and_bad_sympy_are_rejected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = (ALL["midp.server_sigma"].paper and
            open(catalog.catalog_dir() / "000_midp.toml", encoding="utf-8").read())
    missing = tmp_path / "m.toml"
    missing.write_text(text.replace('implementation = "dpcalc.midp.server_sigma"\n', "", 1))
    with pytest.raises(catalog.CatalogError, match="missing key"):
        catalog.load_file(missing)
    unparsable = tmp_path / "u.toml"
    unparsable.write_text(text.replace('sympy = "C*p_max/sqrt(d*(exp(2*eps/d) - 1))"', 'sympy = "C*/(("', 1))
    with pytest.raises(catalog.CatalogError, match="does not parse"):
        catalog.load_file(unparsable)[0].sympy_expr()
    unimportable = tmp_path / "i.toml"
    unimportable.write_text(text.replace('"dpcalc.midp.server_sigma"', '"dpcalc.midp.nope"', 1))
    with pytest.raises(catalog.CatalogError, match="not importable"):
        catalog.load_file(unimportable)[0].function()


def test_corrected_status_needs_erratum(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = open(catalog.catalog_dir() / "000_midp.toml", encoding="utf-8").read()
    bad = tmp_path / "c.toml"
    bad.write_text(text.replace('status = "verified"', 'status = "corrected"', 1))
    with pytest.raises(catalog.CatalogError, match="needs an"):
        catalog.load_file(bad)


def test_get_suggests_close_ids() -> None:
    with pytest.raises(KeyError, match="did you mean"):
        catalog.get("midp.server_sigmaa")
