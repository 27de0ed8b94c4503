"""``dpcalc risk attack|curve|calibrate|plot``: what an attacker can do against a DP-SGD run (Poisson sampling), from
its certified f-DP trade-off curve, beside what (ε, δ) alone allows; and the noise or length for a risk target.

Library: `dpcalc.risk` (Dong, Roth & Su 2022; Kulynych et al. 2024).
"""

from __future__ import annotations

from typing import Any

from dpcalc.cli.accounting import EVENT, TRAINING, runs
from dpcalc.cli.command import Args, Group, command
from dpcalc.cli.options import Opt, axis, choice, real
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Result

__all__ = ["AT_FPR", "ENTRIES", "MAX_ADVANTAGE", "MAX_TPR", "ORIENTATION", "RUN", "risk_calibration", "run_of"]

_ACC = "accountant.eps_rdp"  # declares the noise multiplier (its input sigma), q and steps
RUN: tuple[Opt, ...] = (axis("sigma", short="-z", default=None, formula=_ACC), axis("q", default=None, formula=_ACC),
                        axis("steps", default=None, formula=_ACC), *TRAINING)
DELTA = real("delta", formula="-", default=None, help=(
    "δ of the run's (ε, δ) (the PLD accountant's certified ε upper bound at it): adds the weaker bounds from (ε, δ) "
    "alone"))
ORIENTATION = choice("orientation", ("symmetric", "membership", "non_membership"),
                     default_from="dpcalc.risk.attack:attack_risk", help=(
                         "symmetric: the f-DP curve (any neighbouring pair, either order; the guarantee); membership: "
                         "the test 'out' vs 'in'; non_membership: the reverse"))
#: the risk target's options, declared once (``dpcalc risk calibrate`` and ``dpcalc calibrate``)
MAX_TPR = real("max_tpr", formula="-", default=None, help="Largest TPR allowed at --at-fpr (an attack-risk target)")
AT_FPR = real("at_fpr", formula="-", default=None, help="The FPR the TPR target is measured at")
MAX_ADVANTAGE = real("max_advantage", formula="-", default=None, help=(
    "Largest advantage TPR − FPR allowed (an attack-risk target, instead of --max-tpr)"))


_FORMULAS = ["risk.dpsgd_tpr", "risk.adp_tpr", "risk.adp_advantage", "risk.gdp_bayes_success"]


def budgeted(what: str, body: Any, a: Args) -> Any:
    """``body(a)`` within the shared work budget (`dpcalc._limits.work_budget`: the PLD passes book their cost;
    past a minute of counted work one line refuses)."""
    from dpcalc._limits import work_budget

    with work_budget(what):
        return body(a)


def run_of(a: Args, unknown: str | None = None) -> Any:
    """The one event the options describe (a training run, ``--q --steps`` or ``--event``; Poisson sampling,
    add/remove neighbours); ``unknown``: the knob a calibration solves for, which may be absent."""
    if a.sampling != "poisson":
        raise DomainError("--sampling: the certified trade-off curve is for Poisson sampling (add/remove "
                          "neighbours); shuffled batches are not supported here")
    points = runs(a, unknown=unknown)
    if len(points) != 1:
        raise DomainError(f"--noise-multiplier, --q and --steps take one value each here (got {len(points)} runs)")
    return points[0][0]


def _eps(event: Any, delta: float) -> float:
    from dpcalc.accounting import accountants

    return float(accountants.get("pld").epsilon(event, delta, "add_remove").value)


def _run_curve(a: Args) -> tuple[Any, Any, float | None]:
    """(event, curve, ε at --delta or None) of the run the options describe."""
    from dpcalc.risk import tradeoff_curve

    event = run_of(a)
    return event, tradeoff_curve(event), None if a.delta is None else _eps(event, a.delta)


def _run_note(event: Any) -> str:
    return f"Run: {event.describe()}."


@command("attack", *RUN, EVENT, DELTA, axis("fpr", formula="risk.dpsgd_tpr", sweep="0.001,0.01,0.1"),
         real("prior", default_from="dpcalc.risk.attack:attack_risk",
              help="Prior probability that the target is in the training data (Bayes success)"),
         ORIENTATION, formula="risk.dpsgd_tpr", work=3.0)
def attack_command(a: Args) -> Result:
    """The best membership attack against a DP-SGD run: TPR at each FPR, advantage, Bayes success; the run's
    certified curve (PLD, both ends) beside the weaker bound from (ε, δ) alone.

    Example: dpcalc risk attack --dataset-size 60000 --batch-size 256 --epochs 60 -z 1.1 --delta 1e-5
    """
    return budgeted('risk attack (the certified PLD of the run)', _attack, a)


