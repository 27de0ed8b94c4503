"""Monte Carlo estimators with confidence intervals (NumPy only; seeded; chunked; optional processes).

Every estimator is a mean of i.i.d. terms (`mean_estimate`) or a smooth function of such means, and
returns a `dpcalc.sim.stats.Estimate` (value, standard error, two-sided ``level`` interval, n).

* `gaussian_channel_mi` — I(X; X + Z) of a scalar Gaussian channel (per coordinate, × ``dims``), from
  log-density ratios ``log p(y|x) − log p(y)``; exact value ½·ln(1 + snr) per coordinate.
* `gaussian_vector_mi` — I(X; X + Z) for X ~ N(0, Σx), Z ~ N(0, Σz) (Cholesky; small dimension).
* `aggregation_cmi` — I(w_i; w̄_dp | w^{-i}) of a simulated FL aggregation ``w̄_dp = Σ p_j w_j + noise``
  with Gaussian client parameters and server- and/or client-side noise (every client's w_j is drawn).
* `aggregation_distortion` — E‖w̄ − w̄_dp‖² of the same simulated aggregation.
* `hockey_stick_delta` — δ(ε) = E_P[(1 − e^{ε − L})₊] of a mechanism pair (privacy-loss RV L), with
  optional importance sampling; `renyi_divergence` — D_α(P‖Q) by sampling from P.

Large ``dims`` (up to 1e12) are handled by sampling one coordinate and multiplying by ``dims``: coordinates are
i.i.d., so the d-dimensional quantity is exactly ``dims`` × the one-coordinate quantity (value and SE).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.sim.parallel import DEFAULT_CHUNK, Moments, SeedLike, TermFn, run_moments
from dpcalc.sim.stats import Estimate, z_for


def _estimate(value: float, se: float, n: int, level: float) -> Estimate:
    z = z_for(level)
    return Estimate(float(value), float(se), float(value - z * se), float(value + z * se), int(n))


@v.scalar_params
def moments(fn: TermFn, n: int, seed: SeedLike, *, workers: int = 1, chunk: int = DEFAULT_CHUNK) -> Moments:
    """Run a term function over ``n`` seeded samples (see `dpcalc.sim.parallel`)."""
    return run_moments(fn, n, seed, workers=workers, chunk=chunk)


@v.scalar_params
def mean_estimate(fn: TermFn, n: int, seed: SeedLike, *, level: float = 0.999, workers: int = 1,
                  scale: float = 1.0, chunk: int = DEFAULT_CHUNK) -> Estimate:
    """Mean (× ``scale``) of the i.i.d. terms ``fn(rng, size)`` with a normal-approximation CI."""
    z_for(level)  # a bad level is refused before any sampling
    m = moments(fn, n, seed, workers=workers, chunk=chunk)
    return _estimate(scale * float(m.mean[0]), abs(scale) * math.sqrt(max(float(m.cov_of_mean[0, 0]), 0.0)),
                     m.n, level)


# --- mutual information -------------------------------------------------------------------------------

def _channel_terms(rng: np.random.Generator, size: int, signal_std: float, noise_std: float) -> np.ndarray:
    x = rng.standard_normal(size)
    z = rng.standard_normal(size)
    y = signal_std * x + noise_std * z
    total = signal_std * signal_std + noise_std * noise_std
    # log N(y; x, σ²) − log N(y; 0, s² + σ²) = −z²/2 + y²/(2(s²+σ²)) + ½ ln((s²+σ²)/σ²)
    const = 0.5 * math.log1p((signal_std / noise_std) ** 2)
    y *= y
    y *= 0.5 / total
    z *= z
    y -= 0.5 * z
    y += const
    return y


@v.scalar_params
def gaussian_channel_mi(signal_var: float, noise_var: float, n: int, seed: SeedLike, *, dims: float = 1.0,
                        level: float = 0.999, workers: int = 1) -> Estimate:
    """I(X; X + Z) in nats for X ~ N(0, signal_var), Z ~ N(0, noise_var) per coordinate, × ``dims`` coordinates.

    Exact: ``dims/2 · ln(1 + signal_var/noise_var)``. Draws 2 Gaussians per sample.
    """
    signal_var = v.scalar("signal_var", v.nonnegative("signal_var", signal_var))
    noise_var = v.scalar("noise_var", v.positive("noise_var", noise_var))
    dims = v.scalar("dims", v.positive("dims", dims))
    fn = partial(_channel_terms, signal_std=math.sqrt(signal_var), noise_std=math.sqrt(noise_var))
    return mean_estimate(fn, n, seed, level=level, workers=workers, scale=dims)


def _vector_terms(rng: np.random.Generator, size: int, lx: np.ndarray, lz: np.ndarray, ly_inv: np.ndarray,
                  logdet_ratio: float) -> np.ndarray:
    k = lx.shape[0]
    u = rng.standard_normal((k, size))
    zeta = rng.standard_normal((k, size))
    y = lx @ u + lz @ zeta
    a = ly_inv @ y  # L_y^{-1} y, so ‖a‖² = yᵀ Σy⁻¹ y
    return np.asarray(-0.5 * np.sum(zeta * zeta, axis=0) + 0.5 * np.sum(a * a, axis=0) + 0.5 * logdet_ratio)


@v.scalar_params
def gaussian_vector_mi(cov_x: ArrayLike, cov_z: ArrayLike, n: int, seed: SeedLike, *, level: float = 0.999,
                       workers: int = 1) -> Estimate:
    """I(X; X + Z) in nats for X ~ N(0, Σx), Z ~ N(0, Σz) (positive definite Σz), by sampling log-density ratios.

    Exact: ``½·ln det(Σx + Σz) − ½·ln det Σz``.
    """
    sx, sz = (np.atleast_2d(v.as_array(name, c)) for name, c in (("cov_x", cov_x), ("cov_z", cov_z)))
    for name, c in (("cov_x", sx), ("cov_z", sz)):
        if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape != sx.shape:
            raise DomainError(f"{name} must be a square matrix of the same size as cov_x (got shape {c.shape})")
    try:
        np.linalg.cholesky(sz)
    except np.linalg.LinAlgError:
        raise DomainError("cov_z must be symmetric positive definite") from None
    if np.linalg.eigvalsh(0.5 * (sx + sx.T))[0] < -1e-12 * max(1.0, float(np.max(np.abs(sx)))):
        raise DomainError("cov_x must be symmetric positive semi-definite")
    vals, vecs = np.linalg.eigh(0.5 * (sx + sx.T))
    lx = vecs * np.sqrt(np.clip(vals, 0.0, None))  # any A with A Aᵀ = Σx (Σx may be singular)
    lz = np.linalg.cholesky(sz)
    ly = np.linalg.cholesky(sx + sz)
    logdet_ratio = 2.0 * float(np.sum(np.log(np.diag(ly))) - np.sum(np.log(np.diag(lz))))
    fn = partial(_vector_terms, lx=lx, lz=lz, ly_inv=np.linalg.inv(ly), logdet_ratio=logdet_ratio)
    return mean_estimate(fn, n, seed, level=level, workers=workers, chunk=max(1, DEFAULT_CHUNK // len(sx)))


def _noise_var(weights: np.ndarray, server_sigma: float, client_sigmas: np.ndarray) -> float:
    return float(server_sigma ** 2 + np.sum(weights ** 2 * client_sigmas ** 2))


def _aggregate_round(rng: np.random.Generator, size: int, weights: np.ndarray, signal_std: np.ndarray,
                     server_sigma: float, client_sigmas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One coordinate of ``size`` simulated rounds: client params w (N, size), w̄ and w̄_dp (size,)."""
    from dpcalc.sim.scenarios import add_noise, gaussian_clients, weighted_sum

    w = gaussian_clients(rng, size, signal_std)
    w_bar = weighted_sum(weights, w)
    return w, add_noise(rng, w, weights, w_bar, server_sigma=server_sigma, client_sigmas=client_sigmas)


