"""Shared constants of the PLD accountant and its memory guard (the FFT length cap, the error margins)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from dpcalc.errors import DomainError
from dpcalc.typing import FloatArray

__all__ = ["ATOL", "DELTA_MIN", "MARGIN", "MAX_FFT", "RTOL", "TAU", "UNIT_ROUNDOFF", "WINDOW_SHARE", "Direction",
           "FloatArray", "MemoryCapError", "check_points", "tail_mass", "window_tau"]

Direction = Literal["remove", "add"]

#: Largest FFT length (points); below it the memory cap of `dpcalc._limits` (default 2 GiB, ≈112 bytes per
#: point, i.e. ≈19 million points) decides.
MAX_FFT = 1 << 27
#: Smallest δ the accountant certifies (below it the lattice needed exceeds the memory cap).
DELTA_MIN = 1e-50
#: Default relative bracket width: ε_upper − ε_lower ≤ RTOL·ε_upper + ATOL.
RTOL = 1e-3
#: Default absolute floor of the bracket width (nats): a tiny ε (σ = 1e3, q = 0.01, T = 10: ε ≈ 4e-6) does not ask
#: for a lattice finer than this (a relative 1e-3 of it needed 3e7 points and hit the memory cap after 12 s).
ATOL = 1e-6
UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2.0
MARGIN = 1e-9  # relative safety margin for quadrature / summation rounding
TAU = 1e-7  # share of δ given to each truncation / aliasing term
#: the FFT window's truncation and aliasing terms may cost the bracket this share of its asked relative width
WINDOW_SHARE = 0.01


def window_tau(rtol: float) -> float:
    """The share τ of δ each truncation term of an FFT pass is held below (the window's upper tail and aliasing; a
    schedule's steps' neglected tails, `passes.tail_mass`), for a bracket asked to relative width ``rtol``:
    WINDOW_SHARE·rtol, at least `TAU`. The terms are charged as computed (the bracket stays valid for any τ); they
    move ε by about τ/θ* ≲ τ·ε (θ*·ε is the log of about 1/δ), about 1 % of the width asked, while the window
    shrinks with log(1/(τδ)) and the lattices with the tails' quantile: at the default rtol = 1e-3, τ = 1e-5 (the
    Poisson-subsampled Gaussian ×1,000: 8,640 FFT points instead of 10,800, 1,103 dots instead of 1,616)."""
    return max(TAU, WINDOW_SHARE * rtol)


def tail_mass(total: int, delta: float, tau: float = TAU) -> float:
    """The P-mass each of ``total`` composed steps leaves out of its lattice on each side: τδ/(4T), τ the share of δ
    of a pass's truncation terms (`window_tau`; `TAU` by default). The left-out mass is charged (to +∞ or the lowest
    atom), so τ sets only how much of δ it may take."""
    return tau * delta / (4.0 * total)


class MemoryCapError(DomainError):
    """The requested accuracy needs more memory than the cap (`dpcalc._limits`) or `MAX_FFT` points."""


_BYTES_PER_POINT = 112  # peak working memory per grid point (both pairs' arrays, spectra and δ-curves)


def check_points(npts: int, what: str, h: float) -> None:
    """Raise `MemoryCapError` before allocating ``npts`` grid points beyond the memory cap or MAX_FFT.

    Parameters
    ----------
    npts : int
    what : str
    h : float
    """
    from dpcalc import _limits

    need = npts * _BYTES_PER_POINT
    cap = _limits.max_memory()
    if npts > MAX_FFT or need > cap:
        limit = (f"the cap of {MAX_FFT} points" if npts > MAX_FFT else
                 f"the memory cap of {_limits.human(cap)} (raise it with --max-memory or {_limits.ENV_VAR})")
        raise MemoryCapError(f"pld: {what} needs {npts:.3g} grid points at spacing {h:.3g}, about "
                             f"{_limits.human(need)} of memory, over {limit}; or loosen rtol, or use rdp")

