"""CUAG-PFL compression (Li, Xiao & Chen 2024, §5.3): layer rates (Algorithm 2), the deterministic binary measurement
matrix (eq. 13, Algorithm 3), mutual coherence (eq. 14) and the uplink cost behind Tables 2 and 6.

Errata E7–E9, E17, E21 (listed in ``docs/cuag.md``); catalog
``formulas/002_cuag_compression.toml``. Integer arithmetic is used for ⌊r·I⌋ (r is read as the decimal it prints
as, so 0.7·90 gives 63, not the float 62.999…).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.errors import DomainError, ErratumWarning
from dpcalc.typing import FloatArray, FloatOrArray

__all__ = ["BYTES_PER_PARAM", "GIB", "MAX_LAYER_SIZE", "MODELS", "PAPER_ROUNDS", "MeasurementMatrix", "Rounding",
           "binary_coherence", "coherence_bounds", "dct_basis", "dft_basis", "layer_rate", "layer_rates",
           "layer_weights", "measurement_count", "measurement_matrix", "measurement_rows", "mutual_coherence",
           "parse_layer_sizes", "uplink_gib", "uplink_reduction", "uploaded_params"]

Rounding = Literal["python", "numpy"]

#: Layer sizes (weights + bias of each layer: one vectorised layer per module) of the models in Tables 2 and 6.
#: CNN: conv(3→64, 5×5), conv(64→64, 5×5), FC 1600→384→192→n_cls (FedDyn/PFLDyn CIFAR CNN; 797,962 parameters
#: for 10 classes). VGG16: torchvision configuration D with a 25088→4096→4096→10 classifier (134,301,514).
#: Per-layer flooring reproduces every fixed-rate entry of Tables 2/6; flooring weight and bias tensors separately
#: would give 60.0374 instead of the printed 60.0375 for VGG16 at r = 0.4.
_VGG16_CONVS = [(3, 64), (64, 64), (64, 128), (128, 128), (128, 256), (256, 256), (256, 256), (256, 512),
                (512, 512), (512, 512), (512, 512), (512, 512), (512, 512)]


def _cnn(classes: int) -> tuple[int, ...]:
    return (3 * 64 * 25 + 64, 64 * 64 * 25 + 64, 1600 * 384 + 384, 384 * 192 + 192, 192 * classes + classes)


def _vgg16(classes: int) -> tuple[int, ...]:
    sizes: list[int] = []
    for cin, cout in _VGG16_CONVS:
        sizes.append(cin * cout * 9 + cout)
    for fin, fout in ((25088, 4096), (4096, 4096), (4096, classes)):
        sizes.append(fin * fout + fout)
    return tuple(sizes)


MODELS: dict[str, tuple[int, ...]] = {"cnn-cifar10": _cnn(10), "cnn-cifar100": _cnn(100), "vgg16-cifar10": _vgg16(10)}
PAPER_ROUNDS = 300
BYTES_PER_PARAM = 4
GIB = 2 ** 30


# --- Algorithm 2: layer compression rates -------------------------------------------------------------------------

def _round(x: float, ndigits: int, rounding: str) -> float:
    if rounding == "python":
        return round(x, ndigits)
    if rounding == "numpy":
        return float(np.round(x, ndigits))
    raise DomainError(f"rounding must be 'python' (built-in round, the paper's pseudo-code) or 'numpy' "
                      f"(got {rounding!r})")


@v.scalar_params
@v.named_shapes
def layer_rate(weight: ArrayLike, r_max: float = 0.5, r_min: float = 0.2, *,
               rounding: Rounding = "python") -> FloatOrArray:
    """Algorithm 2 for a layer of norm ratio ``weight = ‖ω_l‖/‖ω‖`` (elementwise):

    * weight < r_min: ``round(r_max − round(weight, 2), 1)``;
    * r_min <= weight and round(weight, 1) < r_max: ``round(weight, 1)``;
    * otherwise r_max.

    The rounding is explicit: ``"python"`` (built-in ``round``, as the pseudo-code reads) or ``"numpy"``
    (``numpy.round``); they differ e.g. for weight in [0.045, 0.055) (0.5 vs 0.4). The map is V-shaped and reaches
    r_min on [0.20, 0.25], contrary to the claimed r_l ∈ (r_min, r_max] (CUAG-PFL erratum E9).

    Parameters
    ----------
    weight : ArrayLike
    r_max : float
        Largest rate, in ``(0, 1]``.
    r_min : float
        Smallest rate, in ``(0, 1]``.
    rounding : Rounding

    Returns
    -------
    FloatOrArray
        Algorithm 2: compression rate of a layer from its norm ratio (fraction of measurements kept); a float for scalar
        inputs, else an array of their broadcast shape.

    Raises
    ------
    DomainError
        An input (``weight``, ``r_max``, ``r_min``) outside its domain; the one-line message names it and the allowed
        range.
    """
    w = v.check_range("weight", weight, 0.0, 1.0)
    hi = v.scalar("r_max", v.check_range("r_max", r_max, 0.0, 1.0, lo_open=True))
    lo = v.scalar("r_min", v.check_range("r_min", r_min, 0.0, hi, lo_open=True))
    out = np.empty(w.shape)
    for idx, x in np.ndenumerate(w):
        x = float(x)
        if x < lo:
            out[idx] = _round(hi - _round(x, 2, rounding), 1, rounding)
        elif _round(x, 1, rounding) < hi:
            out[idx] = _round(x, 1, rounding)
        else:
            out[idx] = hi
    return v.scalar_or_array(out)


@v.scalar_params
@v.named_shapes
def layer_rates(layer_norms: ArrayLike, r_max: float = 0.5, r_min: float = 0.2, *,
                rounding: Rounding = "python") -> FloatArray:
    """Algorithm 2 for a whole model: weights ‖ω_l‖/‖ω‖ with ‖ω‖ = √(Σ_l ‖ω_l‖²), then `layer_rate`.

    Parameters
    ----------
    layer_norms : ArrayLike
    r_max : float
    r_min : float
    rounding : Rounding

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    return np.atleast_1d(np.asarray(layer_rate(layer_weights(layer_norms), r_max, r_min, rounding=rounding)))


