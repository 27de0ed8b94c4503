"""From per-sample gradients to ε (Zhang et al. 2024, eq. 16, Sec. 5.1, Theorem 1, Theorem 2).

A user's per-sample clipped gradients form a K × D matrix ``G`` (one column per sample, ‖column‖ <= C).
Second moment (uncentred, *not* ``np.cov``; erratum E14): ``G Gᵀ/D`` (sec4) or ``G Gᵀ/(BD)`` (sec5).
Eigenvalues are taken from the smaller of ``G Gᵀ`` (K × K) and ``Gᵀ G`` (D × D): the nonzero ones coincide, and
K − D zeros are appended when D < K (then Σ is singular and Theorem 2 gives nothing: Assumption 3 fails).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError
from dpcalc.secagg._common import batch, check_normalization
from dpcalc.secagg.bounds import FloatOrArray, Form, theorem2_alpha_max, theorem2_rdp
from dpcalc.secagg.divergence import Divergence, renyi_gaussian
from dpcalc.secagg.waterfill import water_filling
from dpcalc.typing import FloatArray

__all__ = ["CLIP_RTOL", "AggregatePair", "GradientRDP", "SpanCheck", "aggregate_covariance", "check_clipped",
           "eigenvalues", "exact_aggregate_divergence", "gradient_list", "gradient_subspace", "gradients",
           "load_gradients", "projected_eigenvalues", "second_moment", "span_check", "theorem2_from_gradients"]

#: Relative slack on ‖g‖ <= C (round-off of the clipping itself).
CLIP_RTOL = 1e-9


@v.named_shapes
def gradients(name: str, value: ArrayLike) -> FloatArray:
    """A finite K × D gradient matrix (one column per sample).

    Parameters
    ----------
    name : str
    value : ArrayLike

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    g = v.as_array(name, value)
    if g.ndim != 2 or g.shape[0] < 1 or g.shape[1] < 1:
        raise DomainError(f"{name} must be a K × D matrix (model dimension × samples) (got shape {g.shape})")
    return g


def gradient_list(name: str, value: object) -> list[FloatArray]:
    """A non-empty list of K × D gradient matrices (one per user) with the same K and D, named ``name[i]``.

    Parameters
    ----------
    name : str
    value : object

    Returns
    -------
    list[FloatArray]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray) or len(value) == 0:
        raise DomainError(f"{name} must be a non-empty list of K × D gradient matrices (one per user)")
    mats = [gradients(f"{name}[{i}]", g) for i, g in enumerate(value)]
    for i, m in enumerate(mats):
        if m.shape != mats[0].shape:
            raise DomainError(f"{name}[{i}] has shape {m.shape}; every user's matrix must be {mats[0].shape}")
    return mats


def load_gradients(path: str | Path) -> list[FloatArray]:
    """Per-sample gradients from a file (``.npy`` or a text table): K × D (one user) or N × K × D (N users, .npy).

    Read by the shared reader `dpcalc.files.read_numbers` (no pickles; one-line errors).

    Parameters
    ----------
    path : str | Path

    Returns
    -------
    list[FloatArray]

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import load_gradients
    >>> import os, tempfile
    >>> import numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), 'g.npy')
    >>> np.save(path, np.array([[0.6, 0.0, 0.3], [0.0, 0.8, 0.3]]))
    >>> load_gradients(path)
    [array([[0.6, 0. , 0.3],
           [0. , 0.8, 0.3]])]
    """
    from dpcalc import files

    arr = files.read_numbers("gradients", path)
    if arr.ndim == 2:
        return [gradients(str(path), arr)]
    if arr.ndim == 3:
        return [gradients(f"{path}[{i}]", a) for i, a in enumerate(arr)]
    raise DomainError(f"gradients: {str(path)!r} must be K × D or N × K × D (got shape {arr.shape})")


@v.scalar_params
def check_clipped(name: str, g: FloatArray, C: float) -> None:
    """Every column has norm <= C (clip before, as Assumption 1 requires).

    Parameters
    ----------
    name : str
    g : FloatArray
    C : float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    norms = np.sqrt(np.einsum("ij,ij->j", g, g))
    j = int(np.argmax(norms))
    if norms[j] > C * (1.0 + CLIP_RTOL):
        raise DomainError(f"{name}: column {j + 1} has norm {norms[j]:.6g} > C = {C:g}; clip the per-sample "
                          f"gradients to norm C first (Assumption 1)")


