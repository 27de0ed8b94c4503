"""Privacy losses as objects: one step's dominating pair (P, Q) in both orientations, for every mechanism and
sampling scheme the PLD accountant composes.

A `PrivacyLoss` holds two pairs: ``remove`` bounds H_{e^ε}(M(D) ‖ M(D')) and ``add`` bounds
H_{e^ε}(M(D') ‖ M(D)) for every neighbouring (D, D') of its ``relation`` and every ε ≥ 0. A composition takes
every step in the same orientation (the neighbouring pair is fixed across it), so the accountant composes all
``remove`` pairs, all ``add`` pairs, and reports the worse (Zhu, Dong & Wang 2022, Sec. 4). A pair is
``symmetric`` when both orientations have the same PLD (then one is composed).

**Sensitivity convention.** ``sensitivity`` is how far one record's contribution can move the output (e.g. the
clipping norm C of a sum of clipped gradients). Under ``add_remove`` and ``replace_special`` (a record replaced by
a special record that contributes nothing) neighbouring outputs differ by at most that; under ``replace_one``
(a record replaced by any other) by twice that. So ``gaussian(σ, 1, "replace_one")`` is N(2, σ²) against
N(0, σ²), which is dp-accounting 0.6's PLD convention (``pld/privacy_loss_mechanism.py``, REPLACE adjacency).

Pairs (each constructor's docstring says which it uses and why it dominates):

* `NoisePair` — additive noise μ (Gaussian, Laplace, discrete Laplace, discrete Gaussian) at weighted shifts:
  P = Σ aᵢ μ(· − sᵢ), Q = Σ bⱼ μ(· − tⱼ); its privacy loss is monotone in the output.
* `AtomPair` — a finite pair of distributions on outcomes (randomized response, pure and approximate DP).
* `LabelledPair` — a disjoint union: with probability wₖ the label k is shown and pair k is drawn (sampling
  with replacement, where the number of times the record is drawn is revealed: a post-processing forgets it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["RELATIONS", "AtomPair", "LabelledPair", "NoiseKind", "NoisePair", "Pair", "PrivacyLoss", "Relation",
           "approx_dp", "discrete_gaussian", "discrete_laplace", "gaussian", "laplace", "mixture_of_gaussians",
           "poisson", "pure_dp", "randomized_response", "sampled_with_replacement", "sampled_without_replacement",
           "truncated_poisson", "truncation_label"]

Relation = Literal["add_remove", "replace_one", "replace_special"]
RELATIONS: tuple[str, ...] = ("add_remove", "replace_one", "replace_special")
NoiseKind = Literal["gaussian", "laplace", "discrete_laplace", "discrete_gaussian"]


@dataclass(frozen=True)
class NoisePair:
    """P = Σ aᵢ·μ(x − sᵢ) against Q = Σ bⱼ·μ(x − tⱼ) for additive noise μ of ``kind`` and ``scale`` (σ for the
    Gaussians, b for Laplace, the parameter t of e^{−t|x|} for the discrete Laplace). Weights sum to 1."""

    kind: NoiseKind
    scale: float
    p_shifts: tuple[float, ...]
    p_weights: tuple[float, ...]
    q_shifts: tuple[float, ...] = (0.0,)
    q_weights: tuple[float, ...] = (1.0,)

    def swapped(self) -> NoisePair:
        return NoisePair(self.kind, self.scale, self.q_shifts, self.q_weights, self.p_shifts, self.p_weights)

    def mixed(self, gamma: float) -> NoisePair:
        """(γP + (1 − γ)Q, Q)."""
        return NoisePair(self.kind, self.scale, self.p_shifts + self.q_shifts,
                         tuple(gamma * a for a in self.p_weights) + tuple((1 - gamma) * b for b in self.q_weights),
                         self.q_shifts, self.q_weights)


@dataclass(frozen=True)
class AtomPair:
    """Two distributions on finitely many outcomes: P(outcome i) = p[i], Q(outcome i) = q[i]."""

    p: tuple[float, ...]
    q: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.p) != len(self.q) or min(self.p, default=0.0) < 0.0 or min(self.q, default=0.0) < 0.0:
            raise DomainError(f"AtomPair: P and Q must be nonnegative masses on the same outcomes (got {self.p}, "
                              f"{self.q})")

    def swapped(self) -> AtomPair:
        return AtomPair(self.q, self.p)

    def mixed(self, gamma: float) -> AtomPair:
        return AtomPair(tuple(gamma * a + (1 - gamma) * b for a, b in zip(self.p, self.q, strict=True)), self.q)


@dataclass(frozen=True)
class LabelledPair:
    """With probability wₖ the label k is revealed and pair k is drawn: P = Σ wₖ (k, Pₖ), Q = Σ wₖ (k, Qₖ). Its PLD is
    the wₖ-mixture of the parts' PLDs. ``rest`` is the probability of labels left out (their loss counts as +∞)."""

    parts: tuple[tuple[float, Pair], ...]
    rest: float = 0.0

    def swapped(self) -> LabelledPair:
        return LabelledPair(tuple((w, pr.swapped()) for w, pr in self.parts), self.rest)

    def mixed(self, gamma: float) -> LabelledPair:
        return LabelledPair(tuple((w, pr.mixed(gamma)) for w, pr in self.parts), self.rest)


