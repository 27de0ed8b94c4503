"""Drawing a `FigureSpec` with matplotlib (Agg, headless) to PNG, SVG or PDF.

matplotlib is the optional extra ``plot`` and is imported only here, inside the functions that draw. Without
it, `draw` raises `MissingExtraError` (one line naming the extra to install).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpcalc.errors import DomainError, DpcalcError
from dpcalc.plot.data import Line, lines
from dpcalc.plot.spec import FigureSpec

__all__ = ["DPI", "FONTS", "FORMATS", "INSIDE_LEGEND", "MAX_LEGEND", "MAX_MATH_NESTING", "MIN_TEXT_PT", "PALETTE",
           "STYLE", "WIDTH", "Drawn", "MissingExtraError", "coinciding", "draw", "figure_size", "format_of",
           "legend_order", "save"]

FORMATS = ("png", "svg", "pdf")
#: Colour-blind-safe qualitative palette (Okabe & Ito 2008; Wong, Nature Methods 2011), yellow last.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
#: Line style and marker of each kind of line (the legend also names the kind).
STYLE: dict[str, dict[str, Any]] = {
    "published": {"linestyle": "--", "marker": "x"}, "corrected": {"linestyle": "-", "marker": "o"},
    "disputed": {"linestyle": "-.", "marker": "D"}, "estimate": {"linestyle": ":", "marker": "^"},
    "bound": {"linestyle": (0, (5, 1.5, 1, 1.5)), "marker": "s"}, "verified": {"linestyle": "-", "marker": "."},
    "": {"linestyle": "-", "marker": "."}}
#: More lines than this: a colour scale of the ``by`` parameter instead of a legend entry per line.
MAX_LEGEND = 12
#: Deepest nesting of braces and \left…\right in a label's math. matplotlib's mathtext parser recurses ~40 frames a
#: level and overflows Python's stack from ~23 levels (fewer inside a deep caller): a deeper label is refused first.
MAX_MATH_NESTING = 10
#: Text sizes in points at the figure's printed width (`WIDTH` inches by default): 7 pt at least, as journals ask.
_RC = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7, "xtick.labelsize": 7,
       "ytick.labelsize": 7, "axes.linewidth": 0.6, "lines.linewidth": 1.2, "lines.markersize": 3.5,
       "xtick.major.width": 0.6, "ytick.major.width": 0.6, "legend.handlelength": 2.6, "legend.borderpad": 0.3,
       "legend.labelspacing": 0.25, "svg.hashsalt": "dpcalc", "pdf.compression": 6,
       "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "path"}  # TrueType fonts embedded; SVG text as paths
#: The two text faces of ``--font``: sans (DejaVu Sans, matplotlib's default) or serif (STIX: Times-like text and
#: TeX-like math, both shipped with matplotlib).
FONTS: dict[str, dict[str, Any]] = {
    "sans": {"font.family": "sans-serif", "mathtext.fontset": "dejavusans"},
    "serif": {"font.family": "serif", "font.serif": ["STIXGeneral", "DejaVu Serif"], "mathtext.fontset": "stix"}}
WIDTH, DPI, MIN_TEXT_PT = 3.5, 300, 7.0  # one column of a two-column paper; print resolution; smallest text
INSIDE_LEGEND = 3  # legends of more entries go below the axes (the figure grows by `_LEGEND_ROW` inches an entry)
_LEGEND_ROW = 0.145


class MissingExtraError(DpcalcError):
    """An optional dependency is not installed; the message names the extra that provides it."""


@dataclass(frozen=True)
class Drawn:
    """What `draw` produced: the bytes of the file, the lines drawn and the warnings raised."""

    data: bytes
    fmt: str
    lines: list[Line]
    warnings: list[str]
    artists: int = 0  # Line2D objects on the axes (what a reader sees; equals len(lines))
    size: tuple[float, float] = (0.0, 0.0)  # width and height in inches
    smallest_text: float = 0.0  # points: the smallest text drawn (tick labels, legend, labels, title)
    markers: tuple[str, ...] = ()  # the marker of each line, in drawing order ("" or "None": none)
    legend: tuple[str, ...] = ()  # the legend's entries, top to bottom


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


def _label(plt: Any, text: str, where: str = "") -> str:
    """``text`` if matplotlib's mathtext can parse it. Else: with ``where`` (a user's text, e.g. the title) a
    one-line `DomainError` naming it; without, ``text`` with the ``$`` removed (a catalog symbol). Math nested
    deeper than `MAX_MATH_NESTING` levels is refused before the parser sees it."""
    if "$" not in text:
        return text
    from dpcalc.files import check_nesting

    try:
        check_nesting(where or "label", text, "mathtext", MAX_MATH_NESTING)
    except DomainError as exc:
        if where:
            raise DomainError(f"{where}: matplotlib cannot typeset {text[:60]!r} ({str(exc).split(': ', 1)[1]})"
                              ) from None
        return text.replace("$", "")
    try:
        from matplotlib.mathtext import MathTextParser

        MathTextParser("agg").parse(text)
    except ValueError as exc:
        if where:
            reason = " ".join(str(exc).split("\n")[-1].split())[:160]
            raise DomainError(f"{where}: matplotlib cannot typeset {text[:60]!r} ({reason}); write math between "
                              "$…$ with known commands, or plain text") from None
        return text.replace("$", "")
    return text


def coinciding(drawn: list[Line], log: bool = False, share: float = 0.5) -> list[int]:
    """For each line, the index of an earlier line it lies on (within 0.4 % of the y range at a ``share`` of its
    points, and at two or more), else -1. Lines on another for half their points or more are drawn thinner, over a
    wide translucent band of the earlier one, with shifted markers; lines that touch another at a few points
    are drawn thinner, so the earlier one shows around them."""
    import numpy as np

    ys = [np.log10(np.where(line.y > 0, line.y, np.nan)) if log else line.y for line in drawn]
    finite = np.concatenate([y[np.isfinite(y)] for y in ys]) if ys else np.zeros(0)
    span = float(finite.max() - finite.min()) if finite.size else 0.0
    tol = 0.004 * span if span > 0 else 1e-12
    out = []
    for k, y in enumerate(ys):
        hit = -1
        for j in range(k):
            if len(ys[j]) == len(y) and np.count_nonzero(np.abs(ys[j] - y) <= tol) >= max(2, share * len(y)):
                hit = j
                break
        out.append(hit)
    return out


def _mark_optimum(ax: Any, fig_spec: FigureSpec, line: Line, colour: str) -> str:
    """A star at the line's optimum (minimum or maximum of y); returns the text its legend entry ends with
    (``; $T^* = 9$``): in the legend, optima of neighbouring curves cannot cover each other or a curve."""
    import numpy as np

    y = np.where(np.isfinite(line.y), line.y, np.nan)
    if np.all(np.isnan(y)):
        return ""
    k = int(np.nanargmin(y) if fig_spec.optimum == "min" else np.nanargmax(y))
    ax.scatter([line.x[k]], [line.y[k]], marker="*", s=150, color=colour, edgecolors="black", linewidths=0.7,
               zorder=5)
    return f"; ${fig_spec.optimum_label or 'x^*'} = {line.x[k]:g}$"


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


def _series_key(line: Line) -> tuple[str, str, str]:
    return line.formula, line.kind, line.by[0] if line.by else ""


def legend_order(drawn: list[Line]) -> list[int]:
    """The legend's order of the lines: as drawn, except that the lines of one series swept over ``by`` are listed
    top to bottom as their curves end on the right (ε = 10 above ε = 1 where its curve is above)."""
    import numpy as np

    order = list(range(len(drawn)))
    start = 0
    while start < len(drawn):
        end = start + 1
        key = _series_key(drawn[start])
        while end < len(drawn) and _series_key(drawn[end]) == key:
            end += 1
        if key[2] and end - start > 1:
            ys = np.array([drawn[k].y for k in range(start, end)], dtype=float)
            ok = np.flatnonzero(np.isfinite(ys).all(axis=0))
            if ok.size:
                last = ys[:, ok[-1]]
                order[start:end] = [start + int(j) for j in np.argsort(-last, kind="stable")]
        start = end
    return order


def _legend(ax: Any, fig_spec: FigureSpec, drawn: list[Line]) -> None:
    """One legend entry per line, plus the optimum's star; or, for many lines, a colour scale of ``by``."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if len(handles) == len(drawn):
        order = legend_order(drawn)
        handles, labels = [handles[k] for k in order], [labels[k] for k in order]
    if fig_spec.optimum:
        what = "minimum" if fig_spec.optimum == "min" else "maximum"
        handles.append(Line2D([], [], marker="*", markersize=11, color="0.5", markeredgecolor="black",
                              linestyle="none"))
        labels.append(f"${fig_spec.optimum_label or 'x^*'}$: {what} of each curve")
    if len(labels) > INSIDE_LEGEND:  # below the axes, where it covers no curve
        ax.figure.legend(handles, labels, loc="outside lower center", framealpha=0.9)
    else:
        ax.legend(handles, labels, loc="best", framealpha=0.9)


