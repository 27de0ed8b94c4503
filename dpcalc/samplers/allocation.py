"""ε(δ) and δ(ε) of random allocation (each record in exactly k of t steps per epoch, Gaussian noise), each value
labelled with its kind: the PLD route (`allocation_pld`, an upper bound, both orientations) or the RDP route
(`allocation_rdp`: Feldman & Shenfeld 2025's exact remove-direction RDP and an AM–GM add-direction bound, converted
to (ε, δ) by Canonne, Kamath & Steinke 2020 / Balle et al. 2020's conversion, an upper bound)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.samplers.allocation_pld import GRID, privacy_loss_components
from dpcalc.accounting.samplers.allocation_rdp import rdp_allocation
from dpcalc.accounting.samplers.params import allocation
from dpcalc.errors import DomainError

__all__ = ["ORDERS", "AllocationBound", "delta", "epsilon"]

#: RDP orders of the RDP route (integers, where the remove direction is exact)
ORDERS = np.array([2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256], dtype=float)


@dataclass(frozen=True)
class AllocationBound:
    """``value`` is ε (for `epsilon`) or δ (for `delta`); ``kind`` "upper"; ``method`` "pld" or "rdp";
    ``bracket`` the PLD accountant's (lower, upper) for the dominating pair it composed (pld only)."""

    value: float
    kind: str
    method: str
    delta: float
    eps: float
    notes: str = ""
    bracket: tuple[float, float] | None = None


def _method(method: str) -> str:
    return v.choice("method", method, ("pld", "rdp"), "the accountant of the bound")


def _rdp_eps(orders: np.ndarray, rdp: np.ndarray, d: float) -> float:
    """min over α of rdp + log1p(−1/α) − log(δα)/(α − 1) (Balle et al. 2020, Thm. 21; Canonne, Kamath & Steinke
    2020, Prop. 12)."""
    a = orders
    eps = rdp + np.log1p(-1.0 / a) - (math.log(d) + np.log(a)) / (a - 1.0)
    return float(max(0.0, eps.min()))


def epsilon(noise_multiplier: float, num_selected: int, num_steps: int, epochs: int, delta: float,
            relation: str = "add_remove", method: str = "pld", *, grid: float = GRID) -> AllocationBound:
    """Upper bound on ε(δ) of ``epochs`` epochs of random k-of-t allocation with noise multiplier z.

    Examples:
        >>> from dpcalc.samplers.allocation import epsilon
        >>> r = epsilon(2.0, 1, 10, 3, 1e-5)
        >>> r.kind, r.method, round(r.value, 3)
        ('upper', 'pld', 1.111)
    """
    a = allocation(noise_multiplier, num_selected, num_steps, epochs)
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    m = _method(method)
    if m == "rdp":
        rem, add = rdp_allocation(ORDERS, a.noise_multiplier, a.num_selected, a.num_steps, a.epochs, relation)
        e = max(_rdp_eps(ORDERS, rem, d), _rdp_eps(ORDERS, add, d))
        return AllocationBound(e, "upper", "rdp", d, e, "remove: exact RDP (Feldman & Shenfeld 2025); add: AM-GM "
                               "bound, loose by about epochs·k/(2z²)")
    from dpcalc.accounting.pld import epsilon_composed

    br = epsilon_composed(privacy_loss_components(a.noise_multiplier, a.num_selected, a.num_steps, a.epochs,
                                                  relation, grid=grid), d)
    return AllocationBound(float(br.eps_upper), "upper", "pld", d, float(br.eps_upper),
                           f"worse orientation: {br.direction}", (float(br.eps_lower), float(br.eps_upper)))


def delta(noise_multiplier: float, num_selected: int, num_steps: int, epochs: int, eps: float,
          relation: str = "add_remove", method: str = "pld", *, grid: float = GRID) -> AllocationBound:
    """Upper bound on δ(ε) of ``epochs`` epochs of random k-of-t allocation with noise multiplier z.

    Examples:
        >>> from dpcalc.samplers.allocation import delta
        >>> r = delta(2.0, 1, 10, 3, 1.0)
        >>> r.kind, r.method, r.value < 1e-3
        ('upper', 'pld', True)
    """
    a = allocation(noise_multiplier, num_selected, num_steps, epochs)
    e = v.scalar("eps", v.nonnegative("eps", eps))
    m = _method(method)
    if m == "rdp":
        rem, add = rdp_allocation(ORDERS, a.noise_multiplier, a.num_selected, a.num_steps, a.epochs, relation)
        rdp = np.maximum(rem, add)
        al = ORDERS
        # δ ≤ exp((α − 1)(rdp − ε) + α log(1 − 1/α) − log(α − 1)) (the same conversion solved for δ)
        log_d = (al - 1.0) * (rdp - e) + al * np.log1p(-1.0 / al) - np.log(al - 1.0)
        dd = float(min(1.0, math.exp(min(0.0, float(log_d.min())))))
        return AllocationBound(dd, "upper", "rdp", dd, e, "remove exact RDP, add AM-GM bound")
    if e > 700:
        raise DomainError(f"eps must be <= 700 (got {e:g})")
    from dpcalc.accounting.pld import delta_composed

    br = delta_composed(privacy_loss_components(a.noise_multiplier, a.num_selected, a.num_steps, a.epochs,
                                                relation, grid=grid), e)
    return AllocationBound(float(br.delta_upper), "upper", "pld", float(br.delta_upper), e,
                           f"worse orientation: {br.direction}", (float(br.delta_lower), float(br.delta_upper)))
