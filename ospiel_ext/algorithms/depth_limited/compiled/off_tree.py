"""An off-tree action: its in-abstraction counterparts and action translation.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1 and Figure 2. The blueprint is solved in an action abstraction; the opponent o then
takes an action the abstraction lacks (the off-tree action; the paper's 0.75x pot bet between
the abstraction's 0.5x and 1x), which has no blueprint strategy after it. Two compiled trees
describe the experiment:

* `abstract`: the blueprint's game (the action abstraction);
* `game`: the same abstraction plus the off-tree action (`walk.game_tree` with an
  action filter); the responder i's exploitability is measured in it.

`find_off_tree` finds the off-tree action and builds `OffTree`: both trees and, per
in-abstraction replacement, the counterpart of every history after the off-tree action
(`map_region` walks the two subtrees side by side, matching chance outcomes by id and decisions
through a `translate(state, action, target_state)` function, e.g.
`games.poker_actions.PotFractionAbstraction.translate`, which matches "fold", "call", "0.5p",
"1p", "all-in"). The paper compares two answers to the off-tree action:

* randomized pseudo-harmonic action translation (RPAT; Ganzfried & Sandholm (2013), "Action
  Translation in Extensive-Form Games with Large Action Spaces: Axioms, Paradoxes, and the
  Pseudo-Harmonic Mapping", IJCAI): a bet x between the abstraction's bets A < x < B is read as
  A with probability `translation.pseudo_harmonic(x, A, B)` and as B otherwise, and the blueprint is
  played as if that bet had been made (`translate_strategy`; `rpat_profile` on an `OffTree`);
* depth-limited solving of the subgame after the off-tree action (`off_tree_solving`), whose
  leaf values are "the average of the two corresponding value vectors" of the histories with A
  and with B in its place (`transfer_leaf_values`; `transferred_leaves` on an `OffTree`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext import policies, tree_values
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited.translation import Translate, check_weights
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import CHANCE, GameTree


def map_region(
    source: GameTree,
    source_root: int,
    target: GameTree,
    *,
    target_root: int,
    translate: Translate,
) -> IntArray:
    """For every node of `source`, the node of `target` its history maps to (-1 if none).

    A history maps to the node reached when the history from `source_root` down is replayed
    from `target_root` (chance outcomes by id, decisions through `translate`); -1 outside the
    subtree of `source_root` and where an action has no counterpart (then its whole subtree
    has none).
    """
    mapped = np.full(source.num_nodes, -1, dtype=np.int64)
    mapped[source_root] = target_root
    stack = [(source_root, target_root, source.state(source_root), target.state(target_root))]
    while stack:
        n, m, state, twin = stack.pop()
        if source.is_leaf[n] or target.is_leaf[m]:
            continue
        twin_children = {int(target.action[c]): c for c in target.children(m)}
        chance = source.player[n] == CHANCE
        for c in source.children(n):
            a = int(source.action[c])
            b = a if chance else translate(state, a, twin)
            if b is None or b not in twin_children:
                continue
            mapped[c] = twin_children[b]
            stack.append((c, mapped[c], state.child(a), twin.child(b)))
    return mapped


def region(tree: GameTree, roots: int | Sequence[int] | IntArray) -> NDArray[np.bool_]:
    """True at `roots` and their descendants."""
    inside = np.zeros(tree.num_nodes, dtype=bool)
    inside[roots] = True
    return tree.top_down(False, lambda nodes, up: up | inside[nodes])


def translate_strategy(
    sf: TreeSequenceForm,
    behavioural: FloatArray,
    player: int,
    *,
    inside: NDArray[np.bool_],
    target: TreeSequenceForm,
    target_behavioural: FloatArray,
    maps: Sequence[IntArray],
    weights: Sequence[float],
) -> FloatArray:
    """`player`'s behavioural strategy of `sf` with the region's information sets translated.

    Its information sets inside the region are replaced by the randomized translation: the
    counterpart plays of `target_behavioural` under each map, mixed with `weights` as
    realization plans (the translation is drawn once, when the off-tree action is seen, and
    kept), i.e. at a node n with child c

        b(c) = sum_k w_k r(m_k(n)) b_target(m_k(c)) / sum_k w_k r(m_k(n)),

    r the player's own reach in `target`. Where only some children have a counterpart (an
    abstract bet size that exists after one bet but not after the other, e.g. a pot raise
    that would be all-in), b_target is renormalised over those that do; information sets
    with no counterpart under any map stay as in `behavioural`. `inside` marks the region's
    nodes (`region`).
    """
    tree, twin = sf.tree, target.tree
    profile = target.tree_profile(_with(target, player, target_behavioural))
    edge = tree_values.edge_probabilities(twin, profile)
    own = tree_values.reaches(twin, profile).player(player)
    nodes = np.flatnonzero(inside & (tree.player == player))
    _, first = np.unique(tree.infoset[nodes], return_index=True)
    nodes = nodes[first]  # one node per information set: its counterparts share the strategy
    out = np.array(behavioural, dtype=np.float64)
    tp = sf.treeplexes[player]
    local = np.full(tree.num_infosets, -1, dtype=np.int64)
    local[tp.infoset_ids] = np.arange(tp.num_infosets)
    for n in nodes:
        kids = np.arange(tree.child_start[n], tree.child_start[n] + tree.num_children[n])
        num, den = np.zeros(len(kids)), 0.0
        for m, w in zip(maps, weights):
            ok = m[kids] >= 0
            if m[n] < 0 or not ok.any():
                continue
            probs = np.zeros(len(kids))
            probs[ok] = edge[m[kids[ok]]]
            total = probs.sum()
            probs = probs / total if total > 0 else ok / ok.sum()
            r = w * own[m[n]]
            num += r * probs
            den += r
        if den > 0:
            s = int(tp.seq_start[local[tree.infoset[n]]])
            out[s : s + len(kids)] = num / den
    return out


def transfer_leaf_values(
    values: FloatArray, nodes: IntArray, maps: Sequence[IntArray], row: IntArray
) -> FloatArray:
    """Leaf values of `nodes` (leaf states after the off-tree action): their counterparts' mean.

    The average of their counterparts' values (Section 6.1): `values` (counterpart leaf
    states, K) indexed through `row` (target node -> row of `values`, -1 if not a leaf
    state); a leaf with one counterpart takes its values; ValueError if a leaf has none.
    """
    out = np.zeros((len(nodes), values.shape[1]))
    count = np.zeros(len(nodes))
    for m in maps:
        r = row[m[nodes]]
        r[m[nodes] < 0] = -1
        ok = r >= 0
        out[ok] += values[r[ok]]
        count += ok
    if np.any(count == 0):
        raise ValueError(
            f"{int(np.sum(count == 0))} leaf states have no in-abstraction counterpart"
        )
    return out / count[:, None]


def _with(sf: TreeSequenceForm, player: int, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """A profile with `player` playing b and the other player uniform.

    The other player's probabilities do not enter the player's own reaches or edge
    probabilities.
    """
    other = sf.treeplexes[1 - player].uniform
    return (b, other) if player == 0 else (other, b)


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class OffTree:
    """An off-tree action of player o and its in-abstraction counterparts.

    Attributes:
      game: the abstraction plus the off-tree action.
      abstract: the abstraction.
      player: the responder i (the opponent o = 1 - i takes the off-tree action).
      roots: the nodes of `game` just after the off-tree action (one per history before it).
      maps: per replacement action, `game`'s nodes -> `abstract`'s counterparts (-1 if none).
      weights: the probability RPAT gives each replacement (`translation.pseudo_harmonic`).
    """

    game: TreeSequenceForm
    abstract: TreeSequenceForm
    player: int
    roots: IntArray
    maps: tuple[IntArray, ...]
    weights: tuple[float, ...]

    @functools.cached_property
    def inside(self) -> NDArray[np.bool_]:
        """True at the nodes after the off-tree action."""
        return region(self.game.tree, self.roots)

    @property
    def opponent(self) -> int:
        """The opponent o = 1 - i, who takes the off-tree action."""
        return 1 - self.player


def find_off_tree(
    game: TreeSequenceForm,
    abstract: TreeSequenceForm,
    player: int,
    *,
    replacements: Callable[[pyspiel.State], Sequence[int]],
    weights: Sequence[float],
    translate: Translate,
) -> OffTree:
    """The off-tree roots and their counterpart maps.

    The off-tree roots are the children of the opponent's nodes by an action that `game` has
    at an information set and `abstract` lacks at the same one. For the counterpart maps,
    `replacements(state)` gives the in-abstraction actions of `abstract` that stand for the
    off-tree action at its parent state (in `weights`' order), `translate` matches the
    actions after it (`map_region`).
    """
    tree, twin = game.tree, abstract.tree
    o = 1 - player
    check_weights(tree.name, weights)
    twin_legal = {
        key: set(legal)
        for key, p, legal in zip(twin.infoset_key, twin.infoset_player, twin.infoset_legal_actions)
        if p == o
    }
    extra = {
        g: set(legal) - twin_legal[key]
        for g, (key, p, legal) in enumerate(
            zip(tree.infoset_key, tree.infoset_player, tree.infoset_legal_actions)
        )
        if p == o and key in twin_legal and set(legal) - twin_legal[key]
    }
    roots, maps = [], [np.full(tree.num_nodes, -1, dtype=np.int64) for _ in weights]
    parents = np.flatnonzero(np.isin(tree.infoset, list(extra)) & (tree.player == o))
    for n in parents.tolist():
        state = tree.state(n)
        twin_parent = _node_of(twin, tree.history(n))
        actions = replacements(state)
        if len(actions) != len(weights):
            raise ValueError(
                f"game {tree.name}: {len(actions)} replacements, {len(weights)} weights"
            )
        for c in tree.children(n):
            if int(tree.action[c]) not in extra[int(tree.infoset[n])]:
                continue
            roots.append(c)
            for k, a in enumerate(actions):
                m = map_region(
                    tree, c, twin, target_root=_child(twin, twin_parent, a), translate=translate
                )
                maps[k] = np.maximum(maps[k], m)
    if not roots:
        raise ValueError(
            f"game {tree.name}: player {o} has no action outside the abstraction {twin.name}"
        )
    return OffTree(
        game=game,
        abstract=abstract,
        player=player,
        roots=np.array(roots),
        maps=tuple(maps),
        weights=tuple(weights),
    )


def _node_of(tree: GameTree, history: Sequence[int]) -> int:
    node = 0
    for a in history:
        node = _child(tree, node, a)
    return node


def _child(tree: GameTree, node: int, action: int) -> int:
    for c in tree.children(node):
        if tree.action[c] == action:
            return int(c)
    raise ValueError(f"{tree.name}: node {node} has no action {action}")


def lift(off: OffTree, blueprint: policies.Behavioural) -> policies.Behavioural:
    """The abstraction's blueprint on `off.game` by information-set key.

    The off-tree action gets probability 0; information sets after it play uniformly.
    """
    tables = policies.behavioural_to_table(off.abstract, blueprint)
    return policies.behavioural_from_table(off.game, tables, missing="uniform")


def rpat_profile(off: OffTree, blueprint: policies.Behavioural) -> policies.Behavioural:
    """The lifted blueprint with the responder's strategy after the off-tree action by RPAT.

    The responder's strategy after the off-tree action is given by randomized pseudo-harmonic
    action translation (module docstring).
    """
    lifted = list(lift(off, blueprint))
    i = off.player
    lifted[i] = translate_strategy(
        off.game,
        lifted[i],
        i,
        inside=off.inside,
        target=off.abstract,
        target_behavioural=blueprint[i],
        maps=off.maps,
        weights=off.weights,
    )
    return lifted[0], lifted[1]


def transferred_leaves(
    off: OffTree, cut: ss.Cut, abstract_leaves: leaves_lib.MultiValuedLeaves
) -> leaves_lib.MultiValuedLeaves:
    """The depth limit `cut` in `off.game` with leaf values transferred from the abstraction.

    The values of the leaf states after the off-tree action are averaged from their
    counterparts' in `abstract_leaves` (computed in the abstraction for the same responder
    and depth limit); other leaf states get 0 (they are outside every subgame
    `off_tree_solving.solve_off_tree` builds).
    """
    if abstract_leaves.player != off.player:
        raise ValueError("the abstraction's leaves are for the other player")
    limit = leaves_lib.depth_limit(off.game.tree, cut)
    values = np.zeros((len(limit.nodes), abstract_leaves.num_values))
    mine = np.flatnonzero(off.inside[limit.nodes])
    values[mine] = transfer_leaf_values(
        abstract_leaves.values, limit.nodes[mine], off.maps, abstract_leaves.row
    )
    return leaves_lib.MultiValuedLeaves(
        limit=limit, player=off.player, values=values, labels=abstract_leaves.labels
    )
