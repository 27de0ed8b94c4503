"""``import dpcalc`` works like a library: every part reachable as an attribute, loaded on first use.

* ``import dpcalc`` alone loads nothing but the package and its errors (no NumPy, SciPy, SymPy, matplotlib);
* every subpackage named in ``dpcalc.SUBPACKAGES`` is an attribute (``dpcalc.nbafl.optimal_t``,
  ``dpcalc.accounting.pld``), listed by ``dir()`` and ``__all__``;
* an unknown attribute is an ``AttributeError`` naming it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import dpcalc


def test_import_loads_only_the_package() -> None:
    code = ("import sys, dpcalc\n"
            "heavy = ('dpcalc', 'numpy', 'scipy', 'sympy', 'matplotlib')\n"
            "print(sorted(m for m in sys.modules if m.startswith(heavy)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['dpcalc', 'dpcalc.errors']"


@pytest.mark.parametrize("name", dpcalc.SUBPACKAGES)
def test_every_subpackage_is_an_attribute(name: str) -> None:
    module = getattr(dpcalc, name)
    assert module.__name__ == f"dpcalc.{name}"
    assert name in dir(dpcalc) and name in dpcalc.__all__


def test_the_documented_paths_resolve() -> None:
    assert callable(dpcalc.nbafl.optimal_t)
    assert callable(dpcalc.accounting.pld.epsilon)
    for name in dpcalc.accounting.MODULES:
        assert getattr(dpcalc.accounting, name).__name__ == f"dpcalc.accounting.{name}"


def test_unknown_attribute_names_itself() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = dpcalc.no_such_thing  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="no_such_module"):
        _ = dpcalc.accounting.no_such_module
