"""Validation of the samplers' parameters: one-line `DomainError`s naming the parameter (dpcalc._validate)."""

from __future__ import annotations

from dataclasses import dataclass

from dpcalc import _validate as v
from dpcalc.errors import DomainError

__all__ = ["Allocation", "Shuffle", "allocation", "shuffle"]


@dataclass(frozen=True)
class Allocation:
    """Random allocation: each record takes part in exactly ``num_selected`` of ``num_steps`` steps, chosen uniformly
    at random, in each of ``epochs`` independent epochs; Gaussian noise multiplier ``noise_multiplier``."""

    noise_multiplier: float
    num_selected: int
    num_steps: int
    epochs: int

    @property
    def rounds(self) -> int:
        """Allocations of one step out of `steps_per_round` the run decomposes into (k per epoch)."""
        return self.num_selected * self.epochs

    @property
    def steps_per_round(self) -> int:
        """⌊t/k⌋: the k-of-t allocation is dominated by k allocations of 1 out of ⌊t/k⌋ (Feldman & Shenfeld 2025)."""
        return self.num_steps // self.num_selected


def allocation(noise_multiplier: float, num_selected: int, num_steps: int, epochs: int = 1) -> Allocation:
    """Checked `Allocation`: z > 0, 1 <= num_selected <= num_steps, epochs >= 1."""
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    t = int(v.scalar("num_steps", v.integer_at_least("num_steps", num_steps, 1)))
    k = int(v.scalar("num_selected", v.integer_at_least("num_selected", num_selected, 1)))
    e = int(v.scalar("epochs", v.integer_at_least("epochs", epochs, 1)))
    if k > t:
        raise DomainError(f"num_selected must be <= num_steps (got num_selected={k} > num_steps={t})")
    return Allocation(z, k, t, e)


@dataclass(frozen=True)
class Shuffle:
    """One permutation of ``dataset_size`` records per epoch, cut into ⌊n/b⌋ batches of ``batch_size``; the n mod b
    records left over are not used that epoch (``drop_last``, the usual data-loader option for DP-SGD)."""

    noise_multiplier: float
    dataset_size: int
    batch_size: int
    epochs: int

    @property
    def num_steps(self) -> int:
        return self.dataset_size // self.batch_size

    @property
    def used(self) -> float:
        """γ = t·b/n: the probability that a given record is in one of the epoch's batches."""
        return self.num_steps * self.batch_size / self.dataset_size


def shuffle(noise_multiplier: float, dataset_size: int, batch_size: int, epochs: int = 1,
            drop_last: bool = True) -> Shuffle:
    """Checked `Shuffle`: batch_size < dataset_size (one batch per epoch is the Gaussian mechanism, not sampled);
    without ``drop_last`` batch_size must divide dataset_size (a ragged last batch is another sampler)."""
    z = v.scalar("noise_multiplier", v.positive("noise_multiplier", noise_multiplier))
    n = int(v.scalar("dataset_size", v.integer_at_least("dataset_size", dataset_size, 2)))
    b = int(v.scalar("batch_size", v.integer_at_least("batch_size", batch_size, 1)))
    e = int(v.scalar("epochs", v.integer_at_least("epochs", epochs, 1)))
    if b >= n:
        raise DomainError(f"batch_size must be < dataset_size (got batch_size={b} >= dataset_size={n}): one batch "
                          f"per epoch is not sampled")
    if n % b and not drop_last:
        raise DomainError(f"batch_size must divide dataset_size without drop_last (got dataset_size={n} = "
                          f"{n // b}·{b} + {n % b}): a ragged last batch is not modelled; drop it (drop_last=True)")
    return Shuffle(z, n, b, e)
