"""``dpcalc cuag uplink|rates|matrix|coherence``: CUAG-PFL's compression (seed 002 §5.3, Algorithms 2-3, eq. 14,
Tables 2 and 6). Imported by :func:`dpcalc.cli.cuag.register`, which adds these commands to the ``cuag`` group."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Annotated

import numpy as np
import typer

from dpcalc import _validate as v
from dpcalc.cli._common import command
from dpcalc.cuag import compression as comp
from dpcalc.report.columns import column, columns_for
from dpcalc.report.grid import parse_values, parse_vector
from dpcalc.report.render import Column, Result

RateOpt = Annotated[str, typer.Option("--rate", help="Compression rate r in (0, 1] (value, list or range).")]

_COMMANDS: list[tuple[str, Callable[..., Result]]] = []


def _compression_command(name: str) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Collect a compression command; :func:`register` adds them to the ``cuag`` group."""

    def decorator(func: Callable[..., Result]) -> Callable[..., Result]:
        _COMMANDS.append((name, func))
        return func

    return decorator


def register(group: typer.Typer) -> None:
    """Add ``uplink``, ``rates``, ``matrix`` and ``coherence`` to the ``cuag`` group."""
    for name, func in _COMMANDS:
        command(group, name)(func)



@_compression_command("uplink")
def uplink_command(
    model: Annotated[str, typer.Option("--model", help=f"Layer sizes: a model ({', '.join(comp.MODELS)}), a list "
                                                       "'4864,102464,…' or a file of numbers.")] = "cnn-cifar10",
    rate: RateOpt = "1,0.5,0.4,0.3",
    rounds: Annotated[str, typer.Option("--rounds", help="Rounds T (one model upload per round).")] = "300",
    copies: Annotated[int, typer.Option("--copies", help="Vectors per upload (2 for SCAFFOLD: model + control "
                                                         "variate).")] = 1,
) -> Result:
    """Uplink GiB over T rounds, T·Σ_l ⌊r I_l⌋·4 B/2³⁰, and the reduction (Tables 2 and 6, fixed rates).

    Example: dpcalc cuag uplink --model vgg16-cifar10 --rate 0.5,0.4,0.3
    """
    sizes = comp.parse_layer_sizes(model) if model in comp.MODELS else \
        comp.parse_layer_sizes(v.check_range("model", parse_vector("--model", model), 1.0, comp.MAX_LAYER_SIZE,
                                             integer=True))
    rows = []
    for t in v.integer_at_least("rounds", parse_values("--rounds", rounds), 1):
        for r in parse_values("--rate", rate):
            rows.append({"rate": r, "T": t, "params": comp.uploaded_params(sizes, r),
                         "uplink": comp.uplink_gib(sizes, r, t, copies=copies),
                         "reduction": comp.uplink_reduction(sizes, r)})
    cols = [*columns_for("cuag.uplink_gib", ["rate", "T"]),
            Column("params", "floats per upload", "floats", integer=True),
            column("cuag.uplink_gib", "uplink"), column("cuag.uplink_reduction", "reduction")]
    return Result(columns=cols, rows=rows, title="CUAG-PFL uplink cost (Tables 2 and 6)",
                  note=f"{len(sizes)} layers, d = {sum(sizes):,} parameters, float32, {copies} vector(s) per upload; "
                       "'GB' in the paper is GiB. Dynamic-rate totals need training.",
                  formula=["cuag.uplink_gib", "cuag.uplink_reduction"])


class Rounding(str, Enum):
    python = "python"
    numpy = "numpy"


