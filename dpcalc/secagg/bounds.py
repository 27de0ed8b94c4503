"""RDP bounds of the aggregate update under secure aggregation (Zhang et al. 2024, Theorems 2–4, Table 1, eq. 9, Thm 1).

Adjacency is replace-one inside one user's data set of size D; C is the clipping norm; B the batch/scale
parameter of Gaussian sampling (Assumption 2); N the number of users. All logs are natural (nats).
RDP bounds return +inf (documented: "no guarantee at this order") for orders outside the domain in which the
paper's proof holds, so a grid of orders can be evaluated at once; α <= 1 is an error.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc._repr import short_repr
from dpcalc.accounting import conversion
from dpcalc.accounting.conversion import Method
from dpcalc.errors import DomainError, ErratumWarning, InfeasibleError
from dpcalc.secagg._common import batch, to_sec4
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["E1_TEXT", "E2_TEXT", "NO_GUARANTEE", "TABLE1_LABELS", "TABLE1_ROWS", "DPGuarantee", "Form", "Method",
           "Table1Entry", "Table1Row", "dp_from_rdp", "gaussian_closed_form_eps", "mi_leakage_bound", "optimal_dp",
           "table1", "table1_alpha_max", "table1_entry", "table1_eps", "table1_rdp", "theorem1_delta_threshold",
           "theorem2_alpha_max", "theorem2_rdp", "theorem3_rdp", "theorem4_rdp"]

Form = Literal["simplified", "unsimplified"]
Table1Row = Literal["sgd_iid_iso", "sgd_iid_wfna", "gd_iso", "gd_wfna", "gsgd_iso", "gsgd_wfna"]
TABLE1_ROWS: tuple[str, ...] = ("sgd_iid_iso", "sgd_iid_wfna", "gd_iso", "gd_wfna", "gsgd_iso", "gsgd_wfna")
NO_GUARANTEE = {
    "sgd_iid_wfna": "No DP guarantee: WF-NA fills the eigenvalues of the sampling covariance, and IID sampling has "
                    "discrete (finitely many) aggregate values (Sec. 5.2 / Theorem 1)",
    "gd_wfna": "No DP guarantee: full-batch GD has no sampling noise for WF-NA to complete, so the aggregate noise "
               "is singular or absent (Sec. 5.2 / Theorem 1)",
}

E1_TEXT = ("Table 1 prints the SGD + Gaussian sampling + WF-NA row identical to the isotropic row; Theorem 4 (eq. 35) "
           "has 2αC²/((α−1)BD) and Nσ² − 2αC²/(BD) (erratum E1). The printed row is not proven by the paper")
E2_TEXT = ("Theorem 4's α-range is printed as (1, Nσ²D/(2C²)) without B; the denominator of (35) is positive on "
           "(1, Nσ²BD/(2C²)) (erratum E2)")


def _scale(B: ArrayLike, C: ArrayLike, D: ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
    b = batch(B)
    c = v.positive("C", C)
    d = v.integer_at_least("D", D, 1)
    if np.any(b > d):
        raise DomainError("B must be <= D (a mini-batch cannot exceed the local data set)")
    return b, c, d


def _row(row: object) -> str:
    return v.choice("row", row, TABLE1_ROWS, "a row of Table 1")


def _alpha(alpha: ArrayLike) -> FloatArray:
    return v.check_range("alpha", alpha, 1.0, lo_open=True)


@v.named_shapes
def theorem2_alpha_max(eig_min_sum: ArrayLike, C: ArrayLike, D: ArrayLike, *, normalization: str,
                       B: ArrayLike | None = None) -> FloatOrArray:
    """Upper end ``D·S/C²`` of Theorem 2's order range (1, D·S/C²), S = Σ_i λ_{i,min} in the sec4 normalisation.

    Parameters
    ----------
    eig_min_sum : ArrayLike
    C : ArrayLike
    D : ArrayLike
    normalization : str
    B : ArrayLike | None

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eig_min_sum``, ``C``, ``D``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.secagg import theorem2_alpha_max
    >>> theorem2_alpha_max(0.5, 1.0, 1000, normalization='sec4')
    500.0
    """
    s = to_sec4(v.nonnegative("eig_min_sum", eig_min_sum), normalization=normalization, B=B, name="eig_min_sum")
    c = v.positive("C", C)
    d = v.integer_at_least("D", D, 1)
    return v.scalar_or_array(d * s / (c * c))


@v.named_shapes
@v.documented_inf
def theorem2_rdp(alpha: ArrayLike, eig_min_sum: ArrayLike, B: ArrayLike, C: ArrayLike, D: ArrayLike, *,
                 normalization: str, form: Form = "simplified") -> FloatOrArray:
    """Theorem 2 (eq. 19): RDP ε(α) of the aggregate under Gaussian sampling, from S = Σ_i λ_{i,min}.

    ``ε = (2αBC²/D² + αC²/((α−1)D)) / (S − αC²/D)`` with S in the **sec4** normalisation (Σ_i = G_iG_iᵀ/D); pass
    ``normalization="sec5"`` to give S for Σ_i = G_iG_iᵀ/(BD) (then S_sec4 = B·S). ``form="unsimplified"`` is
    eq. (30), ``2αC²/(D²λ_α) + αC²/(2BD(α−1))·(B/S + 1/λ_α)``, λ_α = S/B − αC²/(BD), which is <= (19).
    Valid for 1 < α < D·S/C²; +inf (no guarantee) for α >= D·S/C². S must be a uniform lower bound over both
    neighbouring data sets (erratum E12).

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1.
    eig_min_sum : ArrayLike
    B : ArrayLike
    C : ArrayLike
    D : ArrayLike
    normalization : str
    form : Form

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eig_min_sum``, ``form``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import theorem2_rdp
    >>> theorem2_rdp(2.0, 5.0, 32, 1.0, 1000, normalization='sec4')
    0.00042577030812327056
    """
    a = _alpha(alpha)
    s = to_sec4(v.nonnegative("eig_min_sum", eig_min_sum), normalization=normalization, B=B, name="eig_min_sum")
    b, c, d = _scale(B, C, D)
    c2 = c * c
    ok = a * c2 / d < s
    simplified = v.choice("form", form, ("simplified", "unsimplified"), "eq. 19 or eq. 30") == "simplified"
    with np.errstate(divide="ignore", invalid="ignore"):
        if simplified:
            eps = (2.0 * a * b * c2 / (d * d) + a * c2 / ((a - 1.0) * d)) / (s - a * c2 / d)
        else:
            lam_a = (s - a * c2 / d) / b
            eps = 2.0 * a * c2 / (d * d * lam_a) + a * c2 / (2.0 * b * d * (a - 1.0)) * (b / s + 1.0 / lam_a)
    return v.scalar_or_array(np.where(ok, eps * SAFE_UP, np.inf))  # outward: an upper bound (convention 5)


@v.named_shapes
@v.documented_inf
def theorem3_rdp(alpha: ArrayLike, eig_star_min_sum: ArrayLike, B: ArrayLike, C: ArrayLike, D: ArrayLike, *,
                 normalization: str, form: Form = "simplified") -> FloatOrArray:
    """Theorem 3 (eq. 31): Theorem 2 with the minimum eigenvalues λ*_{i,min} of the projected covariances
    ``Sᵀ Σ_i S`` (S: K × K* orthonormal basis of the common gradient subspace, Assumption 4). The paper prints the
    condition with unstarred λ (erratum E6) and Σ* without 1/D (E5); both are corrected here. As in Theorem 2,
    +inf (no guarantee) for α >= D·S*/C².

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1.
    eig_star_min_sum : ArrayLike
    B : ArrayLike
    C : ArrayLike
    D : ArrayLike
    normalization : str
    form : Form

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``eig_star_min_sum``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import theorem3_rdp
    >>> theorem3_rdp(2.0, 5.0, 32, 1.0, 1000, normalization='sec4')
    0.00042577030812327056
    """
    v.nonnegative("eig_star_min_sum", eig_star_min_sum)  # named as given here (theorem2_rdp calls it eig_min_sum)
    return theorem2_rdp(alpha, eig_star_min_sum, B, C, D, normalization=normalization, form=form)


@v.named_shapes
@v.documented_inf
def theorem4_rdp(alpha: ArrayLike, N: ArrayLike, sigma2: ArrayLike, B: ArrayLike, C: ArrayLike, D: ArrayLike, *,
                 as_published: bool = False) -> FloatOrArray:
    """Theorem 4 (eq. 35): RDP of Gaussian sampling + WF-NA with eigenvalue floor σ² (sec5 normalisation).

    ``ε = (2αC²/D² + 2αC²/((α−1)BD)) / (Nσ² − 2αC²/(BD))`` for 1 < α < Nσ²BD/(2C²) (positivity of the
    denominator; erratum E2), +inf beyond. ``as_published=True`` uses the printed range α < Nσ²D/(2C²) (without
    B) with an `ErratumWarning`; the value inside that range is the same.

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1.
    N : ArrayLike
    sigma2 : ArrayLike
    B : ArrayLike
    C : ArrayLike
    D : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``N``, ``sigma2``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import theorem4_rdp
    >>> theorem4_rdp(2.0, 10, 0.01, 32, 1.0, 1000)
    0.001291614518147749
    """
    a = _alpha(alpha)
    n = v.integer_at_least("N", N, 1)
    s2 = v.positive("sigma2", sigma2)
    b, c, d = _scale(B, C, D)
    c2 = c * c
    den = n * s2 - 2.0 * a * c2 / (b * d)
    ok = den > 0
    if as_published:
        v.warn(E2_TEXT + "; using the printed range", ErratumWarning)
        ok = ok & (a < n * s2 * d / (2.0 * c2))
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = (2.0 * a * c2 / (d * d) + 2.0 * a * c2 / ((a - 1.0) * b * d)) / den
    return v.scalar_or_array(np.where(ok, eps * SAFE_UP, np.inf))  # outward (convention 5)


@v.named_shapes
@v.documented_inf
def table1_rdp(row: str, alpha: ArrayLike, N: ArrayLike, sigma2: ArrayLike, B: ArrayLike, C: ArrayLike,
               D: ArrayLike, *, as_published: bool = False) -> FloatOrArray:
    """The per-order RDP behind a row of Table 1 (isotropic rows: σ² = per-user noise variance per coordinate;
    WF-NA row: σ² = eigenvalue floor, sec5 normalisation).

    * ``sgd_iid_iso``: ``2αC²/(B²Nσ²)`` (the inner Gaussian; Table 1 then amplifies the DP ε by B/D);
    * ``gd_iso``: ``2αC²/(D²Nσ²)``;
    * ``gsgd_iso``: Theorem 2 with S_sec5 = Nσ² (i.e. S_sec4 = NBσ²);
    * ``gsgd_wfna``: Theorem 4 (eq. 35); ``as_published=True`` gives the row as printed (= ``gsgd_iso``, E1);
    * ``sgd_iid_wfna``, ``gd_wfna``: no DP guarantee (`InfeasibleError` saying so).

    Parameters
    ----------
    row : str
    alpha : ArrayLike
        Rényi order α > 1.
    N : ArrayLike
    sigma2 : ArrayLike
    B : ArrayLike
    C : ArrayLike
    D : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``N``, ``sigma2``) outside its domain; the one-line message names it and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import table1_rdp
    >>> table1_rdp('gsgd_wfna', 2.0, N=10, sigma2=0.01, B=32, C=1.0, D=1000)
    0.001291614518147749
    """
    row = _row(row)
    if row in NO_GUARANTEE:
        raise InfeasibleError(f"Table 1 row {row}: {NO_GUARANTEE[row]}")
    n = v.integer_at_least("N", N, 1)
    s2 = v.positive("sigma2", sigma2)
    if row == "gsgd_wfna" and not as_published:
        return theorem4_rdp(alpha, n, s2, B, C, D)
    if row == "gsgd_wfna":
        v.warn(E1_TEXT + "; returning the printed row", ErratumWarning)
    if row in ("gsgd_iso", "gsgd_wfna"):
        return theorem2_rdp(alpha, n * s2, B, C, D, normalization="sec5")
    a = _alpha(alpha)
    b, c, d = _scale(B, C, D)
    denom = (b if row == "sgd_iid_iso" else d) ** 2
    rdp = 2.0 * a * c * c / (denom * n * s2) * SAFE_UP  # outward (convention 5)
    return v.scalar_or_array(v.finite_result("rdp", rdp, "sigma2 is too small"))


@v.scalar_params
@v.documented_inf
def table1_alpha_max(row: str, N: float, sigma2: float, B: float, C: float, D: float, *,
                     as_published: bool = False) -> float:
    """Upper end of the order range of a Table-1 row: +inf for the Gaussian rows (every order α > 1 is valid).

    Parameters
    ----------
    row : str
    N : float
    sigma2 : float
    B : float
    C : float
    D : float
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    row = _row(row)
    if row in ("gsgd_iso",) or (row == "gsgd_wfna" and as_published):
        return N * B * D * sigma2 / (C * C)
    if row == "gsgd_wfna":
        return N * B * D * sigma2 / (2.0 * C * C)
    return math.inf


