"""Calibration to an operational risk target (Kulynych et al. 2024, "Attack-aware noise calibration", Sec. 4): the
smallest noise multiplier (or the largest number of steps) of Poisson-subsampled Gaussian DP-SGD whose certified
curve keeps every membership attack at TPR ≤ target at a given FPR, or its advantage ≤ target.

On the safe side: the answer's *certified upper end* (`dpcalc.risk.pld_curve`) meets the target, re-checked at the
returned value; the searches are `dpcalc._roots.secant_search` in log z (log T), the integer knob finished by
`dpcalc._roots.integer_search`. Starting points come from the μ-GDP closed forms (the μ whose G_μ meets the target,
turned into z by the privacy CLT): a guess only; the answer is the PLD's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc._roots import integer_search, secant_search
from dpcalc.errors import DomainError, EstimateWarning, InfeasibleError
from dpcalc.risk.curve import TradeOffCurve, check_alpha, check_orientation

if TYPE_CHECKING:
    from dpcalc.accounting.pld import PrivacyLoss

__all__ = ["Calibration", "dpsgd_components", "dpsgd_curve", "dpsgd_tpr", "noise_for_risk", "steps_for_risk"]


@short_repr
@dataclass(frozen=True)
class Calibration:
    """A calibrated knob: its ``value``, the certified ``achieved`` risk there (≤ ``target``), the risk one step
    towards less privacy (``next_value``: z·(1 − rtol) or T + 1, where the target fails or is barely met), and the
    number of curves computed."""

    knob: str
    value: float
    target: float
    achieved: float
    measure: str
    next_value: float
    next_achieved: float
    evaluations: int


def dpsgd_components(noise_multiplier: float, q: float, steps: int) -> list[tuple[PrivacyLoss, int]]:
    """The privacy losses of T steps of Poisson-subsampled Gaussian DP-SGD: [(poisson(gaussian(z), q), T)]
    (q = 1: the Gaussian itself)."""
    from dpcalc.accounting import pld

    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    t = int(v.scalar("steps", v.integer_at_least("steps", steps, 1)))
    loss = pld.gaussian(z)
    return [(loss if qq == 1.0 else pld.poisson(loss, qq), t)]


def dpsgd_curve(noise_multiplier: float, q: float, steps: int) -> TradeOffCurve:
    """The trade-off curve of a DP-SGD run (`dpcalc.risk.tradeoff_curve` of `dpsgd_components`)."""
    from dpcalc.risk.pld_curve import tradeoff_curve

    return tradeoff_curve(dpsgd_components(noise_multiplier, q, steps))


def dpsgd_tpr(noise_multiplier: float, q: float, steps: int, fpr: float) -> float:
    """Certified upper bound on the TPR of any membership attack at FPR α against T steps of Poisson-subsampled
    Gaussian DP-SGD (the upper end of `dpsgd_curve`'s band; q = 1: exactly Φ(Φ⁻¹(α) + √T/z)).

    Examples:
        >>> from dpcalc.risk.calibrate import dpsgd_tpr
        >>> round(dpsgd_tpr(1.1, 256 / 60000, 14063, 0.01), 4)
        0.0402
    """
    import numpy as np

    a = v.scalar("fpr", check_alpha(fpr))
    return float(dpsgd_curve(noise_multiplier, q, steps).tpr(np.array([a]))[1][0])


def _measure(max_tpr: float | None, at_fpr: float | None, max_advantage: float | None,
             orientation: str) -> tuple[str, float, Callable[[TradeOffCurve], float], float]:
    """(name, target, curve → certified upper value of the measure, μ-GDP μ meeting the target)."""
    import numpy as np

    from dpcalc.risk import gaussian

    o = check_orientation(orientation)
    if (max_tpr is None) == (max_advantage is None):
        raise DomainError("give exactly one target: max_tpr (with at_fpr) or max_advantage")
    if max_tpr is not None:
        if at_fpr is None:
            raise DomainError("max_tpr needs at_fpr, the false-positive rate it is measured at")
        a = v.scalar("at_fpr", check_alpha(at_fpr, "at_fpr"))
        t = v.scalar("max_tpr", v.check_range("max_tpr", max_tpr, 0.0, 1.0, lo_open=True, hi_open=True))
        if t <= a:
            raise InfeasibleError(f"max_tpr must be > at_fpr (got {t:g} <= {a:g}): a random guess already reaches "
                                  "TPR = FPR")

        def tpr_up(curve: TradeOffCurve) -> float:
            return float(curve.tpr(np.array([a]), o)[1][0])

        return f"TPR at FPR {a:g}", t, tpr_up, float(gaussian.mu_for_tpr(t, a))
    assert max_advantage is not None
    adv = v.scalar("max_advantage", v.check_range("max_advantage", max_advantage, 0.0, 1.0, lo_open=True,
                                                 hi_open=True))

    def adv_up(curve: TradeOffCurve) -> float:
        return float(curve.delta(np.zeros(1), o)[1][0])

    from scipy.special import ndtri

    return "advantage", adv, adv_up, float(2.0 * ndtri((1.0 + adv) / 2.0))


def noise_for_risk(q: float, steps: int, *, max_tpr: float | None = None, at_fpr: float | None = None,
                   max_advantage: float | None = None, orientation: str = "symmetric",
                   rtol: float = 1e-3) -> Calibration:
    """The smallest noise multiplier z (to ``rtol`` relative, rounded up) whose certified curve meets the target.

    Examples:
        >>> from dpcalc.risk import noise_for_risk
        >>> c = noise_for_risk(0.01, 1000, max_tpr=0.1, at_fpr=0.01)
        >>> round(c.value, 2), c.achieved <= 0.1
        (0.63, True)
    """
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    t = int(v.scalar("steps", v.integer_at_least("steps", steps, 1)))
    tol = v.scalar("rtol", v.check_range("rtol", rtol, 1e-6, 0.1))
    name, target, measure, mu = _measure(max_tpr, at_fpr, max_advantage, orientation)
    cache: dict[float, float] = {}

    def risk(x: float) -> float:
        if x not in cache:
            cache[x] = measure(dpsgd_curve(math.exp(x), qq, t))
        return cache[x]

    from dpcalc.accounting.gdp import sigma_from_clt_mu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)
        z0 = math.sqrt(t) / mu if qq == 1.0 else float(sigma_from_clt_mu(mu, qq, t))
    x0 = math.log(min(max(z0, 0.05), 1e3))
    s = secant_search(lambda x: math.log(max(risk(x), 1e-300)) - math.log(target), x0, increasing=False, safe="hi",
                      slope=-2.0, x_min=math.log(1e-2), x_max=math.log(1e4), xtol=tol, overshoot=tol)
    if not math.isfinite(s.hi) or risk(s.hi) > target:
        raise InfeasibleError(f"no noise multiplier up to 1e4 meets {name} <= {target:g} at q = {qq:g}, "
                              f"T = {t}")
    z = math.exp(s.hi)
    nxt = z * (1.0 - tol)
    return Calibration("noise_multiplier", z, target, risk(s.hi), name, nxt, risk(math.log(nxt)), len(cache))


def steps_for_risk(noise_multiplier: float, q: float, *, max_tpr: float | None = None,
                   at_fpr: float | None = None, max_advantage: float | None = None,
                   orientation: str = "symmetric", max_steps: int = 10**8) -> Calibration:
    """The largest number of steps T whose certified curve meets the target (an integer: exact).

    Examples:
        >>> from dpcalc.risk import steps_for_risk
        >>> c = steps_for_risk(1.0, 0.01, max_tpr=0.1, at_fpr=0.01)
        >>> c.value, c.achieved <= 0.1 < c.next_achieved
        (6324.0, True)
    """
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    name, target, measure, mu = _measure(max_tpr, at_fpr, max_advantage, orientation)
    cache: dict[int, float] = {}

    def risk(t: int) -> float:
        if t not in cache:
            cache[t] = measure(dpsgd_curve(z, qq, t))
        return cache[t]

    if risk(1) > target:
        raise InfeasibleError(f"even one step at noise multiplier {z:g}, q = {qq:g} has {name} above {target:g}")
    # the CLT guess μ² = q²T(e^{1/z²} − 1), then secant steps in log T over the integers
    t0 = (mu / qq) ** 2 / math.expm1(min(1.0 / (z * z), 700.0))
    x0 = math.log(min(max(t0, 1.0), float(max_steps)))
    s = secant_search(lambda x: math.log(max(risk(max(1, round(math.exp(x)))), 1e-300)) - math.log(target), x0,
                      increasing=True, safe="lo", slope=0.5, x_min=0.0, x_max=math.log(max_steps), xtol=1e-3)
    lo = max(1, round(math.exp(s.lo))) if math.isfinite(s.lo) else 1  # evaluated: the target met there
    if math.isfinite(s.hi):
        hi = round(math.exp(s.hi))  # evaluated: the target fails there
    elif risk(max_steps) <= target:
        raise InfeasibleError(f"{name} stays <= {target:g} up to max_steps = {max_steps}")
    else:
        hi = max_steps
    best = integer_search(lambda n: risk(n) > target, lo, hi) - 1
    return Calibration("steps", float(best), target, risk(best), name, float(best + 1), risk(best + 1), len(cache))
