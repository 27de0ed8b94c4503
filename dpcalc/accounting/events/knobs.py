"""The calibratable kinds of field an event declares in its ``KNOBS`` (`dpcalc.accounting.search.Knob`): each knob's
search range and the direction ε moves along it. The knob's ``start`` is the field's current value (set by the
calibrator)."""

from __future__ import annotations

from dpcalc.accounting.search import Knob

__all__ = ["COUNT", "NOISE", "PROBABILITY", "noise", "probability"]


def noise(name: str, lo: float = 1e-3, hi: float = 1e6) -> Knob:
    """A noise scale (noise multiplier, standard deviation, σ): ε falls as it grows; ε ∝ scale^-1 … scale^-2."""
    return Knob(name, lo, hi, eps_increases=False, slope=-2.0)


def probability(name: str, lo: float = 1e-12, hi: float = 1.0) -> Knob:
    """A sampling probability or rate: ε grows with it (∝ q to q²)."""
    return Knob(name, lo, hi, eps_increases=True, slope=1.0)


#: a noise multiplier of the sensitivity
NOISE = noise("noise_multiplier")
#: a sampling probability
PROBABILITY = probability("sampling_probability")
#: a number of runs or steps: ε grows with it
COUNT = Knob("count", 1, 1e9, eps_increases=True, integer=True, slope=0.5)
