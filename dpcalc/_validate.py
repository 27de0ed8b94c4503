"""Input validation shared by all families: one helper per kind of check, one-line messages.

Every public function calls these before computing, so that bad input never turns into a silent
NaN or inf. Messages name the parameter and the allowed range, e.g.
``eps must be a finite number > 0 (got -1)``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from dpcalc.errors import DomainError, DpcalcError
from dpcalc.typing import FloatArray

__all__ = ["FloatArray", "as_array", "brief", "broadcast", "check_range", "choice", "describe_range", "documented_inf",
           "elementwise", "evaluate", "finite_result", "integer_at_least", "named_shapes", "nonnegative", "positive",
           "probability", "scalar", "scalar_or_array", "scalar_params", "seed", "shape_clash", "text", "vector",
           "warn", "weights"]


_INF = math.inf
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _fmt(x: float) -> str:
    if x == _INF:
        return "inf"
    if x == -_INF:
        return "-inf"
    return f"{x:g}"


def describe_range(lo: float = -_INF, hi: float = _INF, *, lo_open: bool = False, hi_open: bool = False,
                   integer: bool = False) -> str:
    """Human description of an allowed range: ``> 0``, ``in (0, 1)``, ``an integer >= 1``."""
    kind = "an integer" if integer else "a finite number"
    if lo == -_INF and hi == _INF:
        return kind
    if hi == _INF:
        return f"{kind} {'>' if lo_open else '>='} {_fmt(lo)}"
    if lo == -_INF:
        return f"{kind} {'<' if hi_open else '<='} {_fmt(hi)}"
    return f"{kind} in {'(' if lo_open else '['}{_fmt(lo)}, {_fmt(hi)}{')' if hi_open else ']'}"


def brief(value: object, width: int = 60) -> str:
    """``repr(value)`` on one line, at most ``width`` characters: for messages (a 2-D array's repr has newlines)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _to_float_array(name: str, value: ArrayLike) -> FloatArray:
    if value is None or isinstance(value, bool | np.bool_):
        raise DomainError(f"{name} must be a number (got {value!r})")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise DomainError(f"{name} must be a number (got {brief(value)})") from None
    if arr.size == 0:
        raise DomainError(f"{name} must not be empty")
    return arr


def _raise_not_finite(name: str, arr: FloatArray) -> None:
    bad = arr[~np.isfinite(arr)].flat[0]
    raise DomainError(f"{name} must be finite (got {_fmt(float(bad))})")


def as_array(name: str, value: ArrayLike) -> FloatArray:
    """Convert ``value`` to a float64 array, rejecting non-numbers, NaN and inf with a one-line error."""
    arr = _to_float_array(name, value)
    with np.errstate(invalid="ignore"):  # inf * 0 is the NaN looked for, not a warning for the user
        finite = math.isfinite(float(np.sum(arr * 0.0)))  # one pass: any NaN or ±inf makes the sum NaN
    if not finite:
        _raise_not_finite(name, arr)
    return arr


def _all_integers(arr: FloatArray, block: int = 1 << 16) -> bool:
    """True iff every element is integral; blockwise so the scratch buffer stays in cache."""
    flat = arr.ravel()
    buf = np.empty(min(block, flat.size))
    same = np.empty(buf.size, dtype=bool)
    for start in range(0, flat.size, block):
        part = flat[start:start + block]
        n = part.size
        np.floor(part, out=buf[:n])
        np.equal(buf[:n], part, out=same[:n])
        if not same[:n].all():
            return False
    return True


def check_range(name: str, value: ArrayLike, lo: float = -_INF, hi: float = _INF, *, lo_open: bool = False,
                hi_open: bool = False, integer: bool = False) -> FloatArray:
    """Return ``value`` as a float array after checking every element lies in the given range.

    Fast path for large arrays: two reductions (min, max; NaN propagates) decide; only on failure is the
    first offending element located for the message. A Python float or int inside the range is compared directly
    (no reductions: the accountants' scalar parameters).
    """
    kind = type(value)
    if kind is float or kind is int:
        x = float(value)  # type: ignore[arg-type]
        if (math.isfinite(x) and (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)
                and (not integer or x == math.floor(x))):
            return np.array(x)
    arr = _to_float_array(name, value)
    mn, mx = float(np.min(arr)), float(np.max(arr))
    if not (math.isfinite(mn) and math.isfinite(mx)):
        _raise_not_finite(name, arr)
    ok = (mn > lo if lo_open else mn >= lo) and (mx < hi if hi_open else mx <= hi)
    if ok and integer:
        ok = _all_integers(arr)
    if ok:
        return arr
    bad = np.zeros(arr.shape, dtype=bool)
    if lo > -_INF:
        bad |= (arr <= lo) if lo_open else (arr < lo)
    if hi < _INF:
        bad |= (arr >= hi) if hi_open else (arr > hi)
    if integer:
        bad |= arr != np.round(arr)
    first = float(arr[bad].flat[0])
    position = int(np.flatnonzero(bad.ravel())[0]) + 1
    got = f" (got {_fmt(first)})" if arr.size == 1 else f" (got {_fmt(first)}, item {position} of the list)"
    rng = describe_range(lo, hi, lo_open=lo_open, hi_open=hi_open, integer=integer)
    raise DomainError(f"{name} must be {rng}{got}")


def positive(name: str, value: ArrayLike) -> FloatArray:
    """Check ``value > 0`` elementwise."""
    return check_range(name, value, 0.0, lo_open=True)


def nonnegative(name: str, value: ArrayLike) -> FloatArray:
    """Check ``value >= 0`` elementwise."""
    return check_range(name, value, 0.0)


def probability(name: str, value: ArrayLike, *, lo_open: bool = True, hi_open: bool = True) -> FloatArray:
    """Check ``value`` in (0, 1) (ends open by default)."""
    return check_range(name, value, 0.0, 1.0, lo_open=lo_open, hi_open=hi_open)


def integer_at_least(name: str, value: ArrayLike, lo: int = 1) -> FloatArray:
    """Check ``value`` is an integer ``>= lo`` (kept as float64 so it broadcasts with the rest)."""
    return check_range(name, value, float(lo), integer=True)


def weights(name: str, value: ArrayLike, *, atol: float = 1e-9) -> FloatArray:
    """Check a 1-D vector of aggregation weights: non-negative and summing to 1 (within ``atol``)."""
    arr = nonnegative(name, value)
    if arr.ndim != 1:
        raise DomainError(f"{name} must be a 1-D list of weights (got shape {arr.shape})")
    total = float(np.sum(arr))
    if abs(total - 1.0) > atol:
        raise DomainError(f"{name} must sum to 1 (got sum {total:.12g})")
    return arr


def vector(name: str, value: ArrayLike, lo: float = -_INF, *, lo_open: bool = False) -> FloatArray:
    """Check a non-empty 1-D vector whose elements are >= lo (or > lo)."""
    arr = check_range(name, value, lo, lo_open=lo_open)
    if arr.ndim != 1:
        raise DomainError(f"{name} must be a 1-D list (got shape {arr.shape})")
    return arr


def scalar(name: str, value: ArrayLike) -> float:
    """``value`` (already validated) as a Python float; an array of more than one element is refused in one line.

    For functions whose parameter is a single number (a schedule length, a calibration target): ``float()`` of a
    longer array would raise a bare TypeError naming nothing.
    """
    if type(value) is np.ndarray and value.ndim == 0:
        return float(value)
    size = int(np.size(value))
    if size != 1:
        raise DomainError(f"{name} must be a scalar here (got an array of shape {np.shape(value)})")
    return float(np.reshape(value, ()))


def broadcast(**named: ArrayLike) -> tuple[FloatArray, ...]:
    """Broadcast the named (validated) arrays together, in the order given; shapes that do not broadcast are
    refused in one line naming the first two parameters that clash: ``x and y: shapes (3,) and (4,) do not
    broadcast``."""
    arrays = [np.asarray(a, dtype=np.float64) for a in named.values()]
    try:
        return tuple(np.broadcast_arrays(*arrays))
    except ValueError:
        raise DomainError(shape_clash(named)) from None


F = TypeVar("F", bound=Callable[..., Any])


def documented_inf(func: F) -> F:
    """Marker: ``func`` may return ±inf as a documented value (its docstring says when, e.g. an RDP bound at an
    order outside its range). Every other public function that would return an inf refuses in one line instead
    (`evaluate`). Apply it below the public decorator (``@named_shapes`` above ``@documented_inf``)."""
    func._dpcalc_inf_ok = True  # type: ignore[attr-defined]
    return func


def evaluate(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call a public function in the library's floating-point state; both decorators below go through here.

    NumPy's overflow/underflow/divide/invalid flags are internal to the computation (an ``exp`` overflowing to inf
    whose reciprocal is the 0 wanted, a ``log(0)`` branch that ``np.where`` discards): every result is checked
    instead, so no ``RuntimeWarning`` reaches the user. A NaN result is never an answer, nor an inf unless the
    function documents it (`documented_inf`): either is refused in one line naming the inputs, as is a bare
    ``OverflowError``/``ZeroDivisionError`` from Python float arithmetic (a ``x ** 2`` past 1.8e308).
    """
    name = getattr(func, "__name__", "the function")
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # SciPy's own overflow warnings: results are checked
            out = func(*args, **kwargs)
            bad = _nonfinite(out)  # the sum of huge finite values may overflow: not the caller's business
    except (OverflowError, ZeroDivisionError) as exc:
        raise DomainError(f"{name}: an intermediate result is not representable as a float at "
                          f"{_inputs(func, args, kwargs)} ({type(exc).__name__}: {exc})") from None
    except (TypeError, ValueError, IndexError, KeyError) as exc:
        # an argument of a type or value no check caught, failing deep inside (NumPy's "truth value of an array is
        # ambiguous" for an array where a name was expected, "All-NaN slice" from a reduction): one line naming
        # the inputs. A call that does not fit the signature stays a TypeError; shape clashes are named_shapes's
        if isinstance(exc, DpcalcError) or any(s in str(exc) for s in _SHAPE_ERRORS) or not _binds(func, args, kwargs):
            raise
        said = " ".join(str(exc).split())
        said = said if len(said) <= 120 else said[:119] + "…"
        raise DomainError(f"{name} cannot be evaluated at {_inputs(func, args, kwargs)} ({type(exc).__name__}: "
                          f"{said})") from exc
    except MemoryError:  # an allocation no estimate caught (the estimates raise before allocating)
        raise DomainError(f"{name}: out of memory at {_inputs(func, args, kwargs)}; use smaller inputs") from None
    if bad == "nan":
        raise DomainError(f"{name} is undefined at {_inputs(func, args, kwargs)} (an indeterminate form in float64, "
                          "such as 0/0 or ∞ − ∞)")
    if bad == "inf" and not getattr(func, "_dpcalc_inf_ok", False):
        raise DomainError(f"{name}: the result overflows float64 at {_inputs(func, args, kwargs)} (these inputs "
                          "lie beyond the range a double can represent)")
    return out


def _binds(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the call fits ``func``'s signature (a wrong keyword or a missing argument is the caller's TypeError)."""
    try:
        _signature(func).bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def _nonfinite(x: Any) -> str | None:
    """``"nan"``, ``"inf"`` or None for a float, a float array, or a tuple of them (NaN wins). In a result object
    (a dataclass) only a NaN counts: its fields document their infinities (``attained``, ``reason``)."""
    if isinstance(x, float):
        return None if math.isfinite(x) else ("nan" if x != x else "inf")
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "fc" or np.isfinite(np.sum(x)):  # one pass in the common case; a huge finite sum
            return None                                          # may overflow: look closer
        if np.isnan(x).any():
            return "nan"
        return "inf" if np.isinf(x).any() else None
    if isinstance(x, tuple):
        found = [_nonfinite(item) for item in x]
        return "nan" if "nan" in found else ("inf" if "inf" in found else None)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        for name in field_names(type(x)):
            value = getattr(x, name)
            kind = type(value)
            if kind is float:  # the common fields, decided here (a call per field costs more)
                if value != value:
                    return "nan"
            elif kind not in _NEVER_NAN and _nonfinite(value) == "nan":
                return "nan"
    return None


#: field types that hold no float to check
_NEVER_NAN = frozenset({str, int, bool, dict, type(None)})


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """A dataclass's field names, in order, kept per class (`dataclasses.fields` rebuilds its tuple on every
    call)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _inputs(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The call's arguments by name for an error message: ``eps=5e-324, delta=1e-05`` (arrays by their shape)."""
    try:
        bound = _signature(func).bind_partial(*args, **kwargs).arguments
    except TypeError:
        return "these inputs"
    parts = []
    for key, value in bound.items():
        if isinstance(value, float | int | np.floating | np.integer) and not isinstance(value, bool):
            big = isinstance(value, int | np.integer) and abs(int(value)) >= 10**300
            parts.append(f"{key}={str(value)[:8]}…({len(str(abs(int(value))))} digits)" if big
                         else f"{key}={float(value):.6g}")
        elif isinstance(value, np.ndarray | list | tuple):
            try:
                arr = np.asarray(value)
                if arr.size == 1 and arr.dtype.kind in "biuf":  # one value broadcast to a grid's shape: the value
                    parts.append(f"{key}={float(arr.reshape(-1)[0]):.6g}")
                else:
                    parts.append(f"{key} of shape {np.shape(value)}")
            except ValueError:
                parts.append(f"{key} (a ragged list)")
        else:  # None too: only the arguments passed are listed
            parts.append(f"{key}={brief(value, 40)}")
    return ", ".join(parts) if parts else "these inputs"


_SHAPE_ERRORS = ("could not be broadcast", "shape mismatch", "non-broadcastable")


@functools.cache
def _signature(func: Callable[..., Any]) -> Any:
    """``inspect.signature(func)``, computed on first use (not at import: the decorators below wrap ~200 functions)."""
    import inspect

    return inspect.signature(func)


@functools.cache
def _scalar_names(func: Callable[..., Any]) -> tuple[str, ...]:
    """The parameters of ``func`` annotated as one number (``float``/``int``, optionally ``| None``)."""
    return tuple(p.name for p in _signature(func).parameters.values() if str(p.annotation) in _SCALAR_ANNOTATIONS)


def named_shapes(func: F) -> F:
    """Decorator: a NumPy broadcasting failure inside ``func`` becomes a one-line `DomainError` naming the
    arguments whose shapes clash (``eps and d: shapes (3,) and (4,) do not broadcast``) instead of NumPy's bare
    "operands could not be broadcast together". Free on success (only a failing call inspects its arguments)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return evaluate(func, args, kwargs)
        except ValueError as exc:
            if isinstance(exc, DomainError) or not any(s in str(exc) for s in _SHAPE_ERRORS):
                raise
            bound = _signature(func).bind_partial(*args, **kwargs)
            shaped: dict[str, Any] = {}
            for name, value in bound.arguments.items():
                if isinstance(value, np.ndarray | list | tuple) or isinstance(value, float | int | np.number):
                    try:
                        shaped[name] = np.broadcast_to(np.empty((), dtype=bool), np.shape(value))  # no copy
                    except ValueError:  # ragged
                        continue
            raise DomainError(shape_clash(shaped)) from None

    return wrapper  # type: ignore[return-value]


_SCALAR_ANNOTATIONS = {"float", "int", "float | None", "int | None"}


def scalar_params(func: F) -> F:
    """Decorator: every argument annotated ``float``/``int`` must be one number; an array of several is refused in
    one line naming it (``q must be a scalar here (got an array of shape (3,))``) instead of a bare TypeError
    from ``float()`` deep inside. Functions that broadcast declare ``ArrayLike`` instead."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        signature = _signature(func)
        bound = signature.bind_partial(*args, **kwargs)
        for name in _scalar_names(func):
            value = bound.arguments.get(name)
            if isinstance(value, np.ndarray | list | tuple):
                try:
                    size = np.size(value)
                except ValueError:  # ragged
                    size = -1
                if size != 1:
                    got = f"an array of shape {np.shape(value)}" if size >= 0 else "a ragged list"
                    raise DomainError(f"{name} must be a scalar here (got {got})")
                bound.arguments[name] = np.asarray(value).reshape(()).item()  # [2.0] or array([2.0]) is the number 2
        return evaluate(func, bound.args, bound.kwargs)

    return wrapper  # type: ignore[return-value]


def elementwise(kernel: Callable[..., float], **named: ArrayLike) -> float | FloatArray:
    """Call a scalar ``kernel(**scalars)`` at every point of the broadcast of the named (validated) arguments.

    The library's convention for scalar kernels (a root finder per point, an accountant): scalar inputs give a
    Python float, array inputs an ndarray of the broadcast shape; shapes that do not broadcast are refused by
    `broadcast` naming the parameters.
    """
    if all(np.ndim(a) == 0 for a in named.values()):
        return float(kernel(**{k: float(np.asarray(a)) for k, a in named.items()}))
    arrays = broadcast(**named)
    out = np.empty(arrays[0].shape)
    for idx in np.ndindex(out.shape):
        out[idx] = kernel(**{k: float(a[idx]) for k, a in zip(named, arrays, strict=True)})
    return out


def shape_clash(named: Mapping[str, ArrayLike]) -> str:
    """The one-line message for arguments whose shapes do not broadcast: the first clashing pair by name."""
    shape: tuple[int, ...] = ()
    seen: list[tuple[str, tuple[int, ...]]] = []
    for name, value in named.items():
        s = np.shape(value)
        try:
            shape = np.broadcast_shapes(shape, s)
        except ValueError:
            other = next((n, t) for n, t in seen if _clash(t, s))
            return f"{other[0]} and {name}: shapes {other[1]} and {s} do not broadcast"
        seen.append((name, s))
    return (f"{', '.join(named)}: shapes {', '.join(str(np.shape(x)) for x in named.values())} do not broadcast "
            f"with each other or with the computation's own grid")


def _clash(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return True
    return False


def text(name: str, value: object) -> str:
    """``value`` if it is a string, else a one-line DomainError naming ``name`` (a method, a unit, a preset id)."""
    if not isinstance(value, str):
        raise DomainError(f"{name} must be a string (got {brief(value)})")
    return value


def choice(name: str, value: object, options: tuple[str, ...], meaning: str = "") -> str:
    """``value`` if it is one of the strings ``options``, else a one-line DomainError naming ``name`` and the
    options (an array, a list or a number where a name is expected included: ``row in (...)`` on an array raised
    NumPy's "truth value of an array is ambiguous")."""
    if not isinstance(value, str) or value not in options:
        quoted = [repr(o) for o in options]
        listed = " or ".join(quoted) if len(quoted) <= 2 else "one of " + ", ".join(quoted)
        raise DomainError(f"{name} must be {listed}{' (' + meaning + ')' if meaning else ''} (got {brief(value)})")
    return value


def seed(name: str, value: object) -> int | list[int]:
    """A random seed: a non-negative integer or a sequence of them (what ``np.random.SeedSequence`` takes)."""
    items = list(value) if isinstance(value, list | tuple | np.ndarray) else [value]
    ints = [int(s) for s in items if isinstance(s, int | np.integer) and not isinstance(s, bool) and s >= 0]
    if not items or len(ints) != len(items):
        raise DomainError(f"{name} must be a non-negative integer or a sequence of them (got {brief(value)})")
    return ints if isinstance(value, list | tuple | np.ndarray) else ints[0]


def finite_result(name: str, value: FloatArray, hint: str) -> FloatArray:
    """Guard against a silent NaN/inf escaping a computation; ``hint`` says which input pushed it there."""
    if not np.all(np.isfinite(value)):
        raise DomainError(f"{name} is not representable as a finite float here: {hint}")
    return value


def scalar_or_array(x: FloatArray) -> float | FloatArray:
    """Return a Python float for 0-d results, the array otherwise (SciPy's convention)."""
    return float(x) if np.ndim(x) == 0 else x


def warn(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the first frame outside dpcalc: the user's call, however deep the library's
    call chain and its decorators (`named_shapes`, `scalar_params`) — a fixed ``stacklevel`` would
    point at a wrapper in this file."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 2 is warn's caller
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level)
