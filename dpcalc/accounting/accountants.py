"""One small interface over the accountants for the Poisson-subsampled Gaussian (DP-SGD / DP-FedAvg rounds).

An `Accountant` has a ``name``, a ``bound`` kind (``"upper"``: a guaranteed ε; ``"estimate"``: an
approximation that can be below the true ε; ``"lower"``) and ``eps(sigma, q, steps, delta) -> (eps, extra)``, where
``extra`` carries e.g. the optimal RDP ``order``. σ is the noise multiplier (noise std / L2 sensitivity), q the
Poisson sampling rate, ``steps`` the number of compositions.

| name | bound | method |
|---|---|---|
| ``rdp`` | upper | RDP (Mironov et al. 2019) + improved conversion (Balle et al. 2020) |
| ``rdp-lemma1`` | upper | RDP + classic conversion ε = r + log(1/δ)/(α−1) (Mironov 2017, Prop. 3) |
| ``zcdp`` | upper | q = 1 only: ρ = T/(2σ²), tight zCDP conversion (Bun & Steinke 2016; CKS 2020) |
| ``analytic`` | upper | q = 1 only: exact, Gaussian with σ/√T (Balle & Wang 2018); tight |
| ``gdp-clt`` | estimate | μ = q√(T(e^{1/σ²} − 1)) (Bu et al. 2020 CLT), ε(μ, δ); can underestimate |
| ``pld`` | upper | dpcalc's PLD accountant (`dpcalc.accounting.pld`): certified ε_lower ≤ ε ≤ ε_upper, ε = ε_upper |

The ``pld`` extras carry the bracket (``eps_lower``/``eps_upper``); ``backend="dp-accounting"`` compares with
Google's PLD (optional extra). The classic conversion is also Lemma 1 of Zhang et al. 2024.

The schedule (σ, q, steps) is the most common event: `schedule_event` builds it for
`dpcalc.accounting.events.account.account`, which accounts any event (other mechanisms, sampling schemes,
neighbouring relations) and gives the same numbers here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._repr import short_repr
from dpcalc.errors import DomainError, DpcalcError

__all__ = ["ACCOUNTANTS", "Accountant", "AccountantResult", "Bound", "epsilon", "evaluate", "get", "names",
           "pld_available", "schedule_event"]

Bound = Literal["upper", "estimate", "lower"]
EpsFn = Callable[..., tuple[float, dict[str, Any]]]


@short_repr
@dataclass(frozen=True)
class Accountant:
    """An accountant: ``eps(sigma, q, steps, delta, **options) -> (eps, extra)``."""

    name: str
    bound: Bound
    description: str
    _eps: EpsFn = field(repr=False)
    full_batch_only: bool = False

    def applicable(self, q: float) -> str | None:
        """``None`` when the accountant applies at sampling rate q, else the reason it does not."""
        if self.full_batch_only and q != 1.0:
            return f"accountant {self.name!r} needs q = 1 (no subsampling)"
        return None

    def eps(self, sigma: float, q: float, steps: float, delta: float, **options: Any) -> tuple[float, dict[str, Any]]:
        """ε at δ after ``steps`` rounds of noise multiplier σ at sampling rate q (validated inputs)."""
        s = v.scalar("sigma", v.positive("sigma", sigma))
        qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
        t = v.scalar("steps", v.integer_at_least("steps", steps, 1))
        d = v.scalar("delta", v.probability("delta", delta))
        reason = self.applicable(qq)
        if reason is not None:
            raise DomainError(reason)
        return self._eps(s, qq, t, d, **options)


@short_repr
@dataclass(frozen=True)
class AccountantResult:
    """One accountant's answer at one point: ε and its extras, or the one-line reason it could not give one.

    ``eps`` is None exactly when ``failure`` is set (e.g. the PLD cannot represent δ = 1e-300); a failing accountant
    never hides the others' results (``account --delta 1e-300`` keeps the RDP row).
    """

    accountant: str
    bound: Bound
    eps: float | None
    extra: Mapping[str, Any] = field(default_factory=dict)
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


@v.scalar_params
def evaluate(name: str, sigma: float, q: float, steps: float, delta: float, **options: Any) -> AccountantResult:
    """ε under accountant ``name`` as an `AccountantResult`: an accountant-specific failure (DomainError or
    InfeasibleError) becomes the result's ``failure`` instead of an exception. Invalid inputs and unknown names
    still raise (they are the caller's error, not the accountant's).

    Examples:
        >>> from dpcalc.accounting.accountants import evaluate
        >>> evaluate('rdp', 1.0, 0.01, 1000, 1e-5)
        AccountantResult(accountant='rdp', bound='upper', eps=2.101365271648501, extra={'order': 7.8, 'orders': '156
        orders in [1.1, 1024]'}, failure=None)
    """
    acc = get(name)
    v.positive("sigma", sigma)
    v.check_range("q", q, 0.0, 1.0, lo_open=True)
    v.integer_at_least("steps", steps, 1)
    v.probability("delta", delta)
    if options.get("orders") is not None:
        from dpcalc.accounting import rdp

        rdp.orders_array(options["orders"])  # a bad grid is the caller's error too
    try:
        eps, extra = acc.eps(sigma, q, steps, delta, **options)
    except DpcalcError as exc:
        return AccountantResult(name, acc.bound, None, {}, str(exc))
    return AccountantResult(name, acc.bound, eps, extra)


def pld_available() -> bool:
    """Whether dp-accounting (the optional extra ``pld``) is importable.

    Examples:
        >>> from dpcalc.accounting.accountants import pld_available
        >>> isinstance(pld_available(), bool)
        True
    """
    import importlib.util

    return importlib.util.find_spec("dp_accounting") is not None


def _rdp(sigma: float, q: float, steps: float, delta: float, *, orders: ArrayLike | None = None,
         method: Literal["improved", "lemma1"] = "improved", warn: bool = True,
         **_: Any) -> tuple[float, dict[str, Any]]:
    from dpcalc.accounting import rdp

    grid = rdp.orders_array(orders)
    eps, order = rdp.eps_subsampled_gaussian(q, sigma, steps, delta, orders=grid, method=method, warn=warn)
    return eps, {"order": order, "orders": f"{grid.size} orders in [{grid.min():g}, {grid.max():g}]"}


def _rdp_lemma1(sigma: float, q: float, steps: float, delta: float, **kw: Any) -> tuple[float, dict[str, Any]]:
    return _rdp(sigma, q, steps, delta, method="lemma1", **kw)


def _zcdp(sigma: float, q: float, steps: float, delta: float, **_: Any) -> tuple[float, dict[str, Any]]:
    from dpcalc.accounting import zcdp

    rho = steps / (2.0 * sigma * sigma)
    eps = float(zcdp.eps_from_rho(rho, delta))
    return eps, {"rho": rho, "order": float(zcdp.optimal_order(rho, delta))}


def _analytic(sigma: float, q: float, steps: float, delta: float, **_: Any) -> tuple[float, dict[str, Any]]:
    from dpcalc.accounting import gaussian_mechanism as gaussian

    return float(gaussian.eps_analytic(sigma / math.sqrt(steps), delta)), {"mu": math.sqrt(steps) / sigma}


def _gdp_clt(sigma: float, q: float, steps: float, delta: float, **_: Any) -> tuple[float, dict[str, Any]]:
    from dpcalc.accounting import gdp

    mu = float(gdp.clt_mu(q, sigma, steps))
    return float(gdp.eps_from_mu(mu, delta)), {"mu": mu}


def _pld(sigma: float, q: float, steps: float, delta: float, *, backend: str = "dpcalc", rtol: float | None = None,
         value_discretization_interval: float = 1e-4, **_: Any) -> tuple[float, dict[str, Any]]:
    if backend == "dp-accounting":
        return _pld_dp_accounting(sigma, q, steps, delta, value_discretization_interval)
    if backend != "dpcalc":
        raise DomainError(f"pld backend must be 'dpcalc' or 'dp-accounting' (got {backend!r})")
    from dpcalc.accounting import pld

    br = pld.epsilon_subsampled_gaussian(sigma, q, steps, delta, rtol=rtol)
    return br.eps_upper, {"eps_lower": br.eps_lower, "eps_upper": br.eps_upper, "grid": br.grid,
                          "direction": br.direction}


def _pld_dp_accounting(sigma: float, q: float, steps: float, delta: float,
                       value_discretization_interval: float) -> tuple[float, dict[str, Any]]:
    """Google's dp-accounting PLD (optional extra), for comparison only."""
    if not pld_available():
        raise DomainError("pld backend 'dp-accounting' needs the optional extra: pip install 'dpcalc[pld]'")
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    event: Any = dp_accounting.GaussianDpEvent(sigma)
    if q < 1.0:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=value_discretization_interval)
    acc.compose(event, int(steps))
    eps = float(acc.get_epsilon(delta))
    if not np.isfinite(eps):
        raise DomainError("pld: eps is not finite here (delta below the PLD truncation ~e^-50?); use rdp")
    return eps, {"value_discretization_interval": value_discretization_interval}


ACCOUNTANTS: dict[str, Accountant] = {
    a.name: a for a in (
        Accountant("rdp", "upper", "RDP (Mironov et al. 2019), improved conversion (Balle et al. 2020)", _rdp),
        Accountant("rdp-lemma1", "upper", "RDP, classic conversion r + log(1/δ)/(α−1) (Mironov 2017, Prop. 3)",
                   _rdp_lemma1),
        Accountant("zcdp", "upper", "ρ-zCDP, ρ = T/(2σ²), tight conversion (Bun & Steinke 2016; CKS 2020)", _zcdp,
                   full_batch_only=True),
        Accountant("analytic", "upper", "exact analytic Gaussian with σ/√T (Balle & Wang 2018)", _analytic,
                   full_batch_only=True),
        Accountant("gdp-clt", "estimate", "μ-GDP central limit theorem (Bu et al. 2020); can underestimate",
                   _gdp_clt),
        Accountant("pld", "upper", "PLD with a certified bracket, ε = ε_upper (Koskela et al. 2020; Doroshenko et "
                   "al. 2022)", _pld),
    )
}


@v.scalar_params
def epsilon(sigma: float, q: float, steps: float, delta: float, *, accountant: str = "rdp", **options: Any) -> float:
    """ε alone (a float) of accountant ``accountant`` at (σ, q, steps, δ): the forward map of the calibration
    (`dpcalc.accounting.calibrate.sigma_for_eps`) and of the catalog entries ``accountant.eps_*``.

    Examples:
        >>> from dpcalc.accounting.accountants import epsilon
        >>> epsilon(1.0, 0.01, 1000, 1e-5)
        2.101365271648501
    """
    return get(accountant).eps(sigma, q, steps, delta, **options)[0]


def names() -> list[str]:
    """All accountant names, in display order.

    Examples:
        >>> from dpcalc.accounting.accountants import names
        >>> names()
        ['rdp', 'rdp-lemma1', 'zcdp', 'analytic', 'gdp-clt', 'pld']
    """
    return list(ACCOUNTANTS)


def get(name: str) -> Accountant:
    """The accountant called ``name``; unknown names raise a one-line `DomainError`.

    Examples:
        >>> from dpcalc.accounting.accountants import get
        >>> get('rdp').bound
        'upper'
    """
    if not isinstance(name, str) or name not in ACCOUNTANTS:
        raise DomainError(f"accountant must be one of {', '.join(ACCOUNTANTS)} (got {name!r})")
    return ACCOUNTANTS[name]


def schedule_event(sigma: float, q: float, steps: int) -> Any:
    """The event of ``steps`` rounds of noise multiplier σ at Poisson rate q (add/remove neighbours):
    ``SelfComposed(PoissonSampled(q, Gaussian(σ)), steps)``, without the sampling at q = 1.

    Examples:
        >>> from dpcalc.accounting.accountants import schedule_event
        >>> schedule_event(1.0, 0.01, 1000)
        SelfComposed(event=PoissonSampled(sampling_probability=0.01, event=Gaussian(noise_multiplier=1.0)), count=1000)
    """
    from dpcalc.accounting import events

    s = v.scalar("sigma", v.positive("sigma", sigma))
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    t = int(v.scalar("steps", v.integer_at_least("steps", steps, 1)))
    mechanism: events.Event = events.Gaussian(s)
    if qq != 1.0:
        mechanism = events.PoissonSampled(qq, mechanism)
    return events.SelfComposed(mechanism, t)
