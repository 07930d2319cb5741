"""TreeBuilder: grows a `tree.GameTree` node by node, and copies subtrees of another tree.

Tree surgery, written once for every algorithm:

* `TreeBuilder.expand_from_state`: one node from a pyspiel state (`walk.game_tree`, the trunks
  of certificate search, depth-limited games walked from states: `walk.expand_below`);
* `TreeBuilder.expand_chance` / `expand_decision` / `set_leaf`: nodes by hand (gadget games,
  abstracted games);
* `TreeBuilder.copy_subtree` / `copy_subtrees` / `subgame`: subtrees of another tree under
  nodes of a builder (subgames and gadget games, minimal certificates), level by level in a
  few numpy calls, many subtrees in one pass.
"""

from __future__ import annotations

import array
import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import arrays, loading
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.tree import CHANCE, TERMINAL, GameTree

ChanceOutcomes = Callable[[pyspiel.State], Sequence[tuple[int, float]]]
# An action abstraction: the actions kept at a decision state (a non-empty subset of its
# legal actions, the same for every state of an information set).
ActionFilter = Callable[[pyspiel.State], Sequence[int]]


def _extend(buffer: array.array, values: np.ndarray) -> None:
    """Appends a numpy array to a typed buffer in one call."""
    dtype = {"i": np.int32, "q": np.int64, "d": np.float64}[buffer.typecode]
    buffer.frombytes(np.ascontiguousarray(values, dtype=dtype).tobytes())


