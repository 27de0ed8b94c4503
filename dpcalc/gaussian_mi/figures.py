"""The data behind Figs. 4-7 of Zeng, Yang & Dai (Entropy 2022), published and corrected side by side.

* Fig. 4: Case 1, n = 101 clients with σ_i² ~ U(0, 1) (seeded), σ² of Theorem 1 and U_max (9); the published
  form is correct, so the published series equals the corrected one.
* Fig. 5: Case 2, σ_m² = 2, σ_k² = 1.8: the published noise (14), its utility and its true leakage, beside the
  corrected σ² and U_max (the '+' erratum of (14)).
* Figs. 6/7: σ_m² = 30, σ_k² = 2: as Fig. 5, plus the Case-3 optimum (σ², σ_e², U_max; water-filling).

All information quantities in bits (the paper's units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.gaussian_mi.cases import case1_sigma2, case1_u_max, case2_privacy, case2_sigma2, case2_u_max
from dpcalc.gaussian_mi.waterfill import case3_optimum

__all__ = ["DEFAULT_SEED", "EQUICORRELATED", "FIGURES", "N_CLIENTS", "FigureData", "figure_data", "figure_eps"]

FIGURES = (4, 5, 6, 7)
N_CLIENTS = 101
#: (σ_m², σ_k²) of the equicorrelated figures.
EQUICORRELATED = {5: (2.0, 1.8), 6: (30.0, 2.0), 7: (30.0, 2.0)}
DEFAULT_SEED = 1299


@dataclass(frozen=True)
class FigureData:
    """One figure's ε grid (bits) and its series (name → array over ε), in display order."""

    number: int
    eps: np.ndarray
    series: dict[str, np.ndarray]
    seed: int | None = None


@v.scalar_params
def figure_eps(number: int) -> np.ndarray:
    """The ε values (bits) of a figure: 1, 3, 4, 5, 8, 10 for Fig. 6; 1..10 otherwise.

    Parameters
    ----------
    number : int

    Returns
    -------
    np.ndarray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    return np.array([1, 3, 4, 5, 8, 10.0]) if number == 6 else np.arange(1.0, 11.0)


@v.scalar_params
def figure_data(number: int, seed: int = DEFAULT_SEED) -> FigureData:
    """The series of Fig. ``number`` (4, 5, 6 or 7); ``seed`` draws Fig. 4's random variances.

    Parameters
    ----------
    number : int
    seed : int
        Seed of the random generator (an int, or a NumPy ``SeedSequence``/``Generator``).

    Returns
    -------
    FigureData

    Raises
    ------
    DomainError
        An input (``seed``) outside its domain; the one-line message names it and the allowed range.
    """
    if number not in FIGURES:
        raise DomainError(f"figure must be 4, 5, 6 or 7 (got NUMBER = {number})")
    eps = figure_eps(number)
    if number == 4:
        var = np.random.default_rng(v.seed("seed", seed)).uniform(0.0, 1.0, N_CLIENTS)
        u1 = np.asarray(case1_u_max(eps, var))
        return FigureData(4, eps, {"sigma2": np.asarray(case1_sigma2(eps, float(var.max()))), "u_max": u1,
                                   "u_published": u1}, seed)
    var_m, cov = EQUICORRELATED[number]
    s_pub = case2_sigma2(eps, var_m, cov, N_CLIENTS, as_published=True)
    series = {"sigma2_published": s_pub,
              "u_published": case2_u_max(eps, var_m, cov, N_CLIENTS, as_published=True),
              "leakage_published": case2_privacy(s_pub, var_m, cov, N_CLIENTS),
              "sigma2": case2_sigma2(eps, var_m, cov, N_CLIENTS), "u_max": case2_u_max(eps, var_m, cov, N_CLIENTS)}
    if number in (6, 7):
        opt = case3_optimum(eps, var_m, cov, N_CLIENTS)
        series.update(case3_sigma2=opt.sigma2, case3_sigma_e2=opt.sigma_e2, case3_u_max=opt.u_max)
    return FigureData(number, eps, {k: np.asarray(x, dtype=np.float64) for k, x in series.items()})
