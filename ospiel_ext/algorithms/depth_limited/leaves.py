"""Multi-valued states at a depth limit: the leaves and their values.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4: when player i solves a depth-limited subgame, the opponent o = 1 - i picks, at each
of its leaf information sets, one of K continuation strategies sigma_o^1 .. sigma_o^K - one
choice per leaf information set, shared by its states - and leaf h pays

    v(h, n) = the value of <sigma_hat_i*, sigma_o^n> from h

(sigma_hat_i* the blueprint beyond the limit). K = 1 with the blueprint's own continuation is
the naive single-valued baseline.

* `depth_limit` finds the leaf states: the first non-terminal states past a `subgames.Cut`
  (the same cuts as subgame roots), with the opponent's information state at each - its leaf
  information set. A chance node at the cut is replaced by its children, except at a round-end
  limit (`Cut.before_public_chance`, spec 'round_end'), whose leaves are the chance nodes
  before the public deal: the opponent then picks one continuation per leaf information set
  for every public card at once, as at the limits of Section 6 ("leaf nodes at the end of the
  first betting round", Section 6.1; "solving to the end of that round", Section 6.2).
* `exact_values` computes v(h, n) for a compiled game in one bottom-up pass per strategy
  (`tree_values.node_values`); `rollouts.rollout_values` estimates them by Monte Carlo rollouts of
  pyspiel states under OpenSpiel policies (with standard errors) when the rest of the game is
  too large - Section 4's "Monte Carlo simulations".
* `weaken` is Section 4's correction: a continuation that does better than the blueprint
  against the blueprint at a leaf information set is lowered uniformly there.
* `depth_limited_game` is Section 4's depth-limited subgame for player i: a gadget game of
  the subgame package whose copy of the game stops at the leaves, where the opponent picks one
  of the K continuation values (`MultiValuedLeaves.attach`). Both stacks build theirs with it.

Values are player 0's utility (the tree's convention); the table is keyed by leaf history
(`MultiValuedLeaves.table`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import arrays, loading, policies, tree_values
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.rollouts import rollout_values
from ospiel_ext.algorithms.subgames import cuts
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import SubtreeCopy, TreeBuilder

LEAF_PREFIX = "depth_limit:"


def set_multi_valued_leaf(
    builder: TreeBuilder, node: int, player: int, *, key: str, values: Sequence[float]
) -> int:
    """Makes the builder's unexpanded `node` a multi-valued leaf (Section 4).

    `player` (the opponent) picks, in information set `key`, one of K continuation
    strategies; action n leads to a terminal leaf worth `values[n]` to player 0. Returns the
    first of those leaves.
    """
    if len(values) == 0:
        raise ValueError(f"node {node}: a multi-valued leaf needs at least one value")
    first = builder.expand_decision(node, player, key, range(len(values)))
    for k, v in enumerate(values):
        builder.set_leaf(first + k, float(v), float(v))
    return first


@dataclasses.dataclass(frozen=True, eq=False)
class DepthLimit:
    """The leaf states of a depth limit in a compiled tree.

    Attributes:
      tree: the full game tree.
      cut: the depth limit.
      nodes: the leaf states (full-tree node ids, ascending; chance nodes at the cut are
        replaced by their children, as for subgame roots, unless `cut.leaves_at_chance`:
        then they are the leaves).
      keys: per player, its information state at each leaf state.
    """

    tree: GameTree
    cut: cuts.Cut
    nodes: IntArray
    keys: tuple[tuple[str, ...], tuple[str, ...]]

    @functools.cached_property
    def row(self) -> IntArray:
        """For every node of the tree, its index in `nodes`, or -1."""
        row = np.full(self.tree.num_nodes, -1, dtype=np.int64)
        row[self.nodes] = np.arange(len(self.nodes))
        return row

    @functools.cached_property
    def expand(self) -> NDArray[np.bool_]:
        """True at the nodes strictly above the limit (the depth-limited game expands them)."""
        at = self.row >= 0
        return self.tree.top_down(True, lambda nodes, up: up & ~at[nodes]) & ~at


def depth_limit(tree: GameTree, cut: cuts.Cut) -> DepthLimit:
    """The leaf states of `cut` in `tree`.

    ValueError, naming the game, if it selects none or splits an information set.
    """
    rs = cuts.find_roots(tree, cut)  # the checks; below a chance node = below its children
    if not cut.leaves_at_chance:
        return DepthLimit(tree, cut, rs.roots, rs.keys)
    nodes = cuts.cut_nodes(tree, cut)
    nodes = nodes[~tree.is_leaf[nodes]]
    states = [tree.state(int(h)) for h in nodes]
    keys = tuple(tuple(loading.infoset_key(s, p) for s in states) for p in (0, 1))
    return DepthLimit(tree, cut, nodes, (keys[0], keys[1]))


ROUND_END = "round_end"


def parse_limit(spec: str) -> cuts.Cut:
    """A depth limit given as text.

    'round_end' (`Cut.before_public_chance`: leaves at the chance node that deals the next
    public card) or a cut of `cuts.parse_cut` ('after_moves=K', 'public_chance',
    'after_chance_events=K', 'module:function').
    """
    if spec == ROUND_END:
        return cuts.Cut.before_public_chance()
    try:
        return cuts.parse_cut(spec)
    except ValueError as e:
        raise ValueError(f"{e}, or {ROUND_END} (a depth limit)") from None


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class MultiValuedLeaves:
    """K continuation values at every leaf state of a depth limit, for solving `player`.

    Attributes:
      limit: the depth limit.
      player: the solving player i; the opponent picks the continuation.
      values: (leaf states, K) player 0's utility v(h, n).
      stderr: the standard error of each value (rollouts), or None (exact).
      labels: a name per continuation strategy.
      strategies: the opponent's continuation strategies (behavioural arrays of the full
        game), when known.
    """

    limit: DepthLimit
    player: int
    values: FloatArray
    stderr: FloatArray | None = None
    labels: tuple[str, ...] = ()
    strategies: tuple[FloatArray, ...] = ()

    def __post_init__(self) -> None:
        if self.player not in (0, 1):
            raise ValueError(f"{self.tree.name}: the solving player must be 0 or 1")
        shape = (len(self.limit.nodes), self.num_values)
        if self.values.ndim != 2 or self.values.shape != shape or self.num_values < 1:
            raise ValueError(
                f"{self.tree.name}: leaf values have shape {self.values.shape}, expected "
                f"(leaf states = {shape[0]}, K >= 1)"
            )
        if not np.all(np.isfinite(self.values)):
            raise ValueError(f"{self.tree.name}: leaf values must be finite")

    @property
    def tree(self) -> GameTree:
        """The full game tree (the depth limit's)."""
        return self.limit.tree

    @property
    def num_values(self) -> int:
        """K, the number of continuation values per leaf state (0 if `values` is not 2-D)."""
        return int(self.values.shape[1]) if self.values.ndim == 2 else 0

    @property
    def opponent(self) -> int:
        """The opponent o = 1 - i, who picks the continuation."""
        return 1 - self.player

    @property
    def nodes(self) -> IntArray:
        """The leaf states (`DepthLimit.nodes`)."""
        return self.limit.nodes

    @property
    def row(self) -> IntArray:
        """For every node of the tree, its index in `nodes`, or -1 (`DepthLimit.row`)."""
        return self.limit.row

    @property
    def expand(self) -> NDArray[np.bool_]:
        """True at the nodes strictly above the limit (`DepthLimit.expand`)."""
        return self.limit.expand

    @functools.cached_property
    def keys(self) -> tuple[str, ...]:
        """The opponent's depth-limit information set at each leaf state."""
        return tuple(LEAF_PREFIX + k for k in self.limit.keys[self.opponent])

    @property
    def leaf_keys(self) -> tuple[str, ...]:
        """The distinct depth-limit information sets, in order of first appearance."""
        return tuple(dict.fromkeys(self.keys))

    def table(self) -> dict[tuple[int, ...], list[float]]:
        """{leaf history (action ids from the root): [v(h, 1), .., v(h, K)]}."""
        return {
            tuple(self.tree.history(int(h))): row.tolist()
            for h, row in zip(self.nodes, self.values)
        }

    def attach(self, builder: TreeBuilder, copy: SubtreeCopy, shift: float = 0.0) -> None:
        """Makes every leaf state that `copy` copied a multi-valued leaf of the opponent.

        `copy` is a `TreeBuilder.copy_subtree` of this tree, stopped at the limit (`expand`);
        the leaves get the values minus `shift` (player 0's utility): the gadget games of the
        subgame package call this on their copies.
        """
        rows = self.row[copy.source_nodes]
        for k in np.flatnonzero(rows >= 0).tolist():
            r = int(rows[k])
            set_multi_valued_leaf(
                builder,
                int(copy.nodes[k]),
                self.opponent,
                key=self.keys[r],
                values=self.values[r] - shift,
            )

    def select(self, columns: Sequence[int]) -> MultiValuedLeaves:
        """The leaves with the given continuations only (e.g. the first K)."""
        cols = list(columns)
        return dataclasses.replace(
            self,
            values=self.values[:, cols],
            stderr=None if self.stderr is None else self.stderr[:, cols],
            labels=tuple(self.labels[c] for c in cols) if self.labels else (),
            strategies=tuple(self.strategies[c] for c in cols) if self.strategies else (),
        )


def depth_limited_game(
    q: ss.BlueprintQuantities,
    subgame: ss.Subgame,
    leaves: MultiValuedLeaves,
    gadget: GadgetKind = "unsafe",
) -> ss.GadgetGame:
    """The depth-limited subgame of `subgame` for `leaves.player`, as a gadget game.

    The gadget game is of kind `gadget` ('unsafe' uses the blueprint's beliefs; 'resolving' or
    'max_margin' bound the opponent's root values, Proposition 1), and its copy stops at the
    leaves (module docstring).
    """
    return ss.gadget_game(gadget, q, subgame, player=leaves.player, leaves=leaves)


def profile_with(
    behavioural: policies.Behavioural, player: int, strategy: ArrayLike
) -> policies.Behavioural:
    """The behavioural profile `behavioural` with `player`'s strategy replaced."""
    out = [behavioural[0], behavioural[1]]
    out[player] = np.asarray(strategy, dtype=np.float64)
    return out[0], out[1]


def exact_values(
    sf: TreeSequenceForm,
    limit: DepthLimit,
    blueprint: policies.Behavioural,
    *,
    player: int,
    strategies: Sequence[ArrayLike],
    labels: Sequence[str] = (),
) -> MultiValuedLeaves:
    """v(h, n) of every leaf state under <blueprint_i, strategies[n]>, computed exactly.

    `strategies` are opponent behavioural arrays of `sf`; one bottom-up pass per strategy.
    """
    if limit.tree is not sf.tree:
        raise ValueError(f"{sf.name}: the depth limit was found in another tree")
    if not len(strategies):
        raise ValueError(f"{sf.name}: give at least one continuation strategy")
    columns = [
        tree_values.node_values(sf.tree, sf.tree_profile(profile_with(blueprint, 1 - player, s)))[
            limit.nodes
        ]
        for s in strategies
    ]
    return MultiValuedLeaves(
        limit=limit,
        player=player,
        values=np.stack(columns, axis=1),
        stderr=None,
        labels=tuple(labels),
        strategies=tuple(np.asarray(s, dtype=np.float64) for s in strategies),
    )


def leaf_beliefs(
    sf: TreeSequenceForm, limit: DepthLimit, blueprint: policies.Behavioural, player: int
) -> FloatArray:
    """The opponent's unnormalised belief over the states of each of its leaf information sets.

    The belief in h is P_i(h) P_c(h) under the blueprint.
    """
    reach = tree_values.reaches(sf.tree, sf.tree_profile(blueprint))
    return reach.player(player)[limit.nodes] * reach.chance[limit.nodes]


def weaken(leaves: MultiValuedLeaves, beliefs: ArrayLike, reference: int = 0) -> MultiValuedLeaves:
    """Section 4's weakening of continuations better for the opponent than the reference one.

    Where continuation n gives the opponent a higher value than the `reference` one (the
    blueprint's) at a leaf information set I, v_o(I) = sum_h p(h) v_o(h) with p the
    opponent's belief, every v_o(h, n), h in I, is lowered by the difference. An information
    set the blueprint never reaches (all beliefs 0) is weighted uniformly.
    """
    p = np.asarray(beliefs, dtype=np.float64)
    ids = arrays.intern(leaves.keys)
    n_sets = int(ids.max()) + 1
    total = arrays.weighted_bincount(ids, p, n_sets)
    w = np.where(total[ids] > 0, p, 1.0)
    norm = arrays.weighted_bincount(ids, w, n_sets)
    sign = 1.0 if leaves.opponent == 0 else -1.0
    v_o = sign * leaves.values  # the opponent's utility
    per_set = np.stack(
        [arrays.weighted_bincount(ids, w * v_o[:, n], n_sets) for n in range(v_o.shape[1])],
        axis=1,
    )
    per_set /= norm[:, None]
    excess = np.maximum(per_set - per_set[:, [reference]], 0.0)
    values = sign * (v_o - excess[ids])
    return dataclasses.replace(leaves, values=values)


def estimate_by_rollouts(
    sf: TreeSequenceForm,
    leaves: MultiValuedLeaves,
    blueprint: policies.Behavioural,
    *,
    samples: int,
    seed: int,
) -> MultiValuedLeaves:
    """`leaves` with every value replaced by its `rollout_values` estimate.

    The same strategies are used (the leaves must carry them), and the estimates come with
    standard errors.
    """
    if len(leaves.strategies) != leaves.num_values:
        raise ValueError(f"{sf.name}: rollouts need the leaves' continuation strategies")
    layout = policies.layout(sf)
    i, o = leaves.player, leaves.opponent
    own = layout.to_tabular(blueprint)
    opponents = [layout.to_tabular(profile_with(blueprint, o, s)) for s in leaves.strategies]
    histories = [sf.tree.history(int(h)) for h in leaves.nodes]
    assert sf.tree.game is not None
    est = rollout_values(
        sf.tree.game, histories, own, player=i, strategies=opponents, samples=samples, seed=seed
    )
    return dataclasses.replace(leaves, values=est.mean, stderr=est.stderr)