@v.named_shapes
def layer_weights(layer_norms: ArrayLike) -> FloatArray:
    """Algorithm 2's weights ‖ω_l‖/‖ω‖, ‖ω‖ = √(Σ_l ‖ω_l‖²) (at most 1). Scale-free, so computed on the norms
    divided by the largest (norms near 1e308 would overflow ‖ω‖).

    Parameters
    ----------
    layer_norms : ArrayLike

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input (``layer_norms``) outside its domain; the one-line message names it and the allowed range.
    """
    n = v.vector("layer_norms", layer_norms, 0.0)
    top = float(np.max(n))
    if top == 0.0:
        raise DomainError("layer_norms must not all be 0 (the weights ‖ω_l‖/‖ω‖ are undefined)")
    scaled = n / top
    total = math.sqrt(math.fsum(float(x) ** 2 for x in scaled))
    return np.asarray(np.minimum(scaled / total, 1.0), dtype=np.float64)


# --- Algorithm 3: deterministic binary measurement matrix ---------------------------------------------------------

def _rate(r: float) -> Fraction:
    x = v.scalar("r (rate)", v.check_range("r (rate)", r, 0.0, 1.0, lo_open=True))
    return Fraction(repr(x))


def _layer(layer_size: float) -> int:
    return int(v.scalar("layer_size", v.integer_at_least("layer_size", layer_size, 1)))


