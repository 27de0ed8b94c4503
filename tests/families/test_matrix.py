"""Matrix-mechanism accounting (dpcalc.matrix): sensitivities against brute force and TensorFlow Privacy's test
values, ε against the Gaussian profile, peers (dp-accounting) and dpcalc's own SingleEpochTreeAggregation event,
amplification against DP-SGD, and the one-line errors.

Tolerances: sensitivities are exact integers or square roots (compared at 1e-12 relative; dpcalc moves them outward
by 5e-14); ε values of the same μ-GDP profile at 1e-12; the PLD accountant's ε at its bracket (2e-3 relative).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dpcalc import matrix
from dpcalc.accounting import gdp
from dpcalc.errors import DomainError
from dpcalc.matrix import Participation, Strategy
from dpcalc.matrix.strategy import tree_sensitivity
from dpcalc.matrix.tree import one_per_epoch_squared, tree_sensitivity_squared

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REFS = tomllib.loads((Path(__file__).resolve().parents[1] / "data" / "matrix_references.toml").read_text("utf-8"))


# --- reference values (TensorFlow Privacy's tree accountant tests) ---------------------------------------------------

@pytest.mark.parametrize("case", REFS["tree_toy"], ids=lambda c: f"k{c['participations']}-s{c['min_separation']}")
def test_tf_privacy_toy_sensitivities(case: dict) -> None:
    p = Participation(case["steps"], case["participations"], case["min_separation"] + 1)
    assert tree_sensitivity_squared(p) == case["squared_sensitivity"]
    if case["steps"] > 12:
        return  # brute force below: the small cases
    assert matrix.brute_force(matrix.tree_matrix(case["steps"]), p).value ** 2 == pytest.approx(
        case["squared_sensitivity"], rel=1e-12)


@pytest.mark.parametrize("key", ["tree_every_step", "tree_two", "tree_capped"])
def test_tf_privacy_every_step_values(key: str) -> None:
    for case in REFS[key]:
        k = {"tree_every_step": case["steps"], "tree_two": 2}.get(key, case.get("participations"))
        assert tree_sensitivity_squared(Participation(case["steps"], k, 1)) == case["squared_sensitivity"], case


@pytest.mark.slow
def test_stackoverflow_eps_published_and_peers() -> None:
    """TF Privacy's StackOverflow test values (ε < 19.74 and < 2.04 at δ = 1e-6, one tree of 1600 steps) are RDP
    with Mironov's conversion over its order grid (19.7357, 2.0449 print as 19.74, 2.04); dp-accounting's improved
    conversion gives less, and the exact μ-GDP profile less still."""
    from dp_accounting import dp_event
    from dp_accounting import privacy_accountant as pa
    from dp_accounting.rdp import rdp_privacy_accountant as rdpa

    from dpcalc.accounting import rdp

    orders = np.array(rdp.OPACUS_ORDERS)
    s = tree_sensitivity(1600)
    for case, printed in zip(REFS["stackoverflow"], ("19.74", "2.04"), strict=True):
        z, delta = case["noise_multiplier"], case["delta"]
        curve = orders * s * s / (2 * z * z)
        classic, _ = rdp.eps_from_curve(orders, curve, delta, method="lemma1", warn=False)
        assert f"{classic:.2f}" == printed
        acc = rdpa.RdpAccountant(neighboring_relation=pa.NeighboringRelation.REPLACE_SPECIAL)
        acc.compose(dp_event.SingleEpochTreeAggregationDpEvent(z, case["steps"]))
        peer = acc.get_epsilon(delta)
        exact = matrix.epsilon(z, s, delta)
        assert exact < peer < case["eps_upper"]
    assert matrix.epsilon(1.13, s, 1e-6) == pytest.approx(17.6667507612, rel=1e-9)
    assert matrix.epsilon(8.83, s, 1e-6) == pytest.approx(1.64865884108, rel=1e-9)


def test_tree_restart_is_tf_privacy_sum_of_depths() -> None:
    """TF Privacy's compute_rdp_tree_restart adds ⌊log₂ steps⌋ + 1 per epoch: the same squared sensitivity."""
    for steps_list in ([400] * 4, [800] * 2, [10, 400, 400, 400, 390]):
        expected = sum(math.floor(math.log2(s)) + 1 for s in steps_list)
        # epochs of equal length with one participation each (the restarts at the epoch boundaries)
        if len(set(steps_list)) == 1:
            n, r = sum(steps_list), steps_list[0]
            assert one_per_epoch_squared(n, r, len(steps_list)) == expected
            assert Strategy("tree", n, r).sensitivity(Participation(n, len(steps_list), r)).value ** 2 == \
                pytest.approx(expected, rel=1e-12)


