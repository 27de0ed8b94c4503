"""Verification recipes: one module per family (auto-discovered), registered via :mod:`dpcalc.checks.registry`."""
