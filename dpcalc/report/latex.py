"""LaTeX text and numbers for the LaTeX writer (`dpcalc.report.formats`) and the catalog columns' LaTeX
headers: imported only when LaTeX is written or a header needs escaping (the table path needs none of it).

* `latex_text` — plain (possibly Unicode) text as LaTeX that compiles with pdflatex;
* `latex_number` / `latex_cell` — one cell: numbers in math mode, ``$1.5 \\times 10^{-5}$``;
* `latex_numbers` — a chunk of text-format numbers in math mode at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc._validate import brief
from dpcalc.errors import DomainError
from dpcalc.report._text import DEFAULT_NUMBER, NONE_TEXT, clean, text_cell

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["FLOATS", "NUMBERS", "SCALES", "latex_caption", "latex_float", "latex_text", "one_epsilon", "paper_number"]

def latex_number(value: Any, integer: bool = False, number: str = "") -> str:
    """A number in math mode: ``$1.5 \\times 10^{-5}$``, ``$-\\infty$``; ``--`` for no value or NaN."""
    s = text_cell(value, integer, number)
    if s == NONE_TEXT:
        return "--"
    if s in ("inf", "-inf"):
        return f"${'-' if s[0] == '-' else ''}\\infty$"
    if s in ("nan", "-nan"):
        return "--"
    if "e" in s:
        mant, exp = s.split("e")
        return f"${mant} \\times 10^{{{int(exp)}}}$"
    return f"${s}$"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma sigma tau "
          "upsilon phi chi psi omega").split()
_LATEX_UNICODE: dict[str, str] = {
    **{chr(0x3B1 + i): f"$\\{name}$" for i, name in enumerate(_GREEK) if name != "omicron"},
    "ο": "o", "ς": r"$\varsigma$", "ϵ": r"$\epsilon$", "ε": r"$\varepsilon$",
    "Γ": r"$\Gamma$", "Δ": r"$\Delta$", "Θ": r"$\Theta$", "Λ": r"$\Lambda$", "Ξ": r"$\Xi$", "Π": r"$\Pi$",
    "Σ": r"$\Sigma$", "Φ": r"$\Phi$", "Ψ": r"$\Psi$", "Ω": r"$\Omega$", "Υ": r"$\Upsilon$",
    **{ch: f"\\textsuperscript{{{d}}}" for d, ch in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")},
    **{ch: f"\\textsubscript{{{d}}}" for d, ch in enumerate("₀₁₂₃₄₅₆₇₈₉")},
    "⁻": r"\textsuperscript{-}", "ᵀ": r"\textsuperscript{T}", "*": "*",
    **{ch: f"\\textsuperscript{{{c}}}" for c, ch in zip("inT+", "ⁱⁿᵀ⁺", strict=True)},
    **{ch: f"\\textsubscript{{{c}}}" for c, ch in zip("aehijklmnoprstux+-", "ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤₓ₊₋", strict=True)},
    "∝": r"$\propto$", "⇒": r"$\Rightarrow$", "⇔": r"$\Leftrightarrow$",
    "√": r"$\surd$", "‖": r"$\|$", "≤": r"$\leq$", "≥": r"$\geq$", "×": r"$\times$", "·": r"$\cdot$",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "→": r"$\to$", "←": r"$\leftarrow$", "∞": r"$\infty$",
    "∑": r"$\sum$", "≈": r"$\approx$", "±": r"$\pm$", "≠": r"$\neq$", "∈": r"$\in$", "′": "'", "°": r"$^\circ$",
    "‰": r"\textperthousand{}", "µ": r"$\mu$", "ℓ": r"$\ell$", "∂": r"$\partial$", "∇": r"$\nabla$",
    "⌈": r"$\lceil$", "⌉": r"$\rceil$", "⌊": r"$\lfloor$", "⌋": r"$\rfloor$", "̂": "", "̄": "",
    "̃": "", "̇": "",
}


def one_epsilon(tex: str) -> str:
    """``\\epsilon`` as ``\\varepsilon``: one ε in headers, as in captions (`latex_text` writes ε so)."""
    if not isinstance(tex, str):
        raise DomainError(f"tex must be a string (got {brief(tex)})")
    return re.sub(r"\\epsilon(?![A-Za-z])", r"\\varepsilon", tex)


def latex_text(text: str) -> str:
    """Plain (possibly Unicode) text as LaTeX that compiles with pdflatex: specials escaped, Greek letters,
    super/subscript digits and common symbols converted; anything else reduced to ASCII (accents dropped) or ``?``.
    """
    import unicodedata

    out = []
    for ch in str(text).replace("\r", " ").replace("\n", " "):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch if ch.isprintable() else " ")
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        else:
            ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append("".join(_LATEX_SPECIAL.get(c, c) for c in ascii_ if c.isprintable()) or "?")
    return "".join(out)


def latex_cell(value: Any, integer: bool = False, number: str = "") -> str:
    """A LaTeX body cell: numbers in math mode (`latex_number`), text escaped by `latex_text`."""
    v = clean(value, integer)
    if v is None:
        return "--"
    if isinstance(v, int | float) and not isinstance(v, bool):
        return latex_number(v, integer, number)
    return latex_text(str(v))


_LATEX_EXP = re.compile(r"e(?:\+|(-))0*(\d+)")  # "e-05" → "-5", "e+20" → "20", "e+00" → "0" (= int(exp))


def latex_numbers(strs: list[str], a: NDArray[np.float64]) -> list[str]:
    """Text-format numbers in math mode (as `latex_number`), one regular expression over the chunk."""
    if not strs:
        return []
    joined = "$" + "$\n$".join(strs) + "$"
    out = _LATEX_EXP.sub(r" \\times 10^{\1\2}", joined).split("\n")
    odd = ~np.isfinite(a)
    for i in np.flatnonzero(odd).tolist():
        out[i] = "--" if math.isnan(a[i]) else ("$\\infty$" if a[i] > 0 else "$-\\infty$")
    return out


# ------------------------------------------------------------------------------------------ paper tables

#: Float environments and scalings of `latex_float` (``dpcalc table --float``, ``--scale``).
FLOATS = ("table", "table*")
SCALES = ("auto", "none", "small", "footnotesize", "fit")
#: Number typesetting of `latex_float` (``dpcalc table --numbers``): math-mode cells that compile with any LaTeX
#: (``plain``), or siunitx ``S`` columns aligned on the decimal marker (``siunitx``; needs ``\usepackage{siunitx}``).
NUMBERS = ("plain", "siunitx")
#: A scientific column shares one power of ten (in its header) when its values span at most this many decades.
SHARED_SPAN = 2
_MATH_UNICODE = {ch: tex.strip("$") for ch, tex in _LATEX_UNICODE.items() if tex.startswith("$")}
_ASSIGNMENT = re.compile(r"(?<![\w$\\])([A-Za-z\u0370-\u03ff](?:_\w+)?)\s*=\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
                         r"(?![\w.])")
_NUMBER_FORMAT = re.compile(r"^(?:\.\d{1,2}[efg])?$")
_HEADER = re.compile(r"^(?P<symbol>.*?)(?: \((?P<unit>.*)\))?(?P<published> \[published\])?$")


_QUOTED = re.compile(r"(?<![\w])['\"](?=\S)([^'\"\n]*?\S)['\"](?![\w])")


def latex_caption(text: str) -> str:
    """A caption or note as LaTeX: `latex_text`, with each assignment ``N = 10``, ``ε = 5`` set as math
    (``$N = 10$``, ``$\\varepsilon = 5$``) rather than as words and digits, and quotes as TeX quotes
    (``'+'`` → ````+''``)."""
    if not isinstance(text, str):
        raise DomainError(f"caption must be text (got {brief(text)})")
    out, last = [], 0
    for m in _QUOTED.finditer(text):
        out += [_caption(text[last:m.start()]), f"``{_caption(m.group(1))}''"]
        last = m.end()
    return "".join([*out, _caption(text[last:])])


def _caption(text: str) -> str:
    out, last = [], 0
    for m in _ASSIGNMENT.finditer(text):
        name, value = m.group(1), m.group(2)
        head, _, sub = name.partition("_")
        symbol = _MATH_UNICODE.get(head, head) + (f"_{{\\mathrm{{{sub}}}}}" if sub else "")
        out += [latex_text(text[last:m.start()]), f"${symbol} = {_math_number(value)}$"]
        last = m.end()
    out.append(latex_text(text[last:]))
    return "".join(out)


def _math_number(s: str) -> str:
    """``1e-05`` → ``10^{-5}``, ``1.5e+20`` → ``1.5 \\times 10^{20}``, ``2.5e+00`` → ``2.5`` (no ``× 10^0``; but
    ``2.5e0``, written so by a column in scientific notation throughout, → ``2.5 \\times 10^{0}``)."""
    if "e" not in s.lower():
        return s
    mant, exp = s.lower().split("e")
    e = int(exp)
    if e == 0 and exp != "0":
        return mant
    return f"10^{{{e}}}" if mant in ("1", "1.", "1.0") else f"{mant} \\times 10^{{{e}}}"


def paper_number(value: Any, number: str, integers: bool) -> str:
    """One cell of a paper table: the column's significant digits kept (``0.1000`` beside ``0.2235``, not
    ``0.1``), powers of ten as ``\\times 10^{k}`` and never ``\\times 10^{0}``; integers as integers."""
    fmt = _checked_format(number)
    _check_cell(value)
    text, is_number = _cell(value, fmt, integers)
    return f"${_math_number(text)}$" if is_number else text


def _check_cell(value: Any) -> None:
    """A paper cell is a number (a float64), a text or None: a list, a complex number or an integer beyond the float
    range is refused naming ``value``."""
    try:
        cell = clean(value, False)
    except ValueError:  # an array of several numbers (``.item()``)
        cell = value
    if cell is None or isinstance(cell, str):
        return
    if isinstance(cell, int | float):
        try:
            float(cell)
            return
        except OverflowError:
            pass
    raise DomainError(f"value must be a number, a text or None (got {brief(value)})")


def _checked_format(number: Any) -> str:
    if not isinstance(number, str) or not _NUMBER_FORMAT.match(number):
        raise DomainError(f"number: a format spec such as '.4g', '.3e' or '.2f' (got {number!r})")
    return number or DEFAULT_NUMBER


def _cell(value: Any, fmt: str, integers: bool, shift: int | None = None) -> tuple[str, bool]:
    """``(text, is_number)``: a number as decimal text, e-notation where the format gives one (``0.06733``,
    ``6.733e-2``, ``101``; divided by ``10**shift`` when given, digit for digit), else the cell's LaTeX (``--``,
    ``$\\infty$``, escaped text)."""
    v = clean(value, False)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "--", False
    if isinstance(v, str):
        return latex_text(v), False
    x = float(v)
    if math.isinf(x):
        return ("$\\infty$" if x > 0 else "$-\\infty$"), False
    if integers:
        return str(int(x)), True
    if shift is not None:
        return _shifted(x, _significant(fmt), shift), True
    kind, digits = fmt[-1], int(fmt[1:-1] or 6)
    s = format(x, f"#.{digits}{kind}") if kind == "g" else format(x, fmt)
    if "e" not in s and s.endswith("."):
        s = s[:-1]
    if "e" in s:
        mant, exp = s.split("e")
        s = mant.rstrip(".") + (f"e{int(exp)}" if int(exp) else "")  # never "× 10^0"
    return s, True


def _scientific(x: float, sig: int) -> str:
    """``x`` with ``sig`` significant digits in scientific notation, the exponent always written (``1.266e0``)."""
    mant, exp = format(x, f".{sig - 1}e").split("e")
    return f"{mant}e{int(exp)}"


def _significant(fmt: str) -> int:
    """Significant digits of a ``g`` or ``e`` format (``.4g``: 4, ``.3e``: 4)."""
    digits = int(fmt[1:-1] or 6)
    return max(digits, 1) if fmt[-1] == "g" else digits + 1


def _decade(x: float, sig: int) -> int:
    """The power of ten of ``x`` rounded to ``sig`` significant digits (9.9996e-4 at 4 digits: −3)."""
    return int(format(abs(x), f".{sig - 1}e").split("e")[1])


def _shifted(x: float, sig: int, k: int) -> str:
    """``x / 10**k`` with ``sig`` significant digits, written from x's rounded decimal digits (no float division):
    the digits are those the cell would show with its own exponent."""
    mant, exp = format(abs(x), f".{sig - 1}e").split("e")
    digits = mant.replace(".", "")
    point = int(exp) - k + 1  # digits before the decimal point
    if x == 0:
        text = "0." + "0" * (sig - 1) if sig > 1 else "0"
    elif point <= 0:
        text = "0." + "0" * -point + digits
    elif point >= len(digits):
        text = digits + "0" * (point - len(digits))
    else:
        text = digits[:point] + "." + digits[point:]
    return ("-" if x < 0 else "") + text


def _shared_exponent(values: list[Any], fmt: str) -> int | None:
    """The power of ten a scientific column shows once, in its header: when some cell would carry an exponent and
    the column's non-zero values span at most `SHARED_SPAN` decades, the largest value's decade; else None (each
    cell keeps its own exponent: a shared one would cost significant digits)."""
    if fmt[-1] not in "ge":
        return None
    cells = [_cell(v, fmt, False) for v in values]
    if not any(is_number and "e" in text for text, is_number in cells):
        return None
    sig = _significant(fmt)
    numbers = [float(clean(v, False)) for v, (_, is_number) in zip(values, cells, strict=True) if is_number]
    decades = [_decade(x, sig) for x in numbers if x != 0]
    if not decades or max(decades) - min(decades) > SHARED_SPAN:
        return None
    return max(decades)


def _table_format(texts: list[str]) -> str:
    """siunitx ``table-format`` of a column's number texts: sign, integer and decimal digits, exponent digits."""
    sign = any(t.startswith("-") for t in texts)
    ints = decs = exp_digits = 0
    exp_sign = False
    for t in texts:
        mant, _, exp = t.lstrip("-").partition("e")
        whole, _, frac = mant.partition(".")
        ints, decs = max(ints, len(whole)), max(decs, len(frac))
        if exp:
            exp_digits = max(exp_digits, len(exp.lstrip("-")))
            exp_sign = exp_sign or exp.startswith("-")
    out = f"{'-' if sign else ''}{max(ints, 1)}.{decs}"
    return out + (f"e{'-' if exp_sign else ''}{exp_digits}" if exp_digits else "")


