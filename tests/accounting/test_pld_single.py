"""One release in closed form (`dpcalc.accounting.pld.single`) and Gaussians without sampling (μ-GDP in closed form in
`pld.epsilon`), each checked against an independent 30-digit mpmath computation: the hockey-stick divergence
∫ (p − e^ε q)₊ integrated numerically for the Laplace mechanism, summed over the outcomes for the finite pairs, and
the root of Balle & Wang's δ(ε) for the Gaussian. Every bracket must contain the reference and be ≤ 1e-12 wide
(relative)."""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import pytest

from dpcalc.accounting import pld
from dpcalc.accounting.pld import single
from dpcalc.accounting.pld.losses import AtomPair, NoisePair, PrivacyLoss

RELATIONS = ["add_remove", "replace_one", "replace_special"]
DELTAS = [1e-12, 1e-5, 0.05, 0.3]


def _root(f, lo: float, hi: float) -> mp.mpf:
    """ε with f(ε) = 0 for f decreasing on [lo, hi] (lo if f(lo) <= 0), by 110 bisections (~1e-31 of the interval;
    the finite pairs' δ has kinks, where secant-type solvers stall)."""
    a, b = mp.mpf(lo), mp.mpf(hi)
    if f(a) <= 0:
        return a
    assert f(b) < 0
    for _ in range(110):
        m = (a + b) / 2
        a, b = (m, b) if f(m) > 0 else (a, m)
    return (a + b) / 2


def _laplace_delta(b: mp.mpf, shift: mp.mpf, eps: mp.mpf) -> mp.mpf:
    """∫ (p − e^ε q)₊ for P = Lap(shift, b), Q = Lap(0, b), integrated numerically (the positive part ends where
    the loss (|x| − |x − shift|)/b falls to ε)."""
    p = lambda x: mp.exp(-abs(x - shift) / b) / (2 * b)  # noqa: E731
    q = lambda x: mp.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    cut = (shift + eps * b) / 2  # the loss (2x − shift)/b equals ε there
    if cut >= shift:
        return mp.mpf(0)
    pts = [cut, shift, mp.inf] if cut > 0 else [cut, mp.inf]
    return mp.quad(lambda x: p(x) - mp.exp(eps) * q(x), pts)


def _finite_delta(p: list[mp.mpf], q: list[mp.mpf], eps: mp.mpf) -> mp.mpf:
    return mp.fsum(max(mp.mpf(0), a - mp.exp(eps) * c) for a, c in zip(p, q, strict=True))


def _pairs(loss: PrivacyLoss) -> list[tuple[list[mp.mpf], list[mp.mpf]]]:
    """Each orientation's finite pair at 30 digits (the masses dpcalc holds, made exact); the discrete Laplace's
    outcomes summed per loss value over a range holding all but e^{−200} of the mass."""
    out = []
    for pair in loss.pairs().values():
        if isinstance(pair, AtomPair):
            out.append(([mp.mpf(x) for x in pair.p], [mp.mpf(x) for x in pair.q]))
            continue
        assert isinstance(pair, NoisePair) and pair.kind == "discrete_laplace"
        t, s = mp.mpf(pair.scale), int(pair.p_shifts[0] - pair.q_shifts[0])
        reach = int(200 / pair.scale) + 2
        norm = mp.tanh(t / 2)
        p: dict[int, mp.mpf] = {}
        q: dict[int, mp.mpf] = {}
        for k in range(min(0, s) - reach, max(0, s) + reach + 1):
            key = abs(k) - abs(k - s)  # the loss is t·key
            p[key] = p.get(key, mp.mpf(0)) + norm * mp.exp(-t * abs(k - s))
            q[key] = q.get(key, mp.mpf(0)) + norm * mp.exp(-t * abs(k))
        out.append(([p[k] for k in sorted(p)], [q[k] for k in sorted(p)]))
    return out


def _contains(br: pld.EpsBracket, ref: mp.mpf) -> None:
    assert br.eps_lower <= ref <= br.eps_upper, (br, ref)
    assert br.eps_upper - br.eps_lower <= 1e-12 * max(float(ref), 1e-300) + 1e-299
    assert br.details.get("exact") == 1.0


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("scale", [0.05, 0.7, 10.0])
@pytest.mark.parametrize("delta", DELTAS)
def test_one_laplace_release_is_exact(scale: float, delta: float, relation: str) -> None:
    with mp.workdps(30):
        loss = pld.laplace(scale, 1.0, relation)
        shift = mp.mpf(2 if relation == "replace_one" else 1)
        ref = _root(lambda e: _laplace_delta(mp.mpf(scale), shift, e) - mp.mpf(delta), 0.0, float(shift / scale) + 1)
        _contains(pld.epsilon_composed([(loss, 1)], delta), ref)


FINITE = [pld.randomized_response(0.9, 4), pld.randomized_response(0.3, 2), pld.randomized_response(0.05, 10),
          pld.randomized_response(0.5, 3, "replace_special"), pld.pure_dp(1.0), pld.pure_dp(0.01, "replace_one"),
          pld.approx_dp(2.0, 1e-9), pld.approx_dp(0.5, 1e-3, "replace_special"),
          pld.discrete_laplace(0.5, 2), pld.discrete_laplace(0.1, 7, "replace_one"), pld.discrete_laplace(3.0, 1)]