# --- RDP → (ε, δ): the accounting core's one conversion (dpcalc.accounting.conversion) -----------------------------

@short_repr
@dataclass(frozen=True)
class DPGuarantee:
    """(ε, δ)-DP from an RDP curve: the best order ``alpha`` and its RDP value, over ``rounds`` rounds."""

    eps: float
    delta: float
    alpha: float
    rdp: float
    method: str
    rounds: int = 1


@v.scalar_params
@v.named_shapes
def dp_from_rdp(alpha: ArrayLike, rdp: ArrayLike, delta: float, *, method: Method = "improved",
                rounds: int = 1) -> DPGuarantee:
    """Best (ε, δ) over an order grid for a per-round RDP curve composed over ``rounds`` rounds (RDP adds up:
    Mironov 2017, Prop. 1). +inf entries (orders outside a bound's domain) are skipped. The conversion is the
    accounting core's (`dpcalc.accounting.conversion.best_over_grid`): ``"improved"`` (Balle et al. 2020, the
    library's default) or ``"lemma1"`` (the paper's Lemma 1, Mironov 2017 Prop. 3). Raises
    `InfeasibleError` if every order is +inf.

    Parameters
    ----------
    alpha : ArrayLike
        Rényi order α > 1.
    rdp : ArrayLike
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    method : Method
    rounds : int

    Returns
    -------
    DPGuarantee

    Raises
    ------
    DomainError
        An input (``delta``, ``rounds``) outside its domain; the one-line message names it and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Examples
    --------
    >>> from dpcalc.secagg import dp_from_rdp
    >>> import numpy as np
    >>> alpha = np.linspace(1.5, 64, 200)
    >>> dp_from_rdp(alpha, 0.05 * alpha, 1e-5)
    DPGuarantee(eps=1.3081382009144766, delta=1e-05, alpha=14.376884422110553, rdp=0.7188442211055277,
    method='improved', rounds=1)
    """
    a = np.atleast_1d(_alpha(alpha))
    if a.ndim != 1:
        raise DomainError(f"alpha must be a 1-D list of orders (got shape {a.shape})")
    r = np.atleast_1d(v._to_float_array("rdp", rdp))  # +inf allowed (an order outside a bound's domain)
    if r.shape != a.shape:
        raise DomainError(f"rdp must have one value per order ({a.size}), got {r.size}")
    if np.any(np.isnan(r)) or np.any(r < 0):
        raise DomainError("rdp must be >= 0 or +inf at every order")
    t = int(v.scalar("rounds", v.integer_at_least("rounds", rounds, 1)))
    d = v.scalar("delta", v.probability("delta", delta))
    eps, i = conversion.best_over_grid(a, r * t, math.log(d), conversion.check_method(method))
    if i < 0:
        raise InfeasibleError("no order of the grid has a finite RDP bound (every alpha is outside the bound's domain)")
    return DPGuarantee(eps, d, float(a[i]), float(r[i] * t), method, t)


