"""Depth-limited solving's off-tree experiment on the hold'em range layout (`poker.range_tree`).

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1, in `universal_poker` games too large to compile: `off_tree`, the off-tree action's
in-abstraction counterparts and randomized pseudo-harmonic action translation, evaluated
exactly by the range walker; `leaves`, K continuations' values at the end of the first round
(Section 4's multi-valued states), and `solving`, the depth-limited first round solved with
them.
"""
