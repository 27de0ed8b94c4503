"""Run the catalog's verification checks: ``verify(ids | paper | all)`` → one `CheckRow` per check.

Each catalog entry names a recipe (``check = {method = ..., recipe = ...}``); the recipe computes the entry's
closed form at one point (``check.inputs``, else the first example's inputs) and an independent estimate
(Monte Carlo with a ``level`` confidence interval, or an exact numerical computation with a stated tolerance).

Verdicts: ``pass`` / ``fail`` (closed form outside the interval), ``missing`` (no recipe registered under the name,
no check table, or no input point), ``error`` (the recipe raised). Only ``pass`` counts as success.
With ``as_published=True`` every entry whose erratum has a published form is also checked against that form
(rows with ``published=True``; they are the evidence behind the erratum and are expected to fail).

False-alarm rate: each Monte Carlo check uses a two-sided ``level`` = 99.9 % interval, so a correct formula fails a
given check with probability ≈ 0.1 % per seed; over M Monte Carlo checks the family-wise rate is ≤ M·0.1 %
(Bonferroni). Exact-numeric checks are deterministic. The default seed is fixed, so the default run is reproducible.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from dpcalc import _validate as v
from dpcalc import catalog
from dpcalc.checks.registry import CheckContext, get_recipe
from dpcalc.errors import DomainError, UnknownNameError
from dpcalc.sim.executor import ClusterError, SchedulerLike, open_executor, use

if TYPE_CHECKING:  # pragma: no cover
    from dpcalc.catalog import Formula

__all__ = ["DEFAULT_LEVEL", "DEFAULT_SAMPLES", "MAX_SAMPLES", "MIN_SAMPLES", "VERDICTS", "CheckRow", "check_point",
           "exit_code", "has_published_form", "run_check", "select", "summary", "verify"]

DEFAULT_SAMPLES = 400_000
MIN_SAMPLES = 2_000
"""Fewest Monte Carlo samples per check: below this the normal-approximation intervals undercover (at 100
samples correct formulas failed for 4 of 10 seeds), so the stated false-alarm rate would not hold."""
MAX_SAMPLES = 1_000_000_000
"""Most samples per check (exact as a float, bounded time)."""
DEFAULT_LEVEL = 0.999
VERDICTS = ("pass", "fail", "missing", "error")
_BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class CheckRow:
    """One verification outcome (JSON-ready: NaN is turned into None by `as_dict`)."""

    id: str
    method: str
    closed_form: float
    estimate: float
    ci_low: float
    ci_high: float
    verdict: str
    z: float | None
    rel_error: float | None
    published: bool
    recipe: str
    detail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.verdict == "pass"

    def as_dict(self) -> dict[str, Any]:
        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {k: clean(v) for k, v in asdict(self).items()}


def select(ids: Iterable[str] = (), *, paper: str | None = None, all_: bool = False) -> list[Formula]:
    """The formulas to check: the given ids (KeyError with suggestions if unknown), a paper's (a paper id, or a
    family such as ``events`` for all its papers), or all.

    Parameters
    ----------
    ids : Iterable[str]
    paper : str | None
    all_ : bool

    Returns
    -------
    list[Formula]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    if isinstance(ids, str) or not isinstance(ids, Iterable):
        raise DomainError(f"ids must be a list of formula ids (got {v.brief(ids)})")
    ids = list(ids)
    if not all(isinstance(i, str) for i in ids):
        raise DomainError(f"ids must be a list of formula ids (got {v.brief(ids)})")
    chosen = [catalog.get(i) for i in ids]  # every id and paper is checked, even with --all
    if paper is not None:
        found = catalog.by_paper(paper) or [f for f in catalog.load().values() if f.paper.family == paper]
        if not found:
            papers = sorted({f.paper.id for f in catalog.load().values()})
            families = sorted({f.paper.family for f in catalog.load().values() if f.paper.family})
            raise UnknownNameError(f"no formulas for paper {paper!r}; papers: {', '.join(papers)}; families: "
                                   f"{', '.join(families)}")
        chosen += [f for f in found if f not in chosen]
    return catalog.by_paper(None) if all_ else chosen


