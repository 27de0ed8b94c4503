"""Registry of verification recipes: how each catalog formula is checked against simulation or numerics.

A family module ``dpcalc/checks/<family>.py`` registers recipes with `recipe`; the name is what a catalog
entry gives in ``check = {method = "monte-carlo", recipe = "<name>"}``. A recipe receives the formula, the input
point (the entry's ``check.inputs`` table, else its first example's inputs) and a `CheckContext`, and returns
a `CheckResult` whose ``closed_form`` comes from ``formula.call(values, published=ctx.published)`` and whose
``estimate`` is computed independently (simulation, quadrature, optimiser, log-det, …).

Verdict: ``pass`` iff ``ci_low <= closed_form <= ci_high`` (for ``exact-numeric`` checks the interval is the
estimate ± its stated tolerance).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["CheckContext", "CheckResult", "Method", "Recipe", "discover", "get_recipe", "recipe", "recipes"]

Method = Literal["monte-carlo", "exact-numeric"]
Recipe = Callable[["Formula", Mapping[str, Any], "CheckContext"], "CheckResult"]

_RECIPES: dict[str, Recipe] = {}
_DISCOVERED = False


@dataclass(frozen=True)
class CheckContext:
    """Settings of one verification run.

    ``samples`` is the Monte Carlo budget per check, ``seed`` the root seed, ``workers`` the number of processes
    (1 = in-process), ``published`` whether the closed form is the paper's published (erroneous) form.
    ``level`` is the two-sided confidence level of each check's interval (family recipes should use it).
    """

    samples: int = 400_000
    seed: int = 0
    workers: int = 1
    published: bool = False
    level: float = 0.999
    formula_id: str = ""

    def seed_sequence(self, stream: int = 0) -> np.random.SeedSequence:
        """A SeedSequence determined by (seed, formula id, stream): independent across formulas and streams."""
        key = [int(b) for b in self.formula_id.encode("utf-8")] or [0]
        return np.random.SeedSequence([int(self.seed), int(stream), *key])

    def rng(self, stream: int = 0) -> np.random.Generator:
        """A NumPy Generator seeded by (seed, formula id, stream); same seed → same numbers."""
        return np.random.default_rng(self.seed_sequence(stream))

    @property
    def z(self) -> float:
        """The two-sided normal quantile of ``level`` (e.g. 3.29 at 99.9 %)."""
        from dpcalc.sim.stats import normal_quantile

        return normal_quantile(0.5 + self.level / 2.0)


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check. ``closed_form`` and ``estimate`` are the same quantity (``detail`` says which)."""

    method: Method
    closed_form: float
    estimate: float
    ci_low: float
    ci_high: float
    detail: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        ok = bool(np.isfinite(self.closed_form)) and self.ci_low <= self.closed_form <= self.ci_high
        return "pass" if ok else "fail"

    @property
    def z(self) -> float | None:
        """(closed_form − estimate) / standard error, for Monte Carlo checks (SE from the interval half-width)."""
        if self.method != "monte-carlo":
            return None
        se = self.extra.get("se")
        if se is None or not se > 0:
            return None
        return float((self.closed_form - self.estimate) / se)

    @property
    def rel_error(self) -> float:
        """|closed_form − estimate| / |estimate| (0 when both are 0)."""
        d = abs(self.closed_form - self.estimate)
        if d == 0:
            return 0.0
        return float(d / abs(self.estimate)) if self.estimate != 0 else float("inf")


def recipe(name: str) -> Callable[[Recipe], Recipe]:
    """Decorator registering a verification recipe under ``name`` (names are unique across families)."""

    def deco(fn: Recipe) -> Recipe:
        if name in _RECIPES and _RECIPES[name] is not fn:
            raise ValueError(f"recipe {name!r} registered twice ({_RECIPES[name].__module__} and {fn.__module__})")
        _RECIPES[name] = fn
        return fn

    return deco


def discover() -> None:
    """Import every module of ``dpcalc.checks`` so their recipes register (idempotent)."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    import dpcalc.checks as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name != "registry" and not mod.name.startswith("_"):
            importlib.import_module(f"dpcalc.checks.{mod.name}")
    _DISCOVERED = True


def get_recipe(name: str) -> Recipe | None:
    """The recipe registered as ``name`` (after discovery), or None if none is."""
    discover()
    return _RECIPES.get(name)


def recipes() -> dict[str, Recipe]:
    """All registered recipes by name (after discovery)."""
    discover()
    return dict(_RECIPES)
