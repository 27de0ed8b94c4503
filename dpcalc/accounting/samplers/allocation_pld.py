"""A certified PLD upper bound for random allocation with the Gaussian mechanism: one round (one record in one of t
steps) as a pair of finite distributions (`dpcalc.accounting.pld.losses.AtomPair`) that dominates the round's
dominating pair P = (1/t)Σᵢ N(eᵢ, z²I_t), Q = N(0, z²I_t) (Feldman & Shenfeld 2025; Chua et al. 2025).

With Yᵢ = e^{(xᵢ − 1/2)/z²} the likelihood ratio is P/Q = S/t, S = ΣYᵢ, so
* remove: the loss log(S/t) with x ~ P: S = Y_P + (t − 1) copies of Y_Q, Y_P = e^{N(s²/2, s²)},
  Y_Q = e^{N(−s²/2, s²)}, s = 1/z;
* add: the loss −log(S/t) with x ~ Q: S = t copies of Y_Q.

The law of S is computed with every summand rounded up (remove) or down (add) to a grid (`allocation_law`), so the
computed loss is stochastically larger than the true one; losses are then rounded up to a lattice of spacing
``loss_step``. A PLD that is stochastically larger has a larger δ(ε) at every ε, alone and composed (δ(ε) =
E[(1 − e^{ε − ΣLᵢ})₊] increases in each Lᵢ), and the pair (P̃ⱼ, P̃ⱼe^{−gⱼ}) with the rest of Q at loss −∞ realises
it. Its ε from the PLD accountant's upper end is therefore an upper bound on the mechanism's, up to the FFT
round-off margin of `allocation_law` (a numerical guarantee). The bias is at most ≈ h·t/S ≈ h per round in the loss
(h = 1e-3; coarser for t above ≈ 2,500, where the grid keeps at most `allocation_law.MAX_CELLS` cells).

Below z ≈ 0.65 (t = 10) the grid this needs rounds the add direction's summands down to 0, an infinite loss of
non-negligible mass; the round is then bounded by the Gaussian mechanism itself (each step's pair is the Gaussian's,
and the hockey-stick divergence is jointly convex), which `privacy_loss` returns instead.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.pld.losses import AtomPair, PrivacyLoss, Relation
from dpcalc.accounting.samplers.allocation_law import MAX_CELLS, sum_law
from dpcalc.accounting.samplers.params import allocation
from dpcalc.errors import DomainError

__all__ = ["GRID", "LOSS_STEP", "TAIL", "privacy_loss", "privacy_loss_components"]

#: grid spacing of the summands Yᵢ (E[Y] = 1): the loss is overstated by at most ≈ this much per round (coarsened
#: when the sum's range would need more than `allocation_law.MAX_CELLS` cells, i.e. t above ≈ 2,500)
GRID = 1e-3
#: lattice spacing the losses are rounded up to
LOSS_STEP = 1e-4
#: probability of the sum beyond the grid's cap (its loss is counted as +∞)
TAIL = 1e-12
_LOSS_FLOOR = -12.0  # losses below are raised to it (rounding up; their δ contribution is nil)
#: above this mass at an infinite loss (the add law's S̃ = 0) the round is bounded by the Gaussian (z < ≈ 0.65)
_P_ZERO_MAX = 1e-10


def _log_cap(s: float, t: int, mu: float) -> float:
    """log of the grid's cap t + e^{μ + s·Φ⁻¹(1 − TAIL/t)} (in logs: the exponent passes 709 below z ≈ 0.032)."""
    from scipy.special import ndtri

    return float(np.logaddexp(math.log(t), mu + s * float(ndtri(1.0 - TAIL / t))))


def _log_p_zero(s: float, t: int, grid: float) -> float:
    """log P(S̃ = 0) of the add direction's law (every one of the t summands Y_Q = e^{N(−s²/2, s²)} rounded down to
    0 on the grid of `_round_pairs`): the mass at loss +∞ the pair would carry."""
    from scipy.special import log_ndtr

    log_h = max(math.log(grid), _log_cap(s, t, s * s / 2.0) - math.log(MAX_CELLS - 2))
    return t * float(log_ndtr((log_h + s * s / 2.0) / s))


def _atoms(loss: np.ndarray, p: np.ndarray, p_inf: float, step: float) -> AtomPair:
    """(P, Q) on the losses rounded up to the lattice step·ℤ: P̃ⱼ = Σ of the masses, Q̃ⱼ = P̃ⱼe^{−gⱼ}, the rest of Q on
    an outcome P never takes, and ``p_inf`` on an outcome Q never takes."""
    keep = p > 0.0
    idx = np.ceil(np.maximum(loss[keep], _LOSS_FLOOR) / step).astype(np.int64)
    lo = int(idx.min())
    pj = np.bincount(idx - lo, weights=p[keep])
    g = (np.arange(pj.size) + lo) * step
    nz = pj > 0.0
    pj, g = pj[nz], g[nz]
    qj = pj * np.exp(-g)
    rest = max(0.0, 1.0 - math.fsum(qj.tolist()))
    return AtomPair((*tuple(pj.tolist()), 0.0, p_inf), (*tuple(qj.tolist()), rest, 0.0))