# --- exact methods against brute force --------------------------------------------------------------------------------

CASES = [(n, k, b, r) for n in (5, 8, 11) for k in (1, 2, 3) for b in (1, 2, 3) for r in (None, 4)]


@pytest.mark.parametrize(("n", "k", "b", "r"), CASES)
def test_tree_dp_equals_brute_force(n: int, k: int, b: int, r: int | None) -> None:
    p = Participation(n, k, b)
    brute = matrix.brute_force(matrix.tree_matrix(n, r), p).value ** 2
    assert tree_sensitivity_squared(p, r) == pytest.approx(brute, rel=1e-12)


def test_banded_and_bounds_against_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(25):
        n, b = int(rng.integers(4, 10)), int(rng.integers(1, 4))
        k = int(rng.integers(1, 4))
        p = Participation(n, k, b)
        banded = matrix.banded_toeplitz(rng.uniform(-1, 1, b), n)
        exact = matrix.min_sep(banded, p)
        assert exact.exact and exact.value == pytest.approx(matrix.brute_force(banded, p).value, rel=1e-12)
        dense = np.tril(rng.uniform(-1, 1, (n, n)))
        bound = matrix.min_sep(dense, p)
        brute = matrix.brute_force(dense, p)  # the |X| value over all patterns
        assert bound.upper >= brute.value * (1 - 1e-12)
        assert bound.lower <= bound.upper
        nonneg = np.tril(rng.uniform(0, 1, (n, n)))
        s = matrix.min_sep(nonneg, p)
        truth = matrix.brute_force(nonneg, p).value  # exact: CᵀC >= 0
        assert s.lower * (1 - 1e-12) <= truth <= s.upper * (1 + 1e-12)


def test_brute_force_is_the_vector_maximum_for_nonnegative_gram() -> None:
    """For CᵀC >= 0 equal contributions are worst: random unit vectors never beat 1ᵀX_π1 (the sensitivity is a max
    over contributions, checked here by sampling them)."""
    rng = np.random.default_rng(3)
    c = matrix.tree_matrix(7)
    p = Participation(7, 3, 2)
    best = matrix.brute_force(c, p).value
    for pi in [(0, 2, 4), (1, 3, 6), (0, 3, 5)]:
        for _ in range(200):
            u = rng.standard_normal((3, 4))
            u /= np.linalg.norm(u, axis=1, keepdims=True)
            assert np.linalg.norm(c[:, list(pi)] @ u) <= best * (1 + 1e-12)


def test_fixed_epoch() -> None:
    c = matrix.tree_matrix(12)
    p = Participation(12, 3, 4)
    got = matrix.fixed_epoch(c, p)
    x = c.T @ c
    expected = max(x[np.ix_(idx, idx)].sum() for idx in (np.arange(i, 12, 4) for i in range(4)))
    assert got.exact and got.value ** 2 == pytest.approx(expected, rel=1e-12)
    signed = matrix.fixed_epoch(matrix.banded_toeplitz([1.0, -0.5, 0.3], 12), p)
    assert not signed.exact and signed.lower <= signed.upper


# --- ε and calibration ------------------------------------------------------------------------------------------------

def test_single_epoch_tree_agrees_with_the_event_accountant() -> None:
    """dpcalc's SingleEpochTreeAggregation (replace-one, μ = 2√⌈log₂(T + 1)⌉/z) is the matrix mechanism's tree
    with one participation under replace-one."""
    from dpcalc.accounting.events.mechanisms.tree import tree_aggregation_delta

    for z, steps, eps in [(4.0, 10, 0.5), (2.0, 7, 1.0), (10.0, 2000, 0.3)]:
        s = tree_sensitivity(steps)
        ours = matrix.delta(eps, z, s, "replace_one")
        assert tree_aggregation_delta(eps, z, steps) == pytest.approx(ours, rel=2e-3)


def test_calibration_round_trip_safe_side() -> None:
    for s, eps, delta in [(3.3, 2.0, 1e-6), (28.3, 8.0, 1e-5), (1.0, 0.1, 1e-9)]:
        z = matrix.calibrate_noise(s, eps, delta)
        assert matrix.epsilon(z, s, delta) <= eps
        assert matrix.epsilon(z * (1 - 1e-9), s, delta) > eps * (1 - 1e-6)


