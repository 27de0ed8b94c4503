"""High-precision (mpmath) reference values shared by the verification recipes and the tests — one oracle each.

Independent of the library's float64 kernels: every quantity is evaluated from its defining formula with mpmath at
``dps`` digits (default 40), raising the working precision where a subtraction cancels, and every inverse is a
bracketed mpmath root of the oracle forward map (certified by a sign change), never the library's own root.

* `gaussian_log_delta` — log δ(ε; μ) of the Gaussian privacy profile (Balle & Wang 2018 Thm 8; Dong et al.
  2022 Cor. 2.13): ``δ = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)``, with ``log1p(−(Φ(−a) + e^ε Φ(b)))`` as δ → 1;
* `gaussian_eps`, `gaussian_mu` — its inverses in ε and μ;
* `zcdp_eps`, `zcdp_order`, `zcdp_rho` — ρ-zCDP → (ε, δ) (Canonne, Kamath & Steinke 2020
  Prop. 12, continuous α) and back;
* `rdp_log_a` — log A_α of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019): the exact
  binomial sum at integer α, mpmath quadrature of the defining integral at fractional α;
* `rdp_eps` — ε at δ of T compositions at one RDP order (improved conversion, Balle et al. 2020 Thm 21);
* `root` — the bracketed mpmath root finder the inverses use (`dpcalc._roots_mp`).

mpmath is imported inside the functions; precision is set with ``mpmath.workdps`` (no global state).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dpcalc._roots_mp import DPS, root

__all__ = ["DPS", "gaussian_delta", "gaussian_eps", "gaussian_log_delta", "gaussian_mu", "rdp_eps", "rdp_log_a",
           "root", "subsampled_rdp", "zcdp_eps", "zcdp_order", "zcdp_rho"]


def _mp() -> Any:
    import mpmath

    return mpmath


# --- Gaussian privacy profile -----------------------------------------------------------------------------------

def gaussian_log_delta(eps: float, mu: float, dps: int = DPS) -> Any:
    """log δ(ε; μ) at ``dps`` significant digits (the precision is raised until the difference is resolved)."""
    mp = _mp()
    work = dps + 10
    for _ in range(12):
        with mp.workdps(work):
            e, m = mp.mpf(eps), mp.mpf(mu)
            a = m / 2 - e / m
            b = -m / 2 - e / m
            tail = mp.exp(e) * mp.ncdf(b)
            head = mp.ncdf(a)
            one_minus = mp.ncdf(-a) + tail  # 1 − δ, a sum of positive terms
            if one_minus < mp.mpf(0.5):
                return +mp.log1p(-one_minus)
            d = head - tail
            if d > 0:
                lost = float(mp.log10(head / d))  # digits cancelled by the subtraction
                if lost < work - dps - 5:
                    return +mp.log(d)
                work = int(dps + lost + 20)
            else:
                work *= 2
    raise ArithmeticError(f"gaussian_log_delta did not resolve at eps={eps!r}, mu={mu!r}")


def gaussian_delta(eps: float, mu: float, dps: int = DPS) -> Any:
    """δ(ε; μ) of the Gaussian privacy profile (see `gaussian_log_delta`)."""
    mp = _mp()
    with mp.workdps(dps):
        return mp.exp(gaussian_log_delta(eps, mu, dps))


def _expand(f: Callable[[Any], Any], x0: float, want_positive_at_hi: bool) -> tuple[float, float]:
    """A bracket [lo, hi] around the root of a monotone f, grown geometrically from ``x0`` > 0 (first by factors
    1 ± 1e-12, so a good guess gives a tight bracket; the sign change is what certifies it, not the guess)."""
    x0 = max(x0, 1e-300)
    lo = hi = x0
    step = 1e-12
    for _ in range(4000):
        if (f(hi) > 0) == want_positive_at_hi:
            break
        lo = max(lo, hi)
        hi = x0 * (1.0 + step) if step < 1.0 else hi * 2.0
        step *= 8.0
    step = 1e-12
    for _ in range(4000):
        if (f(lo) > 0) != want_positive_at_hi:
            break
        hi = min(hi, lo)
        lo = x0 / (1.0 + step) if step < 1.0 else lo / 2.0
        step *= 8.0
    return lo, hi


def gaussian_eps(mu: float, log_delta: float, dps: int = DPS, guess: float | None = None) -> Any:
    """ε(μ, δ): the root of log δ(ε; μ) = log δ (0 when δ(0; μ) <= δ)."""
    mp = _mp()
    with mp.workdps(dps):
        target = mp.mpf(log_delta)
        if gaussian_log_delta(0.0, mu, dps) <= target:
            return mp.mpf(0)

        def f(e: Any) -> Any:  # decreasing in ε
            return gaussian_log_delta(e, mu, dps) - target

        g = guess if guess and guess > 0 else max(mu * mu / 2 + mu * math.sqrt(2 * max(-log_delta, 1.0)), 1e-30)
        lo, hi = _expand(lambda e: -f(e), g, True)
        return root(f, lo, hi, dps=dps)


def gaussian_mu(eps: float, log_delta: float, dps: int = DPS, guess: float | None = None) -> Any:
    """μ(ε, δ): the root in μ of log δ(ε; μ) = log δ (δ(ε; μ) increases with μ)."""
    mp = _mp()
    with mp.workdps(dps):
        target = mp.mpf(log_delta)

        def f(m: Any) -> Any:
            return gaussian_log_delta(eps, m, dps) - target

        g = guess if guess and guess > 0 else 1.0
        lo, hi = _expand(f, g, True)
        return root(f, lo, hi, dps=dps)


# --- zCDP → (ε, δ) ------------------------------------------------------------------------------------------------

def zcdp_order(rho: float, log_delta: float, dps: int = DPS) -> Any:
    """The α > 1 minimising ``ρα + log1p(−1/α) − (log δ + log α)/(α − 1)``: the root of
    ``ρ(α − 1)² + log α + log δ = 0`` (the derivative's numerator; increasing in α)."""
    mp = _mp()
    with mp.workdps(dps):
        r, ld = mp.mpf(rho), mp.mpf(log_delta)

        def g(x: Any) -> Any:  # x = α − 1
            return r * x * x + mp.log1p(x) + ld

        hi = mp.mpf(1)
        while g(hi) <= 0:
            hi *= 4
        return 1 + root(g, mp.mpf(10) ** (-300), hi, dps=dps)


def zcdp_eps(rho: float, log_delta: float, dps: int = DPS) -> Any:
    """ε of ρ-zCDP at δ, CKS 2020 Prop. 12 minimised over continuous α, clamped at 0; 0 when the
    Bretagnolle–Huber bound δ >= √(1 − e^{−ρ}) holds (as in `dpcalc.accounting.zcdp.eps_from_rho`)."""
    mp = _mp()
    with mp.workdps(dps):
        r, ld = mp.mpf(rho), mp.mpf(log_delta)
        if r == 0 or mp.exp(2 * ld) + mp.expm1(-r) >= 0:
            return mp.mpf(0)
        a = zcdp_order(rho, log_delta, dps)
        eps = r * a + mp.log1p(-1 / a) - (ld + mp.log(a)) / (a - 1)
        return max(eps, mp.mpf(0))


def zcdp_rho(eps: float, log_delta: float, dps: int = DPS) -> Any:
    """The ρ with `zcdp_eps` (ρ, δ) = ε (ε > 0), by one root in the optimal order instead of a root of a root:
    along the optimum, ``ρ = −(log α + log δ)/(α − 1)²`` (the stationarity condition of `zcdp_order`) falls
    from +∞ to 0 as α runs over (1, 1/δ), so ε(α) there is monotone and its root gives ρ. Where that ρ lies in the
    Bretagnolle–Huber region (ε clamped to 0 there), the nested root of `zcdp_eps` is used instead."""
    mp = _mp()
    with mp.workdps(dps):
        e, ld = mp.mpf(eps), mp.mpf(log_delta)

        def rho_at(x: Any) -> Any:  # x = α − 1
            return -(mp.log1p(x) + ld) / (x * x)

        def f(x: Any) -> Any:  # decreasing in x
            lx = mp.log1p(x)  # log α; log1p(−1/α) = log x − log α (no log1p(−1) as x → 0)
            return rho_at(x) * (1 + x) + mp.log(x) - lx - (ld + lx) / x - e

        x = root(f, mp.mpf(10) ** (-300), mp.expm1(-ld) * (1 - mp.mpf(10) ** (-dps)), dps=dps)
        rho = rho_at(x)
        if mp.exp(2 * ld) + mp.expm1(-rho) < 0:
            return rho
        return root(lambda r: zcdp_eps(r, log_delta, dps) - e, mp.mpf(10) ** (-300), rho, dps=dps)


# --- RDP of the Poisson-subsampled Gaussian -----------------------------------------------------------------------

def rdp_log_a(q: float, sigma: float, alpha: float, dps: int = DPS) -> Any:
    """log A_α: the exact binomial sum at integer α, else mpmath quadrature of 1 + E[(1 + qX)^α − 1 − αqX] with
    X = e^{(2z−1)/(2σ²)} − 1, z ~ N(0, σ²) (E X = 0; the integrand is non-negative)."""
    mp = _mp()
    with mp.workdps(dps + 10):
        qq, s = mp.mpf(q), mp.mpf(sigma)
        if float(alpha).is_integer():
            k_max = int(alpha)
            terms = [mp.binomial(k_max, k) * qq**k * (1 - qq) ** (k_max - k) * mp.expm1(mp.mpf(k * k - k) / (2 * s * s))
                     for k in range(2, k_max + 1)]
            return +mp.log1p(mp.fsum(terms))
        a = mp.mpf(alpha)

        def f(z: Any) -> Any:
            y = qq * mp.expm1((2 * z - 1) / (2 * s * s))
            return mp.npdf(z, 0, s) * (mp.expm1(a * mp.log1p(y)) - a * y)

        # Fast path: Gauss-Legendre on [−40σ, 0, α, α + 40σ]. The dropped tails are below e^{−600} relative (the
        # integrand is at most (1 + α)·N(0, σ²) left of −40σ and 2^α·q^α e^{(α²−α)/(2σ²)}·N(α, σ²) right of
        # α + 40σ), far under 10^{−dps} for α <= 256. Accepted only when mpmath's error estimate is below
        # 10^{−dps} of the value; else the slower tanh-sinh over the original ten breakpoints (the same integral).
        lo, hi = -40 * s, max(a, mp.mpf(1)) + 40 * s
        val, err = mp.quad(f, sorted({lo, mp.mpf(0), a, hi}), method="gauss-legendre", error=True)
        if val > 0 and err <= mp.mpf(10) ** (-dps) * val:
            return +mp.log1p(val)
        pts = sorted({-mp.inf, -20 * s, -5 * s, mp.mpf(0), mp.mpf(0.5), a - 5 * s, a, a + 5 * s, a + 20 * s,
                      mp.inf})
        return +mp.log1p(mp.quad(f, pts))


def subsampled_rdp(alpha: float, q: float, sigma: float, dps: int = DPS) -> Any:
    """RDP of the Poisson-subsampled Gaussian at order α: log A_α/(α − 1)."""
    mp = _mp()
    with mp.workdps(dps):
        return rdp_log_a(q, sigma, alpha, dps) / (mp.mpf(alpha) - 1)


def rdp_eps(q: float, sigma: float, steps: float, delta: float, alpha: float, dps: int = DPS) -> Any:
    """ε at δ after ``steps`` Poisson-subsampled Gaussian steps, at the one order α: the improved conversion
    ``T·RDP(α) + log1p(−1/α) − (log δ + log α)/(α − 1)`` (Balle et al. 2020 Thm 21; Canonne, Kamath & Steinke
    2020 Prop. 12), clamped at 0, and 0 where the Bretagnolle–Huber bound ``δ² + e^{−T·RDP(α)} >= 1`` holds —
    the per-order term of ``dpcalc.accounting.rdp.eps_from_curve`` (the accountant's ε is its minimum over the
    grid)."""
    mp = _mp()
    with mp.workdps(dps):
        r = mp.mpf(steps) * subsampled_rdp(alpha, q, sigma, dps)
        a, d = mp.mpf(alpha), mp.mpf(delta)
        if d * d + mp.expm1(-r) >= 0:
            return mp.mpf(0)
        return max(r + mp.log1p(-1 / a) - (mp.log(d) + mp.log(a)) / (a - 1), mp.mpf(0))
