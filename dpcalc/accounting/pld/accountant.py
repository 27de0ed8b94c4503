"""The PLD accountant's entry points: the certified ε bracket of a schedule (refining the lattice until the bracket
is narrow enough) and the certified δ bracket at ε."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from dpcalc import _validate as v
from dpcalc._progress import progress
from dpcalc._repr import short_repr
from dpcalc.accounting.gdp import eps_bracket_between
from dpcalc.accounting.pld.chernoff import saddle
from dpcalc.accounting.pld.common import (
    ATOL,
    DELTA_MIN,
    RTOL,
    Direction,
    MemoryCapError,
    check_points,
    tail_mass,
    window_tau,
)
from dpcalc.accounting.pld.direct import MAX_DIRECT_STEPS
from dpcalc.accounting.pld.dominating import (
    certainly_zero,
    coarse_dominating,
    dominating_mu,
    gaussian_delta_lower,
    gaussian_delta_upper,
    gaussian_eps_upper,
)
from dpcalc.accounting.pld.passes import eps_pass, pass_seconds, remove_pass, run, swap_bounds_add
from dpcalc.accounting.pld.schedule import Step, normalise
from dpcalc.errors import DomainError

__all__ = ["DeltaBracket", "EpsBracket", "delta_for_eps", "delta_toleranced", "delta_upper", "epsilon",
           "epsilon_subsampled_gaussian", "least_work", "meets", "no_finite_bound", "toleranced"]

#: first lattice: bracket width ≈ T·h²·max(_WIDTH_C, _WIDTH_C_THETA·(1 + θ*)), θ* the Chernoff-optimal order at δ.
#: Measured on 150 random (σ, q, T, δ): width/(T·h²) spreads from 0.2 to 381 (a constant 4 alone needed a second
#: lattice for 63 % of them), width/((1 + θ*)·T·h²) has quantiles 0.14 / 0.22 / 0.52 at 10 / 50 / 75 %
_WIDTH_C = 4.0
_WIDTH_C_THETA = 0.5
#: below this θ* (ε far above 1: the composed loss near its Gaussian limit) the width is ≈ _WIDTH_SMALL·(1 + θ*)·T·h²
#: with no outliers: width/((1 + θ*)·T·h²) was 0.16–0.20 on all 31 of 238 random (σ, q, T, δ) with θ* < 1 (with
#: θ* ≥ 1.58 outliers reach 35), where the constant 4 had made the first lattice 3–5× finer than asked (ε = 221,
#: σ = 0.68, q = 0.088, T = 6,686: a bracket 0.047 of the asked width on 108,000 points)
_THETA_SMALL = 1.0
_WIDTH_SMALL = 0.25
#: ... and every σ at least this (the domain measured: σ in [0.5, 5]; at σ = 0.26, q = 4e-5 with θ* = 0.77, a
#: compound of rare large jumps, 30 rounds of CUAG-PFL's schedule needed a second lattice with it)
_SIGMA_SMALL = 0.5
#: both ends move out by this relative amount: the float evaluation of the composed positions (k·h + offset)
_POSITION_ULPS = 8.0 * float.fromhex("0x1p-53")
#: δ brackets: passes at most (the spacing halved after each that does not meet 1e-3·δ_upper)
_DELTA_PASSES = 3


@short_repr
@dataclass(frozen=True)
class EpsBracket:
    """ε_lower ≤ ε ≤ ε_upper at δ for a schedule; ``eps_upper`` is the guarantee, both ends certified.

    ``met`` says whether the bracket meets the asked tolerance, ``eps_upper − eps_lower ≤ rtol·eps_upper + atol``
    (``rtol``, ``atol``: the tolerance asked for, or the defaults). A bracket that finer lattices no longer narrow
    (or that the memory cap stops) is returned as it is, the tightest found, with ``met = False``: still a valid
    bound, only wider than asked. [∞, ∞] (no finite ε: δ below the mass at loss +∞) is exact, ``met = True``."""

    eps_lower: float
    eps_upper: float
    delta: float
    direction: str  # neighbour direction of the worse (upper) case
    grid: float  # lattice spacing h of the loss
    fft_len: int
    details: dict[str, float] = field(default_factory=dict, compare=False)
    met: bool = True
    rtol: float = RTOL
    atol: float = ATOL

    @property
    def width(self) -> float:
        return self.eps_upper - self.eps_lower


@short_repr
@dataclass(frozen=True)
class DeltaBracket:
    """δ_lower ≤ δ(ε) ≤ δ_upper for a schedule; ``delta_upper`` is the guarantee, both ends certified.

    ``met`` says whether ``delta_upper − delta_lower ≤ rtol·delta_upper + atol`` (``rtol`` the PLD default 1e-3,
    ``atol`` 0 unless asked): False flags a bracket wider than that (still valid)."""

    delta_lower: float
    delta_upper: float
    eps: float
    direction: str
    grid: float
    fft_len: int
    met: bool = True
    rtol: float = RTOL
    atol: float = 0.0


def meets(lower: float, upper: float, rtol: float, atol: float) -> bool:
    """Whether the bracket [lower, upper] meets ``upper − lower ≤ rtol·upper + atol`` (an exact [∞, ∞] does).

    Parameters
    ----------
    lower : float
    upper : float
    rtol : float
        Relative tolerance of the root finder.
    atol : float

    Returns
    -------
    bool
    """
    if lower == upper:
        return True
    return math.isfinite(upper) and upper - lower <= rtol * upper + atol


def toleranced(br: EpsBracket, rtol: float, atol: float) -> EpsBracket:
    """``br`` with the asked tolerance and whether it meets it (``details['converged']`` likewise, 1 or 0).

    Parameters
    ----------
    br : EpsBracket
    rtol : float
        Relative tolerance of the root finder.
    atol : float

    Returns
    -------
    EpsBracket
    """
    met = meets(br.eps_lower, br.eps_upper, rtol, atol)
    # built directly: `dataclasses.replace` re-reads the fields on every call
    return EpsBracket(br.eps_lower, br.eps_upper, br.delta, br.direction, br.grid, br.fft_len,
                      {"converged": float(met), **br.details}, met, rtol, atol)


def delta_toleranced(br: DeltaBracket, rtol: float = RTOL, atol: float = 0.0) -> DeltaBracket:
    """``br`` with the tolerance and whether it meets it.

    Parameters
    ----------
    br : DeltaBracket
    rtol : float
        Relative tolerance of the root finder.
    atol : float

    Returns
    -------
    DeltaBracket

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    return replace(br, met=meets(br.delta_lower, br.delta_upper, rtol, atol), rtol=rtol, atol=atol)