@_compression_command("rates")
def rates_command(
    layer_norms: Annotated[str, typer.Option("--layer-norms", help="‖ω_l‖ of each layer (list or file).")],
    r_max: Annotated[float, typer.Option("--r-max", help="Largest rate r_max.")] = 0.5,
    r_min: Annotated[float, typer.Option("--r-min", help="Smallest rate r_min.")] = 0.2,
    rounding: Annotated[Rounding, typer.Option("--rounding", help="python (built-in round, the pseudo-code's) or "
                                                                  "numpy (numpy.round).")] = Rounding.python,
) -> Result:
    """Algorithm 2: each layer's rate from its norm ratio ‖ω_l‖/‖ω‖ (the map is V-shaped: erratum E9).

    Example: dpcalc cuag rates --layer-norms 3,0.1,4,0.5
    """
    norms = np.asarray(parse_vector("--layer-norms", layer_norms), dtype=np.float64)
    rates = comp.layer_rates(norms, r_max, r_min, rounding=rounding.value)
    weights = comp.layer_weights(norms)
    rows = [{"layer": i + 1, "norm": float(n), "weight": float(w), "rate": float(r)}
            for i, (n, w, r) in enumerate(zip(norms, weights, rates, strict=True))]
    cols = [Column("layer", "layer", "$l$", integer=True), Column("norm", "‖ω_l‖", r"$\|\omega_l\|$"),
            *columns_for("cuag.layer_rate", ["weight", "rate"])]
    return Result(columns=cols, rows=rows, title="Algorithm 2 layer compression rates",
                  note=f"r_max = {r_max:g}, r_min = {r_min:g}, rounding = {rounding.value}. Tiny layers get r ≈ r_max "
                       "and weights in [0.20, 0.25] get r_min, contrary to the claimed r ∈ (r_min, r_max] (E9).",
                  formula="cuag.layer_rate")


@_compression_command("matrix")
def matrix_command(
    rate: RateOpt = "0.3",
    layer_size: Annotated[str, typer.Option("--layer-size", help="Layer length I (value, list or range).")] = "64",
) -> Result:
    """Algorithm 3: rows b = ⌊rI⌋, block width z = ⌊1/r⌋ and count = I − z·b rows of z + 1 ones (E7 corrected).

    Example: dpcalc cuag matrix --rate 0.3 --layer-size 10,64
    """
    rows = []
    for r in parse_values("--rate", rate):
        for n in parse_values("--layer-size", layer_size):
            m = comp.measurement_matrix(r, n)
            rows.append({"r": r, "layer_size": float(n), "b": m.b, "z": m.z, "count": m.count})
    cols = [*columns_for("cuag.measurement_count", ["r", "layer_size"]),
            column("cuag.measurement_rows", "b"), Column("z", "z = ⌊1/r⌋", "$z$", integer=True),
            column("cuag.measurement_count", "count")]
    return Result(columns=cols, rows=rows, title="Deterministic binary measurement matrix (Algorithm 3)",
                  note="Row j sums a block of z + 1 (first count rows) or z consecutive coordinates; undefined when "
                       "b = 0 or count > b (small layers).",
                  formula=["cuag.measurement_rows", "cuag.measurement_count"])


class Basis(str, Enum):
    dft = "dft"
    dct = "dct"
    both = "both"


@_compression_command("coherence")
def coherence_command(
    rate: RateOpt = "0.1,0.2,0.3,0.4,0.5",
    a: Annotated[str, typer.Option("--a", help="Signal length a (Fig. 3 uses 512).")] = "512",
    basis: Annotated[Basis, typer.Option("--basis", help="Sparsifying basis ψ.")] = Basis.both,
) -> Result:
    """Eq. (14): mutual coherence of Algorithm 3's matrix with the DFT/DCT basis (range [1, √a]; Fig. 3).

    Example: dpcalc cuag coherence --rate 0.1,0.5 --a 512
    """
    rows = []
    for n in parse_values("--a", a):
        for r in parse_values("--rate", rate):
            row = {"r": r, "a": n}
            if basis in (Basis.dft, Basis.both):
                row["coherence"] = comp.binary_coherence(r, n, "dft")
            if basis in (Basis.dct, Basis.both):
                row["coherence_dct"] = comp.binary_coherence(r, n, "dct")
            rows.append(row)
    cols = columns_for("cuag.binary_coherence_dft", ["r", "a"])
    if basis in (Basis.dft, Basis.both):
        cols.append(column("cuag.binary_coherence_dft", "coherence", label="v(φ, DFT)"))
    if basis in (Basis.dct, Basis.both):
        cols.append(Column("coherence_dct", "v(φ, DCT)", r"$v(\phi,\psi_{\mathrm{DCT}})$"))
    return Result(columns=cols, rows=rows, title="Mutual coherence of the binary measurement matrix (eq. 14)",
                  note="v(φ, DFT) = √(z + [count > 0]) exactly; smaller is better for reconstruction.",
                  formula="cuag.binary_coherence_dft")
