"""Three or more steps at tiny δ: the composition convolved directly (no FFT, every composed atom to a relative
error bound) where that is cheap. The FFT's round-off floor (~1e-15 of the tilted mass) had held these brackets
open for heavy-tailed losses (Poisson-subsampled Gaussian, small q), refused in one line; they now converge.

Checks: the convolution against exact rational arithmetic (its error bound holds atom by atom); its operation count
against the convolutions it does; the reproducers converged and above one step's exact ε; the two engines (direct
convolution at δ ≤ 1e-10, FFT just above) give overlapping certified brackets; and with the convolution forced at an
ordinary δ its bracket overlaps the FFT's."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpcalc.accounting import pld
from dpcalc.accounting.pld import direct
from dpcalc.accounting.pld.pmf import LatticePmf
from tests.support.pld_reference import eps_subsampled_gaussian


def _exact_compose(parts: list[tuple[np.ndarray, int]]) -> list[Fraction]:
    acc = [Fraction(1)]
    for p, count in parts:
        fp = [Fraction(float(x)) for x in p]
        for _ in range(count):
            out = [Fraction(0)] * (len(acc) + len(fp) - 1)
            for i, a in enumerate(acc):
                for j, b in enumerate(fp):
                    out[i + j] += a * b
            acc = out
    return acc


@pytest.mark.parametrize("counts", [(1,), (3,), (5,), (2, 3), (4, 1, 2)])
def test_compose_within_its_error_bound_atom_by_atom(counts: tuple[int, ...]) -> None:
    rng = np.random.default_rng(sum(counts))
    raw = [rng.random(int(rng.integers(2, 7))) ** 8 for _ in counts]  # spread magnitudes
    raw = [p / p.sum() * (1 - 1e-3) for p in raw]
    parts = [(LatticePmf(-1 + i, p, 1e-3, 0.1 * i), c)  # an upper pair: finite + infinite mass 1
             for i, (p, c) in enumerate(zip(raw, counts, strict=True))]
    got, rel = direct.compose(parts, upper=True)
    want = _exact_compose([(p, c) for p, c in zip(raw, counts, strict=True)])
    assert got.p.size == len(want) and 0 <= rel < 1e-13
    for g, w in zip(got.p, want, strict=True):
        assert abs(Fraction(float(g)) - w) <= Fraction(rel) * w
    assert got.k0 == sum((-1 + i) * c for i, c in enumerate(counts))
    assert got.c == pytest.approx(sum(0.1 * i * c for i, c in enumerate(counts)), abs=1e-12)
    # mass at +∞: 1 − P(all finite) for the upper pair, never less
    finite = np.prod([float(p.sum()) ** c for p, c in zip(raw, counts, strict=True)])
    assert got.p_inf + finite >= 1 - 1e-12


def test_convolution_ops_counts_what_compose_does(monkeypatch: pytest.MonkeyPatch) -> None:
    done = [0.0]
    real = np.convolve

    def counting(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        done[0] += float(a.size) * b.size
        return real(a, b)

    monkeypatch.setattr(direct.np, "convolve", counting)
    sizes = [(7, 5), (3, 1), (11, 6)]
    direct.compose([(LatticePmf(0, np.full(n, 1.0 / n)), c) for n, c in sizes], upper=False)
    assert done[0] == direct.convolution_ops(sizes)


@pytest.mark.parametrize(("sigma", "q", "steps", "delta"), [
    # refused before (the FFT's round-off floor): [0.0123, 0.0130], [0.7410, 0.7417]. (σ = 1.56, q = 4.6e-4, T = 6,
    # δ = 2.2e-29 and σ = 1.5, q = 3e-4, T = 5, δ = 3.5e-25 converge with a cap of 3e8 multiply-adds but are still
    # refused at the cap of 4e7: their lattices need ~16,000 composed atoms)
    (2.9537064719175, 0.0004593964915207572, 5, 7.760573666930482e-27),
    (2.202508442834187, 0.016088707267384376, 6, 2.478770590378017e-22),
])
def test_reproducers_now_converge(sigma: float, q: float, steps: int, delta: float) -> None:
    br = pld.epsilon_subsampled_gaussian(sigma, q, steps, delta)
    assert br.width <= pld.RTOL * br.eps_upper + pld.ATOL
    with mpmath.workdps(30):  # the reference bisects to the working precision: at 15 digits it did not end
        one = float(eps_subsampled_gaussian(sigma, q, delta))
    assert br.eps_upper >= one  # at least one step's exact ε


@pytest.mark.parametrize("schedule", [[(1.5, 3e-4, 5)], [(2.0, 0.01, 3)], [(0.9, 0.05, 4), (3.0, 0.2, 2)],
                                      [(1.2, 1e-3, 7)]])
def test_the_two_engines_agree_across_the_switch(schedule: list[tuple[float, float, int]]) -> None:
    d = direct.CONVOLUTION_DELTA
    conv, fft = pld.epsilon(schedule, d), pld.epsilon(schedule, d * (1 + 1e-9))
    assert max(conv.eps_lower, fft.eps_lower) <= min(conv.eps_upper, fft.eps_upper)


@pytest.mark.parametrize("schedule", [[(1.0, 0.01, 4)], [(0.8, 0.2, 3), (5.0, 0.5, 2)], [(3.0, 0.999, 3)]])
def test_forced_convolution_overlaps_the_fft_at_ordinary_delta(schedule: list[tuple[float, float, int]],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    fft = pld.epsilon(schedule, 1e-5)
    monkeypatch.setattr(direct, "CONVOLUTION_DELTA", 1.0)
    conv = pld.epsilon(schedule, 1e-5)
    assert conv.width <= pld.RTOL * conv.eps_upper + pld.ATOL
    assert max(conv.eps_lower, fft.eps_lower) <= min(conv.eps_upper, fft.eps_upper)


def test_costly_convolution_falls_back_to_the_fft(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the operation cap the FFT pass runs; where its floor holds the bracket open, the tightest bracket found
    is returned flagged (``met`` False), and it holds the bracket the convolution certifies."""
    tight = pld.epsilon_subsampled_gaussian(1.5, 3e-4, 5, 3.5e-25)
    monkeypatch.setattr(direct, "MAX_CONVOLUTION_OPS", 0.0)
    wide = pld.epsilon_subsampled_gaussian(1.5, 3e-4, 5, 3.5e-25)
    assert tight.met and not wide.met and wide.details["converged"] == 0.0
    assert (wide.rtol, wide.atol) == (pld.RTOL, pld.ATOL) and wide.width > pld.RTOL * wide.eps_upper + pld.ATOL
    assert wide.eps_lower <= tight.eps_lower <= tight.eps_upper <= wide.eps_upper
