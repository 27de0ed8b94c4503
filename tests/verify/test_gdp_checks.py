"""The verification recipes of the gdp and cuag families: every gdp./cuag. catalog entry names a registered recipe,
passes at its check point (Monte Carlo with 100k seeded samples at the context's 99.9 % level, or exact-numeric
within the recipe's stated tolerance), and entries with a published (erroneous) form fail with it."""

from __future__ import annotations

import warnings

import pytest

from dpcalc import catalog
from dpcalc.checks.registry import CheckContext, get_recipe

IDS = sorted(f for f in catalog.load() if f.split(".")[0] in ("gdp", "cuag"))


def _check(fid: str, published: bool = False):  # type: ignore[no-untyped-def]
    f = catalog.get(fid)
    r = get_recipe(f.check["recipe"])
    assert r is not None, f"{fid}: recipe {f.check['recipe']!r} is not registered"
    values = f.check.get("inputs") or f.examples[0].inputs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return r(f, values, CheckContext(samples=100_000, seed=3, published=published, formula_id=fid))


@pytest.mark.parametrize("fid", IDS)
def test_recipe_passes(fid: str) -> None:
    res = _check(fid)
    assert res.verdict == "pass", (fid, res)
    assert res.detail


@pytest.mark.parametrize("fid", [f for f in IDS if catalog.get(f).erratum is not None
                                 and catalog.get(f).erratum.published_implementation])  # type: ignore[union-attr]
def test_published_form_fails(fid: str) -> None:
    assert _check(fid, published=True).verdict == "fail"


def test_every_gdp_cuag_entry_has_a_recipe() -> None:
    assert len(IDS) >= 18
    for fid in IDS:
        assert get_recipe(catalog.get(fid).check["recipe"]) is not None, fid
