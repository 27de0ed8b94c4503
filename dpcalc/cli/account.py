"""``dpcalc account`` (ε under every accountant, side by side) and ``dpcalc calibrate`` (σ for a target ε).

Library: :mod:`dpcalc.accounting.accountants`, :mod:`dpcalc.accounting.calibrate`
(RDP, zCDP, analytic Gaussian, GDP-CLT, PLD).
"""

from __future__ import annotations

import itertools
import math
from typing import Annotated, Any

import typer

from dpcalc._progress import progress
from dpcalc.cli._common import NoiseMultiplierOpt, output_command
from dpcalc.errors import DomainError
from dpcalc.report.columns import column
from dpcalc.report.grid import parse_values, parse_vector
from dpcalc.report.render import Column, Result

QOpt = Annotated[str, typer.Option("--q", help="Poisson sampling rate q in (0, 1] (1 = every record each step).")]
StepsOpt = Annotated[str, typer.Option("--steps", help="Number of steps / rounds T (integer >= 1).")]
DeltaOpt = Annotated[str, typer.Option("--delta", help="Target δ in (0, 1).")]
AccountantOpt = Annotated[list[str] | None, typer.Option(
    "--accountant", "-a", help="Accountant(s) to use (repeatable): rdp, rdp-lemma1, zcdp, analytic, gdp-clt, pld. "
                               "Default: every one that applies.")]
BackendOpt = Annotated[str, typer.Option(
    "--backend", help="PLD implementation for the pld accountant: dpcalc (own, certified bracket ε lower ≤ ε ≤ ε "
                      "upper) or dp-accounting (Google's, one pessimistic value; for comparison, needs the optional "
                      "extra: pip install 'dpcalc[pld]').")]
OrdersOpt = Annotated[str | None, typer.Option("--orders", help="RDP order grid (comma list / ranges), default "
                                                                 "dp-accounting's 1.1..10.9, 11..63, 128..1024.")]

#: rough seconds per grid point and accountant (ε; calibration: its ~20 ε evaluations), measured at T = 1000 on
#: one core (bench/bench_accounting_kernels.py covers the kernels); used to refuse a grid before computing it
_SECONDS_EPS = {"rdp": 0.006, "rdp-lemma1": 0.006, "zcdp": 0.002, "analytic": 0.003, "gdp-clt": 0.002, "pld": 0.02}
_SECONDS_CALIBRATE = {"rdp": 0.12, "rdp-lemma1": 0.12, "zcdp": 0.04, "analytic": 0.03, "gdp-clt": 0.03, "pld": 0.15}
MAX_SECONDS = 300.0
"""Most estimated work (seconds) one ``account``/``calibrate`` call starts; more is one line before any work."""


def _check_work(options: str, points: int, names: list[str], costs: dict[str, float]) -> None:
    each = sum(costs.get(n, 0.02) for n in names)
    if points * each > MAX_SECONDS:
        raise DomainError(f"{options} give {points:,} grid points × {len(names)} accountant(s) ({', '.join(names)}; "
                          f"~{each * 1e3:.3g} ms a point): ~{points * each / 60:.3g} min of work; at most "
                          f"{MAX_SECONDS / 60:g} min per call ({int(MAX_SECONDS / each):,} points) — use fewer values "
                          "or split the grid")


_RDP = "rdp.subsampled_gaussian"  # declares q and the noise multiplier (its input sigma)
_EPS = "rdp.eps_improved"  # declares eps and delta
_ACCOUNTANT = Column("accountant", "accountant", text=True)
_BOUND = Column("bound", "bound", text=True)


def _setting() -> list[Column]:
    """Noise multiplier, q, steps, δ, accountant (built when a command runs: start-up reads no catalog)."""
    return [column(_RDP, "sigma", key="noise_multiplier", label="z (noise multiplier)"), column(_RDP, "q"),
            column("gdp.clt_mu", "steps"), column(_EPS, "delta"), _ACCOUNTANT]
# The accountants' formulas (every accountant's own entry where the catalog has one).
_FORMULAS = ["rdp.subsampled_gaussian", "rdp.eps_improved", "rdp.eps_lemma1", "zcdp.gaussian_rho",
             "zcdp.eps_from_rho", "gaussian.eps_analytic", "gdp.clt_mu", "gdp.eps_from_mu"]
_CALIBRATION_FORMULAS = _FORMULAS

