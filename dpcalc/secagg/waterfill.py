"""WF-NA, water-filling noise addition (Zhang et al. 2024, Sec. 5.1, Fig. 4): fill the eigenvalues of a user's sampling
covariance up to a floor σ² with Gaussian noise of covariance ``ΔΣ = U max(σ² − Λ, 0) Uᵀ``.

σ² is a floor on the eigenvalues of Σ_i in the **sec5** normalisation (Σ_i = G_iG_iᵀ/(BD)); a sec4 covariance is
divided by B first. The added power ``tr ΔΣ = Σ_k max(σ² − λ_k, 0)`` is compared with isotropic noise ``Kσ²``
reaching the same floor. The block variant (per-block eigendecomposition, cost O(K³/k²)) does not preserve the
bound (erratum E8): it ignores the cross-block covariance, so the true λ_min can stay below σ² — it is offered
only with an `ErratumWarning` and reports the true ``min_eigenvalue_after``.

A diagonal covariance (what a list of eigenvalues gives) is its own eigendecomposition: filled in closed form, O(K)
(3,000 eigenvalues took 85 s of O(K³) eigendecompositions before). Any other covariance is decomposed, O(K³): its
work (`EIGH_SECONDS` × K³) is checked against the one-minute cap before it starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _limits
from dpcalc import _validate as v
from dpcalc._numerics import SAFE_UP
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.secagg._common import eigenvalues_nonneg, symmetric_matrix, to_sec5
from dpcalc.typing import FloatArray

__all__ = ["E7_TEXT", "E8_TEXT", "EIGH_SECONDS", "WaterFilling", "added_power", "isotropic_spectrum", "matrix_bytes",
           "water_filling", "wfna_covariance_change_bound", "wfna_spectrum"]

EIGH_SECONDS = 3e-9
"""CPU seconds per K³ of WF-NA on a dense K × K covariance: ``eigh``, the product U·diag·Uᵀ and ``eigvalsh`` of the
result (1.2 ns·K³ measured at K = 1000 on an idle machine, 5.3 under load, all BLAS threads counted;
``bench/bench_secagg.py``)."""


def matrix_bytes(k: float) -> float:
    """Peak bytes of WF-NA on a K × K covariance: about six K × K float64 arrays (the matrix, its symmetrised copy,
    the eigenvectors, the noise, their sum and a temporary)."""
    return 6 * 8 * float(k) ** 2

E8_TEXT = ("block-wise WF-NA does not preserve the ε bound (Zhang et al. 2024, erratum E8): the per-block fill "
           "ignores the cross-block covariance, so λ_min(Σ + ΔΣ) can stay below σ² (see min_eigenvalue_after)")


@v.named_shapes
def added_power(eigenvalues: ArrayLike, sigma2: ArrayLike) -> float:
    """``tr ΔΣ = Σ_k max(σ² − λ_k, 0)``: the total variance WF-NA adds (eigenvalues in the sec5 normalisation).

    Parameters
    ----------
    eigenvalues : ArrayLike
    sigma2 : ArrayLike

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input (``sigma2``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import added_power
    >>> added_power([0.1, 0.5, 2.0], 1.0)
    1.4
    """
    lam = eigenvalues_nonneg("eigenvalues", eigenvalues)
    s2 = v.scalar("sigma2", v.positive("sigma2", sigma2))
    return float(np.sum(np.maximum(s2 - lam, 0.0)))


def _ranked(index: ArrayLike, eigenvalues: ArrayLike, sigma2: float) -> tuple[FloatArray, float]:
    """λ_k at ``index`` (1-based, largest first) and the validated floor σ² (>= 0; 0 means no added noise)."""
    lam = np.sort(eigenvalues_nonneg("eigenvalues", eigenvalues))[::-1]
    s2 = v.scalar("sigma2", v.check_range("sigma2", sigma2, 0.0))
    k = v.check_range("index", index, 1, float(lam.size), integer=True).astype(np.intp) - 1
    return lam[k], s2


@v.scalar_params
@v.named_shapes
def wfna_spectrum(index: ArrayLike, eigenvalues: ArrayLike, sigma2: float) -> FloatArray:
    """Eigenvalue number ``index`` (1-based, largest first) of Σ_i + ΔΣ after WF-NA: max(λ_k, σ²) (Fig. 4;
    σ² = 0 gives Σ_i alone). Eigenvalues and σ² in the sec5 normalisation.

    Parameters
    ----------
    index : ArrayLike
    eigenvalues : ArrayLike
    sigma2 : float

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import wfna_spectrum
    >>> wfna_spectrum([1, 2, 3], [2.0, 0.5, 0.1], 0.25)
    array([2.  , 0.5 , 0.25])
    """
    lam, s2 = _ranked(index, eigenvalues, sigma2)
    return np.maximum(lam, s2)


@v.scalar_params
@v.named_shapes
def isotropic_spectrum(index: ArrayLike, eigenvalues: ArrayLike, sigma2: float) -> FloatArray:
    """Eigenvalue number ``index`` (1-based, largest first) of Σ_i + σ²I (isotropic noise, Fig. 4): λ_k + σ².

    Parameters
    ----------
    index : ArrayLike
    eigenvalues : ArrayLike
    sigma2 : float

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import isotropic_spectrum
    >>> isotropic_spectrum([1, 2, 3], [2.0, 0.5, 0.1], 0.25)
    array([2.25, 0.75, 0.35])
    """
    lam, s2 = _ranked(index, eigenvalues, sigma2)
    return lam + s2


@dataclass(frozen=True)
class WaterFilling:
    """Result of WF-NA on one covariance (all in the sec5 normalisation).

    ``noise_cov`` = ΔΣ; ``eigenvalues`` of Σ (ascending) and ``filled`` = max(λ, σ²); ``added_power`` = tr ΔΣ;
    ``isotropic_power`` = Kσ²; ``min_eigenvalue_after`` = λ_min(Σ + ΔΣ) (= max(λ_min, σ²) for the exact variant).
    """

    noise_cov: FloatArray
    eigenvalues: FloatArray
    filled: FloatArray
    sigma2: float
    added_power: float
    isotropic_power: float
    power_ratio: float
    min_eigenvalue_after: float
    blocks: int = 1


def _fill(cov: FloatArray, s2: float) -> tuple[FloatArray, FloatArray]:
    from scipy.linalg import eigh

    w, u = eigh(cov, check_finite=False)
    gap = np.maximum(s2 - w, 0.0)
    return (u * gap) @ u.T, w


@v.scalar_params
@v.named_shapes
def water_filling(cov: ArrayLike, sigma2: float, *, normalization: str, B: float | None = None,
                  blocks: int | None = None) -> WaterFilling:
    """WF-NA (Sec. 5.1 steps 3–4) for a covariance ``cov`` given in ``normalization`` ('sec4' needs B).

    ``blocks=k`` splits the K coordinates into k contiguous blocks and fills each block separately (the paper's
    approximate SVD) — with an `ErratumWarning` (E8).

    Parameters
    ----------
    cov : ArrayLike
    sigma2 : float
    normalization : str
    B : float | None
    blocks : int | None

    Returns
    -------
    WaterFilling

    Raises
    ------
    DomainError
        An input (``sigma2``, ``blocks``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import water_filling
    >>> import numpy as np
    >>> water_filling(np.diag([0.05, 0.5]), 0.1, normalization='sec5')
    WaterFilling(noise_cov=array([[0.05, 0.  ],
           [0.  , 0.  ]]), eigenvalues=array([0.05, 0.5 ]), filled=array([0.1, 0.5]), sigma2=0.1, added_power=0.05,
    isotropic_power=0.2, power_ratio=0.25, min_eigenvalue_after=0.1, blocks=1)
    """
    s = symmetric_matrix("cov", cov)
    s = to_sec5(s, normalization=normalization, B=B, name="cov")
    s2 = v.scalar("sigma2", v.positive("sigma2", sigma2))
    k = s.shape[0]
    nblocks = 1
    if blocks is not None and int(blocks) != 1:
        nblocks = int(v.scalar("blocks", v.check_range("blocks", blocks, 1, float(k), integer=True)))
        v.warn(E8_TEXT, ErratumWarning)
    if np.count_nonzero(s) == np.count_nonzero(np.diagonal(s)):  # diagonal: eigenvalues on it, eigenvectors e_k
        d = eigenvalues_nonneg("eigenvalues of cov", np.diagonal(s))
        gap = np.maximum(s2 - d, 0.0)
        noise, w = np.diag(gap), np.sort(d)  # every block of a diagonal matrix is diagonal: the blocks fill the same
        after = float(np.min(d + gap))  # the eigenvalues of the diagonal Σ + ΔΣ
    else:
        _limits.check_seconds(f"cov ({k} × {k})", EIGH_SECONDS * float(k) ** 3,
                              f"~{EIGH_SECONDS * 1e9:g} ns × K³ for its eigendecomposition")
        if nblocks == 1:
            noise, w = _fill(s, s2)
        else:
            noise = np.zeros_like(s)
            for idx in np.array_split(np.arange(k), nblocks):
                sub, _ = _fill(s[np.ix_(idx, idx)], s2)
                noise[np.ix_(idx, idx)] = sub
            w = np.asarray(np.linalg.eigvalsh(s), dtype=np.float64)
        w = eigenvalues_nonneg("eigenvalues of cov", w)
        after = float(np.linalg.eigvalsh(s + noise)[0])
    power = float(np.trace(noise))
    if not np.isfinite(power):
        raise DomainError("cov produced a non-finite noise covariance")
    iso = k * s2
    return WaterFilling(noise, w, np.maximum(w, s2), s2, power, iso, power / iso, after, nblocks)


E7_TEXT = ("eqs. (38), (41), (42) of Zhang et al. 2024 claim −g²g²ᵀ/(BD) ⪯ ΔΣ_{i,Δ} ⪯ g¹g¹ᵀ/(BD), i.e. "
           "λ_max(ΔΣ_{i,Δ} − g¹g¹ᵀ/(BD)) <= 0; the water-filling map is not operator-monotone and this fails "
           "(erratum E7)")


@v.named_shapes
def wfna_covariance_change_bound(B: ArrayLike, C: ArrayLike, D: ArrayLike, *, as_published: bool = False
                                 ) -> float | FloatArray:
    """Upper bound ``√2·C²/(BD)`` on ``‖Σ²₊ − Σ¹₊‖_F`` and hence on ``λ_max(ΔΣ_{i,Δ} − g¹g¹ᵀ/(BD)) =
    λ_max(Σ²₊ − Σ¹₊ − g²g²ᵀ/(BD))`` for neighbouring users (sec5; ‖g‖ <= C). Tight for the Frobenius norm
    (orthogonal g¹, g² with all eigenvalues above the floor).

    Proof: X ↦ σ²I + (X − σ²I)₊ is a projection, 1-Lipschitz in the Frobenius norm, so ‖Σ²₊ − Σ¹₊‖ <=
    ‖g²g²ᵀ − g¹g¹ᵀ‖_F/(BD) <= √2C²/(BD). ``as_published=True`` returns the paper's claim 0 (eq. 38) with an
    `ErratumWarning` (E7: a counterexample gives +0.0907 at B = C = 1, D = 3).

    Parameters
    ----------
    B : ArrayLike
    C : ArrayLike
    D : ArrayLike
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    float | FloatArray

    Raises
    ------
    DomainError
        An input (``B``, ``C``, ``D``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.

    Examples
    --------
    >>> from dpcalc.secagg import wfna_covariance_change_bound
    >>> wfna_covariance_change_bound(32, 1.0, 1000)
    4.4194173824161435e-05
    """
    b = v.check_range("B", B, 1.0)
    c = v.positive("C", C)
    d = v.integer_at_least("D", D, 1)
    if as_published:
        v.warn(E7_TEXT, ErratumWarning)
        return v.scalar_or_array(np.zeros(np.broadcast(b, c, d).shape))
    return v.scalar_or_array(np.sqrt(2.0) * c * c / (b * d) * SAFE_UP)  # outward: a bound (convention 5)
