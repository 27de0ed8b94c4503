"""The one result type of every accountant: `PrivacyResult`.

A result is what an accountant says of one event at one δ (or one ε): the headline value, the certified
``lower``/``upper`` ends where the accountant gives a bracket, what kind of statement it is, and the conditions it
holds under (accountant, neighbouring relation, δ, the event and its sampling, the level of the privacy unit).

| kind | meaning |
|---|---|
| exact | the true value (to the last digits, rounded to the safe side) |
| bracket | certified ``lower`` <= true value <= ``upper``; the value is ``upper`` |
| upper | a guaranteed upper bound (e.g. RDP); the true value may be smaller |
| estimate | an approximation that can be below the true value (e.g. the GDP central limit theorem) |
| lower | a certified lower bound (e.g. an audit, a shuffled sampler's lower bound) |

``float(result)`` is the safe value (the upper end of a bracket; for an estimate, the estimate); ``to_dict()`` is
exactly the row ``dpcalc account --json`` prints.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from dpcalc._rounding import ROUND_DOWN, ROUND_UP, format_number

__all__ = ["KINDS", "Kind", "PrivacyResult"]

Kind = Literal["exact", "bracket", "upper", "estimate", "lower"]
KINDS: tuple[Kind, ...] = ("exact", "bracket", "upper", "estimate", "lower")
#: the kinds whose value is a guarantee (an upper bound on the true ε or δ)
GUARANTEED: tuple[Kind, ...] = ("exact", "bracket", "upper")


def _g(x: float | None, way: str = "") -> str:
    """``x`` in 6 significant digits, rounded toward ``way`` (`dpcalc._rounding`: ↑ an upper bound, ↓ a lower one)."""
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞"
    return format_number(x, ".6g" + way)


@dataclass(frozen=True)
class PrivacyResult:
    """ε (or δ) of an event under one accountant, with its kind and the conditions it holds under.

    ``quantity`` says which of ε and δ the accountant computed (``value``); the other is the one given.
    ``inputs``: the run's settings as the command line names them (a training run's noise multiplier, q, steps,
    dataset size …); ``details``: the accountant's extras (the optimal Rényi ``order``, μ, the lattice spacing).
    ``met`` is False when a bracket stayed wider than the tolerance asked (its ends are still certified).
    """

    value: float
    kind: Kind
    accountant: str
    epsilon: float
    delta: float
    quantity: Literal["epsilon", "delta"] = "epsilon"
    lower: float | None = None
    upper: float | None = None
    relation: str = "add_remove"
    event: str = ""
    sampling: str = "none"
    level: str = "example"
    k: int | None = None
    method: str | None = None
    met: bool = True
    inputs: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def guaranteed(self) -> bool:
        """Whether the value is a guaranteed upper bound (exact, bracket or upper)."""
        return self.kind in GUARANTEED

    @property
    def width(self) -> float | None:
        """The bracket's width (``upper − lower``), or None without a bracket."""
        return None if self.lower is None or self.upper is None else self.upper - self.lower

    def __float__(self) -> float:
        return float(self.upper if self.upper is not None else self.value)

    def with_notes(self, *notes: str) -> PrivacyResult:
        """The same result with more notes (each once)."""
        return replace(self, notes=tuple(dict.fromkeys((*self.notes, *notes))))

    def to_dict(self) -> dict[str, Any]:
        """The row ``dpcalc account --json`` prints: the run's inputs, then the result (JSON types only)."""
        name = "eps" if self.quantity == "epsilon" else "delta"
        row: dict[str, Any] = {**self.inputs}
        if self.event:
            row["event"] = self.event
        row.update({"relation": self.relation.replace("_", "-"), "sampling": self.sampling, "level": self.level,
                    "k": self.k, "method": self.method})
        if self.quantity == "epsilon":
            row["delta"] = self.delta
        else:
            row["eps"] = self.epsilon
        row["accountant"] = self.accountant
        row.update({name: self.value, f"{name}_lower": self.lower, f"{name}_upper": self.upper, "kind": self.kind,
                    "met": self.met, "order": self.details.get("order"), "notes": list(self.notes)})
        return row

    def _summary(self) -> tuple[str, str]:
        sym = "ε" if self.quantity == "epsilon" else "δ"
        given = f"δ = {_g(self.delta)}" if self.quantity == "epsilon" else f"ε = {_g(self.epsilon)}"
        ends = (f" [{_g(self.lower, ROUND_DOWN)}, {_g(self.upper, ROUND_UP)}]"
                if self.lower is not None and self.upper is not None else "")
        way = {"upper": ROUND_UP, "bracket": ROUND_UP, "lower": ROUND_DOWN}.get(self.kind, "")
        head = f"{sym} = {_g(self.value, way)}{ends}"
        who = [self.kind, self.accountant, self.relation.replace("_", "-"), given]
        if self.level == "user":
            who.append(f"user level, k = {self.k}" + (f" ({self.method})" if self.method else ""))
        if not self.met:
            who.append("wider than asked")
        return head, ", ".join(who)

    def __repr__(self) -> str:
        head, who = self._summary()
        return f"PrivacyResult({head} ({who}))"

    def _repr_html_(self) -> str:
        head, who = self._summary()
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        event = f"<div><code>{html.escape(self.event)}</code></div>" if self.event else ""
        return (f"<div class='dpcalc-result'><strong>{html.escape(head)}</strong> <span>({html.escape(who)})</span>"
                f"{event}{f'<ul>{notes}</ul>' if notes else ''}</div>")