Pair = NoisePair | AtomPair | LabelledPair


@dataclass(frozen=True)
class PrivacyLoss:
    """One step's privacy loss: the dominating pair in each orientation, the relation and how it was built.

    ``noise``/``sensitivity`` are set for additive-noise mechanisms (the sampling transforms need them);
    ``description`` names the mechanism with its parameters (what a table row shows)."""

    description: str
    relation: Relation
    remove: Pair
    add: Pair
    symmetric: bool
    noise: NoisePair | None = field(default=None, repr=False)  # the add/remove base pair (μ(· − Δ), μ)
    sensitivity: float = 0.0
    additive: bool = False  # additive noise (a special record contributes nothing)

    def pairs(self) -> dict[str, Pair]:
        """The orientations the accountant composes: one when the pair is symmetric."""
        return {"remove": self.remove} if self.symmetric else {"remove": self.remove, "add": self.add}


def _relation(relation: str) -> Relation:
    if relation not in RELATIONS:
        raise DomainError(f"relation must be one of {', '.join(RELATIONS)} (got {v.brief(relation)})")
    return relation  # type: ignore[return-value]


def _additive(kind: NoiseKind, scale: float, sensitivity: float, relation: Relation, name: str) -> PrivacyLoss:
    """An additive-noise mechanism: (μ(· − Δ'), μ) with Δ' = Δ under add_remove/replace_special and 2Δ under
    replace_one (the outputs of two neighbours differ by at most Δ' and the noise is symmetric and unimodal, so the
    one-dimensional pair along the difference dominates). Symmetric (x ↦ Δ' − x maps one orientation to the other)."""
    shift = 2.0 * sensitivity if relation == "replace_one" else sensitivity
    pair = NoisePair(kind, scale, (shift,), (1.0,))
    base = NoisePair(kind, scale, (sensitivity,), (1.0,))
    return PrivacyLoss(f"{name}({_fmt(scale)}, sensitivity={_fmt(sensitivity)})", relation, pair, pair, True, base,
                       sensitivity, True)


def _fmt(x: float) -> str:
    return f"{x:.10g}"


def gaussian(sigma: float, sensitivity: float = 1.0, relation: str = "add_remove") -> PrivacyLoss:
    """The Gaussian mechanism with noise standard deviation ``sigma``: (N(Δ', σ²), N(0, σ²)), Δ' = Δ or 2Δ under
    replace_one (module docstring). Exact (μ-GDP with μ = Δ'/σ; Dong, Roth & Su 2022).

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    sensitivity : float
        L2 sensitivity of the released quantity, > 0.
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``sigma``, ``sensitivity``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import gaussian
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = gaussian(1.0)
    >>> loss.description
    'gaussian(1, sensitivity=1)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    17.856586830108032
    """
    s = v.scalar("sigma", v.positive("sigma", sigma))
    d = v.scalar("sensitivity", v.positive("sensitivity", sensitivity))
    return _additive("gaussian", s, d, _relation(relation), "gaussian")


def laplace(scale: float, sensitivity: float = 1.0, relation: str = "add_remove") -> PrivacyLoss:
    """The Laplace mechanism with scale b (density e^{−|x|/b}/(2b)): (Lap(Δ', b), Lap(0, b)); its loss is
    (|x| − |x − Δ'|)/b, atoms at ±Δ'/b and uniform between. Exact.

    Parameters
    ----------
    scale : float
    sensitivity : float
        L2 sensitivity of the released quantity, > 0.
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``scale``, ``sensitivity``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import laplace
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = laplace(1.0)
    >>> loss.description
    'laplace(1, sensitivity=1)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    9.99065585456648
    """
    b = v.scalar("scale", v.positive("scale", scale))
    d = v.scalar("sensitivity", v.positive("sensitivity", sensitivity))
    return _additive("laplace", b, d, _relation(relation), "laplace")


