"""Domain sweeps of the Gaussian privacy profile kernel and its inverses (issue 15 "Deliver").

Reference: :mod:`dpcalc.checks.oracles` (mpmath, 40 digits, precision raised where the difference cancels).
Default budget small; ``DPCALC_SWEEP_POINTS=10000`` for the deep run.
"""

from __future__ import annotations

import math

from sweep import Axis, sweep

from dpcalc.accounting import gdp
from dpcalc.checks import oracles


def test_delta_from_eps_sweep() -> None:
    sweep("gdp.delta_from_eps", [Axis("eps", 1e-6, 1e3), Axis("mu", 1e-4, 1e2)],
          fn=lambda p: gdp.delta_from_eps(p["eps"], p["mu"]),
          ref=lambda p: oracles.gaussian_delta(p["eps"], p["mu"]), rtol=1e-12,
          where=lambda p: float(oracles.gaussian_log_delta(p["eps"], p["mu"], 17)) > math.log(1e-300), n=60)