def _cmi_terms(rng: np.random.Generator, size: int, weights: np.ndarray, i: int, signal_std: np.ndarray,
               server_sigma: float, client_sigmas: np.ndarray) -> np.ndarray:
    w, w_dp = _aggregate_round(rng, size, weights, signal_std, server_sigma, client_sigmas)
    tau2 = _noise_var(weights, server_sigma, client_sigmas)
    from dpcalc.sim.scenarios import weighted_sum

    full = weighted_sum(weights, w)
    others = full - weights[i] * w[i]
    r_full = w_dp - full  # w̄_dp − E[w̄_dp | w_i, w^{-i}]
    r_cond = w_dp - others  # w̄_dp − E[w̄_dp | w^{-i}]
    var_cond = tau2 + (weights[i] * signal_std[i]) ** 2
    return np.asarray(-0.5 * r_full * r_full / tau2 + 0.5 * r_cond * r_cond / var_cond
                      + 0.5 * math.log(var_cond / tau2))


def _as_clients(x: ArrayLike, n_clients: int, name: str) -> np.ndarray:
    a = v.nonnegative(name, x)
    if a.ndim == 0:
        return np.full(n_clients, float(a))
    if a.shape != (n_clients,):
        raise DomainError(f"{name} must be a scalar or have one entry per client ({n_clients}; got shape {a.shape})")
    return a