def _attack(a: Args) -> Result:
    from dpcalc.risk import approx_dp_curve, attack_risk, membership_sentence

    event, curve, eps = _run_curve(a)
    r = attack_risk(curve, a.fpr, prior=a.prior, orientation=a.orientation)
    weak = None if eps is None else attack_risk(approx_dp_curve(eps, a.delta), a.fpr, prior=a.prior)
    rows: list[dict[str, Any]] = []
    for i, f in enumerate(r.fpr):
        rows.append({"measure": f"TPR at FPR {f:g}", "fpr": f, "lower": r.tpr_lower[i], "upper": r.tpr_upper[i],
                     "eps_delta": None if weak is None else weak.tpr_upper[i]})
    rows.append({"measure": "advantage (TPR − FPR)", "fpr": None, "lower": r.advantage_lower,
                 "upper": r.advantage_upper, "eps_delta": None if weak is None else weak.advantage_upper})
    rows.append({"measure": f"Bayes success (prior {r.prior:g})", "fpr": None, "lower": r.success_lower,
                 "upper": r.success_upper, "eps_delta": None if weak is None else weak.success_upper})
    cols = [Column("measure", "measure", text=True), Column("fpr", "FPR", r"$\alpha$"),
            Column("lower", f"{curve.kind} curve: lower end", r"$\mathrm{TPR}_{lo}$"),
            Column("upper", f"{curve.kind} curve: upper end (guarantee)", r"$\mathrm{TPR}_{up}$")]
    k = min(range(len(r.fpr)), key=lambda j: abs(r.fpr[j] - 0.01))
    sentence = membership_sentence(r.tpr_upper[k], r.fpr[k], kind=curve.kind)
    note = (f"{sentence} {_run_note(event)} Curve: {curve.description} ({curve.kind}; orientation "
            f"{a.orientation}); the upper end is the guarantee: no attack does better.")
    meta: dict[str, Any] = {"sentence": sentence, "event": event.describe(), **event.inputs(),
                            "kind": curve.kind, "orientation": a.orientation}
    if weak is not None:
        cols.append(Column("eps_delta", f"from (ε = {eps:.4g}, δ = {a.delta:g}) alone (weaker)",
                           r"$(\epsilon,\delta)$"))
        note += (f" (ε, δ) = ({eps:.6g}, {a.delta:g}) from the PLD accountant (certified upper ε); its bounds are "
                 "those of every (ε, δ)-DP mechanism: weaker.")
        meta.update(eps=eps, delta=a.delta, weaker_sentence=membership_sentence(weak.tpr_upper[k], r.fpr[k],
                                                                                 kind="weaker"))
    return Result(columns=cols, rows=rows, title="Membership-inference risk of the run", note=note,
                  formula=_FORMULAS, meta=meta)


@command("curve", *RUN, EVENT, DELTA, axis("fpr", formula="risk.dpsgd_tpr", sweep="0.0001,0.001,0.01,0.1,0.5"),
         ORIENTATION, formula="risk.dpsgd_tpr", work=3.0)
def curve_command(a: Args) -> Result:
    """The run's trade-off curve β(α) = 1 − TPR at each FPR α, both certified ends, and the (ε, δ) curve.

    Example: dpcalc risk curve --q 0.01 --steps 1000 -z 1 --delta 1e-5 --fpr 0.001,0.01,0.1
    """
    return budgeted('risk curve (the certified PLD of the run)', _curve, a)


def _curve(a: Args) -> Result:
    import numpy as np

    from dpcalc.risk import approx_dp_curve
    from dpcalc.risk.curve import check_alpha

    event, curve, eps = _run_curve(a)
    alpha = np.asarray(check_alpha(a.fpr), dtype=np.float64)
    lo, up = curve.beta(alpha, a.orientation)
    weak = None if eps is None else approx_dp_curve(eps, a.delta).beta(alpha)[0]
    rows = [{"fpr": float(x), "beta_lower": float(b0), "beta_upper": float(b1),
             "beta_eps_delta": None if weak is None else float(weak[i])}
            for i, (x, b0, b1) in enumerate(zip(alpha, lo, up, strict=True))]
    cols = [Column("fpr", "FPR α", r"$\alpha$"), Column("beta_lower", "β lower end (guarantee)", r"$\beta_{lo}$"),
            Column("beta_upper", "β upper end", r"$\beta_{up}$")]
    if weak is not None:
        cols.append(Column("beta_eps_delta", "β from (ε, δ) alone", r"$f_{\epsilon,\delta}$"))
    return Result(columns=cols, rows=rows, title="Trade-off curve of the run (FNR β at FPR α)",
                  note=f"{curve.description}: {curve.kind}. " + _run_note(event),
                  formula=["risk.dpsgd_tpr", "risk.adp_tpr"])


