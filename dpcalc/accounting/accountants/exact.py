"""The exact accountant: events whose composition has a closed form or a finite sum.

* Gaussian noise without sampling (Gaussians, tree aggregation, their compositions): μ-GDP with μ² = Σ μᵢ² (Dong,
  Roth & Su 2022, Cor. 3.3), ε from `dpcalc.accounting.gdp.eps_from_mu` (safe side) and δ from `gdp.delta`;
* T runs of one release with a finite privacy-loss pair — randomized response (either replace relation), an ε-DP or
  (ε, δ)-DP release — by the multinomial sum of `dpcalc.accounting.finite`.
"""

from __future__ import annotations

import math

from dpcalc.accounting.accountants.base import Accountant, Options, register
from dpcalc.accounting.events.base import Event, NotAccountable
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.finite import MAX_COUNT, FinitePair, delta_finite, eps_finite
from dpcalc.accounting.result import PrivacyResult

__all__ = ["Exact"]


@register
class Exact(Accountant):
    name = "exact"
    kind = "exact"
    description = "exact: μ-GDP of Gaussian noise without sampling, finite sums of randomized response and (ε, δ) " \
                  "releases"
    reference = "μ-GDP: Dong, Roth & Su 2022, Cor. 3.3; composition of (ε, δ) releases: Kairouz, Oh & Viswanath " \
                "2015, Thm. 3.3"

    def _form(self, event: Event, relation: Relation) -> tuple[float | None, list[FinitePair] | None, int]:
        mu = event.gaussian_mu(relation)
        if mu is not None:
            return mu, None, 0
        release, count = event.finite_count()
        pairs = release.finite_pairs(relation)
        if pairs is None or count < 1:
            raise NotAccountable(f"exact cannot account {event.CLASS_NAME} under {relation.replace('_', '-')}: the "
                                 "exact accountant supports Gaussian noise without sampling (exact μ-GDP) and T runs "
                                 "of one release with a finite privacy-loss pair (RandomizedResponse, EpsilonDelta)")
        if count > MAX_COUNT:
            raise NotAccountable(f"exact: count must be <= {MAX_COUNT} for a finite-sum composition (got {count})")
        return None, pairs, count

    def supports(self, event: Event, relation: Relation) -> str | None:
        try:
            self._form(event, relation)
        except NotAccountable as exc:
            return str(exc)
        return None

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import gdp

        mu, pairs, count = self._form(event, relation)
        if mu is not None:
            eps = float(gdp.eps_from_mu(mu, delta)) if mu > 0 else 0.0
            return self.result(event, relation, eps, delta=delta, details={"mu": mu})
        assert pairs is not None
        return self.result(event, relation, eps_finite(pairs, count, delta), delta=delta, details={"count": count})

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import gdp

        mu, pairs, count = self._form(event, relation)
        if mu is not None:
            d = float(gdp.delta(mu, eps)) if mu > 0 else 0.0
            return self.result(event, relation, min(1.0, d * (1.0 + 1e-12)), eps=eps, details={"mu": mu})
        assert pairs is not None
        d = max(delta_finite(pr, count, eps) for pr in pairs)
        return self.result(event, relation, min(1.0, math.nextafter(d * (1.0 + 1e-12), math.inf)), eps=eps,
                           details={"count": count})
