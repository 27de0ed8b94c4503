"""Every public function of the numerical modules is accounted for by the domain sweeps (the requirement: for every
public numerical function, a sweep of its documented domain against an independent high-precision form).

A function passes when it is the implementation of a catalog entry (swept against the entry's SymPy form by
``test_sweep_seeds.py`` / ``test_sweep_accounting.py``), when a named sweep test elsewhere covers it (mpmath oracles
of :mod:`dpcalc.checks.oracles`), or when it is listed below as not a closed form of its own, with the reason. A new
public function that is none of these fails here, so the class stays closed.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from dpcalc import catalog

MODULES = ("dpcalc.midp", "dpcalc.gaussian_mi", "dpcalc.cuag", "dpcalc.nbafl", "dpcalc.secagg",
           "dpcalc.accounting.gdp", "dpcalc.accounting.rdp", "dpcalc.accounting.zcdp",
           "dpcalc.accounting.gaussian_mechanism", "dpcalc.accounting.schedule", "dpcalc.accounting.calibrate",
           "dpcalc.accounting.search", "dpcalc.accounting.pld", "dpcalc.distributed", "dpcalc.matrix")

#: public functions swept by a dedicated test (file::test) against an mpmath oracle rather than a catalog form
SWEPT_ELSEWHERE = {
    "dpcalc.accounting.gdp.eps_bracket_from_mu": "test_pld_single.py::test_gaussians_without_sampling_are_exact",
    "dpcalc.accounting.gdp.eps_bracket_between": "test_gdp.py::test_eps_bracket_between_holds_both_ends",
    "dpcalc.accounting.rdp.subsampled_gaussian_curve": "test_sweep_rdp.py::test_subsampled_gaussian_integer_sweep",
    "dpcalc.accounting.rdp.eps_subsampled_gaussian": "test_sweep_accountants.py::test_eps_rdp_sweep",
    "dpcalc.accounting.rdp.eps_from_curve": "test_sweep_accountants.py::test_eps_rdp_sweep",
    "dpcalc.accounting.pld.epsilon": "test_sweep_pld.py::test_pld_full_batch_sweep_contains_exact_gaussian",
    "dpcalc.accounting.pld.epsilon_subsampled_gaussian":
        "test_sweep_pld.py::test_pld_full_batch_sweep_contains_exact_gaussian",
    # distributed DP and matrix mechanisms: exact numerics, brute force and peers in their family tests
    "dpcalc.distributed.epsilon": "test_distributed.py::test_gaussian_limit",
    "dpcalc.distributed.rdp_curve": "test_distributed.py::test_gaussian_limit",
    "dpcalc.distributed.ddg_tau": "test_distributed.py::test_ddg_bound_holds_above_sigma_one_half",
    "dpcalc.distributed.calibrate_sigma": "test_distributed.py::test_calibrate_sigma_safe_side",
    "dpcalc.distributed.calibrate_for_bits": "test_distributed.py::test_calibrate_for_bits",
    "dpcalc.distributed.epsilon_for_bits": "test_distributed.py::test_epsilon_decreases_with_bits",
    "dpcalc.matrix.brute_force": "test_matrix.py::test_tree_dp_equals_brute_force",
    "dpcalc.matrix.min_sep": "test_matrix.py::test_banded_and_bounds_against_brute_force",
    "dpcalc.matrix.fixed_epoch": "test_matrix.py::test_fixed_epoch",
    "dpcalc.matrix.single_participation": "test_matrix.py::test_tree_dp_equals_brute_force",
    "dpcalc.matrix.epsilon": "test_matrix.py::test_stackoverflow_eps_published_and_peers",
    "dpcalc.matrix.calibrate_noise": "test_matrix.py::test_calibration_round_trip_safe_side",
    "dpcalc.matrix.amplified_epsilon": "test_matrix.py::test_amplification_reduces_to_dp_sgd",
    "dpcalc.matrix.dpsgd_epsilon": "test_matrix.py::test_amplification_reduces_to_dp_sgd",
}

#: public functions that are not a closed form of their own, with the reason (what covers the numbers they return)
NOT_A_FORM = {
    # distributed DP and matrix mechanisms: helpers whose values reach the user through catalogued entries
    "dpcalc.distributed.rounded_l1_bound": "Δ₁ = Δ₂·min(√d, Δ₂), an input of distributed.ddg_rdp / skellam_rdp",
    "dpcalc.distributed.expected_rounding_attempts": "1/(1 − β), reported beside distributed.rounded_l2_bound",
    "dpcalc.distributed.rounding_bias_bound": "β/(1 − β), the bias inside distributed.modular_failure_bound",
    "dpcalc.distributed.aggregate_std": "√v of distributed.scale_for_bits / modular_failure_bound (catalogued)",
    "dpcalc.distributed.min_bits": "⌈log₂(2k√v)⌉ over aggregate_std (tests/families/test_distributed.py errors)",
    "dpcalc.distributed.training_terms": "q = n/N, n, R: the training terms (no number of its own)",
    "dpcalc.matrix.mu": "μ = s/z inside matrix.delta (catalogued)",
    "dpcalc.matrix.from_training": "b = ⌊N/n⌋, k = ⌈R/b⌉ (test_matrix.py::test_worked_example_numbers)",
    "dpcalc.matrix.tree_depth": "⌊log₂ n⌋ + 1 inside matrix.tree_sensitivity (catalogued)",
    "dpcalc.matrix.tree_matrix": "the explicit strategy the brute-force checks enumerate",
    "dpcalc.matrix.banded_toeplitz": "the explicit strategy the brute-force checks enumerate",
    "dpcalc.matrix.sqrt_prefix_coefficients": "C(2j, j)/4^j, the default bands (matrix.banded_sensitivity example)",
    "dpcalc.matrix.bands_of": "the number of bands of a matrix (amplification's precondition)",
    "dpcalc.matrix.check_strategy": "validation (test_matrix.py::test_one_line_errors)",
    "dpcalc.matrix.load_strategy": "I/O (test_matrix.py::test_load_strategy)",
    # helpers and kernels: every value they produce reaches the user through a catalogued (swept) entry
    "dpcalc.midp.weight_stats": "Σp², max p of an aggregation weight vector (inputs of the midp entries)",
    "dpcalc.midp.equal_weight_stats": "Σp² = 1/N, max p = 1/N (inputs of the midp entries)",
    "dpcalc.midp.clip_schedule": "per-round clipping thresholds fed to midp.clip_update (catalogued)",
    "dpcalc.midp.personalized": "dataclass of the personalized_* entries (each catalogued)",
    "dpcalc.accounting.search.solve": "the one monotone-knob search behind every calibration (the sigma_for_eps "
                                      "sweeps; tests/accounting/test_calibrate.py: an integer knob)",
    "dpcalc.accounting.calibrate.calibrate": "the one calibrator over any event's knob (schedule.sigma_for_eps is it; "
                                             "tests/accounting/test_training.py: every knob safe and tight)",
    "dpcalc.accounting.calibrate.get_field": "a field of an event by its path",
    "dpcalc.accounting.calibrate.with_field": "an event with a field replaced",
    "dpcalc.accounting.calibrate.owner_of": "the event holding a field",
    "dpcalc.accounting.calibrate.probe": "an event with its unknown set to a typical value",
    "dpcalc.accounting.schedule.result": "the accountant's result object of schedule.epsilon (catalogued, swept)",
    "dpcalc.cuag.harmonic": "H_T inside cuag.effective_mu (catalogued, μ√H_T)",
    "dpcalc.cuag.noise_variance_from_sigma": "ξ = (2Cσ/B)², the σ form of cuag.noise_variance (eq. 15, catalogued)",
    "dpcalc.cuag.sigma_schedule": "the vector σ_1..σ_T of cuag.sigma (catalogued)",
    "dpcalc.accounting.gdp.clt_mu_schedule": "gdp.clt_mu (catalogued) over a σ schedule",
    "dpcalc.accounting.gaussian_mechanism.mu": "μ = Δ/σ (gdp.gaussian_mu, catalogued)",
    "dpcalc.gaussian_mi.conditional_variances": "vector form of gauss.conditional_variance (catalogued)",
    # compositions and dispatchers over catalogued entries
    "dpcalc.cuag.prifedsync_eps": "gdp.eps_from_mu ∘ cuag.prifedsync_mu (both catalogued and swept)",
    "dpcalc.cuag.baseline_eps": "dispatch to cuag.dpscaffold_eps / cuag.prifedsync_eps",
    "dpcalc.cuag.baselines": "dataclass of the baseline curves",
    "dpcalc.cuag.rounds_to_eps": "integer search over baseline_eps (tests/families/test_cuag.py)",
    "dpcalc.cuag.audit": "report over the cuag entries and the PLD accountant",
    "dpcalc.cuag.audit_eps": "gdp.eps_from_mu at μ and at cuag.effective_mu (both catalogued and swept)",
    "dpcalc.nbafl.compare_accountants": "report over the accountants (each swept)",
    "dpcalc.secagg.table1": "table over the secagg.table1_* entries",
    "dpcalc.secagg.table1_entry": "dispatch to the secagg.table1_* entries",
    "dpcalc.secagg.to_sec4": "normalisation conversion S_sec4 = B·S_sec5",
    "dpcalc.secagg.to_sec5": "normalisation conversion S_sec5 = S_sec4/B",
    "dpcalc.accounting.rdp.compose": "sum of RDP curves (Mironov 2017, Prop. 1)",
    "dpcalc.accounting.zcdp.compose": "sum of ρ (Bun & Steinke 2016, Lemma 2.3)",
    "dpcalc.accounting.rdp.delta_from_curve": "min over orders of a catalogued conversion (rdp.delta_*)",
    "dpcalc.accounting.rdp.orders_array": "order grid builder",
    "dpcalc.gaussian_mi.privacy": "engine over covariance matrices: tests/families/test_gauss.py and "
                                  "test_gauss_edges.py check it by exact log-det (mpmath) and the Case 1–3 entries",
    "dpcalc.gaussian_mi.utility": "engine over covariance matrices (exact log-det: tests/families/test_gauss*.py)",
    "dpcalc.gaussian_mi.evaluate": "engine report (privacy, utility, per-client leakage)",
    "dpcalc.gaussian_mi.case3_optimum": "dataclass of the gauss.case3_* entries",
    # optimisers and scans: compared with brute force in their unit tests, not closed forms
    "dpcalc.nbafl.optimal_t": "scan of nbafl.convergence_bound over T (tests/families/test_nbafl.py)",
    "dpcalc.nbafl.optimal_k": "scan of nbafl.convergence_bound_sampled over K (tests/families/test_nbafl.py)",
    "dpcalc.nbafl.k_domain_min": "smallest integer K > N(1 − e^{−ε/T}) (integer search, tests/families/test_nbafl.py)",
    "dpcalc.secagg.dp_from_rdp": "min over an order grid of catalogued RDP→DP conversions",
    "dpcalc.secagg.optimal_dp": "min over α of a catalogued RDP→DP conversion (any α is valid: safe by construction)",
    # matrix pipelines of Zhang et al. 2024 (paper 004): checked by exact numerics (eigendecompositions, quadrature)
    # in their tests
    "dpcalc.secagg.aggregate_covariance": "matrix builder (tests/families/test_secagg.py)",
    "dpcalc.secagg.eigenvalues": "eigendecomposition (NumPy)",
    "dpcalc.secagg.gradient_subspace": "matrix pipeline (tests/families/test_secagg.py)",
    "dpcalc.secagg.projected_eigenvalues": "matrix pipeline (tests/families/test_secagg.py)",
    "dpcalc.secagg.second_moment": "matrix pipeline (tests/families/test_secagg.py)",
    "dpcalc.secagg.span_check": "linear-algebra check (tests/families/test_secagg.py)",
    "dpcalc.secagg.theorem2_from_gradients": "secagg.theorem2_rdp (catalogued) on measured eigenvalues",
    "dpcalc.secagg.renyi_gaussian": "general Gaussian Rényi divergence (recipe secagg_renyi_numeric: quadrature)",
    "dpcalc.secagg.exact_aggregate_divergence": "secagg.renyi_gaussian of the two aggregate Gaussians",
    "dpcalc.secagg.isotropic_spectrum": "spectrum builder",
    "dpcalc.secagg.wfna_spectrum": "spectrum builder (water filling)",
    "dpcalc.secagg.water_filling": "water-filling noise (recipe secagg_added_power_mc; tests/families/test_secagg.py)",
    # I/O, registries and progress
    "dpcalc.gaussian_mi.load_covariance": "file reader",
    "dpcalc.gaussian_mi.as_covariance": "input validation",
    "dpcalc.gaussian_mi.equicorrelated_matrix": "matrix builder",
    "dpcalc.secagg.load_gradients": "file reader",

    "dpcalc.accounting.pld.delta_for_eps": "the PLD δ bracket (tests/accounting/test_pld.py: containment of the exact "
                                           "Gaussian δ at q = 1, monotonicity, dp-accounting peer)",
    **{f"dpcalc.accounting.pld.{name}": "a privacy-loss pair, no number of its own (tests/accounting/"
                                        "test_pld_losses.py and test_pld_peers.py: exact references and dp-accounting)"
       for name in ("gaussian", "laplace", "discrete_laplace", "discrete_gaussian", "randomized_response",
                    "mixture_of_gaussians", "pure_dp", "approx_dp", "poisson", "sampled_without_replacement",
                    "sampled_with_replacement", "truncated_poisson")},
    "dpcalc.accounting.pld.epsilon_composed": "the PLD ε bracket of any composition (tests/accounting/"
                                              "test_pld_losses.py: μ-GDP, Laplace, randomized response, optimal "
                                              "composition inside every bracket; test_pld_peers.py)",
    "dpcalc.accounting.pld.delta_composed": "the PLD δ bracket of any composition (tests/accounting/"
                                            "test_pld_losses.py::test_delta_bracket_contains_exact)",
}
TESTS = Path(__file__).resolve().parents[1]


def _resolve(path: str) -> object:
    module, _, name = path.rpartition(".")
    return inspect.unwrap(getattr(importlib.import_module(module), name))


def _public_functions() -> dict[str, object]:
    found: dict[str, object] = {}
    seen: set[object] = set()
    for name in MODULES:
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", None) or [a for a in dir(mod) if not a.startswith("_")]:
            obj = getattr(mod, attr)
            if inspect.isfunction(obj) and obj.__module__.startswith("dpcalc"):
                target = inspect.unwrap(obj)
                if target not in seen:
                    seen.add(target)
                    found[f"{name}.{attr}"] = target
    return found


def test_every_public_function_is_swept_or_explained() -> None:
    catalogued = {_resolve(f.implementation) for f in catalog.load().values()}
    missing = [name for name, fn in _public_functions().items()
               if fn not in catalogued and name not in SWEPT_ELSEWHERE and name not in NOT_A_FORM]
    assert not missing, f"public functions with no sweep and no stated reason: {missing}"


@pytest.mark.parametrize("name", sorted(SWEPT_ELSEWHERE))
def test_named_sweep_exists(name: str) -> None:
    file, _, test = SWEPT_ELSEWHERE[name].partition("::")
    (path,) = TESTS.rglob(file)  # the test files are unique by name across tests/*/
    assert f"def {test}(" in path.read_text(encoding="utf-8"), SWEPT_ELSEWHERE[name]


def test_lists_name_real_functions() -> None:
    public = _public_functions()
    stale = [n for n in (*SWEPT_ELSEWHERE, *NOT_A_FORM) if n not in public]
    assert not stale, f"listed but not a public function (renamed or removed?): {stale}"
