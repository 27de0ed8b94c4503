"""An audit's ε lower bound next to the accountant's certified upper bound for the same run:
"audit ε_lower ≤ true ε ≤ accountant ε_upper", with the gap between them. An ε_lower above ε_upper (at the
stated confidence) contradicts the accounting: a bug in the training code or in the analysis, or an audit whose
assumptions do not hold."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.accounting.pld import PrivacyLoss

__all__ = ["Comparison", "compare"]


@short_repr
@dataclass(frozen=True)
class Comparison:
    """ε_lower (audit, with its confidence) ≤ true ε ≤ ε_upper (accountant) at ``delta``; ``gap`` = upper − lower."""

    eps_lower: float
    confidence: float
    eps_upper: float
    delta: float
    gap: float
    consistent: bool
    sentence: str


def compare(eps_lower: float, confidence: float, components: Sequence[tuple[PrivacyLoss, int]],
            delta: float) -> Comparison:
    """The audit's bound beside the PLD accountant's certified ε_upper of ``components`` at ``delta``.

    Examples:
        >>> from dpcalc.accounting import pld
        >>> from dpcalc.audit import compare
        >>> c = compare(1.2, 0.95, [(pld.poisson(pld.gaussian(1.0), 0.01), 1000)], 1e-5)
        >>> round(c.eps_upper, 4), round(c.gap, 4), c.consistent
        (1.8286, 0.6286, True)
    """
    from dpcalc.accounting.pld import epsilon_composed

    lo = v.scalar("eps_lower", v.nonnegative("eps_lower", eps_lower))
    c = v.scalar("confidence", v.check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True))
    up = epsilon_composed(components, delta).eps_upper
    ok = lo <= up
    sentence = (f"audit ε_lower = {lo:.4g} (confidence {c:.3g}) ≤ true ε ≤ accountant ε_upper = {up:.4g} at "
                f"δ = {delta:.3g}: gap {up - lo:.4g}" if ok else
                f"audit ε_lower = {lo:.4g} (confidence {c:.3g}) exceeds the accountant's ε_upper = {up:.4g} at "
                f"δ = {delta:.3g}: the run is less private than accounted (a bug in training or accounting), or the "
                "audit's assumptions fail")
    return Comparison(lo, c, up, float(delta), up - lo, ok, sentence)
