"""The privacy statement of a training run: what a paper or a model card can paste.

`Statement` holds its content (a JSON-ready dict): ε at the user's δ under each accountant with its kind (the PLD's
certified bracket), under the sampler used and, for comparison, under others (Poisson by default when another was used;
fixed-size batches drawn each step, shuffled batches with their lower bound, balls-in-bins), at example (or client)
level and, with k examples per user, at user level (group privacy); the unit of privacy, the
neighbouring relation, the references and what the statement does not cover; and its headline result. `render`
writes the content as text, Markdown, LaTeX or JSON. The numbers are those of ``dpcalc account`` for the same inputs
(one evaluation path: `dpcalc.accounting.account.account`).

A guaranteed ε is shown rounded up (its bracket's lower end rounded down) to `DIGITS` significant digits.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from dpcalc import _validate as v
from dpcalc.accounting.events.training import TrainingRun
from dpcalc.accounting.result import PrivacyResult
from dpcalc.errors import DomainError

__all__ = ["DIGITS", "NOT_COVERED", "STYLES", "Statement", "render", "shown", "statement"]

DIGITS = 4
STYLES = ("text", "json", "markdown", "latex")

_GROUP_REFERENCES = {"vadhan": "group privacy: Vadhan 2017, Lemma 2.2",
                     "rdp-group": "group privacy of RDP: Mironov 2017, Prop. 2",
                     "mixture": "mixture-of-Gaussians PLD for user-level DP-SGD: Ganesh et al. 2024"}
_SAMPLER_REFERENCES = {
    "fixed": "sampling without replacement (RDP): Wang, Balle & Kasiviswanathan 2019, Thm 9",
    "balls-in-bins": "random allocation: Feldman & Shenfeld 2025; balls-in-bins sampling: Chua et al. 2025",
}
_MECHANISM = {"example": ("DP-SGD", "Abadi et al. 2016"), "client": ("DP-FedAvg", "McMahan et al. 2018"),
              "dp-ftrl": ("DP-FTRL-TreeRestart", "Kairouz et al. 2021")}
_SAMPLING_TEXT = {
    "poisson": "Poisson sampling: each {record} joins each {batch} independently with probability q",
    "fixed": "fixed-size batches: each step draws {size} {record}s without replacement",
    "shuffle": "shuffled batches: the data shuffled once per epoch and cut into batches of {size}",
    "balls-in-bins": "balls-in-bins: each {record} in one random step of each epoch",
    "in order": "the batches in order, each {record} once per epoch (DP-FTRL)",
}
#: how the headline names the sampler
_SAMPLER_NAMES = {"poisson": "Poisson sampling", "fixed": "fixed-size batches drawn each step",
                  "shuffle": "shuffled batches", "balls-in-bins": "balls-in-bins sampling",
                  "in order": "batches in order, each example once per epoch"}

NOT_COVERED = (
    "hyperparameter tuning, model selection and repeated runs on the same data, unless accounted for separately",
    "data-dependent clipping or normalisation (e.g. a clipping norm set from the update's own norm, "
    "C_l = ‖Δŵ_l‖): the guarantee needs a sensitivity bound fixed before seeing the data",
    "the gap between the analysed and the implemented sampler: the numbers hold for the sampler named above; a data "
    "loader that shuffles once per epoch and walks through the data is neither Poisson sampling nor independent "
    "fixed-size draws (see its own section: a lower bound and a bound without amplification)",
    "data used outside the private steps (pre-training, validation, the choice of the noise multiplier itself)",
)


def shown(x: float | None, *, down: bool = False) -> str:
    """ε rounded outward to DIGITS significant digits (up; ``down`` for a lower end): the number a reader quotes."""
    if x is None:
        return "—"
    from dpcalc import _validate as v
    from dpcalc._rounding import ROUND_DOWN, ROUND_UP, format_number

    value = float(v.scalar("x", v.nonnegative("x", x)))
    return format_number(value, f"#.{DIGITS}g" + (ROUND_DOWN if down else ROUND_UP))  # '#': 3.000, not 3


def _sampler_key(run: TrainingRun) -> str:
    """The statement's name of how the run walks through its data (its sampler; "in order" for DP-FTRL)."""
    return "in order" if run.mechanism == "dp-ftrl" else run.sampling


