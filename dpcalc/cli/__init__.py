"""dpcalc command-line interface (one module per family; see main.py)."""