@v.scalar_params
def measurement_rows(r: float, layer_size: float) -> int:
    """b = ⌊r·I⌋, the number of measurements of a layer of length I = ``layer_size`` (Algorithm 3), exactly.

    Parameters
    ----------
    r : float
        Compression rate, in ``(0, 1]``.
    layer_size : float
        Layer length (parameters), in ``[1, inf) integer``.

    Returns
    -------
    int
        Algorithm 3: number of measurements b of a layer (measurements).

    Raises
    ------
    DomainError
        An input (``r``, ``layer_size``) outside its domain; the one-line message names it and the allowed range.
    """
    return math.floor(_rate(r) * _layer(layer_size))


@v.scalar_params
def measurement_count(r: float, layer_size: float, *, as_published: bool = False) -> float:
    """Number of rows with z + 1 ones: ``I − ⌊1/r⌋·⌊rI⌋`` (corrected, CUAG-PFL erratum E7).

    ``as_published=True`` gives the printed ``I − ⌊1/r⌋·r·I`` (can be non-integer: r = 0.3, I = 64 → 6.4 instead
    of 7), with an `ErratumWarning`.

    Parameters
    ----------
    r : float
        Compression rate, in ``(0, 1]``.
    layer_size : float
        Layer length (parameters), in ``[1, inf) integer``.
    as_published : bool
        True: the paper's printed form (with an ``ErratumWarning`` where it is wrong); False: dpcalc's.

    Returns
    -------
    float
        Algorithm 3: number of rows with z + 1 ones (rows).

    Raises
    ------
    DomainError
        An input (``r``, ``layer_size``) outside its domain; the one-line message names it and the allowed range.

    Warns
    -----
    ErratumWarning
        The paper's published (wrong) form was asked for.
    """
    fr, n = _rate(r), _layer(layer_size)
    z = math.floor(1 / fr)
    if as_published:
        v.warn("Algorithm 3 prints count = I − ⌊1/r⌋·r·I, which is not an integer in general and does not "
               "give a column partition; the correct count is I − ⌊1/r⌋·⌊rI⌋ (CUAG-PFL erratum E7)",
               ErratumWarning)
        return float(n - z * fr * n)
    return float(n - z * math.floor(fr * n))


@dataclass(frozen=True)
class MeasurementMatrix:
    """φ of Algorithm 3 for one layer, stored as row blocks: row j sums columns ``starts[j] … starts[j]+widths[j]−1``.

    The blocks partition the I columns (``count`` rows of z + 1 ones, then b − count rows of z ones).
    """

    r: float
    layer_size: int
    b: int
    z: int
    count: int
    starts: np.ndarray
    widths: np.ndarray

    def dense(self) -> FloatArray:
        """The b × I 0/1 matrix (for small layers; use `apply` for large ones)."""
        phi = np.zeros((self.b, self.layer_size))
        for j, (s, w) in enumerate(zip(self.starts, self.widths, strict=True)):
            phi[j, s:s + w] = 1.0
        return phi

    def apply(self, x: ArrayLike) -> FloatArray:
        """y = φ x: the sum of each block of consecutive coordinates (O(I), no matrix)."""
        arr = v.as_array("x", x)
        if arr.shape != (self.layer_size,):
            raise DomainError(f"x must have length layer_size = {self.layer_size} (got shape {arr.shape})")
        return np.add.reduceat(arr, self.starts)


