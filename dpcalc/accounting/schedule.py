"""The (σ, q, T) form of a run — T steps of the Gaussian with noise multiplier σ, Poisson-sampled at rate q — as plain
vectorised functions: the catalog's accountant entries and the shortest calls. Both go through the one event path (a
`dpcalc.accounting.events.TrainingRun` given by q and steps, accounted by `dpcalc.accounting.accountants`), so they
give the numbers of ``dpcalc account`` and ``dpcalc calibrate``.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from dpcalc import _validate as v

__all__ = ["epsilon", "result", "sigma_for_eps"]


def _options(orders: ArrayLike | None, warn: bool) -> Any:
    from dpcalc.accounting import accountants

    return accountants.Options(orders=orders, warn=warn)


def result(sigma: float, q: float, steps: float, delta: float, *, accountant: str = "rdp",
           orders: ArrayLike | None = None, warn: bool = True) -> Any:
    """The accountant's `dpcalc.accounting.result.PrivacyResult` for one (σ, q, T, δ) (its details: the optimal
    order, μ, the PLD's bracket).

    Examples:
        >>> from dpcalc.accounting.schedule import result
        >>> result(1.0, 0.01, 1000, 1e-5).details["order"]
        7.8
    """
    from dpcalc.accounting import accountants
    from dpcalc.accounting.events import TrainingRun

    named = {"sigma": v.positive("sigma", sigma), "q": v.check_range("q", q, 0.0, 1.0, lo_open=True),
             "steps": v.integer_at_least("steps", steps, 1), "delta": v.probability("delta", delta)}
    s, rate, t, d = (v.scalar(name, x) for name, x in named.items())
    run = TrainingRun(s, q=rate, steps=int(t))
    return accountants.get(accountant).epsilon(run, d, "add_remove", _options(orders, warn))


@v.named_shapes
def epsilon(sigma: ArrayLike, q: ArrayLike, steps: ArrayLike, delta: ArrayLike, *, accountant: str = "rdp",
            orders: ArrayLike | None = None, warn: bool = True) -> float | v.FloatArray:
    """ε under ``accountant`` (its guaranteed value: the PLD's ε_upper) of T = ``steps`` Poisson-subsampled Gaussian
    steps with noise multiplier σ at rate q, at δ; broadcasts over the inputs.

    Examples:
        >>> from dpcalc.accounting.schedule import epsilon
        >>> epsilon(1.0, 0.01, 1000, 1e-5)
        2.101365271648501
    """
    from dpcalc.accounting import accountants
    from dpcalc.accounting.events import TrainingRun

    named = {"sigma": v.positive("sigma", sigma), "q": v.check_range("q", q, 0.0, 1.0, lo_open=True),
             "steps": v.integer_at_least("steps", steps, 1), "delta": v.probability("delta", delta)}
    acc = accountants.get(accountant)
    opts = _options(orders, warn)

    def one(sigma: float, q: float, steps: float, delta: float) -> float:
        return float(acc.epsilon(TrainingRun(sigma, q=q, steps=int(steps)), delta, "add_remove", opts))

    return v.elementwise(one, **named)


@v.named_shapes
def sigma_for_eps(eps: ArrayLike, delta: ArrayLike, q: ArrayLike, steps: ArrayLike, *, accountant: str = "rdp",
                  rtol: float | None = None, orders: ArrayLike | None = None, warn: bool = True
                  ) -> float | v.FloatArray:
    """The smallest noise multiplier σ (to ``rtol``, safe side) whose ε under ``accountant`` is <= ``eps`` for T =
    ``steps`` Poisson-subsampled Gaussian steps at rate q (`dpcalc.accounting.calibrate.calibrate`; ``rtol`` 1e-9,
    1e-3 under the PLD); broadcasts over the inputs.

    Examples:
        >>> from dpcalc.accounting.schedule import sigma_for_eps
        >>> sigma_for_eps(1.0, 1e-5, 0.01, 1000)
        1.5131221626087412
    """
    from dpcalc.accounting import accountants
    from dpcalc.accounting.calibrate import calibrate
    from dpcalc.accounting.events import TrainingRun

    named = {"eps": v.positive("eps", eps), "delta": v.probability("delta", delta),
             "q": v.check_range("q", q, 0.0, 1.0, lo_open=True), "steps": v.integer_at_least("steps", steps, 1)}
    acc = accountants.get(accountant)
    opts = _options(orders, warn)

    def one(eps: float, delta: float, q: float, steps: float) -> float:
        run = TrainingRun(None, q=q, steps=int(steps))
        return float(calibrate(run, "noise_multiplier", eps=eps, delta=delta, accountant=acc, options=opts,
                               rtol=rtol).value)

    return v.elementwise(one, **named)
