"""Depth-limited solving of games compiled to a `GameTree`.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games".
Built on the package's core (`leaves`, `rollouts`, `settings`): `strategy_sets` (Section 4's
continuation strategies), `solving` (the depth-limited subgames solved and spliced),
`bot` (Section 5's nested solving bot), `off_tree` and `off_tree_solving` (Section 6.1's
off-tree action: action translation against depth-limited solving). The package docstring
says what each holds.
"""