@v.scalar_params
def measurement_matrix(r: float, layer_size: float) -> MeasurementMatrix:
    """Algorithm 3 (eq. 13) with the corrected count (E7): b = ⌊rI⌋ rows, z = ⌊1/r⌋.

    Raises `DomainError` where the construction is undefined: b = 0, or count = I − z·b > b (small layers:
    I <= 19 at r = 0.2, <= 13 at r = 0.3, <= 7 at r = 0.4; CUAG-PFL erratum E7).

    Parameters
    ----------
    r : float
    layer_size : float

    Returns
    -------
    MeasurementMatrix

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    fr, n = _rate(r), _layer(layer_size)
    b = math.floor(fr * n)
    z = math.floor(1 / fr)
    if b == 0:
        raise DomainError(f"measurement matrix undefined for r = {float(fr):g}, I = {n}: b = ⌊rI⌋ = 0 rows "
                          f"(Algorithm 3; use a larger layer or rate)")
    count = n - z * b
    if count > b:
        raise DomainError(f"measurement matrix undefined for r = {float(fr):g}, I = {n}: count = I − ⌊1/r⌋⌊rI⌋ = "
                          f"{count} rows of {z + 1} ones > b = {b} rows (Algorithm 3, CUAG-PFL erratum E7)")
    from dpcalc import _limits

    _limits.check_memory(f"layer_size = {float(n):.6g} at r = {float(fr):g} (b = {float(b):.6g} rows)", 24.0 * b,
                         "use a smaller layer_size or rate r")  # widths, starts and the cumsum, int64 each
    widths = np.full(b, z, dtype=np.int64)
    widths[:count] += 1
    starts = np.zeros(b, dtype=np.int64)
    np.cumsum(widths[:-1], out=starts[1:])
    return MeasurementMatrix(float(fr), n, b, z, count, starts, widths)


# --- eq. (14): mutual coherence -----------------------------------------------------------------------------------

def _basis_size(a: float) -> int:
    """Validate a basis length a; the a × a complex basis and its temporaries (~64·a² bytes) must fit the cap."""
    n = int(v.scalar("a", v.integer_at_least("a", a, 1)))
    from dpcalc import _limits

    _limits.check_memory(f"a = {n} (an a x a basis)", 64.0 * n * n, "use a smaller layer length a")
    return n


@v.scalar_params
def dct_basis(a: int) -> FloatArray:
    """Orthonormal DCT-II basis ψ (a × a, columns are basis vectors).

    Parameters
    ----------
    a : int

    Returns
    -------
    FloatArray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    n = _basis_size(a)
    k = np.arange(n)
    psi = np.cos(np.pi * (2 * k[:, None] + 1) * k[None, :] / (2 * n)) * math.sqrt(2.0 / n)
    psi[:, 0] /= math.sqrt(2.0)
    return psi


@v.scalar_params
def dft_basis(a: int) -> np.ndarray:
    """Unitary DFT basis ψ (a × a complex).

    Parameters
    ----------
    a : int

    Returns
    -------
    np.ndarray

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    n = _basis_size(a)
    k = np.arange(n)
    return np.exp(-2j * np.pi * np.outer(k, k) / n) / math.sqrt(n)


def _numeric_matrix(name: str, value: ArrayLike) -> np.ndarray:
    """``value`` as a real or complex array (a basis may be complex); a ragged list or non-numbers in one line."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "iufc":
        raise DomainError(f"{name} must be a numeric matrix (got {v.brief(value)})")
    return arr


@v.named_shapes
def mutual_coherence(phi: ArrayLike, psi: ArrayLike) -> float:
    """Eq. (14): ``v(φ, ψ) = √a · max_{i,j} |⟨φ_i, ψ_j⟩| / (‖φ_i‖ ‖ψ_j‖)`` (rows φ_i of φ, columns ψ_j of ψ).

    For an orthonormal ψ, 1 <= v <= √a (`coherence_bounds`).

    Parameters
    ----------
    phi : ArrayLike
    psi : ArrayLike

    Returns
    -------
    float

    Raises
    ------
    DomainError
        An input outside its domain; the one-line message names the input and the allowed range.
    """
    p = _numeric_matrix("phi", phi)
    s = _numeric_matrix("psi", psi)
    if p.ndim != 2 or s.ndim != 2 or s.shape[0] != s.shape[1] or p.shape[1] != s.shape[0]:
        raise DomainError(f"phi must be b × a and psi a × a (got {p.shape} and {s.shape})")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(s))):
        raise DomainError("phi and psi must be finite")
    pn = np.linalg.norm(p, axis=1, keepdims=True)
    sn = np.linalg.norm(s, axis=0, keepdims=True)
    if np.any(pn == 0) or np.any(sn == 0):
        raise DomainError("phi has a zero row or psi a zero column (coherence undefined)")
    return float(math.sqrt(s.shape[0]) * np.max(np.abs((p / pn) @ (s / sn))))