_BOUND_NOTE = ("bound: upper = guaranteed ε (RDP/zCDP/analytic/PLD); estimate = approximation that can be below the "
               "true ε (GDP-CLT). pld: certified bracket ε lower ≤ true ε ≤ ε upper; ε = ε upper is the guarantee. "
               "Poisson sampling, add/remove neighbours (pld: both evaluated, the worse reported).")


def _accountant_list(requested: list[str] | None, q_values: list[float]) -> list[str]:
    from dpcalc.accounting import accountants

    if requested:
        names: list[str] = []
        for item in requested:
            names += [n.strip() for n in item.split(",") if n.strip()]
        for n in names:
            acc = accountants.get(n)
            for q in q_values:
                reason = acc.applicable(q)
                if reason is not None:
                    raise DomainError(reason)
        return names
    out = []
    for n in accountants.names():
        acc = accountants.get(n)
        if all(acc.applicable(q) is None for q in q_values):
            out.append(n)
    return out


def _backend(backend: str) -> str:
    """Validate --backend; dp-accounting must be importable (checked before any work, one-line error)."""
    from dpcalc.accounting import accountants

    b = backend.strip().lower()
    if b not in ("dpcalc", "dp-accounting"):
        raise DomainError(f"--backend must be dpcalc or dp-accounting (got {backend!r})")
    if b == "dp-accounting" and not accountants.pld_available():
        raise DomainError("--backend dp-accounting: dp-accounting is not installed (pip install 'dpcalc[pld]'); "
                          "the default --backend dpcalc needs nothing extra")
    return b


def _acc_options(name: str, orders: Any, backend: str) -> dict[str, Any]:
    """Per-accountant options: the RDP order grid, the PLD backend."""
    if name.startswith("rdp"):
        return {"orders": orders}
    if name == "pld" and backend != "dpcalc":
        return {"backend": backend}
    return {}


def _orders(text: str | None) -> Any:
    """The --orders grid, validated here (orders > 1, bounded cost) so a bad order is named as such."""
    if text is None:
        return None
    from dpcalc.accounting import rdp

    values = parse_vector("--orders", text)
    try:
        rdp.orders_array(values)
    except DomainError as exc:
        raise DomainError("--" + str(exc)) from None
    return values


def account_command(
    noise_multiplier: NoiseMultiplierOpt,
    q: QOpt,
    steps: StepsOpt,
    delta: DeltaOpt = "1e-5",
    accountant: AccountantOpt = None,
    orders: OrdersOpt = None,
    backend: BackendOpt = "dpcalc",
) -> Result:
    """ε of T Poisson-subsampled Gaussian steps under every accountant, side by side (upper bound or estimate).

    Example: dpcalc account --noise-multiplier 1 --q 0.01 --steps 1000 --delta 1e-5   (rdp: ε = 2.10137 at order 7.8)
    """
    from dpcalc.accounting import accountants

    axes = {k: parse_values(f"--{k.replace('_', '-')}", t) for k, t in
            (("noise_multiplier", noise_multiplier), ("q", q), ("steps", steps), ("delta", delta))}
    names = _accountant_list(accountant, axes["q"])
    grid_orders = _orders(orders)
    pld_backend = _backend(backend)
    from dpcalc import _validate as v  # validate every value before the (possibly slow) accountants run

    v.positive("noise_multiplier", axes["noise_multiplier"])
    v.check_range("q", axes["q"], 0.0, 1.0, lo_open=True)
    v.integer_at_least("steps", axes["steps"], 1)
    v.probability("delta", axes["delta"])
    points = math.prod(len(a) for a in axes.values())
    _check_work("--noise-multiplier, --q, --steps, --delta", points, names, _SECONDS_EPS)
    rows: list[dict[str, Any]] = []
    with progress(points * len(names), "account") as advance:
        for z, qq, t, d in itertools.product(axes["noise_multiplier"], axes["q"], axes["steps"], axes["delta"]):
            for n in names:
                res = accountants.evaluate(n, z, qq, t, d, **_acc_options(n, grid_orders, pld_backend))
                rows.append({"noise_multiplier": z, "q": qq, "steps": t, "delta": d, "accountant": n, "eps": res.eps,
                             "eps_lower": res.extra.get("eps_lower"), "eps_upper": res.extra.get("eps_upper"),
                             "bound": res.bound, "order": res.extra.get("order"), "failure": res.failure})
                advance(1, n)
    if rows and all(r["failure"] for r in rows):
        raise DomainError(str(rows[0]["failure"]))
    columns = [*_setting(), column(_EPS, "eps"), _BOUND, Column("order", "Rényi order α*", r"$\alpha^*$")]
    if "pld" in names:  # the PLD's certified bracket: ε lower ≤ true ε ≤ ε upper (= ε, the guarantee)
        columns[6:6] = [Column("eps_lower", "ε lower (pld)", r"$\epsilon_{lo}$"),
                        Column("eps_upper", "ε upper (pld)", r"$\epsilon_{up}$")]
    else:
        for r in rows:
            del r["eps_lower"], r["eps_upper"]
    if any(r["failure"] for r in rows):
        columns.append(Column("failure", "no ε because", text=True))
    else:
        for r in rows:
            del r["failure"]
    skipped = [n for n in accountants.names() if n not in names]
    return Result(columns=columns,
                  rows=rows, title="Privacy loss ε of the Poisson-subsampled Gaussian",
                  note=_BOUND_NOTE + " α*: the optimal Rényi order (RDP and zCDP accountants)."
                  + ("" if pld_backend == "dpcalc" else " pld by dp-accounting (--backend): one pessimistic value at "
                     "value_discretization_interval 1e-4, no bracket."),
                  formula=_FORMULAS, meta={"accountants": names, "not_applicable": skipped, "pld_backend": pld_backend,
                                           "orders": "default (dp-accounting grid)" if orders is None
                                           else list(grid_orders)})


