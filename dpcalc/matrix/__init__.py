"""Matrix-mechanism accounting: DP-FTRL tree aggregation (Kairouz et al. 2021), matrix factorization (Denisov et al.
2022), multiple participations (Choquette-Choo et al. 2023, ICML) and banded strategies with amplification
(Choquette-Choo et al. 2023, NeurIPS).

Modules, one concept each: `participation` (who takes part when), `strategies` (the matrices C), `sensitivity`
(sens(C) under a pattern: exact methods, brute force, labelled bounds), `tree` (the exact dynamic program for
trees and restarts), `strategy` (a strategy by name, dispatching to the best method), `accounting` (μ-GDP, ε,
calibration, the amplified banded mechanism, the DP-SGD comparison). Guide: ``docs/matrix.md``; catalog
``formulas/kairouz2021_ftrl.toml`` and ``formulas/choquette2023_matrix.toml``.
"""

from dpcalc.matrix.accounting import amplified_epsilon, calibrate_noise, delta, dpsgd_epsilon, epsilon, mu
from dpcalc.matrix.participation import Participation, from_training
from dpcalc.matrix.sensitivity import Sensitivity, brute_force, fixed_epoch, min_sep, single_participation
from dpcalc.matrix.strategies import (
    banded_toeplitz,
    bands_of,
    check_strategy,
    load_strategy,
    sqrt_prefix_coefficients,
    tree_depth,
    tree_matrix,
)
from dpcalc.matrix.strategy import Strategy

__all__ = ["Participation", "Sensitivity", "Strategy", "amplified_epsilon", "banded_toeplitz", "bands_of",
           "brute_force", "calibrate_noise", "check_strategy", "delta", "dpsgd_epsilon", "epsilon", "fixed_epoch",
           "from_training", "load_strategy", "min_sep", "mu", "single_participation", "sqrt_prefix_coefficients",
           "tree_depth", "tree_matrix"]