@v.scalar_params
def coherence_bounds(a: int) -> tuple[float, float]:
    """(1, √a): range of eq. (14) for an orthonormal basis ψ (Σ_j |⟨φ_i, ψ_j⟩|² = ‖φ_i‖² forces max >= ‖φ_i‖/√a).

    Parameters
    ----------
    a : int

    Returns
    -------
    tuple[float, float]

    Raises
    ------
    DomainError
        An input (``a``) outside its domain; the one-line message names it and the allowed range.
    """
    n = int(v.scalar("a", v.integer_at_least("a", a, 1)))
    return 1.0, math.sqrt(n)


@v.scalar_params
def binary_coherence(r: float, a: float, basis: Literal["dft", "dct"] = "dft") -> float:
    """v(φ, ψ) of Algorithm 3's φ (rate r, length a) against the DFT or DCT basis, computed by eq. (14).

    For the DFT it equals √(max row weight) = √(z + [count > 0]) (the DC column attains |⟨φ_i, ψ_0⟩| = w/√a and no
    column exceeds it); the catalog states that closed form.

    Parameters
    ----------
    r : float
        Compression rate, in ``(0, 1]``.
    a : float
        Signal length (signal length), in ``[1, inf) integer``.
    basis : Literal['dft', 'dct']

    Returns
    -------
    float
        Mutual coherence of Algorithm 3's matrix with the unitary DFT basis.

    Raises
    ------
    DomainError
        An input (``r``, ``a``) outside its domain; the one-line message names it and the allowed range.
    """
    _basis_size(a)  # before the b × a measurement matrix, and naming a (measurement_matrix calls it layer_size)
    m = measurement_matrix(r, a)
    if basis == "dft":
        psi = dft_basis(m.layer_size)
    elif basis == "dct":
        psi = dct_basis(m.layer_size)
    else:
        raise DomainError(f"basis must be 'dft' or 'dct' (got {basis!r})")
    return mutual_coherence(m.dense(), psi)


# --- uplink cost (Tables 2 and 6) ---------------------------------------------------------------------------------

#: Largest layer size: parameter counts are integers exact in float64 (2^53 parameters are already 36 PB of float32).
MAX_LAYER_SIZE = 2.0**53


@v.named_shapes
def parse_layer_sizes(layer_sizes: str | Sequence[float] | ArrayLike) -> tuple[int, ...]:
    """Layer sizes from a model name (`MODELS`), a list, or a file of numbers (text/CSV or ``.npy``, read by
    `dpcalc.files.read_vector`).

    Parameters
    ----------
    layer_sizes : str | Sequence[float] | ArrayLike

    Returns
    -------
    tuple[int, ...]

    Raises
    ------
    DomainError
        An input (``layer_sizes``) outside its domain; the one-line message names it and the allowed range.
    """
    if isinstance(layer_sizes, str):
        if layer_sizes in MODELS:
            return MODELS[layer_sizes]
        if not Path(layer_sizes).is_file():
            raise DomainError(f"layer sizes must be a model name ({', '.join(MODELS)}), a list or a file "
                              f"(got {layer_sizes!r})")
        from dpcalc import files

        layer_sizes = files.read_vector("layer_sizes", layer_sizes)
    sizes = v.check_range("layer_sizes", layer_sizes, 1.0, MAX_LAYER_SIZE, integer=True)
    if sizes.ndim != 1:
        raise DomainError(f"layer_sizes must be a 1-D list (got shape {sizes.shape})")
    return tuple(int(x) for x in sizes)