def discrete_laplace(parameter: float, sensitivity: int = 1, relation: str = "add_remove") -> PrivacyLoss:
    """The discrete Laplace mechanism, P(k) ∝ e^{−t|k|} on the integers (dp-accounting's ``parameter`` t), integer
    sensitivity. Exact pair (integer shift Δ'), as for `laplace`.

    Parameters
    ----------
    parameter : float
    sensitivity : int
        L2 sensitivity of the released quantity, > 0.
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``parameter``, ``sensitivity``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import discrete_laplace
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = discrete_laplace(0.5)
    >>> loss.description
    'discrete_laplace(0.5, sensitivity=1)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    4.9988541204293435
    """
    t = v.scalar("parameter", v.positive("parameter", parameter))
    d = v.scalar("sensitivity", v.integer_at_least("sensitivity", sensitivity, 1))
    return _additive("discrete_laplace", t, d, _relation(relation), "discrete_laplace")


def discrete_gaussian(sigma: float, sensitivity: int = 1, relation: str = "add_remove") -> PrivacyLoss:
    """The discrete Gaussian mechanism, P(k) ∝ e^{−k²/(2σ²)} on the integers (Canonne, Kamath & Steinke 2020),
    integer sensitivity. Exact pair (integer shift Δ').

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    sensitivity : int
        L2 sensitivity of the released quantity, > 0.
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``sigma``, ``sensitivity``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import discrete_gaussian
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = discrete_gaussian(2.0)
    >>> loss.description
    'discrete_gaussian(2, sensitivity=1)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    7.495253660227752
    """
    s = v.scalar("sigma", v.positive("sigma", sigma))
    d = v.scalar("sensitivity", v.integer_at_least("sensitivity", sensitivity, 1))
    return _additive("discrete_gaussian", s, d, _relation(relation), "discrete_gaussian")


def mixture_of_gaussians(sigma: float, sensitivities: Sequence[float], probabilities: Sequence[float],
                         relation: str = "add_remove") -> PrivacyLoss:
    """The mixture-of-Gaussians mechanism of Ganesh et al. 2024 (a record's sensitivity is cᵢ with probability pᵢ):
    remove (Σ pᵢ N(cᵢ, σ²), N(0, σ²)), add the swap; their loss is monotone in x (cᵢ ≥ 0). add_remove and
    replace_special only (replace-one has no known tight pair for a random sensitivity).

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    sensitivities : Sequence[float]
    probabilities : Sequence[float]
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``sigma``, ``sensitivities``, ``probabilities``) outside its domain; the one-line message names it and
        the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import mixture_of_gaussians
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = mixture_of_gaussians(1.0, [1.0, 2.0], [0.5, 0.5])
    >>> loss.description
    'mixture_of_gaussians(1, sensitivities=[1.0, 2.0], probabilities=[0.5, 0.5])'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    35.196309948926185
    """
    s = v.scalar("sigma", v.positive("sigma", sigma))
    c = [float(x) for x in v.vector("sensitivities", sensitivities, 0.0)]
    p = [float(x) for x in v.weights("probabilities", probabilities)]
    if len(c) != len(p):
        raise DomainError(f"sensitivities and probabilities must have the same length (got {len(c)} and {len(p)})")
    rel = _relation(relation)
    if rel == "replace_one":
        raise DomainError("mixture_of_gaussians: relation must be add_remove or replace_special (no dominating pair "
                          "under replace_one is known for a random sensitivity)")
    total = math.fsum(p)
    pair = NoisePair("gaussian", s, tuple(c), tuple(x / total for x in p))
    desc = f"mixture_of_gaussians({_fmt(s)}, sensitivities={c}, probabilities={p})"
    return PrivacyLoss(desc, rel, pair, pair.swapped(), len(c) == 1, pair if len(c) == 1 else None,
                       c[0] if len(c) == 1 else 0.0, True)


