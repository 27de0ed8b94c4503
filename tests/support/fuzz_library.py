"""Hostile calls of every public ``dpcalc`` library function, and the contract each call must satisfy.

Used by ``tests/library/test_fuzz_library.py``. The public API is discovered, not listed: a module's ``__all__``
where it has one, else the public functions it defines; modules inside a package with an ``__all__`` are covered by that
package unless its ``__all__`` names the module itself (a public submodule, e.g. ``dpcalc.cuag.compression``); private
modules (``_x``), the CLI (fuzzed by ``tests/support/fuzz_cli.py``) and the verification recipes
(``dpcalc.checks``) are not part of it. Each parameter is drawn from its annotation and its name: typical valid
values, boundaries (0, ±1, 5e-324, 1e308, 2**53 + 1), NaN, ±inf, negative, huge, arrays of every small shape
(including mismatched and empty ones) and wrong types (strings, None, complex, ragged lists, dicts).

The contract (README, docs/conventions.md §4): a call either returns a finite result — an infinity only where
the function documents it (its docstring says so) or warns — or raises a ``ValueError`` subclass whose message
is one line naming a parameter of the function. Never another exception (TypeError, ZeroDivisionError,
OverflowError, IndexError, MemoryError, …), never a NumPy ``RuntimeWarning``/``ComplexWarning`` leaking, never a
NaN, never more than ``DPCALC_FUZZ_LIBRARY_CPU_SECONDS`` of CPU time per call (default 30; CPU, not wall time, so a
loaded machine cannot trip it: `tests.support.call_limits`), never a stall, and never more than
``DPCALC_FUZZ_LIBRARY_MEMORY`` bytes of new address space (default 3 GiB; enforced with ``RLIMIT_AS``).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import inspect
import math
import os
import pkgutil
import re
import typing
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

import dpcalc
from tests.support.call_limits import Slow, cpu_seconds, limits

CPU_SECONDS_PER_CALL = float(os.environ.get("DPCALC_FUZZ_LIBRARY_CPU_SECONDS", "30"))
MEMORY_PER_CALL = int(float(os.environ.get("DPCALC_FUZZ_LIBRARY_MEMORY", str(3 * 1024**3))))

#: Functions not called, each with the reason (side effects outside the process, not computations).
EXCLUDED: dict[str, str] = {
    "dpcalc.files.write_atomic": "writes files (fuzzed through every command's --output by the CLI fuzz)",
    "dpcalc.report.render.write_atomic": "the same writer, re-exported",
    "dpcalc.plot.save": "writes files",
}

# ------------------------------------------------------------------------------------------ discovery


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str  # "number", "flag", "choice", "text", "path", "strings", "schedule", "opaque"
    keyword_only: bool
    has_default: bool
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Function:
    qualname: str  # module.name
    fn: Callable[..., Any]
    args: tuple[Arg, ...]

    @property
    def skip_reason(self) -> str | None:
        opaque = [a.name for a in self.args if a.kind == "opaque" and not a.has_default]
        if opaque:
            return f"needs structured object(s) {', '.join(opaque)} (not generated)"
        return EXCLUDED.get(self.qualname)

    @property
    def param_names(self) -> set[str]:
        return {a.name for a in self.args}


_OPAQUE = re.compile(r"Callable|TermFn|MechanismPair|Formula|FigureSpec|Result\b|Spec\b|TableSpec|Mapping|KeyPath|"
                     r"CheckRow|Step\b|Generator")


def _literal_choices(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) is typing.Literal:
        return typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return tuple(m.value for m in hint)
    out: tuple[Any, ...] = ()
    for sub in typing.get_args(hint):
        out += _literal_choices(sub)
    return out


def _arg(fn: Callable[..., Any], p: inspect.Parameter, hints: dict[str, Any]) -> Arg | None:
    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
        return None
    text = str(p.annotation)
    hint = hints.get(p.name)
    choices = _literal_choices(hint) if hint is not None else ()
    has_default = p.default is not p.empty
    kw = p.kind is p.KEYWORD_ONLY
    if choices:
        kind = "choice"
    elif p.name == "schedule":  # a PLD schedule: an iterable of (sigma, q, count) steps
        kind = "schedule"
    elif text == "bool":
        kind = "flag"
    elif _OPAQUE.search(text):
        kind = "opaque"
    elif "Iterable[str]" in text or "tuple[str" in text:
        kind = "strings"
    elif "Path" in text:
        kind = "path"
    elif text in ("str", "str | None"):
        kind = "text"
    else:
        kind = "number"
    return Arg(p.name, kind, kw, has_default, choices)


def _public_functions(mod: Any) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is not None:
        return [n for n in names if inspect.isfunction(getattr(mod, n, None))]
    return [n for n, f in vars(mod).items()
            if inspect.isfunction(f) and not n.startswith("_") and f.__module__ == mod.__name__]


def functions() -> list[Function]:
    """Every public function of dpcalc (see the module docstring for what counts as public)."""
    found: list[Function] = []
    for info in pkgutil.walk_packages(dpcalc.__path__, "dpcalc."):
        name = info.name
        if any(part.startswith("_") for part in name.split(".")) or name.startswith(("dpcalc.cli", "dpcalc.checks")):
            continue
        parent = importlib.import_module(name.rsplit(".", 1)[0])
        if parent is not dpcalc and hasattr(parent, "__all__") and name.rsplit(".", 1)[1] not in parent.__all__:
            continue  # the package's __all__ is the public API of its submodules (or names a public submodule)
        mod = importlib.import_module(name)
        for fname in _public_functions(mod):
            fn = getattr(mod, fname)
            try:
                hints = typing.get_type_hints(fn)
            except Exception:  # annotations naming TYPE_CHECKING-only imports
                hints = {}
            args = tuple(a for p in inspect.signature(fn).parameters.values() if (a := _arg(fn, p, hints)))
            found.append(Function(f"{name}.{fname}", fn, args))
    return found


# ------------------------------------------------------------------------------------------ values

_M = [[2.0, 1.0], [1.0, 2.0]]


def _clipped_users(k: int = 3, d: int = 20, users: int = 2) -> list[list[list[float]]]:
    """Per-user K × D gradient matrices with every column norm <= 1 (= C): Theorem 2's Assumption 1 holds."""
    rng = np.random.default_rng(0)
    mats = [rng.normal(size=(k, d)) for _ in range(users)]
    return [(m / np.linalg.norm(m, axis=0).max()).tolist() for m in mats]


