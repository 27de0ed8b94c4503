"""The lower pair's second channel: labels borrow mass from their neighbours until each atom's loss is at least its
lattice point (a post-processing, so the pair stays dominated)."""

from __future__ import annotations

import numpy as np

from dpcalc.accounting.pld.common import MARGIN, FloatArray

__all__ = ["relabel"]


def relabel(p: FloatArray, qs: FloatArray, g: FloatArray, first: np.ndarray | None = None,
            last: np.ndarray | None = None) -> tuple[FloatArray, FloatArray]:
    """Post-processing of the hat channel's labels: label j keeps a fraction k_j of its own (P, Q) mass and takes
    φ_j of label j+1 (when P_j/Q_j < e^{g_j}) or ψ_j of label j−1 (when P_j/Q_j > e^{g_j}) so that its ratio lands at
    e^{g_j}·(1 + 2·margin) or above. ψ is computed with the smallest own fraction k that the lending can leave, so
    the real ratio is never below the target (more own mass only raises it).

    Q-masses are passed and returned scaled by each label's own e^{g_j} (``qs_j = Q_j e^{g_j}``, comparable to P_j),
    so nothing overflows at large losses. ``first``/``last`` mark the first/last label of each step when several
    steps' labels are concatenated (no lending across them); default: one step.

    Parameters
    ----------
    p : FloatArray
    qs : FloatArray
    g : FloatArray
    first : np.ndarray | None
    last : np.ndarray | None

    Returns
    -------
    tuple[FloatArray, FloatArray]
    """
    if first is None or last is None:
        first = np.zeros(p.size, dtype=bool)
        last = np.zeros(p.size, dtype=bool)
        first[0] = last[-1] = True

    inner_last = np.flatnonzero(last[:-1])  # step boundaries inside the arrays
    inner_first = np.flatnonzero(first[1:]) + 1

    def up(a: FloatArray) -> FloatArray:  # a[j+1] at j, 0 at the last label of a step
        out = np.append(a[1:], 0.0)
        out[inner_last] = 0.0
        return out

    def down(a: FloatArray) -> FloatArray:  # a[j−1] at j, 0 at the first label of a step
        out = np.concatenate([[0.0], a[:-1]])
        out[inner_first] = 0.0
        return out

    m2 = 1.0 + 2.0 * MARGIN
    dg = np.diff(g)
    with np.errstate(over="ignore"):
        e_up = np.append(np.exp(-dg), 0.0)  # e^{g_j − g_{j+1}}
        e_up[inner_last] = 0.0
        e_dn = np.concatenate([[0.0], np.exp(dg)])  # e^{g_j − g_{j−1}}
        e_dn[inner_first] = 0.0
    qs_up = up(qs) * e_up  # Q_{j+1}·e^{g_j}
    qs_dn = down(qs) * e_dn  # Q_{j−1}·e^{g_j}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        need = m2 * qs - p  # > 0: ratio below target
        spare_up = up(p) - m2 * qs_up  # label above, measured against this label's target
        phi = np.where((need > 0) & (spare_up > 0), np.minimum(need / spare_up, 1.0), 0.0)
        lack_dn = m2 * qs_dn - down(p)  # label below lacks mass against this label's target
        excess = -need
        psi1 = np.where((excess > 0) & (lack_dn > 0), excess / lack_dn, 0.0)  # may be +inf (lack_dn tiny)
        lent1 = down(phi) + up(np.minimum(psi1, 1.0))
        k_min = np.clip(1.0 - lent1, 0.0, 1.0)
        psi = np.where((psi1 > 0) & (k_min > 0), np.minimum(k_min * psi1, 1.0), 0.0)  # k_min = 0: nothing (no 0·inf)
        lent = down(phi) + up(psi)
        over = np.maximum(lent, 1.0)  # a label cannot lend more than all of itself
        over_up = np.append(over[1:], 1.0)
        over_up[inner_last] = 1.0
        over_dn = np.concatenate([[1.0], over[:-1]])
        over_dn[inner_first] = 1.0
        phi_a = phi / over_up
        psi_a = psi / over_dn
        keep = 1.0 - (down(phi_a) + up(psi_a))
    keep = np.clip(keep, 0.0, 1.0)
    p2 = keep * p + phi_a * up(p) + psi_a * down(p)
    qs2 = keep * qs + phi_a * qs_up + psi_a * qs_dn
    return p2, qs2