@v.scalar_params
@v.named_shapes
def optimal_dp(rdp_of_alpha: Callable[[FloatArray], ArrayLike], delta: float, alpha_max: float = math.inf, *,
               method: Method = "improved", rounds: int = 1) -> DPGuarantee:
    """Best (ε, δ) over the continuous order range (1, alpha_max) for a per-round RDP function: the accounting core's
    continuous-order minimiser (`dpcalc.accounting.conversion.best_over_range`: a 400-point log grid in α − 1,
    then a bounded Brent refinement). Any order gives a valid guarantee, so the returned ε (evaluated at the returned
    α) is always on the safe side; the search only makes it small. ``method`` as in `dp_from_rdp`.

    Parameters
    ----------
    rdp_of_alpha : Callable[[FloatArray], ArrayLike]
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    alpha_max : float
    method : Method
    rounds : int

    Returns
    -------
    DPGuarantee

    Raises
    ------
    DomainError
        An input (``delta``, ``rounds``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import optimal_dp
    >>> optimal_dp(lambda alpha: 0.05 * alpha, 1e-5)
    DPGuarantee(eps=1.3081183429065044, delta=1e-05, alpha=14.305831949640314, rdp=0.7152915974820158,
    method='improved', rounds=1)
    """
    d = v.scalar("delta", v.probability("delta", delta))
    t = int(v.scalar("rounds", v.integer_at_least("rounds", rounds, 1)))
    m = conversion.check_method(method)

    def composed(al: FloatArray) -> FloatArray:
        return np.asarray(rdp_of_alpha(al), dtype=np.float64) * t

    eps, al = conversion.best_over_range(composed, math.log(d), alpha_max, m)
    return DPGuarantee(eps, d, al, float(composed(np.array([al]))[0]), m, t)