TYPICAL: dict[str, list[Any]] = {
    "eps": [0.5, 1.0, 2.0, 5.0], "delta": [1e-5, 1e-3, 0.5], "log_delta": [-10.0, -800.0],
    "sigma": [0.8, 1.0, 2.0], "sigma2": [1.0, 0.5], "sigma_e2": [0.1, 1.0], "q": [0.01, 0.1, 1.0],
    "steps": [1, 10, 100], "mu": [0.5, 1.0, 2.0], "mus": [[0.5, 0.5]], "alpha": [0.5, 2.0, 8.0],
    "rho": [0.1, 1.0], "rhos": [[0.1, 0.2]], "d": [1, 10, 1000], "n": [2, 4, 10], "N": [1, 10], "K": [2, 5],
    "T": [1, 10, 300], "t": [1, 10], "L": [1, 5], "m": [100, 1000], "C": [1.0, 2.0], "C0": [1.0],
    "var": [2.0, 30.0], "cov": [1.0, 1.8, 0.0], "variances": [[1.0, 2.0]], "var_max": [2.0],
    "weights": [[0.5, 0.5], [0.2, 0.3, 0.5]], "alphas": [[1.0, 2.0]], "sigmas": [[1.0, 2.0], [0.5]],
    "norms": [[1.0, 2.0, 3.0]], "eta": [0.5, 0.1], "lam": [0.1, 0.5], "B": [50, 10], "D": [500, 100],
    "P": [1, 25], "orders": [[2.0, 4.0, 8.0], None], "rdp": [[0.1, 0.2, 0.3], 0.1], "rdps": [[[0.1, 0.2]]],
    "sensitivity": [1.0], "units": ["nats", "bits"], "layer_size": [100, 4864], "r": [0.5, 0.1],
    "a": [4, 8], "weight": [0.5, 1.0], "layer_norms": [[1.0, 2.0]], "layer_sizes": [[100, 200], "cnn-cifar10"],
    "rate": [0.5, [0.5, 0.4]], "copies": [1, 2], "p_max": [0.5, 1.0], "sum_p2": [0.5, 1.0], "w_norm": [1.0],
    "sigma_x": [_M], "sigma_z": [_M], "cov_x": [_M], "cov_z": [_M], "matrix": [_M], "cov1": [_M], "cov2": [_M],
    "mu1": [[0.0, 0.0]], "mu2": [[1.0, 0.0]], "G": [[[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]]],
    "G_all": [[[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]]], "G_users": [[[[1.0, 0.0], [0.0, 1.0]]], _clipped_users()],
    "g_new": [[1.0, 0.0]], "eigenvalues": [[1.0, 0.5]], "index": [[0, 1]], "seed": [0, 1], "workers": [1],
    "level": [0.999, 0.9], "x": [0.5, 1.0], "p": [0.5, 0.9], "pl": [0.5], "lipschitz": [1.0],
    "smoothness": [1.0], "dissimilarity": [1.0], "prox_mu": [1.0], "theta": [0.5], "c_scale": [1.0],
    "kappa1": [1.0], "rtol": [1e-6, None], "zeta": [1.0], "s_f": [1.0], "slope": [1.0], "dmu": [[1.0, 0.0]],
    "lam1": [[1.0, 2.0]], "lam2": [[1.0, 2.0]], "basis": [None, [[1.0, 0.0], [0.0, 1.0]], [[0.6], [0.8]]],
    "formula_id": ["gdp.clt_mu", "bogus"],
    "option": ["--x"], "text": ["1,2", "1:3", "0.5"], "name": ["x", "rdp"], "paper": ["000", "002"],
    "paper_id": ["000", None], "method": ["dp-scaffold", "prifedsync"],
    "normalization": ["sec4", "sec5"],
    "row": ["sgd_iid_iso", "gd_iso", "gsgd_iso", "gsgd_wfna", "gd_wfna"], "sampling": ["poisson", "uniform"],
    "noise": ["isotropic"],
    "calibration": ["classic", "analytic"], "t_max": [100], "max_iter": [50], "grid": [None, 1e-3],
    "eig_min_sum": [1.0], "eig_star_min_sum": [1.0], "c_const": [1.0], "user": [0], "sample": [0],
    "blocks": [None, 1], "signal_std": [1.0], "signal_var": [1.0], "noise_var": [1.0], "server_sigma": [1.0],
    "client_sigmas": [[1.0, 1.0]], "dims": [1.0], "i": [0], "mu_over_sigma": [1.0], "notation": ["g", "e"],
    "digits": [4, 6], "latex": [r"\sigma"], "key": ["x"], "symbol": ["x"], "unit": ["nats"], "label": ["x"],
    "digits_": [4], "samples": [2000], "ids": [["gdp.clt_mu"]], "phi": [_M], "psi": [_M], "spec": ["cnn-cifar10"],
}

