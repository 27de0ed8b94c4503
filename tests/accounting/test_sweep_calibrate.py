"""Domain sweeps of the noise calibration (dpcalc.accounting.schedule.sigma_for_eps; catalog entries
``calibrate.sigma_*`` in formulas/accountants.toml): safe side through the forward map at every point, and tightness
within the entry's documented rtol (read from the catalog: 1e-9 on σ).

* ``analytic`` and ``zcdp`` (q = 1): against the exact σ from the 40-digit oracles (σ = √T/μ(ε, δ); σ = √(T/(2ρ))
  with ρ the root of ε_zCDP(ρ, δ) = ε);
* ``rdp`` on the catalog entry's grid 2..16 (calibrate.sigma_rdp): against the exact σ at every point (the
  30-digit mpmath root of the entry's form, certified as the grid's smallest root), plus the float64 forward map
  safe and tight;
* ``rdp`` on the accountant's default grid: the float64 forward map safe (ε_rdp(σ) <= target) and tight
  (ε_rdp(σ·(1 − rtol)) > target) at every point — the accountant is swept against 40-digit mpmath in
  tests/accounting/test_sweep_accountants.py — and, on a seeded 1-in-20 subset, safe in exact arithmetic
  (20-digit mpmath ε at the accountant's optimal order).

Cost: a point is one calibration (16 accountant evaluations since the root finder's Illinois fix, was
36) plus the checks; the reference never calibrates a second time (:class:`_Returned`).
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Callable

import mpmath

from dpcalc import catalog
from dpcalc.accounting import schedule
from dpcalc.checks import oracles
from tests.support.sweep import Axis, sweep

#: the documented tolerance of the calibration (one source: the catalog entries; the same for all three)
RTOL = catalog.get("calibrate.sigma_rdp").rtol
assert RTOL == catalog.get("calibrate.sigma_zcdp").rtol == catalog.get("calibrate.sigma_analytic").rtol


def _calibrated(p: dict[str, float], name: str, q: float = 1.0) -> float:
    return schedule.sigma_for_eps(p["eps"], p["delta"], q, p["steps"], accountant=name)


def test_calibrate_analytic_sweep() -> None:
    """σ = √T/μ(ε, δ), μ the 40-digit root bracketed from the returned σ (the bracket is certified by its sign
    change, so the guess only saves iterations)."""
    fn = _Returned(lambda p: _calibrated(p, "analytic"))

    def ref(p: dict[str, float]) -> mpmath.mpf:
        guess = math.sqrt(p["steps"]) / fn.at(p)
        return mpmath.sqrt(p["steps"]) / oracles.gaussian_mu(p["eps"], math.log(p["delta"]), guess=guess)

    sweep("calibrate.sigma_for_eps[analytic]",
          [Axis("eps", 0.05, 50.0), Axis("delta", 1e-15, 1e-2), Axis("steps", 1, 1e4, "logint")],
          fn=fn, ref=ref, rtol=RTOL, safe="above", n=6,
          where=lambda p: 1e-3 < math.sqrt(p["steps"]) * 0.1 / p["eps"] < 1e5)


def test_calibrate_zcdp_sweep() -> None:
    def ref(p: dict[str, float]) -> mpmath.mpf:
        return mpmath.sqrt(p["steps"] / (2 * oracles.zcdp_rho(p["eps"], math.log(p["delta"]))))

    sweep("calibrate.sigma_for_eps[zcdp]",
          [Axis("eps", 0.05, 50.0), Axis("delta", 1e-15, 1e-2), Axis("steps", 1, 1e4, "logint")],
          fn=lambda p: _calibrated(p, "zcdp"), ref=ref, rtol=RTOL, safe="above", n=6,
          where=lambda p: 1e-3 < math.sqrt(p["steps"]) * 0.1 / p["eps"] < 1e5)


def _rdp_eps(p: dict[str, float], s: float, **opts: object) -> tuple[float, float]:
    """The accountant's float64 ε and optimal order at σ = s (the calibration's forward map)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = schedule.result(s, p["q"], p["steps"], p["delta"], accountant="rdp", **opts)
    return r.value, float(r.details["order"])


def _rdp_calibrated(p: dict[str, float], **opts: object) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return schedule.sigma_for_eps(p["eps"], p["delta"], p["q"], p["steps"], accountant="rdp", **opts)


def _float_safe_and_tight(p: dict[str, float], s: float, **opts: object) -> bool:
    """Safe (ε(σ) <= target) and tight (ε(σ·(1 − rtol)) > target) through the float64 forward map."""
    return _rdp_eps(p, s, **opts)[0] <= p["eps"] < _rdp_eps(p, s * (1 - RTOL), **opts)[0]