def compared(run: TrainingRun, compare: Sequence[str] | str | None) -> list[str]:
    """The samplers shown beside the one used: ``compare`` (names, or ``"all"``: every one the run's terms describe);
    by default Poisson sampling when another sampler was used (the number most tools print), else none."""
    from dpcalc.accounting.events.training import SAMPLINGS

    if compare is None or run.mechanism == "dp-ftrl":  # DP-FTRL does not sample: nothing to compare it with
        return [] if run.sampling == "poisson" or run.mechanism == "dp-ftrl" else ["poisson"]
    items = [compare] if isinstance(compare, str) else list(compare)
    if items == ["all"]:
        return [x for x in SAMPLINGS if x != run.sampling]
    return [x for x in dict.fromkeys(v.choice("compare", x, SAMPLINGS) for x in items) if x != run.sampling]


def _rows(run: TrainingRun, delta: float, names: Sequence[str] | None, options: Any, k: int | None,
          compare: Sequence[str] | str | None = None) -> tuple[list[dict[str, Any]], list[PrivacyResult]]:
    """The guarantees under the sampler used and those compared (`compared`; user level with ``k``), as statement
    rows; and the results of the sampler used."""
    from dpcalc.accounting import accountants as registry
    from dpcalc.accounting.account import account
    from dpcalc.accounting.group import user_bounds

    rows: list[dict[str, Any]] = []
    found: list[PrivacyResult] = []
    # by default the guarantees only: an estimate (the GDP central limit theorem) is shown when asked for by name
    chosen = list(names) if names else [n for n in registry.names() if registry.get(n).kind != "estimate"]
    explicit = compare not in (None, "all")
    for sampler in (run.sampling, *compared(run, compare)):
        try:
            other = dataclasses.replace(run, sampling=sampler)
            other.step_count  # noqa: B018 (a sampler the run's terms do not describe)
        except DomainError as exc:
            if sampler == run.sampling or explicit:
                raise DomainError(f"compare: {exc}") from None if sampler != run.sampling else exc
            continue
        rel = other.relation
        result = account(other, delta=delta, relation=rel, accountants=chosen, options=options)
        key, used = _sampler_key(other), sampler == run.sampling
        for r in result.results:
            rows.append({**r.to_dict(), "sampler": key, "level": run.unit,
                         "reference": registry.get(r.accountant).reference})
            if used:
                found.append(r)
        # an accountant asked for by name is listed with its reason; by default only those that failed
        refused = {**result.failed, **(result.not_applicable if names and used else {})}
        for n, why in refused.items():
            rows.append({"sampler": key, "level": run.unit, "accountant": n, "method": None, "kind": "",
                         "eps": None, "failure": why, "reference": ""})
        if k is not None and used:  # user level for the sampler used (each costs ~10 ε's)
            users = [n for n in chosen if n != "rdp-lemma1" or len(chosen) == 1]
            for b in user_bounds(other, delta, k, users, options):
                ref = _GROUP_REFERENCES[b.method]
                if b.result is not None:
                    rows.append({**b.result.to_dict(), "sampler": key, "level": "user", "reference": ref})
                    found.append(b.result)
                else:
                    rows.append({"sampler": key, "level": "user", "accountant": b.accountant,
                                 "method": b.method, "kind": "", "eps": None, "failure": b.reason, "reference": ref})
    return rows, found


def _membership(run: TrainingRun, fpr: float) -> dict[str, Any]:
    """The operational sentence at ``fpr``: the membership attack's largest TPR on the run's certified trade-off
    curve (`dpcalc.risk`; Dong, Roth & Su 2022; Kulynych et al. 2024)."""
    from dpcalc.risk import attack_risk, membership_sentence, tradeoff_curve

    curve = tradeoff_curve(run.expand().components(run.relation))
    r = attack_risk(curve, [float(v.scalar("membership_fpr", v.probability("membership_fpr", fpr)))])
    return {"fpr": r.fpr[0], "tpr_upper": r.tpr_upper[0], "kind": curve.kind,
            "sentence": membership_sentence(r.tpr_upper[0], r.fpr[0], kind=curve.kind)}