_BIG_INT = 2**53 + 1
HOSTILE_SCALARS: list[Any] = [0, 0.0, -0.0, -1, -0.5, 1, 0.5, 2, 1e-300, 5e-324, 1e-320, 1e300,
                              1.7976931348623157e308, 1e10, 1e20, _BIG_INT, 10**30, math.nan, math.inf, -math.inf,
                              1 - 1e-16, 1 + 1e-15, 1e-9, 3e8, np.float32(1.5), np.int64(3)]
WRONG_TYPES: list[Any] = ["abc", "1.5", "", None, [1, "a"], {"a": 1}, True, False, 1 + 2j, b"1", [[1, 2], [3]],
                          object(), [], (), [None]]




def wrong_names(valid: list[Any]) -> list[Any]:
    """Wrongly typed values where a name is expected: arrays and lists of valid names, a numeric array, a dict, a
    set (``row in ROWS`` on an array raised NumPy's "truth value of an array is ambiguous")."""
    names = [x for x in valid if isinstance(x, str)][:2] or ["x"]
    return [np.array(names), np.array(names[:1]), list(names), np.array([1.0, 2.0]), {names[0]: 1}, set(names)]


#: PLD schedules: valid ones, and hostile ones (not a list, short or long steps, wrong types, extreme values)
TYPICAL_SCHEDULES: list[Any] = [[(1.0, 0.01, 10)], [(2.0, 1.0, 1), (1.0, 0.1, 5)]]
HOSTILE_SCHEDULES: list[Any] = [5.0, "abc", {"a": 1}, None, [], [(1.0, 0.1)], [(1.0, 0.1, 1, 5)], [[1.0, "a", 2]],
                                np.array([[1.0, 0.1, 1.0]]), [(math.nan, 0.1, 1)], [(1e-300, 5e-324, 1)],
                                ((1.0, 0.1, 1),), [(1.0, 2.0, 1)], [(1.0, 0.1, 1.5)], [(1.0, 0.1, 10**30)],
                                [None], [1.0, 0.1, 1]]


