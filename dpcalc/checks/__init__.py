"""Verification recipes: one module per family (auto-discovered), registered via `dpcalc.checks.registry`."""