def statement(run: TrainingRun, delta: float, names: Sequence[str] | None = None, options: Any = None,
              k: int | None = None, compare: Sequence[str] | str | None = None, membership_fpr: float | None = None
              ) -> tuple[dict[str, Any], PrivacyResult | None]:
    """The statement's content for the training ``run`` at δ under the accountants ``names`` (default: every one
    that applies; those that fail are listed with their reason), and its headline result; with ``k``, the user-level
    rows (each user contributes at most k examples); ``compare``: the samplers shown beside the one used
    (`compared`); ``membership_fpr``: the operational sentence at that false-positive rate (`_membership`)."""
    from dpcalc import __version__
    from dpcalc.accounting.account import headline_of
    from dpcalc.accounting.events.reader import as_event

    given = as_event(run, "run")
    if not isinstance(given, TrainingRun):
        raise DomainError(f"run must be a training run (dpcalc.accounting.events.TrainingRun; got {given.describe()})")
    run = given
    delta = float(v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True)))
    rows, found = _rows(run, delta, names, options, k, compare)
    level = run.unit
    mechanism, mech_ref = _MECHANISM["dp-ftrl" if run.mechanism == "dp-ftrl" else level]
    record = "client" if level == "client" else "example"
    unit = (f"one user, who contributes at most {k} example{'s' if k != 1 else ''}" if k is not None else
            "one client, with all of its data" if level == "client" else "one example")
    used = [r for r in rows if r["sampler"] == _sampler_key(run) and r.get("eps") is not None
            and r.get("kind") in ("exact", "bracket", "upper") and r["level"] == ("user" if k is not None else level)]
    best = min(used, key=lambda r: r["eps"]) if used else None
    terms = run.terms
    head = headline_of([dataclasses.replace(r, level="example") for r in found
                        if (r.level == "user") == (k is not None)])
    content = {
        "dpcalc_version": __version__,
        "mechanism": mechanism, "mechanism_reference": mech_ref,
        "training": {**{n: x for n, x in terms.items() if n != "noise_multiplier"}, "q": run.rate,
                     "steps": run.step_count, "epochs": run.epochs if run.epochs is not None else run.epochs_run,
                     "sampling": _sampler_key(run)},
        "noise_multiplier": run.noise_multiplier, "delta": delta,
        "unit": unit, "level": "user" if k is not None else level, "max_examples_per_user": k,
        "neighbouring": (f"{_relation(run.relation, 'all (up to ' + str(k) + ') examples of one user')}"
                         if k is not None else _relation(run.relation, f"one {record}")),
        "sampling": {s: _SAMPLING_TEXT[s].format(record=record, batch="round" if level == "client" else "batch",
                                                  size="m" if level == "client" else "b")
                     for s in _SAMPLING_TEXT if any(r["sampler"] == s for r in rows)},
        "headline": None if best is None else {"eps": best["eps"], "accountant": best["accountant"],
                                                 "method": best.get("method")},
        "guarantees": rows,
        "references": [f"{mechanism}: {mech_ref}", *dict.fromkeys(r["reference"] for r in rows if r["reference"]),
                       *dict.fromkeys(_SAMPLER_REFERENCES[r["sampler"]] for r in rows
                                      if r["sampler"] in _SAMPLER_REFERENCES and r.get("eps") is not None)],
        "not_covered": list(NOT_COVERED),
        "membership": None if membership_fpr is None else _membership(run, membership_fpr),
    }
    if head is not None:
        head = next(r for r in found if r.accountant == head.accountant and r.method == head.method)
    return content, head


def _relation(relation: str, what: str) -> str:
    """The neighbouring datasets in words, for ``what`` ('one example', ...) under ``relation``."""
    text = {"add_remove": f"add or remove {what}", "replace_one": f"replace {what}",
            "replace_special": f"replace {what} by a zero contribution (zero-out)"}[relation]
    return text.replace("one one", "one")


# ------------------------------------------------------------------------------------------ rendering

