"""The help text of a declared option, from the catalog input it is bound to: ``{description}: {symbol} {domain}
({unit}). {syntax}. {note}.`` Imported only when help is shown (``dpcalc … --help``, the full app)."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["domain_text", "help_text"]


class _Declared(Protocol):
    """What the help text reads of a declared option (`dpcalc.cli.options.Opt`)."""

    help: str
    kind: str
    sweep: str
    note: str

_SYNTAX = {"axis": "A value, a list a,b or a range a:b:step", "vector": "A comma list or a file of numbers",
           "one": "One value", "matrix": "A file (.npy, .csv) or inline rows 'a,b;c,d'"}

_PLAIN_UNITS = ("", "dimensionless", "probability")


def help_text(opt: _Declared, inp: dict[str, Any] | None) -> str:
    """``{description}: {symbol} {domain} ({unit}). {syntax}. {note}.`` (the catalog's parts where there is one)."""
    parts = [opt.help or (inp or {}).get("description", "")]
    if inp is not None:
        from dpcalc.report.columns import unicode_symbol

        symbol, unit = unicode_symbol(inp["symbol"]), inp.get("unit", "").split(" (")[0]
        quantity = " ".join(x for x in (symbol, domain_text(inp.get("domain", ""))) if x)
        if unit not in _PLAIN_UNITS:
            quantity += f" ({unit})"
        parts[0] = f"{parts[0]}: {quantity}" if parts[0] else quantity
    if opt.kind in _SYNTAX:
        parts.append(_SYNTAX[opt.kind] + ("; default: all of " + opt.sweep if opt.sweep else ""))
    if opt.note:
        parts.append(opt.note)
    text = ". ".join(p.strip().rstrip(".") for p in parts if p.strip())
    return text[:1].upper() + text[1:] + "."


def domain_text(domain: str) -> str:
    """``(0, inf)`` → ``> 0``; ``[1, inf) integer`` → ``>= 1, an integer``; ``(0, 1]`` → ``in (0, 1]``."""
    end = max(domain.rfind(")"), domain.rfind("]")) + 1
    interval, integer = domain[:end].strip(), domain[end:].strip()
    if interval[:1] not in ("(", "[") or "," not in interval:
        return ""
    lo, _, hi = interval[1:-1].partition(",")
    lo, hi = lo.strip(), hi.strip()
    if hi == "inf":
        text = f"{'>' if interval[0] == '(' else '>='} {lo}" if lo != "-inf" else ""
    else:
        text = f"in {interval[0]}{lo}, {hi}{interval[-1:]}"
    return f"{text}, an integer" if integer and text else ("an integer" if integer else text)
