"""Privacy-loss-distribution (PLD) accountant with a certified bracket ε_lower ≤ ε ≤ ε_upper.

Compositions of Gaussian and Poisson-subsampled Gaussian mechanisms, homogeneous or any schedule of
``(q_t, σ_t, count_t)``, under add/remove neighbours (both directions are composed; the worse is reported).
NumPy FFT only (no dp-accounting). See ``docs/pld.md`` for the derivation and measurements.

Method (own implementation after reading Koskela et al. 2020/2021, Gopi et al. 2021, Doroshenko et al. 2022):

* **Privacy loss** of one step: with z = (2x − 1)/(2σ²), remove: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²),
  L(x) = log((1−q) + q e^z); add: P = N(0,σ²), Q = the mixture, L = −that. δ(ε) = E_P[(1 − e^{ε−L})₊].
* **Upper pair** (pessimistic): "connect the dots" (Doroshenko et al. 2022): the Q-mass is split between
  neighbouring lattice points g_j = j·h linearly in s = e^L ("hat" weights), P-mass of atom j = e^{g_j}·Q_j.
  This pair dominates (its privacy profile is the chord interpolation of the convex true profile in e^ε), so
  its composition bounds δ from above; the error is second order in h.
* **Lower pair** (optimistic): the *same* hat weights used as a randomised post-processing (a channel) give a
  pair dominated by (P, Q) (data processing); its atoms' losses log(P_j/Q_j) lie within O(h²) of g_j. Atoms
  below g_j borrow a fraction of the atom above (another post-processing) until their loss is ≥ g_j, then every
  atom is moved down to its lattice point (a decrease of the loss under P, which lowers δ). Also second order.
* **Tails:** the x-range is cut where the neglected P-mass is ≤ ``tail``; for the upper pair that mass goes to
  an atom at +∞ (or up to the lowest lattice point), for the lower pair to the top lattice point (or dropped).
* **Composition:** exponential tilting by λ (the Chernoff-optimal order, so δ down to 1e-30 is resolved), one
  real FFT per distinct step, powers in the Fourier domain (cost independent of T), one inverse FFT. The window
  [lo, hi] of the composed loss is chosen from Chernoff bounds of the discrete PLDs; mass outside it
  (which the circular convolution aliases into the window) is bounded and charged to δ on the safe side.
* **Round-off:** a componentwise error bound of the forward FFT (10·u·log₂n·‖x‖₁), its propagation through the
  powers and products, and of the inverse FFT gives a pointwise bound E; the upper array is max(W, 0) + E, the
  lower max(W − E, 0). Quadrature (Gauss–Legendre in x) and summation errors are covered by a relative margin
  ``_MARGIN`` (measured errors are ~1e-14; this part is a numerical, not a proved, guarantee).

The bracket width is controlled by the lattice spacing h, adapted until ε_upper − ε_lower ≤ rtol·ε_upper + atol
(defaults rtol 1e-3, atol 1e-6 nats). Memory: the FFT length is capped at ``MAX_FFT`` points (peak ≈ 64 bytes ×
MAX_FFT ≈ 540 MB); beyond it a `DomainError` names the cause instead of allocating more.

Modules, one concept each: `schedule` (the steps), `mechanism`
(one step's privacy loss), `discretise` and `relabel` (the
lattice pairs, `LatticePmf`), `chernoff` (log-MGF
bounds, orders, tilt), `compose` (FFT composition), `curve`
(δ(ε) and its inverse), `passes` (one direction at one lattice),
`dominating` (dominating Gaussian bounds), `accountant` (the
entry points); shared constants in `common` (``common.MAX_FFT`` is read at call time).
Calibration (σ for a target ε) is `dpcalc.accounting.schedule.sigma_for_eps` with ``accountant="pld"``.
"""

from __future__ import annotations

from dpcalc.accounting.pld.accountant import (
                                              DeltaBracket,
                                              EpsBracket,
                                              delta_for_eps,
                                              delta_upper,
                                              epsilon,
                                              epsilon_subsampled_gaussian,
)
from dpcalc.accounting.pld.common import ATOL, DELTA_MIN, MAX_FFT, RTOL, MemoryCapError
from dpcalc.accounting.pld.composed import delta_composed, epsilon_composed
from dpcalc.accounting.pld.losses import (
    PrivacyLoss,
    approx_dp,
    discrete_gaussian,
    discrete_laplace,
    gaussian,
    laplace,
    mixture_of_gaussians,
    poisson,
    pure_dp,
    randomized_response,
    sampled_with_replacement,
    sampled_without_replacement,
    truncated_poisson,
)
from dpcalc.accounting.pld.schedule import Step

__all__ = ["ATOL", "DELTA_MIN", "MAX_FFT", "RTOL", "DeltaBracket", "EpsBracket", "MemoryCapError", "PrivacyLoss",
           "Step", "approx_dp", "delta_composed", "delta_for_eps", "delta_upper", "discrete_gaussian",
           "discrete_laplace", "epsilon", "epsilon_composed", "epsilon_subsampled_gaussian", "gaussian", "laplace",
           "mixture_of_gaussians", "poisson", "pure_dp", "randomized_response", "sampled_with_replacement",
           "sampled_without_replacement", "truncated_poisson"]
