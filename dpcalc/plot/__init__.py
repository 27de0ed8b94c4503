"""Figures: sweeps of catalog formulas and the papers' figures as presets (optional extra ``plot``: matplotlib).

* `dpcalc.plot.spec` — what to draw, as data (presets in ``presets/*.toml``);
* `dpcalc.plot.data` — the numbers behind each line (no matplotlib);
* `dpcalc.plot.figure` — drawing with matplotlib's Agg backend (imported lazily).
"""

from __future__ import annotations

from dpcalc.plot.data import Line, lines
from dpcalc.plot.figure import Drawn, MissingExtraError, draw, save
from dpcalc.plot.spec import FigureSpec, SeriesSpec, Step, by_paper, preset, presets

__all__ = ["Drawn", "FigureSpec", "Line", "MissingExtraError", "SeriesSpec", "Step", "by_paper", "draw", "lines",
           "preset", "presets", "save"]