def _weights(weights: ArrayLike) -> np.ndarray:
    return np.atleast_1d(v.vector("weights", np.atleast_1d(v.as_array("weights", weights)), 0.0))


@v.scalar_params
def aggregation_cmi(weights: ArrayLike, i: int, signal_std: ArrayLike, n: int, seed: SeedLike, *,
                    server_sigma: float = 0.0, client_sigmas: ArrayLike = 0.0, dims: float = 1.0,
                    level: float = 0.999, workers: int = 1) -> Estimate:
    """I(w_i; w̄_dp | w^{-i}) in nats of a simulated aggregation (client index ``i`` is 0-based).

    Per coordinate: w_j ~ N(0, signal_std_j²) for every client j, w̄_dp = Σ_j p_j (w_j + σ_j z_j) + σ_s z_0; the term
    is ``log p(w̄_dp | w_i, w^{-i}) − log p(w̄_dp | w^{-i})`` (both Gaussian), averaged and × ``dims``. For
    w_i ~ N(0, C²/d·I) the exact value is ``d/2·ln(1 + p_i²C²/(d·τ²))``, τ² = σ_s² + Σ p_j²σ_j².
    """
    p = _weights(weights)
    s = _as_clients(signal_std, p.size, "signal_std")
    cs = _as_clients(client_sigmas, p.size, "client_sigmas")
    server_sigma = v.scalar("server_sigma", v.nonnegative("server_sigma", server_sigma))
    i = int(v.scalar("i", v.check_range("i", i, 0.0, p.size - 1, integer=True)))
    dims = v.scalar("dims", v.positive("dims", dims))
    if _noise_var(p, server_sigma, cs) <= 0:
        raise DomainError("the aggregate needs positive noise (server_sigma or client_sigmas)")
    fn = partial(_cmi_terms, weights=p, i=i, signal_std=s, server_sigma=float(server_sigma), client_sigmas=cs)
    return mean_estimate(fn, n, seed, level=level, workers=workers, scale=dims,
                         chunk=max(1, DEFAULT_CHUNK // p.size))


def _distortion_terms(rng: np.random.Generator, size: int, weights: np.ndarray, signal_std: np.ndarray,
                      server_sigma: float, client_sigmas: np.ndarray) -> np.ndarray:
    w, w_dp = _aggregate_round(rng, size, weights, signal_std, server_sigma, client_sigmas)
    from dpcalc.sim.scenarios import weighted_sum

    diff = weighted_sum(weights, w) - w_dp
    return np.asarray(diff * diff)


@v.scalar_params
def aggregation_distortion(weights: ArrayLike, n: int, seed: SeedLike, *, signal_std: ArrayLike = 1.0,
                           server_sigma: float = 0.0, client_sigmas: ArrayLike = 0.0, dims: float = 1.0,
                           level: float = 0.999, workers: int = 1) -> Estimate:
    """E‖w̄ − w̄_dp‖² of a simulated aggregation (one coordinate × ``dims``); exact ``dims·(σ_s² + Σ p_j²σ_j²)``."""
    p = _weights(weights)
    server_sigma = v.scalar("server_sigma", v.nonnegative("server_sigma", server_sigma))
    dims = v.scalar("dims", v.positive("dims", dims))
    fn = partial(_distortion_terms, weights=p, signal_std=_as_clients(signal_std, p.size, "signal_std"),
                 server_sigma=server_sigma, client_sigmas=_as_clients(client_sigmas, p.size, "client_sigmas"))
    return mean_estimate(fn, n, seed, level=level, workers=workers, scale=dims,
                         chunk=max(1, DEFAULT_CHUNK // p.size))


# --- privacy loss: hockey-stick δ(ε) and Rényi divergence ------------------------------------------------

class MechanismPair:
    """A pair of output distributions (P, Q) of a mechanism on neighbouring inputs.

    Subclasses implement ``sample_p(rng, size)``, ``log_p(x)``, ``log_q(x)``; the privacy-loss random variable is
    ``L = log p(X) − log q(X)``, X ~ P. Instances of module-level subclasses are picklable (usable with processes).
    """

    def sample_p(self, rng: np.random.Generator, size: int) -> np.ndarray:
        raise NotImplementedError

    def log_p(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def log_q(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def privacy_loss(self, x: np.ndarray) -> np.ndarray:
        return self.log_p(x) - self.log_q(x)

    def proposal(self, eps: float) -> tuple[Callable[[np.random.Generator, int], np.ndarray],
                                            Callable[[np.ndarray], np.ndarray]] | None:
        """An importance-sampling proposal (sampler, log-density) concentrated where L ≈ ε, or None."""
        return None


def _hockey_terms(rng: np.random.Generator, size: int, pair: MechanismPair, eps: float,
                  importance: bool) -> np.ndarray:
    prop = pair.proposal(eps) if importance else None
    if prop is None:
        x = pair.sample_p(rng, size)
        log_w = np.zeros(size)
    else:
        x = prop[0](rng, size)
        log_w = pair.log_p(x) - prop[1](x)
    loss = pair.privacy_loss(x)
    out = np.zeros(size)
    hit = loss > eps
    out[hit] = -np.expm1(eps - loss[hit]) * np.exp(log_w[hit])
    return out


@v.scalar_params
def hockey_stick_delta(pair: MechanismPair, eps: float, n: int, seed: SeedLike, *, importance: bool = True,
                       level: float = 0.999, workers: int = 1) -> Estimate:
    """δ(ε) = E_P[(1 − e^{ε−L})₊] (hockey-stick divergence H_{e^ε}(P‖Q)), with importance sampling if the pair
    offers a proposal (and ``importance``): terms are weighted by p/r under the proposal r."""
    fn = partial(_hockey_terms, pair=pair, eps=float(eps), importance=bool(importance))
    return mean_estimate(fn, n, seed, level=level, workers=workers)


def _renyi_terms(rng: np.random.Generator, size: int, pair: MechanismPair, alpha: float, shift: float) -> np.ndarray:
    x = pair.sample_p(rng, size)
    return np.exp((alpha - 1.0) * pair.privacy_loss(x) - shift)


@v.scalar_params
def renyi_divergence(pair: MechanismPair, alpha: float, n: int, seed: SeedLike, *, shift: float = 0.0,
                     level: float = 0.999, workers: int = 1) -> Estimate:
    """D_α(P‖Q) = ln E_P[e^{(α−1)L}] / (α − 1), α > 1, by sampling from P (CI by the monotone map of the mean's
    CI; ``shift`` rescales the terms by e^{−shift} to avoid overflow). Heavy-tailed for large α: check ``se``."""
    if not alpha > 1:
        raise ValueError("alpha must be > 1")
    m = mean_estimate(partial(_renyi_terms, pair=pair, alpha=float(alpha), shift=float(shift)), n, seed,
                      level=level, workers=workers)

    def tr(v: float) -> float:
        return (math.log(v) + shift) / (alpha - 1.0) if v > 0 else -math.inf

    value = tr(m.value)
    se = m.se / (m.value * (alpha - 1.0)) if m.value > 0 else math.inf
    return Estimate(value, se, tr(m.ci_low), tr(m.ci_high), m.n)


@dataclass(frozen=True)
class GaussianPair(MechanismPair):
    """P = N(mu, σ²), Q = N(0, σ²) (the Gaussian mechanism with sensitivity ``mu``); L ~ N(μ²/2σ², μ²/σ²) under P.

    Exact: δ(ε) = Φ(−ε/m + m/2) − e^ε Φ(−ε/m − m/2), m = μ/σ; D_α = α m²/2.
    """

    mu: float
    sigma: float

    def sample_p(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return self.mu + self.sigma * rng.standard_normal(size)

    def log_p(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(-0.5 * ((x - self.mu) / self.sigma) ** 2)

    def log_q(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(-0.5 * (x / self.sigma) ** 2)

    def proposal(self, eps: float) -> tuple[Callable[[np.random.Generator, int], np.ndarray],
                                            Callable[[np.ndarray], np.ndarray]] | None:
        centre = self.sigma ** 2 * eps / self.mu + self.mu / 2  # where L = ε
        if centre <= self.mu:
            return None
        return partial(_shifted_normal, loc=centre, scale=self.sigma), partial(_normal_logpdf, loc=centre,
                                                                               scale=self.sigma)


def _shifted_normal(rng: np.random.Generator, size: int, loc: float, scale: float) -> np.ndarray:
    return loc + scale * rng.standard_normal(size)


def _normal_logpdf(x: np.ndarray, loc: float, scale: float) -> np.ndarray:
    return np.asarray(-0.5 * ((x - loc) / scale) ** 2)  # same normalising constant as GaussianPair.log_p


@dataclass(frozen=True)
class SubsampledGaussianPair(MechanismPair):
    """Poisson-subsampled Gaussian: P = (1−q)·N(0, σ²) + q·N(1, σ²), Q = N(0, σ²) (sensitivity 1)."""

    q: float
    sigma: float

    def sample_p(self, rng: np.random.Generator, size: int) -> np.ndarray:
        from dpcalc.sim.scenarios import poisson_subsample

        return poisson_subsample(rng, size, self.q).astype(np.float64) + self.sigma * rng.standard_normal(size)

    def log_p(self, x: np.ndarray) -> np.ndarray:
        # log((1−q) e^{−x²/2σ²} + q e^{−(x−1)²/2σ²}) = −x²/2σ² + log1p(q·expm1((2x − 1)/2σ²))
        t = (2.0 * x - 1.0) / (2.0 * self.sigma ** 2)
        with np.errstate(over="ignore"):
            small = np.log1p(self.q * np.expm1(np.minimum(t, 700.0)))
        big = t + math.log(self.q) + np.log1p((1 - self.q) / self.q * np.exp(-np.maximum(t, 0.0)))
        return np.asarray(self.log_q(x) + np.where(t < 30, small, big))

    def log_q(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(-0.5 * (x / self.sigma) ** 2)


@v.scalar_params
def exact_gaussian_delta(eps: float, mu_over_sigma: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018), for checking the estimators: the one privacy
    profile kernel, `dpcalc.accounting.gdp.delta` at μ = Δ/σ."""
    from dpcalc.accounting import gdp

    mu = v.scalar("mu_over_sigma", v.positive("mu_over_sigma", mu_over_sigma))
    return float(gdp.delta(mu, v.scalar("eps", v.as_array("eps", eps))))


__all__ = ["Estimate", "GaussianPair", "MechanismPair", "SubsampledGaussianPair", "aggregation_cmi",
           "aggregation_distortion", "exact_gaussian_delta", "gaussian_channel_mi", "gaussian_vector_mi",
           "hockey_stick_delta", "mean_estimate", "moments", "renyi_divergence"]


# --- MI of a scalar Gaussian channel as a function of the noise level (common random numbers) -----------------

def _curve_terms(rng: np.random.Generator, size: int) -> np.ndarray:
    u = rng.standard_normal(size)
    z = rng.standard_normal(size)
    return np.stack((u * u, z * z, u * z))


@dataclass(frozen=True)
class ChannelCurve:
    """Simulated I(X; X + σZ) per coordinate, X = s·U, as a function of σ from one set of draws (U, Z i.i.d. N(0,1)).

    Each sample's log-density ratio ``log p(y|x) − log p(y) = −Z²/2 + (sU + σZ)²/(2(s²+σ²)) + ½ln(1 + s²/σ²)`` is
    linear in (U², Z², UZ), so the sample mean and its SE are available at every σ from the three sample means and
    their covariance (common random numbers). `solve_noise` finds the σ whose simulated MI equals a target.
    """

    signal_std: float
    moments: Moments
    level: float = 0.999

    def _grad(self, sigma: float) -> tuple[np.ndarray, float]:
        s2, v2 = self.signal_std ** 2, sigma * sigma
        t = s2 + v2
        g = np.array([s2 / (2 * t), -0.5 + v2 / (2 * t), self.signal_std * sigma / t])
        return g, 0.5 * math.log1p(s2 / v2)

    def mi(self, sigma: float) -> float:
        """Simulated per-coordinate MI (nats) at noise std ``sigma``."""
        g, c = self._grad(sigma)
        return float(g @ self.moments.mean + c)

    def se(self, sigma: float) -> float:
        g, _ = self._grad(sigma)
        return math.sqrt(max(float(g @ self.moments.cov_of_mean @ g), 0.0))

    def estimate(self, sigma: float, dims: float = 1.0) -> Estimate:
        """The simulated MI at ``sigma`` × ``dims`` with its CI."""
        return _estimate(dims * self.mi(sigma), dims * self.se(sigma), self.moments.n, self.level)

    def solve_noise(self, target: float, lo: float, hi: float) -> Estimate | None:
        """The σ in [lo, hi] where the simulated MI equals ``target`` (nats per coordinate), with a delta-method CI
        (SE of the MI divided by |dMI/dσ|, the slope of the simulated curve); None if no root is bracketed."""
        from dpcalc.sim.roots import bisect_log

        root = bisect_log(lambda s: self.mi(s) - target, lo, hi)
        if root is None:
            return None
        h = 1e-4 * root
        slope = (self.mi(root + h) - self.mi(root - h)) / (2 * h)
        se = self.se(root) / abs(slope) if slope != 0 else math.inf
        return _estimate(root, se, self.moments.n, self.level)


@v.scalar_params
def gaussian_channel_curve(signal_std: float, n: int, seed: SeedLike, *, level: float = 0.999,
                           workers: int = 1) -> ChannelCurve:
    """Draw n samples (2 Gaussians each) and return the `ChannelCurve` for signal std ``signal_std``."""
    return ChannelCurve(float(signal_std), moments(_curve_terms, n, seed, workers=workers), level)
