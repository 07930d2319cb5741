"""Depth-limited solving of games compiled to a `GameTree` (the package docstring lists them)."""