def randomized_response(noise_parameter: float, num_buckets: int, relation: str = "replace_one") -> PrivacyLoss:
    """k-ary randomized response (dp-accounting's parametrisation): the true bucket with probability 1 − p, else a
    uniform one. replace_one: the pair (R(x), R(x')) restricted to the outcomes x, x', other (exact, symmetric);
    replace_special: R(x) against the uniform output of the special input (exact, asymmetric).

    Parameters
    ----------
    noise_parameter : float
    num_buckets : int
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``noise_parameter``, ``num_buckets``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import randomized_response
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = randomized_response(0.5, 2)
    >>> loss.description
    'randomized_response(0.5, num_buckets=2)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    10.985945293647982
    """
    p = v.scalar("noise_parameter", v.check_range("noise_parameter", noise_parameter, 0.0, 1.0, lo_open=True))
    k = int(v.scalar("num_buckets", v.integer_at_least("num_buckets", num_buckets, 2)))
    rel = _relation(relation)
    desc = f"randomized_response({_fmt(p)}, num_buckets={k})"
    hit, miss = 1.0 - p + p / k, p / k
    if rel == "replace_one":  # "other": p·(k − 2)/k, not 1 − hit − miss (−2.8e-17 at k = 2: a negative mass)
        other = p * (k - 2) / k
        pair = AtomPair((hit, miss, other), (miss, hit, other))
        return PrivacyLoss(desc, rel, pair, pair, True)
    if rel == "replace_special":  # 1 − hit = p(k − 1)/k (1.0 − hit lost 3e-13 of it at p = 3.2e-4, k = 1164: ×2228
        # the composed top loss moved by 7e-10, and the upper end fell below the truth)
        pair = AtomPair((hit, p * (k - 1) / k), (1.0 / k, (k - 1) / k))
        return PrivacyLoss(desc, rel, pair, pair.swapped(), False)
    raise DomainError("randomized_response: relation must be replace_one or replace_special (an added or removed "
                      "record has no bucket)")


def _pure_pair(eps: float, delta: float) -> AtomPair:
    """The (ε, δ) pair of Kairouz, Oh & Viswanath 2015 (eq. 8): outcomes (⊤, a, b, ⊥) with P = (δ, (1−δ)e^ε/(1+e^ε),
    (1−δ)/(1+e^ε), 0), Q the reverse; it dominates every (ε, δ)-DP mechanism (their Thm. 2.1)."""
    lo = -math.expm1(-math.log1p(math.exp(eps)))  # e^ε/(1+e^ε), computed without overflow
    hi = 1.0 / (1.0 + math.exp(eps)) if eps < 700 else 0.0
    return AtomPair((delta, (1 - delta) * lo, (1 - delta) * hi, 0.0), (0.0, (1 - delta) * hi, (1 - delta) * lo, delta))


def pure_dp(epsilon: float, relation: str = "add_remove") -> PrivacyLoss:
    """Any ε-DP release under ``relation``: dominated by randomized response on one bit (Kairouz, Oh & Viswanath
    2015, Thm. 2.1), in both orientations.

    Parameters
    ----------
    epsilon : float
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``epsilon``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import pure_dp
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = pure_dp(0.5)
    >>> loss.description
    'pure_dp(0.5)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    4.9988541204238635
    """
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0, lo_open=True))
    pair = _pure_pair(e, 0.0)
    return PrivacyLoss(f"pure_dp({_fmt(e)})", _relation(relation), pair, pair, True)


def approx_dp(epsilon: float, delta: float, relation: str = "add_remove") -> PrivacyLoss:
    """Any (ε, δ)-DP release under ``relation``: dominated by the four-outcome pair of Kairouz, Oh & Viswanath 2015
    (Thm. 2.1), in both orientations.

    Parameters
    ----------
    epsilon : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    relation : str

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``epsilon``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import approx_dp
    >>> from dpcalc.accounting.pld import epsilon_composed
    >>> loss = approx_dp(0.5, 1e-6)
    >>> loss.description
    'approx_dp(0.5, 1e-06)'
    >>> epsilon_composed([(loss, 10)], 1e-5).eps_upper
    4.999999994852785
    """
    e = v.scalar("epsilon", v.check_range("epsilon", epsilon, 0.0, 700.0))
    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, hi_open=True))
    pair = _pure_pair(e, d)
    return PrivacyLoss(f"approx_dp({_fmt(e)}, {d:.6g})", _relation(relation), pair, pair, True)


def _loss_arg(loss: object, what: str) -> PrivacyLoss:
    if not isinstance(loss, PrivacyLoss):
        raise DomainError(f"{what}: loss must be a privacy loss built by pld.gaussian, pld.laplace, … (got "
                          f"{v.brief(loss)})")
    return loss


