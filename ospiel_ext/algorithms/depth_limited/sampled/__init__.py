"""Depth-limited solving of games too large to compile.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Sections 4-5, as in Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame
Solving in Imperfect-Information Games", Section 8.1: nothing is compiled beyond the current
public state and the depth limit below it. Built on the package's core (`leaves`, `rollouts`,
`settings`): `from_states` (depth-limited solving from pyspiel states), `public_belief` (the
public state's histories and their local game), `continuation` (exact leaf values where the
rest is small), `bot` (the nested solving bot). The package docstring says what each holds.
"""
