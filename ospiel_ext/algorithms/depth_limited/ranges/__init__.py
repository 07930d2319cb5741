"""Depth-limited solving's off-tree experiment on the hold'em range layout (`poker.range_tree`).

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1, in `universal_poker` games too large to compile: `off_tree`, the off-tree action's
in-abstraction counterparts and randomized pseudo-harmonic action translation, evaluated
exactly by the range walker; `leaves`, K continuations' values at the end of the first round
(Section 4's multi-valued states); `solving`, the depth-limited first round solved with
them (`gadgets`: resolving and max-margin gadgets at subgame roots); `off_tree_solving`, that
solve after the off-tree action; and `beyond_limit`, safe subgame solving of the flop below it.
"""