@v.scalar_params
@v.named_shapes
def second_moment(G: ArrayLike, *, normalization: str, B: float | None = None) -> FloatArray:
    """Σ = G Gᵀ/D (``"sec4"``, eq. 16) or G Gᵀ/(BD) (``"sec5"``, Sec. 5.1), K × K, uncentred.

    Parameters
    ----------
    G : ArrayLike
    normalization : str
    B : float | None

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import second_moment
    >>> import numpy as np
    >>> second_moment(np.array([[0.6, 0.0, 0.3], [0.0, 0.8, 0.3]]), normalization='sec4')
    array([[0.15      , 0.03      ],
           [0.03      , 0.24333333]])
    """
    g = gradients("G", G)
    check_normalization(normalization)
    d = g.shape[1]
    scale = float(d) if normalization == "sec4" else float(_need_b(B)) * d
    return (g @ g.T) / scale


def _need_b(B: float | None) -> float:
    if B is None:
        raise DomainError("B is required for the sec5 normalisation G Gᵀ/(B D)")
    return float(batch(B))


@v.scalar_params
@v.named_shapes
def eigenvalues(G: ArrayLike, *, normalization: str, B: float | None = None, smallest_only: bool = False
                ) -> FloatArray:
    """Eigenvalues (ascending, >= 0) of the second moment of ``G`` in ``normalization``; K of them.

    ``smallest_only=True`` returns just λ_min (cheaper: a partial eigendecomposition).

    Parameters
    ----------
    G : ArrayLike
    normalization : str
    B : float | None
    smallest_only : bool

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import eigenvalues
    >>> import numpy as np
    >>> eigenvalues(np.array([[0.6, 0.0, 0.3], [0.0, 0.8, 0.3]]), normalization='sec4')
    array([0.14118894, 0.25214439])
    """
    from scipy.linalg import eigh

    g = gradients("G", G)
    check_normalization(normalization)
    k, d = g.shape
    scale = float(d) if normalization == "sec4" else _need_b(B) * d
    if d < k:  # Σ has rank <= D < K: λ_min = 0 and the nonzero eigenvalues are those of GᵀG
        if smallest_only:
            return np.zeros(1)
        w = eigh(g.T @ g / scale, eigvals_only=True, check_finite=False)
        return np.concatenate([np.zeros(k - d), np.maximum(w, 0.0)])
    m = g @ g.T / scale
    if smallest_only:
        w = eigh(m, eigvals_only=True, subset_by_index=[0, 0], check_finite=False)
    else:
        w = eigh(m, eigvals_only=True, check_finite=False)
    return np.maximum(w, 0.0)  # G Gᵀ is PSD: negative values are round-off


@dataclass(frozen=True)
class GradientRDP:
    """Theorem 2 from data: per-user λ_min (sec4), their sum S, the order range and ε_RDP at the given orders."""

    eig_min_sec4: FloatArray
    eig_min_sum_sec4: float
    alpha_max: float
    alpha: FloatOrArray
    rdp: FloatOrArray
    K: int
    D: int


