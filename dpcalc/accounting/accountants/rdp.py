"""The RDP accountant: the event's Rényi curve (`dpcalc.accounting.events.Event.rdp`) on an order grid, converted to
(ε, δ) at the best order — by the improved conversion of Balle et al. 2020 (Thm. 21; ``rdp``) or the classic
ε = r + log(1/δ)/(α − 1) of Mironov 2017 (Prop. 3; ``rdp-lemma1``).

Orders: dp-accounting's default grid (1.1 … 10.9, 11 … 63, 128 … 1024), or any orders > 1 up to ∞; order ∞ is the
event's pure ε (its largest privacy loss), which meets every δ. A map that has no value at a very large order (an
integer-order sum too long to form) leaves it out (+∞ there). With-replacement releases may leave out draw counts of
probability up to 1e-3·δ per release, charged to δ (`dpcalc.accounting.events.Curve.slack`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.accountants.base import Accountant, Options, register
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError, OutOfDomainWarning

__all__ = ["Rdp", "RdpLemma1", "orders_grid"]

#: share of δ a with-replacement release's left-out draw counts may take
_TAIL_SHARE = 1e-3


def orders_grid(orders: ArrayLike | None) -> v.FloatArray:
    """The order grid: dp-accounting's default, or the given orders (each > 1; ∞ allowed), sorted, without
    repeats."""
    from dpcalc.accounting import rdp

    if orders is None:
        return np.asarray(rdp.DEFAULT_ORDERS, dtype=np.float64)
    a = np.atleast_1d(v._to_float_array("orders", orders))
    if a.ndim != 1:
        raise DomainError(f"orders must be a non-empty 1-D list of orders > 1 (got shape {a.shape})")
    finite = a[a != np.inf]
    if finite.size:
        v.check_range("orders", finite, 1.0, lo_open=True)  # each > 1, finite (∞ itself is the pure ε)
    return np.unique(a)


class _Rdp(Accountant):
    kind = "upper"
    method = "improved"

    def supports(self, event: Event, relation: Relation) -> str | None:
        try:
            event.rdp(np.array([2.0]), relation)
        except DomainError as exc:
            return str(exc)
        return None

    def curve(self, event: Event, relation: Relation, delta: float, orders: v.FloatArray
              ) -> tuple[v.FloatArray, bool, float]:
        """The curve at the finite orders and at ∞ (the pure ε), whether exact, and δ spent on left-out labels."""
        finite = orders[np.isfinite(orders)]
        releases = event.releases_with_replacement()
        tail = _TAIL_SHARE * delta / releases if releases else 0.0
        with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            c = event.rdp(finite, relation, tail) if finite.size else None
        values = np.full(orders.shape, np.inf)
        if c is not None:
            values[np.isfinite(orders)] = np.where(np.isnan(c.rdp), np.inf, c.rdp)
        if np.isinf(orders).any():
            values[np.isinf(orders)] = event.pure_epsilon(relation)
        return np.maximum(values, 0.0), (c.exact if c is not None else True), (c.slack if c is not None else 0.0)

    def _epsilon(self, event: Event, delta: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import conversion

        grid = orders_grid(options.orders)
        r, exact, slack = self.curve(event, relation, delta, grid)
        finite = np.isfinite(grid)
        eps, i = (conversion.best_over_grid(grid[finite], r[finite], math.log(delta - slack), self.method)
                  if finite.any() else (math.inf, -1))
        order = float(grid[finite][i]) if i >= 0 else None
        pure = float(r[~finite][0]) if (~finite).any() else math.inf
        if pure < eps:  # order ∞: the pure ε holds at every δ
            eps, order = math.nextafter(pure, math.inf), math.inf
        if not math.isfinite(eps):
            raise DomainError(f"{self.name}: epsilon is infinite at every order of the grid (the noise is too small "
                              "for these orders, or the event has no finite Rényi divergence)")
        notes: tuple[str, ...] = ()
        if options.warn and eps > 0.0 and order is not None and math.isfinite(order) and finite.sum() > 1:
            fg = grid[finite]
            if order in (float(fg.min()), float(fg.max())):
                side = "smallest" if order == float(fg.min()) else "largest"
                v.warn(f"the optimal RDP order {order:g} is the {side} order of the grid; extend the grid (eps may "
                       "be smaller)", OutOfDomainWarning)
        details: dict[str, Any] = {"curve": "exact" if exact else "upper bound", "order": order,
                                   "orders": f"{grid.size} orders in [{grid.min():g}, {grid.max():g}]"}
        if slack > 0.0:
            details["delta_spent_on_cut_draw_counts"] = slack
            notes = (f"sampling with replacement: draw counts of total probability {slack:.2g} are left out of the "
                     "RDP curve and charged to δ",)
        return self.result(event, relation, eps, delta=delta, details=details, notes=notes)

    def _delta(self, event: Event, eps: float, relation: Relation, options: Options) -> PrivacyResult:
        from dpcalc.accounting import conversion

        grid = orders_grid(options.orders)
        r, exact, _slack = self.curve(event, relation, 1e-300, grid)
        finite = np.isfinite(grid)
        log_d = conversion.log_delta_at_order(r[finite], grid[finite] - 1.0, eps)
        i = int(np.argmin(log_d))
        d = min(1.0, math.exp(min(float(log_d[i]), 0.0)) * (1.0 + 1e-12))
        return self.result(event, relation, d, eps=eps, details={"order": float(grid[finite][i]),
                                                                 "curve": "exact" if exact else "upper bound"})


@register
class Rdp(_Rdp):
    name = "rdp"
    description = "RDP, improved conversion (Balle et al. 2020)"
    reference = "Rényi DP: Mironov 2017; sampled Gaussian: Mironov, Talwar & Zhang 2019; conversion: Balle et al. " \
                "2020, Thm. 21"


@register
class RdpLemma1(_Rdp):
    name = "rdp-lemma1"
    method = "lemma1"
    description = "RDP, classic conversion r + log(1/δ)/(α−1) (Mironov 2017, Prop. 3)"
    reference = "Rényi DP: Mironov 2017, Prop. 3 (classic conversion)"
