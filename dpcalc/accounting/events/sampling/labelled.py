"""RDP of a labelled pair: with probability wₖ the label k is shown and pair k is drawn (sampling with replacement,
where the number of draws of the changed record is revealed; truncated Poisson sampling, where whether the sample was
cut is). e^{(α−1)ε(α)} = Σₖ wₖ e^{(α−1)εₖ(α)}, since ∫P^αQ^{1−α} splits over the labels; upper bounds εₖ give an
upper bound."""

from __future__ import annotations

import numpy as np

from dpcalc import _validate as v

#: a building block of the sampling events, which check its inputs (the public form is the event)
__all__: list[str] = []


def labelled_rdp(weights: v.FloatArray, curves: v.FloatArray, alphas: v.FloatArray) -> v.FloatArray:
    """The RDP of the labelled pair with label law ``weights`` and one row of ``curves`` per label."""
    from scipy.special import logsumexp

    am1 = np.asarray(alphas, dtype=np.float64) - 1.0
    with np.errstate(divide="ignore"):
        terms = np.log(weights)[:, None] + am1[None, :] * curves
    return np.asarray(logsumexp(terms, axis=0) / am1, dtype=np.float64)