@v.named_shapes
def gaussian_closed_form_eps(slope: ArrayLike, delta: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
    """``min_{α>1} aα + log(1/δ)/(α−1) = a + 2√(a log(1/δ))`` at ``α* = 1 + √(log(1/δ)/a)`` for an RDP curve
    ``aα`` (Table 1 rows 1 and 3, Lemma 1 conversion). Returns (ε, α*).

    Parameters
    ----------
    slope : ArrayLike
    delta : ArrayLike
        Δ of (ε, δ)-DP, in (0, 1).

    Returns
    -------
    tuple[FloatOrArray, FloatOrArray]

    Raises
    ------
    DomainError
        An input (``slope``, ``delta``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import gaussian_closed_form_eps
    >>> gaussian_closed_form_eps(0.05, 1e-5)
    (1.5674271293852249, 16.17427129385146)
    """
    a = v.positive("slope", slope)
    big_l = -np.log(v.probability("delta", delta))
    eps = (a + 2.0 * np.sqrt(a * big_l)) * SAFE_UP  # outward (convention 5)
    return v.scalar_or_array(eps), v.scalar_or_array(1.0 + np.sqrt(big_l / a))


# --- Table 1 --------------------------------------------------------------------------------------------------------

TABLE1_LABELS = {
    "sgd_iid_iso": ("SGD + IID sampling", "isotropic Gaussian"),
    "sgd_iid_wfna": ("SGD + IID sampling", "WF-NA"),
    "gd_iso": ("GD (no sampling)", "isotropic Gaussian"),
    "gd_wfna": ("GD (no sampling)", "WF-NA"),
    "gsgd_iso": ("SGD + Gaussian sampling", "isotropic Gaussian"),
    "gsgd_wfna": ("SGD + Gaussian sampling", "WF-NA"),
}


@short_repr
@dataclass(frozen=True)
class Table1Entry:
    """One row of Table 1: ``eps`` (None where there is no DP guarantee), its order ``alpha`` and, for the IID row,
    the pre-amplification ε' of the inner Gaussian; ``note`` explains the row."""

    row: str
    update: str
    noise: str
    guarantee: bool
    eps: float | None
    alpha: float | None
    eps_prime: float | None
    note: str


_TABLE1_NOTES = {
    "sgd_iid_iso": "ε = log(1 + (B/D)(e^{ε'} − 1)), ε' from the Gaussian RDP 2αC²/(B²Nσ²) (δ not scaled: E13)",
    "gd_iso": "Gaussian RDP 2αC²/(D²Nσ²)",
    "gsgd_iso": "Theorem 2 with S_sec5 = Nσ² (S_sec4 = NBσ²)",
    "gsgd_wfna": "Theorem 4, eq. (35) (Table 1 prints the isotropic row here: E1)",
}


def _amplified_iid(eps_prime: float, r: float) -> float:
    """``log(1 + r(e^{ε'} − 1))``, the IID-sampling amplification of Table 1 row 1 (r = B/D), without overflow:
    ``log1p(r·expm1(ε'))`` for ε' <= 700, else ``ε' + log r + log1p((1/r − 1)e^{−ε'})`` (ε' > 709 gave a
    silent inf; the second form cancels where ε' + log r is small, so it is used only where the first overflows)."""
    if eps_prime <= 700.0:
        return math.log1p(r * math.expm1(eps_prime))
    return eps_prime + math.log(r) + math.log1p((1.0 / r - 1.0) * math.exp(-eps_prime))


@v.scalar_params
def table1_entry(row: str, N: float, sigma2: float, delta: float, B: float, C: float, D: float, *,
                 method: Method = "lemma1", rounds: int = 1, as_published: bool = False) -> Table1Entry:
    """One row of Table 1 (see `table1`; ``method="lemma1"`` by default, as the paper's table).

    Parameters
    ----------
    row : str
    N : float
    sigma2 : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    B : float
    C : float
    D : float
    method : Method
    rounds : int
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    Table1Entry

    Raises
    ------
    DomainError
        An input (``N``, ``sigma2``, ``delta``, ``rounds``) outside its domain; the one-line message names it and the
        allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import table1_entry
    >>> table1_entry('gsgd_wfna', N=10, sigma2=0.01, delta=1e-5, B=32, C=1.0, D=1000)
    Table1Entry(row='gsgd_wfna', update='SGD + Gaussian sampling', noise='WF-NA', guarantee=True,
    eps=0.03850992660936058, alpha=511.9798126297591, eps_prime=None, note='Theorem 4, eq. (35) (Table 1 prints the
    isotropic row here: E1)')
    """
    row = _row(row)
    method = conversion.check_method(method)
    n = v.scalar("N", v.integer_at_least("N", N, 1))
    s2 = v.scalar("sigma2", v.positive("sigma2", sigma2))
    b, c, d = (float(x) for x in _scale(B, C, D))
    dl = v.scalar("delta", v.probability("delta", delta))
    t = int(v.scalar("rounds", v.integer_at_least("rounds", rounds, 1)))
    update, noise = TABLE1_LABELS[row]
    if row in NO_GUARANTEE:
        return Table1Entry(row, update, noise, False, None, None, None, NO_GUARANTEE[row])
    if row in ("sgd_iid_iso", "gd_iso") and method == "lemma1":
        slope = 2.0 * c * c / ((b if row == "sgd_iid_iso" else d) ** 2 * n * s2)
        v.finite_result("the RDP slope 2C²/(B²Nσ²)" if row == "sgd_iid_iso" else "the RDP slope 2C²/(D²Nσ²)",
                        np.asarray(slope),
                        f"sigma2 = {s2:g} is too small for C = {c:g} (or C too large)")
        e, al = gaussian_closed_form_eps(slope * t, dl)
        g = DPGuarantee(float(e), dl, float(al), float(slope * t * float(al)), method, t)
    else:
        amax = table1_alpha_max(row, n, s2, b, c, d, as_published=as_published)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ErratumWarning)  # warned once below

            def curve(al: FloatArray) -> ArrayLike:
                return table1_rdp(row, al, n, s2, b, c, d, as_published=as_published)

            try:
                g = optimal_dp(curve, dl, amax, method=method, rounds=t)
            except InfeasibleError as exc:  # a row without a guarantee at these inputs, not a failed table
                return Table1Entry(row, update, noise, False, None, None, None,
                                   f"no guarantee at N = {n:g}, sigma2 = {s2:g}, B = {b:g}, C = {c:g}, D = {d:g}: "
                                   f"{exc}")
    eps, eps_prime, note = g.eps, None, _TABLE1_NOTES[row]
    if row == "sgd_iid_iso":
        eps_prime = eps
        eps = _amplified_iid(eps_prime, b / d) * SAFE_UP  # outward (convention 5)
    if row == "gsgd_wfna" and as_published:
        v.warn(E1_TEXT + "; showing the printed row", ErratumWarning)
        note = "as printed in Table 1 (identical to the isotropic row; erratum E1)"
    return Table1Entry(row, update, noise, True, eps, g.alpha, eps_prime, note)


