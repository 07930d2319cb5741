"""Exact leaf values from a compiled continuation, where the rest of the game is small.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4: a leaf state h at the depth limit is worth K continuation values

    v(h, n) = the value of <sigma_hat_i*, sigma_o^n> from h,

the solving player i's blueprint against the opponent's n-th continuation strategy. In a game
too large to compile they are Monte Carlo estimates (`rollouts.rollout_values`); late in the
game the rest below h is small, and `continuation_values` computes them exactly:

1. the leaf states' continuations are compiled together, under a chance node over them, by
   the core's breadth-first walk (`walk.expand_below` to the end of the game), each cut off
   once it passes `max_nodes` nodes: a state costs at most about `max_nodes` node expansions
   before it is left to the rollouts, so the budget is meant to be small (tens to hundreds
   of nodes: the last moves of a game);
2. each policy is asked once per information set of the compiled tree (the same information
   sets recur below many leaf states), giving one behavioural profile per continuation:
   the blueprint at player i's information sets, sigma_o^n at the opponent's;
3. one bottom-up pass per continuation (`tree_values.node_values`) gives v(h, n) at every
   compiled leaf state: the expected return under the profile, with no sampling error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray
from open_spiel.python import policy as policy_lib

from ospiel_ext import tree_values, walk
from ospiel_ext.arrays import FloatArray
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder


@dataclasses.dataclass(frozen=True)
class ContinuationValues:
    """v(h, n) of the leaf states whose continuation was compiled.

    Attributes:
      values: (states, K) player 0's utility; NaN where `exact` is False.
      exact: the states whose continuation has at most `max_nodes` nodes (itself included).
      nodes: the nodes of the compiled continuations (0 if none).
    """

    values: FloatArray
    exact: NDArray[np.bool_]
    nodes: int


def continuation_values(
    game: pyspiel.Game,
    states: Sequence[pyspiel.State],
    own: policy_lib.Policy,
    *,
    player: int,
    strategies: Sequence[policy_lib.Policy],
    max_nodes: int,
) -> ContinuationValues:
    """v(h, n) under <`own` for `player`, strategies[n] for the opponent> (module docstring).

    Exact at the states whose continuation has at most `max_nodes` nodes; NaN elsewhere.

    Raises:
      ValueError: `max_nodes` < 0, or no strategies.
    """
    if max_nodes < 0:
        raise ValueError(f"game {game}: max_nodes must be >= 0, got {max_nodes}")
    if not len(strategies):
        raise ValueError(f"game {game}: give at least one continuation strategy")
    values = np.full((len(states), len(strategies)), np.nan)
    exact = np.zeros(len(states), dtype=bool)
    if not max_nodes or not len(states):
        return ContinuationValues(values, exact, 0)
    builder = TreeBuilder(
        name=f"continuations in {game}", game=game, utility_sum=game.utility_sum()
    )
    n = len(states)
    first = builder.expand_chance(builder.add_root(), range(n), [1 / n] * n)
    cut, _, infoset_states = walk.expand_below(
        builder,
        [(first + k, s) for k, s in enumerate(states)],
        depth=game.max_game_length() + 1,
        max_nodes=2**62,
        max_nodes_per_root=max_nodes,
    )
    for node in cut:
        builder.set_leaf(node, 0.0, 0.0)  # cut short: its root goes to the rollouts
    tree = builder.freeze()
    roots = first + np.arange(n, dtype=np.int64)
    owner = _root_of(tree, roots)
    size = np.bincount(owner[owner >= 0], minlength=n)
    exact[:] = size <= max_nodes  # a root is cut only once it has passed max_nodes nodes
    base = _profile(tree, infoset_states, {player: own})
    for k, strategy in enumerate(strategies):
        profile = base + _profile(tree, infoset_states, {1 - player: strategy})
        values[exact, k] = tree_values.node_values(tree, profile)[roots[exact]]
    return ContinuationValues(values, exact, tree.num_nodes)


def _root_of(tree: GameTree, roots: NDArray[np.int64]) -> NDArray[np.int64]:
    """For every node, the index in `roots` of the root above it (-1 above the roots)."""
    row = np.full(tree.num_nodes, -1, dtype=np.int64)
    row[roots] = np.arange(len(roots))
    owner: NDArray[np.int64] = tree.top_down(
        np.int64(-1), lambda nodes, up: np.where(row[nodes] >= 0, row[nodes], up)
    )
    return owner


def _profile(
    tree: GameTree,
    infoset_states: dict[str, pyspiel.State],
    policy_of: dict[int, policy_lib.Policy],
) -> FloatArray:
    """The policies' probabilities at the information sets of their players (0 elsewhere).

    One query per information set, at a state of it (`walk.expand_below`'s).
    """
    out = np.zeros(tree.num_infoset_actions)
    starts = tree.infoset_action_start
    for i, (p, key, legal) in enumerate(
        zip(tree.infoset_player.tolist(), tree.infoset_key, tree.infoset_legal_actions)
    ):
        pol = policy_of.get(p)
        if pol is None:
            continue
        probs = pol.action_probabilities(infoset_states[key], p)
        out[starts[i] : starts[i + 1]] = [probs.get(a, 0.0) for a in legal]
    return out
