"""dpcalc.samplers: random allocation's RDP (exact remove direction, AM–GM add bound) and PLD upper bound, and the
shuffle lower bound, each checked against an independent computation.

Tolerances: the exact RDP against a sum over all step sequences in 40-digit mpmath, rtol 1e-11 (log-space series
powering in float64); Monte Carlo values must lie in (or, for bounds, be on the right side of) a 99.9 % normal
interval at a fixed seed; the PLD upper bound must be above the simulated δ and within 5 % of it (grid bias ≈ h per
round); the allocation PLD's remove law must reproduce the exact Rényi moments within 1 % from above.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

from dpcalc.accounting.pld import delta_composed, epsilon_composed, gaussian
from dpcalc.accounting.samplers import allocation_rdp, shuffle
from dpcalc.accounting.samplers.allocation_pld import privacy_loss, privacy_loss_components
from dpcalc.errors import DomainError
from dpcalc.samplers import allocation, compare

DATA = json.loads((Path(__file__).parents[1] / "data" / "samplers_reference.json").read_text())
Z99 = 3.2905


def _rdp_by_sequences(alpha: int, z: float, t: int) -> float:
    """E_Q[(S/t)^α] = t^{−α}·Σ over all α-sequences of steps of Π_i E[Y^{aᵢ}], E_Q[Y^a] = e^{a(a−1)/(2z²)}."""
    with mpmath.workdps(40):
        s2 = mpmath.mpf(1) / mpmath.mpf(z) ** 2
        total = mpmath.mpf(0)
        for seq in itertools.product(range(t), repeat=alpha):
            counts = np.bincount(seq, minlength=t)
            total += mpmath.exp(sum(int(a) * (int(a) - 1) for a in counts) * s2 / 2)
        return float(mpmath.log(total / mpmath.mpf(t) ** alpha) / (alpha - 1))


@pytest.mark.parametrize(("alpha", "z", "t"), [(2, 0.7, 3), (3, 0.7, 3), (5, 2.0, 3), (4, 1.1, 5), (6, 1.5, 2),
                                               (3, 1.0, 1)])
def test_remove_rdp_equals_the_sum_over_step_sequences(alpha: int, z: float, t: int) -> None:
    assert allocation_rdp.rdp_remove(alpha, z, t) == pytest.approx(_rdp_by_sequences(alpha, z, t), rel=1e-11)


def test_one_step_is_the_gaussian_and_order_two_is_closed_form() -> None:
    orders = np.array([2.0, 5.0, 40.0])
    assert allocation_rdp.rdp_remove(orders, 1.3, 1) == pytest.approx(orders / (2 * 1.3**2), rel=1e-12)
    for t in (2, 10, 234, 10_000):
        assert allocation_rdp.rdp_remove(2, 1.1, t) == pytest.approx(math.log1p(math.expm1(1 / 1.21) / t), rel=1e-12)
    for h in DATA["hand"]:
        order = 2 if "order 2" in h["what"] else 3
        assert allocation_rdp.rdp_remove(order, h["z"], h["t"]) == pytest.approx(h["value"], rel=1e-12)


def test_fractional_orders_lie_on_the_convex_chord() -> None:
    lo, mid, hi = allocation_rdp.rdp_remove(np.array([3.0, 3.5, 4.0]), 1.0, 10)
    assert 2.5 * mid == pytest.approx(0.5 * (2 * lo + 3 * hi), rel=1e-12)


def test_remove_rdp_against_monte_carlo() -> None:
    z, t, a = 2.0, 10, 3
    rng = np.random.default_rng(7)
    x = rng.normal(0.0, z, size=(400_000, t))
    x[:, 0] += 1.0
    terms = np.exp((x - 0.5) / z**2).mean(axis=1) ** (a - 1)
    m, se = terms.mean(), terms.std() / math.sqrt(terms.size)
    exact = math.exp((a - 1) * allocation_rdp.rdp_remove(a, z, t))
    assert abs(m - exact) <= Z99 * se


def test_add_bound_is_above_monte_carlo() -> None:
    z, t = 1.5, 8
    rng = np.random.default_rng(8)
    s = np.exp((rng.normal(0.0, z, size=(400_000, t)) - 0.5) / z**2).mean(axis=1)
    for a in (2.0, 4.0):
        terms = s ** (1 - a)
        low = math.log(terms.mean() - Z99 * terms.std() / math.sqrt(terms.size)) / (a - 1)
        assert low <= allocation_rdp.rdp_add_bound(a, z, t)


def test_pld_upper_bound_against_monte_carlo_of_the_pair() -> None:
    z, t = 1.5, 10
    loss = privacy_loss(z, t)
    rng = np.random.default_rng(11)
    for eps in (0.3, 0.8):
        upper = delta_composed([(loss, 1)], eps).delta_upper
        worst = 0.0
        for remove in (True, False):
            x = rng.normal(0.0, z, size=(400_000, t))
            if remove:
                x[:, 0] += 1.0
            ll = np.log(np.exp((x - 0.5) / z**2).mean(axis=1))
            terms = -np.expm1(np.minimum(eps + (ll if not remove else -ll), 0.0))
            m, se = terms.mean(), terms.std() / math.sqrt(terms.size)
            assert upper >= m - Z99 * se
            worst = max(worst, m)
        assert upper <= 1.05 * worst


@pytest.mark.slow
def test_stored_monte_carlo_reference_is_below_the_upper_bound() -> None:
    loss = privacy_loss(1.1, 234)
    for row in DATA["monte_carlo"]:
        upper = delta_composed([(loss, 1)], row["eps"]).delta_upper
        assert upper == pytest.approx(row["dpcalc_delta_upper"], rel=1e-6)
        top = max(row["delta_remove"], row["delta_add"])
        assert top - Z99 * row["se_remove"] <= upper <= 1.05 * top


@pytest.mark.parametrize("order", [2, 3])
def test_pld_remove_law_reproduces_the_exact_moment_from_above(order: int) -> None:
    z, t = 1.2, 12
    pair = privacy_loss(z, t).remove
    p, q = np.asarray(pair.p), np.asarray(pair.q)
    fin = (p > 0) & (q > 0)
    g = np.log(p[fin] / q[fin])
    moment = float(np.sum(p[fin] * np.exp((order - 1) * g)))
    exact = math.exp((order - 1) * allocation_rdp.rdp_remove(order, z, t))
    assert exact * (1 - 1e-9) <= moment <= exact * 1.01


def test_pld_is_tighter_than_rdp_and_monotone() -> None:
    g = 5e-3  # a coarse grid: still an upper bound, 5× fewer cells than the default
    pld = allocation.epsilon(1.1, 1, 20, 5, 1e-5, grid=g)
    rdp = allocation.epsilon(1.1, 1, 20, 5, 1e-5, method="rdp")
    assert pld.kind == rdp.kind == "upper"
    assert pld.value < rdp.value
    assert allocation.epsilon(1.1, 1, 40, 5, 1e-5, grid=g).value < pld.value
    assert allocation.epsilon(1.1, 1, 20, 6, 1e-5, grid=g).value > pld.value
    d = allocation.delta(1.1, 1, 20, 5, pld.value, grid=g)
    assert d.value <= 1e-5 * (1 + 1e-3)


def test_k_of_t_decomposes_into_rounds_and_k_equal_t_is_the_gaussian() -> None:
    (loss, count), = privacy_loss_components(2.0, 3, 31, epochs=2)
    assert count == 6 and "1 of 10 steps" in loss.description
    (g, n), = privacy_loss_components(2.0, 7, 7, epochs=3)
    assert n == 21 and g == gaussian(2.0)


def test_shuffle_max_law_against_the_shuffled_mechanism() -> None:
    from dpcalc.catalog import get
    from dpcalc.checks.registry import CheckContext, get_recipe

    f = get("samplers.shuffle_max_log_cdf")
    for point in ({"c": 3.0, "mean": 2.0, "noise_multiplier": 1.1, "num_steps": 10, "used": 1.0},
                  {"c": 2.5, "mean": 1.0, "noise_multiplier": 0.8, "num_steps": 6, "used": 0.75}):
        r = get_recipe("samplers_shuffle_max_mc")(f, point, CheckContext(samples=200_000, formula_id=f.id))
        assert r.ci_low <= r.closed_form <= r.ci_high, r


def test_shuffle_lower_bound_sandwich() -> None:
    """lower bound ≤ the Gaussian without amplification (each record once per epoch); the others-at-zero pair
    MoG(1) against N(0) is the allocation's pair: its lower end ≤ the allocation's upper bound."""
    from dpcalc.accounting.gdp import eps_from_mu

    first = shuffle.epsilon_lower(1.1, 1000, 50, 1, 1e-5).eps_lower
    for epochs in (1, 4):
        low = shuffle.epsilon_lower(1.1, 1000, 50, epochs, 1e-5)
        assert low.kind == "lower" and low.pair == (2.0, 1.0)
        assert low.eps_lower <= eps_from_mu(math.sqrt(epochs) / 1.1, 1e-5)
        zero = epsilon_composed([(shuffle.max_statistic_loss(1.1, 20, 1.0, 0.0), epochs)], 1e-5).eps_lower
        assert zero <= allocation.epsilon(1.1, 1, 20, epochs, 1e-5).value
    one = shuffle.epsilon_lower(1.1, 1000, 50, 1, 1e-5, relation="replace_one")
    assert first < one.eps_lower <= eps_from_mu(2 / 1.1, 1e-5)


def test_shuffle_lower_beats_the_single_threshold_test() -> None:
    """One epoch: the best single cube test {max ≤ c} (Chua et al. 2024) gives δ ≥ max_c P(M > c) − e^ε Q(M > c);
    the binned statistic is at least as strong (to the bracket's precision)."""
    from dpcalc.accounting.samplers.shuffle import max_cdf

    z, t, d = 1.1, 50, 1e-5
    caps = np.arange(0.0, 12.0, 1e-3)
    p_out = -np.expm1(max_cdf(caps, 2.0, z, t))
    q_out = -np.expm1(max_cdf(caps, 1.0, z, t))
    lo, hi = 0.0, 20.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.max(p_out - np.exp(mid) * q_out) > d else (lo, mid)
    ours = shuffle.epsilon_lower(z, t * 10, 10, 1, d).eps_lower
    assert ours >= lo - 2e-3


@pytest.mark.slow
def test_compare_reproduces_the_stored_mnist_row() -> None:
    ref = DATA["regression"]["mnist"][0]
    row = compare(1.1, 60000, 256, [1], 1e-5)[0]
    assert row.steps == ref["steps"] == 234
    for key in ("poisson", "shuffle_lower", "allocation_upper"):
        assert getattr(row, key) == pytest.approx(ref[key], rel=DATA["regression_rtol"])
    assert row.allocation_upper < row.poisson < row.shuffle_lower


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mnist", "cifar"])
def test_compare_reproduces_the_stored_tables(name: str) -> None:
    s = DATA["regression_settings"][name]
    refs = [r for r in DATA["regression"][name] if r["epochs"] in (10, 60)]
    rows = compare(s["noise_multiplier"], s["dataset_size"], s["batch_size"], [r["epochs"] for r in refs], s["delta"])
    for row, ref in zip(rows, refs, strict=True):
        for key in ("poisson", "shuffle_lower", "allocation_upper"):
            assert getattr(row, key) == pytest.approx(ref[key], rel=DATA["regression_rtol"])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: allocation.epsilon(1.0, 5, 4, 1, 1e-5), "num_selected must be <= num_steps"),
    (lambda: allocation.epsilon(1.0, 1, 0, 1, 1e-5), "num_steps must be"),
    (lambda: allocation.epsilon(1.0, 1, 10, 0, 1e-5), "epochs must be"),
    (lambda: allocation.epsilon(1.0, 1, 10, 1, 1.0), "delta must be"),
    (lambda: allocation.epsilon(-1.0, 1, 10, 1, 1e-5), "noise_multiplier must be"),
    (lambda: allocation.epsilon(1.0, 1, 10, 1, 1e-5, relation="replace_one"), "relation must be"),
    (lambda: allocation.epsilon(1.0, 1, 10, 1, 1e-5, method="exact"), "method must be"),
    (lambda: allocation_rdp.rdp_remove(0.5, 1.0, 10), "orders must be"),
    (lambda: shuffle.epsilon_lower(1.0, 100, 100, 1, 1e-5), "batch_size must be < dataset_size"),
    (lambda: shuffle.epsilon_lower(1.0, 100, 300, 1, 1e-5), "batch_size must be < dataset_size"),
    (lambda: shuffle.epsilon_lower(1.0, 100, 30, 1, 1e-5, drop_last=False), "batch_size must divide"),
    (lambda: shuffle.epsilon_lower(1.0, 100, 0, 1, 1e-5), "batch_size must be"),
    (lambda: shuffle.epsilon_lower(1.0, 100, 10, 1, 1e-5, relation="x"), "relation must be"),
    (lambda: privacy_loss(1.0, 1), "num_steps must be an integer >= 2"),
])
def test_bad_input_is_one_line_naming_the_parameter(call, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError) as info:
        call()
    text = str(info.value)
    assert message in text and "\n" not in text