@v.scalar_params
def table1(N: float, sigma2: float, delta: float, B: float, C: float, D: float, *, method: Method = "lemma1",
           rounds: int = 1, as_published: bool = False) -> tuple[Table1Entry, ...]:
    """Every row of Table 1 (Zhang et al. 2024) at one setting: ε at δ minimised over α, after ``rounds`` rounds.

    σ² is the per-user isotropic noise variance for the isotropic rows and the eigenvalue floor (sec5) for WF-NA.
    ``method="lemma1"`` — the default here, unlike the rest of the library (``"improved"``), because the paper's own
    Table 1 converts with its Lemma 1 — reproduces the paper (closed forms for rows 1 and 3); ``"improved"`` uses the
    accounting core's improved conversion. The SGD + IID row amplifies by q = B/D as printed (δ kept,
    "approximately"; erratum E13). The GSGD + WF-NA row is Theorem 4 (eq. 35); ``as_published=True`` gives the
    printed row (E1, ErratumWarning). Rows without a guarantee have ``eps = None`` and say why.

    Parameters
    ----------
    N : float
    sigma2 : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    B : float
    C : float
    D : float
    method : Method
    rounds : int
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    tuple[Table1Entry, ...]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import table1
    >>> for entry in table1(N=10, sigma2=0.01, delta=1e-5, B=32, C=1.0, D=1000):
    ...     print(entry.row, entry.eps)
    ...
    sgd_iid_iso 0.05092036382815277
    sgd_iid_wfna None
    gd_iso 0.030368542587704446
    gd_wfna None
    gsgd_iso 0.03436420499641972
    gsgd_wfna 0.03850992660936058
    """
    return tuple(table1_entry(r, N, sigma2, delta, B, C, D, method=method, rounds=rounds, as_published=as_published)
                 for r in TABLE1_ROWS)