class TreeBuilder:
    """Grows a GameTree node by node: root first, then leaves expanded on demand.

    Used by `walk.game_tree` and by every algorithm that builds a tree of its own
    (certificate trunks, gadget games, abstracted games). Infosets are interned by
    (player, key); all nodes of one infoset must have the same legal actions.
    """

    def __init__(
        self, name: str = "tree", game: pyspiel.Game | None = None, utility_sum: float = 0.0
    ):
        self.name, self.game, self.utility_sum = name, game, utility_sum
        self._key = None if game is None else loading.key_function(game)
        # Compact typed buffers (array.array), turned into numpy arrays by freeze().
        self._parent = array.array("i")
        self._action = array.array("q")
        self._depth = array.array("i")
        self._player = array.array("i")
        self._infoset = array.array("i")
        self._chance_prob = array.array("d")
        self._child_start = array.array("i")
        self._num_children = array.array("i")
        self._lo = array.array("d")
        self._hi = array.array("d")
        self._infoset_ids: dict[tuple[int, str], int] = {}
        self.infoset_player: list[int] = []
        self.infoset_key: list[str] = []
        self.infoset_legal_actions: list[tuple[int, ...]] = []

    @property
    def num_nodes(self) -> int:
        """The number of nodes built so far."""
        return len(self._parent)

    def depth(self, node: int) -> int:
        """The depth of `node` (0 at the root)."""
        return self._depth[node]

    def is_expanded(self, node: int) -> bool:
        """True once `node` has children."""
        return self._num_children[node] > 0

    def node_infoset_key(self, node: int) -> str:
        """The information set key of the decision node `node`."""
        infoset = self._infoset[node]
        if infoset < 0:
            raise ValueError(f"node {node} is not a decision node")
        return self.infoset_key[infoset]

    def add_root(self) -> int:
        """Adds the root node (id 0) and returns its id; ValueError if there is one."""
        if self._parent:
            raise ValueError("the tree already has a root")
        self._append_children(-1, 0, [-1], [1.0])
        return 0

    def set_leaf(self, node: int, lo: float, hi: float) -> None:
        """Makes `node` a leaf whose player-0 utility lies in [lo, hi]."""
        if lo > hi:
            raise ValueError(f"leaf bounds lo={lo} > hi={hi}")
        self._lo[node], self._hi[node] = lo, hi

    def set_chance_prob(self, node: int, prob: float) -> None:
        """Overrides the probability of the chance edge into `node`.

        E.g. with an unnormalised reach: a gadget game's root chance weights need not sum to 1
        (Kubicek, Lisy & Sandholm 2024, "Equilibrium Refinements Improve Subgame Solving in
        Imperfect-Information Games", Section 3).
        """
        parent = self._parent[node]
        if parent < 0 or self._player[parent] != CHANCE:
            raise ValueError(f"node {node} is not a chance outcome")
        if not prob >= 0:
            raise ValueError(f"chance probability {prob} at node {node} is not >= 0")
        self._chance_prob[node] = prob

    def _append_children(
        self, node: int, depth: int, actions: Sequence[int], probs: Sequence[float]
    ) -> int:
        n, first = len(actions), len(self._parent)
        self._parent.extend([node] * n)
        self._action.extend(actions)
        self._depth.extend([depth] * n)
        self._player.extend([TERMINAL] * n)
        self._infoset.extend([-1] * n)
        self._chance_prob.extend(probs)
        self._child_start.extend([0] * n)
        self._num_children.extend([0] * n)
        self._lo.extend([0.0] * n)
        self._hi.extend([0.0] * n)
        return first

    def _expand(self, node: int, actions: Sequence[int], probs: Sequence[float]) -> int:
        if self._num_children[node]:
            raise ValueError(f"node {node} is already expanded")
        if len(actions) == 0:
            raise ValueError(f"node {node} is expanded with no actions")
        first = self._append_children(node, self._depth[node] + 1, actions, probs)
        self._child_start[node], self._num_children[node] = first, len(actions)
        return first

    def expand_chance(self, node: int, actions: Sequence[int], probs: Sequence[float]) -> int:
        """Makes `node` a chance node; returns the id of its first child."""
        if abs(sum(probs) - 1.0) > 1e-9:
            raise ValueError(f"chance probabilities at node {node} sum to {sum(probs)}, not 1")
        self._player[node] = CHANCE
        return self._expand(node, [int(a) for a in actions], [float(p) for p in probs])

    def _intern_infoset(self, player: int, key: str, actions: Sequence[int]) -> int:
        """The id of `player`'s information set `key` (created on first use).

        ValueError if it was created with other legal actions.
        """
        if player not in (0, 1):
            raise ValueError(f"player {player} of information set {key!r} is not 0 or 1")
        legal = tuple(map(int, actions))
        infoset = self._infoset_ids.setdefault((player, key), len(self.infoset_key))
        if infoset == len(self.infoset_key):
            self.infoset_player.append(player)
            self.infoset_key.append(key)
            self.infoset_legal_actions.append(legal)
        elif self.infoset_legal_actions[infoset] != legal:
            raise ValueError(
                f"game {self.name}: information set {key!r} has nodes with different "
                f"legal actions {self.infoset_legal_actions[infoset]} and {legal}"
            )
        return infoset

    def expand_decision(self, node: int, player: int, key: str, actions: Sequence[int]) -> int:
        """Makes `node` a decision node of `player` in information set `key`."""
        infoset = self._intern_infoset(player, key, actions)
        legal = self.infoset_legal_actions[infoset]
        self._player[node] = player
        self._infoset[node] = infoset
        return self._expand(node, legal, [1.0] * len(legal))

    def expand_from_state(
        self,
        node: int,
        state: pyspiel.State,
        chance_outcomes: ChanceOutcomes | None = None,
        actions: ActionFilter | None = None,
    ) -> tuple[int, list[int]]:
        """Expands `node` like the non-terminal pyspiel `state`.

        A chance node with its outcomes (from `chance_outcomes(state)` if given, e.g.
        sampled), or a decision node in the current player's `information_state_string` with
        its legal actions (or the subset `actions(state)` of them: an action abstraction).

        Returns:
          (first child id, the children's actions in order).
        """
        if state.is_chance_node():
            outcomes = (chance_outcomes or _chance_outcomes)(state)
            chance_actions = [a for a, _ in outcomes]
            first = self.expand_chance(node, chance_actions, [p for _, p in outcomes])
            return first, chance_actions
        if state.is_terminal():
            raise ValueError(f"node {node}: a terminal state has no children")
        player = state.current_player()
        key = (self._key or loading.key_function(state.get_game()))(state, player)
        legal = state.legal_actions()
        if actions is None:
            kept = legal
        else:
            kept = sorted(set(map(int, actions(state))))
            if not kept or not set(kept) <= set(legal):
                raise ValueError(
                    f"game {self.name}: the action abstraction keeps {kept} in information "
                    f"set {key!r}, not a non-empty subset of the legal actions {legal}"
                )
        return self.expand_decision(node, player, key, kept), kept

    def copy_subtree(
        self,
        tree: GameTree,
        source: int,
        target: int,
        *,
        expand: NDArray[np.bool_] | None = None,
        leaf_lo: FloatArray | None = None,
        leaf_hi: FloatArray | None = None,
        infoset_key: Callable[[int], str] | None = None,
    ) -> SubtreeCopy:
        """Makes the unexpanded `target` a copy of `tree`'s subtree at `source`.

        The edge into `target` (its action and chance probability) stays the builder's: the
        caller chose it when expanding target's parent (`set_chance_prob` rescales it). Copied
        nodes are appended level by level (breadth first) in a handful of numpy calls per
        level; copied infosets keep the source's key, so they map back to the source tree's
        (and game's) information sets, unless `infoset_key` re-keys them.

        Args:
          tree: the source tree.
          source: the root of the copied subtree.
          target: a node of this builder, not yet expanded.
          expand: a mask over `tree`'s nodes; internal nodes outside it are copied as leaves
            (default: all internal nodes are expanded).
          leaf_lo: player 0's utility lower bound of every node copied as a leaf, over
            `tree`'s nodes (default `tree.lo`).
          leaf_hi: the upper bound likewise (default `tree.hi`).
          infoset_key: the key of the copy of each source infoset id (default: the same key).

        Returns:
          The copied source nodes, their new ids, and the copied infosets' new and source ids.
        """
        copies = self.copy_subtrees(
            tree,
            [source],
            [target],
            expand=expand,
            leaf_lo=leaf_lo,
            leaf_hi=leaf_hi,
            infoset_key=infoset_key,
        )
        return SubtreeCopy(
            copies.source_nodes, copies.nodes, copies.infosets, copies.source_infosets
        )

    def copy_subtrees(
        self,
        tree: GameTree,
        sources: ArrayLike,
        targets: ArrayLike,
        *,
        expand: NDArray[np.bool_] | None = None,
        leaf_lo: FloatArray | None = None,
        leaf_hi: FloatArray | None = None,
        infoset_key: Callable[[int], str] | None = None,
    ) -> SubtreeCopies:
        """Makes each unexpanded `targets[k]` a copy of `tree`'s subtree at `sources[k]`.

        The same nodes, information sets, chance probabilities and leaf bounds, with the same
        ids, as `copy_subtree(tree, sources[k], targets[k], ...)` called for k = 0, 1, ..
        in turn, but in one breadth-first pass over all the subtrees at once (a handful of
        numpy calls per level, not per subtree): copy k's appended nodes form one block, after
        copy k - 1's, breadth first within it; infosets are interned in order of first
        appearance over the blocks.

        Args:
          tree: the source tree.
          sources: the roots of the copied subtrees (a source may repeat).
          targets: distinct nodes of this builder, not yet expanded, one per source.
          expand: a mask over `tree`'s nodes; internal nodes outside it are copied as leaves
            (default: all internal nodes are expanded).
          leaf_lo: player 0's utility lower bound of every node copied as a leaf, over
            `tree`'s nodes (default `tree.lo`).
          leaf_hi: the upper bound likewise (default `tree.hi`).
          infoset_key: the key of the copy of each source infoset id (default: the same key).

        Returns:
          The copied source nodes and their new ids, block by block, and the copied infosets.
        """
        source_ids, target_ids = self._check_targets(sources, targets)
        internal = ~tree.is_leaf if expand is None else (~tree.is_leaf & expand)
        src, copy_of, parent_of = _breadth_first(tree, source_ids, internal)
        # Block order: copy by copy, breadth first within each (a stable sort keeps levels).
        order = np.argsort(copy_of, kind="stable")
        src, copy_of = src[order], copy_of[order]
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        block_start = np.searchsorted(copy_of, np.arange(len(source_ids)))
        is_target = np.zeros(len(src), dtype=bool)
        is_target[block_start] = True
        new = np.empty(len(src), dtype=np.int64)
        new[block_start] = target_ids
        new[~is_target] = self.num_nodes + np.arange(len(src) - len(source_ids))
        is_internal = internal[src]
        sizes = np.where(is_internal, tree.num_children[src], 0).astype(np.int64)
        before = np.cumsum(sizes) - sizes
        first_child = block_start[copy_of] + 1 + before - before[block_start][copy_of]
        child_start = np.where(is_internal, new[np.minimum(first_child, len(src) - 1)], 0)
        player = np.where(is_internal, tree.player[src], TERMINAL)
        lo, hi = _leaf_bounds(tree, src, is_internal, leaf_lo=leaf_lo, leaf_hi=leaf_hi)
        infoset, new_infosets, source_infosets = self._intern_copies(
            tree, np.where(is_internal, tree.infoset[src], -1), infoset_key
        )
        _assign(self._player, target_ids, player[is_target])
        _assign(self._infoset, target_ids, infoset[is_target])
        _assign(self._child_start, target_ids, child_start[is_target])
        _assign(self._num_children, target_ids, sizes[is_target])
        _assign(self._lo, target_ids, lo[is_target])
        _assign(self._hi, target_ids, hi[is_target])
        rest = ~is_target
        if rest.any():
            depth_shift = np.frombuffer(self._depth, dtype=np.int32)[target_ids].astype(np.int64)
            depth_shift -= tree.depth[source_ids]
            parents = np.full(len(src), -1, dtype=np.int64)
            has_parent = np.flatnonzero(parent_of >= 0)
            parents[position[has_parent]] = position[parent_of[has_parent]]
            _extend(self._parent, new[parents[rest]])
            _extend(self._action, tree.action[src[rest]])
            _extend(self._depth, tree.depth[src[rest]] + depth_shift[copy_of[rest]])
            _extend(self._player, player[rest])
            _extend(self._infoset, infoset[rest])
            _extend(self._chance_prob, tree.chance_prob[src[rest]])
            _extend(self._child_start, child_start[rest])
            _extend(self._num_children, sizes[rest])
            _extend(self._lo, lo[rest])
            _extend(self._hi, hi[rest])
        return SubtreeCopies(src, new, block_start, new_infosets, source_infosets)

    def _check_targets(self, sources: ArrayLike, targets: ArrayLike) -> tuple[IntArray, IntArray]:
        """The sources and targets as int64 arrays, after checking the targets."""
        source_ids = np.asarray(sources, dtype=np.int64).reshape(-1)
        target_ids = np.asarray(targets, dtype=np.int64).reshape(-1)
        if source_ids.shape != target_ids.shape or not len(source_ids):
            raise ValueError(f"{len(source_ids)} sources for {len(target_ids)} targets")
        if len(np.unique(target_ids)) != len(target_ids):
            raise ValueError(f"the targets {target_ids} are not distinct")
        if np.any(target_ids < 0) or np.any(target_ids >= self.num_nodes):
            raise ValueError(f"the targets {target_ids} are not all nodes of the builder")
        expanded = np.frombuffer(self._num_children, dtype=np.int32)[target_ids] > 0
        if expanded.any():
            raise ValueError(f"node {int(target_ids[np.argmax(expanded)])} is already expanded")
        return source_ids, target_ids

    def _intern_copies(
        self,
        tree: GameTree,
        src_infoset: IntArray,
        infoset_key: Callable[[int], str] | None,
    ) -> tuple[IntArray, IntArray, IntArray]:
        """Interns the source infosets of copied nodes in order of first appearance.

        Returns:
          (the builder's infoset of every copied node or -1, the new infoset ids, the source
          infoset ids aligned with them).
        """
        decision = np.flatnonzero(src_infoset >= 0)
        uniq, first_seen = np.unique(src_infoset[decision], return_index=True)
        source_infosets = uniq[np.argsort(first_seen, kind="stable")]
        new_infosets = np.array(
            [
                self._intern_infoset(
                    int(tree.infoset_player[i]),
                    tree.infoset_key[i] if infoset_key is None else infoset_key(int(i)),
                    tree.infoset_legal_actions[i],
                )
                for i in source_infosets.tolist()
            ],
            dtype=np.int64,
        )
        infoset = np.full(len(src_infoset), -1, dtype=np.int64)
        if len(decision):
            remap = np.searchsorted(uniq, src_infoset[decision])
            infoset[decision] = new_infosets[np.argsort(source_infosets)][remap]
        return infoset, new_infosets, source_infosets

    def freeze(self) -> GameTree:
        """Returns the arrays built so far as a GameTree (the builder may keep growing)."""
        if not self._parent:
            raise ValueError("the tree has no root")
        return GameTree(
            parent=np.array(self._parent, dtype=np.int32),
            action=np.array(self._action, dtype=np.int64),
            depth=np.array(self._depth, dtype=np.int32),
            player=np.array(self._player, dtype=np.int32),
            infoset=np.array(self._infoset, dtype=np.int32),
            chance_prob=np.array(self._chance_prob, dtype=np.float64),
            child_start=np.array(self._child_start, dtype=np.int32),
            num_children=np.array(self._num_children, dtype=np.int32),
            lo=np.array(self._lo, dtype=np.float64),
            hi=np.array(self._hi, dtype=np.float64),
            infoset_player=np.array(self.infoset_player, dtype=np.int32),
            infoset_key=list(self.infoset_key),
            infoset_legal_actions=list(self.infoset_legal_actions),
            utility_sum=self.utility_sum,
            game=self.game,
            name=self.name,
        )


