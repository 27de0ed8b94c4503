"""Draw docs/img/samplers-eps-vs-epochs.png: ε against epochs for the three samplers of docs/samplers.md.

The numbers are the stored table (tests/data/samplers_reference.json, ``regression``: computed by
`dpcalc.samplers.compare` and checked by tests/families/test_samplers.py); ``--recompute`` computes them afresh
(about a minute) and prints the rows instead of reading them.

    python docs/gen/samplers_figure.py [--recompute] [-o docs/img/samplers-eps-vs-epochs.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "samplers_reference.json"
OUT = ROOT / "docs" / "img" / "samplers-eps-vs-epochs.png"
TITLES = {"mnist": "MNIST-like: n = 60,000, b = 256, z = 1.1", "cifar": "CIFAR-like: n = 50,000, b = 256, z = 1.1"}


def rows(recompute: bool) -> dict[str, list[dict[str, float]]]:
    ref = json.loads(DATA.read_text(encoding="utf-8"))
    if not recompute:
        return dict(ref["regression"])
    from dpcalc.samplers import compare

    out = {}
    for name, s in ref["regression_settings"].items():
        epochs = [int(r["epochs"]) for r in ref["regression"][name]]
        got = compare(s["noise_multiplier"], s["dataset_size"], s["batch_size"], epochs, s["delta"])
        out[name] = [{"epochs": r.epochs, "steps": r.steps, "poisson": r.poisson, "shuffle_lower": r.shuffle_lower,
                      "allocation_upper": r.allocation_upper} for r in got]
        for r in out[name]:
            print(name, r)
    return out


def no_amplification(epochs: int, z: float = 1.1, delta: float = 1e-5) -> float:
    """ε of the shuffled run without any amplification: each record is in one batch per epoch, so the run is at
    most ``epochs`` Gaussian mechanisms of sensitivity 1, μ = √epochs/z (Dong, Roth & Su 2022)."""
    from dpcalc.accounting.gdp import eps_from_mu

    return float(eps_from_mu(epochs**0.5 / z, delta))


def draw(data: dict[str, list[dict[str, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), sharey=True)
    for ax, (name, rs) in zip(axes, data.items(), strict=True):
        e = [r["epochs"] for r in rs]
        ax.plot(e, [r["shuffle_lower"] for r in rs], "o-", color="tab:red",
                label="shuffled batches: lower bound (true ε is above)")
        top = [no_amplification(r["epochs"]) for r in rs]
        ax.fill_between(e, [r["shuffle_lower"] for r in rs], top, color="tab:red", alpha=0.08,
                        label="shuffled batches: where the true ε lies")
        ax.plot(e, top, ":", color="tab:red", label="shuffled batches: upper bound without amplification")
        ax.plot(e, [r["poisson"] for r in rs], "s-", color="tab:blue", label="Poisson sampling (what is reported)")
        ax.plot(e, [r["allocation_upper"] for r in rs], "^--", color="tab:green",
                label="balls-in-bins allocation: upper bound")
        ax.set_title(TITLES.get(name, name), fontsize=10)
        ax.set_xlabel("epochs")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("ε at δ = 1e-5 (add/remove)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(path, dpi=110)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--recompute", action="store_true")
    p.add_argument("-o", "--output", type=Path, default=OUT)
    a = p.parse_args()
    draw(rows(a.recompute), a.output)


if __name__ == "__main__":
    main()