def _header_parts(columns: list[Any]) -> list[tuple[str, str, str]]:
    """(symbol, unit, status) of each column in LaTeX; status ``published``, ``corrected`` (a formula column
    beside its published form) or empty."""
    parts = []
    for c in columns:
        m = _HEADER.match(c.latex) if c.latex else None
        if m is None:
            m = _HEADER.match(latex_text(c.header))
        assert m is not None
        unit = m.group("unit") or (latex_text(c.unit) if c.unit and not c.latex.startswith(m.group("symbol") + " (")
                                   and c.latex else "")
        published = bool(m.group("published")) or c.header.endswith("[published]")
        symbol = one_epsilon(m.group("symbol"))
        parts.append((symbol, unit, "published" if published else ""))
    twins = {(s, u) for s, u, st in parts if st}
    return [(s, u, "corrected" if not st and (s, u) in twins else st) for s, u, st in parts]


def _groups(parts: list[tuple[str, str, str]]) -> list[tuple[int, int]]:
    """Runs [start, end) of neighbouring columns with the same symbol and unit."""
    runs, k = [], 0
    while k < len(parts):
        end = k + 1
        while end < len(parts) and parts[end][:2] == parts[k][:2]:
            end += 1
        runs.append((k, end))
        k = end
    return runs


def _whole(rows: list[Any], column: Any) -> bool:
    """Whether a column shows integers (every value a whole number below 10⁶, not in scientific notation)."""
    if column.number.endswith("e"):
        return False
    values = [clean(r.get(column.key), False) for r in rows]
    return all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and float(v).is_integer()
               and abs(v) < 1e6 for v in values)


