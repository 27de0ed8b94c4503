"""Monte Carlo checks of He & He 2023 (ε-MI-DP), through the simulation core (full d-dimensional rounds).

(a) For Gaussian w_i ~ N(0, C²/d·I_d) (E‖w_i‖² = C², the case that attains the max-entropy bound) the estimated
    I(w_i; w̄_dp | w^{-i}) at σ_s = server_sigma(ε, …) — and at σ_c = client_sigma(ε, …) — equals ε.
(b) Client-side and server-side noise at their minimum σ give the same E‖w̄ − w̄_dp‖² (Theorem 2), each = 1/U.

Tolerance: the exact value must lie in the estimate's two-sided 99.9 % interval (|z| <= 3.29) at a fixed seed; the
difference of the two distortions must satisfy |D_s − D_c| <= 3.29·sqrt(se_s² + se_c²).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from dpcalc import midp
from dpcalc.sim import mean_estimate, scenarios, z_for

P = np.array([0.5, 0.3, 0.2])


def _cmi_terms(rng: np.random.Generator, size: int, d: int, C: float, i: int, server_sigma: float,
               client_sigma: float) -> np.ndarray:
    """log p(w̄_dp | w_i, w^-i) − log p(w̄_dp | w^-i) of ``size`` simulated d-dimensional rounds."""
    w = scenarios.gaussian_params(rng, size * P.size, C * C / d, d).reshape(P.size, size, d)
    w_dp = scenarios.add_noise(rng, w, P, server_sigma=server_sigma, client_sigmas=client_sigma)
    tau2 = server_sigma**2 + client_sigma**2 * float(np.sum(P * P))
    full = w_dp - np.tensordot(P, w, axes=1)
    cond = full + P[i] * w[i]
    var_cond = tau2 + P[i] ** 2 * C * C / d
    return np.asarray(np.sum(-0.5 * full**2 / tau2 + 0.5 * cond**2 / var_cond, axis=1)
                      + 0.5 * d * math.log(var_cond / tau2))


@pytest.mark.parametrize(("eps", "d", "C"), [(1.5, 6, 2.0), (0.3, 3, 0.5), (8.0, 10, 1.0)])
def test_conditional_mi_at_server_sigma_equals_eps(eps: float, d: int, C: float) -> None:
    sigma = float(midp.server_sigma(eps, d, C=C, p_max=P.max()))
    est = mean_estimate(partial(_cmi_terms, d=d, C=C, i=0, server_sigma=sigma, client_sigma=0.0), 200_000, 21,
                        chunk=20_000)
    assert est.ci_low <= eps <= est.ci_high, est


@pytest.mark.parametrize(("eps", "d", "C"), [(1.5, 6, 2.0), (8.0, 10, 1.0)])
def test_conditional_mi_at_client_sigma_equals_eps(eps: float, d: int, C: float) -> None:
    sigma = float(midp.client_sigma(eps, d, C=C, p_max=P.max(), sum_p2=float(np.sum(P * P))))
    est = mean_estimate(partial(_cmi_terms, d=d, C=C, i=0, server_sigma=0.0, client_sigma=sigma), 200_000, 22,
                        chunk=20_000)
    assert est.ci_low <= eps <= est.ci_high, est


def test_the_bound_is_not_met_by_a_smaller_sigma() -> None:
    """Sanity (power): at 0.9·σ_s the simulated leakage exceeds ε by far more than the interval."""
    eps, d, C = 1.5, 6, 2.0
    sigma = 0.9 * float(midp.server_sigma(eps, d, C=C, p_max=P.max()))
    est = mean_estimate(partial(_cmi_terms, d=d, C=C, i=0, server_sigma=sigma, client_sigma=0.0), 200_000, 23,
                        chunk=20_000)
    assert est.ci_low > eps


def _distortion_terms(rng: np.random.Generator, size: int, d: int, C: float, server_sigma: float,
                      client_sigma: float) -> np.ndarray:
    """‖w̄ − w̄_dp‖² of ``size`` rounds with clipped client vectors (‖w_j‖ <= C) in R^d."""
    w = scenarios.clip(rng.standard_normal((P.size, size, d)), C)
    w_dp = scenarios.add_noise(rng, w, P, server_sigma=server_sigma, client_sigmas=client_sigma)
    diff = np.tensordot(P, w, axes=1) - w_dp
    return np.asarray(np.sum(diff * diff, axis=1))


@pytest.mark.parametrize(("eps", "d", "C"), [(2.0, 20, 1.0), (0.5, 8, 3.0)])
def test_theorem2_client_and_server_distortion_agree(eps: float, d: int, C: float) -> None:
    s2 = float(np.sum(P * P))
    sig_s = float(midp.server_sigma(eps, d, C=C, p_max=P.max()))
    sig_c = float(midp.client_sigma(eps, d, C=C, p_max=P.max(), sum_p2=s2))
    ds = mean_estimate(partial(_distortion_terms, d=d, C=C, server_sigma=sig_s, client_sigma=0.0), 100_000, 24,
                       chunk=10_000)
    dc = mean_estimate(partial(_distortion_terms, d=d, C=C, server_sigma=0.0, client_sigma=sig_c), 100_000, 25,
                       chunk=10_000)
    assert abs(ds.value - dc.value) <= z_for(0.999) * math.hypot(ds.se, dc.se)
    inv_u = 1.0 / float(midp.utility_at_budget(eps, d, C=C, p_max=P.max()))
    assert ds.ci_low <= inv_u <= ds.ci_high, (ds, inv_u)
    assert dc.ci_low <= inv_u <= dc.ci_high, (dc, inv_u)
    assert 1.0 / float(midp.utility_server(sig_s, d)) == pytest.approx(inv_u, rel=1e-12)
    assert 1.0 / float(midp.utility_client(sig_c, d, s2)) == pytest.approx(inv_u, rel=1e-12)
