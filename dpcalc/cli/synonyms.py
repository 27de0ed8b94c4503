"""The right option for a mistyped one: ``--sigma`` where the option is ``--noise-multiplier``, ``--N`` for ``--n``.

The names an option answers to are derived from its declaration, not listed by hand: its library name (``m`` for
``--data-size``, ``N`` for ``--n``, ``sigma`` for ``--noise-multiplier``), the Greek letters of its catalog symbol
(``--epsilon``, ``--lambda``) and its letter symbol (``--T`` for ``--steps``), plus a few English words for the
quantities that have them (:data:`WORDS`). An unknown option that is none of these but starts an option name
(``--d`` for ``--delta`` where ``--d`` is not the model dimension) is answered with every option it starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dpcalc.cli.options import Resolved

__all__ = ["WORDS", "aliases", "suggest"]

#: English words a user may type for a quantity, by its library name.
WORDS: dict[str, tuple[str, ...]] = {
    "sigma": ("noise", "noise-std", "std"), "q": ("sampling-rate", "sample-rate", "rate"), "eps": ("epsilon",),
    "N": ("clients", "num-clients", "users"), "n": ("clients", "num-clients"), "d": ("dim", "dimension"),
    "T": ("iterations", "epochs"), "steps": ("iterations", "epochs", "rounds"), "B": ("batch", "batch-size"),
    "m": ("samples",), "D": ("samples",), "mu": ("gdp-mu",),
}
_GREEK = re.compile(r"\\(alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|kappa|lambda|mu|nu|xi|pi|rho|"
                    r"sigma|tau|phi|chi|psi|omega)\b")
_LETTER = re.compile(r"^\s*([A-Za-z])\s*$")


def _norm(name: str) -> str:
    return name.lstrip("-").replace("_", "-").lower()


def aliases(r: Resolved) -> set[str]:
    """The (normalised) names option ``r`` answers to besides its own."""
    library = r.input["name"] if r.input is not None else r.name
    found = {_norm(library), _norm(r.name), *(_norm(w) for w in WORDS.get(library, ()))}
    if r.input is not None:
        symbol = r.input.get("symbol", "")
        found |= {g.replace("varepsilon", "epsilon") for g in _GREEK.findall(symbol)}
        letter = _LETTER.match(symbol)
        if letter:
            found.add(letter.group(1).lower())
    return found - {_norm(r.option)}


def suggest(unknown: str, options: Iterable[Resolved]) -> list[str]:
    """The options (``--noise-multiplier/-z``) that ``unknown`` most likely means, best first; [] if none."""
    named = [r for r in options if r.option.startswith("--")]
    key = _norm(unknown)
    hits = [r for r in named if key in aliases(r)]
    if not hits and len(key) >= 1 and unknown.startswith("--"):
        hits = [r for r in named if r.option.startswith(unknown) and r.option != unknown]
    return ["/".join(x for x in (r.option, r.opt.short) if x) for r in hits]