def _assign(buffer: array.array, index: IntArray, values: np.ndarray) -> None:
    """Writes `values` at `index` of a typed buffer (through a numpy view, released after)."""
    dtype = {"i": np.int32, "q": np.int64, "d": np.float64}[buffer.typecode]
    view = np.frombuffer(buffer, dtype=dtype)
    view[index] = values
    del view


def _breadth_first(
    tree: GameTree, sources: IntArray, internal: NDArray[np.bool_]
) -> tuple[IntArray, IntArray, IntArray]:
    """The nodes of the subtrees at `sources`, level by level, expanding `internal` nodes.

    Returns:
      (the source node at every position, the index of its subtree in `sources`, the position
      of its parent, -1 at the roots).
    """
    src_parts, copy_parts = [sources], [np.arange(len(sources), dtype=np.int64)]
    parent_parts = [np.full(len(sources), -1, dtype=np.int64)]
    level_start = 0
    while True:
        local = np.flatnonzero(internal[src_parts[-1]])
        if not len(local):
            break
        parents = src_parts[-1][local]
        sizes = tree.num_children[parents].astype(np.int64)
        src_parts.append(arrays.segment_indices(tree.child_start[parents], sizes))
        copy_parts.append(np.repeat(copy_parts[-1][local], sizes))
        parent_parts.append(np.repeat(level_start + local, sizes))
        level_start += len(src_parts[-2])
    return np.concatenate(src_parts), np.concatenate(copy_parts), np.concatenate(parent_parts)


