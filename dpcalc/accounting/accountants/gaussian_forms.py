"""Accountants for Gaussian noise without sampling (an exact μ-GDP event): ``zcdp`` (ρ = μ²/2 and the tight zCDP
conversion; Bun & Steinke 2016, Canonne, Kamath & Steinke 2020) and ``analytic`` (the analytic Gaussian mechanism
at σ = 1/μ; Balle & Wang 2018)."""

from __future__ import annotations

from dpcalc.accounting.accountants.base import Accountant, Options, register
from dpcalc.accounting.events.base import Event, NotAccountable
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import PrivacyResult

__all__ = ["Analytic", "Zcdp"]

_NEEDS = ("needs Gaussian noise without sampling (an exact μ-GDP event: Gaussians, tree aggregation, their "
          "compositions, a training run at q = 1)")


class _GaussianForm(Accountant):
    def mu(self, event: Event, relation: Relation) -> float:
        mu = event.gaussian_mu(relation)
        if mu is None:
            raise NotAccountable(f"{self.name} cannot account {event.CLASS_NAME}: it {_NEEDS}")
        return mu

    def supports(self, event: Event, relation: Relation) -> str | None:
        return None if event.gaussian_mu(relation) is not None else f"{self.name} {_NEEDS}"


@register
class Zcdp(_GaussianForm):
    name = "zcdp"
    kind = "upper"
    description = "ρ-zCDP, ρ = μ²/2, tight conversion (Bun & Steinke 2016; CKS 2020)"
    reference = "zCDP: Bun & Steinke 2016; conversion: Canonne, Kamath & Steinke 2020"

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import zcdp

        rho = self.mu(event, relation) ** 2 / 2.0
        return self.result(event, relation, float(zcdp.eps_from_rho(rho, delta)), delta=delta,
                           details={"rho": rho, "order": float(zcdp.optimal_order(rho, delta))})

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import zcdp

        rho = self.mu(event, relation) ** 2 / 2.0
        return self.result(event, relation, float(zcdp.delta_from_rho(rho, eps)), eps=eps, details={"rho": rho})


@register
class Analytic(_GaussianForm):
    name = "analytic"
    kind = "exact"
    description = "exact analytic Gaussian at σ = 1/μ (Balle & Wang 2018)"
    reference = "analytic Gaussian mechanism: Balle & Wang 2018"

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import gaussian_mechanism as gaussian

        mu = self.mu(event, relation)
        return self.result(event, relation, float(gaussian.eps_analytic(1.0 / mu, delta)), delta=delta,
                           details={"mu": mu})

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import gaussian_mechanism as gaussian

        mu = self.mu(event, relation)
        return self.result(event, relation, float(gaussian.delta(1.0 / mu, eps)), eps=eps, details={"mu": mu})