@command("calibrate", *RUN, choice("solve_for", ("noise-multiplier", "steps", "epochs"), formula="-",
                                   default="noise-multiplier", help="The knob to solve for, the rest of the run fixed"),
         MAX_TPR, AT_FPR, MAX_ADVANTAGE,
         DELTA, ORIENTATION, formula="risk.dpsgd_tpr", work=30.0)
def calibrate_command(a: Args) -> Result:
    """The smallest noise multiplier (or most steps / epochs) whose certified curve meets a risk target.

    Example: dpcalc risk calibrate --dataset-size 60000 --batch-size 256 --epochs 60 --max-tpr 0.1 --at-fpr 0.01
    """
    return budgeted('risk calibrate (one certified PLD per step of the search)', _calibrate, a)


def _calibrate(a: Args) -> Result:
    knob = {"noise-multiplier": "noise_multiplier"}.get(a.solve_for, a.solve_for)
    return risk_calibration(a, knob, a.delta)


def risk_calibration(a: Args, knob: str, delta: float | None) -> Result:
    """The noise multiplier, steps or epochs of the run the options describe whose certified trade-off curve meets
    the risk target of ``a`` (``--max-tpr --at-fpr`` or ``--max-advantage``); with ``delta``, the run's ε there."""
    from dpcalc.accounting.events import TrainingRun
    from dpcalc.accounting.events.training import epochs_of
    from dpcalc.risk import noise_for_risk, steps_for_risk

    if knob not in ("noise_multiplier", "steps", "epochs"):
        raise DomainError(f"--solve-for {knob.replace('_', '-')}: a risk target solves for noise-multiplier, steps "
                          "or epochs")
    label = knob.replace("_", "-")
    target = {"max_tpr": a.max_tpr, "at_fpr": a.at_fpr, "max_advantage": a.max_advantage,
              "orientation": a.orientation}
    values = a.parsed()
    if knob == "noise_multiplier" and values.get("sigma") is not None:
        raise DomainError("--solve-for noise-multiplier: --noise-multiplier is the unknown; drop it")
    if knob != "noise_multiplier" and (values.get("epochs") is not None or values.get("steps") is not None):
        raise DomainError(f"--solve-for {label}: --epochs and --steps are the unknown; drop them")
    run = run_of(a, unknown=knob)
    assert isinstance(run, TrainingRun)
    n, b = run.dataset_size, run.batch_size
    if knob == "noise_multiplier":
        q, steps = run.rate, run.step_count
        c = noise_for_risk(q, steps, **target)
        z = c.value
    else:
        if knob == "epochs" and (n is None or b is None):
            raise DomainError("--solve-for epochs needs --dataset-size --batch-size")
        z, q = float(run.noise_multiplier), run.rate  # type: ignore[arg-type]
        c = steps_for_risk(z, q, **target)
        steps = int(c.value)
    row: dict[str, Any] = {"knob": label, "noise_multiplier": z, "q": q, "steps": steps,
                           "epochs": epochs_of(steps, int(n), int(b)) if n is not None and b is not None else None,
                           "measure": c.measure, "target": c.target, "achieved": c.achieved,
                           "next_value": c.next_value, "next_achieved": c.next_achieved}
    cols = [Column("knob", "solved for", text=True),
            Column("noise_multiplier", "z (noise multiplier)", "$z$",
                   number=".6g↑" if knob == "noise_multiplier" else ""),  # more noise is the safe side
            Column("q", "q", "$q$"), Column("steps", "T (steps)", "$T$", integer=True),
            Column("epochs", "epochs", "$E$"), Column("measure", "risk measure", text=True),
            Column("target", "target", "target"), Column("achieved", "certified value at the answer", "value"),
            Column("next_value", "one step less private", "next"),
            Column("next_achieved", "its certified value", "next value")]
    if delta is not None:
        row["eps"] = _eps(TrainingRun(z, q=q, steps=steps), delta)
        cols.append(Column("eps", f"ε at δ = {delta:g} (PLD, upper)", r"$\epsilon$"))
    note = (f"Safe side: the certified upper end of the run's curve meets the target at the answer "
            f"({c.evaluations} curves computed). The CLT gave the first guess only.")
    return Result(columns=cols, rows=[row], title="Calibration to an attack-risk target", note=note,
                  formula=["risk.dpsgd_tpr", "risk.gdp_mu_for_tpr"])


ENTRIES = (Group("risk", "What an attacker can do: f-DP trade-off curves, membership-inference risk, calibration to "
                 "it (Dong, Roth & Su 2022; Kulynych et al. 2024).", (attack_command, curve_command,
                                                                       calibrate_command)),)
