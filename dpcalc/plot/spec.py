"""Figure specs: what to draw, as data. Presets live in ``dpcalc/plot/presets/*.toml`` (schema in docs/figures.md).

A `FigureSpec` sweeps one parameter ``x`` over ``x_values`` and draws one line per `SeriesSpec`
(or one per value of the series' ``by`` parameter). A series evaluates a catalog formula (its published form
with ``published = true``) or, when no catalog entry gives the curve, a library function by dotted path; an
optional ``then`` step feeds the result into a second formula/function (e.g. μ → ε(μ, δ)).

A family adds its figures by adding a TOML file to ``presets/``: the CLI (``dpcalc plot preset``), the tests
and the documentation site pick every file up without code changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from dpcalc.report.spec import KeyPath, Spec

__all__ = ["KINDS", "OPTIMA", "PRESET_DIR", "TRANSFORMS", "Y_TRANSFORMS", "FigureSpec", "SeriesSpec", "Step",
           "by_paper", "parse_figures", "preset", "presets"]

PRESET_DIR = Path(__file__).resolve().parent / "presets"
TRANSFORMS = ("", "reciprocal")
Y_TRANSFORMS = ("", "minus_x", "ratio_to_first")
_FIGURE_KEYS = ("id", "paper", "title", "caption", "x", "x_values", "x_label", "y_label", "logx", "logy", "series",
                "y_transform", "optimum", "optimum_label")
#: What a line is, said in its legend: the paper's form as printed, dpcalc's correction, a claim under dispute,
#: an approximation that is not a guarantee, a bound, or a formula dpcalc verified ("" = derived from the catalog).
KINDS = ("", "published", "corrected", "disputed", "estimate", "bound", "verified")
OPTIMA = ("", "min", "max")
_SERIES_KEYS = ("formula", "function", "inputs", "random", "x_input", "x_transform", "published", "kind", "then",
                "by", "label")
_STEP_KEYS = ("formula", "function", "input", "inputs")
_RANDOM_KEYS = ("uniform", "size", "seed")


@dataclass(frozen=True)
class Step:
    """One evaluation: a catalog formula (by id) or a library function (dotted path) with fixed inputs."""

    formula: str = ""
    function: str = ""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    input: str = ""  # for a ``then`` step: the input that receives the previous step's value
    published: bool = False

    @property
    def name(self) -> str:
        return self.formula or self.function


@dataclass(frozen=True)
class SeriesSpec:
    label: str
    step: Step
    x_input: str = ""
    x_transform: str = ""
    kind: str = ""  # one of KINDS ("" = derived from the catalog: its erratum or status)
    then: Step | None = None
    by: tuple[str, tuple[float, ...]] | None = None
    random: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class FigureSpec:
    id: str
    paper: str
    title: str
    x: str
    x_values: tuple[float, ...]
    series: tuple[SeriesSpec, ...]
    caption: str = ""
    x_label: str = ""
    y_label: str = ""
    logx: bool = False
    logy: bool = False
    y_transform: str = ""  # "minus_x" (y − x, e.g. U_max − ε) or "ratio_to_first" (y / first line)
    source: str = ""
    optimum: str = ""  # "min" or "max": mark each line's optimum (e.g. the optimal number of rounds T*)
    optimum_label: str = ""  # mathtext of the optimum's name, e.g. "T^*"

    @property
    def line_count(self) -> int:
        """How many lines the figure draws (series × values of their ``by``)."""
        return sum(len(s.by[1]) if s.by else 1 for s in self.series)


def _step(spec: Spec, path: KeyPath, raw: Mapping[str, Any], keys: tuple[str, ...], published: bool) -> Step:
    from dpcalc import catalog

    spec.check_keys(path, raw, keys)
    formula = spec.get((*path, "formula"), "", within=raw)
    function = spec.get((*path, "function"), "", within=raw)
    if bool(formula) == bool(function):
        raise spec.error((*path, "formula"), "give exactly one of 'formula' (a catalog id) or 'function' "
                                             "(a dotted path)")
    if formula:
        if not isinstance(formula, str):
            raise spec.error((*path, "formula"), "must be a catalog id string")
        try:
            entry = catalog.get(formula)
        except KeyError as exc:
            raise spec.error((*path, "formula"), str(exc.args[0])) from None
        if published and entry.erratum is None:
            raise spec.error((*path, "published"), f"{formula} has no published (erroneous) form")
    elif not isinstance(function, str) or "." not in function or not function.startswith("dpcalc."):
        raise spec.error((*path, "function"), f"must be a dotted path inside dpcalc (got {function!r})")
    inputs = spec.get((*path, "inputs"), {}, within=raw)
    if not isinstance(inputs, dict):
        raise spec.error((*path, "inputs"), "must be a table of input = value")
    for name, value in inputs.items():
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok or (isinstance(value, list) and all(isinstance(x, int | float) for x in value))
        if not ok:
            raise spec.error((*path, "inputs"), f"input {name!r} must be a number or a list of numbers")
    return Step(formula=formula, function=function, inputs=dict(inputs),
                input=spec.get((*path, "input"), "", within=raw), published=published)


def _series(spec: Spec, path: KeyPath, raw: Mapping[str, Any]) -> SeriesSpec:
    spec.check_keys(path, raw, _SERIES_KEYS)
    published = spec.get((*path, "published"), False, within=raw)
    if not isinstance(published, bool):
        raise spec.error((*path, "published"), "must be true or false")
    step = _step(spec, path, {k: v for k, v in raw.items() if k in ("formula", "function", "inputs")},
                 _STEP_KEYS, published)
    then = None
    if "then" in raw:
        if not isinstance(raw["then"], dict):
            raise spec.error((*path, "then"), "must be a table {formula|function, input, inputs}")
        then = _step(spec, (*path, "then"), raw["then"], _STEP_KEYS, False)
        if not then.input:
            raise spec.error((*path, "then"), "needs 'input': the input that receives the previous value")
    by = None
    if "by" in raw:
        if not isinstance(raw["by"], dict) or len(raw["by"]) != 1:
            raise spec.error((*path, "by"), "must be one parameter = values, e.g. { eps = [1, 5, 10] }")
        (name, _), = raw["by"].items()
        by = (name, tuple(spec.as_values((*path, "by"), raw["by"][name])))
    transform = spec.get((*path, "x_transform"), "", within=raw)
    if transform not in TRANSFORMS:
        raise spec.error((*path, "x_transform"), f"must be one of {', '.join(repr(t) for t in TRANSFORMS)}")
    kind = spec.get((*path, "kind"), "", within=raw)
    if kind not in KINDS:
        raise spec.error((*path, "kind"), f"must be one of {', '.join(repr(k) for k in KINDS[1:])}")
    random = spec.get((*path, "random"), {}, within=raw)
    for name, rnd in random.items() if isinstance(random, dict) else [("", None)]:
        if not isinstance(rnd, dict):
            raise spec.error((*path, "random"), "must be a table name = { uniform = [lo, hi], size, seed }")
        spec.check_keys((*path, "random"), rnd, _RANDOM_KEYS)
        if not {"uniform", "size", "seed"} <= set(rnd):
            raise spec.error((*path, "random"), f"{name!r} needs uniform = [lo, hi], size and seed")
    label = spec.get((*path, "label"), within=raw)
    if not isinstance(label, str) or not label:
        raise spec.error((*path, "label"), "must be a non-empty string (the legend entry)")
    return SeriesSpec(label=label, step=step, x_input=spec.get((*path, "x_input"), "", within=raw),
                      x_transform=transform, kind=kind, then=then, by=by, random=dict(random))


def parse_figures(spec: Spec) -> list[FigureSpec]:
    """All ``[[figure]]`` tables of a spec, validated (one-line `SpecError`)."""
    spec.check_keys((), spec.data, ("figure",))
    out = []
    for k, raw in enumerate(spec.tables(("figure",))):
        path: KeyPath = ("figure", k)
        spec.check_keys(path, raw, _FIGURE_KEYS)
        y_transform = spec.string((*path, "y_transform"), "")
        if y_transform not in Y_TRANSFORMS:
            raise spec.error((*path, "y_transform"), f"must be one of {', '.join(map(repr, Y_TRANSFORMS))}")
        series = [_series(spec, (*path, "series", j), s) for j, s in enumerate(spec.tables((*path, "series")))]
        optimum = spec.string((*path, "optimum"), "")
        if optimum not in OPTIMA:
            raise spec.error((*path, "optimum"), "must be 'min' or 'max'")
        out.append(FigureSpec(
            id=spec.string((*path, "id")), paper=spec.string((*path, "paper")), title=spec.string((*path, "title")),
            x=spec.string((*path, "x")), x_values=tuple(spec.values((*path, "x_values"))), series=tuple(series),
            caption=spec.string((*path, "caption"), "").strip(), x_label=spec.string((*path, "x_label"), ""),
            y_label=spec.string((*path, "y_label"), ""), logx=spec.boolean((*path, "logx"), False),
            logy=spec.boolean((*path, "logy"), False), y_transform=y_transform, source=spec.name,
            optimum=optimum, optimum_label=spec.string((*path, "optimum_label"), "")))
    return out


@cache
def presets() -> dict[str, FigureSpec]:
    """Every preset of ``dpcalc/plot/presets/*.toml``, by id (file order, then order in the file)."""
    out: dict[str, FigureSpec] = {}
    for path in sorted(PRESET_DIR.glob("*.toml")):
        for fig in parse_figures(Spec.read(path)):
            if fig.id in out:
                raise Spec.read(path).error(("figure", "id"), f"duplicate preset id {fig.id!r}")
            out[fig.id] = fig
    return out


def preset(name: str) -> FigureSpec:
    """One preset by id; an unknown id is a one-line `DomainError` with suggestions."""
    from dpcalc import _validate as v
    from dpcalc.errors import DomainError

    known = presets()
    if v.text("name", name) not in known:
        import difflib

        close = difflib.get_close_matches(name, list(known), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known)}"
        raise DomainError(f"name: unknown figure preset {name!r}{hint}")
    return known[name]


def by_paper(paper: str) -> list[FigureSpec]:
    """The presets of one paper id (``"001"``…), in order."""
    if not isinstance(paper, str):
        from dpcalc.errors import DomainError

        raise DomainError(f"paper must be a paper id such as '001' (got {type(paper).__name__})")
    return [f for f in presets().values() if f.paper == paper]