def _directions(steps: list[Step]) -> list[Direction]:
    return ["remove"] if all(st.q == 1.0 for st in steps) else ["remove", "add"]


def _h0(steps: list[Step], rtol: float, scale: float) -> float:
    """Initial lattice spacing: second-order error ≈ c·T·h² against the tolerance rtol·scale."""
    total = sum(st.count for st in steps)
    return float(min(0.05, max(1e-6, 0.6 * math.sqrt(rtol * max(scale, 1e-3) / total))))


def check_delta(delta: float) -> float:
    """δ in (0, 1), at least `DELTA_MIN`."""
    d = float(v.check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    if d < DELTA_MIN:
        raise DomainError(f"pld: delta must be >= {DELTA_MIN:g} for the PLD accountant (got {d:g}); use rdp below")
    return d


def check_rtol(rtol: float | None) -> float:
    return RTOL if rtol is None else float(v.check_range("rtol", rtol, 1e-8, 1.0, lo_open=True))



@v.named_shapes
def epsilon(schedule: Iterable[Step | tuple[float, float, int]], delta: float, *, rtol: float | None = None,
            max_iter: int = 8, grid: float | None = None, atol: float = ATOL) -> EpsBracket:
    """Certified bracket on ε(δ) of a schedule of ``(sigma, q, count)`` steps (see the module docstring).

    Both neighbour directions are bounded from above (the reported ε_upper is the larger); the lower bound is the
    remove direction's (and the add direction's when that is the worse). The lattice is refined until
    ``eps_upper − eps_lower ≤ rtol·eps_upper + atol`` (defaults 1e-3 and 1e-6 nats); if finer lattices stop
    narrowing it (or ``max_iter`` refinements or the memory cap stop first) the tightest bracket found is returned
    with ``met = False``: never refused while a finite upper end exists, never flagged as tight when it is not.
    One or two steps are summed directly (no FFT).
    ``grid`` starts at that lattice spacing instead of a coarse one (a warm start,
    e.g. the ``grid`` of a bracket for a nearby schedule; calibration uses it).

    Parameters
    ----------
    schedule : Iterable[Step | tuple[float, float, int]]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    rtol : float | None
        Relative tolerance of the root finder.
    max_iter : int
    grid : float | None
    atol : float

    Returns
    -------
    EpsBracket

    Raises
    ------
    DomainError
        An input (``grid``, ``atol``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import epsilon
    >>> epsilon([(1.0, 0.01, 1000)], 1e-5)
    EpsBracket(eps_lower=1.8278452875939593, eps_upper=1.828593695134646, delta=1e-05, direction='remove',
    grid=0.000713696113383741, fft_len=9000, details={'converged': 1.0, 'iterations': 1.0}, met=True,
    rtol=0.001, atol=1e-06)
    """
    steps = normalise(schedule)
    d = check_delta(delta)
    tol = check_rtol(rtol)
    a_tol = float(v.check_range("atol", atol, 0.0, 1.0))
    if certainly_zero(steps, d):
        return toleranced(EpsBracket(0.0, 0.0, d, "remove", 0.0, 0, {"iterations": 0.0, "exact_zero": 1.0}), tol,
                          a_tol)
    if all(st.q == 1.0 for st in steps):
        # Gaussians without sampling compose exactly into one Gaussian, μ² = Σ count/σ² (Dong, Roth & Su 2022,
        # Cor. 3.3): its ε(δ) in closed form, no lattice (width ~1e-14 relative)
        mu_up = dominating_mu(steps)  # rounded up by 1e-14: the lower end at a μ rounded down
        lo_g, up_g = eps_bracket_between(mu_up * (1.0 - 3e-14), mu_up, d)
        return toleranced(EpsBracket(lo_g, up_g, d, "remove", 0.0, 0, {"iterations": 0.0, "exact": 1.0}), tol, a_tol)
    total = sum(st.count for st in steps)
    tau = window_tau(tol)  # each truncation term's share of δ (the FFT window, the steps' tails)
    h_first = _first_lattice(steps, d, tol, a_tol)
    h_coarse = min(0.05, 4.0 * h_first)
    h = float(v.positive("grid", grid)) if grid is not None else h_first
    guess: float | None = None
    e_lo = e_up = math.nan
    n = 0
    it = 0
    stalled = 0  # consecutive refinements that did not narrow the bracket
    add_open = any(st.q < 1.0 for st in steps)  # add neighbours still to be bounded
    # the add direction's loss is at most −log(1 − q) per step, so its composed ε is at most the sum (exact: δ = 0
    # beyond it); at tiny δ the FFT's round-off floor alone left it at 0.06 for σ = 11.1, q = 1.1e-4, T = 1
    a_sup = (math.fsum(-st.count * math.log1p(-st.q) for st in steps) * (1.0 + 1e-14)
             if add_open and all(st.q < 1.0 for st in steps) else math.inf)
    a_up = -math.inf
    long_work = total >= 10**6 or len(steps) >= 50  # seconds, not milliseconds: a bar on a terminal
    with progress(max_iter if long_work else 0, "pld") as advance:
        while it < max_iter:
            it += 1
            advance(1, f"lattice {h:.2g}")
            if add_open and it == 1:  # with a bound on the add direction from the same pairs
                p_lo, p_up, n, a_swap = remove_pass(steps, h, d, guess, tau)
            else:
                p_lo, p_up, n = eps_pass(steps, "remove", h, d, guess, True, tau=tau)
            if p_lo > p_up * (1.0 + 1e-9) + 1e-12:  # pragma: no cover - would mean a broken bound
                raise RuntimeError(f"pld: internal error, lower bound {p_lo!r} above upper bound {p_up!r}")
            # every pass's bounds are valid: keep the intersection of the brackets
            width_before = e_up - e_lo if it > 1 else math.inf
            e_lo = p_lo if it == 1 else max(e_lo, p_lo)
            e_up = p_up if it == 1 else min(e_up, p_up)
            width = e_up - e_lo
            if add_open and it == 1:
                # add neighbours: settled for good when an upper bound is below the remove direction's lower bound
                # (ε_add ≤ a_up ≤ e_lo ≤ ε_remove ≤ every later e_up); first the bound from the remove pairs just
                # composed (Poisson-subsampled Gaussian ×1,000: 0.537 against e_lo = 0.598, no add lattice), else
                # a pass at a coarse lattice
                a_up = min(a_swap, a_sup)
                if a_up > e_lo:
                    _, a_pass, na = eps_pass(coarse_dominating(steps), "add", max(h, h_coarse), d, 0.0, False,
                                             settle=e_lo, tau=tau)
                    a_up = min(a_up, a_pass)
                if a_up <= e_lo:
                    add_open = False
            target = tol * e_up + a_tol
            if math.isfinite(e_up) and width <= target:
                break
            stalled = stalled + 1 if math.isfinite(width) and width > 0.9 * width_before else 0
            if stalled >= 2:
                # two finer lattices in a row no longer narrow the bracket: the width is held by the round-off and
                # truncation terms, which grow with the lattice (σ = 0.8, q = 0.01, T = 1 at rtol 1e-6: 2.9e-6 wide
                # at 7,680 points, 1.5e-3 at 5.8 million after 29 s); return the valid, wider bracket. One such step
                # alone is no sign of it: at coarse lattices the width is not monotone in h (σ = 1.74, q = 1,
                # δ = 7.7e-26: 0.0130 at h = 0.036, 0.0194 at h = 0.022, then 1e-4 at h = 0.001)
                break
            guess = max(0.0, 0.9 * e_lo - 4 * h) if math.isfinite(e_lo) else 0.0
            h_old = h
            if not math.isfinite(e_up) or e_up <= 0.0 or width <= 0.0:
                h /= 4.0
            else:
                # after a lattice that did not narrow the bracket, at least halve h: near the target the width is
                # not monotone in h, and 12 % steps stalled twice (σ = 26.3, q = 1, T = 1135, δ = 5.2e-28: 0.0198,
                # 0.0192, 0.0208 wide at h = 0.041, 0.032, 0.025 against a target of 0.0145; 0.0007 at h = 0.01)
                h *= max(0.05, min(0.5 if stalled else 0.9, 0.9 * math.sqrt(target / width)))
            if it < max_iter and math.isfinite(e_up) and width > 0.0:
                # the lattice the width model (width ∝ h²) predicts for the target, checked before spending time on
                # the steps towards it (rtol 1e-6 at σ = 0.8 refined for 30 s into the memory cap)
                h_final = min(h, 0.9 * h_old * math.sqrt(target / width))
                try:
                    check_points(int(n * h_old / h_final), f"a bracket width of rtol = {tol:g}, atol = {a_tol:g}",
                                 h_final)
                except MemoryCapError:
                    if not math.isfinite(e_up):
                        raise
                    break  # the tightest bracket so far is returned, not met
    direction = "remove"
    # the un-subsampled Gaussians dominate the schedule in both directions and compose exactly (μ² = Σ count/σ²)
    e_gauss = gaussian_eps_upper(steps, d, e_up)
    e_up = min(e_up, e_gauss)
    if add_open and min(a_up, e_gauss) > e_up:
        # add neighbours: an upper bound at a finer lattice is needed unless it is below the remove case (the
        # dominating Gaussian bounds it too: q = 1 − 1e-16 needs no add refinement)
        ha = h
        for _ in range(3):
            try:
                _, a_try, na = eps_pass(steps, "add", ha * 2.0, d, 0.0, False, tau=tau)
            except MemoryCapError:  # keep the last (coarser, valid) upper bound of the add direction
                break
            a_up = min(a_up, a_try)
            if a_up <= e_up:
                break
            ha /= 2.0
        if a_up > e_up:
            # the add direction is the worse one: ε ≥ its lower bound too, refined like the remove one
            a_up, a_lo, na = _refine_add(steps, d, ha, a_up, min(e_up, e_gauss), tol, a_tol, max_iter)
            # ε is the larger of the two directions: the refined add bound may end below the remove one's upper
            # bound, which then stays (taking the add bound alone was unsafe: σ = 48.3, q = 2e-5, T = 1,
            # δ = 4.46e-8 reported 3.5416e-7 for the exact 3.5904e-7, inside atol)
            direction = "add" if a_up > e_up else "remove"
            e_up = min(max(e_up, a_up), e_gauss)
            e_lo = max(e_lo, a_lo)
            n = max(n, na)
    if not math.isfinite(e_up):
        raise no_finite_bound(e_lo, e_up, d)
    # the composed lattice's positions (k·h + offset) in floats: a few ulps of ε each way
    e_up, e_lo = e_up * (1.0 + _POSITION_ULPS), e_lo * (1.0 - _POSITION_ULPS)
    return toleranced(EpsBracket(e_lo, e_up, d, direction, h, n, {"iterations": float(it)}), tol, a_tol)


def _first_lattice(steps: list[Step], delta: float, tol: float, a_tol: float) -> float:
    """The first lattice spacing: width ≈ T·h²·max(_WIDTH_C, _WIDTH_C_THETA·(1 + θ*)) (θ* the Chernoff order at δ;
    _WIDTH_SMALL·(1 + θ*) below _THETA_SMALL when every σ is at least _SIGMA_SMALL), ε from the approximate Chernoff
    bound."""
    total = sum(st.count for st in steps)
    th_ch, e_ch = saddle(steps, "remove", delta, tail_mass(total, delta))
    e_est = 0.8 * e_ch if math.isfinite(e_ch) and e_ch > 0 else 1.0
    theta = max(th_ch, 0.0)
    near_gaussian = theta < _THETA_SMALL and min(st.sigma for st in steps) >= _SIGMA_SMALL
    c_width = _WIDTH_SMALL * (1.0 + theta) if near_gaussian else max(_WIDTH_C, _WIDTH_C_THETA * (1.0 + theta))
    return min(0.05, max(1e-6, math.sqrt((tol * max(e_est, 1e-2) + a_tol) / (c_width * total))))


@v.named_shapes
def least_work(schedule: Iterable[Step | tuple[float, float, int]], delta: float) -> float:
    """Seconds `epsilon` (default accuracy) books at least against a work budget (`dpcalc._limits.work_budget`):
    its first pass in the remove direction at the first lattice and, when some q < 1 and the remove pass's pairs
    cannot bound the add direction (`passes.remove_pass`), the add direction's coarse pass — counted like the passes
    count themselves (`passes.charge_discretise`), before any of them runs. Every later pass only adds to it: a
    call whose least work exceeds the budget can be refused before it starts.

    Parameters
    ----------
    schedule : Iterable[Step | tuple[float, float, int]]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    steps = normalise(schedule)
    d = check_delta(delta)
    if certainly_zero(steps, d) or dominating_mu(steps) < 1e-9 or all(st.q == 1.0 for st in steps):
        return 0.0  # no lattice: ε = 0, or Gaussians without sampling in closed form
    total = sum(st.count for st in steps)
    tail = tail_mass(total, d, window_tau(RTOL))  # as the default call's passes leave out
    h = _first_lattice(steps, d, RTOL, ATOL)
    direct_sum = total <= MAX_DIRECT_STEPS
    seconds = pass_seconds(steps, "remove", h, tail, direct_sum)
    # the add direction's coarse pass, unless the remove pass's own pairs may settle it (`passes.remove_pass`)
    if any(st.q < 1.0 for st in steps) and not swap_bounds_add(steps, d):
        seconds += pass_seconds(coarse_dominating(steps), "add", min(0.05, 4.0 * h), tail, direct_sum)
    return seconds


def _refine_add(steps: list[Step], delta: float, h: float, a_up: float, e_remove: float, tol: float, a_tol: float,
                max_iter: int) -> tuple[float, float, int]:
    """(ε_upper, ε_lower, points) of the add direction, refined until its bracket meets the tolerance or the remove
    direction's upper bound ``e_remove`` caps it (then ε_lower is that of the remove side, returned as 0 here)."""
    a_lo, na = 0.0, 0
    for _ in range(max_iter):
        try:
            lo, up, na = eps_pass(steps, "add", h, delta, None, True, tau=window_tau(tol))
        except MemoryCapError:  # keep the last (coarser, valid) bounds
            break
        a_up, a_lo = min(a_up, up), max(a_lo, lo)
        top = max(a_up, e_remove)
        width = top - max(a_lo, 0.0)
        target = tol * top + a_tol
        if a_up <= e_remove or width <= target:
            break
        h *= max(0.05, min(0.5, 0.9 * math.sqrt(target / width))) if math.isfinite(width) else 0.25
    return a_up, a_lo, na


def no_finite_bound(e_lo: float, e_up: float, delta: float) -> DomainError:
    """The one-line refusal when no lattice gave a finite upper end (a wide but finite bracket is returned instead).

    Parameters
    ----------
    e_lo : float
    e_up : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    DomainError

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    return DomainError(f"pld: no finite upper bound on epsilon at delta = {delta:.3g} (bracket [{e_lo:.6g}, "
                       f"{e_up:.6g}]): the FFT round-off and truncation terms exceed delta on every lattice tried; "
                       f"raise delta, or use rdp")



@v.named_shapes
def delta_for_eps(schedule: Iterable[Step | tuple[float, float, int]], eps: float, *,
                  grid: float | None = None) -> DeltaBracket:
    """Certified bracket on δ(ε) of a schedule, at lattice spacing ``grid`` (one pass), or from a spacing sized from
    the schedule and halved (at most `_DELTA_PASSES` passes) until δ_upper − δ_lower ≤ 1e-3·δ_upper, the best bounds
    of every pass kept (``met`` says whether they meet that); the upper end is also capped by δ(ε) of the
    dominating Gaussian composition (μ² = Σ count/σ², exact when every q = 1).

    Parameters
    ----------
    schedule : Iterable[Step | tuple[float, float, int]]
    eps : float
        Privacy level ε.
    grid : float | None

    Returns
    -------
    DeltaBracket

    Raises
    ------
    DomainError
        An input (``eps``, ``grid``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import delta_for_eps
    >>> delta_for_eps([(1.0, 0.01, 1000)], 1.0)
    DeltaBracket(delta_lower=0.0026116602711243747, delta_upper=0.002613114274004427, eps=1.0, direction='remove',
    grid=0.0003, fft_len=75000, met=True, rtol=0.001, atol=0.0)
    """
    steps = normalise(schedule)
    e = float(v.check_range("eps", eps, 0.0, math.inf))
    # the schedule is dominated by its un-subsampled Gaussians, which compose into one Gaussian (μ² = Σ count/σ²;
    # exact for q = 1): its δ(ε) bounds δ from above in both directions
    mu_g = dominating_mu(steps)
    d_gauss = gaussian_delta_upper(mu_g, e)
    if mu_g < 1e-9:  # σ > ~1e9·√T: a loss range below the lattice's resolution; δ <= δ_G(ε) < 4e-10
        return delta_toleranced(DeltaBracket(0.0, d_gauss, e, "remove", 0.0, 0))
    if all(st.q == 1.0 for st in steps):  # exactly that Gaussian (as in `epsilon`): its δ(ε) at a μ rounded down
        d_low = gaussian_delta_lower(mu_g * (1.0 - 3e-14), e)
        return delta_toleranced(DeltaBracket(d_low, d_gauss, e, "remove", 0.0, 0))
    dirs = _directions(steps)
    h = float(v.positive("grid", grid)) if grid is not None else _h0(steps, RTOL, max(e, 0.1))
    lows = dict.fromkeys(dirs, 0.0)
    ups = dict.fromkeys(dirs, 1.0)
    n, best = 0, None
    # the composed positions in floats: the upper curve read a few ulps below ε, the lower one above
    e_up, e_lo = e * (1.0 - _POSITION_ULPS), e * (1.0 + _POSITION_ULPS)
    for _ in range(1 if grid is not None else _DELTA_PASSES):
        try:
            for dr in dirs:
                ps = run(steps, dr, h, 1e-30, None, e)  # truncation budget sized for δ down to 1e-30
                assert ps.lo is not None
                lows[dr] = max(lows[dr], ps.lo.delta(e_lo), 0.0)
                ups[dr] = min(ups[dr], ps.up.delta(e_up), d_gauss)
                n = max(n, ps.n)
        except MemoryCapError:
            if best is None:
                raise
            break
        worst = max(ups, key=lambda k: ups[k])
        best = delta_toleranced(DeltaBracket(max(lows.values()), ups[worst], e, worst, h, n))
        if best.met:
            break
        h *= 0.5
    assert best is not None
    return best


@v.scalar_params
def delta_upper(sigma: float, q: float, steps: float, eps: float) -> float:
    """Certified upper bound on δ(ε) of ``steps`` Poisson-subsampled Gaussian steps (the catalog's and the verify
    recipe's entry point; ``delta_for_eps`` gives the whole bracket).

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    q : float
        Sampling probability, in (0, 1].
    steps : float
        Number of compositions T, an integer >= 1.
    eps : float
        Privacy level ε.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import delta_upper
    >>> delta_upper(1.0, 0.01, 1000, 1.0)
    0.002613114274004427
    """
    return delta_for_eps([_step(sigma, q, steps)], eps).delta_upper


@v.scalar_params
def epsilon_subsampled_gaussian(sigma: float, q: float, steps: float, delta: float, *,
                                rtol: float | None = None) -> EpsBracket:
    """ε bracket of ``steps`` Poisson-subsampled Gaussian steps (noise multiplier σ, rate q) at δ.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    q : float
        Sampling probability, in (0, 1].
    steps : float
        Number of compositions T, an integer >= 1.
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    rtol : float | None
        Relative tolerance of the root finder.

    Returns
    -------
    EpsBracket

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import epsilon_subsampled_gaussian
    >>> epsilon_subsampled_gaussian(1.0, 0.01, 1000, 1e-5)
    EpsBracket(eps_lower=1.8278452875939593, eps_upper=1.828593695134646, delta=1e-05, direction='remove',
    grid=0.000713696113383741, fft_len=9000, details={'converged': 1.0, 'iterations': 1.0}, met=True,
    rtol=0.001, atol=1e-06)
    """
    return epsilon([_step(sigma, q, steps)], delta, rtol=rtol)


def _step(sigma: float, q: float, steps: float) -> Step:
    """One validated homogeneous step: each argument checked with a one-line error naming it."""
    return Step(v.scalar("sigma", v.positive("sigma", sigma)),
                v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True)),
                int(v.scalar("steps", v.integer_at_least("steps", steps, 1))))

