"""The writers of the formats other than the plain table: JSON, CSV, Markdown and LaTeX. Each streams chunks of
rows through `dpcalc.report._chunks.chunks`; imported by `dpcalc.report.render.iter_render` only when one of them
is asked for (the default table needs none of them).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

from dpcalc import __version__
from dpcalc.report._chunks import chunks
from dpcalc.report._exact import json_value
from dpcalc.report._text import join_rows, noop
from dpcalc.report.latex import latex_text, one_epsilon
from dpcalc.report.result import Result

__all__ = ["WRITERS", "iter_csv", "iter_json", "iter_latex", "iter_markdown", "units_of"]


def units_of(result: Result) -> dict[str, str]:
    """``meta.units``: every column's unit, then the result's own entries (always a dict)."""
    if not isinstance(result.units, dict):
        raise TypeError(f"Result.units must be a dict (got {type(result.units).__name__})")
    return {**{c.key: c.unit for c in result.columns if c.unit}, **result.units}


def iter_json(result: Result, advance: Callable[..., None] = noop) -> Iterator[str]:
    """The JSON document in chunks, laid out exactly as ``json.dumps(doc, indent=2)``."""
    import json

    meta = {"formula": result.formula, "units": units_of(result), "dpcalc_version": __version__, **result.meta}
    tail: dict[str, Any] = {"warnings": result.warnings, "meta": meta}
    if result.summary is not None:
        tail["summary"] = {k: json_value(v) for k, v in result.summary.items()}
    if not result.rows:
        yield json.dumps({"rows": [], **tail}, indent=2, allow_nan=False) + "\n"
        return
    keys = [json.dumps(c.key) for c in result.columns]
    lits = ["    {\n      " + keys[0] + ": "] if keys else []
    lits += [f",\n      {k}: " for k in keys[1:]] + ["\n    }"]
    yield '{\n  "rows": [\n'
    for start, cols, _ in chunks(result, "json", advance):
        yield ("" if start == 0 else ",\n") + join_rows(cols, lits, ",\n")
    rest = json.dumps(tail, indent=2, allow_nan=False)
    yield "\n  ],\n" + rest[2:] + "\n"


def to_json(result: Result) -> str:
    return "".join(iter_json(result))


def iter_csv(result: Result, advance: Callable[..., None] = noop) -> Iterator[str]:
    import csv

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.key for c in result.columns])
    yield buf.getvalue()
    lits = ["", *[","] * (len(result.columns) - 1), "\n"]
    for _, cols, plain in chunks(result, "csv", advance):
        if all(plain):  # numbers only: nothing to quote
            yield join_rows(cols, lits)
            continue
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows(zip(*cols, strict=True))
        yield buf.getvalue()


def to_csv(result: Result) -> str:
    return "".join(iter_csv(result))


def _md_cell(text: str) -> str:
    """A table cell's text with its pipes escaped (a ``|`` would end the cell)."""
    return text.replace("|", "\\|")


def iter_markdown(result: Result, advance: Callable[..., None] = noop) -> Iterator[str]:
    yield ("| " + " | ".join(_md_cell(c.header) for c in result.columns) + " |\n"
           + "|" + "|".join(":---" if c.text else "---:" for c in result.columns) + "|\n")
    lits = ["| ", *[" | "] * (len(result.columns) - 1), " |\n"]
    texts = [c.text for c in result.columns]
    for _, cols, _ in chunks(result, "text", advance):
        yield join_rows([[_md_cell(x) for x in col] if text else col for col, text in zip(cols, texts, strict=True)],
                        lits)
    tail = (["", result.note] if result.note else []) + [f"\n> warning: {w}" for w in result.warnings]
    if tail:
        yield "\n".join(tail) + "\n"


def to_markdown(result: Result) -> str:
    return "".join(iter_markdown(result))


def iter_latex(result: Result, advance: Callable[..., None] = noop) -> Iterator[str]:
    if result.latex_float:
        yield _latex_float(result)
        return
    cols = "".join("l" if c.text else "r" for c in result.columns)
    head = " & ".join(one_epsilon(c.latex) or latex_text(c.header) for c in result.columns)
    caption = " ".join((result.title + (f" ({result.note})" if result.note else "")).split())
    formula = " ".join(str(result.formula).split())
    yield (f"% dpcalc {__version__}: {formula}\n% {caption}\n"
           f"\\begin{{tabular}}{{{cols}}}\n\\toprule\n  {head} \\\\\n\\midrule\n")
    lits = ["  ", *[" & "] * (len(result.columns) - 1), " \\\\\n"]
    for _, body, _ in chunks(result, "latex", advance):
        yield join_rows(body, lits)
    yield "\\bottomrule\n\\end{tabular}\n"


def to_latex(result: Result) -> str:
    return "".join(iter_latex(result))


def _latex_float(result: Result) -> str:
    """The LaTeX of ``result`` as a paper's table float (`dpcalc.report.latex.latex_float`; its environment
    and scaling from ``meta["latex_float"]``)."""
    from dpcalc.report.latex import latex_float

    return latex_float(result, **result.meta.get("latex_float", {}))


#: The writer of each format (by `Format` value).
WRITERS: dict[str, Callable[[Result, Callable[..., None]], Iterator[str]]] = {
    "json": iter_json, "csv": iter_csv, "markdown": iter_markdown, "latex": iter_latex}