def check_point(formula: Formula) -> dict[str, Any] | None:
    """The input point of a check: ``check.inputs``, else the first example's inputs, else None.

    Parameters
    ----------
    formula : Formula

    Returns
    -------
    dict[str, Any] | None
    """
    inputs = formula.check.get("inputs")
    if isinstance(inputs, Mapping):
        return dict(inputs)
    if formula.examples:
        return dict(formula.examples[0].inputs)
    return None


def has_published_form(formula: Formula) -> bool:
    e = formula.erratum
    return e is not None and bool(e.published_sympy) and bool(e.published_implementation or e.published_call_kwargs)


def _row(formula: Formula, method: str, verdict: str, detail: str, published: bool, seconds: float = 0.0,
         closed_form: float = math.nan) -> CheckRow:
    return CheckRow(formula.id, method, closed_form, math.nan, math.nan, math.nan, verdict, None, None, published,
                    str(formula.check.get("recipe", "")), detail, seconds)


def run_check(formula: Formula, *, samples: int = DEFAULT_SAMPLES, seed: int = 0, workers: int = 1,
              level: float = DEFAULT_LEVEL, published: bool = False) -> CheckRow:
    """Run one entry's check (its published form if ``published``) and return the row.

    Parameters
    ----------
    formula : Formula
    samples : int
        Number of Monte Carlo samples.
    seed : int
        Seed of the random generator (an int, or a NumPy ``SeedSequence``/``Generator``).
    workers : int
        Worker processes (1: in this process).
    level : float
    published : bool

    Returns
    -------
    CheckRow
    """
    import warnings

    from dpcalc.sim.blas import single_threaded_blas

    method = str(formula.check.get("method", "")) or "monte-carlo"
    name = formula.check.get("recipe")
    if not name:
        return _row(formula, method, "missing", "the catalog entry declares no check recipe", published)
    fn = get_recipe(str(name))
    if fn is None:
        return _row(formula, method, "missing", f"recipe {name!r} is not registered", published)
    if published and not has_published_form(formula):
        return _row(formula, method, "missing", "the erratum has no published implementation or call kwargs to "
                    "evaluate its published form", published)
    values = check_point(formula)
    if values is None:
        return _row(formula, method, "missing", "no check.inputs and no example to take the point from", published)
    ctx = CheckContext(samples=int(samples), seed=int(seed), workers=int(workers), published=published,
                       level=float(level), formula_id=formula.id + ("#published" if published else ""))
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(), single_threaded_blas():
            warnings.simplefilter("ignore")  # ErratumWarning etc. are expected here; the verdict says what matters
            res = fn(formula, values, ctx)
    except ClusterError:  # the cluster failing is not the recipe's fault: stop the run with one line
        raise
    except Exception as exc:  # a recipe bug must show up as a row, not abort the whole run
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return _row(formula, method, "error", f"recipe {name!r} raised {last}", published,
                    time.perf_counter() - t0)
    dt = time.perf_counter() - t0
    rel = res.rel_error
    return CheckRow(formula.id, res.method, float(res.closed_form), float(res.estimate), float(res.ci_low),
                    float(res.ci_high), res.verdict, res.z, rel if math.isfinite(rel) else None, published,
                    str(name), res.detail, dt)


def _run_task(task: tuple[str, bool, int, int, float]) -> CheckRow:
    fid, published, samples, seed, level = task
    return run_check(catalog.get(fid), samples=samples, seed=seed, workers=1, level=level, published=published)


