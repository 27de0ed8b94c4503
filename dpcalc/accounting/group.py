"""User-level privacy: each user contributes at most k examples, so a user's data is a group of k records.

* `group_delta` / `eps_user_vadhan` — group privacy of (ε, δ)-DP (Vadhan 2017, Lemma 2.2, in its
  summed form): an (ε, δ)-DP mechanism is (kε, δ·Σ_{i<k} e^{iε}) = (kε, δ·(e^{kε} − 1)/(e^ε − 1))-DP for groups of
  k. The user's δ is met by the largest example-level δ_e whose group δ is <= it (the lemma's other form,
  k·e^{(k−1)ε}·δ, is looser).
* `mixture_event` — the mixture-of-Gaussians accountant (Ganesh et al. 2024): under Poisson sampling the
  number of a user's k examples in a batch is Binomial(k, q), so one step is N(0, σ²) against
  Σᵢ C(k, i) qⁱ (1 − q)^{k−i} N(i, σ²) — accounted by the event model's PLD (tight, not a group bound).
* `eps_user_rdp` — group privacy of RDP (Mironov 2017, Prop. 2): a (2^{c+1}·β, r)-RDP mechanism is
  (β, 3^c·r)-RDP for groups of k <= 2^c, at every order β >= 2; then the improved conversion (Balle et al. 2020).

`user_bounds` gives every bound the accountants allow, as results with the user-level fields set. At k = 1 each
returns the example-level ε unchanged; all are upper bounds on the user-level ε.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.accountants.base import Accountant
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError, DpcalcError, InfeasibleError

__all__ = ["GROUP_METHODS", "MIXTURE_K_MAX", "UserBound", "UserLevel", "eps_user_rdp", "eps_user_vadhan",
           "group_delta", "group_size", "methods_for", "mixture_event", "user_bounds"]

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
        >>> from dpcalc.accounting.rdp import eps_subsampled_gaussian
        >>> eps_user_vadhan(lambda d: eps_subsampled_gaussian(0.01, 1.0, 1000, d)[0], 1e-5, 2)
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
        from dpcalc._roots import bisect

        hi, lo = bisect(lambda y: fits(-y), -hi, -lo, atol=rtol)  # fits holds at lo: bisect on −log δ_e
        lo = -lo
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


#: the most examples per user the mixture-of-Gaussians accountant composes (k + 1 Gaussians a step)
MIXTURE_K_MAX = 1_000


def _binomial_pmf(k: int, q: float) -> v.FloatArray:
    """P(Bin(k, q) = i), i = 0..k: math.comb(k, i)·qⁱ(1 − q)^{k−i} in floats (a few roundings) where both powers are
    normal numbers, in log space where one underflows (math.comb alone overflows a float beyond k ≈ 1,000)."""
    from scipy.special import gammaln

    i = np.arange(k + 1, dtype=np.float64)
    log_p = (gammaln(k + 1.0) - gammaln(i + 1.0) - gammaln(k - i + 1.0) + i * math.log(q)
             + (k - i) * math.log1p(-q))
    probs = np.exp(log_p)
    for j in range(k + 1):
        a, b = q**j, (1.0 - q) ** (k - j)
        if a >= 1e-290 and b >= 1e-290 and math.comb(k, j) < 1e307:
            probs[j] = math.comb(k, j) * a * b
    return probs


def mixture_event(q: float, sigma: float, steps: int, k: int) -> Any:
    """T steps of the mixture of Gaussians a user with k Poisson-sampled examples sees (Ganesh et al. 2024): the
    number of the user's examples in a batch is Binomial(k, q).

    Examples:
        >>> from dpcalc.accounting.group import mixture_event
        >>> mixture_event(0.01, 1.0, 1000, 2)
        SelfComposed(event=MixtureOfGaussians(standard_deviation=1.0, sensitivities=(0.0, 1.0, 2.0),
        sampling_probs=(0.9801, 0.0198, 0.0001)), count=1000)
    """
    from dpcalc.accounting import events

    k = group_size(k)
    if k > MIXTURE_K_MAX:
        raise DomainError(f"k = {k} examples per user: the mixture-of-Gaussians accountant composes at most "
                          f"{MIXTURE_K_MAX} (k + 1 Gaussians a step)")
    qq = float(v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True)))
    i = np.arange(k + 1, dtype=np.float64)
    if qq < 1.0:
        probs = _binomial_pmf(k, qq)
    else:
        probs = (i == k).astype(np.float64)
    keep = probs > 0.0
    mixture = events.MixtureOfGaussians(float(v.scalar("sigma", v.positive("sigma", sigma))),
                                        tuple(float(x) for x in i[keep]), tuple(float(p) for p in probs[keep]))
    return events.SelfComposed(mixture, int(v.scalar("steps", v.integer_at_least("steps", steps, 1))))


def methods_for(accountant: str, sampling: str) -> list[str]:
    """The user-level bounds an accountant gives for a sampler: group privacy of its (ε, δ) (guaranteed accountants),
    the mixture-of-Gaussians PLD (``pld``, Poisson sampling), RDP group privacy (``rdp``, Poisson sampling).

    Examples:
        >>> from dpcalc.accounting.group import methods_for
        >>> methods_for('pld', 'poisson'), methods_for('rdp', 'shuffle')
        (['vadhan', 'mixture'], ['vadhan'])
    """
    out = ["vadhan"] if accountant in ("rdp", "rdp-lemma1", "zcdp", "analytic", "pld", "exact") else []
    if sampling == "poisson":
        out += {"pld": ["mixture"], "rdp": ["rdp-group"]}.get(accountant, [])
    return out


class UserLevel(Accountant):
    """The user-level ε of a training run under one accountant and one method (`methods_for`), as an accountant:
    what a calibration at user level searches (``calibrate --max-examples-per-user``)."""

    name = "user-level"

    def __init__(self, base: str, method: str, k: int) -> None:
        self.base, self.method, self.k = base, method, group_size(k)

    def _epsilon(self, event: Any, delta: float, relation: Any, options: Any) -> PrivacyResult:
        for b in user_bounds(event, delta, self.k, [self.base], options):
            if b.method == self.method:
                if b.result is None:
                    raise DomainError(f"{self.base} ({self.method}, user level): {b.reason}")
                return b.result
        raise DomainError(f"{self.base} gives no {self.method} user-level bound for this run")


@dataclass(frozen=True)
class UserBound:
    """One user-level bound: its ``result`` (user-level fields set), or the one-line ``reason`` it has none."""

    accountant: str
    method: str
    result: PrivacyResult | None
    reason: str | None = None


def user_bounds(run: Any, delta: float, k: int, accountants: Sequence[str], options: Any = None) -> list[UserBound]:
    """Every user-level bound of the training ``run`` (a `dpcalc.accounting.events.TrainingRun`) at δ that the
    ``accountants`` give (module docstring): group privacy (``"vadhan"``) on each guaranteed accountant, the
    mixture of Gaussians (``"mixture"``, with ``pld``; Poisson sampling) and RDP group privacy (``"rdp-group"``, with
    ``rdp``; Poisson sampling).

    Examples:
        >>> from dpcalc.accounting.group import user_bounds
        >>> from dpcalc.accounting.events import TrainingRun
        >>> run = TrainingRun(1.1, dataset_size=60000, batch_size=256, epochs=1)
        >>> for b in user_bounds(run, 1e-5, 2, ['rdp']):
        ...     print(b.method, round(b.result.value, 6))
        ...
        vadhan 1.681266
        rdp-group 1.777511
    """
    from dpcalc.accounting import accountants as acc_mod

    k = group_size(k)
    d = float(v.scalar("delta", v.probability("delta", delta)))
    opts = options or acc_mod.Options()
    rel = run.relation
    out: list[UserBound] = []

    def user(res: PrivacyResult, method: str, **details: Any) -> PrivacyResult:
        return dataclasses.replace(res, level="user", k=k, method=method, event=run.describe(),
                                   inputs=run.inputs(), details={**res.details, **details})

    for name in accountants:
        acc = acc_mod.get(name)
        if acc.kind not in ("exact", "bracket", "upper") or acc.applies(run, rel) is not None:
            continue
        try:
            first = acc.epsilon(run, d, rel, opts)

            def eps_at(de: float, acc: Any = acc) -> float:
                return float(acc.epsilon(run, de, rel, opts))

            eps, de, ee = eps_user_vadhan(eps_at, d, k)
            out.append(UserBound(name, "vadhan", user(dataclasses.replace(first, value=eps, lower=None, upper=None,
                                                                        kind="upper"), "vadhan",
                                                      example_delta=de, example_eps=ee)))
        except DpcalcError as exc:
            out.append(UserBound(name, "vadhan", None, str(exc)))
    poisson = run.sampling == "poisson"
    if "pld" in accountants and poisson:  # tight where the PLD composes the mixture
        try:
            ev = mixture_event(run.rate, run.noise_multiplier, run.step_count, k)
            res = acc_mod.get("pld").epsilon(ev, d, "add_remove", opts)
            out.append(UserBound("pld", "mixture", user(res, "mixture")))
        except DpcalcError as exc:
            out.append(UserBound("pld", "mixture", None, str(exc)))
    if "rdp" in accountants and poisson:
        try:
            eps, extra = eps_user_rdp(run.rate, run.noise_multiplier, run.step_count, d, k, orders=opts.orders)
            base = acc_mod.get("rdp").result(run, rel, eps, delta=d, details=extra)
            out.append(UserBound("rdp", "rdp-group", user(base, "rdp-group")))
        except DpcalcError as exc:
            out.append(UserBound("rdp", "rdp-group", None, str(exc)))
    return out
