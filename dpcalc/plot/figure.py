"""Drawing a :class:`~dpcalc.plot.spec.FigureSpec` with matplotlib (Agg, headless) to PNG, SVG or PDF.

matplotlib is the optional extra ``plot`` and is imported only here, inside the functions that draw. Without
it, :func:`draw` raises :class:`MissingExtraError` (one line naming the extra to install).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpcalc.errors import DpcalcError
from dpcalc.plot.data import Line, lines
from dpcalc.plot.spec import FigureSpec

__all__ = ["FORMATS", "STYLE", "Drawn", "MissingExtraError", "draw", "format_of", "save"]

FORMATS = ("png", "svg", "pdf")
STYLE = {"published": {"linestyle": "--", "marker": "x"}, "corrected": {"linestyle": "-", "marker": "o"},
         "": {"linestyle": "-", "marker": "."}}


class MissingExtraError(DpcalcError):
    """An optional dependency is not installed; the message names the extra that provides it."""


@dataclass(frozen=True)
class Drawn:
    """What :func:`draw` produced: the bytes of the file, the lines drawn and the warnings raised."""

    data: bytes
    fmt: str
    lines: list[Line]
    warnings: list[str]
    artists: int = 0  # Line2D objects on the axes (what a reader sees; equals len(lines))


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError("plotting needs matplotlib: install the 'plot' extra "
                                "(pip install 'dpcalc[plot]')") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def format_of(path: Path | None, fmt: str | None) -> str:
    """The output format: ``fmt`` if given, else the file suffix (default png)."""
    chosen = (fmt or (path.suffix.lstrip(".") if path is not None and path.suffix else "png")).lower()
    if chosen not in FORMATS:
        where = "--format" if fmt else "the --output file's suffix"
        raise DpcalcError(f"{where}: the figure format must be one of {', '.join(FORMATS)} (got {chosen!r})")
    return chosen


def _label(plt: Any, text: str) -> str:
    """``text`` if matplotlib's mathtext can parse it, else with the ``$`` removed."""
    if "$" not in text:
        return text
    try:
        from matplotlib.mathtext import MathTextParser

        MathTextParser("agg").parse(text)
    except ValueError:
        return text.replace("$", "")
    return text


def _plain_log_ticks(axis: Any, data: list[Any]) -> None:
    """On a log axis spanning < 2 decades, label ticks as plain numbers (0.6, 2, 5), not 6×10⁻¹."""
    import numpy as np
    from matplotlib.ticker import FuncFormatter

    values = np.concatenate([np.asarray(d, dtype=float).ravel() for d in data])
    values = values[np.isfinite(values) & (values > 0)]
    if values.size and np.log10(values.max() / values.min()) < 2:
        def plain(v: float, _pos: Any) -> str:
            lead = f"{v:.0e}"[0]  # leading digit: label 1, 2, 3, 5 × 10^k only, so labels never crowd
            return f"{v:g}" if lead in "1235" else ""

        axis.set_major_formatter(FuncFormatter(plain))
        axis.set_minor_formatter(FuncFormatter(plain))


def draw(fig_spec: FigureSpec, fmt: str = "png", *, dpi: int = 110) -> Drawn:
    """Compute and draw ``fig_spec``; return the encoded file (nothing is written)."""
    plt = _pyplot()
    drawn, messages = lines(fig_spec)
    with plt.rc_context({"font.size": 9, "axes.titlesize": 9.5, "legend.fontsize": 8, "svg.hashsalt": "dpcalc",
                         "pdf.compression": 6}):
        fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
        try:
            for k, line in enumerate(drawn):
                style = STYLE[line.kind]
                marker = style["marker"] if len(line.x) <= 40 else ""
                ax.plot(line.x, line.y, label=line.legend, color=f"C{k % 10}", linestyle=style["linestyle"],
                        marker=marker, markersize=4, linewidth=1.6)
            if fig_spec.logx:
                ax.set_xscale("log")
                _plain_log_ticks(ax.xaxis, [line.x for line in drawn])
            if fig_spec.logy:
                ax.set_yscale("log")
                _plain_log_ticks(ax.yaxis, [line.y for line in drawn])
            ax.set_xlabel(_label(plt, fig_spec.x_label or fig_spec.x))
            ax.set_ylabel(_label(plt, fig_spec.y_label))
            ax.set_title(fig_spec.title, wrap=True)
            ax.grid(True, which="major", alpha=0.3)
            ax.legend(loc="best", framealpha=0.9)
            buf = io.BytesIO()
            # no dates in SVG/PDF, so a regenerated figure is byte-identical
            metadata: dict[str, Any] = {"Creator": "dpcalc"}
            metadata.update({"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt, {}))
            fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
            artists = len(ax.get_lines())
        finally:
            plt.close(fig)
    return Drawn(data=buf.getvalue(), fmt=fmt, lines=drawn, warnings=messages, artists=artists)


def save(fig_spec: FigureSpec, path: Path, *, fmt: str | None = None, force: bool = False) -> Drawn:
    """Draw ``fig_spec`` and write it to ``path`` atomically (refusing to overwrite without ``force``)."""
    from dpcalc.files import check_output, write_atomic

    chosen = format_of(path, fmt)
    check_output(path, force)  # before drawing: a refused --output costs nothing
    drawn = draw(fig_spec, chosen)
    write_atomic(path, drawn.data, force)
    return drawn