class _Returned:
    """``fn`` of a sweep that remembers its last value: the sweep calls ``fn(p)`` then ``ref(p)`` at each point, so a
    reference that needs the returned σ (or is that σ) reads it here instead of calibrating twice."""

    def __init__(self, fn: Callable[[dict[str, float]], float]) -> None:
        self.fn, self.key, self.value = fn, "", math.nan

    def __call__(self, p: dict[str, float]) -> float:
        self.key, self.value = repr(p), self.fn(p)
        return self.value

    def at(self, p: dict[str, float]) -> float:
        assert self.key == repr(p), "ref called before fn at this point"
        return self.value


RDP_AXES = [Axis("eps", 0.1, 20.0), Axis("delta", 1e-12, 1e-3), Axis("q", 1e-3, 1.0), Axis("steps", 1, 1e4, "logint")]
#: the default grid's high-precision subset: one point in ORACLE_EVERY (seeded by the point) also gets the 20-digit
#: ε at the accountant's optimal order at the returned σ (an upper bound on the exact minimum over the grid)
ORACLE_EVERY = 20


def test_calibrate_rdp_safe_and_tight() -> None:
    """The accountant's default grid (99 fractional orders 1.1..10.9, integers 11..63, 128..1024). Every point:
    the float64 forward map is safe and tight (see :func:`_float_safe_and_tight`). A seeded subset (1 in
    ``ORACLE_EVERY``, by a hash of the point): safe in exact arithmetic — the 20-digit mpmath ε (quadrature at
    fractional, binomial sum at integer orders) at the optimal order the accountant reports at the returned σ is
    <= the target, so the exact minimum over the grid is too. (The reference column is the returned σ itself: the
    exact root over 167 orders needs ~30 quadratures per order; tightness is the float64 check, whose error
    ~3e-15 relative (tests/accounting/test_sweep_accountants.py) is far inside the 1e-9 step.)"""
    def safe(p: dict[str, float], s: float) -> bool:
        if not _float_safe_and_tight(p, s):
            return False
        if zlib.crc32(repr(sorted(p.items())).encode()) % ORACLE_EVERY:
            return True
        order = _rdp_eps(p, s)[1]
        return bool(oracles.rdp_eps(p["q"], s, p["steps"], p["delta"], order, dps=20) <= p["eps"])

    fn = _Returned(_rdp_calibrated)
    sweep("calibrate.sigma_for_eps[rdp]", RDP_AXES, fn=fn, ref=fn.at, rtol=0.0, safe=safe, n=4, allow_reject=0.5)


def _exact_sigma(p: dict[str, float], s: float, orders: list[float]) -> mpmath.mpf:
    """The exact calibration over an integer order grid at 30 digits: the root in σ of the mpmath ε at the order
    the accountant reports at the returned σ = s, certified as the grid's minimum root (every order's ε exceeds
    the target just below it, 1e-12 relative); another order found below it takes over."""
    def eps_at(order: float, x: object) -> mpmath.mpf:
        return oracles.rdp_eps(p["q"], x, p["steps"], p["delta"], order, dps=30)

    order = _rdp_eps(p, s, orders=orders)[1]
    for _ in range(len(orders)):
        def f(x: object, order: float = order) -> mpmath.mpf:  # increasing in σ
            return mpmath.mpf(p["eps"]) - eps_at(order, x)

        lo, hi = oracles._expand(f, s, True)
        root = oracles.root(f, lo, hi, dps=30)
        below = root * (1 - mpmath.mpf(1e-12))
        better = [o for o in orders if eps_at(o, below) <= p["eps"]]
        if not better:
            return root
        order = better[0]
    raise AssertionError(f"no certified calibration root at {p}")


def test_calibrate_rdp_catalog_grid_sweep() -> None:
    """The catalog entry calibrate.sigma_rdp (orders 2..16, its call_kwargs) against its exact value (the
    30-digit mpmath root of the entry's form, :func:`_exact_sigma`) at every point: within the documented rtol and
    never below it (safe in exact arithmetic); the float64 forward map also safe and tight at every point."""
    f = catalog.get("calibrate.sigma_rdp")
    kw = dict(f.call_kwargs)
    kw.pop("accountant")
    orders = [float(o) for o in kw["orders"]]

    def calibrated(p: dict[str, float]) -> float:
        s = _rdp_calibrated(p, **kw)
        assert _float_safe_and_tight(p, s, **kw), f"float64 forward map not safe and tight at {p}: sigma {s!r}"
        return s

    fn = _Returned(calibrated)
    sweep("calibrate.sigma_rdp", RDP_AXES, fn=fn, ref=lambda p: _exact_sigma(p, fn.at(p), orders), rtol=f.rtol,
          safe="above", n=4, allow_reject=0.5)