def _arrays(elements: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    shapes = st.sampled_from([(1,), (2,), (3,), (4,), (2, 2), (2, 3), (3, 2), (1, 3), (2, 2, 2), (0,), (0, 2)])
    return shapes.flatmap(lambda s: st.lists(elements, min_size=int(np.prod(s)), max_size=int(np.prod(s)))
                          .map(lambda xs, s=s: np.array(xs, dtype=np.float64).reshape(s)))


def _number(name: str, hostile: bool) -> st.SearchStrategy[Any]:
    typical = st.sampled_from(TYPICAL.get(name, [0.5, 1.0, 2.0, 10.0, [1.0, 2.0]]))
    if not hostile:  # valid values, sometimes as arrays of a random small shape (shapes that may not broadcast)
        shaped = st.tuples(typical.filter(lambda x: isinstance(x, float | int)),
                           st.sampled_from([(2,), (3,), (2, 1), (1, 3), (2, 3)])).map(lambda t: np.full(t[1], t[0]))
        return st.one_of(typical, st.floats(1e-3, 1e3), st.integers(1, 1000), shaped)
    bad_scalar = st.one_of(st.sampled_from(HOSTILE_SCALARS), st.floats(allow_nan=True, allow_infinity=True),
                           st.integers(-10**25, 10**25))
    if name == "workers":  # processes: never ask for a huge pool (the value checks are the same for 2 and 2e9)
        bad_scalar = st.sampled_from([0, -1, 1.5, 2, math.nan, 10**6])
    elements = st.one_of(bad_scalar.filter(lambda x: isinstance(x, float | int)), st.floats(1e-3, 1e3))
    return st.one_of(bad_scalar, _arrays(elements), st.lists(st.one_of(typical, bad_scalar), min_size=1,
                                                             max_size=4), st.sampled_from(WRONG_TYPES))


@st.composite
def value_for(draw: Any, arg: Arg, hostile: bool, paths: list[str]) -> Any:
    if arg.kind == "flag":
        return draw(st.sampled_from([True, False, "yes", None, 2] if hostile else [True, False]))
    if arg.kind == "choice":
        if hostile:
            return draw(st.sampled_from(["bogus", "", None, 1.5, "NATS", *wrong_names(list(arg.choices)),
                                         *arg.choices]))
        return draw(st.sampled_from(list(arg.choices)))
    if arg.kind == "schedule":
        return draw(st.sampled_from(HOSTILE_SCHEDULES + TYPICAL_SCHEDULES if hostile else TYPICAL_SCHEDULES))
    if arg.name in ("name", "option"):  # a display name the calling code chooses (e.g. "--eps"), not user input
        return draw(st.sampled_from(TYPICAL[arg.name]))
    if arg.kind in ("text", "strings"):
        typical = TYPICAL.get(arg.name, ["x", "1"])
        if hostile:
            return draw(st.sampled_from(["", "bogus", None, 1.5, "\x00", "é", "../x", "1:1e9:1", "1e400",
                                         "nan", ["a", 1], *wrong_names(typical), *paths, *typical]))
        return draw(st.sampled_from(typical))
    if arg.kind == "path":
        return draw(st.sampled_from(paths if hostile else paths[:4]))
    return draw(_number(arg.name, hostile))


@functools.cache
def catalog_source(function: Function) -> Any:
    """The catalog entry whose sample specs give in-domain values for ``function``: its own entry, else the entry
    whose inputs cover every required numeric argument with the fewest extra inputs (nbafl.optimal_k takes the inputs
    of nbafl.convergence_bound). Functions with interdependent constraints (contraction conditions, order ranges)
    are otherwise almost never called with valid arguments (optimal_k: 0 of 1,000)."""
    from dpcalc import catalog

    need = {a.name for a in function.args if a.kind == "number" and not a.has_default}
    if not need:
        return None
    best: tuple[int, Any] | None = None
    for entry in catalog.load().values():
        names = {i.name for i in entry.inputs}
        if entry.implementation == function.qualname and need <= names:
            return entry
        if need <= names and (best is None or len(names) < best[0]):
            best = (len(names), entry)
    return best[1] if best else None


@st.composite
def call_for(draw: Any, function: Function, paths: list[str]) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for one call: each argument typical or hostile; defaults sometimes. A third
    of the calls start from an in-domain point of the function's catalog entry (:func:`catalog_source`), with the
    same share of arguments then replaced by hostile values."""
    rate = draw(st.sampled_from([0, 0, 10, 30, 100]))  # percent of arguments drawn hostile in this call
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    entry = catalog_source(function)
    base: dict[str, Any] = {}
    if entry is not None and draw(st.integers(0, 2)) == 0:
        try:
            base = entry.sample_inputs(np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
        except ValueError:  # a spec whose constraint was not met within the tries
            base = {}
    for a in function.args:
        if a.name in base and a.kind == "number":
            hostile = draw(st.integers(0, 99)) < rate
            kwargs[a.name] = draw(value_for(a, True, paths)) if hostile else base[a.name]
            continue
        if a.kind == "opaque" or (a.has_default and draw(st.integers(0, 2)) == 0):
            continue  # every argument goes by keyword, so omitting one never shifts the others
        kwargs[a.name] = draw(value_for(a, draw(st.integers(0, 99)) < rate, paths))
    return args, kwargs


# ------------------------------------------------------------------------------------------ running


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None
    warned: list[str] = dataclasses.field(default_factory=list)


def call(function: Function, args: list[Any], kwargs: dict[str, Any]) -> Outcome:
    """Call ``function`` under the limits, recording its result or exception and every warning."""
    out = Outcome()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # NumPy's default error state: what a user of the library sees
            with limits(CPU_SECONDS_PER_CALL, MEMORY_PER_CALL):
                out.value = function.fn(*args, **kwargs)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            out.error = exc
    out.warned = [f"{w.category.__name__}: {w.message}" for w in caught]
    return out


def _nonfinite(value: Any, depth: int = 0) -> str | None:
    """'nan', 'inf' or None: the worst non-finite number anywhere in a (nested) result."""
    if depth > 6:
        return None
    if isinstance(value, bool | str | bytes) or value is None:
        return None
    if isinstance(value, int | np.integer):  # integers are finite (a Python int may exceed the float range)
        return None
    if isinstance(value, float | np.floating):
        f = float(value)
        return None if math.isfinite(f) else ("nan" if math.isnan(f) else "inf")
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and value.size:
            if np.isnan(value).any():
                return "nan"
            if not np.isfinite(value).all():
                return "inf"
        if value.dtype.kind == "O":
            return _first(_nonfinite(x, depth + 1) for x in value.ravel()[:1000])
        return None
    if isinstance(value, dict):
        return _first(_nonfinite(x, depth + 1) for x in value.values())
    if isinstance(value, list | tuple):
        return _first(_nonfinite(x, depth + 1) for x in value[:1000])
    if type(value).__module__.startswith("dpcalc.catalog"):
        return None  # formula metadata: domains such as (0, inf) are documented bounds, not results
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _first(_nonfinite(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return None


def _first(items: Iterator[str | None]) -> str | None:
    found = [x for x in items if x]
    return "nan" if "nan" in found else (found[0] if found else None)


def _names(message: str, names: set[str]) -> bool:
    low = message.lower()
    for n in names:
        for form in {n, n.replace("_", " "), n.replace("_", "-")}:
            if re.search(rf"(?<![a-z0-9_]){re.escape(form.lower())}(?![a-z0-9_])", low):
                return True
    return False


def _quotes_value(message: str, function: Function, kwargs: dict[str, Any]) -> bool:
    """A lookup by name ("unknown formula 'x'", "SPEC.toml: not valid TOML") names its argument by its value."""
    for a in function.args:
        value = kwargs.get(a.name)
        if a.kind not in ("text", "path", "choice", "strings"):
            continue
        for item in (value if isinstance(value, list | tuple) else [value]):
            if isinstance(item, str | Path) and str(item).strip():
                base = Path(str(item)).name
                if str(item) in message or (base and base in message.split(":")[0]):
                    return True
                # a long path is quoted shortened in the middle: '/tmp/in/xxx…xxx.csv'
                for head, tail in re.findall(r"'([^'…]+)…([^'…]+)'", message):
                    if str(item).startswith(head) and str(item).endswith(tail):
                        return True
    return False


def violations(function: Function, o: Outcome, kwargs: dict[str, Any] | None = None) -> list[str]:
    """The ways one call broke the contract (empty if none)."""
    found: list[str] = []
    leaked = [w for w in o.warned if w.startswith(("RuntimeWarning", "ComplexWarning"))]
    if leaked:
        found.append(f"NumPy warning leaked: {leaked[0][:150]}")
    e = o.error
    if e is None:
        bad = _nonfinite(o.value)
        doc = (function.fn.__doc__ or "").lower()
        documented = "inf" in doc or "∞" in doc
        dpcalc_warned = any(not w.startswith(("RuntimeWarning", "ComplexWarning", "DeprecationWarning"))
                            for w in o.warned)
        if bad == "nan":
            found.append("NaN returned")
        elif bad == "inf" and not (documented or dpcalc_warned):
            found.append("inf returned without documentation or warning")
        return found
    if isinstance(e, Slow):
        return [f"hang: {e}"]
    if not isinstance(e, ValueError):
        found.append(f"{type(e).__name__} leaked: {str(e)[:150]}")
        return found
    msg = str(e)
    if "\n" in msg.strip():
        found.append(f"multi-line {type(e).__name__}: {msg[:150]!r}")
    if "could not be broadcast" in msg or "shape mismatch" in msg:
        found.append(f"bare NumPy shape error: {msg[:150]}")
    elif not (_names(msg, function.param_names | _fields(function)) or _quotes_value(msg, function, kwargs or {})):
        found.append(f"{type(e).__name__} names no parameter: {msg[:150]}")
    return found


def _fields(function: Function) -> set[str]:
    """Names inside a structured argument that identify it: a PLD schedule's step fields (sigma, q, count)."""
    return {"sigma", "q", "count"} if any(a.kind == "schedule" for a in function.args) else set()


def paths_for(root: Path) -> list[str]:
    """Prepared input files (good and bad) for path parameters: the CLI fuzz's set."""
    from tests.support.fuzz_cli import Files

    files = Files(root)
    good = [files.paths[k] for k in ("col.csv", "matrix.csv", "vec.npy", "eye.npy")]
    return good + [p for p in files.values() if p not in good]


def classify(problem: str) -> str:
    """A class key for a problem: numbers and quoted values replaced, so repeats of one class tally together."""
    key = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", problem)
    key = re.sub(r"\(got [^)]*\)", "(got …)", key)
    return re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "N", key)[:120]


