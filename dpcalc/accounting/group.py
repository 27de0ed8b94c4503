"""User-level privacy: each user contributes at most k examples, so a user's data is a group of k records.

* `group_delta` / `eps_user_vadhan` — group privacy of (ε, δ)-DP (Vadhan 2017, Lemma 2.2, in its
  summed form): an (ε, δ)-DP mechanism is (kε, δ·Σ_{i<k} e^{iε}) = (kε, δ·(e^{kε} − 1)/(e^ε − 1))-DP for groups of
  k. The user's δ is met by the largest example-level δ_e whose group δ is <= it (the lemma's other form,
  k·e^{(k−1)ε}·δ, is looser).
* `user_mixture` — the mixture-of-Gaussians accountant (Ganesh et al. 2024): under Poisson sampling the
  number of a user's k examples in a batch is Binomial(k, q), so one step is N(0, σ²) against
  Σᵢ C(k, i) qⁱ (1 − q)^{k−i} N(i, σ²) — accounted by the event model's PLD (tight, not a group bound).
* `eps_user_rdp` — group privacy of RDP (Mironov 2017, Prop. 2): a (2^{c+1}·β, r)-RDP mechanism is
  (β, 3^c·r)-RDP for groups of k <= 2^c, at every order β >= 2; then the improved conversion (Balle et al. 2020).

At k = 1 both return the example-level ε unchanged. Both are upper bounds on the user-level ε.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError, DpcalcError, InfeasibleError

if TYPE_CHECKING:
    from dpcalc.accounting.accountants import AccountantResult
    from dpcalc.accounting.training import Schedule

__all__ = ["GROUP_METHODS", "eps_user_rdp", "eps_user_vadhan", "group_delta", "group_size", "mixture_event",
           "user_level", "user_mixture"]

#: the user-level bounds: method name -> (bound type, reference)
GROUP_METHODS = {
    "vadhan": ("upper", "group privacy of (ε, δ)-DP, Vadhan 2017 Lemma 2.2"),
    "rdp-group": ("upper", "group privacy of RDP, Mironov 2017 Prop. 2, improved conversion (Balle et al. 2020)"),
    "mixture": ("upper", "mixture-of-Gaussians PLD, Ganesh et al. 2024"),
}


def group_size(k: float) -> int:
    """Validated k (an integer >= 1): the most examples one user contributes.

    Examples:
        >>> from dpcalc.accounting.group import group_size
        >>> group_size(4)
        4
    """
    return int(v.scalar("k", v.integer_at_least("k", k, 1)))


def group_delta(eps: float, delta: float, k: int) -> float:
    """δ of a group of k under (ε, δ)-DP: δ·(e^{kε} − 1)/(e^ε − 1) (k·δ at ε = 0), rounded up; inf on overflow.

    Examples:
        >>> from dpcalc.accounting.group import group_delta
        >>> group_delta(1.0, 1e-6, 2)
        3.7182818284590493e-06
    """
    eps = float(v.scalar("eps", v.nonnegative("eps", eps)))
    delta = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0)))
    k = group_size(k)
    if k == 1:
        return delta
    if eps == 0.0:
        return k * delta
    if k * eps > 700.0:
        return math.inf
    return delta * math.expm1(k * eps) / math.expm1(eps) * (1.0 + 4e-16 * k)


def eps_user_vadhan(eps_at: Callable[[float], float], delta: float, k: int, *, rtol: float = 1e-2
                    ) -> tuple[float, float, float]:
    """User-level ε at user δ by group privacy: ``(k·ε_e, δ_e, ε_e)`` for the largest example-level δ_e (to ``rtol``
    in log δ_e, safe side) whose group δ is <= ``delta``; ``eps_at(δ_e)`` is the accountant's example-level ε.

    Examples:
        >>> from dpcalc.accounting.group import eps_user_vadhan
        >>> from dpcalc.accounting.accountants import epsilon
        >>> eps_user_vadhan(lambda d: epsilon(1.0, 0.01, 1000, d), 1e-5, 2)
        (4.9470303453490825, 7.72788723784924e-07, 2.4735151726745412)
    """
    k = group_size(k)
    d = float(v.scalar("delta", v.probability("delta", delta)))
    if k == 1:
        e = eps_at(d)
        return e, d, e

    def fits(log_de: float) -> bool:
        try:
            e = eps_at(math.exp(log_de))
        except DpcalcError:
            return False
        return group_delta(e, math.exp(log_de), k) <= d

    hi = math.log(d / k)  # the group δ is >= k·δ_e
    if fits(hi):
        lo = hi
    else:
        lo = hi
        for _ in range(30):  # step down until the group δ fits (down to δ_e = e^-120·δ/k)
            lo -= 4.0
            if fits(lo):
                break
        else:
            raise InfeasibleError(f"group privacy: no example-level delta >= {math.exp(lo):.3g} gives a group of "
                                  f"{k} a delta <= {d:g}")
        while hi - lo > rtol:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    de = math.exp(lo)
    e = eps_at(de)
    return k * e, de, e


def eps_user_rdp(q: float, sigma: float, steps: float, delta: float, k: int, *,
                 orders: ArrayLike | None = None) -> tuple[float, dict[str, Any]]:
    """User-level ε by the RDP group-privacy bound (Mironov 2017, Prop. 2) of ``steps`` Poisson-subsampled Gaussian
    steps: ``(eps, {"order": β*, "c": c})`` with 2^c >= k.

    Examples:
        >>> from dpcalc.accounting.group import eps_user_rdp
        >>> eps_user_rdp(0.01, 1.0, 1000, 1e-5, 2)
        (5.747104638108769, {'order': 3.9, 'c': 1})
    """
    from dpcalc.accounting import rdp

    k = group_size(k)
    grid = rdp.orders_array(orders)
    if k == 1:
        eps, order = rdp.eps_subsampled_gaussian(q, sigma, steps, delta, orders=grid)
        return float(eps), {"order": float(order), "c": 0}
    c = math.ceil(math.log2(k) - 1e-12)
    betas = grid[grid >= 2.0]
    if betas.size == 0:
        raise DomainError("rdp-group needs RDP orders >= 2 in the grid (Mironov 2017, Prop. 2)")
    curve = np.asarray(rdp.subsampled_gaussian_curve(q, sigma, steps, orders=betas * 2.0 ** c), dtype=float)
    eps, order = rdp.eps_from_curve(betas, 3.0 ** c * curve, delta, warn=False)  # β >= 2 is the lemma's floor
    return float(eps), {"order": float(order), "c": c}


def mixture_event(q: float, sigma: float, steps: int, k: int) -> Any:
    """T steps of the mixture of Gaussians a user with k Poisson-sampled examples sees (Ganesh et al. 2024).

    Examples:
        >>> from dpcalc.accounting.group import mixture_event
        >>> mixture_event(0.01, 1.0, 1000, 2)
        SelfComposed(event=MixtureOfGaussians(standard_deviation=1.0, sensitivities=(0.0, 1.0, 2.0),
        sampling_probs=(0.9801, 0.0198, 0.0001)), count=1000)
    """
    from dpcalc.accounting import events

    k = group_size(k)
    qq = float(v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True)))
    probs = [math.comb(k, i) * qq ** i * (1.0 - qq) ** (k - i) for i in range(k + 1)]
    total = math.fsum(probs)
    mixture = events.MixtureOfGaussians(float(v.scalar("sigma", v.positive("sigma", sigma))),
                                        tuple(float(i) for i in range(k + 1)), tuple(p / total for p in probs))
    return events.SelfComposed(mixture, int(v.scalar("steps", v.integer_at_least("steps", steps, 1))))


def user_mixture(schedule: Schedule, sigma: float, delta: float, k: int, **options: Any) -> AccountantResult:
    """User-level ε by the mixture-of-Gaussians PLD (Poisson sampling only), as an AccountantResult: its failure
    is one line (e.g. while the PLD cannot compose a mixture yet).

    Examples:
        >>> from dpcalc.accounting.group import user_mixture
        >>> from dpcalc.accounting.training import from_examples
        >>> user_mixture(from_examples(60000, 256, epochs=1), 1.1, 1e-5, 2).eps
        0.6614473673219975
    """
    from dpcalc.accounting import accountants, training

    if not isinstance(schedule, training.Schedule):
        raise DomainError(f"schedule must be a training.Schedule (got {type(schedule).__name__})")
    if schedule.sampling != "poisson":
        return accountants.AccountantResult("pld", "upper", None, {}, "the mixture-of-Gaussians accountant is for "
                                            "Poisson sampling (Ganesh et al. 2024)")
    return training.event_result("pld", mixture_event(schedule.q, sigma, schedule.steps, k), delta, "add_remove",
                                 options)


def user_level(schedule: Schedule, sigma: float, delta: float, names: Sequence[str],
               options: Mapping[str, Any] | None = None, k: int = 1) -> list[tuple[str, AccountantResult]]:
    """Every user-level bound of ``schedule`` at σ and δ that the accountants ``names`` give, as ``(method,
    result)`` pairs: group privacy (``"vadhan"``) on each upper-bound accountant, the mixture of Gaussians
    (``"mixture"``, with ``pld``; Poisson sampling) and RDP group privacy (``"rdp-group"``, with ``rdp``; Poisson
    sampling). A bound an accountant cannot give is a result with its one-line ``failure``.

    Examples:
        >>> from dpcalc.accounting.group import user_level
        >>> from dpcalc.accounting.training import from_examples
        >>> schedule = from_examples(60000, 256, epochs=1)
        >>> for name, result in user_level(schedule, 1.1, 1e-5, ['rdp'], k=2):
        ...     print(name, result.eps)
        ...
        vadhan 1.6812662984099607
        rdp-group 1.7775106395385145
    """
    from dpcalc.accounting import accountants, training

    if not isinstance(schedule, training.Schedule):
        raise DomainError(f"schedule must be a training.Schedule (got {type(schedule).__name__})")
    k = group_size(k)
    opts = dict(options or {})
    out: list[tuple[str, AccountantResult]] = []
    for n in names:
        acc = accountants.get(n)
        if acc.bound != "upper":
            continue
        first = training.evaluate(schedule, sigma, delta, n, **opts.get(n, {}))
        if first.failure is not None:  # the accountant itself refuses (e.g. under shuffle): its reason
            out.append(("vadhan", first))
            continue

        def eps_at(d: float, n: str = n) -> float:
            res = training.evaluate(schedule, sigma, d, n, **opts.get(n, {}))
            if res.eps is None:
                raise DomainError(str(res.failure))
            return res.eps

        try:
            eps, de, ee = eps_user_vadhan(eps_at, delta, k)
            out.append(("vadhan", accountants.AccountantResult(n, "upper", eps, {"example_delta": de,
                                                                                "example_eps": ee})))
        except DpcalcError as exc:
            out.append(("vadhan", accountants.AccountantResult(n, "upper", None, {}, str(exc))))
    if "pld" in names and schedule.sampling == "poisson":  # tight where the PLD composes the mixture
        out.append(("mixture", user_mixture(schedule, sigma, delta, k, **opts.get("pld", {}))))
    if "rdp" in names and schedule.sampling == "poisson":
        eps, extra = eps_user_rdp(schedule.q, sigma, schedule.steps, delta, k, orders=opts.get("rdp", {}).get("orders"))
        out.append(("rdp-group", accountants.AccountantResult("rdp", "upper", eps, extra)))
    return out
