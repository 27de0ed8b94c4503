"""``dpcalc statement``: the privacy statement of a training run, to paste into a paper or a model card.

Library: `dpcalc.api.statement` (`dpcalc.report.statement.Statement`: content and rendering).
"""

from __future__ import annotations

from dpcalc.cli.accounting import ACCOUNTANT, BACKEND, ORDERS, TRAINING, USER, accountants_of, options_of, runs, user_k
from dpcalc.cli.artifacts import Document
from dpcalc.cli.command import Args, command
from dpcalc.cli.options import axis, choice, many, real
from dpcalc.errors import DomainError

__all__ = ["ENTRIES"]

COMPARE = many("compare", formula="-", help=(
    "Samplers to show beside the one used (--sampling): poisson, fixed, shuffle, balls-in-bins (repeatable or comma "
    "list), or all. Default: poisson when another sampler was used"))
MEMBERSHIP = real("membership_fpr", formula="-", default=None, help=(
    "Add the operational sentence: the largest true-positive rate of a membership attack at this false-positive "
    "rate, from the run's certified trade-off curve (e.g. 0.01)"))
STYLE = choice("style", ("text", "json", "markdown", "latex"), option="--format", short="-f", formula="-",
               default="text", help="Statement format: text (for people), json, markdown or latex")


@command("statement", axis("sigma", short="-z"), axis("delta"), axis("q", default=None), axis("steps", default=None),
         *TRAINING, COMPARE, MEMBERSHIP, USER, ACCOUNTANT, ORDERS, BACKEND, STYLE, formula="accountant.eps_rdp",
         output="document")
def statement_command(a: Args) -> Document:
    """The privacy statement of a training run (ε under each accountant, sampling, unit, relation, references).

    Example: dpcalc statement --dataset-size 60000 --batch-size 256 --epochs 60 -z 1.1 --delta 1e-5
    """
    from dpcalc.report.statement import Statement, render

    for name in ("sigma", "delta", "q", "steps"):
        if a[name] is not None and len(a[name]) != 1:
            raise DomainError(f"{a.option(name)} takes one value in a statement (got {len(a[name])})")
    (run, _, _), = runs(a)
    delta = float(a.delta[0])
    if not 0.0 < delta < 1.0:
        raise DomainError(f"--delta must be a probability in (0, 1) (got {delta:g})")
    compare = [n.strip() for item in a.compare or [] for n in item.split(",") if n.strip()] or None
    s = Statement.of(run, delta, accountants=accountants_of(a), options=options_of(a),  # type: ignore[arg-type]
                     k=user_k(a, run.unit), compare=compare,  # type: ignore[attr-defined]
                     membership_fpr=a.membership_fpr)
    return Document(s.to_dict(), lambda: render(s.to_dict(), a.style))


ENTRIES = (statement_command,)
