"""``dpcalc verify``: check catalog formulas against simulation or exact numerics (exit 1 if any check fails)."""

from __future__ import annotations

from dpcalc.cli.command import EXIT_VERIFY_FAILED, Args, command
from dpcalc.cli.options import AS_PUBLISHED, SCHEDULER, Opt, flag, integer, real, text
from dpcalc.errors import DomainError
from dpcalc.report.render import Column, Format, Result

__all__ = ["ENTRIES"]

_FULL = ["id", "published", "method", "closed_form", "estimate", "ci_low", "ci_high", "z", "rel_error", "verdict",
         "recipe", "detail", "seconds"]
_VERIFY = "dpcalc.verify:verify"


@command("verify", Opt("ids", "arguments", formula="-", default=None, option="IDS",
                       help="Formula ids to check (see `dpcalc formulas list`)"),
         text("paper", formula="-", default_from="dpcalc.verify:select", help="Check every formula of this paper, "
                                                                               "e.g. 000"),
         flag("all_", option="--all", formula="-", help="Check every formula of the catalog"),
         integer("samples", formula="-", default_from=_VERIFY, help="Monte Carlo samples per check"),
         integer("seed", formula="-", default_from=_VERIFY, help="Root seed (same seed → same numbers, any --workers)"),
         integer("workers", formula="-", default=None, help="Processes (default: number of cores)"),
         real("level", formula="-", default_from=_VERIFY,
              help="Two-sided confidence level of each Monte Carlo interval"),
         AS_PUBLISHED._replace(help="Also check the published (erroneous) form of every entry with an erratum; those "
                                    "rows are marked published and should fail"),
         SCHEDULER, formula="-")
def verify_command(a: Args) -> Result:
    """Check formulas against simulation or exact numerics: closed form vs estimate ± CI, verdict.

    Each Monte Carlo check passes iff the closed form lies in the estimate's two-sided 99.9 % interval (--level),
    so a correct formula fails one check with probability about 0.1 % for a random seed (false-alarm rate; over M
    Monte Carlo checks at most M x 0.1 %). Exact-numeric checks (root finding, quadrature, optimiser) compare with
    a stated tolerance. Verdicts: pass, fail, missing (no recipe registered), error. Exit code 1 if any check is
    not 'pass' (published-form rows excepted), 0 otherwise.

    Example: dpcalc verify --paper 000 --samples 400000 --seed 0
    """
    from dpcalc import verify as V
    from dpcalc._progress import progress
    from dpcalc.sim.executor import scheduler_address
    from dpcalc.sim.parallel import default_workers

    if not V.MIN_SAMPLES <= a.samples <= V.MAX_SAMPLES:
        raise DomainError(f"--samples must be an integer in [{V.MIN_SAMPLES:,}, {V.MAX_SAMPLES:,}] (got {a.samples})")
    if not 0.5 <= a.level < 1:
        raise DomainError(f"--level must be in [0.5, 1) (got {a.level})")
    n_workers = default_workers() if a.workers is None else a.workers
    if not 1 <= n_workers <= 256:
        raise DomainError(f"--workers must be an integer in [1, 256] (got {n_workers})")
    if not a.ids and a.paper is None and not a.all_:
        raise DomainError("give formula ids, --paper P or --all")
    try:
        formulas = V.select(a.ids or [], paper=a.paper, all_=a.all_)
    except KeyError as exc:
        raise DomainError(str(exc.args[0]) if exc.args else str(exc)) from None
    with progress(len(formulas), "verify") as advance:
        rows = V.verify(formulas, samples=a.samples, seed=a.seed, workers=n_workers, level=a.level,
                        as_published=a.as_published, progress=lambda row: advance(1, row.id),
                        scheduler=scheduler_address(a.scheduler))
    data = [r.as_dict() for r in rows]
    if a.format in (Format.json, Format.csv):
        columns = [Column(k) for k in _FULL]
    else:
        for d in data:
            lo, hi = d["ci_low"], d["ci_high"]
            d["pm"] = None if lo is None or hi is None else (hi - lo) / 2
            d["score"] = (f"z={d['z']:+.2f}" if d["z"] is not None else
                          (f"rel={d['rel_error']:.1e}" if d["rel_error"] is not None else ""))
            d["id"] = d["id"] + (" [published]" if d["published"] else "")
        columns = [Column("id", "formula"), Column("method"), Column("closed_form", "closed form"),
                   Column("estimate"), Column("pm", "± CI"), Column("score", "z / rel. error"), Column("verdict")]
    return Result(columns=columns, rows=data, title="dpcalc verify", formula=[f.id for f in formulas],
                  meta={"samples": a.samples, "seed": a.seed, "workers": n_workers, "level": a.level,
                        "as_published": a.as_published}, summary=V.summary(rows),
                  note=f"Monte Carlo intervals at {a.level:.4g} two-sided; false-alarm rate ≈ {1 - a.level:.2g} "
                       "per Monte Carlo check.",
                  exit_code=EXIT_VERIFY_FAILED if V.exit_code(rows) else 0)


ENTRIES = (verify_command,)
