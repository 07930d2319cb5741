"""Values of a behavioural profile on a GameTree: reaches, expected and counterfactual values.

A behavioural profile is one flat float array over the tree's infoset actions (both players):
entry `tree.infoset_action_start[i] + k` is the probability of `tree.infoset_legal_actions[i][k]`
at information set i (`uniform_profile`; `TreeSequenceForm.tree_profile` of behavioural arrays,
e.g. of a table by `policies.behavioural_from_table`). `check_profile` is the one check that a
strategy is a distribution at every information set, for profiles and behavioural arrays alike.

With pi_0, pi_1, pi_c the players' and chance's contributions to the reach of a node h
(`reaches`) and u_i(h) player i's expected utility from h under the profile (`node_values`),
the counterfactual value of player i's information set I is (Zinkevich, Johanson, Bowling &
Piccione 2007, "Regret Minimization in Games with Incomplete Information", Section 3)

  v_i(I) = sum_{h in I} pi_{-i}(h) u_i(h),   pi_{-i} = pi_{opponent} * pi_c,

and its counterfactual best-response value is the same with player i best-responding below I
while the opponent keeps the profile (the values of the opponent's root infosets that gadget
games need: Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 2.1 and Theorem 1; Brown, Sandholm & Amos 2018,
"Depth-Limited Solving for Imperfect-Information Games", Proposition 1). With
`normalized=True` both are divided by sum_{h in I} pi_{-i}(h) (0 where that is 0), as in
Kubicek et al. 2024, Section 2.

Every value is computed by vectorised passes: node passes over depth levels
(`GameTree.top_down` / `bottom_up`) and, for best responses, one segment max per treeplex
level of the responding player.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import ArrayLike

from ospiel_ext import arrays
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.tree import GameTree

PROFILE_TOLERANCE = 1e-6


def uniform_profile(tree: GameTree) -> FloatArray:
    """Every infoset plays its legal actions uniformly."""
    sizes = np.diff(tree.infoset_action_start)
    return np.repeat(1.0 / np.maximum(sizes, 1), sizes)


def check_profile(tree: GameTree, profile: ArrayLike) -> FloatArray:
    """`profile` as float64, checked to be a distribution at every infoset.

    ValueError naming the tree, the player and the information set unless it is a
    distribution at every infoset (up to `PROFILE_TOLERANCE`). Behavioural arrays of a
    `TreeSequenceForm` are checked as `check_profile(sf.tree, sf.tree_profile(b))`.
    """
    p = np.asarray(profile, dtype=np.float64)
    if p.shape != (tree.num_infoset_actions,):
        raise ValueError(
            f"{tree.name}: a behavioural profile has one probability per infoset action "
            f"({tree.num_infoset_actions}), got shape {p.shape}"
        )
    if tree.num_infosets:
        starts = tree.infoset_action_start[:-1]
        sums = np.add.reduceat(p, starts)
        bad = np.flatnonzero(
            ~(np.abs(sums - 1.0) <= PROFILE_TOLERANCE)
            | ~(np.minimum.reduceat(p, starts) >= -PROFILE_TOLERANCE)
        )
        if len(bad):
            i = int(bad[0])
            s, e = tree.infoset_action_start[i], tree.infoset_action_start[i + 1]
            raise ValueError(
                f"{tree.name}: player {tree.infoset_player[i]}'s strategy at information set "
                f"{tree.infoset_key[i]!r} is not a probability distribution: {p[s:e]}"
            )
    return p


def edge_probabilities(tree: GameTree, profile: ArrayLike) -> FloatArray:
    """Probability of the edge into every node.

    The profile's at decision nodes, chance's at chance nodes, 1 at the root.
    """
    p = check_profile(tree, profile)
    prob = np.array(tree.chance_prob, dtype=np.float64)
    decision = tree.edge_index >= 0
    prob[decision] = p[tree.edge_index[decision]]
    return prob


@dataclasses.dataclass(frozen=True)
class Reaches:
    """Reach probabilities of every node under a profile, factored by who moves.

    Attributes:
      player0, player1: the product of each player's own action probabilities on the path.
      chance: the product of the chance probabilities (`GameTree.chance_reach`).
    """

    player0: FloatArray
    player1: FloatArray
    chance: FloatArray

    def player(self, i: int) -> FloatArray:
        """The reach of player i's own actions (`player0` or `player1`)."""
        return self.player0 if i == 0 else self.player1

    def counterfactual(self, i: int) -> FloatArray:
        """pi_{-i}: the reach of everyone but player i (opponent and chance)."""
        return self.player(1 - i) * self.chance

    @property
    def total(self) -> FloatArray:
        """The reach of every node: both players' and chance's reach multiplied."""
        return self.player0 * self.player1 * self.chance


