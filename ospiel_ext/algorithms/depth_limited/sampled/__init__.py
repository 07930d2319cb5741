"""Depth-limited solving of games too large to compile (the package docstring lists them)."""