# Calls the library fuzz found (tests/support/fuzz_library.py): epochs as one count ("'float' object is not
# iterable"), checked before any work.
@pytest.mark.parametrize(("call", "message"), [
    (lambda: compare(0.5, 0.5, 0.5, 0.5, 1e-5), "epochs must be an integer >= 1"),
    (lambda: compare(2.0, 1000, 100, [[1, 2]], 1e-5), "epochs must be one count or a list of counts"),
    (lambda: compare(2.0, 1000, 1000, [1, 2], 1e-5), "batch_size must be < dataset_size"),
    (lambda: compare(2.0, 1000, 100, [], 1e-5), "epochs must not be empty"),
])
def test_compare_bad_input_is_one_line(call, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError) as info:
        call()
    text = str(info.value)
    assert text.startswith(message) and "\n" not in text


def test_compare_takes_one_epoch_count() -> None:
    assert compare(2.0, 1000, 100, 1, 1e-5) == compare(2.0, 1000, 100, [1], 1e-5)


def test_small_noise_allocation_round_is_bounded_by_the_gaussian() -> None:
    """Below z ≈ 0.65 (t = 10) the allocation law's grid rounded the add direction's summands to 0: ε = inf (z =
    0.6: 3.2e-4 of mass at an infinite loss), a bare "zero-size array" ValueError (z = 0.2) or Python's
    OverflowError (z = 0.001, the grid's cap e^{1/(2z²)}). The round is then the Gaussian's pair (joint convexity),
    whose ε is finite; above, the allocation bound is kept (z = 0.7: 4.36 < the Gaussian's 6.65)."""
    from dpcalc.accounting.pld import gaussian as gaussian_loss

    for z, t, d in ((0.001, 2, 0.5), (0.2, 10, 1e-5), (0.6, 10, 1e-5)):
        r = allocation.epsilon(z, 1, t, 1, d)
        assert math.isfinite(r.value)
        assert r.value == epsilon_composed([(gaussian_loss(z), 1)], d).eps_upper
        assert privacy_loss(z, t).description.startswith("gaussian(")
    from dpcalc.accounting.samplers.allocation_pld import GRID, _log_p_zero

    # where the allocation pair is kept (z = 0.7, t = 10: its mass at S̃ = 0 is 4e-16, the bound 4.36)
    assert _log_p_zero(1 / 0.7, 10, GRID) < math.log(1e-15) and _log_p_zero(1 / 0.6, 10, GRID) > math.log(1e-4)


def test_small_noise_shuffle_lower_bound_is_finite_and_valid() -> None:
    """z = 0.001 asked for 2e9 slices (MemoryError, or the process killed); a coarser binning is post-processing.
    At z = 0.02 every cell had one law's mass underflowed (an infinite loss: ε_lower was inf, not a lower bound);
    cells are merged until both masses are normal floats. The bound stays below the Gaussian's ε (an upper bound
    on the shuffled mechanism's: each epoch is at most one Gaussian release per record)."""
    from dpcalc.accounting.pld import gaussian as gaussian_loss

    assert shuffle.epsilon_lower(0.001, 2, 1, 1, 0.5).eps_lower == 0.0  # no overlap at float64 precision
    for z in (0.02, 0.05):
        low = shuffle.epsilon_lower(z, 2, 1, 1, 0.5).eps_lower
        assert 0.0 < low <= epsilon_composed([(gaussian_loss(z), 1)], 0.5).eps_upper
