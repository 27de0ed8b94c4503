"""The privacy loss of a pair of Laplace mixtures in closed form: where it takes a given value.

Between two consecutive shifts every term e^{−|x − s|/b} of either density is e^{∓(x − s)/b}, so with y = e^{(x − m)/b}
(m the segment's midpoint) P ∝ A₋/y + A₊·y and Q ∝ B₋/y + B₊·y, and P/Q = e^g at y² = (A₋ − e^g·B₋)/(e^g·B₊ − A₊).
The loss is monotone in x (`atoms`), so each lattice point's segment is found from the loss at the shifts.
"""

from __future__ import annotations

import numpy as np

from dpcalc.accounting.pld.common import FloatArray
from dpcalc.accounting.pld.losses import NoisePair

__all__ = ["laplace_preimages"]


def _log_side(shifts: tuple[float, ...], weights: tuple[float, ...], m: FloatArray, b: float,
              below: bool) -> FloatArray:
    """log of the coefficient A₋ (``below``: shifts at or left of the segment) or A₊ (shifts at or right of it) of
    each segment with midpoint ``m``: log Σ w·e^{∓(m − s)/b} over those shifts (−inf without any)."""
    s = np.array(shifts)[:, None]
    w = np.array(weights)[:, None]
    side = (s < m[None, :]) if below else (s > m[None, :])
    with np.errstate(divide="ignore"):
        terms = np.where(side & (w > 0), np.log(np.where(w > 0, w, 1.0)) + (s - m[None, :]) / b * (1 if below else -1),
                         -np.inf)
    top = terms.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(np.exp(terms - safe).sum(axis=0)) + safe)


def _log_diff(la: FloatArray, lb: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(sign, log |e^{la} − e^{lb}|), without overflow."""
    hi, lo = np.maximum(la, lb), np.minimum(la, lb)
    with np.errstate(invalid="ignore", divide="ignore"):
        mag = hi + np.log(-np.expm1(np.where(np.isfinite(hi), lo - hi, -np.inf)))
    return np.sign(la - lb), mag


def laplace_preimages(pair: NoisePair, g: FloatArray, x_lo: float, x_hi: float) -> FloatArray:
    """x in [x_lo, x_hi] with loss(x) = g for each g (a Laplace pair, the loss monotone on [x_lo, x_hi]; a g outside
    the loss's range there goes to the nearer end).

    Parameters
    ----------
    pair : NoisePair
    g : FloatArray
    x_lo : float
    x_hi : float

    Returns
    -------
    FloatArray
    """
    b = pair.scale
    knots = np.unique(np.clip(np.array(pair.p_shifts + pair.q_shifts + (x_lo, x_hi)), x_lo, x_hi))
    if knots.size < 2:
        return np.full(np.shape(g), x_lo)
    m = 0.5 * (knots[1:] + knots[:-1])
    la_m, la_p = (_log_side(pair.p_shifts, pair.p_weights, m, b, below) for below in (True, False))
    lb_m, lb_p = (_log_side(pair.q_shifts, pair.q_weights, m, b, below) for below in (True, False))
    # the loss at each knot, from the segment on its right (the last from the left one): y = e^{±half/b}
    half = 0.5 * (knots[1:] - knots[:-1])
    edge_y2 = np.concatenate([-2.0 * half / b, [2.0 * half[-1] / b]])  # log y² at each knot
    seg = np.concatenate([np.arange(m.size), [m.size - 1]])
    lp = np.logaddexp(la_m[seg], la_p[seg] + edge_y2)
    lq = np.logaddexp(lb_m[seg], lb_p[seg] + edge_y2)
    knot_loss = lp - lq
    incr = knot_loss[-1] >= knot_loss[0]
    sign = 1.0 if incr else -1.0
    gg = np.asarray(g, dtype=np.float64)
    i = np.clip(np.searchsorted(sign * knot_loss, sign * gg, side="right") - 1, 0, m.size - 1)
    # y² = (A₋ − e^g B₋)/(e^g B₊ − A₊) on segment i
    s_num, l_num = _log_diff(la_m[i], gg + lb_m[i])
    s_den, l_den = _log_diff(gg + lb_p[i], la_p[i])
    with np.errstate(invalid="ignore"):
        x = m[i] + 0.5 * b * (l_num - l_den)
    ok = (s_num == s_den) & (s_num != 0) & np.isfinite(x)
    # no interior root (g at or beyond the segment's loss range, or a flat segment): the nearer end
    end = np.where(sign * gg <= sign * knot_loss[i], knots[i], knots[i + 1])
    return np.clip(np.where(ok, x, end), knots[i], knots[i + 1])