def _survey_function(function: Function, paths: list[str], examples: int) -> dict[str, Any]:
    import collections

    from hypothesis import HealthCheck, Phase, given, settings

    tried, outcomes, found = 0, collections.Counter(), collections.defaultdict(list)

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: Any) -> None:
        nonlocal tried
        args, kwargs = data.draw(call_for(function, paths))
        o = call(function, args, kwargs)
        tried += 1
        outcomes["ok" if o.error is None else type(o.error).__name__] += 1
        for problem in violations(function, o, kwargs):
            found[classify(problem)].append(repr(kwargs)[:300])

    run()
    return {"tried": tried, "outcomes": dict(outcomes), "found": {k: [len(v), v[0]] for k, v in found.items()}}


def survey(examples: int, only: list[str] | None = None) -> dict[str, Any]:
    """The deep run's report: ``examples`` calls per function (or the functions in ``only``), tallied by class."""
    import json
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="dpcalc-libfuzz-"))
    paths = paths_for(root / "in")
    os.chdir(root)  # anything a function writes by a relative name lands here
    report: dict[str, Any] = {}
    for function in functions():
        if only and not any(function.qualname.endswith(o) for o in only):
            continue
        if function.skip_reason:
            report[function.qualname] = {"skipped": function.skip_reason}
            print(json.dumps({function.qualname: report[function.qualname]}), flush=True)
            continue
        t0 = cpu_seconds()
        tally = _survey_function(function, paths, examples)
        report[function.qualname] = {**tally, "cpu_seconds": round(cpu_seconds() - t0, 1)}
        print(json.dumps({function.qualname: report[function.qualname]}, default=str), flush=True)
    return report


if __name__ == "__main__":  # python -m tests.support.fuzz_library 1000 [function-suffix ...]
    import sys

    survey(int(sys.argv[1]), sys.argv[2:] or None)
