"""A sweep that crosses a formula's domain edge: the rows that exist, the others shown as not computable.

When the body of a declared table command refuses its inputs
(a `DpcalcError`) and more than one grid point was asked for, the grid is split — always the
first option (in declaration order) that still has several values, so the pieces stay in row order — and each half
is run again, down to the single points that fail. The rows that were computed are kept; a failing point becomes a
row whose inputs are shown and whose results are empty: ``—`` in a table with the reason once in the note, ``null``
plus a ``reason`` field in JSON, empty cells in CSV (the reason on stderr). The command exits 0 if any row was
computed; when none was, or when a single point was asked for, it fails with the body's one-line error (exit 2).

Not split: a refused amount of work or memory (`LimitError` — smaller pieces would only
run the refused work in parts), a result with a summary (a summary of a part is not the summary of the sweep),
and grids of more than `MAX_SPLIT_POINTS` points (the first error is reported instead).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dpcalc._limits import LimitError
from dpcalc.errors import DpcalcError
from dpcalc.report.render import Column, Format, Result

if TYPE_CHECKING:
    from dpcalc.cli.command import Args, Command

__all__ = ["MAX_SPLIT_POINTS", "REASON", "SPLIT_SECONDS", "Failure", "after_failure"]

MAX_SPLIT_POINTS = 10_000
"""Largest grid whose points outside the domain are separated (each split reruns the body on a part)."""

SPLIT_SECONDS = 30.0
"""Most time spent separating the rows (the split reruns the body on parts); then the first error is reported."""

REASON = "reason"
"""The JSON field (and row key) that says why a row is not computable."""


class Failure:
    """A grid point the body refused: its inputs (by library name) and the one-line reason."""

    def __init__(self, point: dict[str, float], reason: str) -> None:
        self.point, self.reason = point, reason


def after_failure(cmd: Command, args: Args, exc: DpcalcError, explain: Any = str) -> Any:
    """The body failed with ``exc`` on ``args``: for a table sweep crossing a domain edge, the merged rows of its
    parts (module doc); else ``exc`` is raised again. ``explain(exc)`` is the message shown for an error (the
    command line's option names). Imported only after a failure: the start-up path does not load this module."""
    axes = args.axes()
    points = math.prod(len(v) for v in axes.values())
    if isinstance(exc, LimitError) or cmd.output != "table" or not 1 < points <= MAX_SPLIT_POINTS:
        raise exc
    deadline = time.perf_counter() + SPLIT_SECONDS
    pieces = list(_bisect(cmd, args, list(axes), exc, explain, deadline))
    results = [p for p in pieces if isinstance(p, Result)]
    if not results or (len(results) > 1 and any(r.summary for r in results)):
        raise exc
    return _merge(pieces, results, args)


def _bisect(cmd: Command, args: Args, names: list[str], error: DpcalcError, explain: Any, deadline: float
            ) -> Iterator[Result | Failure]:
    """The pieces of a grid whose body failed with ``error``: results of the parts that run, failures of points."""
    split = next((n for n in names if len(args[n]) > 1), None)
    if split is None:
        yield Failure({n: args[n][0] for n in names}, explain(error))
        return
    values = args[split]
    for part in (values[:len(values) // 2], values[len(values) // 2:]):
        if time.perf_counter() > deadline:
            raise LimitError(f"{explain(error)} — and separating the rows outside the domain from the others would "
                             f"take over {SPLIT_SECONDS:g} s; narrow the sweep to its computable part")
        sub = args.replace(**{split: part})
        try:
            yield cmd.body(sub)
        except LimitError:
            raise
        except DpcalcError as exc:
            yield from _bisect(cmd, sub, names, exc, explain, deadline)


def _merge(pieces: list[Result | Failure], results: list[Result], args: Args) -> Result:
    """One result: the computed rows and the failures in grid order, the union of the parts' columns."""
    columns = _union([r.columns for r in results])
    varying = [n for n, v in args.axes().items() if len(v) > 1]
    keys = {c.key for c in columns}
    for name in reversed(varying):  # an input that varies over the sweep is a column, even if fixed in every part
        if not keys & set(args.row_keys(name)):
            columns.insert(0, Column(name, args.option(name).lstrip("-"), name))
    rows: list[dict[str, Any]] = []
    failures = [p for p in pieces if isinstance(p, Failure)]
    for piece in pieces:
        if isinstance(piece, Result):
            rows.extend(dict(r) for r in piece.rows)
        else:
            row: dict[str, Any] = {c.key: None for c in columns}
            for name, value in piece.point.items():
                row.update(dict.fromkeys(args.row_keys(name), value))
            rows.append({**row, REASON: piece.reason})
    base = results[0]
    meta = dict(base.meta)
    if isinstance(meta.get("inputs"), dict):  # the fixed inputs of a part are not fixed over the sweep
        meta["inputs"] = {k: v for k, v in meta["inputs"].items() if k not in varying}
    meta["not_computable"] = len(failures)
    first = failures[0].reason
    others = len({f.reason for f in failures}) - 1
    said = (f"Not computable (—): {len(failures)} of {len(failures) + sum(len(r.rows) for r in results)} rows: "
            f"{first}" + (f" (and {others} other reason(s), in the JSON field "
                                                         f"'{REASON}')" if others else ""))
    warnings = [w for r in results for w in r.warnings]
    if args.format is Format.json:
        columns.append(Column(REASON, REASON, REASON, text=True))
    elif args.format is Format.csv:
        warnings.append(said)
    return base.replace(columns=columns, rows=[{REASON: None, **r} for r in rows],
                        note=f"{base.note} {said}".strip(), warnings=list(dict.fromkeys(warnings)), meta=meta,
                        exit_code=max(r.exit_code for r in results))


def _union(lists: list[list[Column]]) -> list[Column]:
    """The columns of every part, in their order (a column missing from the first inserted after its neighbour)."""
    out = list(lists[0])
    for cols in lists[1:]:
        out = list(cols) if len(cols) > len(out) else out
    for cols in lists:
        for i, c in enumerate(cols):
            if all(c.key != o.key for o in out):
                before = next((j for j, o in enumerate(out) if i and o.key == cols[i - 1].key), -1)
                out.insert(before + 1, c)
    return out
