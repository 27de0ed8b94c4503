"""``dpcalc statement``: the privacy statement of a training run, to paste into a paper or a model card.

Library: `dpcalc.report.statement` (content and rendering), `dpcalc.accounting.training` (training terms),
`dpcalc.accounting.group` (user level).
"""

from __future__ import annotations

from dpcalc.cli.account import ACCOUNTANT, BACKEND, ORDERS
from dpcalc.cli.artifacts import Document
from dpcalc.cli.command import Args, command
from dpcalc.cli.options import axis, choice
from dpcalc.cli.training import TRAINING, USER
from dpcalc.errors import DomainError

__all__ = ["ENTRIES"]

STYLE = choice("style", ("text", "json", "markdown", "latex"), option="--format", short="-f", formula="-",
               default="text", help="Statement format: text (for people), json, markdown or latex")


@command("statement", axis("sigma", short="-z"), axis("delta"), axis("q", default=None), axis("steps", default=None),
         *TRAINING, USER, ACCOUNTANT, ORDERS, BACKEND, STYLE, formula="accountant.eps_rdp", output="document")
def statement_command(a: Args) -> Document:
    """The privacy statement of a training run (ε under each accountant, sampling, unit, relation, references).

    Example: dpcalc statement --dataset-size 60000 --batch-size 256 --epochs 60 -z 1.1 --delta 1e-5
    """
    from dpcalc import _validate as v
    from dpcalc.cli.account import _accountants
    from dpcalc.cli.training import user_k, with_schedule
    from dpcalc.report.statement import render, statement

    a, run = with_schedule(a)
    for name in ("sigma", "delta"):
        if len(a[name]) != 1:
            raise DomainError(f"{a.option(name)} takes one value in a statement (got {len(a[name])})")
    sigma = float(v.scalar("sigma", v.positive("sigma", a.sigma[0])))
    delta = float(v.scalar("delta", v.probability("delta", a.delta[0])))
    k = user_k(a, run)
    names, acc = _accountants(a)
    content = statement(run, sigma, delta, names, acc["options"], k)
    return Document(content, lambda: render(content, a.style))


ENTRIES = (statement_command,)
