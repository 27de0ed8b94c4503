"""One-line error messages that name the command line's options (imported only when an error is reported).

* `usage_message` — Click's usage error on one line; an unknown option answered with the right one:
  ``--sigma`` where the option is ``--noise-multiplier``, ``--N`` for ``--n`` (`suggest`);
* `with_option_names` — a library message naming ``m`` glossed with the option, ``(m: --data-size)``.

The names an option answers to are derived from its declaration, not listed by hand: its library name (``m`` for
``--data-size``, ``N`` for ``--n``, ``sigma`` for ``--noise-multiplier``), the Greek letters of its catalog symbol
(``--epsilon``, ``--lambda``) and its letter symbol (``--T`` for ``--steps``), plus a few English words for the
quantities that have them (`WORDS`). An unknown option that is none of these but starts an option name
(``--d`` for ``--delta`` where ``--d`` is not the model dimension) is answered with every option it starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dpcalc.cli.options import Resolved

__all__ = ["LONGEST_WORD", "WORDS", "aliases", "one_line", "suggest", "usage_message", "with_option_names"]

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
    """``--data_size`` → ``data-size``; lower case except single letters (``d`` and ``D`` are two quantities)."""
    word = name.lstrip("-").replace("_", "-")
    return word if len(word) == 1 else word.lower()


def aliases(r: Resolved) -> set[str]:
    """The (normalised: lower case, ``-`` for ``_``) names option ``r`` answers to."""
    library = r.input["name"] if r.input is not None else r.name
    found = {_norm(library), _norm(r.name), *(_norm(w) for w in WORDS.get(library, ()))}
    if r.input is not None:
        symbol = r.input.get("symbol", "")
        found |= {g.replace("varepsilon", "epsilon") for g in _GREEK.findall(symbol)}
        letter = _LETTER.match(symbol)
        if letter:
            found.add(letter.group(1))
    return found | {_norm(r.option)}  # "--N" for "--n": the same letters, another case


def suggest(unknown: str, options: Iterable[Resolved]) -> list[str]:
    """The options (``--noise-multiplier/-z``) that ``unknown`` most likely means, best first; [] if none."""
    named = [r for r in options if r.option.startswith("--")]
    key = _norm(unknown)
    hits = [r for r in named if key in aliases(r) and unknown != r.option]
    if not hits and len(key) >= 1 and unknown.startswith("--"):
        hits = [r for r in named if r.option.startswith(unknown) and r.option != unknown]
    return ["/".join(x for x in (r.option, r.opt.short) if x) for r in hits]


LONGEST_WORD = 120
"""Longest run of non-blank characters an error line echoes whole: a longer value (typed or read) is shortened
and its length said — a 100 KB value is not a 100 KB error line."""


def one_line(message: str) -> str:
    """``message`` on one line, each overlong word shortened to its start and its length."""
    return " ".join(w if len(w) <= LONGEST_WORD else f"{w[:LONGEST_WORD // 2]}…[{len(w):,} characters]"
                    for w in str(message).split())


def usage_message(exc: Any, options_at: Callable[[list[str]], list[Resolved] | None]) -> str:
    """Click's usage error as one line, naming the command when it has a context (``sigma: Missing option …``);
    an unknown option that is a synonym of one of the command's options (``options_at(path)``) says which
    (``--sigma`` → ``--noise-multiplier/-z``)."""
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path.removeprefix("dpcalc").strip() if ctx is not None else ""
    message = one_line(exc.format_message())
    unknown = str(getattr(exc, "option_name", "") or "")
    options = options_at(path.split()) if unknown else None
    if options is not None:
        hits = suggest(unknown, options)
        if hits:
            message = f"No such option: {unknown}; did you mean {' or '.join(hits)}?"
    return f"{path}: {message}" if path else message


#: A library name that is a message's grammatical subject: ``D must be …``, ``gradients: user 2 …``.
_SUBJECT = re.compile(r"[A-Za-z_]\w*(?=:\s|\s+(?:must|is|are|has|have|needs|gives|cannot|exceeds|lies)\b)")


def with_option_names(message: str, options: Any) -> str:
    """``message`` naming the options typed: a library name that begins it (its subject, ``D must be …``) becomes
    the option (``--data-size must be …``); "(m: --data-size; N: --n)" is appended for each other library name it
    uses whose option is named otherwise in this command (and which the message does not name already)."""
    options = list(options)
    subject = re.match(_SUBJECT, message)
    named: Any = None  # the option that became the subject
    for r in options if subject else ():
        library = r.input["name"] if r.input is not None else r.name
        if r.option.startswith("--") and subject and subject.group(0) in (library, r.name):
            message, named = r.option + message[subject.end():], r
            break
    found = []
    for r in options:
        flags = "/".join(x for x in (r.option, r.opt.short) if x)
        library = r.input["name"] if r.input is not None else r.name
        text = message[len(r.option):] if r is named else message
        if (r.option.startswith("--") and r.option != f"--{library}" and r.option not in text
                and re.search(rf"(?<![\w-]){re.escape(library)}\b", text)):
            found.append(f"{library}: {flags}")
    return f"{message} ({'; '.join(found)})" if found else message
