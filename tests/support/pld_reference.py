"""Exact privacy profiles in mpmath for the PLD tests: the one-step Poisson-subsampled Gaussian (a 1-D integral in
closed form through normal CDFs, checked against quadrature), μ-GDP, the Laplace mechanism, and any finite pair
composed T times (a multinomial sum: randomized response, the optimal composition of Kairouz, Oh & Viswanath 2015).

Every function works at the caller's ``mpmath.mp.dps`` and returns an ``mpf``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import mpmath as mp

__all__ = ["delta_atoms_composed", "delta_gdp", "delta_kov", "delta_laplace", "delta_subsampled_gaussian",
           "eps_from_delta", "eps_subsampled_gaussian", "subsampled_gaussian_quad"]


def delta_subsampled_gaussian(sigma: float, q: float, eps: float, direction: str) -> mp.mpf:
    """δ(ε) of one step: remove P = (1−q)N(0,σ²) + qN(1,σ²) against Q = N(0,σ²); add the swap. The loss is monotone
    in x, so δ = P(L > ε) − e^ε Q(L > ε) with the threshold x_ε in closed form."""
    s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
    if direction == "remove":
        r = (mp.expm1(e) + qq) / qq  # e^z at the threshold
        x = mp.log(r) * s * s + mp.mpf(1) / 2
        p_above = (1 - qq) * mp.ncdf(-x / s) + qq * mp.ncdf((1 - x) / s)
        return p_above - mp.exp(e) * mp.ncdf(-x / s)
    r = (mp.expm1(-e) + qq) / qq
    if r <= 0:
        return mp.mpf(0)
    x = mp.log(r) * s * s + mp.mpf(1) / 2
    q_below = (1 - qq) * mp.ncdf(x / s) + qq * mp.ncdf((x - 1) / s)
    return mp.ncdf(x / s) - mp.exp(e) * q_below


def subsampled_gaussian_quad(sigma: float, q: float, eps: float) -> mp.mpf:
    """The remove direction's δ(ε) = ∫ (f_P − e^ε f_Q)₊ dx by quadrature (an independent check of the closed form)."""
    s, qq, e = mp.mpf(sigma), mp.mpf(q), mp.mpf(eps)
    x0 = mp.log((mp.expm1(e) + qq) / qq) * s * s + mp.mpf(1) / 2

    def f(x: mp.mpf) -> mp.mpf:
        fq = mp.npdf(x, 0, s)
        return (1 - qq) * fq + qq * mp.npdf(x, 1, s) - mp.exp(e) * fq

    return mp.quad(f, [x0, x0 + s, x0 + 10 * s, mp.inf])


def delta_gdp(mu: float, eps: float) -> mp.mpf:
    """δ(ε) of N(μ, 1) against N(0, 1) (Dong, Roth & Su 2022, Cor. 2.13)."""
    m, e = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)


def delta_laplace(eps0: float, eps: float) -> mp.mpf:
    """δ(ε) of the Laplace mechanism with Δ/b = ε₀: 1 − e^{(ε − ε₀)/2} for ε ≤ ε₀, else 0."""
    e0, e = mp.mpf(eps0), mp.mpf(eps)
    return -mp.expm1((e - e0) / 2) if e < e0 else mp.mpf(0)


def delta_atoms_composed(p: Sequence[float], q: Sequence[float], count: int, eps: float) -> mp.mpf:
    """δ(ε) of the finite pair (p, q) composed ``count`` times: Σ over the multinomial counts of the outcomes of
    (P^T − e^ε Q^T)₊ (an outcome with q = 0 has loss +∞ and contributes its whole P-mass)."""
    pm = [mp.mpf(x) for x in p]
    qm = [mp.mpf(x) for x in q]
    k = len(pm)
    e = mp.exp(mp.mpf(eps))
    total = mp.mpf(0)
    for cut in itertools.combinations(range(count + k - 1), k - 1):
        ns = [b - a - 1 for a, b in zip((-1, *cut), (*cut, count + k - 1), strict=True)]
        coef = mp.factorial(count) / mp.fprod(mp.factorial(n) for n in ns)
        pp = mp.fprod(pm[i] ** ns[i] for i in range(k))
        qq = mp.fprod(qm[i] ** ns[i] for i in range(k))
        if pp > e * qq:
            total += coef * (pp - e * qq)
    return total