def test_amplification_reduces_to_dp_sgd() -> None:
    """b = 1 (C = I): the amplified banded mechanism is DP-SGD itself (same PLD computation); p = 1 and b = n: one
    Gaussian of the largest column norm (μ-GDP)."""
    n, z, p, delta = 50, 1.2, 0.1, 1e-5
    assert matrix.amplified_epsilon(np.eye(n), z, p, 1, delta) == pytest.approx(
        matrix.dpsgd_epsilon(z, p, n, delta), rel=1e-12)
    c = matrix.banded_toeplitz([1.0, 0.5, 0.25], n)
    kappa = math.sqrt(1 + 0.25 + 0.0625)
    assert matrix.amplified_epsilon(c, z, 1.0, n, delta) == pytest.approx(matrix.epsilon(z, kappa, delta), rel=2e-3)


@pytest.mark.slow
def test_worked_example_numbers() -> None:
    """1,000 clients, 100 per round, 2,000 rounds (docs/matrix.md): cohorts cycled every 10 rounds."""
    part = matrix.from_training(1000, 100, 2000)
    assert (part.steps, part.participations, part.separation) == (2000, 200, 10)
    restart = Strategy("tree", 2000, 10).sensitivity(part)
    assert restart.exact and restart.value ** 2 == pytest.approx(800, rel=1e-12)
    single = Strategy("tree", 2000).sensitivity(part)
    assert single.exact and single.value ** 2 == pytest.approx(28689, rel=1e-12)
    banded = Strategy("banded", 2000, bands=10).sensitivity(part)
    assert banded.exact and banded.method == "banded"