def reaches(tree: GameTree, profile: ArrayLike) -> Reaches:
    """Reach probabilities of every node (one top-down pass over depth levels)."""
    prob = edge_probabilities(tree, profile)
    owner = tree.player[np.maximum(tree.parent, 0)]  # who moves on the edge into each node
    factors = np.where(owner[:, None] == np.array([0, 1]), prob[:, None], 1.0)
    own = tree.top_down(np.ones(2), lambda nodes, up: up * factors[nodes])
    return Reaches(own[:, 0].copy(), own[:, 1].copy(), tree.chance_reach)


def _leaf_utility(tree: GameTree, leaf_values: ArrayLike | None) -> FloatArray:
    """Player 0's utility at every leaf (other entries are ignored)."""
    leaves = tree.is_leaf
    if leaf_values is None:
        if np.any(tree.lo[leaves] != tree.hi[leaves]):
            raise ValueError(
                f"{tree.name} has leaves with utility intervals [lo, hi]; pass leaf_values "
                "(e.g. tree.lo or tree.hi)"
            )
        values = tree.lo
    else:
        values = np.asarray(leaf_values, dtype=np.float64)
        if values.shape != (tree.num_nodes,):
            raise ValueError(
                f"{tree.name}: leaf_values has shape {values.shape}, not ({tree.num_nodes},)"
            )
    if not np.all(np.isfinite(values[leaves])):
        raise ValueError(f"{tree.name}: leaf values must be finite")
    return values


def node_values(
    tree: GameTree, profile: ArrayLike, player: int = 0, leaf_values: ArrayLike | None = None
) -> FloatArray:
    """u_player(h) for every node h: the expected utility of `player` from h under the profile.

    One bottom-up pass. `leaf_values`: player 0's utility over nodes, used at the leaves
    (default `tree.lo`, which must equal `tree.hi` there).
    """
    _check_player(tree, player)
    v = tree.bottom_up(_leaf_utility(tree, leaf_values), np.add, edge_probabilities(tree, profile))
    return v if player == 0 else tree.utility_sum - v


def counterfactual_values(
    tree: GameTree,
    profile: ArrayLike,
    leaf_values: ArrayLike | None = None,
    normalized: bool = False,
) -> FloatArray:
    """v_i(I) for every infoset I, i its owner (see the module docstring)."""
    r = reaches(tree, profile)
    v0 = node_values(tree, profile, 0, leaf_values)
    nodes, _ = tree.infoset_nodes
    owner = tree.player[nodes]
    q = np.where(owner == 0, r.player1[nodes], r.player0[nodes]) * r.chance[nodes]
    u = np.where(owner == 0, v0[nodes], tree.utility_sum - v0[nodes])
    values = _infoset_sums(tree, nodes, q * u)
    if normalized:
        return _normalize(values, _infoset_sums(tree, nodes, q))
    return values


