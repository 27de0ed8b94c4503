"""Which sampler did a run use, and what does it cost? Poisson's ε (what is usually reported), a certified lower
bound for shuffled fixed-size batches (`shuffle`) and the random-allocation (balls-in-bins: one step per epoch out of
n/b) upper bound (`allocation`), side by side for one run and several epoch counts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcalc import _validate as v
from dpcalc.accounting.samplers import shuffle as shuf
from dpcalc.accounting.samplers.params import shuffle as shuffle_params
from dpcalc.errors import DomainError
from dpcalc.samplers import allocation as alloc

__all__ = ["SamplerRow", "compare"]


@dataclass(frozen=True)
class SamplerRow:
    """One epoch count: ``poisson`` (PLD upper end, rate b/n, (n/b)·epochs steps), ``shuffle_lower`` (a lower
    bound), ``allocation_upper`` (an upper bound), all ε at ``delta`` under add/remove."""

    epochs: int
    steps: int
    poisson: float
    shuffle_lower: float
    allocation_upper: float
    delta: float


def compare(noise_multiplier: float, dataset_size: int, batch_size: int, epochs: ArrayLike,
            delta: float) -> list[SamplerRow]:
    """The three ε of one run at each epoch count (add/remove; Poisson at rate b/n for the same number of steps);
    ``epochs`` one count or a list of them.

    Examples:
        >>> from dpcalc.samplers.compare import compare
        >>> row = compare(2.0, 1000, 100, [1], 1e-5)[0]
        >>> row.shuffle_lower > row.poisson, row.steps
        (True, 10)
    """
    from dpcalc.accounting.pld import epsilon as poisson_eps

    d = v.scalar("delta", v.check_range("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True))
    counts = np.atleast_1d(v.integer_at_least("epochs", epochs, 1))
    if counts.ndim != 1:
        raise DomainError(f"epochs must be one count or a list of counts (got shape {counts.shape})")
    shuffle_params(noise_multiplier, dataset_size, batch_size)  # every other input checked before the first row
    rows = []
    for e in counts:
        sh = shuffle_params(noise_multiplier, dataset_size, batch_size, int(e))
        t = sh.num_steps
        pois = poisson_eps([(sh.noise_multiplier, sh.batch_size / sh.dataset_size, t * sh.epochs)], d).eps_upper
        low = shuf.epsilon_lower(sh.noise_multiplier, sh.dataset_size, sh.batch_size, sh.epochs, d).eps_lower
        up = alloc.epsilon(sh.noise_multiplier, 1, t, sh.epochs, d).value
        rows.append(SamplerRow(sh.epochs, t * sh.epochs, float(pois), float(low), float(up), d))
    return rows
