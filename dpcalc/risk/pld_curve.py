"""The certified trade-off curve of any composition from its PLD: β(α) between a lower end (the guarantee) and an
upper end, from the profile's δ brackets (`dpcalc.risk.profile`) through the duality (`dpcalc.risk.duality`).

The lattice is refined (spacing halved, at most `MAX_REFINE` times) until the band at the asked FPRs is at most
``rtol·TPR_upper + atol`` wide; every lattice's band is valid, so their intersection is kept. A band still wider
after the last refinement is returned as it is (valid, ``converged`` False) — never narrowed by hand.
"""

from __future__ import annotations

import numpy as np

from dpcalc import _validate as v
from dpcalc._validate import FloatArray
from dpcalc.errors import DomainError
from dpcalc.risk.curve import TradeOffCurve, check_orientation
from dpcalc.risk.duality import beta_bounds
from dpcalc.risk.gaussian import GaussianCurve
from dpcalc.risk.profile import Components, PrivacyProfile, components_of, gaussian_mu, pld_profile, schedule_of

__all__ = ["ATOL", "MAX_REFINE", "RTOL", "PldCurve", "tradeoff_curve"]

#: default band tolerance on TPR: width ≤ RTOL·TPR_upper + ATOL
RTOL = 1e-2
ATOL = 1e-4
MAX_REFINE = 2


def _tolerances(rtol: float, atol: float) -> tuple[float, float]:
    return v.scalar("rtol", v.nonnegative("rtol", rtol)), v.scalar("atol", v.nonnegative("atol", atol))


class PldCurve(TradeOffCurve):
    """β(α) of a composition with certified ends (``kind = "certified"``)."""

    kind = "certified"

    def __init__(self, components: Components, *, rtol: float = RTOL, atol: float = ATOL) -> None:
        self.components = components_of(components)
        self.rtol, self.atol = _tolerances(rtol, atol)
        self.profiles: list[PrivacyProfile] = []
        self.converged = True

    @property
    def description(self) -> str:  # type: ignore[override]
        return self.profile(0).description

    def profile(self, level: int) -> PrivacyProfile:
        """The profile at lattice refinement ``level`` (built on first use)."""
        from dpcalc.risk.profile import lattice

        while len(self.profiles) <= level:
            steps = schedule_of(self.components)
            if steps is None and self.profiles:
                break  # the generic profile has no lattice to refine
            grid = None if steps is None else lattice(steps, len(self.profiles))
            self.profiles.append(pld_profile(self.components, grid=grid))
        return self.profiles[min(level, len(self.profiles) - 1)]

    def _check(self, orientation: str) -> str:
        o = check_orientation(orientation)
        if o != "symmetric" and not self.profile(0).oriented:
            raise DomainError(f"orientation {o!r} needs a (Poisson-subsampled) Gaussian composition; for "
                              f"{self.description} only the symmetric curve is certified")
        return o

    def beta(self, alpha: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        o = self._check(orientation)
        a = np.asarray(alpha, dtype=np.float64)
        lo = np.zeros_like(a)
        up = 1.0 - a
        for level in range(MAX_REFINE + 1):
            prof = self.profile(level)
            d_in, d_out = prof.pair(o)
            b_lo, b_up = beta_bounds(a, prof.eps, d_in, d_out)
            lo, up = np.maximum(lo, b_lo), np.minimum(up, b_up)
            if np.all(up - lo <= self.rtol * (1.0 - lo) + self.atol) or (level >= len(self.profiles) - 1 and \
                    schedule_of(self.components) is None):
                self.converged = True
                break
        else:
            self.converged = False
        return lo, np.maximum(up, lo)

    def delta(self, eps: FloatArray, orientation: str = "symmetric") -> tuple[FloatArray, FloatArray]:
        o = self._check(orientation)
        lo, up = self.profile(0).delta(np.asarray(eps, dtype=np.float64), o)
        for prof in self.profiles[1:]:  # refined lattices (already built) narrow the bracket
            lo2, up2 = prof.delta(np.asarray(eps, dtype=np.float64), o)
            lo, up = np.maximum(lo, lo2), np.minimum(up, up2)
        return lo, up


def tradeoff_curve(components: Components, *, rtol: float = RTOL, atol: float = ATOL) -> TradeOffCurve:
    """The trade-off curve of a composition of privacy losses: exactly G_μ when every loss is a Gaussian without
    sampling, else the certified PLD curve.

    Examples:
        >>> from dpcalc.accounting import pld
        >>> from dpcalc.risk import tradeoff_curve
        >>> tradeoff_curve([(pld.gaussian(2.0), 4)]).description
        '1-GDP'
        >>> curve = tradeoff_curve([(pld.poisson(pld.gaussian(1.0), 0.01), 1000)])
        >>> lo, up = curve.tpr([0.01])
        >>> bool(0.0 < up[0] - lo[0] < 1e-3)
        True
    """
    comps = components_of(components)
    rtol, atol = _tolerances(rtol, atol)
    mu = gaussian_mu(comps)
    if mu is not None:
        return GaussianCurve(mu)
    return PldCurve(comps, rtol=rtol, atol=atol)
