"""Write an ``Examples:`` section (doctest form, real output) into the docstring of public functions.

Maintainer tool, run by hand: ``python docs/gen/add_examples.py SPEC.py`` where SPEC.py defines ``EXAMPLES``, a
dict from ``"public.module.name"`` to the example's source (one statement a line; a line that starts with spaces
continues the statement above). Each statement is run as doctest runs it (``compile(..., "single")``, NumPy print
options as in ``tests/docs/test_docstring_examples.py``, warnings as errors), and its printed output is written
below it, long lines wrapped at spaces (the test compares with NORMALIZE_WHITESPACE). A function whose docstring
already has an example is left alone. ``--check`` runs the examples without writing.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import runpy
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np

WIDTH = 120


def statements(source: str) -> list[str]:
    """The example's statements: a line starting with whitespace continues the one above."""
    out: list[str] = []
    for line in textwrap.dedent(source).strip("\n").splitlines():
        if line[:1].isspace() and out:
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def run(stmts: list[str], globs: dict[str, Any]) -> list[tuple[str, str]]:
    """(statement, printed output) pairs, run as doctest runs them."""
    out = []
    for stmt in stmts:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("error")
            code = compile(stmt + ("\n" if "\n" in stmt else ""), "<example>", "single")
            exec(code, globs)
        out.append((stmt, buffer.getvalue()))
    return out


def wrap(line: str, indent: str) -> list[str]:
    """An output line cut at spaces so each piece fits in WIDTH columns after ``indent``."""
    room = WIDTH - len(indent)
    if len(line) <= room:
        return [line]
    pieces = textwrap.wrap(line, room, break_long_words=False, break_on_hyphens=False)
    return pieces or [line]


def section(import_line: str, pairs: list[tuple[str, str]], indent: str) -> list[str]:
    """The docstring lines of the Examples section."""
    lines = ["", indent + "Examples:", indent + "    >>> " + import_line]
    inner = indent + "    "
    for stmt, output in pairs:
        first, *rest = stmt.splitlines()
        lines.append(inner + ">>> " + first)
        lines.extend(inner + "... " + r.strip("\n") for r in rest)
        if rest:
            lines.append(inner + "...")
        for out_line in output.rstrip("\n").splitlines() if output.strip() else []:
            if not out_line.strip():
                lines.append(inner + "<BLANKLINE>")
                continue
            lines.extend(inner + piece for piece in wrap(out_line, inner))
    return lines


def insert(func: Any, lines_for: Any) -> None:
    """Insert ``lines_for(indent)`` at the end of ``func``'s docstring in its source file."""
    func = inspect.unwrap(func)
    path = Path(func.__code__.co_filename)
    text = path.read_text().splitlines(keepends=True)
    first = func.__code__.co_firstlineno
    # earlier insertions in this file moved it down: the def of this name nearest to (at or after) its old line
    node = min((n for n in ast.walk(ast.parse("".join(text))) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                and n.name == func.__name__ and n.lineno >= first), key=lambda n: n.lineno)
    doc = node.body[0]
    assert isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant), func
    indent = " " * doc.col_offset
    end = (doc.end_lineno or doc.lineno) - 1
    close = text[end].rstrip("\n").rstrip()
    quote, body = close[-3:], close[:-3]
    text[end] = body + "\n" if body.strip() else ""
    text[end] += "".join((line.rstrip() + "\n") for line in lines_for(indent)) + indent + quote + "\n"
    path.write_text("".join(text))


def main(argv: list[str]) -> int:
    np.set_printoptions(legacy="1.25")
    spec = runpy.run_path(argv[0])["EXAMPLES"]
    check = "--check" in argv
    failures = 0
    for dotted, source in spec.items():
        module_name, name = dotted.rsplit(".", 1)
        module = importlib.import_module(module_name)
        func = getattr(module, name)
        if ">>>" in (func.__doc__ or ""):
            continue
        import_line = f"from {module_name} import {name}"
        globs: dict[str, Any] = {}
        exec(import_line, globs)
        try:
            pairs = run(statements(source), globs)
        except Exception as exc:  # report and go on: the spec is fixed by hand
            failures += 1
            print(f"{dotted}: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
            continue
        if check:
            for stmt, output in pairs:
                print(f"{dotted}: >>> {stmt}\n{output}", end="")
            continue
        insert(func, lambda indent, i=import_line, p=pairs: section(i, p, indent))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