def calibrate_command(
    eps: Annotated[str, typer.Option("--eps", help="Target ε (value, list or range).")],
    q: QOpt,
    steps: StepsOpt,
    delta: DeltaOpt = "1e-5",
    accountant: AccountantOpt = None,
    orders: OrdersOpt = None,
    rtol: Annotated[float | None, typer.Option("--rtol", help="Relative tolerance on the noise multiplier "
                                                            "(default 1e-9; pld 1e-3).")] = None,
    backend: BackendOpt = "dpcalc",
) -> Result:
    """Smallest noise multiplier z with ε <= target under each accountant (safe side, tolerance stated).

    Example: dpcalc calibrate --eps 2 --delta 1e-5 --q 0.01 --steps 1000   (rdp: σ = 1.02229)
    """
    from dpcalc.accounting import accountants, calibrate

    axes = {k: parse_values(f"--{k}", t) for k, t in (("eps", eps), ("q", q), ("steps", steps), ("delta", delta))}
    names = _accountant_list(accountant, axes["q"])
    grid_orders = _orders(orders)
    pld_backend = _backend(backend)
    points = math.prod(len(a) for a in axes.values())
    _check_work("--eps, --q, --steps, --delta", points, names, _SECONDS_CALIBRATE)
    rows: list[dict[str, Any]] = []
    with progress(points * len(names), "calibrate") as advance:
        for e, qq, t, d in itertools.product(axes["eps"], axes["q"], axes["steps"], axes["delta"]):
            for n in names:
                z = calibrate.sigma_for_eps(e, d, qq, t, accountant=n, rtol=rtol,
                                            **_acc_options(n, grid_orders, pld_backend))
                rows.append({"eps": e, "q": qq, "steps": t, "delta": d, "accountant": n, "noise_multiplier": z,
                             "bound": accountants.get(n).bound})
                advance(1, n)
    columns = [column(_EPS, "eps", label="target ε (nats)"), *_setting()[1:],
               column(_RDP, "sigma", key="noise_multiplier", label="z (noise multiplier)"), _BOUND]
    tol = f"{rtol:g}" if rtol is not None else "1e-9 (pld: 1e-3, on its certified upper bound)"
    note = (f"Safe side: each z gives ε <= target under its accountant; relative tolerance on z {tol}. "
            "An 'estimate' accountant's z is not a guarantee.")
    return Result(columns=columns, rows=rows, title="Noise multiplier z for a target (ε, δ)", note=note,
                  formula=_CALIBRATION_FORMULAS, meta={"accountants": names, "rtol": tol, "pld_backend": pld_backend})


def register(app: typer.Typer) -> None:
    """Attach ``account`` and ``calibrate`` to the root app."""
    app.command("account")(output_command(account_command))
    app.command("calibrate")(output_command(calibrate_command))
