"""Sampling with replacement (``pld.sampled_with_replacement``) against independent exact computations in mpmath.

The pair dpcalc composes is the labelled one: the count K ~ Binomial(b, 1/n) of draws of the changed record is
revealed, and given K = k the Gaussian outputs differ by at most k·Δ' (Δ' = 2Δ under replace-one, Δ under
replace-special). T steps of it are a mixture over the T counts of Gaussian pairs, each exactly μ-GDP with
μ = (Δ'/σ)·√(Σ kₜ²), so δ_T(ε) = Σ P(Σ kₜ² = s)·δ_GDP(μ(s), ε) is a finite sum (the distribution of Σ kₜ² by
convolution over steps). That exact value must lie inside the certified bracket; one step is also checked by
quadrature of ∫(p − e^ε q)₊.

How conservative the pair is: an explicit neighbouring dataset (every other record contributes −Δ, the changed
record +Δ against −Δ) gives the unlabelled mixture Σ P(K = k)·N(2kΔ, σ²) against N(0, σ²); its ε is a lower bound
on the mechanism's true ε, so it must not exceed the pair's upper end.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from dpcalc.accounting import pld
from dpcalc.accounting.pld.losses import NoisePair, PrivacyLoss
from tests.support.pld_reference import delta_gdp, eps_from_delta

DELTA = 1e-5
B, N, SIGMA = 256, 60000, 1.1


def _binomial_masses(b: int, n: int, k_max: int) -> list[mp.mpf]:
    p = mp.mpf(1) / n
    return [mp.binomial(b, k) * p ** k * (1 - p) ** (b - k) for k in range(k_max + 1)]


def _square_sum_law(masses: list[mp.mpf], steps: int) -> dict[int, mp.mpf]:
    """The law of Σₜ kₜ² over ``steps`` independent counts with P(k) = masses[k] (mass beyond k_max kept at +∞
    by the caller)."""
    law = {0: mp.mpf(1)}
    for _ in range(steps):
        nxt: dict[int, mp.mpf] = {}
        for s, ps in law.items():
            for k, pk in enumerate(masses):
                nxt[s + k * k] = nxt.get(s + k * k, mp.mpf(0)) + ps * pk
        law = nxt
    return law


def delta_with_replacement(sigma: float, shift: float, b: int, n: int, steps: int, eps: mp.mpf,
                           k_max: int = 8) -> mp.mpf:
    """δ_T(ε) of the labelled pair composed ``steps`` times (the counts beyond k_max charged as loss +∞)."""
    masses = _binomial_masses(b, n, k_max)
    law = _square_sum_law(masses, steps)
    unit = mp.mpf(shift) / sigma
    out = 1 - mp.fsum(law.values())  # some count beyond k_max: charged in full
    for s, ps in law.items():
        if s > 0:
            out += ps * delta_gdp(unit * mp.sqrt(s), eps)
    return out


def _eps(fn: object) -> float:
    with mp.workdps(30):
        return float(eps_from_delta(fn, DELTA))  # type: ignore[arg-type]


@pytest.mark.parametrize(("relation", "factor"), [("replace_one", 2.0), ("replace_special", 1.0)])
@pytest.mark.parametrize("steps", [1, 2, 10])
def test_exact_labelled_pair_inside_the_bracket(relation: str, factor: float, steps: int) -> None:
    """b = 256 of n = 60,000, σ = 1.1: the exact ε of the labelled pair lies inside the bracket (replace-one,
    10 steps: 10.56 at δ = 1e-5, against 2.14 without replacement)."""
    br = pld.epsilon_composed([(pld.sampled_with_replacement(pld.gaussian(SIGMA, 1.0, relation), B, N), steps)],
                              DELTA)
    exact = _eps(lambda e: delta_with_replacement(SIGMA, factor, B, N, steps, e))
    assert br.eps_lower - 1e-12 <= exact <= br.eps_upper + 1e-12, (br, exact)
    if relation == "replace_one" and steps == 10:
        assert round(exact, 2) == 10.56


def test_one_step_by_quadrature() -> None:
    """One step, replace-one: Σₖ P(K = k)·∫(φ_σ(x − 2k) − e^ε φ_σ(x))₊ dx by quadrature equals the closed form."""
    with mp.workdps(30):
        e = mp.mpf(5)
        masses = _binomial_masses(B, N, 8)
        s = mp.mpf(SIGMA)
        quad = mp.mpf(0)
        for k, pk in enumerate(masses[1:], start=1):
            shift = 2 * k
            x0 = e * s * s / shift + mp.mpf(shift) / 2  # the loss (2k x − 2k²)/σ² crosses ε here
            quad += pk * mp.quad(lambda x, sh=shift: mp.npdf(x, sh, s) - mp.exp(e) * mp.npdf(x, 0, s),
                                 [x0, x0 + s, x0 + 10 * s, mp.inf])
        closed = delta_with_replacement(SIGMA, 2.0, B, N, 1, e)
        assert abs(quad - closed) <= mp.mpf(10) ** -20 + mp.mpf(10) ** -20 * closed


def test_explicit_neighbours_stay_below_the_pair() -> None:
    """The unlabelled mixture of an explicit pair of neighbouring datasets is a lower bound on the true ε; the
    labelled pair's ε must be at least that (1 step: 1.22 against 6.47; 10 steps: 2.49 against 10.56)."""
    wr = pld.sampled_with_replacement(pld.gaussian(SIGMA, 1.0, "replace_one"), B, N)
    parts = wr.remove.parts  # type: ignore[union-attr]
    shifts = tuple(p.p_shifts[0] for _, p in parts)
    total = math.fsum(w for w, _ in parts)
    mix = NoisePair("gaussian", SIGMA, shifts, tuple(w / total for w, _ in parts))
    explicit = PrivacyLoss("explicit neighbours", "replace_one", mix, mix.swapped(), False)
    for steps in (1, 10):
        low = pld.epsilon_composed([(explicit, steps)], DELTA)
        pair = pld.epsilon_composed([(wr, steps)], DELTA)
        assert low.eps_lower <= pair.eps_upper