@lru_cache(maxsize=16)
def _round_pairs(noise_multiplier: float, num_steps: int, grid: float, loss_step: float) -> tuple[AtomPair, AtomPair]:
    s = 1.0 / noise_multiplier
    t = num_steps
    if t == 1:  # no sampling: the Gaussian itself (the record is always in the one step)
        raise DomainError("num_steps must be >= 2 for an allocation PLD (one step is the Gaussian mechanism)")
    cap_up, cap_down = math.exp(_log_cap(s, t, s * s / 2.0)), math.exp(_log_cap(s, t, -s * s / 2.0))
    h = max(grid, cap_up / (MAX_CELLS - 2))
    up = sum_law(s, t - 1, True, h, cap_up, round_up=True)
    j = np.arange(up.mass.size, dtype=np.float64)
    with np.errstate(divide="ignore"):
        rem_loss = np.log(j * h / t)
    remove = _atoms(rem_loss, up.mass, up.over, loss_step)
    down = sum_law(s, t, False, h, cap_down, round_up=False)
    p0 = float(down.mass[0])  # S̃ = 0: loss +∞
    with np.errstate(divide="ignore"):
        add_loss = -np.log(j[1: down.mass.size] * h / t)
    add = _atoms(add_loss, down.mass[1:], p0, loss_step)
    return remove, add


def privacy_loss(noise_multiplier: float, num_steps: int, relation: str = "add_remove", *, grid: float = GRID,
                 loss_step: float = LOSS_STEP) -> PrivacyLoss:
    """One round of random allocation (the record in one uniformly random step of ``num_steps``, Gaussian noise
    multiplier z): a `PrivacyLoss` whose pairs dominate the mechanism's in both orientations (module docstring).
    add_remove or replace_special (a special record contributes nothing: the same pair); replace_one is refused.

    Examples:
        >>> from dpcalc.accounting.samplers.allocation_pld import privacy_loss
        >>> from dpcalc.accounting.pld import epsilon_composed
        >>> loss = privacy_loss(2.0, 10)
        >>> loss.description, round(epsilon_composed([(loss, 1)], 1e-5).eps_upper, 3)
        ('random_allocation(gaussian(2), 1 of 10 steps)', 0.622)
    """
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    t = int(v.scalar("num_steps", v.integer_at_least("num_steps", num_steps, 2)))
    g = v.scalar("grid", v.check_range("grid", grid, 0.0, 0.1, lo_open=True))
    ls = v.scalar("loss_step", v.check_range("loss_step", loss_step, 0.0, 0.1, lo_open=True))
    rel = _relation(relation)
    if _log_p_zero(1.0 / z, t, g) > math.log(_P_ZERO_MAX):
        # small z: the summands' range outgrows the grid, which rounds them down to 0 (an infinite loss of mass up
        # to 1, or a grid beyond float64). The Gaussian dominates the round (joint convexity of the hockey-stick
        # divergence over the record's step: each step's pair is the Gaussian's) and is the bound instead.
        from dpcalc.accounting.pld import gaussian

        return gaussian(z, 1.0, rel)
    remove, add = _round_pairs(z, t, g, ls)
    return PrivacyLoss(f"random_allocation(gaussian({z:.10g}), 1 of {t} steps)", rel, remove, add, False)


def _relation(relation: str) -> Relation:
    if relation not in ("add_remove", "replace_special"):
        raise DomainError(f"relation must be add_remove or replace_special for random allocation (got "
                          f"{v.brief(relation)}): under replace_one the record keeps its step, a pair not bounded here")
    return relation  # type: ignore[return-value]


def privacy_loss_components(noise_multiplier: float, num_selected: int, num_steps: int, epochs: int = 1,
                            relation: str = "add_remove", *, grid: float = GRID,
                            loss_step: float = LOSS_STEP) -> list[tuple[PrivacyLoss, int]]:
    """The run as PLD components: k·epochs rounds of 1 out of ⌊t/k⌋ (k = num_selected; Feldman & Shenfeld 2025:
    a k-of-t allocation is dominated by k allocations of one step out of ⌊t/k⌋). When ⌊t/k⌋ = 1 the round is the
    Gaussian mechanism itself (the record is in every step)."""
    a = allocation(noise_multiplier, num_selected, num_steps, epochs)
    if a.steps_per_round == 1:
        from dpcalc.accounting.pld import gaussian

        return [(gaussian(a.noise_multiplier, 1.0, _relation(relation)), a.rounds)]
    return [(privacy_loss(a.noise_multiplier, a.steps_per_round, relation, grid=grid, loss_step=loss_step),
             a.rounds)]