@v.scalar_params
def table1_eps(row: str, N: float, sigma2: float, delta: float, B: float, C: float, D: float, *,
               method: Method = "lemma1", rounds: int = 1, as_published: bool = False) -> float:
    """ε of one Table-1 row (``method="lemma1"`` by default, as the paper's table); `InfeasibleError` for the
    rows with no DP guarantee (they have no number).

    Parameters
    ----------
    row : str
    N : float
    sigma2 : float
    delta : float
        Δ of (ε, δ)-DP, in (0, 1).
    B : float
    C : float
    D : float
    method : Method
    rounds : int
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    InfeasibleError
        No value of the unknown reaches the target.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import table1_eps
    >>> table1_eps('gsgd_wfna', N=10, sigma2=0.01, delta=1e-5, B=32, C=1.0, D=1000)
    0.03850992660936058
    """
    entry = table1_entry(row, N, sigma2, delta, B, C, D, method=method, rounds=rounds, as_published=as_published)
    if entry.eps is None:
        raise InfeasibleError(f"Table 1 row {row}: {entry.note}")
    return entry.eps


# --- eq. (9), Theorem 1 ---------------------------------------------------------------------------------------------

@v.named_shapes
def mi_leakage_bound(c_const: ArrayLike, d: ArrayLike, N: ArrayLike, B: ArrayLike) -> FloatOrArray:
    """Eq. (9) (Elkordy et al. 2022): ``I_priv <= c·d/((N−1)B) + (d/2)·log(N/(N−1))`` nats, N >= 2.

    ``c_const`` is the unspecified positive constant of that paper (not the clipping norm), ``d`` the model size.
    Assumes IID data and independent whitened components. ``log(N/(N−1))`` is computed as ``−log1p(−1/N)``.

    Parameters
    ----------
    c_const : ArrayLike
    d : ArrayLike
    N : ArrayLike
    B : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``c_const``, ``d``, ``N``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import mi_leakage_bound
    >>> mi_leakage_bound(1.0, 10, 10, 32)
    0.5615248005113819
    """
    cc = v.nonnegative("c_const", c_const)
    dd = v.positive("d", d)
    n = v.check_range("N", N, 2.0, integer=True)
    b = batch(B)
    return v.scalar_or_array((cc * dd / ((n - 1.0) * b) - 0.5 * dd * np.log1p(-1.0 / n)) * SAFE_UP)  # outward


@v.named_shapes
def theorem1_delta_threshold(sampling: str, B: ArrayLike, D: ArrayLike) -> FloatOrArray:
    """Theorem 1's δ threshold Pr[w_ij ≠ 0]: B/D for IID sampling, 1 for Gaussian sampling (footnote 1).

    If a replaced gradient leaves the span of all users' gradients, no (ε, δ)-DP holds for δ < this threshold
    (strictly less: erratum E11).

    Parameters
    ----------
    sampling : str
    B : ArrayLike
    D : ArrayLike

    Returns
    -------
    FloatOrArray
        A float for scalar inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``sampling``, ``D``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import theorem1_delta_threshold
    >>> theorem1_delta_threshold('iid', 32, 1000)
    0.032
    """
    b, d = batch(B), v.integer_at_least("D", D, 1)
    if np.any(b > d):
        raise DomainError("B must be <= D (a mini-batch cannot exceed the local data set)")
    if v.choice("sampling", sampling, ("iid", "gaussian")) == "iid":
        return v.scalar_or_array(b / d)
    return v.scalar_or_array(np.ones(np.broadcast(b, d).shape))