def poisson(loss: PrivacyLoss, q: float) -> PrivacyLoss:
    """Poisson subsampling with rate q. add_remove / replace_special: remove (qP + (1 − q)Q, Q), add
    (Q, qP + (1 − q)Q) with (P, Q) the loss's remove pair (Zhu, Dong & Wang 2022, Thm. 8; for additive noise the
    special record contributes nothing, so replace_special is add_remove). replace_one, additive noise only: the
    record is sampled in both neighbours or in neither, so ((1 − q)μ + qμ(· − Δ), (1 − q)μ + qμ(· + Δ)), the two
    outputs the mixtures of the unsampled and the two records' outputs (symmetric).

    Parameters
    ----------
    loss : PrivacyLoss
    q : float
        Sampling probability, in (0, 1].

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``q``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import poisson
    >>> from dpcalc.accounting.pld import epsilon_composed, gaussian
    >>> loss = poisson(gaussian(1.0), 0.01)
    >>> loss.description
    'poisson(gaussian(1, sensitivity=1), q=0.01)'
    >>> epsilon_composed([(loss, 1000)], 1e-5).eps_upper
    1.828593695134646
    """
    loss = _loss_arg(loss, "poisson")
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    desc = f"poisson({loss.description}, q={_fmt(qq)})"
    if loss.relation == "replace_one":
        if loss.noise is None:
            raise DomainError(f"poisson: under replace_one only additive-noise mechanisms are supported (got "
                              f"{loss.description}); use add_remove")
        nz = loss.noise
        d = loss.sensitivity
        pair = NoisePair(nz.kind, nz.scale, (0.0, d), (1 - qq, qq), (0.0, -d), (1 - qq, qq))
        return PrivacyLoss(desc, loss.relation, pair, pair, True)
    if loss.relation == "replace_special" and not loss.additive:
        raise DomainError(f"poisson: under replace_special only additive-noise mechanisms are supported (got "
                          f"{loss.description}); use add_remove")
    base = loss.noise if loss.noise is not None else loss.remove
    rem = base.mixed(qq)
    return PrivacyLoss(desc, loss.relation, rem, rem.swapped(), qq == 1.0 and loss.symmetric)


def sampled_without_replacement(loss: PrivacyLoss, sample_size: int, source_size: int) -> PrivacyLoss:
    """A uniformly random subset of ``sample_size`` out of ``source_size`` records (a shuffled fixed-size batch),
    γ = b/n. replace_one (and replace_special, whose records not in the sample still differ by a replacement):
    remove (γP + (1 − γ)Q, Q), add (Q, γP + (1 − γ)Q), (P, Q) the loss's replace_one pair (Balle, Barthe & Gaboardi
    2018, Thm. 10 via advanced joint convexity; as dominating pairs Zhu, Dong & Wang 2022, Thm. 10). add_remove
    changes the dataset size, which a fixed-size sample of n does not model: refused.

    Parameters
    ----------
    loss : PrivacyLoss
    sample_size : int
    source_size : int

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``sample_size``, ``source_size``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import sampled_without_replacement
    >>> from dpcalc.accounting.pld import epsilon_composed, gaussian
    >>> loss = sampled_without_replacement(gaussian(1.0, relation='replace_one'), 10, 1000)
    >>> loss.description
    'sampled_without_replacement(gaussian(1, sensitivity=1), 10/1000)'
    >>> epsilon_composed([(loss, 100)], 1e-5).eps_upper
    6.4765394370292455
    """
    loss = _loss_arg(loss, "sampled_without_replacement")
    b = int(v.scalar("sample_size", v.integer_at_least("sample_size", sample_size, 1)))
    n = int(v.scalar("source_size", v.integer_at_least("source_size", source_size, 1)))
    if b > n:
        raise DomainError(f"sample_size must be <= source_size (got {b} > {n})")
    base = _replace_one_pair(loss, "sampled_without_replacement")
    g = b / n
    rem = base.mixed(g)
    desc = f"sampled_without_replacement({loss.description}, {b}/{n})"
    return PrivacyLoss(desc, loss.relation, rem, rem.swapped(), False)


