"""Command outputs that are not tables: a figure (``dpcalc plot``) and a document (``dpcalc formulas show``), with
their writers (`dpcalc.cli.output.write` imports this module only for them)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["WRITERS", "Document", "Figure"]


class Figure:
    """A figure to draw: its spec (`dpcalc.plot.spec.FigureSpec`) and the file stem used without --output."""

    def __init__(self, spec: Any, name: str) -> None:
        self.spec, self.name = spec, name


class Document:
    """One structured document: JSON with ``--json``, else its text."""

    def __init__(self, data: dict[str, Any], text: Callable[[], str]) -> None:
        self.data, self.text = data, text


def _warn(messages: list[str]) -> None:
    from dpcalc.report.render import print_warnings

    print_warnings(messages)


def _figure(fig: Figure, given: dict[str, Any], warns: list[str]) -> int:
    from dpcalc.plot import figure as draw

    chosen = draw.format_of(given["output"], given["fmt"])
    target = given["output"] or Path(f"{fig.name}.{chosen}")
    drawn = draw.save(fig.spec, target, fmt=chosen, force=given["force"], width=given["width"], dpi=given["dpi"],
                      font=str(given["font"].value))
    _warn([*warns, *(w for w in drawn.warnings if w not in warns)])
    print(f"wrote {target} ({len(drawn.lines)} lines, {len(drawn.data)} bytes)")
    return 0


def _document(doc: Document, given: dict[str, Any], warns: list[str]) -> int:
    import json

    from dpcalc.files import write_atomic

    content = json.dumps(doc.data, indent=2) + "\n" if given["json_"] else doc.text()
    if given["output"] is not None:
        write_atomic(given["output"], content, given["force"])
    elif not given["json_"] and sys.stdout.isatty():  # a person reading a terminal: lines broken between words
        from dpcalc.report.fit import wrap
        from dpcalc.report.render import terminal_width

        sys.stdout.write("\n".join(wrap(content.rstrip("\n"), terminal_width())) + "\n")
    else:
        sys.stdout.write(content)
    _warn(warns)
    return 0


#: The writer of each output kind: (value, the output options given, captured warnings) -> exit code.
WRITERS: dict[str, Callable[[Any, dict[str, Any], list[str]], int]] = {"figure": _figure, "document": _document}
