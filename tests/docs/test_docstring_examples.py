"""The ``Examples:`` sections of the docstrings run and print what they show (stdlib doctest, one test per module).

Every public function of the families (`dpcalc.midp`, `gaussian_mi`, `cuag`, `nbafl`, `secagg`: their package
``__all__``) and of the accounting modules has one; `test_every_public_function_has_an_example` keeps it so. NumPy's
print options are fixed (``legacy="1.25"``: a NumPy scalar prints as ``0.5``, not ``np.float64(0.5)``) and
whitespace is normalised, so the generator (``docs/gen/add_examples.py``) may wrap a long output line at spaces.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import dpcalc
from tests.support.numbers import same_text

#: the modules whose ``__all__`` functions are the public API that needs an example
PUBLIC_MODULES = ("dpcalc.midp", "dpcalc.gaussian_mi", "dpcalc.cuag", "dpcalc.nbafl", "dpcalc.secagg",
                  "dpcalc.accounting.accountants", "dpcalc.accounting.calibrate", "dpcalc.accounting.pld",
                  "dpcalc.accounting.rdp", "dpcalc.accounting.gdp", "dpcalc.accounting.zcdp",
                  "dpcalc.accounting.events", "dpcalc.accounting.events.training", "dpcalc.accounting.account",
                  "dpcalc.accounting.schedule", "dpcalc.api", "dpcalc.accounting.group",
                  "dpcalc.accounting.gaussian_mechanism", "dpcalc.accounting.conversion")


def modules_with_examples() -> list[str]:
    """Every dpcalc module with a ``>>>`` in a docstring it defines."""
    found = []
    for info in pkgutil.walk_packages(dpcalc.__path__, "dpcalc."):
        module = importlib.import_module(info.name)
        if any(test.examples for test in doctest.DocTestFinder(exclude_empty=True).find(module)):
            found.append(info.name)
    return found


def public_functions() -> Iterator[tuple[str, Any]]:
    """``(public name, function)`` for every function in the ``__all__`` of `PUBLIC_MODULES` (each once)."""
    seen = set()
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and obj not in seen:
                seen.add(obj)
                yield f"{name}.{attr}", obj


@pytest.fixture()
def numpy_print_options() -> Iterator[None]:
    saved = np.get_printoptions()
    np.set_printoptions(legacy="1.25")
    yield
    np.set_printoptions(**saved)


class _Checker(doctest.OutputChecker):
    """doctest's checker, with the long numbers of an output compared to a relative 1e-8
    (`tests.support.numbers`: the last digits of FFT-composed values vary with the NumPy build)."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        return super().check_output(want, got, optionflags) or same_text(want, got)


@pytest.mark.parametrize("module_name", modules_with_examples())
def test_docstring_examples(module_name: str, numpy_print_options: None) -> None:
    module = importlib.import_module(module_name)
    runner = doctest.DocTestRunner(checker=_Checker(), optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {module_name} failed (see above)"


def test_every_public_function_has_an_example() -> None:
    functions = dict(public_functions())
    missing = [name for name, func in functions.items() if ">>>" not in (func.__doc__ or "")]
    assert len(functions) >= 200
    assert not missing, f"{len(missing)} of {len(functions)} public functions lack an Examples section: {missing}"