def _replace_one_pair(loss: PrivacyLoss, what: str) -> Pair:
    if loss.relation == "add_remove":
        raise DomainError(f"{what}: relation must be replace_one or replace_special (a fixed sample size of a "
                          f"dataset whose size changes is not defined); build the loss with relation='replace_one'")
    if loss.relation == "replace_one":
        return loss.remove
    if loss.noise is None:
        raise DomainError(f"{what}: under replace_special only additive-noise mechanisms are supported (got "
                          f"{loss.description})")
    nz = loss.noise
    return NoisePair(nz.kind, nz.scale, (2.0 * loss.sensitivity,), (1.0,))


#: mass of the binomial count beyond which sampling with replacement's labels are dropped (counted as +∞ loss)
_WR_TAIL = 1e-30


def sampled_with_replacement(loss: PrivacyLoss, sample_size: int, source_size: int) -> PrivacyLoss:
    """``sample_size`` draws with replacement from ``source_size`` records.

    The dominating pair is labelled by the count K ~ Binomial(b, 1/n) of draws of the changed record: given K = k
    and the other b − k draws (whose law is the same for both neighbours), the two outputs are the same noise at
    points k·(x − x') apart, ‖x − x'‖ ≤ Δ' (2Δ under replace_one, Δ under replace_special, whose special record
    contributes nothing); so (N(kΔ'), N(0)) dominates each label (the noise is symmetric and unimodal) and the pair
    Σₖ P(K = k)·(k, μ(· − kΔ')) against Σₖ P(K = k)·(k, μ) dominates the mechanism (revealing K and the other draws
    only helps an adversary: joint convexity of the hockey-stick divergence). This is the group-privacy bound of
    Balle, Barthe & Gaboardi 2018 (Thm. 10) with the Gaussian's exact group profile. It is not tight: an explicit
    pair of neighbours (the others at −Δ, the changed record +Δ against −Δ) gives the unlabelled mixture, whose ε is
    a lower bound on the truth (b = 256 of 60,000, σ = 1.1, 10 steps, δ = 1e-5: truth in [2.49, 10.56]). Counts
    with total probability below 1e-30 are left out and charged as loss +∞. Additive noise, replace_one or
    replace_special.

    Parameters
    ----------
    loss : PrivacyLoss
    sample_size : int
    source_size : int

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``sample_size``, ``source_size``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import sampled_with_replacement
    >>> from dpcalc.accounting.pld import epsilon_composed, gaussian
    >>> loss = sampled_with_replacement(gaussian(1.0, relation='replace_one'), 10, 1000)
    >>> loss.description
    'sampled_with_replacement(gaussian(1, sensitivity=1), 10/1000)'
    >>> epsilon_composed([(loss, 100)], 1e-5).eps_upper
    26.039763058681274
    """
    loss = _loss_arg(loss, "sampled_with_replacement")
    b = int(v.scalar("sample_size", v.integer_at_least("sample_size", sample_size, 1)))
    n = int(v.scalar("source_size", v.integer_at_least("source_size", source_size, 1)))
    _replace_one_pair(loss, "sampled_with_replacement")  # refuses add_remove
    if loss.noise is None or not isinstance(loss.remove, NoisePair):
        raise DomainError(f"sampled_with_replacement: additive-noise mechanisms only (got {loss.description})")
    base = loss.remove
    shift = base.p_shifts[0]  # Δ' of the relation: 2Δ under replace_one, Δ under replace_special
    parts: list[tuple[float, Pair]] = []
    log_p0 = b * math.log1p(-1.0 / n) if n > 1 else -math.inf
    cum = 0.0
    k = 0
    log_pk = log_p0
    while k <= b:
        pk = math.exp(log_pk) if log_pk > -745 else 0.0
        if pk > 0.0:
            parts.append((pk, NoisePair(base.kind, base.scale, (k * shift,), (1.0,))))
            cum += pk
        if 1.0 - cum <= _WR_TAIL or k == b:
            break
        # P(K = k + 1)/P(K = k) = (b − k)/(k + 1)·1/(n − 1)
        log_pk += math.log(b - k) - math.log(k + 1) - (math.log(n - 1) if n > 1 else 0.0)
        k += 1
    rest = max(0.0, 1.0 - math.fsum(w for w, _ in parts))
    pair = LabelledPair(tuple(parts), rest if k < b else 0.0)
    desc = f"sampled_with_replacement({loss.description}, {b}/{n})"
    return PrivacyLoss(desc, loss.relation, pair, pair.swapped(), True)



