"""The GDP central-limit estimate (``gdp-clt``): T Poisson-subsampled Gaussian steps are approximately μ-GDP with
μ = √(Σ_t q_t²(e^{1/z_t²} − 1)) (Bu et al. 2020; Dong, Roth & Su 2022, Cor. 5.4 and Thm. 3.5). An asymptotic
approximation, not a bound: it can be below the true ε (Gopi et al. 2021); every result says so in its notes and
raises an `EstimateWarning` (unless ``options.warn`` is off: `dpcalc.accounting.account.account` lists it beside the
guaranteed accountants, labelled an estimate, without the warning)."""

from __future__ import annotations

import math

import numpy as np

from dpcalc import _validate as v
from dpcalc._numerics import log_expm1
from dpcalc.accounting.accountants.base import Accountant, Options, register
from dpcalc.accounting.events.base import Event, NotAccountable
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError, EstimateWarning

__all__ = ["GdpClt", "clt_mu"]

_NEEDS = "needs a schedule of Poisson-subsampled Gaussian steps (add-remove or replace-special)"


def clt_mu(steps: list[tuple[float, float, int]]) -> float:
    """μ of the central limit theorem for the steps ``(noise multiplier z, q, count)``, in log space."""
    z = np.array([s[0] for s in steps], dtype=np.float64)
    q = np.array([s[1] for s in steps], dtype=np.float64)
    n = np.array([s[2] for s in steps], dtype=np.float64)
    with np.errstate(divide="ignore"):
        terms = np.log(n) + 2.0 * np.log(q) + log_expm1(1.0 / (z * z))
    top = float(np.max(terms))
    log_mu = 0.5 * (top + math.log(float(np.sum(np.exp(terms - top)))))
    if log_mu > 700.0:
        raise DomainError("gdp-clt: the noise is too small (the CLT mu overflows float64)")
    return math.exp(log_mu)


@register
class GdpClt(Accountant):
    name = "gdp-clt"
    kind = "estimate"
    description = "μ-GDP central limit theorem (Bu et al. 2020); can underestimate"
    reference = "Gaussian DP central limit theorem: Bu et al. 2020; Dong, Roth & Su 2022"

    def steps(self, event: Event, relation: Relation) -> list[tuple[float, float, int]]:
        steps = event.poisson_gaussian(relation)
        if not steps:
            raise NotAccountable(f"gdp-clt cannot account {event.CLASS_NAME}: it {_NEEDS}")
        return steps

    def supports(self, event: Event, relation: Relation) -> str | None:
        return None if event.poisson_gaussian(relation) else f"gdp-clt {_NEEDS}"

    def _warn(self, options: Options) -> tuple[str, ...]:
        from dpcalc.accounting.gdp import CLT_WARNING

        if options.warn:
            v.warn(CLT_WARNING, EstimateWarning)
        return ("the gdp-clt value is an estimate, not a bound: it can be below the true ε",)

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import gdp

        mu = clt_mu(self.steps(event, relation))
        notes = self._warn(options)
        return self.result(event, relation, float(gdp.eps_from_mu(mu, delta)), delta=delta, details={"mu": mu},
                           notes=notes)

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import gdp

        mu = clt_mu(self.steps(event, relation))
        notes = self._warn(options)
        return self.result(event, relation, float(gdp.delta(mu, eps)), eps=eps, details={"mu": mu}, notes=notes)
