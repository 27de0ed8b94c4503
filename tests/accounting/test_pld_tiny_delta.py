"""The PLD bracket at tiny δ for a heavy-tailed loss (the Poisson-subsampled Gaussian at small q): converged and
containing the exact value, or refused in one line — never a loose bracket returned as if it were tight.

The one-step δ(ε) is exact in mpmath (closed form through normal CDFs, checked once against quadrature); the
exact ε of one step is the larger of the two directions'. Default budget a few hundred points;
``DPCALC_SWEEP_POINTS`` for a deep run."""

from __future__ import annotations

import functools
import math

import mpmath
import pytest

from dpcalc.accounting import pld
from dpcalc.accounting.pld import direct
from tests.support.pld_reference import delta_subsampled_gaussian, eps_subsampled_gaussian, subsampled_gaussian_quad
from tests.support.sweep import Axis, Point, sweep


@functools.cache
def exact_eps(sigma: float, q: float, delta: float) -> mpmath.mpf:
    """ε(δ) of one Poisson-subsampled Gaussian step (worse direction), at the caller's precision."""
    return eps_subsampled_gaussian(sigma, q, delta)


def test_closed_form_agrees_with_quadrature() -> None:
    with mpmath.workdps(50):  # the integrand f_P − e^ε f_Q cancels: quadrature needs the extra digits
        for sigma, q, eps in ((0.88, 7.3e-5, 0.7), (11.1, 1.1e-4, 1.6e-4), (2.0, 0.02, 0.05)):
            a = delta_subsampled_gaussian(sigma, q, eps, "remove")
            b = subsampled_gaussian_quad(sigma, q, eps)
            assert abs(a - b) <= mpmath.mpf(10) ** -15 * abs(a)


@pytest.mark.parametrize(("sigma", "q", "delta", "exact"), [
    # the reported point: ε_upper was 0.0631 (394× the exact 0.000160), flagged only in details
    (11.095676087389151, 0.00011172931927669139, 5.013645814372426e-29, 0.00015987544543065105),
    # [0.13, 1.51] at every lattice (the FFT's round-off floor), exact 0.6969
    (0.8816127579438472, 7.3435186989495e-05, 2.1809110475355084e-20, 0.6968716058938452),
    # [8.3e-6, 9.7e-6] at tiny losses: sparse dots in the far tail held the bracket at ≈ 64 lattice steps
    (59.69112668573039, 7.334228518330125e-05, 4.991876594364998e-19, 8.976554395366313e-06),
])
def test_reproducers_converge_around_the_exact_value(sigma: float, q: float, delta: float, exact: float) -> None:
    with mpmath.workdps(30):
        assert abs(float(exact_eps(sigma, q, delta)) - exact) <= 1e-12 * exact
    br = pld.epsilon_subsampled_gaussian(sigma, q, 1, delta)
    assert br.eps_lower <= exact <= br.eps_upper
    assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL


def test_two_steps_converge_at_tiny_delta() -> None:
    """T = 2 is summed directly too: [0.0033, 0.314] before, now converged (no exact reference; the bracket is
    certified and must be narrow)."""
    br = pld.epsilon_subsampled_gaussian(1.4954835885772677, 0.0003140581992127178, 2, 3.582215413764447e-25)
    assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL
    one = pld.epsilon_subsampled_gaussian(1.4954835885772677, 0.0003140581992127178, 1, 3.582215413764447e-25)
    assert one.eps_lower <= br.eps_upper  # monotone in the count


def test_unconverged_bracket_is_returned_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    """T = 12 at δ = 2.6e-21, q = 3.6e-4: with the direct convolution over its operation cap the FFT's round-off
    floor (~1e-15 of the tilted mass) holds the bracket open. It was refused in one line; the tightest bracket is now
    returned with ``met = False`` and holds the bracket that meets the tolerance (the lower pair balanced at its edge
    now meets it by default: it was held at [0.01454, 0.01458], 2.7 targets wide)."""
    args = (2.33661005131834, 0.0003604586194473694, 12, 2.601679861316648e-21)
    tight = pld.epsilon_subsampled_gaussian(*args)
    monkeypatch.setattr(direct, "MAX_CONVOLUTION_OPS", 0.0)
    wide = pld.epsilon_subsampled_gaussian(*args)
    assert tight.met and not wide.met
    assert wide.eps_lower <= tight.eps_lower <= tight.eps_upper <= wide.eps_upper


def test_tiny_delta_sweep_one_step_against_mpmath() -> None:
    """q ≤ 0.02, δ ≤ 6e-17, T = 1, σ in [0.3, 60]: every bracket converged (width ≤ rtol·ε_upper + atol) and
    containing the exact ε; a refusal would count as a rejection (none allowed)."""
    brackets: dict[tuple[float, float, float], pld.EpsBracket] = {}

    def fn(p: Point) -> float:
        br = pld.epsilon_subsampled_gaussian(p["sigma"], p["q"], 1, p["delta"])
        brackets[(p["sigma"], p["q"], p["delta"])] = br
        return br.eps_upper

    def ref(p: Point) -> mpmath.mpf:
        return exact_eps(p["sigma"], p["q"], p["delta"])

    def certified(p: Point, got: float) -> bool:
        br = brackets[(p["sigma"], p["q"], p["delta"])]
        with mpmath.workdps(30):
            e = float(exact_eps(p["sigma"], p["q"], p["delta"]))
        slack = 1e-12 * max(e, 1e-300)
        return (br.eps_lower <= e + slack and e <= br.eps_upper + slack
                and br.width <= pld.RTOL * br.eps_upper + pld.ATOL)

    sweep("pld.epsilon one step, tiny delta", [Axis("sigma", 0.3, 60.0), Axis("q", 1e-5, 0.02),
                                                Axis("delta", 1e-30, 6e-17)],
          fn=fn, ref=ref, rtol=pld.RTOL / (1 - pld.RTOL), atol=pld.ATOL, safe=certified, n=200, dps=30)


def test_tiny_delta_sweep_two_steps_never_loose() -> None:
    """T = 2 over the same box: converged (the bracket itself is certified) and at least the one-step ε_lower."""
    def fn(p: Point) -> float:
        br = pld.epsilon_subsampled_gaussian(p["sigma"], p["q"], 2, p["delta"])
        assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL
        assert math.isfinite(br.eps_upper)
        return br.eps_upper

    res = sweep("pld.epsilon two steps, tiny delta", [Axis("sigma", 0.3, 60.0), Axis("q", 1e-5, 0.02),
                                                       Axis("delta", 1e-30, 6e-17)],
                fn=fn, ref=lambda p: fn(p), rtol=0.0, n=100, check=False)
    assert not res.failures and res.skipped == 0