def eps_from_delta(delta_fn: Callable[[mp.mpf], mp.mpf], delta: float, hi: float = 1.0) -> mp.mpf:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta (δ non-increasing), by bisection to the working precision."""
    d = mp.mpf(delta)
    if delta_fn(mp.mpf(0)) <= d:
        return mp.mpf(0)
    lo, h = mp.mpf(0), mp.mpf(hi)
    while delta_fn(h) > d:
        lo, h = h, 2 * h
    while h - lo > mp.mpf(10) ** -18 * h:  # far below double precision; mp.prec-bit bisection cost 2x more
        mid = (lo + h) / 2
        if delta_fn(mid) > d:
            lo = mid
        else:
            h = mid
    return h


def eps_subsampled_gaussian(sigma: float, q: float, delta: float) -> mp.mpf:
    """ε(δ) of one Poisson-subsampled Gaussian step, the worse of the two directions."""
    def remove(e: mp.mpf) -> mp.mpf:
        return delta_subsampled_gaussian(sigma, q, e, "remove")

    def add(e: mp.mpf) -> mp.mpf:
        return delta_subsampled_gaussian(sigma, q, e, "add")

    return max(eps_from_delta(remove, delta, 1e-3), eps_from_delta(add, delta, 1e-3))


def delta_kov(eps0: float, delta0: float, count: int, eps: float) -> mp.mpf:
    """δ(ε) of ``count`` (ε₀, δ₀)-DP releases under the optimal composition (Kairouz, Oh & Viswanath 2015, Thm. 3.3):
    1 − (1 − δ₀)^T + (1 − δ₀)^T Σᵢ C(T, i)(e^{(T−i)ε₀} − e^{ε + iε₀})₊/(1 + e^{ε₀})^T."""
    e0, d0, e = mp.mpf(eps0), mp.mpf(delta0), mp.mpf(eps)
    s = mp.fsum(mp.binomial(count, i) * max(mp.mpf(0), mp.exp((count - i) * e0) - mp.exp(e + i * e0))
                for i in range(count + 1))
    keep = (1 - d0) ** count
    return 1 - keep + keep * s / (1 + mp.exp(e0)) ** count


# --- compositions of finite lattice PLDs, exactly (the levels near the top first) -----------------------------------


def finite_levels(p: Sequence[float], q: Sequence[float], unit: mp.mpf) -> tuple[mp.mpf, list[mp.mpf], mp.mpf]:
    """(top, masses, p_inf) of a finite pair whose finite losses log(pᵢ/qᵢ) lie on top − m·unit (m = 0, 1, …):
    masses[m] is the P-mass at loss top − m·unit, p_inf the P-mass of the outcomes with Q = 0 (loss +∞)."""
    pm, qm = [mp.mpf(x) for x in p], [mp.mpf(x) for x in q]
    fin = [(mp.log(a) - mp.log(b), a) for a, b in zip(pm, qm, strict=True) if a > 0 and b > 0]
    p_inf = mp.fsum(a for a, b in zip(pm, qm, strict=True) if a > 0 and b == 0)
    top = max(loss for loss, _ in fin)
    masses: list[mp.mpf] = []
    for loss, a in fin:
        m = int(mp.nint((top - loss) / unit))
        assert abs(top - loss - m * unit) <= mp.mpf(10) ** (-mp.mp.dps // 2) * (1 + abs(loss)), "loss off the lattice"
        masses.extend([mp.mpf(0)] * (m + 1 - len(masses)))
        masses[m] += a
    return top, masses, p_inf


def discrete_laplace_levels(t: float, shift: int) -> tuple[mp.mpf, list[mp.mpf], mp.mpf]:
    """(top, masses, 0) of the discrete Laplace pair P(k) ∝ e^{−t|k − Δ|} against Q(k) ∝ e^{−t|k|} (Δ = ``shift``):
    its loss t(|k| − |k − Δ|) is tΔ for k ≥ Δ, −tΔ for k ≤ 0 and t(2k − Δ) between, on the lattice of unit 2t."""
    tt, d = mp.mpf(t), int(shift)
    norm = mp.tanh(tt / 2)  # (1 − e^{−t})/(1 + e^{−t})
    masses = [1 / (1 + mp.exp(-tt))]  # k >= Δ
    masses += [norm * mp.exp(-tt * m) for m in range(1, d)]  # k = Δ − m
    masses.append(mp.exp(-tt * d) / (1 + mp.exp(-tt)))  # k <= 0
    return tt * d, masses, mp.mpf(0)


def _power_series(a: list[mp.mpf], count: int, depth: int) -> list[mp.mpf]:
    """The first ``depth`` coefficients of (Σ aₘ zᵐ)^count (a₀ > 0) by the recurrence of J. C. P. Miller:
    g₀ = a₀ᵀ, n·a₀·gₙ = Σ_{k=1}^{n} ((T + 1)k − n)·aₖ·g_{n−k}."""
    g = [a[0] ** count]
    for n in range(1, depth):
        s = mp.fsum(((count + 1) * k - n) * a[k] * g[n - k] for k in range(1, min(n, len(a) - 1) + 1))
        g.append(s / (n * a[0]))
    return g


def _composed_series(components: Sequence[tuple[tuple[mp.mpf, list[mp.mpf], mp.mpf], int]],
                     depth: int) -> list[mp.mpf]:
    """The composed P-masses of the first ``depth`` levels below the top (products of `_power_series`)."""
    series: list[mp.mpf] = []
    for (_, a, _), count in components:
        power = _power_series(a, count, depth)
        series = power if not series else [mp.fsum(series[i] * power[n - i] for i in range(n + 1))
                                           for n in range(depth)]
    return series


def delta_lattice_composed(components: Sequence[tuple[tuple[mp.mpf, list[mp.mpf], mp.mpf], int]], unit: mp.mpf,
                           eps: float) -> mp.mpf:
    """Exact δ(ε) of the composition of lattice PLDs (as `eps_lattice_composed`): the mass at +∞ plus
    Σ P·(1 − e^{ε − loss}) over the composed losses above ε, found from the top down."""
    e = mp.mpf(eps)
    p_inf = 1 - mp.fprod((1 - p_inf) ** count for (_, _, p_inf), count in components)
    top = mp.fsum(t * count for (t, _, _), count in components)
    full = sum(count * (len(a) - 1) for (_, a, _), count in components) + 1
    depth = int(min(full, max(1, mp.floor((top - e) / unit) + 1)))
    series = _composed_series(components, depth) if top > e else []
    return p_inf + mp.fsum(pn * -mp.expm1(e - (top - n * unit)) for n, pn in enumerate(series))


def eps_lattice_composed(components: Sequence[tuple[tuple[mp.mpf, list[mp.mpf], mp.mpf], int]], unit: mp.mpf,
                         delta: float) -> mp.mpf:
    """Exact ε(δ) (to the working precision) of the composition of ``count`` copies of each lattice PLD
    (`finite_levels`, `discrete_laplace_levels`; all on one ``unit``): +∞ when the mass at loss +∞ is at least δ.
    The composed P-masses are found from the top down (`_power_series`) only as deep as the answer needs; on the
    segment between two composed losses δ(ε) = A − e^ε·B, so ε = log((A − δ)/B) exactly."""
    d = mp.mpf(delta)
    keep = mp.fprod((1 - p_inf) ** count for (_, _, p_inf), count in components)
    p_inf = 1 - keep
    if p_inf >= d:
        return mp.inf
    top = mp.fsum(t * count for (t, _, _), count in components)
    full = sum(count * (len(a) - 1) for (_, a, _), count in components) + 1
    depth = 64
    while True:
        depth = min(depth, full)
        series = _composed_series(components, depth)
        big_a, big_b = p_inf, mp.mpf(0)
        for n, pn in enumerate(series):
            loss = top - n * unit
            below = top - (n + 1) * unit  # δ at the next composed loss down, with the levels 0..n above it
            big_a, big_b = big_a + pn, big_b + pn * mp.exp(-loss)
            if n + 1 == full or below < 0:
                at = big_a - big_b  # δ(0)
                return mp.mpf(0) if at <= d else mp.log((big_a - d) / big_b)
            if big_a - mp.exp(below) * big_b > d:
                return mp.log((big_a - d) / big_b)
        if depth == full:  # pragma: no cover - the loop above returns at the last level
            raise AssertionError("no level found")
        depth *= 4


def rr_pairs(noise: float, buckets: int, relation: str) -> list[tuple[list[mp.mpf], list[mp.mpf]]]:
    """The (P, Q) pairs, one per orientation, of k-ary randomized response (the true bucket with probability 1 − p,
    else a uniform one) from its parameters, at the working precision: replace_one (R(x), R(x')) on the outcomes
    x, x', other; replace_special R(x) against the uniform output, and the swap."""
    p, k = mp.mpf(noise), mp.mpf(buckets)
    hit, miss = 1 - p + p / k, p / k
    if relation == "replace_one":
        other = p * (k - 2) / k
        return [([hit, miss, other], [miss, hit, other])]
    rem = ([hit, 1 - hit], [1 / k, 1 - 1 / k])
    return [rem, (rem[1], rem[0])]


def kov_pair(eps0: float, delta0: float) -> tuple[list[mp.mpf], list[mp.mpf]]:
    """The (ε₀, δ₀) pair of Kairouz, Oh & Viswanath 2015: outcomes (⊤, a, b, ⊥), P = (δ₀, (1 − δ₀)e^ε₀/(1 + e^ε₀),
    (1 − δ₀)/(1 + e^ε₀), 0) and Q the reverse (symmetric: one orientation)."""
    e, d = mp.mpf(eps0), mp.mpf(delta0)
    lo, hi = (1 - d) * mp.exp(e) / (1 + mp.exp(e)), (1 - d) / (1 + mp.exp(e))
    return [d, lo, hi, mp.mpf(0)], [mp.mpf(0), hi, lo, d]


def pair_unit(p: Sequence[mp.mpf], q: Sequence[mp.mpf]) -> mp.mpf:
    """The smallest distance between two distinct finite losses of a pair (the lattice unit of a pair with two or
    three equally spaced losses)."""
    losses = sorted({mp.log(a) - mp.log(b) for a, b in zip(p, q, strict=True) if a > 0 and b > 0})
    gaps = [b - a for a, b in itertools.pairwise(losses) if b - a > mp.mpf(10) ** (-mp.mp.dps // 2)]
    return min(gaps) if gaps else mp.mpf(1)


def delta_laplace_composed(parts: Sequence[tuple[float, int]], eps: float) -> mp.mpf:
    """δ(ε) of a composition of Laplace releases, ``count`` of each ε₀ = Δ/b, exactly (to the working precision).

    One release's loss is ε₀ with P-mass 1/2, −ε₀ with e^{−ε₀}/2 and has density e^{(ℓ − ε₀)/2}/4 on (−ε₀, ε₀). Every
    step either sits at an end or is continuous; the continuous ones' densities are all ∝ e^{ℓ/2}, so their sum has
    density e^{s/2}·Π(e^{−ε₀ᵢ/2}/4)·V(s), V the slice volume of the box Π(−ε₀ᵢ, ε₀ᵢ) at Σℓ = s (inclusion–exclusion:
    Σ_S (−1)^{|S|}(s + Σε₀ − 2Σ_S ε₀)₊^{j−1}/(j − 1)!). δ = Σ over the ways of mass·∫(1 − e^{ε − a − s})₊ ds, a the
    ends' sum; the integral by quadrature between the slice's kinks."""
    e = mp.mpf(eps)
    groups = [(mp.mpf(e0), int(n)) for e0, n in parts]
    total = mp.mpf(0)
    for split in itertools.product(*[[(t, b, n - t - b) for t in range(n + 1) for b in range(n - t + 1)]
                                     for _, n in groups]):
        mass, a, cont = mp.mpf(1), mp.mpf(0), []
        for (e0, n), (t, b, c) in zip(groups, split, strict=True):
            mass *= mp.factorial(n) / (mp.factorial(t) * mp.factorial(b) * mp.factorial(c))
            mass *= (mp.mpf(1) / 2) ** t * (mp.exp(-e0) / 2) ** b * (mp.exp(-e0 / 2) / 4) ** c
            a += (t - b) * e0
            cont += [e0] * c
        if not cont:
            total += mass * max(mp.mpf(0), -mp.expm1(e - a))
            continue
        j, big = len(cont), mp.fsum(cont)
        if a + big <= e:
            continue
        shifts = sorted({mp.fsum(s) for r in range(j + 1) for s in itertools.combinations(cont, r)})

        def vol(s: mp.mpf, cont: list[mp.mpf] = cont, j: int = j, big: mp.mpf = big) -> mp.mpf:
            out = mp.mpf(0)
            for r in range(j + 1):
                for sub in itertools.combinations(cont, r):
                    x = s + big - 2 * mp.fsum(sub)
                    if x > 0:  # (x)₊^{j−1}, with (0)₊⁰ = 0
                        out += (-1) ** r * x ** (j - 1)
            return out / mp.factorial(j - 1)

        lo = max(-big, e - a)
        knots = sorted({lo, big, *[-big + 2 * x for x in shifts if lo < -big + 2 * x < big]})
        total += mass * mp.quad(lambda s, a=a, vol=vol: mp.exp(s / 2) * vol(s) * -mp.expm1(e - a - s), knots)
    return total
