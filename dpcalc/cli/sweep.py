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

import itertools
import math
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dpcalc._limits import LimitError
from dpcalc.errors import DpcalcError
from dpcalc.report.render import Column, Format, Result

if TYPE_CHECKING:
    from dpcalc.cli.declare import Args, Command

__all__ = ["MAX_SPLIT_POINTS", "REASON", "SPLIT_SECONDS", "Failure", "after_failure", "merge", "not_computable",
           "split", "varying"]

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
    pieces = split(cmd, args, exc, explain)
    results = [p for p in pieces if isinstance(p, Result)]
    if not results or (len(results) > 1 and any(r.summary for r in results)):
        raise exc
    return merge(pieces, args)


def split(cmd: Command, args: Args, exc: DpcalcError, explain: Any = str) -> list[Result | Failure]:
    """The pieces of a grid whose body failed with ``exc``, in row order: the results of the parts that run and the
    points that fail (within `SPLIT_SECONDS`, else a one-line `LimitError`)."""
    deadline = time.perf_counter() + SPLIT_SECONDS
    return list(_bisect(cmd, args, list(args.axes()), exc, explain, deadline))


def _bisect(cmd: Command, args: Args, names: list[str], error: DpcalcError, explain: Any, deadline: float,
            taken: frozenset[str] = frozenset()) -> Iterator[Result | Failure]:
    """The pieces of a grid whose body failed with ``error``: results of the parts that run, failures of points.

    Values outside their input's declared domain (`Args.outside`) are separated before anything is halved: an
    input whose every value is outside fails every point (one call, on one point, for the reason); along the first
    input with several values, each run of values inside is one call and each value outside one call on one point.
    A bad value among 3,000 thus costs one call, not a bisection of reruns. ``taken``: inputs whose values outside
    the declared domain the body was found to accept (μ = 0 where the catalog says μ > 0)."""
    every = next((n for n in names if n not in taken and all(args.outside(n))), None)
    if every is not None:
        yield from _outside(cmd, args, names, explain, deadline, taken | {every})
        return
    halved = next((n for n in names if len(args[n]) > 1), None)
    if halved is None:
        yield Failure({n: args[n][0] for n in names}, explain(error))
        return
    values = args[halved]
    bad = [False] * len(values) if halved in taken else args.outside(halved)
    if any(bad):
        for out, run in itertools.groupby(zip(values, bad, strict=True), key=lambda pair: pair[1]):
            part = [value for value, _ in run]
            if out:
                for value in part:
                    yield from _outside(cmd, args.replace(**{halved: [value]}), names, explain, deadline,
                                        taken | {halved})
            else:
                yield from _run(cmd, args.replace(**{halved: part}), names, explain, deadline, taken)
        return
    for part in (values[:len(values) // 2], values[len(values) // 2:]):
        if time.perf_counter() > deadline:
            raise LimitError(f"{explain(error)} — and separating the rows outside the domain from the others would "
                             f"take over {SPLIT_SECONDS:g} s; narrow the sweep to its computable part")
        yield from _run(cmd, args.replace(**{halved: part}), names, explain, deadline, taken)


def _run(cmd: Command, sub: Args, names: list[str], explain: Any, deadline: float, taken: frozenset[str]
         ) -> Iterator[Result | Failure]:
    try:
        yield cmd.body(sub)
    except LimitError:
        raise
    except DpcalcError as exc:
        yield from _bisect(cmd, sub, names, exc, explain, deadline, taken)


def _outside(cmd: Command, sub: Args, names: list[str], explain: Any, deadline: float, taken: frozenset[str]
             ) -> Iterator[Result | Failure]:
    """The points of ``sub``, each with a value outside its input's declared domain: the body's refusal of the first
    point is every point's reason; if the body takes that point after all, the part runs as usual (``taken``: the
    inputs so found acceptable)."""
    try:
        cmd.body(sub.replace(**{n: sub[n][:1] for n in names}))
    except LimitError:
        raise
    except DpcalcError as exc:
        reason = explain(exc)
        for point in itertools.product(*(sub[n] for n in names)):
            yield Failure(dict(zip(names, point, strict=True)), reason)
        return
    yield from _run(cmd, sub, names, explain, deadline, taken)


def varying(args: Args) -> list[str]:
    """The sweep's inputs that take several values (each is a column of the merged result)."""
    return [n for n, v in args.axes().items() if len(v) > 1]


def not_computable(failed: int, rows: int, reasons: list[str]) -> str:
    """The note on the rows outside the domain: how many, and the first reason (the others are in JSON)."""
    others = len(set(reasons)) - 1
    return (f"Not computable (—): {failed} of {rows} rows: {reasons[0]}"
            + (f" (and {others} other reason(s), in the JSON field '{REASON}')" if others else ""))


def merge(pieces: list[Result | Failure], args: Args, inputs: list[str] | None = None) -> Result:
    """One result from the pieces of a sweep, in grid order: the computed rows and the failures (module doc), the
    union of the parts' columns, every input of ``inputs`` (default: those of ``args`` with several values) a
    column. Without failures, parts whose rows are all column-stored stay column-stored."""
    results = [p for p in pieces if isinstance(p, Result)]
    failures = [p for p in pieces if isinstance(p, Failure)]
    varying_ = varying(args) if inputs is None else inputs
    base = results[0]
    columns = _with_inputs(_union([r.columns for r in results]), varying_, args, base.formula)
    meta = dict(base.meta)
    if isinstance(meta.get("inputs"), dict):  # the fixed inputs of a part are not fixed over the sweep
        meta["inputs"] = {k: v for k, v in meta["inputs"].items() if k not in varying_}
    warnings = [w for r in results for w in r.warnings]
    note = base.note
    exit_code = max(r.exit_code for r in results)
    if not failures:
        return base.replace(columns=columns, rows=_concat(results), note=note, warnings=list(dict.fromkeys(warnings)),
                            meta=meta, exit_code=exit_code)
    rows: list[dict[str, Any]] = []
    for piece in pieces:
        if isinstance(piece, Result):
            rows.extend(dict(r) for r in piece.rows)
        else:
            row: dict[str, Any] = {c.key: None for c in columns}
            for name, value in piece.point.items():
                row.update(dict.fromkeys(args.row_keys(name), value))
            rows.append({**row, REASON: piece.reason})
    meta["not_computable"] = len(failures)
    said = not_computable(len(failures), len(failures) + sum(len(r.rows) for r in results),
                          [f.reason for f in failures])
    if args.format is Format.json:
        columns.append(Column(REASON, REASON, REASON, text=True))
    elif args.format is Format.csv:
        warnings.append(said)
    return base.replace(columns=columns, rows=[{REASON: None, **r} for r in rows], note=f"{note} {said}".strip(),
                        warnings=list(dict.fromkeys(warnings)), meta=meta, exit_code=exit_code)


def _with_inputs(columns: list[Column], names: list[str], args: Args, formula: str | list[str]) -> list[Column]:
    """An input that varies over the sweep is a column, even if fixed in every part (a command may show only the
    inputs that vary in its grid): each one missing is inserted after the input before it, as the catalog declares
    it (symbol, unit, integer) in the result's formula, else under its option's name."""
    from dpcalc.errors import DomainError
    from dpcalc.report.columns import column

    out, at = list(columns), 0
    for name in names:
        found = next((i for i, c in enumerate(out) if c.key in args.row_keys(name)), None)
        if found is not None:
            at = found + 1
            continue
        made = Column(name, args.option(name).lstrip("-"), name)
        for fid in [formula] if isinstance(formula, str) else formula:
            try:
                made = column(fid, name)
                break
            except DomainError:  # not an input of this formula (or no formula)
                continue
        out.insert(at, made)
        at += 1
    return out


def _concat(results: list[Result]) -> Any:
    """The rows of the results one after another: column-stored when every part is, with the same keys."""
    from dpcalc.report.grid import Rows

    if len(results) == 1:
        return results[0].rows
    stored = [r.rows for r in results if isinstance(r.rows, Rows)]
    first = stored[0] if stored else None
    if first is None or len(stored) < len(results) or any(
            (p.data.keys(), p.texts.keys(), p.constants, p.missing)
            != (first.data.keys(), first.texts.keys(), first.constants, first.missing) for p in stored):
        return [dict(row) for r in results for row in r.rows]
    import numpy as np

    rows = Rows({k: np.concatenate([p.data[k] for p in stored]) for k in first.data}, first.constants, first.missing)
    texts = {k: [t for p in stored for t in p.texts[k]] for k in first.texts}
    return rows.with_texts(**texts) if texts else rows


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
