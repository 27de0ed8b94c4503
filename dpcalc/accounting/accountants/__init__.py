"""Accountants, one registry: each takes an event (a training run is one), a neighbouring relation and δ (or ε) and
returns the one result type (`dpcalc.accounting.result.PrivacyResult`).

| name | kind | method |
|---|---|---|
| ``rdp`` | upper | the event's Rényi curve, improved conversion (Balle et al. 2020) |
| ``rdp-lemma1`` | upper | the same curve, classic conversion (Mironov 2017, Prop. 3) |
| ``zcdp`` | upper | Gaussian noise without sampling: ρ = μ²/2, tight zCDP conversion |
| ``analytic`` | exact | Gaussian noise without sampling: the analytic Gaussian at σ = 1/μ (Balle & Wang 2018) |
| ``gdp-clt`` | estimate | Poisson-subsampled Gaussians: the μ-GDP central limit theorem (can underestimate) |
| ``pld`` | bracket | dpcalc's PLD: certified ε_lower <= ε <= ε_upper |
| ``exact`` | exact | μ-GDP of Gaussian noise without sampling; finite sums of randomized response and (ε, δ) releases |
| ``shuffle-lower`` | lower | shuffled fixed-size batches: a certified lower bound (Chua et al. 2024) |

`headline` names the accountant whose answer a command leads with: the exact one where it applies, else the PLD,
else RDP.
"""

from __future__ import annotations

# imported in display order: each module registers its accountants
from dpcalc.accounting.accountants import (  # noqa: F401
    exact,
    gaussian_forms,
    gdp_clt,
    pld,
    rdp,
    shuffle_lower,
)
from dpcalc.accounting.accountants.base import ACCOUNTANTS, ATOL, RTOL, Accountant, Options, get, names

__all__ = ["ACCOUNTANTS", "ATOL", "HEADLINE_ORDER", "RTOL", "Accountant", "Options", "get", "names"]

#: the accountants a headline is taken from, in order of preference (the first that applies)
HEADLINE_ORDER = ("exact", "pld", "rdp")