def _headline(s: Mapping[str, Any]) -> str:
    t = s["training"]
    if "clients" in t:
        run = (f"{s['mechanism']} with {t['clients']:,} clients, {t['clients_per_round']:,} per round "
               f"(q = {t['q']:.6g}), {t['rounds']:,} rounds")
    elif "dataset_size" in t:
        length = (f"{t['epochs']:g} epoch{'' if t['epochs'] == 1 else 's'}"
                  if "epochs" in s["training"] and t.get("epochs") is not None else "")
        run = (f"{s['mechanism']} on {t['dataset_size']:,} examples, batch size {t['batch_size']:,} "
               f"(q = {t['q']:.6g}), {length + ' = ' if length else ''}{t['steps']:,} steps")
    else:
        run = f"{s['mechanism']} with sampling rate q = {t['q']:.6g}, {t['steps']:,} steps"
    run += f", noise multiplier {s['noise_multiplier']:g}"
    h = s["headline"]
    if h is None:
        return f"Trained with {run}; no accountant gave a guaranteed ε for the sampler used (see below)."
    how = h["accountant"] + (" with group privacy" if s["level"] == "user" else "")
    member = f" {s['membership']['sentence']}" if s.get("membership") else ""
    return (f"Trained with {run}. It satisfies (ε = {shown(h['eps'])}, δ = {s['delta']:g})-differential privacy at "
            f"the level of {s['unit']} (neighbouring datasets: {s['neighbouring']}), under "
            f"{_SAMPLER_NAMES[t['sampling']]}; accountant {how}.{member}")


def _guarantee_line(r: Mapping[str, Any]) -> str:
    name = r["accountant"] + {"vadhan": " + group privacy (Vadhan)", "rdp-group": " group privacy (Mironov)",
                              "mixture": " mixture of Gaussians (Ganesh et al.)"}.get(r.get("method") or "", "")
    if r.get("failure"):
        return f"{name}: no ε — {r['failure']}"
    if r["kind"] == "lower":
        return f"{name}: ε ≥ {shown(r['eps'], down=True)} (lower bound: the true ε is at least this; not a guarantee)"
    if r.get("eps_lower") is not None:
        what = f"certified bracket [{shown(r['eps_lower'], down=True)}, {shown(r['eps_upper'])}]"
    else:
        what = {"exact": "exact", "upper": "upper bound"}.get(r["kind"], "estimate, can be below the true ε")
    return f"{name}: ε = {shown(r['eps'])} ({what})"