def figure_size(width: float) -> tuple[float, float]:
    """Width and height in inches: a one-column figure is 4:3, a wider one flatter (the text keeps its size)."""
    if not (isinstance(width, int | float) and 1.0 <= width <= 20.0):
        raise DomainError(f"width must be in [1, 20] inches (got {width!r})")
    return float(width), round(width * (0.78 if width < 5 else 0.62), 3)


def draw(fig_spec: FigureSpec, fmt: str = "png", *, dpi: int = DPI, width: float = WIDTH, font: str = "sans") -> Drawn:
    """Compute and draw ``fig_spec`` ``width`` inches wide (text 7-8 pt at that size) in the ``font`` face
    (`FONTS`); return the encoded file (nothing is written).

    Every label goes through matplotlib's mathtext; a title it cannot typeset is a one-line `DomainError`.
    Warnings matplotlib raises while drawing are returned in `Drawn.warnings`, not shown raw.
    """
    import warnings

    import numpy as np

    if font not in FONTS:
        raise DomainError(f"font must be one of {', '.join(FONTS)} (got {font!r})")
    if not (isinstance(dpi, int) and 20 <= dpi <= 1200):
        raise DomainError(f"dpi must be an integer in [20, 1200] (got {dpi!r})")
    size = figure_size(width)
    plt = _pyplot()
    title = _label(plt, fig_spec.title, "title")  # a title matplotlib cannot typeset: refused before computing
    drawn, messages = lines(fig_spec)
    many = len(drawn) > MAX_LEGEND and all(line.by is not None for line in drawn)
    entries = len(drawn) + bool(fig_spec.optimum)
    if not many and entries > INSIDE_LEGEND:
        size = (size[0], round(size[1] + _LEGEND_ROW * entries + 0.1, 3))
    with plt.rc_context({**_RC, **FONTS[font]}), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        try:
            under = coinciding(drawn, fig_spec.logy)
            touching = coinciding(drawn, fig_spec.logy, share=0.0)
            covered = {j for j in under if j >= 0}
            cmap = plt.get_cmap("cividis")
            values = np.array([line.by[1] if line.by else 0.0 for line in drawn])
            span = (float(values.min()), float(values.max())) if many else (0.0, 1.0)
            for k, line in enumerate(drawn):
                style = STYLE.get(line.kind, STYLE[""])
                n = len(line.x)
                if many:
                    t = 0.0 if span[1] == span[0] else (values[k] - span[0]) / (span[1] - span[0])
                    ax.plot(line.x, line.y, color=cmap(t), linestyle=style["linestyle"], linewidth=0.8)
                    continue
                colour = PALETTE[k % len(PALETTE)]
                every = max(1, n // 12)
                # a kind's marker says what the line is (▲ estimate, × published, ○ corrected …): always drawn
                marker = style["marker"] if n <= 40 or under[k] >= 0 or k in covered or line.kind else ""
                width, alpha = (4.5, 0.35) if k in covered and under[k] < 0 else (1.6, 1.0)
                if touching[k] >= 0 and under[k] < 0:
                    width = 1.0
                shift = (under[k] >= 0) * (1 + k) * max(1, every // 3)
                optimum = _mark_optimum(ax, fig_spec, line, colour) if fig_spec.optimum else ""
                ax.plot(line.x, line.y, label=_label(plt, line.legend + optimum), color=colour,
                        linestyle=style["linestyle"],
                        marker=marker, markevery=(shift % every, every) if n > 24 or under[k] >= 0 else None,
                        markersize=4.5 if under[k] >= 0 else 4, linewidth=width, alpha=alpha,
                        zorder=2 + (under[k] >= 0))
            if fig_spec.logx:
                ax.set_xscale("log")
                _plain_log_ticks(ax.xaxis, [line.x for line in drawn])
            if fig_spec.logy:
                ax.set_yscale("log")
                _plain_log_ticks(ax.yaxis, [line.y for line in drawn])
            ax.set_xlabel(_label(plt, fig_spec.x_label or fig_spec.x))
            ax.set_ylabel(_label(plt, fig_spec.y_label))
            ax.set_title(title, wrap=True)
            ax.grid(True, which="major", alpha=0.3)
            if many:
                from matplotlib.cm import ScalarMappable
                from matplotlib.colors import Normalize

                name = drawn[0].by[0] if drawn[0].by else "by"
                bar = fig.colorbar(ScalarMappable(norm=Normalize(*span), cmap=cmap), ax=ax)
                bar.set_label(f"{name} ({len(drawn)} lines)")
            else:
                _legend(ax, fig_spec, drawn)
            buf = io.BytesIO()
            # no dates in SVG/PDF, so a regenerated figure is byte-identical
            metadata: dict[str, Any] = {"Creator": "dpcalc"}
            metadata.update({"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt, {}))
            fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
            artists = len(ax.get_lines())
            smallest = _smallest_text(fig)
            markers = tuple(str(a.get_marker()) for a in ax.get_lines())
            shown = ax.get_legend() or (fig.legends[0] if fig.legends else None)
            legend = tuple(t.get_text() for t in shown.get_texts()) if shown is not None else ()
        finally:
            plt.close(fig)
    for w in caught:
        text = " ".join(str(w.message).split())
        if text not in messages:
            messages.append(text)
    return Drawn(data=buf.getvalue(), fmt=fmt, lines=drawn, warnings=messages, artists=artists, size=size,
                 smallest_text=smallest, markers=markers, legend=legend)


def _smallest_text(fig: Any) -> float:
    """The size in points of the smallest visible, non-empty text of ``fig``."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return float(min(sizes)) if sizes else 0.0


def save(fig_spec: FigureSpec, path: Path, *, fmt: str | None = None, force: bool = False, dpi: int = DPI,
         width: float = WIDTH, font: str = "sans") -> Drawn:
    """Draw ``fig_spec`` (`draw`) and write it to ``path`` atomically (refusing to overwrite without ``force``)."""
    from dpcalc.files import check_output, write_atomic

    chosen = format_of(path, fmt)
    check_output(path, force)  # before drawing: a refused --output costs nothing
    drawn = draw(fig_spec, chosen, dpi=dpi, width=width, font=font)
    write_atomic(path, drawn.data, force)
    return drawn
