"""GameTree: a two-player zero-sum extensive-form game walked once into flat arrays.

Every solver in ospiel_ext works on a `GameTree` (through `sequence_form.SequenceForm`), never
on `pyspiel.State` objects. A tree is built

* from a pyspiel game by `walk.game_tree` (one iterative depth-first walk that keeps one
  pyspiel state per depth level, behind the node cap of `loading.node_cap`), or
* from another tree (trunks, gadget games, abstracted games) through
  `tree_builder.TreeBuilder`, which lets a caller add a root, expand leaves on demand and
  `freeze()` the result.

Node arrays (length `num_nodes`, node 0 is the root, a parent always precedes its children and
the children of a node are contiguous, in the order of its legal actions / chance outcomes):

  parent, action, depth, player (0, 1, CHANCE, or TERMINAL for every leaf), infoset (global
  information-set id of a decision node, -1 otherwise), chance_prob (probability of the edge
  into the node when its parent is a chance node, 1 otherwise), child_start, num_children,
  lo / hi (bounds on player 0's utility at a leaf: equal at a terminal history; a leaf of a
  trunk may carry an interval, as in Zhang & Sandholm 2021, "Finding and Certifying
  (Near-)Optimal Strategies in Black-Box Extensive-Form Games", Def. 3.1).

Information-set arrays (length `num_infosets`): infoset_player, infoset_key (the
`information_state_string`), infoset_legal_actions (tuple of action ids).

Passes over a tree, written once for every algorithm: `GameTree.top_down` /
`GameTree.bottom_up`, vectorised over depth levels; the values of a behavioural profile
(reaches, node values, counterfactual values and counterfactual best-response values) are in
`ospiel_ext.tree_values`.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable

import numpy as np
import pyspiel
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import loading
from ospiel_ext.arrays import FloatArray, IntArray

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def _frozen(a: np.ndarray) -> np.ndarray:
    """`a`, read-only (cached arrays are shared by all callers)."""
    a.flags.writeable = False
    return a


@dataclasses.dataclass(frozen=True)
class NodeLevel:
    """The nodes of one depth d >= 1 in id order; the children of a node are contiguous.

    Attributes:
      nodes: the nodes of the level.
      parents: the parent of each group of siblings (each internal node of depth d - 1 once).
      starts: offset of each group of siblings in `nodes` (`ufunc.reduceat` offsets).
    """

    nodes: IntArray
    parents: IntArray
    starts: IntArray


@dataclasses.dataclass(eq=False)
class GameTree:
    """Flat-array game tree; see the module docstring for the meaning of each array."""

    parent: NDArray[np.int32]
    action: NDArray[np.int64]
    depth: NDArray[np.int32]
    player: NDArray[np.int32]
    infoset: NDArray[np.int32]
    chance_prob: NDArray[np.float64]
    child_start: NDArray[np.int32]
    num_children: NDArray[np.int32]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    infoset_player: NDArray[np.int32]
    infoset_key: list[str]
    infoset_legal_actions: list[tuple[int, ...]]
    utility_sum: float = 0.0
    game: pyspiel.Game | None = None
    name: str = "tree"

    @property
    def num_nodes(self) -> int:
        """The number of nodes."""
        return len(self.parent)

    @property
    def num_infosets(self) -> int:
        """The number of information sets."""
        return len(self.infoset_player)

    @property
    def is_leaf(self) -> NDArray[np.bool_]:
        """True at every node without children."""
        leaf: NDArray[np.bool_] = self.num_children == 0
        return leaf

    def children(self, node: int) -> range:
        """The ids of `node`'s children (consecutive)."""
        start = int(self.child_start[node])
        return range(start, start + int(self.num_children[node]))

    def history(self, node: int) -> list[int]:
        """The action ids from the root to `node`."""
        actions = []
        while node > 0:
            actions.append(int(self.action[node]))
            node = int(self.parent[node])
        return actions[::-1]

    def node_at(self, history: list[int]) -> int:
        """The node that the action ids `history` (a state's `history()`) reach from the root.

        The inverse of `history`, one step per action through the children.

        Raises:
          ValueError: the tree has no such node (another game's history, or beyond a leaf).
        """
        node = 0
        for action in history:
            kids = self.children(node)
            found = np.flatnonzero(self.action[kids.start : kids.stop] == action)
            if not len(found):
                raise ValueError(f"{self.name} has no node for history {history}")
            node = kids.start + int(found[0])
        return node

    def state(self, node: int) -> pyspiel.State:
        """Replays the history of `node` in the source game."""
        if self.game is None:
            raise ValueError(f"{self.name} was not built from a pyspiel game")
        state = self.game.new_initial_state()
        for a in self.history(node):
            state.apply_action(a)
        return state

    @functools.cached_property
    def depth_order(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Nodes sorted by depth and the offsets of each depth.

        Depth d is `order[offsets[d]:offsets[d+1]]` (computed once per tree; a GameTree's
        arrays are not changed after it is built).
        """
        order = np.argsort(self.depth, kind="stable")
        offsets = np.searchsorted(self.depth[order], np.arange(self.depth.max() + 2))
        return _frozen(order), _frozen(offsets)

    @functools.cached_property
    def levels(self) -> tuple[NodeLevel, ...]:
        """The depth levels 1, 2, ... (`levels[d - 1]` holds depth d), computed once."""
        order, offsets = self.depth_order
        out = []
        for d in range(1, len(offsets) - 1):
            nodes = order[offsets[d] : offsets[d + 1]]
            par = self.parent[nodes]
            starts = np.flatnonzero(np.concatenate([[True], par[1:] != par[:-1]]))
            out.append(NodeLevel(nodes, _frozen(par[starts].astype(np.int64)), _frozen(starts)))
        return tuple(out)

    def top_down(
        self, root_value: ArrayLike, step: Callable[[IntArray, np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """A pass from the root down, one vectorised call per depth level.

        `out[0] = root_value`; then for each depth d = 1, 2, ... with nodes `nodes`:
        `out[nodes] = step(nodes, out[parent[nodes]])`. `root_value` may be an array (then
        `out` has shape (num_nodes, *root_value.shape)); `out` takes its dtype.
        """
        root = np.asarray(root_value)
        out = np.empty((self.num_nodes, *root.shape), dtype=root.dtype)
        out[0] = root
        for lv in self.levels:
            out[lv.nodes] = step(lv.nodes, out[self.parent[lv.nodes]])
        return out

    def bottom_up(
        self,
        leaf_values: ArrayLike,
        reduce: np.ufunc = np.add,
        edge_weight: FloatArray | None = None,
    ) -> np.ndarray:
        """A pass from the deepest level up, one `reduce.reduceat` per depth level.

        Returns `out`, a copy of `leaf_values` (shape (num_nodes, ...)) in which every internal
        node p is replaced by `reduce` over its children c of `edge_weight[c] * out[c]`
        (of `out[c]` without weights): e.g. expected values (np.add, edge probabilities) or
        the range of leaf values below each node (np.minimum / np.maximum).
        """
        out = np.array(leaf_values, copy=True)
        if out.shape[:1] != (self.num_nodes,):
            raise ValueError(f"{self.name}: expected values over {self.num_nodes} nodes")
        for lv in reversed(self.levels):
            vals = out[lv.nodes]
            if edge_weight is not None:
                w = edge_weight[lv.nodes]
                vals = vals * w.reshape(w.shape + (1,) * (vals.ndim - 1))
            out[lv.parents] = reduce.reduceat(vals, lv.starts, axis=0)
        return out

    @functools.cached_property
    def chance_reach(self) -> FloatArray:
        """Product of the chance probabilities from the root to each node (read-only)."""
        return _frozen(self.top_down(1.0, lambda nodes, up: up * self.chance_prob[nodes]))

    @functools.cached_property
    def child_index(self) -> IntArray:
        """Index of each node among its siblings (0 for the root; read-only)."""
        index = np.arange(self.num_nodes) - self.child_start[np.maximum(self.parent, 0)]
        index[0] = 0
        return _frozen(index)

    @functools.cached_property
    def infoset_action_start(self) -> IntArray:
        """Offsets of each infoset's actions in the flat infoset-action layout of profiles.

        The layout of behavioural profiles: infoset i's actions are
        `infoset_action_start[i] : infoset_action_start[i+1]`, in the order of
        `infoset_legal_actions[i]` (read-only, length num_infosets + 1).
        """
        sizes = np.fromiter(map(len, self.infoset_legal_actions), np.int64)
        return _frozen(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))

    @functools.cached_property
    def infoset_action_ids(self) -> IntArray:
        """`infoset_legal_actions` flattened.

        The action id of every entry of the flat infoset-action layout
        (`infoset_action_start`; read-only).
        """
        return _frozen(
            np.fromiter(
                itertools.chain.from_iterable(self.infoset_legal_actions),
                np.int64,
                count=self.num_infoset_actions,
            )
        )

    @property
    def num_infoset_actions(self) -> int:
        """The length of the flat infoset-action layout (actions summed over infosets)."""
        return int(self.infoset_action_start[-1])

    @functools.cached_property
    def edge_index(self) -> IntArray:
        """The index of the edge into each node in the flat infoset-action layout.

        For a node whose parent is a decision node; -1 for the root and chance outcomes
        (read-only).
        """
        par_infoset = self.infoset[np.maximum(self.parent, 0)]
        edge = np.where(
            par_infoset >= 0,
            self.infoset_action_start[np.maximum(par_infoset, 0)] + self.child_index,
            -1,
        )
        edge[0] = -1
        return _frozen(edge)

    @functools.cached_property
    def infoset_nodes(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Decision nodes grouped by infoset.

        `nodes[offsets[i]:offsets[i+1]]` lie in infoset i (computed once per tree).
        """
        decision = np.flatnonzero(self.infoset >= 0)
        nodes = decision[np.argsort(self.infoset[decision], kind="stable")]
        offsets = np.searchsorted(self.infoset[nodes], np.arange(self.num_infosets + 1))
        return _frozen(nodes), _frozen(offsets)

    def stats(self) -> dict[str, int]:
        """Node and information-set counts (histories, terminals, chance, decision, max depth)."""
        leaves = self.is_leaf
        return {
            "histories": self.num_nodes,
            "terminals": int(np.count_nonzero(leaves)),
            "chance_nodes": int(np.count_nonzero(self.player == CHANCE)),
            "decision_nodes": int(np.count_nonzero(self.infoset >= 0)),
            "infosets_0": int(np.count_nonzero(self.infoset_player == 0)),
            "infosets_1": int(np.count_nonzero(self.infoset_player == 1)),
            "max_depth": int(self.depth.max()),
        }

    @functools.cached_property
    def _own_last_moves(self) -> dict[int, NDArray[np.int64]]:
        return {}

    def own_last_move(self, player: int) -> NDArray[np.int64]:
        """For every node, player's last (infoset, action) pair above it, as one integer.

        The pair is encoded as `offset[infoset] + action_index + 1` where `offset` is the
        cumulative number of actions of the player's infosets in id order; 0 means none (the
        empty sequence). This is the sequence of `player` leading to the node, computed by one
        top-down pass over depth levels.
        """
        if player not in self._own_last_moves:
            self._own_last_moves[player] = _frozen(self._compute_own_last_move(player))
        return self._own_last_moves[player]

    def own_moves(self, player: int) -> NDArray[np.bool_]:
        """For every node, whether the edge into it is a move of `player`."""
        par_infoset = self.infoset[np.maximum(self.parent, 0)]
        moved: NDArray[np.bool_] = (par_infoset >= 0) & (
            self.infoset_player[np.maximum(par_infoset, 0)] == player
        )
        moved[0] = False
        return moved

    def _compute_own_last_move(self, player: int) -> NDArray[np.int64]:
        mine = self.infoset_player == player
        if not mine.any():
            return np.zeros(self.num_nodes, dtype=np.int64)
        counts = np.where(mine, np.diff(self.infoset_action_start), 0)
        offset = np.concatenate([[0], np.cumsum(counts)[:-1]])
        moved = self.own_moves(player)
        par_infoset = np.maximum(self.infoset[np.maximum(self.parent, 0)], 0)
        code = np.where(moved, offset[par_infoset] + self.child_index + 1, 0)
        return self.top_down(np.int64(0), lambda nodes, up: np.where(moved[nodes], code[nodes], up))

    def check_perfect_recall(self) -> None:
        """Raises ValueError unless all nodes of each infoset share their owner's sequence.

        On a partial tree such as a trunk: among the nodes it has.
        """
        nodes, offsets = self.infoset_nodes
        for p in (0, 1):
            last = self.own_last_move(p)[nodes]
            owner = self.infoset_player[self.infoset[nodes]] == p
            first_of_infoset = np.repeat(offsets[:-1], np.diff(offsets))
            bad = np.flatnonzero(owner & (last != last[first_of_infoset]))
            if len(bad):
                node, other = int(nodes[bad[0]]), int(nodes[first_of_infoset[bad[0]]])
                raise ValueError(
                    loading.imperfect_recall_message(
                        self.game if self.game is not None else self.name,
                        p,
                        self.infoset_key[int(self.infoset[node])],
                        (self.history(other), self.history(node)),
                    )
                )
