"""``dpcalc cuag uplink|rates|matrix|coherence``: CUAG-PFL's compression (Li, Xiao & Chen 2024, §5.3,
Algorithms 2-3, eq. 14, Tables 2 and 6). `COMMANDS` joins the ``cuag`` group (`dpcalc.cli.cuag`)."""

from __future__ import annotations

import numpy as np

from dpcalc import _validate as v
from dpcalc.cli.command import Args, command
from dpcalc.cli.options import axis, choice, integer, real, text, vector
from dpcalc.cuag import compression as comp
from dpcalc.report.columns import column, columns_for
from dpcalc.report.render import Column, Result

__all__ = ["COMMANDS"]


@command("uplink", text("layer_sizes", option="--model", help=f"Layer sizes: a model ({', '.join(comp.MODELS)}), a "
                                                              "list '4864,102464,…' or a file of numbers"),
         axis("rate", sweep="1,0.5,0.4,0.3"), axis("T"), integer("copies", default_from=comp.uplink_gib, formula="-",
                                                                 help="Vectors per upload (2 for SCAFFOLD: model + "
                                                                      "control variate)"),
         formula="cuag.uplink_gib")
def uplink_command(a: Args) -> Result:
    """Uplink GiB over T rounds, T·Σ_l ⌊r I_l⌋·4 B/2³⁰, and the reduction (Tables 2 and 6, fixed rates).

    Example: dpcalc cuag uplink --model vgg16-cifar10 --rate 0.5,0.4,0.3
    """
    from dpcalc.report.vectors import parse_vector

    model = a.layer_sizes
    sizes = comp.parse_layer_sizes(model) if model in comp.MODELS else comp.parse_layer_sizes(
        v.check_range("model", parse_vector("--model", model), 1.0, comp.MAX_LAYER_SIZE, integer=True))
    from dpcalc._progress import paced

    points = [(t, r) for t in v.integer_at_least("T", a.T, 1) for r in a.rate]
    rows = [{"rate": r, "T": t, "params": comp.uploaded_params(sizes, r),
             "uplink": comp.uplink_gib(sizes, r, t, copies=a.copies), "reduction": comp.uplink_reduction(sizes, r)}
            for t, r in paced(points, len(points), "uplink", a.describe())]
    cols = [*columns_for("cuag.uplink_gib", ["rate", "T"]),
            Column("params", "floats per upload", "floats", integer=True),
            column("cuag.uplink_gib", "uplink"), column("cuag.uplink_reduction", "reduction")]
    return Result(columns=cols, rows=rows, title="CUAG-PFL uplink cost (Tables 2 and 6)",
                  note=f"{len(sizes)} layers, d = {sum(sizes):,} parameters, float32, {a.copies} vector(s) per "
                       "upload; 'GB' in the paper is GiB. Dynamic-rate totals need training.",
                  formula=["cuag.uplink_gib", "cuag.uplink_reduction"])


@command("rates", vector("layer_norms", formula="-", help="‖ω_l‖ of each layer"), real("r_max"), real("r_min"),
         choice("rounding", ("python", "numpy"), default_from=comp.layer_rates, formula="-",
                help="python (built-in round, the pseudo-code's) or numpy (numpy.round)"),
         formula="cuag.layer_rate")
def rates_command(a: Args) -> Result:
    """Algorithm 2: each layer's rate from its norm ratio ‖ω_l‖/‖ω‖ (the map is V-shaped: erratum E9).

    Example: dpcalc cuag rates --layer-norms 3,0.1,4,0.5
    """
    norms = np.asarray(a.layer_norms, dtype=np.float64)
    rates = comp.layer_rates(norms, a.r_max, a.r_min, rounding=a.rounding)
    weights = comp.layer_weights(norms)
    rows = [{"layer": i + 1, "norm": float(n), "weight": float(w), "rate": float(r)}
            for i, (n, w, r) in enumerate(zip(norms, weights, rates, strict=True))]
    cols = [Column("layer", "layer", "$l$", integer=True), Column("norm", "‖ω_l‖", r"$\|\omega_l\|$"),
            *columns_for("cuag.layer_rate", ["weight", "rate"])]
    return Result(columns=cols, rows=rows, title="Algorithm 2 layer compression rates",
                  note=f"r_max = {a.r_max:g}, r_min = {a.r_min:g}, rounding = {a.rounding}. Tiny layers get "
                       "r ≈ r_max and weights in [0.20, 0.25] get r_min, contrary to the claimed r ∈ (r_min, r_max] "
                       "(E9).",
                  formula="cuag.layer_rate")