@pytest.mark.parametrize("loss", FINITE, ids=lambda x: x.description)
@pytest.mark.parametrize("delta", DELTAS)
def test_one_finite_release_is_exact(loss: PrivacyLoss, delta: float) -> None:
    at_infinity = max((math.fsum(a for a, c in zip(pair.p, pair.q, strict=True) if c == 0.0)
                       for pair in loss.pairs().values() if isinstance(pair, AtomPair)), default=0.0)
    if delta <= at_infinity:  # no finite ε: the lattice path's answer, infinite
        assert pld.epsilon_composed([(loss, 1)], delta).eps_lower == math.inf
        return
    with mp.workdps(30):
        refs = [_root(lambda e, p=p, q=q: _finite_delta(p, q, e) - mp.mpf(delta), 0.0, 60.0) for p, q in _pairs(loss)]
        _contains(pld.epsilon_composed([(loss, 1)], delta), max(refs))


@pytest.mark.parametrize("loss", [*FINITE, pld.laplace(0.7), pld.laplace(0.3, 1.0, "replace_one")],
                         ids=lambda x: x.description)
@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0, 3.0])
def test_one_release_delta_is_exact(loss: PrivacyLoss, eps: float) -> None:
    with mp.workdps(30):
        if isinstance(loss.remove, NoisePair) and loss.remove.kind == "laplace":
            ref = _laplace_delta(mp.mpf(loss.remove.scale), mp.mpf(loss.remove.p_shifts[0]), mp.mpf(eps))
        else:
            ref = max(_finite_delta(p, q, mp.mpf(eps)) for p, q in _pairs(loss))
        br = pld.delta_composed([(loss, 1)], eps)
        # the reference's own error: ~1e-30 absolute where δ is exactly 0 (ε at the largest loss, p − e^ε q at 30
        # digits)
        assert br.delta_lower - 1e-28 <= ref <= br.delta_upper + 1e-28, (br, ref)
        # each term p − e^ε q is rounded to a few ulps of the masses: the width is absolute, ≤ 4e-15 of the unit mass
        assert br.delta_upper - br.delta_lower <= 1e-13 * float(ref) + 4e-15


def test_below_the_mass_at_infinity_the_lattice_path_answers() -> None:
    """(2, 1e-3)-DP at δ = 1e-4 < 1e-3: no finite ε — not a closed-form case, the accountant's own answer stands."""
    assert single.eps_bracket([(pld.approx_dp(2.0, 1e-3), 1)], 1e-4) is None


def test_two_releases_are_not_a_single_release() -> None:
    assert single.eps_bracket([(pld.laplace(1.0), 2)], 1e-5) is None
    assert single.eps_bracket([(pld.laplace(1.0), 1), (pld.laplace(2.0), 1)], 1e-5) is None


@pytest.mark.parametrize("relation", RELATIONS)
def test_the_discrete_laplace_lower_bound_holds_on_the_lattice(relation: str) -> None:
    """Two releases go through the lattice; its lower pair once counted the output range's low tail at the top loss
    (t = 0.5, Δ = 2, one release at δ = 0.1: ε_lower 0.82486885113 above the exact 0.82486885099). Reference: the
    composed finite pair summed over all pairs of outcomes at 30 digits."""
    loss = pld.discrete_laplace(0.5, 2, relation)
    with mp.workdps(30):
        refs = []
        for p, q in _pairs(loss):
            p2 = [a * b for a in p for b in p]
            q2 = [a * b for a in q for b in q]
            refs.append(_root(lambda e, p2=p2, q2=q2: _finite_delta(p2, q2, e) - mp.mpf("0.1"), 0.0, 20.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        br = pld.epsilon_composed([(loss, 2)], 0.1, rtol=1e-6)
    assert br.eps_lower <= max(refs) <= br.eps_upper


@pytest.mark.parametrize("schedule", [[(1.0, 1.0, 1)], [(3.0, 1.0, 10)], [(0.5, 1.0, 10), (1.0, 1.0, 3)],
                                      [(50.0, 1.0, 1000)]])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.1])
def test_gaussians_without_sampling_are_exact(schedule: list[tuple[float, float, int]], delta: float) -> None:
    with mp.workdps(30):
        mu = mp.sqrt(mp.fsum(c / mp.mpf(s) ** 2 for s, _, c in schedule))

        def f(e: mp.mpf) -> mp.mpf:
            return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2) - mp.mpf(delta)

        ref = _root(f, 0.0, float(mu * mu / 2 + mu * mp.sqrt(2 * mp.log(1 / mp.mpf(delta)))) + 1)
    br = pld.epsilon(schedule, delta)
    _contains(br, ref)
    assert math.isclose(float(ref), br.eps_upper, rel_tol=1e-13)


@pytest.mark.parametrize("schedule", [[(1.0, 1.0, 1)], [(0.5, 1.0, 10), (1.0, 1.0, 3)], [(50.0, 1.0, 1000)]])
@pytest.mark.parametrize("eps", [0.0, 0.5, 5.0])
def test_gaussians_without_sampling_delta_is_exact(schedule: list[tuple[float, float, int]], eps: float) -> None:
    with mp.workdps(30):
        mu = mp.sqrt(mp.fsum(c / mp.mpf(s) ** 2 for s, _, c in schedule))
        e = mp.mpf(eps)
        ref = mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)
    br = pld.delta_for_eps(schedule, eps)
    assert br.delta_lower <= ref <= br.delta_upper and br.fft_len == 0
    assert br.delta_upper - br.delta_lower <= 1e-11 * float(ref)