def _sections(s: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The statement as (heading, items): one model for text, Markdown and LaTeX."""
    t = s["training"]
    setting = [f"noise multiplier z = {s['noise_multiplier']:g}, δ = {s['delta']:g}",
               f"sampling rate q = {t['q']:.10g}, steps T = {t['steps']:,}"
               + (f" ({t['epochs']:.6g} epoch{'' if t['epochs'] == 1 else 's'})" if t.get("epochs") is not None
                  else "")]
    setting += [f"{k.replace('_', ' ')} = {x:,}" if isinstance(x, int) else f"{k.replace('_', ' ')} = {x:g}"
                for k, x in t.items() if k in ("dataset_size", "batch_size", "clients", "clients_per_round",
                                               "rounds")]
    out = [("Training run", setting),
           ("Unit of privacy", [f"{s['unit']}; neighbouring datasets: {s['neighbouring']}"])]
    used = t["sampling"]
    for sampling in (used, *(x for x in s["sampling"] if x != used)):
        rows = [r for r in s["guarantees"] if r["sampler"] == sampling]
        tag = "sampler used in training" if sampling == used else "for comparison"
        for level in dict.fromkeys(r["level"] for r in rows):
            lvl = [r for r in rows if r["level"] == level]
            title = f"ε at δ = {s['delta']:g}, {level} level, {s['sampling'][sampling]} ({tag})"
            failures = {r.get("failure") for r in lvl}
            if None not in failures and len(lvl) > 1:  # every accountant refuses: one line, naming them
                why = str(lvl[0]["failure"]).replace(f"accountant {lvl[0]['accountant']!r}",
                                                     "accountants " + ", ".join(r["accountant"] for r in lvl))
                out.append((title, [f"not computed: {why}"]))
            else:
                out.append((title, [_guarantee_line(r) for r in lvl]))
    out.append(("Not covered by this statement", list(s["not_covered"])))
    out.append(("References", list(s["references"])))
    return out


def _text(s: Mapping[str, Any]) -> str:
    lines = ["Differential privacy statement", "", _headline(s)]
    for title, items in _sections(s):
        lines += ["", f"{title}:", *(f"  - {x}" for x in items)]
    lines += ["", f"(dpcalc {s['dpcalc_version']}; ε in nats, guaranteed values rounded up)"]
    return "\n".join(lines) + "\n"


def _markdown(s: Mapping[str, Any]) -> str:
    lines = ["## Differential privacy statement", "", _headline(s)]
    for title, items in _sections(s):
        lines += ["", f"**{title}**", "", *(f"- {x}" for x in items)]
    lines += ["", f"*dpcalc {s['dpcalc_version']}; ε in nats, guaranteed values rounded up.*"]
    return "\n".join(lines) + "\n"


def _latex(s: Mapping[str, Any]) -> str:
    from dpcalc.report.latex import latex_text

    lines = [r"\paragraph{Differential privacy statement.}", latex_text(_headline(s))]
    for title, items in _sections(s):
        lines += ["", rf"\noindent\textit{{{latex_text(title)}}}", r"\begin{itemize}",
                  *(rf"  \item {latex_text(x)}" for x in items), r"\end{itemize}"]
    lines += [latex_text(f"(dpcalc {s['dpcalc_version']}; ε in nats, guaranteed values rounded up.)")]
    return "\n".join(lines) + "\n"


def render(s: Mapping[str, Any], style: str = "text") -> str:
    """The statement ``s`` as ``style``: text, json, markdown or latex."""
    if style == "json":
        return json.dumps(s, indent=2, ensure_ascii=False) + "\n"
    writers = {"text": _text, "markdown": _markdown, "latex": _latex}
    if style not in writers:
        from dpcalc.errors import DomainError

        raise DomainError(f"style must be one of {', '.join(STYLES)} (got {style!r})")
    return writers[style](s)


def _html(s: Mapping[str, Any]) -> str:
    import html

    parts = [f"<h4>Differential privacy statement</h4><p>{html.escape(_headline(s))}</p>"]
    for title, items in _sections(s):
        parts.append(f"<p><em>{html.escape(title)}</em></p><ul>"
                     + "".join(f"<li>{html.escape(x)}</li>" for x in items) + "</ul>")
    return "<div class='dpcalc-statement'>" + "".join(parts) + "</div>"


class Statement:
    """The privacy statement of a training run: ``str(statement)`` is the text; `markdown`, `latex`, `to_dict` (the
    JSON content) the other forms; `headline` the guaranteed ε it leads with (a `PrivacyResult`)."""

    def __init__(self, content: dict[str, Any], headline: PrivacyResult | None) -> None:
        self.content, self.headline = content, headline

    @classmethod
    def of(cls, run: TrainingRun, delta: float, *, accountants: Sequence[str] | None = None, options: Any = None,
           k: int | None = None, compare: Sequence[str] | str | None = None,
           membership_fpr: float | None = None) -> Statement:
        """The statement of ``run`` at δ (module docstring)."""
        return cls(*statement(run, delta, accountants, options, k, compare, membership_fpr))

    def to_dict(self) -> dict[str, Any]:
        return dict(self.content)

    @property
    def text(self) -> str:
        return render(self.to_dict(), "text")

    @property
    def markdown(self) -> str:
        return render(self.to_dict(), "markdown")

    @property
    def latex(self) -> str:
        return render(self.to_dict(), "latex")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        h = self.headline
        return f"Statement({_headline(self.to_dict())})" if h is None else f"Statement(ε = {shown(float(h))}, " \
            f"δ = {self.content['delta']:g}, {h.accountant}, {self.content['level']} level)"

    def _repr_html_(self) -> str:
        return _html(self.to_dict())