@v.scalar_params
@v.named_shapes
def theorem2_from_gradients(G_users: Sequence[ArrayLike], alpha: ArrayLike, B: float, C: float, *,
                            form: Form = "simplified") -> GradientRDP:
    """Theorem 2 from per-user gradient matrices (each K × D, same K and D, columns clipped to C).

    λ_{i,min} of Σ_i = G_iG_iᵀ/D (sec4) per user, S = Σ_i λ_{i,min}, then eq. (19) (or (30)). The λ_min of the
    neighbouring data set is not known here; Theorem 2 needs S to bound both (erratum E12). ``rdp`` is +inf (no
    guarantee) at orders α >= ``alpha_max``, as in `theorem2_rdp`.

    Parameters
    ----------
    G_users : Sequence[ArrayLike]
    alpha : ArrayLike
        Rényi order α > 1.
    B : float
    C : float
    form : Form

    Returns
    -------
    GradientRDP

    Raises
    ------
    DomainError
        An input (``C``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import theorem2_from_gradients
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> G = [rng.normal(size=(2, 200)) for _ in range(3)]
    >>> G = [g / np.maximum(1.0, np.linalg.norm(g, axis=0)) for g in G]
    >>> theorem2_from_gradients(G, alpha=2.0, B=2.0, C=1.0)
    GradientRDP(eig_min_sec4=array([0.37391139, 0.38147309, 0.32943725]), eig_min_sum_sec4=1.0848217222054437,
    alpha_max=216.96434444108874, alpha=2.0, rdp=0.009489945903838795, K=2, D=200)
    """
    mats = gradient_list("G_users", G_users)
    if not mats:
        raise DomainError("G_users must hold at least one user's gradient matrix")
    k, d = mats[0].shape
    for i, g in enumerate(mats):
        if g.shape != (k, d):
            raise DomainError(f"G_users[{i}] has shape {g.shape}; every user needs the same K × D = {k} × {d} "
                              f"(the paper assumes |D_i| = D)")
        check_clipped(f"G_users[{i}]", g, v.scalar("C", v.positive("C", C)))
    lam = np.array([float(eigenvalues(g, normalization="sec4", smallest_only=True)[0]) for g in mats])
    s = float(np.sum(lam))
    eps = theorem2_rdp(alpha, s, B, C, d, normalization="sec4", form=form)
    amax = float(theorem2_alpha_max(s, C, d, normalization="sec4"))
    return GradientRDP(lam, s, amax, v.scalar_or_array(np.asarray(alpha, dtype=np.float64)), eps, k, d)


@dataclass(frozen=True)
class SpanCheck:
    """Theorem 1's necessary condition for one replacement gradient: is it in the span of all users' gradients?"""

    in_span: bool
    residual: float
    relative_residual: float
    rank: int
    K: int


def _column_space(g: FloatArray) -> tuple[FloatArray, int]:
    """Left singular vectors of g and its numerical rank (tolerance max(K, M)·eps·s_max)."""
    u, s, _ = np.linalg.svd(g, full_matrices=False)
    cut = max(g.shape) * np.finfo(float).eps * (float(s[0]) if s.size else 0.0)
    return u, int(np.sum(s > cut))


@v.scalar_params
@v.named_shapes
def span_check(G_all: ArrayLike, g_new: ArrayLike, *, rtol: float = 1e-8) -> SpanCheck:
    """Theorem 1: ``g_new ∈ span(columns of G_all)`` (G_all = all users' per-sample gradients side by side, K × M).

    Least-squares residual of g_new against the numerical column space (SVD, rank tolerance max(K, M)·eps·s_max);
    in span iff residual <= rtol·‖g_new‖. If not in span, the aggregate is not (ε, δ)-DP for any ε and δ below
    the Theorem-1 threshold (`theorem1_delta_threshold`).

    Parameters
    ----------
    G_all : ArrayLike
    g_new : ArrayLike
    rtol : float
        Relative tolerance of the root finder.

    Returns
    -------
    SpanCheck

    Raises
    ------
    DomainError
        An input (``g_new``, ``rtol``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import span_check
    >>> import numpy as np
    >>> span_check(np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([0.5, 0.0]))
    SpanCheck(in_span=True, residual=0.0, relative_residual=0.0, rank=1, K=2)
    """
    g = gradients("G_all", G_all)
    x = np.atleast_1d(v.as_array("g_new", g_new))
    if x.shape != (g.shape[0],):
        raise DomainError(f"g_new must be a vector of length K = {g.shape[0]} (got shape {x.shape})")
    tol = v.scalar("rtol", v.positive("rtol", rtol))
    u, r = _column_space(g)
    res_vec = x - u[:, :r] @ (u[:, :r].T @ x)
    res = float(np.linalg.norm(res_vec))
    nx = float(np.linalg.norm(x))
    rel = res / nx if nx > 0 else 0.0
    return SpanCheck(rel <= tol, res, rel, r, g.shape[0])


