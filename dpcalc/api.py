"""The verbs at the top of dpcalc: one call for each question, the same numbers as the command that asks it.

* `epsilon` — ε at δ (and `delta`: δ at ε) of a training run or any event;
* `account` — every accountant's answer side by side, with the reason each other gave none;
* `calibrate` — any knob (the noise multiplier, epochs, steps, batch size, sampling rate, clients per round,
  rounds, or any field of an event) for a target (ε, δ);
* `statement` — the privacy statement of a training run, to paste into a paper or a model card.

Each takes the training terms as keyword arguments (the command line's names in snake_case: ``noise_multiplier``,
``dataset_size``, ``batch_size``, ``epochs``, ``steps``, ``q``, ``clients``, ``clients_per_round``, ``rounds``,
``sampling``), or an event: a dpcalc event (`dpcalc.events`), a dp-accounting ``DpEvent``, or its
``to_named_tuple()`` form as a dict — also as ``json.dumps`` writes it. The defaults are the command line's: the
headline accountant (exact where it applies, else the tighter of the PLD and RDP), the PLD's tolerances rtol = 1e-3
and atol = 1e-6, the neighbouring relation of the sampler (add/remove for Poisson sampling, replace-one for
shuffled batches; add/remove for an event). Knob names are accepted with ``_`` or ``-``.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting import accountants as registry
from dpcalc.accounting.account import Accounting, headline_calibration, headline_epsilon
from dpcalc.accounting.account import account as account_event
from dpcalc.accounting.calibrate import Calibration
from dpcalc.accounting.calibrate import calibrate as calibrate_event
from dpcalc.accounting.events import TrainingRun, as_event, relation
from dpcalc.accounting.events.base import Event
from dpcalc.accounting.events.relation import Relation
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError

__all__ = ["account", "calibrate", "delta", "epsilon", "event_of", "statement"]

#: the training terms the verbs take as keyword arguments (the CLI's option names in snake_case)
TERMS = ("noise_multiplier", "q", "steps", "dataset_size", "batch_size", "epochs", "clients", "clients_per_round",
         "rounds", "sampling", "mechanism")
_ALIASES = {"z": "noise_multiplier", "sigma": "noise_multiplier", "sampling_rate": "q"}


def _snake(name: str) -> str:
    key = name.strip().replace("-", "_")
    return _ALIASES.get(key, key)


def event_of(event: Any = None, **terms: Any) -> Event:
    """The event a call describes: ``event`` (any form `dpcalc.events.as_event` reads), or a training run from its
    terms (keyword arguments; unknown names are one line naming the ones accepted).

    Examples:
        >>> import dpcalc
        >>> dpcalc.event_of(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60).describe()
        'TrainingRun(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60, sampling=poisson)'
    """
    given = {_snake(k): x for k, x in terms.items() if x is not None}
    unknown = sorted(k for k in given if k not in TERMS)
    if unknown:
        raise DomainError(f"{unknown[0]} is not a training term; the terms are {', '.join(TERMS)}")
    if event is not None:
        if given:
            raise DomainError(f"give an event or training terms, not both (got an event and {', '.join(given)})")
        return as_event(event)
    if not given:
        raise DomainError("give an event, or a training run's terms (e.g. noise_multiplier=1.1, dataset_size=60000, "
                          "batch_size=256, epochs=60)")
    return TrainingRun(**given)


def _relation(ev: Event, neighbours: Any) -> Relation:
    if neighbours is not None:
        return relation(neighbours)
    if isinstance(ev, TrainingRun):

        return ev.relation
    return "add_remove"


def _options(rtol: float | None, atol: float | None, orders: ArrayLike | None, backend: str | None
             ) -> registry.Options:
    from dpcalc.accounting.accountants.base import with_defaults

    return with_defaults(None, rtol=rtol, atol=atol, orders=orders, backend=backend)


def epsilon(event: Any = None, *, delta: float, accountant: str | None = None, neighbours: Any = None,
            rtol: float | None = None, atol: float | None = None, orders: ArrayLike | None = None,
            backend: str | None = None, **terms: Any) -> PrivacyResult:
    """ε at ``delta`` of a training run (its terms as keyword arguments) or of ``event``.

    ``accountant``: one of `dpcalc.accounting.accountants.names` (default: the headline — exact where it applies,
    else the tighter of the PLD and RDP). ``float(result)`` is the guaranteed value.

    Examples:
        >>> import dpcalc
        >>> r = dpcalc.epsilon(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60, delta=1e-5)
        >>> r.accountant, round(float(r), 4)
        ('pld', 2.3821)
    """
    ev = event_of(event, **terms)
    rel = _relation(ev, neighbours)
    opts = _options(rtol, atol, orders, backend)
    d = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))
    if accountant is None:
        return headline_epsilon(ev, delta=d, relation=rel, options=opts)
    return registry.get(accountant).epsilon(ev, d, rel, opts)


def delta(event: Any = None, *, eps: float, accountant: str | None = None, neighbours: Any = None,
          orders: ArrayLike | None = None, **terms: Any) -> PrivacyResult:
    """δ at ``eps`` of a training run (its terms as keyword arguments) or of ``event``; the headline accountant by
    default (as `epsilon`).

    Examples:
        >>> import dpcalc
        >>> r = dpcalc.delta(dpcalc.events.Gaussian(1.0), eps=1.0)
        >>> r.accountant, round(float(r), 6)
        ('exact', 0.126937)
    """
    ev = event_of(event, **terms)
    rel = _relation(ev, neighbours)
    opts = _options(None, None, orders, None)
    e = float(v.scalar("eps", v.nonnegative("eps", eps)))
    if accountant is None:
        return headline_epsilon(ev, eps=e, relation=rel, options=opts)
    return registry.get(accountant).delta(ev, e, rel, opts)


def account(event: Any = None, *, delta: float, accountants: list[str] | None = None, neighbours: Any = None,
            rtol: float | None = None, atol: float | None = None, orders: ArrayLike | None = None,
            backend: str | None = None, **terms: Any) -> Accounting:
    """Every accountant's ε at ``delta`` (or those named), side by side, with the headline and the reason each
    other accountant gave none — what ``dpcalc account`` prints.

    Examples:
        >>> import dpcalc
        >>> a = dpcalc.account(noise_multiplier=1.0, q=0.01, steps=1000, delta=1e-5)
        >>> a.headline.accountant, sorted(a.refused)
        ('pld', ['analytic', 'exact', 'zcdp'])
    """
    ev = event_of(event, **terms)
    return account_event(ev, delta=float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))),
                         relation=_relation(ev, neighbours), accountants=accountants,
                         options=_options(rtol, atol, orders, backend), explicit=bool(accountants))


def calibrate(event: Any = None, *, eps: float, delta: float, solve_for: str = "noise_multiplier",
              accountant: str | None = None, neighbours: Any = None, rtol: float | None = None,
              orders: ArrayLike | None = None, **terms: Any) -> Calibration:
    """The value of ``solve_for`` (a training term or a field path of ``event``; ``_`` or ``-``) whose ε at ``delta``
    is <= ``eps``, on the safe side and tight; the other terms fixed. ``rtol``: the knob's relative tolerance
    (default 1e-3 under the PLD, 1e-9 otherwise). ``float(result)`` is the value.

    Examples:
        >>> import dpcalc
        >>> c = dpcalc.calibrate(eps=8, delta=1e-5, solve_for='epochs', noise_multiplier=1.1, dataset_size=60000,
        ...                      batch_size=256)
        >>> c.value, c.result.accountant, c.result.value <= 8
        (500, 'pld', True)
    """
    ev = event_of(event, **terms)
    rel = _relation(ev, neighbours)
    opts = _options(None, None, orders, None)
    target = float(v.scalar("eps", v.positive("eps", eps)))
    d = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))
    path = ".".join(_snake(p) for p in str(solve_for).split(".")) if isinstance(solve_for, str) else solve_for
    if accountant is None:
        return headline_calibration(ev, path, eps=target, delta=d, relation=rel, options=opts, rtol=rtol)
    return calibrate_event(ev, path, eps=target, delta=d, accountant=registry.get(accountant), relation=rel,
                           options=opts, rtol=rtol)


def statement(event: Any = None, *, delta: float, max_examples_per_user: int | None = None,
              accountants: list[str] | None = None, orders: ArrayLike | None = None,
              compare: list[str] | str | None = None, membership_fpr: float | None = None, **terms: Any) -> Any:
    """The privacy statement of a training run (its terms as keyword arguments, or a `TrainingRun`): ε at ``delta``
    under each accountant for the sampler used (``sampling``) and those in ``compare`` (default: Poisson when another
    was used; ``"all"``), the unit of privacy and its relation, user level with ``max_examples_per_user``, the
    references and what it does not cover; with ``membership_fpr``, the sentence on what a membership attack at that
    false-positive rate can do (the run's certified trade-off curve). ``str(result)`` is the text,
    ``result.markdown`` / ``result.latex`` / ``result.to_dict()`` the other forms — what ``dpcalc statement`` prints.

    Examples:
        >>> import dpcalc
        >>> s = dpcalc.statement(noise_multiplier=1.1, dataset_size=60000, batch_size=256, epochs=60, delta=1e-5)
        >>> s.headline.accountant, round(float(s.headline), 4)
        ('pld', 2.3821)
    """
    from dpcalc.report.statement import Statement

    ev = event_of(event, **terms)
    if not isinstance(ev, TrainingRun):
        raise DomainError("a statement is of a training run: give its terms (noise_multiplier, dataset_size, "
                          "batch_size, epochs, …) or a TrainingRun")
    d = float(v.scalar("delta", v.probability("delta", delta)))
    return Statement.of(ev, d, accountants=accountants, options=_options(None, None, orders, None),
                        k=max_examples_per_user, compare=compare, membership_fpr=membership_fpr)