def verify(formulas: Iterable[Formula | str], *, samples: int = DEFAULT_SAMPLES, seed: int = 0, workers: int = 1,
           level: float = DEFAULT_LEVEL, as_published: bool = False,
           progress: Callable[[CheckRow], None] | None = None, scheduler: SchedulerLike = None) -> list[CheckRow]:
    """Check every formula — catalog entries or their ids — (and, with ``as_published``, its published form if it has
    one); rows in the order given.

    ``workers > 1`` runs the checks in a local process pool (each check with one worker); ``scheduler`` (a
    ``distributed.Client``, a scheduler address or an executor, `dpcalc.sim.executor`) runs them on a Dask
    cluster instead: one task per check, or, when every check has at least two chunks per cluster thread, the checks
    one after another here with their Monte Carlo chunks spread over the cluster. Results do not depend on any of
    this: each check's random stream is seeded by (seed, formula id) and its chunks are summed in order.

    Parameters
    ----------
    formulas : Iterable[Formula | str]
    samples : int
        Number of Monte Carlo samples.
    seed : int
        Seed of the random generator (an int, or a NumPy ``SeedSequence``/``Generator``).
    workers : int
        Worker processes (1: in this process).
    level : float
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.
    progress : Callable[[CheckRow], None] | None
    scheduler : SchedulerLike

    Returns
    -------
    list[CheckRow]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    if not MIN_SAMPLES <= samples <= MAX_SAMPLES:
        raise DomainError(f"samples must be an integer in [{MIN_SAMPLES:,}, {MAX_SAMPLES:,}] (got {samples})")
    if not 0.5 <= level < 1:
        raise DomainError(f"level must be in [0.5, 1) (got {level})")
    tasks: list[tuple[Formula, bool]] = []
    for item in ([formulas] if isinstance(formulas, str) else formulas):
        f = catalog.get(item) if isinstance(item, str) else item
        tasks.append((f, False))
        if as_published and (has_published_form(f) or (f.erratum is not None and f.erratum.published_sympy)):
            tasks.append((f, True))
    if scheduler is None and (workers <= 1 or len(tasks) <= 1):
        return _in_process(tasks, samples, seed, max(workers, 1), level, progress)
    # Local processes are fresh interpreters with single-threaded BLAS: W processes × multi-threaded BLAS
    # oversubscribes the cores (measured: a 101-dimensional Gaussian check took 46 s instead of 7 s on a loaded
    # 2-core machine).
    with open_executor(scheduler, workers=min(workers, len(tasks)), start_method="spawn",
                       env=dict.fromkeys(_BLAS_ENV, "1")) as ex:
        from dpcalc.sim.parallel import DEFAULT_CHUNK

        if ex.cluster and samples >= 2 * ex.workers * DEFAULT_CHUNK:
            with use(ex):
                return _in_process(tasks, samples, seed, 1, level, progress)
        # Monte Carlo checks first (usually the long ones), so the pool's tail is short; rows keep catalog order
        order = sorted(range(len(tasks)), key=lambda k: tasks[k][0].check.get("method") != "monte-carlo")
        out: list[CheckRow | None] = [None] * len(tasks)
        items = [(tasks[k][0].id, tasks[k][1], samples, seed, level) for k in order]
        for k, row in zip(order, ex.imap(_run_task, items), strict=True):
            out[k] = row
            if progress is not None:
                progress(row)
    return [r for r in out if r is not None]


def _in_process(tasks: list[tuple[Formula, bool]], samples: int, seed: int, workers: int, level: float,
                progress: Callable[[CheckRow], None] | None) -> list[CheckRow]:
    rows = []
    for f, pub in tasks:
        row = run_check(f, samples=samples, seed=seed, workers=workers, level=level, published=pub)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def exit_code(rows: Iterable[CheckRow]) -> int:
    """1 if any (non-published) check did not pass, else 0. Published-form rows are evidence, not failures.

    Parameters
    ----------
    rows : Iterable[CheckRow]

    Returns
    -------
    int
    """
    return 0 if all(r.ok for r in rows if not r.published) else 1


def summary(rows: list[CheckRow]) -> dict[str, Any]:
    """Counts by verdict (correct forms), and how many published forms were shown failing.

    Parameters
    ----------
    rows : list[CheckRow]

    Returns
    -------
    dict[str, Any]
    """
    main = [r for r in rows if not r.published]
    pub = [r for r in rows if r.published]
    out: dict[str, Any] = {v: sum(r.verdict == v for r in main) for v in VERDICTS}
    out["checks"] = len(main)
    if pub:
        out["published_forms_failing"] = f"{sum(r.verdict == 'fail' for r in pub)}/{len(pub)}"
    out["seconds"] = round(sum(r.seconds for r in rows), 3)
    return out
