"""Independent parts of a game tree: the subgames below public chance at its top.

When the root is a chance node and no information set spans two of its children's subtrees
(nature's move is public, e.g. the first prize card of Goofspiel with random points order),
the children's subtrees are games of their own: a strategy of either player is one strategy
per subtree, the value is the chance-weighted sum of the subtrees' values, and the
sequence-form LP of the tree is a sum of independent LPs, one per subtree (their rows and
columns meet only in the empty sequences). `independent_parts` applies the split again below
each part whose root is such a chance node, so a tree yields the finest such parts.

Solving the parts apart is exact and cheaper wherever an LP's cost grows faster than its
size (an interior point's factorisations do). `Part` maps a part's sequences back to the
whole tree's (`Part.sequence_map`).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ospiel_ext.arrays import IntArray
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import CHANCE, GameTree


@dataclasses.dataclass(frozen=True, eq=False)
class Part:
    """The subtree below one node, as a game tree of its own.

    Attributes:
      root: the subtree's root, a node of the whole tree.
      reach: the chance probability of reaching `root` from the whole tree's root.
      nodes: the whole tree's id of each node of `tree` (in the whole tree's id order).
      tree: the subtree (its root's chance probability 1; information sets numbered in the
        whole tree's order, so a grown tree's part keeps its old ids, e.g. for warm starts).
    """

    root: int
    reach: float
    nodes: IntArray
    tree: GameTree

    @classmethod
    def whole(cls, tree: GameTree) -> Part:
        """The whole tree as its one part."""
        return cls(0, 1.0, np.arange(tree.num_nodes), tree)

    @functools.cached_property
    def sequence_form(self) -> TreeSequenceForm:
        """The part's sequence form (built once)."""
        return TreeSequenceForm(self.tree)

    def sequence_map(self, whole: TreeSequenceForm, player: int) -> IntArray:
        """The whole tree's sequence of each of `player`'s sequences of the part.

        The part's empty sequence maps to the whole tree's (its root lies below chance only).
        """
        own = self.sequence_form.node_seq[player]
        out = np.empty(self.sequence_form.shape[player], dtype=np.int64)
        out[own] = whole.node_seq[player][self.nodes]
        return out


def independent_parts(tree: GameTree) -> list[Part]:
    """The finest split of `tree` into parts below public chance at its top (module docstring).

    One part, the whole tree, when its root is not such a chance node. Every leaf and decision
    node of the tree lies in exactly one part; the chance nodes above the parts lie in none.
    """
    final: list[int] = []
    candidates = [0]
    while candidates:
        chance = [r for r in candidates if tree.player[r] == CHANCE and tree.num_children[r]]
        final += [r for r in candidates if tree.player[r] != CHANCE or not tree.num_children[r]]
        split = _public(tree, chance)
        final += [r for r, ok in zip(chance, split) if not ok]
        candidates = [c for r, ok in zip(chance, split) if ok for c in tree.children(r)]
    if final == [0]:
        return [Part.whole(tree)]
    final.sort()
    owner = _owners(tree, np.asarray(final))
    return [_part(tree, root, np.flatnonzero(owner == k)) for k, root in enumerate(final)]


def _owners(tree: GameTree, roots: IntArray) -> IntArray:
    """For every node, the index in `roots` of the root above it (-1 below none).

    The roots' subtrees are disjoint; a root is its own.
    """
    own = np.full(tree.num_nodes, -1, dtype=np.int64)
    own[roots] = np.arange(len(roots))
    owner: IntArray = tree.top_down(
        own[0], lambda nodes, above: np.where(own[nodes] >= 0, own[nodes], above)
    )
    return owner


def _public(tree: GameTree, chance: list[int]) -> list[bool]:
    """For each chance node, whether no information set spans two of its children's subtrees."""
    if not chance:
        return []
    children = np.concatenate([np.asarray(tree.children(r)) for r in chance])
    of_chance = np.repeat(np.arange(len(chance)), [tree.num_children[r] for r in chance])
    owner = _owners(tree, children)
    nodes, offsets = tree.infoset_nodes
    who = owner[nodes]
    sizes = np.diff(offsets)
    present = sizes > 0
    lo = np.minimum.reduceat(who, offsets[:-1][present])
    hi = np.maximum.reduceat(who, offsets[:-1][present])
    spanning = np.concatenate([lo[lo != hi], hi[lo != hi]])
    ok = np.ones(len(chance), dtype=bool)
    ok[of_chance[spanning[spanning >= 0]]] = False  # -1: a node outside these subtrees
    return ok.tolist()


def _part(tree: GameTree, root: int, nodes: IntArray) -> Part:
    """The part at `root` whose nodes (whole-tree ids, ascending) are `nodes`."""
    new_id = np.full(tree.num_nodes, -1, dtype=np.int64)
    new_id[nodes] = np.arange(len(nodes))
    infosets = np.unique(tree.infoset[nodes][tree.infoset[nodes] >= 0])
    new_infoset = np.full(tree.num_infosets + 1, -1, dtype=np.int64)  # index -1 stays -1
    new_infoset[infosets] = np.arange(len(infosets))
    internal = tree.num_children[nodes] > 0
    parent = new_id[tree.parent[nodes]]
    parent[0] = -1
    chance_prob = tree.chance_prob[nodes].copy()
    chance_prob[0] = 1.0
    sub = GameTree(
        parent=parent.astype(np.int32),
        action=tree.action[nodes],
        depth=(tree.depth[nodes] - tree.depth[root]).astype(np.int32),
        player=tree.player[nodes],
        infoset=new_infoset[tree.infoset[nodes]].astype(np.int32),
        chance_prob=chance_prob,
        child_start=np.where(internal, new_id[tree.child_start[nodes]], 0).astype(np.int32),
        num_children=tree.num_children[nodes],
        lo=tree.lo[nodes],
        hi=tree.hi[nodes],
        infoset_player=tree.infoset_player[infosets],
        infoset_key=[tree.infoset_key[i] for i in infosets.tolist()],
        infoset_legal_actions=[tree.infoset_legal_actions[i] for i in infosets.tolist()],
        utility_sum=tree.utility_sum,
        name=f"{tree.name}, the part below node {root}",
    )
    return Part(root, float(tree.chance_reach[root]), nodes, sub)