def _leaf_bounds(
    tree: GameTree,
    src: IntArray,
    is_internal: NDArray[np.bool_],
    *,
    leaf_lo: FloatArray | None,
    leaf_hi: FloatArray | None,
) -> tuple[FloatArray, FloatArray]:
    """The bounds of every copied node (0 at the internal ones); ValueError if lo > hi."""
    lo = tree.lo if leaf_lo is None else np.asarray(leaf_lo, dtype=np.float64)
    hi = tree.hi if leaf_hi is None else np.asarray(leaf_hi, dtype=np.float64)
    lo_values = np.where(is_internal, 0.0, lo[src])
    hi_values = np.where(is_internal, 0.0, hi[src])
    bad = np.flatnonzero(lo_values > hi_values)
    if len(bad):
        n = int(src[bad[0]])
        raise ValueError(f"leaf bounds lo={lo[n]} > hi={hi[n]} at source node {n}")
    return lo_values, hi_values


def _chance_outcomes(state: pyspiel.State) -> Sequence[tuple[int, float]]:
    outcomes: Sequence[tuple[int, float]] = state.chance_outcomes()
    return outcomes


@dataclasses.dataclass(frozen=True)
class SubtreeCopy:
    """What `TreeBuilder.copy_subtree` copied.

    Attributes:
      source_nodes: the copied nodes of the source tree (breadth first, the source first).
      nodes: their ids in the builder, aligned with `source_nodes` (the target first).
      infosets: the builder's ids of the copied information sets.
      source_infosets: the source tree's ids of the same information sets, aligned.
    """

    source_nodes: IntArray
    nodes: IntArray
    infosets: IntArray
    source_infosets: IntArray


