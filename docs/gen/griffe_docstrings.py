"""A griffe extension of the API reference (mkdocs.yml: ``extensions``): docstring prose is written for the terminal
and for ``help()``, where ``λ*``, ``T*`` and ``q*sqrt`` are characters, but mkdocstrings reads it as Markdown, where a
pair of them is emphasis. Every such ``*`` outside code spans, doctest lines and indented blocks is escaped
(`render.literal_stars`, the same rule as the hand-written pages)."""

from __future__ import annotations

import os
import sys
from typing import Any

import griffe

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # docs/gen/render.py, beside this file


class LiteralStars(griffe.Extension):
    def on_object(self, *, obj: Any, loader: Any, **kwargs: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is None or "*" not in doc.value:
            return
        lines = doc.value.split("\n")
        doc.value = "\n".join(line if line.lstrip().startswith((">>>", "...")) or line.startswith("    ")
                              else render.literal_stars(line) for line in lines)