@v.named_shapes
def uploaded_params(layer_sizes: Sequence[float] | ArrayLike | str, rate: ArrayLike | None = None) -> int:
    """Σ_l ⌊r_l·I_l⌋ parameters per upload (all of them when ``rate`` is None); ``rate`` scalar or per layer;
    ``layer_sizes`` as accepted by `parse_layer_sizes`.

    Parameters
    ----------
    layer_sizes : Sequence[float] | ArrayLike | str
    rate : ArrayLike | None

    Returns
    -------
    int

    Raises
    ------
    DomainError
        An input (``rate``) outside its domain; the one-line message names it and the allowed range.
    """
    sizes = parse_layer_sizes(layer_sizes)
    if rate is None:
        return int(sum(sizes))
    rates = np.atleast_1d(v.check_range("rate", rate, 0.0, 1.0, lo_open=True))
    if rates.size == 1:
        rates = np.full(len(sizes), float(rates[0]))
    if rates.shape != (len(sizes),):
        raise DomainError(f"rate must be one number or one per layer ({len(sizes)}) (got {rates.size})")
    return int(sum(math.floor(Fraction(repr(float(r))) * n) for r, n in zip(rates, sizes, strict=True)))


@v.scalar_params
@v.named_shapes
def uplink_gib(layer_sizes: Sequence[float] | ArrayLike | str, rate: ArrayLike | None = None,
               T: float = PAPER_ROUNDS, *, copies: int = 1, bytes_per_param: int = BYTES_PER_PARAM) -> float:
    """Uplink in GiB over T rounds: ``copies·T·Σ_l ⌊r_l I_l⌋·bytes/2³⁰`` (reverse-engineered, it matches every
    fixed-rate entry of Tables 2 and 6; the paper's "GB" is GiB, one model upload per round, float32). ``rate=None``
    is uncompressed (T·d·4/2³⁰); ``copies=2`` for SCAFFOLD and DP-SCAFFOLD (model + control variate).

    Parameters
    ----------
    layer_sizes : Sequence[float] | ArrayLike | str
        Layer sizes (parameters), in ``[1, inf) integer``.
    rate : ArrayLike | None
        Compression rate, in ``(0, 1]``.
    T : float
        Rounds (one model upload each) (rounds), in ``[1, inf) integer``.
    copies : int
    bytes_per_param : int

    Returns
    -------
    float
        Uplink cost over T rounds with fixed compression rate (Tables 2 and 6) (GiB).

    Raises
    ------
    DomainError
        An input (``layer_sizes``, ``rate``, ``T``, ``copies``, ``bytes_per_param``) outside its domain; the one-line
        message names it and the allowed range.
    """
    t = int(v.scalar("T", v.integer_at_least("T", T, 1)))
    c = int(v.scalar("copies", v.integer_at_least("copies", copies, 1)))
    nb = int(v.scalar("bytes_per_param", v.integer_at_least("bytes_per_param", bytes_per_param, 1)))
    return c * t * uploaded_params(layer_sizes, rate) * nb / GIB


@v.named_shapes
def uplink_reduction(layer_sizes: Sequence[float] | ArrayLike | str, rate: ArrayLike) -> float:
    """1 − compressed/uncompressed uplink = 1 − Σ_l ⌊r_l I_l⌋ / Σ_l I_l (independent of T and bytes).

    Parameters
    ----------
    layer_sizes : Sequence[float] | ArrayLike | str
        Layer sizes (parameters), in ``[1, inf) integer``.
    rate : ArrayLike
        Compression rate, in ``(0, 1]``.

    Returns
    -------
    float
        Uplink reduction of a fixed compression rate (fraction).

    Raises
    ------
    DomainError
        An input (``layer_sizes``, ``rate``) outside its domain; the one-line message names it and the allowed range.
    """
    return 1.0 - uploaded_params(layer_sizes, rate) / uploaded_params(layer_sizes, None)