@dataclasses.dataclass(frozen=True)
class SubtreeCopies:
    """What `TreeBuilder.copy_subtrees` copied: one block of nodes per subtree.

    Attributes:
      source_nodes: the copied nodes of the source tree, block by block (each breadth first,
        its source first).
      nodes: their ids in the builder, aligned with `source_nodes` (each block's target first).
      block_start: the position in `nodes` where each subtree's block starts.
      infosets: the builder's ids of the copied information sets (of all the blocks).
      source_infosets: the source tree's ids of the same information sets, aligned.
    """

    source_nodes: IntArray
    nodes: IntArray
    block_start: IntArray
    infosets: IntArray
    source_infosets: IntArray

    def block(self, k: int) -> tuple[IntArray, IntArray]:
        """(source nodes, builder nodes) of the k-th subtree's copy."""
        end = self.block_start[k + 1] if k + 1 < len(self.block_start) else len(self.nodes)
        start = int(self.block_start[k])
        return self.source_nodes[start:end], self.nodes[start:end]


def subgame(
    tree: GameTree,
    roots: Sequence[int],
    weights: ArrayLike | None = None,
    *,
    normalize: bool = True,
    name: str | None = None,
) -> tuple[GameTree, list[SubtreeCopy]]:
    """A new tree whose root is a chance node over copies of the subtrees at `roots`.

    This is the subgame of Kubíček, Lisý & Sandholm 2025 ("Equilibrium Refinements Improve
    Subgame Solving in Imperfect-Information Games"), Section 2.1: a chance node chooses
    between the histories of a public state with probability proportional to their reach.
    Outcome k of the new root leads to the copy of `roots[k]`.

    Args:
      tree: the source tree.
      roots: the subgame's root nodes (distinct, none an ancestor of another).
      weights: the weight of each root (default: `tree.chance_reach[roots]`; a caller with a
        blueprint passes its reach probabilities).
      normalize: divide the weights by their sum (a proper chance node); False keeps them as
        they are (a gadget game's root, whose weights need not sum to 1, Section 3).
      name: of the new tree.
    """
    root_ids = np.asarray(roots, dtype=np.int64)
    if len(root_ids) == 0 or len(np.unique(root_ids)) != len(root_ids):
        raise ValueError(f"{tree.name}: a subgame needs distinct root nodes, got {root_ids}")
    w = tree.chance_reach[root_ids] if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != root_ids.shape or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"{tree.name}: subgame weights {w} are not >= 0 with a positive sum")
    builder = TreeBuilder(
        name=name or f"subgame of {tree.name}", game=tree.game, utility_sum=tree.utility_sum
    )
    first = builder.expand_chance(
        builder.add_root(), range(len(root_ids)), [1 / len(root_ids)] * len(root_ids)
    )
    copies = []
    for k, (root, weight) in enumerate(zip(root_ids, w / w.sum() if normalize else w)):
        builder.set_chance_prob(first + k, float(weight))
        copies.append(builder.copy_subtree(tree, int(root), first + k))
    return builder.freeze(), copies