def truncation_label(q: float, dataset_size: int, max_batch: int) -> tuple[float, float]:
    """(r, γ̄) of truncated Poisson sampling (`truncated_poisson`): r = P(Binomial(n − 1, q) ≥ B), the probability
    that the cut can reach the changed record, and γ̄ = (B/n)·P(Binomial(n, q) ≥ B + 1)/r (rounded up), its chance of
    being in the final batch given that; (0, 0) when B ≥ n.

    Parameters
    ----------
    q : float
        Sampling probability, in (0, 1].
    dataset_size : int
    max_batch : int

    Returns
    -------
    tuple[float, float]
    """
    from scipy.stats import binom

    n, bb = int(dataset_size), int(max_batch)
    r = float(binom.sf(bb - 1, n - 1, q)) if bb < n else 0.0
    if r <= 0.0:
        return 0.0, 0.0
    return r, min(1.0, (bb / n) * float(binom.sf(bb, n, q)) / r * (1.0 + 1e-12))


def truncated_poisson(loss: PrivacyLoss, q: float, dataset_size: int, max_batch: int) -> PrivacyLoss:
    """Poisson sampling at rate q from n = ``dataset_size`` records, the sample cut to a uniformly random subset of
    at most B = ``max_batch`` (dp-accounting 0.6's ``TruncatedSubsampledGaussianDpEvent``; additive noise).

    The label L = [at least B of the n − 1 other records are sampled] has the same law under both neighbours,
    r = P(Binomial(n − 1, q) ≥ B); revealing it only helps an adversary, so the labelled pair below dominates.
    L = 0: the changed record, when sampled, is never cut: the Poisson pair (`poisson`). L = 1: m ≥ B others are
    sampled and the record is in the final batch with probability q·B/(m + 1); in that case it replaces a uniform
    member y of a uniform B-subset of the others, whose law does not depend on m. So given L = 1 the outputs are
    (γ̄A + (1 − γ̄)C, C) under add_remove, (γ̄A + (1 − γ̄)C, γ̄A' + (1 − γ̄)C) under the replacements, with one
    common γ̄ = E[q·B/(m + 1) | m ≥ B] = (B/n)·P(Binomial(n, q) ≥ B + 1)/r and A, C differing by a replacement
    (x in place of y): the fixed-size-sample pair (γ̄μ(· − 2Δ) + (1 − γ̄)μ, μ) (`sampled_without_replacement`)
    dominates it. γ̄ is rounded up (the pair's divergence grows with it). The same construction as dp-accounting's
    ``from_truncated_subsampled_gaussian_mechanism``; B ≥ n (r = 0) is Poisson sampling.

    Parameters
    ----------
    loss : PrivacyLoss
    q : float
        Sampling probability, in (0, 1].
    dataset_size : int
    max_batch : int

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    DomainError
        An input (``q``, ``dataset_size``, ``max_batch``) outside its domain; the one-line message names it and the
        allowed range.

    Examples
    --------
    >>> from dpcalc.accounting.pld import truncated_poisson, gaussian, epsilon_composed
    >>> loss = truncated_poisson(gaussian(1.1), 0.01, 60000, 650)
    >>> r = epsilon_composed([(loss, 100)], 1e-5)
    >>> round(r.eps_lower, 4), round(r.eps_upper, 4)
    (2.6005, 2.6015)
    """
    loss = _loss_arg(loss, "truncated_poisson")
    qq = v.scalar("q", v.check_range("q", q, 0.0, 1.0, lo_open=True))
    n = int(v.scalar("dataset_size", v.integer_at_least("dataset_size", dataset_size, 1)))
    bb = int(v.scalar("max_batch", v.integer_at_least("max_batch", max_batch, 1)))
    if loss.noise is None:
        raise DomainError(f"truncated_poisson: additive-noise mechanisms only (got {loss.description})")
    r, gamma = truncation_label(qq, n, bb)
    untruncated = poisson(loss, qq)
    if r <= 0.0:
        return untruncated
    nz = loss.noise
    cut = NoisePair(nz.kind, nz.scale, (2.0 * loss.sensitivity,), (1.0,)).mixed(gamma)
    rem = LabelledPair(((1.0 - r, untruncated.remove), (r, cut)))
    add = LabelledPair(((1.0 - r, untruncated.add), (r, cut.swapped())))
    desc = f"truncated_poisson({loss.description}, q={_fmt(qq)}, n={n}, max_batch={bb})"
    return PrivacyLoss(desc, loss.relation, rem, add, False)
