"""Every catalog entry: schema valid, implementation importable, SymPy form parses, examples hold, and the
implementation agrees with the SymPy form evaluated by mpmath at 50 digits at random in-domain points.

The 50-digit values of the SymPy forms are memoised in ``tests/data/mp_reference`` (:mod:`tests.support.mp_cache`,
keyed by the form's text, the point and the precision): a changed form or point is evaluated afresh.

Tolerance: each entry's ``rtol`` (default 1e-12 relative); examples use their own ``rtol``/``atol``.
"""

from __future__ import annotations

import contextlib
import math
import zlib
from collections.abc import Mapping
from typing import Any

import mpmath
import numpy as np
import pytest

from dpcalc import catalog
from dpcalc.errors import DomainError, ErratumWarning
from tests.support.mp_cache import evaluate_mp

ALL = catalog.load()
IDS = sorted(ALL)
POINTS = 25


def _call(f: catalog.Formula, values: Mapping[str, Any], published: bool = False) -> Any:
    """Call the implementation, asserting the warnings the entry declares: its ``domain_warning`` where it
    applies, and an ErratumWarning for a published form (the published form must always say it is wrong)."""
    expected = [c for c in (f.expected_warning(values), ErratumWarning if published else None) if c is not None]
    with contextlib.ExitStack() as stack:
        for category in expected:
            stack.enter_context(pytest.warns(category))
        return f.call(values, published=published)


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
        got = float(_call(f, ex.inputs))
        assert _close(got, float(ex.expected), ex.rtol, ex.atol), (fid, ex.inputs, got, ex.expected)
        assert _close(float(evaluate_mp(f, ex.inputs)), float(ex.expected), max(ex.rtol, 1e-14), ex.atol)
        if ex.published_expected is not None:
            pub = float(_call(f, ex.inputs, published=True))
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
            got = float(_call(f, vals))
        except DomainError:
            continue  # an in-domain draw the library rejects as unrepresentable (e.g. underflow) is not silent
        want = evaluate_mp(f, vals, dps=50)
        assert _close(got, float(want), f.rtol), (fid, vals, got, mpmath.nstr(want, 20))
        checked += 1
    assert checked >= POINTS * 0.8, f"{fid}: only {checked} of {POINTS} random points were representable"


def test_unknown_key_is_rejected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.toml"
    bad.write_text('[paper]\nid="x"\nseed="s"\nshort="s"\ntitle="t"\n[[formula]]\nid="a.b"\nbogus=1\n')
    with pytest.raises(catalog.CatalogError, match="unknown key"):
        catalog.load_file(bad)


def test_missing_key_and_bad_sympy_are_rejected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = (catalog.catalog_dir() / "000_midp.toml").read_text(encoding="utf-8")
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
    text = (catalog.catalog_dir() / "000_midp.toml").read_text(encoding="utf-8")
    bad = tmp_path / "c.toml"
    bad.write_text(text.replace('status = "verified"', 'status = "corrected"', 1))
    with pytest.raises(catalog.CatalogError, match="needs an"):
        catalog.load_file(bad)


def test_get_suggests_close_ids() -> None:
    with pytest.raises(KeyError, match="did you mean"):
        catalog.get("midp.server_sigmaa")


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "eps.__class__", "open('x')",
                                  "(lambda: 1)()", "[x for x in eps]", "eps if d else C"])
def test_sympy_strings_cannot_run_code(text: str) -> None:
    """The SymPy form is parsed in a restricted namespace: no builtins, attributes, lambdas or comprehensions."""
    from dpcalc.catalog import symbolic

    with pytest.raises(catalog.CatalogError, match="does not parse"):
        symbolic.parse(text, {"eps": "scalar", "d": "scalar", "C": "scalar"})


def test_sample_where_is_interpreted_not_evaluated() -> None:
    from dpcalc.catalog.sampling import condition

    assert condition("cov < var and cov > -var/(n - 1)", {"cov": 1.0, "var": 2.0, "n": 5})
    assert not condition("2*lam*B <= D", {"lam": 0.5, "B": 10, "D": 5})
    assert condition("max(a, b) >= 2**1", {"a": 1, "b": 2})
    with pytest.raises(ValueError, match="not allowed"):
        condition("__import__('os')", {})
    with pytest.raises(ValueError, match="not allowed"):
        condition("a.real > 0", {"a": 1})


def test_domain_warning_declares_the_expected_warning() -> None:
    from dpcalc.errors import EstimateWarning, OutOfDomainWarning

    assert ALL["gdp.clt_mu"].expected_warning({}) is EstimateWarning
    classic = ALL["gaussian.classic_sigma"]
    assert classic.expected_warning({"eps": 2.0, "delta": 1e-5, "sensitivity": 1.0}) is OutOfDomainWarning
    assert classic.expected_warning({"eps": 0.5, "delta": 1e-5, "sensitivity": 1.0}) is None


def test_inputs_declared_once_per_paper(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A file's [inputs.NAME] tables are referenced by name (or {ref = NAME, …overrides}) from its entries."""
    text = """[paper]\nid = "x"\nshort = "s"\ntitle = "t"\n
[inputs.eps]\nsymbol = '\\epsilon'\nunit = "nats"\ndomain = "(0, inf)"\nsample = "uniform(1, 2)"\n
[[formula]]\nid = "x.a"\ntitle = "t"\nequation = "(1)"\nlatex = "e"\nsympy = "2*eps"
implementation = "dpcalc.midp.server_sigma"\nstatus = "verified"\noutput = { name = "y", symbol = "y", unit = "u" }
inputs = ["eps", { ref = "eps", name = "eps2", unit = "bits" }]\n"""
    path = tmp_path / "x.toml"
    path.write_text(text)
    (entry,) = catalog.load_file(path)
    assert [(i.name, i.unit, str(i.domain)) for i in entry.inputs] == [("eps", "nats", "(0, inf)"),
                                                                       ("eps2", "bits", "(0, inf)")]
    path.write_text(text.replace('inputs = ["eps"', 'inputs = ["nope"'))
    with pytest.raises(catalog.CatalogError, match="not declared"):
        catalog.load_file(path)


def test_find_parses_one_entry_and_equals_get() -> None:
    """``catalog.find`` (start-up path: the entry's block of its file only) gives the same entry as ``get``."""
    from dpcalc.catalog import schema

    everything = dict(ALL)
    schema.load.cache_clear()
    try:
        for fid, entry in everything.items():
            assert schema.find.__wrapped__(fid) == entry, fid  # type: ignore[attr-defined]
            assert schema.load.cache_info().currsize == 0, f"{fid}: find fell back to loading everything"
    finally:
        schema.load.cache_clear()
        schema.load()
