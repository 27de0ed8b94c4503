"""Output columns built from the catalog's declarations: label, LaTeX symbol and unit of each quantity.

A command names the formula it evaluates and the quantities it prints; the catalog entry's ``inputs`` and
``output`` supply the symbol (LaTeX, shown in LaTeX tables; turned into Unicode for the other formats), the
unit (``meta.units`` in JSON, and in the table header) and whether the value is an integer::

    columns_for("midp.server_sigma", ["eps", "d", "C", "sigma"], units={"eps": "bits"})

Only the entry's own block of its TOML file is parsed (`dpcalc.catalog.raw.entry`), so start-up stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from dpcalc import _validate as v
from dpcalc.errors import DomainError, UnknownNameError
from dpcalc.report.result import Column

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω", "sum": "Σ", "prod": "Π", "infty": "∞", "lVert": "‖", "rVert": "‖", "Vert": "‖",
    "ln": "ln ", "log": "log ", "max": "max", "min": "min", "exp": "exp", "cdot": "·", "sqrt": "√",
}
_SUPERSCRIPT = str.maketrans("0123456789+-*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻*")
_UNITLESS = ("", "dimensionless")


def unicode_symbol(latex: str) -> str:
    """A short plain-text rendering of a catalog LaTeX symbol: ``\\sigma_{s,t}`` → ``σ_s,t``, ``\\sigma^2`` → ``σ²``."""
    latex = v.text("latex", latex)
    if not any(ch in latex for ch in "{}^ \t\n,"):  # commands and subscripts only (\\sigma_s): no regex to compile
        head, *commands = v.text("latex", latex).split("\\")
        return (head + "".join(_GREEK.get(name, name) + rest for name, rest in map(_command, commands))).strip()
    s = re.sub(r"\\(?:mathrm|text|operatorname|mathbf|boldsymbol)\{([^{}]*)\}", r"\1", v.text("latex", latex))
    s = re.sub(r"\\([A-Za-z]+)\s?", lambda m: _GREEK.get(m.group(1), m.group(1)), s)
    s = re.sub(r"\^\{([0-9+\-*]+)\}|\^([0-9])", lambda m: (m.group(1) or m.group(2)).translate(_SUPERSCRIPT), s)
    s = re.sub(r"_\{([^{}]*)\}", r"_\1", s)
    s = s.replace("{", "").replace("}", "").replace("\\,", " ").replace("\\", "")
    return re.sub(r"\s+", " ", s).strip()


def _command(text: str) -> tuple[str, str]:
    """``sigma_s`` → (``sigma``, ``_s``): a LaTeX command's name and what follows it."""
    end = next((i for i, ch in enumerate(text) if not ch.isascii() or not ch.isalpha()), len(text))
    return text[:end], text[end:]


def _short_unit(unit: str) -> str:
    """The unit as shown in a table header: without its parenthesised remark."""
    return unit.split(" (")[0].strip()


def _latex_unit(unit: str) -> str:
    """A unit in LaTeX text: as it is when plain (letters, digits, spaces), else `latex_text`
    (imported only then)."""
    if unit.replace(" ", "").isalnum() and unit.isascii():
        return unit
    from dpcalc.report.latex import latex_text

    return latex_text(unit)


def make_column(key: str, symbol: str, unit: str, integer: bool = False, label: str = "") -> Column:
    """A column for a quantity with a LaTeX ``symbol`` and a ``unit`` (header ``symbol (unit)``).

    A ``label`` replaces the header in every format (LaTeX too: it tells apart columns of one quantity,
    e.g. published and corrected σ²).
    """
    for name, value in (("key", key), ("symbol", symbol), ("unit", unit), ("label", label)):
        v.text(name, value)
    shown = _short_unit(unit)
    if label:
        header, latex = label, ""
    else:
        text, suffix = unicode_symbol(symbol), ("" if shown in _UNITLESS else f" ({shown})")
        latex_suffix = "" if shown in _UNITLESS else f" ({_latex_unit(shown.replace('^2', '²'))})"
        header, latex = text + suffix, f"${symbol}$" + latex_suffix
    return Column(key, header, latex, integer=integer, unit=unit if unit not in _UNITLESS else "")


def column(formula_id: str, name: str, *, key: str | None = None, unit: str | None = None,
           label: str = "") -> Column:
    """The column of input or output ``name`` of catalog formula ``formula_id``.

    ``key`` renames the JSON/CSV key (e.g. ``sigma`` → ``sigma_server``), ``unit`` overrides the catalog's
    unit (e.g. ``bits`` under ``--units bits``), ``label`` replaces the table label.
    """
    from dpcalc.catalog import raw

    entry = raw.entry(v.text("formula_id", formula_id))
    if entry is None:
        raise UnknownNameError(f"unknown formula id {formula_id!r}")
    quantities = {q["name"]: q for q in entry["inputs"]}
    if entry["output"]["name"] == name:
        quantity, integer = entry["output"], False
    elif name in quantities:
        quantity = quantities[name]
        integer = "integer" in quantity.get("domain", "")
    else:
        known = [*quantities, entry["output"]["name"]]
        raise UnknownNameError(f"{formula_id} has no input or output {name!r} (has {', '.join(known)})")
    return make_column(key or name, quantity["symbol"], quantity["unit"] if unit is None else unit, integer, label)


def columns_for(formula_id: str, names: Iterable[str] | None = None, *, keys: Mapping[str, str] | None = None,
                units: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None) -> list[Column]:
    """Columns for several quantities of one formula (default: its scalar inputs, then its output).

    ``keys``/``units``/``labels`` map a quantity name to the override of `column`.
    """
    from dpcalc.catalog import raw

    v.text("formula_id", formula_id)
    if names is None:
        entry = raw.entry(formula_id)
        if entry is None:
            raise UnknownNameError(f"unknown formula id {formula_id!r}")
        names = [*(i["name"] for i in entry["inputs"] if i.get("kind", "scalar") == "scalar"), entry["output"]["name"]]
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise DomainError(f"names must be a list of quantity names (got {v.brief(names)})")
    names = [v.text("names", n) for n in names]
    keys, units, labels = keys or {}, units or {}, labels or {}
    return [column(formula_id, n, key=keys.get(n), unit=units.get(n), label=labels.get(n, "")) for n in names]