def _span(n: int, text: str, brace: Callable[[str], str]) -> str:
    """A header cell over ``n`` columns (one column: ``brace``d, as a siunitx ``S`` column needs text to be)."""
    return brace(text) if n == 1 else f"\\multicolumn{{{n}}}{{c}}{{{text}}}"


def latex_float(result: Any, env: str = "table", scale: str = "auto", numbers: str = "plain") -> str:
    """A table result as a float that a paper can include unedited (booktabs; ``fit`` also needs graphicx).

    Headers are short: the symbol on the first line, its unit on the second; neighbouring columns of one quantity
    (a published form and its correction) share a spanning header and are told apart on a third line. Numbers
    keep the column's significant digits; a scientific column whose values span at most `SHARED_SPAN` decades
    shows its power of ten once, in the header (``(bits, ×10⁻³)``). ``env``: ``table`` (one column, the default)
    or ``table*`` (across both columns of a two-column paper); ``scale``: ``auto`` (the default: natural size if it
    fits the line, else \\footnotesize with narrower gaps, else scaled down to the line width; TeX measures),
    ``none``, ``small``, ``footnotesize`` or ``fit`` (always scaled to the line width); ``numbers``: ``plain``
    (math-mode cells, any LaTeX) or ``siunitx`` (``S`` columns aligned on the decimal marker, their
    ``table-format`` taken from the data).
    """
    if not all(isinstance(x, str) for x in (env, scale, numbers)) or env not in FLOATS or scale not in SCALES \
            or numbers not in NUMBERS:
        raise DomainError(f"env must be one of {FLOATS}, scale one of {SCALES} and numbers one of {NUMBERS} "
                          f"(got {brief(env)}, {brief(scale)}, {brief(numbers)})")
    if not all(hasattr(result, k) for k in ("columns", "rows", "title", "note", "meta")):
        raise DomainError(f"result: a table result (dpcalc.report.render.Result) (got {type(result).__name__})")
    columns, rows = list(result.columns), list(result.rows)
    integers = [_whole(rows, c) for c in columns]
    formats = [_checked_format(c.number) for c in columns]
    shared = [None if whole else _shared_exponent([r.get(c.key) for r in rows], fmt)
              for c, whole, fmt in zip(columns, integers, formats, strict=True)]
    cells = [[_cell(r.get(c.key), fmt, whole, shift) for c, whole, fmt, shift
              in zip(columns, integers, formats, shared, strict=True)] for r in rows]
    for k, fmt in enumerate(formats):  # one notation per column: scientific throughout if any cell is
        texts = [row[k][0] for row in cells if row[k][1]]
        if any("e" in t for t in texts) and not all("e" in t for t in texts):
            sig = _significant(fmt) if fmt[-1] in "ge" else len(texts[0].replace(".", "").lstrip("-0")) or 1
            for row, r in zip(cells, rows, strict=True):
                if row[k][1] and "e" not in row[k][0]:
                    row[k] = (_scientific(float(clean(r.get(columns[k].key), False)), sig), True)
    siunitx = numbers == "siunitx"
    brace = (lambda text: f"{{{text}}}" if text else "") if siunitx else (lambda text: text)
    parts = [(symbol, _with_exponent(unit, k), status)
             for (symbol, unit, status), k in zip(_header_parts(columns), shared, strict=True)]
    runs = _groups(parts)
    symbols = " & ".join(_span(b - a, parts[a][0], brace) for a, b in runs)
    units = " & ".join(_span(b - a, f"({parts[a][1]})" if parts[a][1] else "", brace) for a, b in runs)
    head = [f"  {symbols} \\\\"]
    if any(u for _, u, _ in parts):
        head.append(f"  {units} \\\\")
    if any(st for _, _, st in parts):
        rules = "".join(f"\\cmidrule(lr){{{a + 1}-{b}}}" for a, b in runs if b - a > 1)
        if rules:
            head.append(rules)
        head.append("  " + " & ".join(brace(st) for _, _, st in parts) + " \\\\")
    if siunitx:
        spec = "".join(_s_column([t for t, num in col if num]) if any(num for _, num in col) else "c"
                       for col in zip(*cells, strict=True)) if rows else "c" * len(columns)
        body = ["  " + " & ".join(t if num else f"{{{t}}}" for t, num in row) + " \\\\" for row in cells]
    else:
        spec = "r" * len(columns)
        body = ["  " + " & ".join(f"${_math_number(t)}$" if num else t for t, num in row) + " \\\\"
                for row in cells]
    tabular = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", *head, "\\midrule", *body,
               "\\bottomrule", "\\end{tabular}"]
    if scale == "fit":
        tabular = ["\\resizebox{\\linewidth}{!}{%", *tabular, "}"]
    elif scale == "auto":
        tabular = _fitted(tabular)
    packages = ", ".join(["booktabs", *(["graphicx"] if scale in ("fit", "auto") else []),
                          *(["siunitx"] if siunitx else [])])
    out = [f"% dpcalc table: {result.meta.get('spec', '')} (needs \\usepackage{{{packages}}})"]
    if scale == "auto":
        out += [f"% Fits {'the text width' if env == 'table*' else 'one column'}: set at \\footnotesize with narrower "
                "column gaps when wider than the line,", "% and scaled to the line width only if still wider "
                "(--scale none: natural size; --float table*: across both columns)."]
    out += [f"\\begin{{{env}}}[{'tp' if env == 'table*' else 'htbp'}]", "\\centering"]
    if scale in ("small", "footnotesize"):
        out.append(f"\\{scale}")
    if result.title:
        out.append(f"\\caption{{{latex_caption(result.title)}}}")
    if result.meta.get("label"):
        out.append(f"\\label{{{result.meta['label']}}}")
    out += tabular
    if result.note:
        out.append(f"\\par\\smallskip{{\\footnotesize\\raggedright {latex_caption(result.note)}\\par}}")
    out.append(f"\\end{{{env}}}")
    return "\n".join(out) + "\n"


