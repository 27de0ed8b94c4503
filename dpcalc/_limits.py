"""Resource limits shared by every command and library routine: a row cap and a user-settable memory cap.

Anything that allocates in proportion to its input (a sweep grid, a Rényi-order grid, a composition over
many rounds, a PLD) estimates its peak bytes first and calls `check_memory`, which raises a one-line
`DomainError` *before* allocating. The cap is, in order of precedence, the root option
``dpcalc --max-memory 2G …``, the environment variable ``DPCALC_MAX_MEMORY``, or `DEFAULT_MAX_MEMORY`.
Sizes are written ``500M``, ``2G``, ``1.5GiB`` or a plain number of bytes.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from dpcalc.errors import DomainError

__all__ = ["DEFAULT_MAX_MEMORY", "ENV_VAR", "MAX_ROWS", "MAX_SECONDS", "LimitError", "charge", "check_memory",
           "check_points", "check_rows", "check_seconds", "human", "max_memory", "parse_size", "set_max_memory",
           "work_budget"]

DEFAULT_MAX_MEMORY = 2 * 1024**3
"""Default cap on one computation's working memory: 2 GiB."""

MAX_ROWS = 10_000_000
"""Most rows one sweep (the product of every option's values) may have."""

ENV_VAR = "DPCALC_MAX_MEMORY"

MAX_SECONDS = 60.0
"""Most estimated work (seconds) one command starts; more is refused in one line before any work."""


class LimitError(DomainError):
    """The work or memory a call would need exceeds a cap: the whole call is refused (not one point of a sweep)."""


_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1000, "kib": 1024, "m": 1024**2, "mb": 1000**2, "mib": 1024**2,
          "g": 1024**3, "gb": 1000**3, "gib": 1024**3, "t": 1024**4, "tb": 1000**4, "tib": 1024**4}
_override: int | None = None


def parse_size(text: str, option: str = "--max-memory") -> int:
    """``"500M"`` → 524288000 bytes (K/M/G/T are binary; KB/MB/GB/TB decimal; KiB/MiB/GiB/TiB binary)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNITS:
        raise DomainError(f"{option} must be a size such as 500M, 2G or 1e9 (got {text!r})")
    value = float(m.group(1)) * _UNITS[unit]
    if not math.isfinite(value) or value < 1024**2:
        raise DomainError(f"{option} must be at least 1M (got {text!r})")
    return int(min(value, 2.0**62))


def set_max_memory(text: str | None) -> None:
    """Set (or with None clear) the process-wide cap; the CLI calls this for ``--max-memory``."""
    global _override
    _override = None if text is None else parse_size(text)


def max_memory() -> int:
    """The memory cap in bytes now in force."""
    if _override is not None:
        return _override
    env = os.environ.get(ENV_VAR)
    if env:
        return parse_size(env, ENV_VAR)
    return DEFAULT_MAX_MEMORY


def human(nbytes: float) -> str:
    """``3.2 GiB``-style size."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    return f"{nbytes:.3g} EiB"  # pragma: no cover


def check_memory(what: str, nbytes: float, hint: str = "") -> None:
    """Raise a one-line DomainError if ``nbytes`` (an estimate of peak memory) exceeds the cap.

    ``what`` names the parameter(s) responsible, e.g. ``"--orders (1e9 values)"``; ``hint`` says how to shrink it.
    """
    cap = max_memory()
    if not nbytes <= cap:  # also catches NaN
        tail = f"; {hint}" if hint else ""
        need = f"about {human(nbytes)}" if math.isfinite(nbytes) else "an unbounded amount"
        raise LimitError(f"{what} would need {need} of memory, over the cap of {human(cap)} "
                          f"(raise it with --max-memory or {ENV_VAR}){tail}")


def check_rows(what: str, rows: float, bytes_per_row: float = 0.0) -> None:
    """Raise if a sweep of ``rows`` rows exceeds `MAX_ROWS` or (at ``bytes_per_row``) the memory cap."""
    if not rows <= MAX_ROWS:
        raise LimitError(f"{what} gives {rows:.4g} rows (the product of the values of every option); at most "
                          f"{MAX_ROWS:,} rows per call")
    if bytes_per_row:
        check_memory(what, rows * bytes_per_row, "use fewer values per option")


def check_points(what: str, points: float, most: int, each: str) -> None:
    """Raise a one-line DomainError before computing if a grid whose every point is expensive (``each`` says what
    one point costs, e.g. "five accountants and their calibrations, ~0.3 s") has more than ``most`` points."""
    if not points <= most:
        raise LimitError(f"{what} gives {points:.4g} grid points; at most {most:,} per call here (each point runs "
                          f"{each}) — use fewer values")


def check_seconds(what: str, seconds: float, each: str = "") -> None:
    """Raise a one-line `LimitError` before any work if its estimate ``seconds`` exceeds `MAX_SECONDS`.

    ``what`` names the options responsible (``"--eps (1e6 values)"``); ``each`` what one unit of work costs.
    """
    if not seconds <= MAX_SECONDS:  # also catches NaN
        cost = f"{seconds / 60:.3g} min" if math.isfinite(seconds) else "an unbounded time"
        tail = f" ({each})" if each else ""
        raise LimitError(f"{what} would take about {cost} of work{tail}; at most {MAX_SECONDS / 60:g} min per call "
                         "— use fewer values or a smaller range")


_budget: ContextVar[list[float] | None] = ContextVar("dpcalc_work_budget", default=None)  # [left, total] seconds
_budget_what: ContextVar[str] = ContextVar("dpcalc_work_budget_what", default="")


@contextmanager
def work_budget(what: str, seconds: float = MAX_SECONDS) -> Iterator[None]:
    """Within this block, work that counts its operations (`charge`) may spend at most ``seconds``; ``what`` names
    the options responsible. Nested blocks share the outer budget."""
    if _budget.get() is not None:
        yield
        return
    token, token_what = _budget.set([float(seconds), float(seconds)]), _budget_what.set(what)
    try:
        yield
    finally:
        _budget.reset(token)
        _budget_what.reset(token_what)


def charge(seconds: float, each: str) -> None:
    """Book ``seconds`` (counted operations × their declared cost) against the `work_budget` in force, *before*
    doing that work; a one-line `LimitError` when it would exceed the budget (no-op outside a budget)."""
    left = _budget.get()
    if left is None:
        return
    if not seconds <= left[0]:  # also catches NaN
        spent = left[1] - left[0]
        raise LimitError(f"{_budget_what.get()} would take over {left[1] / 60:.3g} min of counted work ({spent:.3g} s "
                         f"done, the next part {seconds:.3g} s: {each}); at most {left[1] / 60:.3g} min per call — use "
                         "fewer values or a smaller range")
    left[0] -= seconds