@v.named_shapes
def gradient_subspace(G_all: ArrayLike) -> FloatArray:
    """An orthonormal basis S (K × K*) of the span of all users' gradients (Assumption 4; needs the server to see
    per-user gradients, which SA forbids: Remark 2).

    Parameters
    ----------
    G_all : ArrayLike

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import gradient_subspace
    >>> import numpy as np
    >>> gradient_subspace(np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0]]))
    array([[-0.70710678],
           [ 0.        ],
           [-0.70710678]])
    """
    g = gradients("G_all", G_all)
    u, r = _column_space(g)
    if r == 0:
        raise DomainError("G_all is zero: its span is {0}")
    return u[:, :r]


@v.scalar_params
@v.named_shapes
def projected_eigenvalues(G: ArrayLike, basis: ArrayLike, *, normalization: str, B: float | None = None
                          ) -> FloatArray:
    """Eigenvalues (ascending) of the projected second moment ``Sᵀ Σ S`` (Theorem 3's λ*; Σ in ``normalization``,
    with the 1/D that Assumption 4 omits: erratum E5). ``basis`` S: K × K* with orthonormal columns.

    Parameters
    ----------
    G : ArrayLike
    basis : ArrayLike
    normalization : str
    B : float | None

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``basis``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import projected_eigenvalues
    >>> import numpy as np
    >>> G = np.array([[0.6, 0.0, 0.3], [0.0, 0.8, 0.3]])
    >>> projected_eigenvalues(G, np.eye(2)[:, :1], normalization='sec4')
    array([0.15])
    """
    g = gradients("G", G)
    s = v.as_array("basis", basis)
    if s.ndim != 2 or s.shape[0] != g.shape[0] or s.shape[1] > s.shape[0]:
        raise DomainError(f"basis must be K × K* with K = {g.shape[0]} and K* <= K (got shape {s.shape})")
    if float(np.max(np.abs(s.T @ s - np.eye(s.shape[1])))) > 1e-8:
        raise DomainError("basis must have orthonormal columns (Sᵀ S = I)")
    return eigenvalues(s.T @ g, normalization=normalization, B=B)


# --- exact divergence of the two aggregate Gaussians (for checking the bounds) ---------------------------------------

@dataclass(frozen=True)
class AggregatePair:
    """Exact D_α(P‖Q) and D_α(Q‖P) of the aggregate before/after replacing one record; ``value`` = the larger."""

    forward: Divergence
    backward: Divergence

    @property
    def value(self) -> float:
        return max(float(self.forward), float(self.backward))