def _fitted(tabular: list[str]) -> list[str]:
    """The tabular at its natural size when it fits the line; else at \\footnotesize with 3 pt column gaps; else
    that scaled down to the line width (TeX measures: exact for the paper's own fonts and column width)."""
    return ["\\def\\dpcalcTabular{%", *tabular, "}%",
            "\\setbox0=\\hbox{\\dpcalcTabular}%",
            "\\ifdim\\wd0>\\linewidth\\setbox0=\\hbox{\\footnotesize\\setlength{\\tabcolsep}{3pt}\\dpcalcTabular}\\fi",
            "\\ifdim\\wd0>\\linewidth\\resizebox{\\linewidth}{!}{\\box0}\\else\\box0\\fi"]


def _s_column(texts: list[str]) -> str:
    """A siunitx ``S`` column of these number texts (a zero exponent kept where the column is scientific)."""
    keep = ",retain-zero-exponent" if any(t.endswith("e0") for t in texts) else ""
    return f"S[table-format={_table_format(texts)}{keep}]"


def _with_exponent(unit: str, k: int | None) -> str:
    """The unit line of a column that shows ``×10^k`` once (nothing added for k = 0 or no shared exponent)."""
    if not k:
        return unit
    power = f"$\\times 10^{{{k}}}$"
    return f"{unit}, {power}" if unit else power