@command("matrix", axis("r"), axis("layer_size"), formula="cuag.measurement_count")
def matrix_command(a: Args) -> Result:
    """Algorithm 3: rows b = ⌊rI⌋, block width z = ⌊1/r⌋ and count = I − z·b rows of z + 1 ones (E7 corrected).

    Example: dpcalc cuag matrix --rate 0.3 --layer-size 10,64
    """
    rows = []
    for r in a.r:
        for n in a.layer_size:
            m = comp.measurement_matrix(r, n)
            rows.append({"r": r, "layer_size": float(n), "b": m.b, "z": m.z, "count": m.count})
    cols = [*columns_for("cuag.measurement_count", ["r", "layer_size"]),
            column("cuag.measurement_rows", "b"), Column("z", "z = ⌊1/r⌋", "$z$", integer=True),
            column("cuag.measurement_count", "count")]
    return Result(columns=cols, rows=rows, title="Deterministic binary measurement matrix (Algorithm 3)",
                  note="Row j sums a block of z + 1 (first count rows) or z consecutive coordinates; undefined when "
                       "b = 0 or count > b (small layers).",
                  formula=["cuag.measurement_rows", "cuag.measurement_count"])


@command("coherence", axis("r", sweep="0.1,0.2,0.3,0.4,0.5"), axis("a"),
         choice("basis", ("dft", "dct", "both"), formula="-", default="both", help="Sparsifying basis ψ"),
         formula="cuag.binary_coherence_dft", work=lambda a: _coherence_work(a))
def coherence_command(a: Args) -> Result:
    """Eq. (14): mutual coherence of Algorithm 3's matrix with the DFT/DCT basis (range [1, √a]; Fig. 3).

    Example: dpcalc cuag coherence --rate 0.1,0.5 --a 512
    """
    bases = [b for b in ("dft", "dct") if a.basis in (b, "both")]
    keys = {"dft": "coherence", "dct": "coherence_dct"}
    rows = [{"r": r, "a": n, **{keys[b]: comp.binary_coherence(r, n, b) for b in bases}}  # type: ignore[arg-type]
            for n in a.a for r in a.r]
    cols = columns_for("cuag.binary_coherence_dft", ["r", "a"])
    if "dft" in bases:
        cols.append(column("cuag.binary_coherence_dft", "coherence", label="v(φ, DFT)"))
    if "dct" in bases:
        cols.append(Column("coherence_dct", "v(φ, DCT)", r"$v(\phi,\psi_{\mathrm{DCT}})$"))
    return Result(columns=cols, rows=rows, title="Mutual coherence of the binary measurement matrix (eq. 14)",
                  note="v(φ, DFT) = √(z + [count > 0]) exactly; smaller is better for reconstruction.",
                  formula="cuag.binary_coherence_dft")


#: One coherence of an a × a basis: ~1.5e-7·a² s of CPU (a = 2000: 0.6 s a basis), counted 3× for busy cores.
_COHERENCE_SECONDS = 5e-7


def _coherence_work(a: Args) -> tuple[str, float, str]:
    """Every (r, a) builds an a × a basis per basis asked for: the work grows as Σ a²."""
    bases = 2 if a.basis == "both" else 1
    squares = sum(float(n) * float(n) for n in a.a)  # inf past 1.3e154, not the OverflowError of float ** 2
    seconds = _COHERENCE_SECONDS * bases * len(a.r) * squares
    return f"{a.describe()}, Σ a² = {squares:.3g}", seconds, "an a × a basis per value of a"


COMMANDS = (uplink_command, rates_command, matrix_command, coherence_command)
