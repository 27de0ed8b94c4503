"""What a tight accountant saves on NbAFL's client noise (Wei et al. 2020; the paper's §6 "future work").

NbAFL sets σ_U = cLΔs_U/ε by linear composition (Thm 1): each of the L exposures of a client's update is a
Gaussian mechanism with L2 sensitivity Δs_U = 2C/m and noise multiplier z = σ_U/Δs_U = cL/ε. For that schedule
(L-fold composition of one Gaussian mechanism, no subsampling) this module reports, per accountant of the
accounting core,

* ``eps`` — the ε it certifies at the same δ for the paper's σ_U, and
* ``sigma_u`` — the σ_U it needs for the paper's ε at δ (safe side: its ε at that σ_U is <= the paper's ε),

with ``noise_saved = 1 − sigma_u/σ_U(paper)``. Accountants: ``linear`` (the paper), ``rdp`` (Mironov et al. 2019,
improved conversion), ``analytic`` (exact: L Gaussians compose to one with z/√L; Balle & Wang 2018), ``gdp``
(μ = √L/z, exact for Gaussians; Dong, Roth & Su 2022), and ``pld`` (dpcalc's own certified PLD,
`dpcalc.accounting.pld`: ε is its certified upper end ε_upper, σ its safe-side calibration to ~1e-3).

Caveat: the paper's linear composition of L (ε/L, δ) releases strictly gives (ε, Lδ); like the paper we compare at
δ. For per-release ε/L >= 1 the classic σ is not a guarantee (the ``analytic`` ε can exceed the paper's ε — then
``noise_saved`` is negative: the paper under-noises).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.errors import DomainError, DpcalcError, OutOfDomainWarning

__all__ = ["AccountantRow", "AccountingComparison", "compare_accountants"]


@short_repr
@dataclass(frozen=True)
class AccountantRow:
    """One accountant's view of the NbAFL client schedule."""

    accountant: str
    bound: str
    eps: float | None
    sigma_u: float | None
    noise_saved: float | None
    failure: str | None = None  # why this accountant gave no number (the other rows are still valid)


@short_repr
@dataclass(frozen=True)
class AccountingComparison:
    """The paper's (ε, δ, L) schedule under every accountant (rows in display order)."""

    eps: float
    delta: float
    L: int
    sensitivity: float
    sigma_u_paper: float
    noise_multiplier: float
    rows: tuple[AccountantRow, ...]

    def row(self, name: str) -> AccountantRow:
        for r in self.rows:
            if r.accountant == name:
                return r
        raise KeyError(name)


def _core_eps(name: str, z: float, steps: int, delta: float) -> float:
    if name == "gdp":
        from dpcalc.accounting import gdp

        return float(gdp.eps_from_mu(math.sqrt(steps) / z, delta))
    if name == "pld":
        from dpcalc.accounting import pld

        return float(pld.epsilon_subsampled_gaussian(z, 1.0, steps, delta).eps_upper)
    from dpcalc.accounting import schedule

    return float(schedule.epsilon(z, 1.0, steps, delta, accountant=name))


def _core_sigma(name: str, eps: float, steps: int, delta: float) -> float:
    """Noise multiplier z the accountant needs for ε at δ over ``steps`` Gaussian releases (safe side)."""
    if name == "gdp":
        from dpcalc.accounting import gdp

        return math.sqrt(steps) / float(gdp.mu_from_eps(eps, delta))
    from dpcalc.accounting import schedule  # the PLD's σ is certified (ε_upper <= ε), to its default 1e-3

    return float(schedule.sigma_for_eps(eps, delta, 1.0, steps, accountant=name))


_BOUNDS = {"rdp": "upper", "analytic": "exact", "gdp": "exact", "pld": "upper"}


@v.scalar_params
def compare_accountants(eps: float, delta: float = 0.01, *, C: float = 20.0, m: float = 100, L: int = 1,
                        c_scale: float = 1.25,
                        accountants: tuple[str, ...] | None = None) -> AccountingComparison:
    """The paper's σ_U vs what each accountant certifies and needs (module doc). ``accountants`` defaults to
    ``linear, rdp, analytic, gdp, pld``.

    Parameters
    ----------
    eps : float
        Privacy level ε.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    C : float
    m : float
    L : int
    c_scale : float
    accountants : tuple[str, ...] | None

    Returns
    -------
    AccountingComparison

    Raises
    ------
    DomainError
        An input (``eps``, ``delta``, ``L``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    OutOfDomainWarning
        A result outside the formula's proven domain.

    Examples
    --------
    >>> from dpcalc.nbafl import compare_accountants
    >>> comparison = compare_accountants(0.5, accountants=('rdp', 'analytic'))
    >>> comparison.sigma_u_paper
    3.1075114600923954
    >>> for row in comparison.rows:
    ...     print(row.accountant, row.eps, row.sigma_u)
    ...
    rdp 0.19018502915169652 1.5069570636834477
    analytic 0.13789292175580414 1.2587652394439233
    """
    from dpcalc.nbafl.noise import client_sensitivity, client_sigma

    e = v.scalar("eps", v.positive("eps", eps))
    d = v.scalar("delta", v.probability("delta", delta))
    steps = int(v.scalar("L", v.integer_at_least("L", L, 1)))
    sens = float(v.finite_result("sensitivity", np.asarray(client_sensitivity(C, m)),
                                 "C is too large (the sensitivity 2C/m overflows float64)"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OutOfDomainWarning)  # the point of the table; warned once below
        sigma_paper = float(v.finite_result("sigma_u", np.asarray(client_sigma(e, d, C=C, m=m, L=steps,
                                                                                c_scale=c_scale)),
                                            "C or c_scale is too large, or eps too small (sigma_U overflows float64)"))
    if e / steps >= 1.0:
        v.warn(f"per-release eps = {e / steps:g} >= 1: the paper's classic sigma_U is not a guarantee there "
               "(see the 'analytic' row for the exact eps)", OutOfDomainWarning)
    z = sigma_paper / sens
    names = accountants or ("linear", "rdp", "analytic", "gdp", "pld")
    rows = []
    for name in names:
        if name == "linear":
            rows.append(AccountantRow("linear", "paper (Thm 1)", e, sigma_paper, 0.0))
            continue
        if name not in _BOUNDS:
            raise DomainError(f"accountants must each be one of linear, {', '.join(_BOUNDS)} (got {name!r})")
        try:
            eps_acc = _core_eps(name, z, steps, d)
            sigma_acc = _core_sigma(name, e, steps, d) * sens
        except (DpcalcError, RuntimeError) as exc:  # one accountant failing never hides the others
            reason = " ".join(str(exc).split())
            reason = reason if reason.startswith(f"{name}:") else f"{name}: {reason}"
            rows.append(AccountantRow(name, _BOUNDS[name], None, None, None, reason))
            continue
        rows.append(AccountantRow(name, _BOUNDS[name], eps_acc, sigma_acc, 1.0 - sigma_acc / sigma_paper))
    return AccountingComparison(e, d, steps, sens, sigma_paper, z, tuple(rows))
