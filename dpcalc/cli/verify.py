"""``dpcalc verify``: check catalog formulas against simulation or exact numerics (exit 1 if any check fails)."""

from __future__ import annotations

from typing import Annotated

import typer

from dpcalc.cli._common import EXIT_VERIFY_FAILED, output_command
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Format, Result

_FULL = ["id", "published", "method", "closed_form", "estimate", "ci_low", "ci_high", "z", "rel_error", "verdict",
         "recipe", "detail", "seconds"]


def verify_command(
    ids: Annotated[list[str] | None, typer.Argument(help="Formula ids to check (see `dpcalc formulas list`).",
                                                    show_default=False)] = None,
    paper: Annotated[str | None, typer.Option("--paper", help="Check every formula of this paper, e.g. 000.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Check every formula of the catalog.")] = False,
    samples: Annotated[int, typer.Option("--samples", help="Monte Carlo samples per check.")] = 400_000,
    seed: Annotated[int, typer.Option("--seed", help="Root seed (same seed → same numbers, any --workers).")] = 0,
    workers: Annotated[int | None, typer.Option("--workers", help="Processes (default: number of cores).")] = None,
    level: Annotated[float, typer.Option("--level", help="Two-sided confidence level of each Monte Carlo "
                                                         "interval.")] = 0.999,
    as_published: Annotated[bool, typer.Option("--as-published", help="Also check the published (erroneous) form "
                                                                     "of every entry with an erratum; those rows "
                                                                     "are marked published and should fail.")]
    = False,
    *,
    output_format: Format = Format.table,
) -> Result:
    """Check formulas against simulation or exact numerics: closed form vs estimate ± CI, verdict.

    Each Monte Carlo check passes iff the closed form lies in the estimate's two-sided 99.9 % interval (--level),
    so a correct formula fails one check with probability about 0.1 % for a random seed (false-alarm rate; over M
    Monte Carlo checks at most M x 0.1 %). Exact-numeric checks (root finding, quadrature, optimiser) compare with
    a stated tolerance. Verdicts: pass, fail, missing (no recipe registered), error. Exit code 1 if any check is
    not 'pass' (published-form rows excepted), 0 otherwise.

    Example: dpcalc verify --paper 000 --samples 400000 --seed 0
    """
    from dpcalc import verify as V
    from dpcalc.sim.parallel import default_workers

    if not V.MIN_SAMPLES <= samples <= V.MAX_SAMPLES:
        raise DomainError(f"--samples must be an integer in [{V.MIN_SAMPLES:,}, {V.MAX_SAMPLES:,}] (got {samples})")
    if not 0.5 <= level < 1:
        raise DomainError(f"--level must be in [0.5, 1) (got {level})")
    n_workers = default_workers() if workers is None else workers
    if not 1 <= n_workers <= 256:
        raise DomainError(f"--workers must be an integer in [1, 256] (got {n_workers})")
    if not ids and paper is None and not all_:
        raise DomainError("give formula ids, --paper P or --all")
    try:
        formulas = V.select(ids or [], paper=paper, all_=all_)
    except KeyError as exc:
        raise DomainError(str(exc.args[0]) if exc.args else str(exc)) from None
    from dpcalc._progress import progress

    with progress(len(formulas), "verify") as advance:
        rows = V.verify(formulas, samples=samples, seed=seed, workers=n_workers, level=level,
                        as_published=as_published, progress=lambda row: advance(1, row.id))
    f = output_format
    data = [r.as_dict() for r in rows]
    if f in (Format.json, Format.csv):
        columns = [Column(k) for k in _FULL]
    else:
        for d in data:
            lo, hi, est = d["ci_low"], d["ci_high"], d["estimate"]
            d["pm"] = None if lo is None or hi is None else (hi - lo) / 2
            d["score"] = (f"z={d['z']:+.2f}" if d["z"] is not None else
                          (f"rel={d['rel_error']:.1e}" if d["rel_error"] is not None else ""))
            d["id"] = d["id"] + (" [published]" if d["published"] else "")
            d["estimate"] = est
        columns = [Column("id", "formula"), Column("method"), Column("closed_form", "closed form"),
                   Column("estimate"), Column("pm", "± CI"), Column("score", "z / rel. error"),
                   Column("verdict")]
    summ = V.summary(rows)
    return Result(columns=columns, rows=data, title="dpcalc verify", formula=[f.id for f in formulas],
                  meta={"samples": samples, "seed": seed, "workers": n_workers, "level": level,
                        "as_published": as_published}, summary=summ,
                  note=f"Monte Carlo intervals at {level:.4g} two-sided; false-alarm rate ≈ {1 - level:.2g} "
                       "per Monte Carlo check.",
                  exit_code=EXIT_VERIFY_FAILED if V.exit_code(rows) else 0)


def register(app: typer.Typer) -> None:
    """Attach ``verify`` to the root app."""
    app.command("verify")(output_command(verify_command))
