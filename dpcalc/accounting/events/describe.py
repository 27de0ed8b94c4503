"""Short texts for an event: its one-line description and the sampling it assumes (what a result row shows)."""

from __future__ import annotations

import dataclasses

from dpcalc.accounting.events import sampling as s
from dpcalc.accounting.events.base import Event

__all__ = ["describe", "sampling_of"]


def _fmt(value: object) -> str:
    if isinstance(value, Event):
        return describe(value)
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_fmt(x) for x in value) + "]"
    return str(value)


def describe(event: Event) -> str:
    """``SelfComposed(PoissonSampled(0.01, Gaussian(1)), 1000)``: the class name without ``DpEvent``, its fields in
    order."""
    name = event.CLASS_NAME.removesuffix("DpEvent")
    args = ", ".join(_fmt(getattr(event, f.name)) for f in dataclasses.fields(event))  # type: ignore[arg-type]
    return f"{name}({args})"


def sampling_of(event: Event) -> str:
    """The sampling schemes in the event, e.g. ``poisson q=0.01``, ``without replacement 256/60000``; ``none``."""
    found: list[str] = []

    def walk(e: Event) -> None:
        if isinstance(e, s.PoissonSampled):
            found.append(f"poisson q={e.sampling_probability:.6g}")
        elif isinstance(e, s.SampledWithoutReplacement):
            found.append(f"without replacement {e.sample_size}/{e.source_dataset_size}")
        elif isinstance(e, s.SampledWithReplacement):
            found.append(f"with replacement {e.sample_size}/{e.source_dataset_size}")
        elif isinstance(e, s.TruncatedSubsampledGaussian):
            found.append(f"truncated poisson q={e.sampling_probability:.6g} max {e.truncated_batch_size}")
        for child in e.children():
            walk(child)

    walk(event)
    return "; ".join(dict.fromkeys(found)) or "none"