# --- errors -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("call", "match"), [
    (lambda: matrix.check_strategy([[1.0, 0.5], [0.0, 1.0]]), "^matrix must be lower-triangular"),
    (lambda: matrix.check_strategy(np.ones((2, 3))), "^matrix must be a square"),
    (lambda: Participation(10, 2, 11), "separation must be <= steps"),
    (lambda: Participation(10, 0, 1), "participations must be"),
    (lambda: matrix.amplified_epsilon(matrix.banded_toeplitz([1, 1, 1], 9), 1.0, 0.5, 2, 1e-5), "at most 2 bands"),
    (lambda: matrix.amplified_epsilon(np.eye(4), 1.0, 0.5, 5, 1e-5), "separation must be <= steps"),
    (lambda: matrix.epsilon(-1.0, 1.0, 1e-5), "noise_multiplier must be"),
    (lambda: Strategy("tree", 8).sensitivity(Participation(9, 1, 1)), "9 steps but the strategy 8"),
])
def test_one_line_errors(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_load_strategy(tmp_path: Path) -> None:
    good = tmp_path / "c.csv"
    good.write_text("1,0,0\n0.5,1,0\n0.25,0.5,1\n")
    assert matrix.bands_of(matrix.load_strategy(good)) == 3
    np.save(tmp_path / "c.npy", np.triu(np.ones((3, 3))))
    with pytest.raises(DomainError, match=r"^path must be lower-triangular: .* \(in c.npy\)$"):
        matrix.load_strategy(tmp_path / "c.npy")
    (tmp_path / "bad.txt").write_text("a b\nc d\n")
    with pytest.raises(DomainError, match=r"^path: .*bad.txt. holds no numbers"):
        matrix.load_strategy(tmp_path / "bad.txt")


def test_brute_force_refuses_huge_enumerations() -> None:
    with pytest.raises(DomainError, match=r"brute force needs 8.*patterns"):
        matrix.brute_force(np.eye(200), Participation(200, 6, 1))


# Calls the library fuzz found (tests/support/fuzz_library.py), each now a one-line error naming its parameter.
@pytest.mark.parametrize(("call", "match"), [
    (lambda: matrix.fixed_epoch(0.5, 0.5), r"^c \(the strategy matrix C\) must be 2-D"),  # named "strategy"
    (lambda: matrix.min_sep("abc", Participation(8, 2, 4)), r"^c must be a number"),
    (lambda: matrix.brute_force([[0.5], [0.5]], -74022), r"^participation must be a dpcalc.matrix.Participation"),
    (lambda: matrix.fixed_epoch([[1.0], [1.0]], 1.0), r"^participation must be"),  # AttributeError
    (lambda: matrix.min_sep([[1.0, 1.0, 1.0]], [-1.0]), r"^participation must be"),
    (lambda: matrix.fixed_epoch(matrix.tree_matrix(8), Participation(4, 2, 2)),  # silently used 8 steps
     r"^the participation has 4 steps but the strategy c has 8 columns"),
    (lambda: matrix.single_participation(1.7976931348623157e308), r"^c \(the strategy matrix C\) must be 2-D"),
    (lambda: matrix.single_participation([[1.7976931348623157e308]]),  # RuntimeWarning and inf
     r"^c \(the strategy matrix C\) has entries too large: a column's squared norm overflows"),
    (lambda: matrix.min_sep([[1e300, 0.0], [1e300, 1e300]], Participation(2, 2, 1)), r"^c .* has entries too large"),
    (lambda: matrix.check_strategy([[2.0, 1.0], [1.0, 2.0]]), r"^matrix must be lower-triangular"),  # "strategy"
    (lambda: matrix.check_strategy(None), r"^matrix must be a number"),
    (lambda: matrix.bands_of([-7.9e5, -1.0, 578.9, -179.0]), r"^matrix must be a square"),  # IndexError
    (lambda: matrix.bands_of([[1, 2], [3]]), r"^matrix must be a number"),  # NumPy's inhomogeneous-shape error
    (lambda: matrix.dpsgd_epsilon(0, 0, 0, 0), r"^noise_multiplier must be"),  # named the PLD step's sigma
    (lambda: matrix.dpsgd_epsilon(1.0, 0.1, 2.5, 1e-5), r"^steps must be an integer"),  # truncated to 2 steps
    (lambda: matrix.Strategy("", 0), r"^kind must be one of"),
])
def test_fuzz_found_one_line_errors(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DomainError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_load_strategy_names_the_file(tmp_path: Path) -> None:
    col = tmp_path / "col.csv"
    col.write_text("1\n2\n3\n")
    with pytest.raises(DomainError, match=r"^path must be a square n × n matrix \(got shape \(3, 1\)\) \(in col.csv\)"):
        matrix.load_strategy(col)
    np.save(tmp_path / "complex.npy", np.eye(2) * (1 + 2j))  # ComplexWarning leaked and the real part was kept
    with pytest.raises(DomainError, match=r"^path: .*complex.npy. holds complex numbers"):
        matrix.load_strategy(tmp_path / "complex.npy")


def test_delta_without_sensitivity_is_zero() -> None:
    """A zero strategy releases nothing: δ(ε) = 0 at μ = s/z = 0, as ε = 0 (`epsilon`); broadcasts. (The fuzz:
    sensitivity = -0.0 was refused naming ``mu``, which is no parameter of `delta`.)"""
    assert matrix.delta(256, 0.001, -0.0) == 0.0
    np.testing.assert_array_equal(matrix.delta([0.0, 1.0], 2.0, [0.0, 3.0]),
                                  [0.0, float(gdp.delta(1.5, 1.0))])
    assert matrix.epsilon(1.0, 0.0, 1e-5) == 0.0


def test_sqrt_prefix_coefficients_are_capped_and_exact() -> None:
    """The library fuzz: bands = 3e8 ran a Python loop for minutes (and 2.4 GB); a band beyond the longest strategy
    (`MAX_STEPS`) is never used. The coefficients C(2j, j)/4^j to 1e-15 relative (exact binomials)."""
    with pytest.raises(DomainError, match=r"^bands must be <= 5000"):
        matrix.sqrt_prefix_coefficients(300000000.0)
    got = matrix.sqrt_prefix_coefficients(5000)
    exact = [math.comb(2 * j, j) / 4**j for j in (0, 1, 2, 10, 100, 1000)]
    np.testing.assert_allclose(got[[0, 1, 2, 10, 100, 1000]], exact, rtol=1e-15)


def test_a_large_tree_matrix_is_built_in_place() -> None:
    """The library fuzz: tree_matrix(4681) (9,357 rows of 4,681) took over 10 s on a loaded machine, building the
    rows as a list and copying them; now filled in place (one 350 MB array). Its columns hold ⌊log₂ n⌋ + 1 = 13
    nodes at most, its rows are dyadic intervals."""
    m = matrix.tree_matrix(4681)
    assert m.shape == (sum(4681 // 2**h for h in range(13)), 4681)
    assert m.sum(axis=0).max() == matrix.tree_depth(4681) == 13
    assert set(np.unique(m)) == {0.0, 1.0}