def counterfactual_best_response_values(
    tree: GameTree,
    profile: ArrayLike,
    leaf_values: ArrayLike | None = None,
    normalized: bool = False,
) -> FloatArray:
    """For every infoset I, its owner i's counterfactual value when i best-responds below I.

    That is below I and at I, while the opponent and chance keep the profile.

    Per player i: leaf values weighted by pi_{-i} are summed onto i's last own (infoset,
    action) above them; then, deepest treeplex level of i first, an infoset's value is the
    max over its actions and is added to the action leading to it.
    """
    p = check_profile(tree, profile)
    u0 = _leaf_utility(tree, leaf_values)
    r = reaches(tree, p)
    values = np.zeros(tree.num_infosets)
    for i in (0, 1):
        u = u0 if i == 0 else tree.utility_sum - u0
        mine = np.flatnonzero(tree.infoset_player == i)
        if len(mine):
            values[mine] = _best_response_values(tree, i, mine, q=r.counterfactual(i), u=u)
    if normalized:
        nodes, _ = tree.infoset_nodes
        q = np.where(tree.player[nodes] == 0, r.player1[nodes], r.player0[nodes]) * r.chance[nodes]
        return _normalize(values, _infoset_sums(tree, nodes, q))
    return values


def _best_response_values(
    tree: GameTree, player: int, mine: IntArray, *, q: FloatArray, u: FloatArray
) -> FloatArray:
    """Counterfactual best-response values of `player`'s infosets `mine` (in id order)."""
    start = tree.infoset_action_start
    sizes = np.diff(start)
    last = _last_own_edge(tree, player, mine)
    leaves = np.flatnonzero(tree.is_leaf)
    z = leaves[last[leaves] >= 0]
    action_values = np.bincount(last[z], weights=q[z] * u[z], minlength=tree.num_infoset_actions)
    nodes, offsets = tree.infoset_nodes
    parent_edge = last[nodes[offsets[mine]]]  # the own (infoset, action) leading to each
    edge_infoset = np.repeat(np.arange(tree.num_infosets), sizes)
    local = np.full(tree.num_infosets, -1, dtype=np.int64)
    local[mine] = np.arange(len(mine))
    parent_local = np.where(parent_edge >= 0, local[edge_infoset[np.maximum(parent_edge, 0)]], -1)
    level = _chain_depth(parent_local)
    values = np.empty(len(mine))
    for k in range(int(level.max()), -1, -1):
        sel = np.flatnonzero(level == k)
        ids, n = mine[sel], sizes[mine[sel]]
        idx = arrays.segment_indices(start[ids], n)
        best = np.maximum.reduceat(action_values[idx], np.cumsum(n) - n)
        values[sel] = best
        has_parent = parent_edge[sel] >= 0
        np.add.at(action_values, parent_edge[sel][has_parent], best[has_parent])
    return values


def _last_own_edge(tree: GameTree, player: int, mine: IntArray) -> IntArray:
    """For every node, the flat infoset-action index of `player`'s last move above it.

    -1: none. Read off `GameTree.own_last_move` (whose codes number `mine`'s actions from 1).
    """
    start = tree.infoset_action_start
    sizes = np.diff(start)[mine]
    table = np.concatenate([[-1], arrays.segment_indices(start[mine], sizes)])
    return table[tree.own_last_move(player)]


def _chain_depth(parent: IntArray) -> IntArray:
    """Number of ancestors of each element given each one's parent (-1: none)."""
    depth = np.zeros(len(parent), dtype=np.int64)
    for _ in range(len(parent) + 1):
        new = np.where(parent < 0, 0, depth[np.maximum(parent, 0)] + 1)
        if np.array_equal(new, depth):
            return depth
        depth = new
    raise AssertionError("the infoset parent relation has a cycle")


def _infoset_sums(tree: GameTree, nodes: IntArray, weights: FloatArray) -> FloatArray:
    """Sum of `weights` (one per decision node in `nodes`) over each infoset."""
    sums = np.bincount(tree.infoset[nodes], weights=weights, minlength=tree.num_infosets)
    return np.asarray(sums, dtype=np.float64)


def _normalize(values: FloatArray, weights: FloatArray) -> FloatArray:
    out = np.zeros_like(values)
    positive = weights > 0
    out[positive] = values[positive] / weights[positive]
    return out


def _check_player(tree: GameTree, player: int) -> None:
    if player not in (0, 1):
        raise ValueError(f"{tree.name}: player {player} is not 0 or 1")
