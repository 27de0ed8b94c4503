"""Torch-free NumPy simulation core (filled in below)."""