@v.scalar_params
def aggregate_covariance(G_users: Sequence[FloatArray], B: float, *, noise: str = "none", sigma2: float = 0.0
                         ) -> FloatArray:
    """Covariance of the aggregate ``Σ_j G_j w_j`` under Gaussian sampling: Σ_j G_jG_jᵀ/(BD) (= Σ_j Σ_j^{sec4}/B =
    Σ_j Σ_j^{sec5}); ``noise="iso"`` adds Nσ²I (each user σ²I), ``"wfna"`` replaces each Σ_j^{sec5} by its
    water-filled Σ_{j,+} (floor σ²).

    Parameters
    ----------
    G_users : Sequence[FloatArray]
    B : float
    noise : str
    sigma2 : float

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``sigma2``) outside its domain; the one-line message names it and the allowed range.

    Examples
    --------
    >>> from dpcalc.secagg import aggregate_covariance
    >>> import numpy as np
    >>> aggregate_covariance([np.array([[0.6, 0.0], [0.0, 0.8]])], B=2.0)
    array([[0.09, 0.  ],
           [0.  , 0.16]])
    """
    mats = gradient_list("G_users", G_users)
    b = float(batch(B))
    sigma2 = v.scalar("sigma2", v.nonnegative("sigma2", sigma2))
    if noise not in ("none", "iso", "wfna"):
        raise DomainError(f"noise must be 'none', 'iso' or 'wfna' (got {noise!r})")
    k, d = mats[0].shape
    total = np.zeros((k, k))
    for g in mats:
        cov = g @ g.T / (b * d)
        if noise == "wfna":
            cov = cov + water_filling(cov, sigma2, normalization="sec5").noise_cov
        total += cov
    if noise == "iso":
        total += len(mats) * sigma2 * np.eye(k)
    return total


@v.scalar_params
@v.named_shapes
def exact_aggregate_divergence(G_users: Sequence[ArrayLike], user: int, sample: int, g_new: ArrayLike,
                               alpha: ArrayLike, B: float, *, noise: str = "none", sigma2: float = 0.0
                               ) -> AggregatePair:
    """Exact Rényi divergences (eq. 22) between the aggregate Gaussians of neighbouring data sets: user ``user``'s
    column ``sample`` replaced by ``g_new``. The means differ by (g − g_new)/D; the covariances as in
    `aggregate_covariance`. This is what Theorems 2/4 and Table 1 bound from above.

    Parameters
    ----------
    G_users : Sequence[ArrayLike]
    user : int
    sample : int
    g_new : ArrayLike
    alpha : ArrayLike
        Rényi order α > 1.
    B : float
    noise : str
    sigma2 : float

    Returns
    -------
    AggregatePair

    Raises
    ------
    DomainError
        An input (``user``, ``sample``, ``g_new``) outside its domain; the one-line message names it and the allowed
        range.

    Examples
    --------
    >>> from dpcalc.secagg import exact_aggregate_divergence
    >>> import numpy as np
    >>> G = [np.array([[0.6, 0.0, 0.3], [0.0, 0.8, 0.3]]), np.array([[0.5, 0.1, 0.0], [0.1, 0.5, 0.7]])]
    >>> exact_aggregate_divergence(G, user=0, sample=0, g_new=np.array([0.0, 0.6]), alpha=2.0, B=2.0,
    ...                            noise='iso', sigma2=0.1)
    AggregatePair(forward=Divergence(value=0.3325809748273403, mean_term=0.29746377715154987,
    logdet_term=0.0351171976757904, alpha=2.0, reason=''), backward=Divergence(value=0.2554532208246298,
    mean_term=0.22805575206011114, logdet_term=0.027397468764518637, alpha=2.0, reason=''))
    """
    mats = gradient_list("G_users", G_users)
    u = int(v.scalar("user", v.check_range("user", user, 0.0, len(mats) - 1, integer=True)))
    s = int(v.scalar("sample", v.check_range("sample", sample, 0.0, mats[0].shape[1] - 1, integer=True)))
    x = np.atleast_1d(v.as_array("g_new", g_new))
    if x.shape != (mats[0].shape[0],):
        raise DomainError(f"g_new must be one gradient of length K = {mats[0].shape[0]} (got shape {x.shape})")
    new = [m.copy() for m in mats]
    new[u][:, s] = x
    d = mats[0].shape[1]
    b = float(batch(B))
    s1 = aggregate_covariance(mats, b, noise=noise, sigma2=sigma2)
    s2 = aggregate_covariance(new, b, noise=noise, sigma2=sigma2)
    mu1 = mats[u][:, s] / d
    mu2 = x / d
    return AggregatePair(renyi_gaussian(mu1, s1, mu2, s2, alpha), renyi_gaussian(mu2, s2, mu1, s1, alpha))
