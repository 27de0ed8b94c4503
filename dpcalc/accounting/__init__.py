"""Privacy accounting: the Gaussian mechanism and the notions that compose it.

* :mod:`dpcalc.accounting.gaussian_mechanism` — classical and analytic Gaussian mechanism (Dwork & Roth 2014;
  Balle & Wang 2018).
* :mod:`dpcalc.accounting.gdp` — μ-Gaussian DP (Dong, Roth & Su 2022): privacy profile, conversions, CLT.
* :mod:`dpcalc.accounting.rdp` — Rényi DP of the (Poisson-subsampled) Gaussian (Mironov et al. 2019).
* :mod:`dpcalc.accounting.zcdp` — zero-concentrated DP (Bun & Steinke 2016).
* :mod:`dpcalc.accounting.conversion` — the one RDP → (ε, δ) conversion and its minimisers over orders.
* :mod:`dpcalc.accounting.pld` — the PLD accountant with a certified bracket (a package, one concept per module).
* :mod:`dpcalc.accounting.accountants` — ε of a DP-SGD schedule under every accountant.
* :mod:`dpcalc.accounting.calibrate` — σ (one monotone knob) for a target ε under every accountant.

Every module imports SciPy lazily, inside the functions that need it.
"""
