"""LaTeX text and numbers for the LaTeX writer (:mod:`dpcalc.report.formats`) and the catalog columns' LaTeX
headers: imported only when LaTeX is written or a header needs escaping (the table path needs none of it).

* :func:`latex_text` — plain (possibly Unicode) text as LaTeX that compiles with pdflatex;
* :func:`latex_number` / :func:`latex_cell` — one cell: numbers in math mode, ``$1.5 \\times 10^{-5}$``;
* :func:`latex_numbers` — a chunk of text-format numbers in math mode at once.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcalc.report._text import NONE_TEXT, clean, text_cell

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["latex_text"]

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
    "√": r"$\surd$", "‖": r"$\|$", "≤": r"$\leq$", "≥": r"$\geq$", "×": r"$\times$", "·": r"$\cdot$",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "→": r"$\to$", "←": r"$\leftarrow$", "∞": r"$\infty$",
    "∑": r"$\sum$", "≈": r"$\approx$", "±": r"$\pm$", "≠": r"$\neq$", "∈": r"$\in$", "′": "'", "°": r"$^\circ$",
    "‰": r"\textperthousand{}", "µ": r"$\mu$", "ℓ": r"$\ell$", "∂": r"$\partial$", "∇": r"$\nabla$",
    "⌈": r"$\lceil$", "⌉": r"$\rceil$", "⌊": r"$\lfloor$", "⌋": r"$\rfloor$", "̂": "", "̄": "",
    "̃": "", "̇": "",
}


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
    """A LaTeX body cell: numbers in math mode (:func:`latex_number`), text escaped by :func:`latex_text`."""
    v = clean(value, integer)
    if v is None:
        return "--"
    if isinstance(v, int | float) and not isinstance(v, bool):
        return latex_number(v, integer, number)
    return latex_text(str(v))


_LATEX_EXP = re.compile(r"e(?:\+|(-))0*(\d+)")  # "e-05" → "-5", "e+20" → "20", "e+00" → "0" (= int(exp))


def latex_numbers(strs: list[str], a: NDArray[np.float64]) -> list[str]:
    """Text-format numbers in math mode (as :func:`latex_number`), one regular expression over the chunk."""
    if not strs:
        return []
    joined = "$" + "$\n$".join(strs) + "$"
    out = _LATEX_EXP.sub(r" \\times 10^{\1\2}", joined).split("\n")
    odd = ~np.isfinite(a)
    for i in np.flatnonzero(odd).tolist():
        out[i] = "--" if math.isnan(a[i]) else ("$\\infty$" if a[i] > 0 else "$-\\infty$")
    return out
