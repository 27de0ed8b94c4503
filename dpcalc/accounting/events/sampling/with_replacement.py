"""A fixed-size sample drawn with replacement: ``sample_size`` b draws from ``source_dataset_size`` n records; the
inner event runs on them. A replace-one statement.

The count K ~ Binomial(b, 1/n) of draws of the changed record is revealed (a post-processing forgets it): the
labelled pair of `dpcalc.accounting.pld.sampled_with_replacement` (Balle, Barthe & Gaboardi 2018, Thm. 10) — label k,
then the inner mechanism at k times the shift (`Event.scaled`).

* RDP: that pair's, summed over k = 0 … b exactly (`labelled`); an upper bound (the pair is not tight). The sum is
  ruled by the largest counts at every order (k² in the exponent), so with a ``tail`` > 0 the counts above the
  smallest k₀ with P(K > k₀) <= tail are left out: the curve is the RDP of the pair conditioned on K <= k₀ (weights
  renormalised), and P(K > k₀) is the curve's slack. Since K has the same law under both neighbours,
  P(S) <= (1 − s)·P(S | K <= k₀) + s for every event S, so (ε, δ') of the conditioned pair gives (ε, δ' + s) — per
  release, summed over the releases.
* PLD: the labelled pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcalc import _validate as v
from dpcalc.accounting.events.base import Curve, register
from dpcalc.accounting.events.relation import Relation, shift_factor
from dpcalc.accounting.events.sampling.labelled import labelled_rdp
from dpcalc.accounting.events.sampling.without_replacement import FixedSizeSample

__all__ = ["MAX_DRAWS", "SampledWithReplacement"]

#: most draws of a with-replacement sample taken label by label (one row of orders each)
MAX_DRAWS = 10**5
_ADD_REMOVE = "a sample of fixed size is a replace-one statement (use replace-one or replace-special)"


@register
@dataclass(frozen=True)
class SampledWithReplacement(FixedSizeSample):
    """``sample_size`` draws with replacement from ``source_dataset_size`` records; ``event`` runs on them."""

    CLASS_NAME = "SampledWithReplacementDpEvent"
    SHORT = "sampled_with_replacement"

    def sampling_schemes(self) -> list[str]:
        return [f"with replacement {self.sample_size}/{self.source_dataset_size}", *self.event.sampling_schemes()]

    def releases_with_replacement(self) -> int:
        return 1

    def rdp(self, orders: v.FloatArray, relation: Relation, tail: float = 0.0) -> Curve:
        if relation == "add_remove":
            raise self.not_accountable("rdp", _ADD_REMOVE)
        b, n = self.sample_size, self.source_dataset_size
        if b > MAX_DRAWS:
            raise self.not_accountable("rdp", f"sample_size {b} exceeds the {MAX_DRAWS} draws summed label by label "
                                              "(use the pld accountant)")
        from scipy.stats import binom

        f = float(shift_factor(relation))
        k = np.arange(b + 1, dtype=np.float64)
        w = np.asarray(binom.pmf(k, b, 1.0 / n), dtype=np.float64) if n > 1 else np.eye(1, b + 1, b)[0]
        a = np.asarray(orders, dtype=np.float64)
        keep = w > 0.0
        slack = 0.0
        if tail > 0.0 and b > 1:
            sf = np.asarray(binom.sf(k, b, 1.0 / n), dtype=np.float64)  # P(K > k)
            k0 = int(np.argmax(sf <= tail))  # the first k with P(K > k) <= tail (sf(b) = 0)
            slack = float(sf[k0])
            keep &= k <= k0
            w = w / (1.0 - slack)
        z = self.event.gaussian_noise()
        if z is not None:  # Gaussian noise: every row in one expression
            rows = a[None, :] * (k[:, None] * f / z) ** 2 / 2.0 if math.isfinite(z) else np.zeros((k.size, a.size))
        else:
            rows = np.zeros((k.size, a.size))
            for i in np.flatnonzero(keep):
                if k[i] > 0:
                    inner = self.event.scaled(int(k[i]))
                    if inner is None:
                        raise self.not_accountable("rdp", f"{self.event.CLASS_NAME} has no form at a multiple of its "
                                                          "sensitivity here (use the pld accountant)")
                    rows[i] = inner.rdp(a, relation).rdp
        return Curve(labelled_rdp(w[keep], rows[keep], a), False, slack)

    def privacy_loss(self, relation: Relation) -> Any:
        from dpcalc.accounting import pld

        if relation == "add_remove":
            raise self.not_accountable("privacy_loss", _ADD_REMOVE)
        return pld.sampled_with_replacement(self.event.privacy_loss(relation), self.sample_size,
                                            self.source_dataset_size)
