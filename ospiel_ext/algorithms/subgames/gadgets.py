"""Gadget games of a subgame: resolving, max-margin and the unsafe subgame.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 2.1 (Definition 1: the auxiliary information sets S^G
are those of the gadget game that are not in the subgame), Section 3 (Figure 1b, 1c) and
App. A (Figures 6, 7, 9, 10, 12, 13). With i the resolving player, o = 1 - i, w_i(h) =
P_i(h) P_c(h) and v_bar(s_o) the blueprint's counterfactual best-response values
(`blueprints.RootValues`):

* resolving (Burch, Johanson & Bowling 2014, "Solving Imperfect Information Games Using
  Decomposition"): a chance node picks a root h with probability w_i(h) / Z, Z = sum_h w_i(h)
  (the paper's weights "need not sum to 1"; we normalise and keep Z as `scale`, which changes
  no equilibrium); at h the opponent chooses, in the auxiliary information set
  "gadget:resolve:<s_o(h)>" shared by the roots of s_o, between T (action 0: terminate with
  v_bar(s_o)) and C (action 1: play the subgame from h);
* max-margin (Moravčík, Schmid, Ha, Hladík & Gaukrodger 2016, "Refining Subgames in Large
  Imperfect Information Games"): the opponent first picks a root information set s_o in the
  one auxiliary information set "gadget:max_margin" (action k: the k-th of `aux_targets`),
  then chance picks h in s_o with probability w_i(h) / W(s_o), and every leaf pays
  u(z) - v_bar(s_o), so the gadget's value is the maximin margin (Section 4); the reach
  max-margin gadget (Brown & Sandholm 2017) lowers the targets by the opponent's earlier gifts
  (`reach_margin`);
* unsafe (Section 2.1): chance picks h with probability proportional to P_0 P_1 P_c(h),
  assuming both players followed the blueprint; no auxiliary information set.

Subtrees are copied with `TreeBuilder.copy_subtrees` (all the roots' subtrees in one pass, per
opponent root information set in a max-margin gadget): every non-auxiliary information set of a
gadget keeps its key in the full game, which is how solutions are spliced back
(`combine.splice`). Roots with w_i = 0 are left out (player i never reaches them under the
blueprint; its strategy there stays the blueprint's) and so are opponent root information sets
with W(s_o) = 0 (no auxiliary action). Leaf values are player 0's utility.

Every builder takes optional depth-limit `leaves` (Brown, Sandholm & Amos 2018, "Depth-Limited
Solving for Imperfect-Information Games", Section 4): the copy stops at their states, where the
opponent picks one of K continuation values in a new information set (`GadgetGame.leaf_keys`);
the unsafe subgame with leaves solves the leaves' player only. The leaves are the depth-limited
package's (`depth_limited.MultiValuedLeaves`), which builds on this one; a gadget reads them
through the `DepthLimitLeaves` protocol, so this package never imports that one.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from typing import Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from ospiel_ext.algorithms.subgames import reach_margin
from ospiel_ext.algorithms.subgames.blueprints import BlueprintQuantities, RootValues
from ospiel_ext.algorithms.subgames.cuts import Cut, Subgame, root_set
from ospiel_ext.arrays import IntArray
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import SubtreeCopy, TreeBuilder

GadgetKind = Literal["resolving", "max_margin", "reach_max_margin", "unsafe"]

RESOLVE_PREFIX = "gadget:resolve:"
MAX_MARGIN_KEY = "gadget:max_margin"
TERMINATE, CONTINUE = 0, 1  # actions of a resolving gadget's auxiliary information sets
# True: the subtrees of a gadget are copied in one `TreeBuilder.copy_subtrees` pass (per
# opponent root information set in a max-margin gadget); False: one `copy_subtree` per history,
# the old way (kept to measure against: `benchmarks/papers/nested_solving_speed.py`).
BATCHED_COPIES = True


class DepthLimitLeaves(Protocol):
    """What a gadget builder needs of depth-limit leaves (`depth_limited.MultiValuedLeaves`).

    Attributes:
      tree: the full game tree they were found in.
      player: the solving player (the opponent picks among the continuation values).
      row: for every node of `tree`, its index among the leaf states, or -1.
      expand: True at the nodes strictly above the limit (the copy expands only these).
      leaf_keys: the opponent's depth-limit information sets.
    """

    @property
    def tree(self) -> GameTree:
        """The full game tree they were found in."""
        ...

    @property
    def player(self) -> int:
        """The solving player."""
        ...

    @property
    def row(self) -> IntArray:
        """For every node of `tree`, its index among the leaf states, or -1."""
        ...

    @property
    def expand(self) -> NDArray[np.bool_]:
        """True at the nodes strictly above the limit."""
        ...

    @property
    def leaf_keys(self) -> tuple[str, ...]:
        """The opponent's depth-limit information sets."""
        ...

    def attach(self, builder: TreeBuilder, copy: SubtreeCopy, shift: float = 0.0) -> None:
        """Makes the leaf states among `copy`'s nodes multi-valued leaves, values minus `shift`.

        The values are player 0's utility.
        """
        ...


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class GadgetGame:
    """A gadget game (module docstring) compiled to a sequence form.

    Attributes:
      tree: the gadget's tree (no pyspiel game behind it).
      sf: its sequence form.
      kind: 'resolving', 'max_margin', 'reach_max_margin' or 'unsafe'.
      player: the resolving player i; None for the unsafe subgame (both players are solved).
      subgame: the subgame of the full game.
      root_values: the blueprint quantities it was built from (None for 'unsafe').
      aux_keys: the auxiliary information sets (all the opponent's).
      aux_targets: for each auxiliary key, the opponent root information sets its actions
        lead to (resolving: one, entered by action 1 = C; max-margin: one per action).
      scale: Z, with the unnormalised gadget value of Section 3 = scale * value.
      roots: the kept roots (full-tree node ids).
      root_copy: the gadget node of each kept root.
      leaf_keys: the opponent's depth-limit information sets (multi-valued leaves), if any.
    """

    tree: GameTree
    sf: TreeSequenceForm
    kind: GadgetKind
    player: int | None
    subgame: Subgame
    root_values: RootValues | None
    aux_keys: tuple[str, ...]
    aux_targets: Mapping[str, tuple[str, ...]]
    scale: float
    roots: IntArray
    root_copy: IntArray
    leaf_keys: tuple[str, ...] = ()

    @property
    def solved_players(self) -> tuple[int, ...]:
        """The players whose subgame strategy the gadget computes."""
        return (0, 1) if self.player is None else (self.player,)

    def original_infosets(self, player: int) -> NDArray[np.bool_]:
        """Mask over `player`'s treeplex information sets: True where the key is the full game's.

        False at the auxiliary information sets and the depth-limit leaves' ones.
        """
        aux = set(self.aux_keys) | set(self.leaf_keys)
        return np.array([k not in aux for k in self.sf.infoset_keys(player)], dtype=bool)


def _builder(
    q: BlueprintQuantities, subgame: Subgame, kind: str, player: int | None
) -> TreeBuilder:
    """A builder named after the gadget, after the common checks."""
    if subgame.tree is not q.sf.tree:
        raise ValueError(
            f"game {q.sf.name}: subgame {subgame.index} was cut from another compiled tree"
        )
    who = "both players" if player is None else f"player {player}"
    name = f"{kind}-gadget({q.sf.name}, subgame {subgame.index}, {who})"
    return TreeBuilder(name=name, game=None, utility_sum=0.0)


def _check_aux_keys(q: BlueprintQuantities, keys: list[str]) -> None:
    clash = set(keys) & set(q.sf.tree.infoset_key)
    if clash:
        raise ValueError(
            f"game {q.sf.name}: auxiliary key {sorted(clash)[0]!r} is an information set "
            "of the game"
        )


def _kept_roots(rv: RootValues, game: str, index: int) -> IntArray:
    kept = np.flatnonzero(rv.w > 0)
    if not len(kept):
        raise ValueError(
            f"game {game}: player {rv.player} never reaches subgame {index} under the "
            "blueprint (all w_i(h) = P_i(h) P_c(h) are 0); it keeps the blueprint there"
        )
    return kept


def _finish(
    builder: TreeBuilder,
    kind: GadgetKind,
    player: int | None,
    *,
    subgame: Subgame,
    rv: RootValues | None,
    aux: dict[str, tuple[str, ...]],
    scale: float,
    roots: IntArray,
    root_copy: list[int],
    leaves: DepthLimitLeaves | None,
) -> GadgetGame:
    tree = builder.freeze()
    tree.check_perfect_recall()
    return GadgetGame(
        tree=tree,
        sf=TreeSequenceForm(tree),
        kind=kind,
        player=player,
        subgame=subgame,
        root_values=rv,
        aux_keys=tuple(aux),
        aux_targets=types.MappingProxyType(aux),
        scale=float(scale),
        roots=roots,
        root_copy=np.array(root_copy, dtype=np.int64),
        leaf_keys=() if leaves is None else leaves.leaf_keys,
    )


def _check_leaves(
    q: BlueprintQuantities, subgame: Subgame, leaves: DepthLimitLeaves | None, player: int | None
) -> None:
    """The leaves were built for this tree and player and lie strictly below the roots."""
    if leaves is None:
        return
    if leaves.tree is not q.sf.tree:
        raise ValueError(f"game {q.sf.name}: the depth-limit leaves belong to another tree")
    if player is not None and leaves.player != player:
        raise ValueError(
            f"game {q.sf.name}: the depth-limit leaves are player {leaves.player}'s, the "
            f"gadget resolves player {player}"
        )
    if np.any(leaves.row[subgame.roots] >= 0):
        raise ValueError(
            f"game {q.sf.name}: the depth limit reaches subgame {subgame.index}'s roots; it "
            "must lie strictly below them"
        )
    clash = set(leaves.leaf_keys) & set(q.sf.tree.infoset_key)
    if clash:
        raise ValueError(f"game {q.sf.name}: leaf key {sorted(clash)[0]!r} is an information set")


def _copy(
    builder: TreeBuilder,
    tree: GameTree,
    source: int,
    *,
    target: int,
    leaves: DepthLimitLeaves | None,
    shift: float = 0.0,
) -> SubtreeCopy:
    """Copies `tree`'s subtree at `source` to `target`, leaf utilities minus `shift`.

    The utilities are player 0's; with depth-limit `leaves`, the copy stops at their nodes,
    which become multi-valued leaves (values minus `shift`) of the leaves' opponent.
    """
    shifted = tree.lo - shift if shift else None
    if leaves is None:
        return builder.copy_subtree(tree, source, target, leaf_lo=shifted, leaf_hi=shifted)
    copy = builder.copy_subtree(
        tree, source, target, expand=leaves.expand, leaf_lo=shifted, leaf_hi=shifted
    )
    leaves.attach(builder, copy, shift)
    return copy


def _copy_all(
    builder: TreeBuilder,
    tree: GameTree,
    sources: IntArray,
    *,
    targets: IntArray,
    leaves: DepthLimitLeaves | None,
    shift: float = 0.0,
) -> None:
    """Copies `tree`'s subtrees at `sources` to `targets` like `_copy`, in one batched copy.

    Or one `_copy` per history if `BATCHED_COPIES` is False (the same gadget, up to the
    numbering of its nodes and information sets).
    """
    if not BATCHED_COPIES:
        for source, target in zip(sources.tolist(), targets.tolist()):
            _copy(builder, tree, source, target=target, leaves=leaves, shift=shift)
        return
    shifted = tree.lo - shift if shift else None
    copies = builder.copy_subtrees(
        tree,
        sources,
        targets,
        expand=None if leaves is None else leaves.expand,
        leaf_lo=shifted,
        leaf_hi=shifted,
    )
    if leaves is not None:
        copy = SubtreeCopy(
            copies.source_nodes, copies.nodes, copies.infosets, copies.source_infosets
        )
        leaves.attach(builder, copy, shift)


def _check_player(q: BlueprintQuantities, player: int) -> None:
    _check_player_of(q.sf.name, player)


def _check_player_of(game: str, player: int) -> None:
    if player not in (0, 1):
        raise ValueError(f"game {game}: the resolving player must be 0 or 1, got {player}")


def resolving_gadget(
    q: BlueprintQuantities,
    subgame: Subgame,
    player: int,
    leaves: DepthLimitLeaves | None = None,
) -> GadgetGame:
    """The resolving gadget game of `subgame` for resolving `player` (module docstring)."""
    _check_player(q, player)
    _check_leaves(q, subgame, leaves, player)
    builder = _builder(q, subgame, "resolving", player)
    rv = q.root_values(subgame, player)
    kept = _kept_roots(rv, q.sf.name, subgame.index)
    w = rv.w[kept]
    aux_of = [RESOLVE_PREFIX + rv.keys[k] for k in rv.root_infoset[kept].tolist()]
    _check_aux_keys(q, aux_of)
    tree = q.sf.tree
    first = builder.expand_chance(builder.add_root(), range(len(kept)), w / w.sum())
    root_copy = []
    for n, j in enumerate(kept.tolist()):
        s = int(rv.root_infoset[j])
        terminate = builder.expand_decision(first + n, 1 - player, aux_of[n], (TERMINATE, CONTINUE))
        builder.set_leaf(terminate, float(rv.cfbr[s]), float(rv.cfbr[s]))
        if not BATCHED_COPIES:
            _copy(builder, tree, int(rv.roots[j]), target=terminate + 1, leaves=leaves)
        root_copy.append(terminate + 1)
    if BATCHED_COPIES:
        targets = np.array(root_copy, dtype=np.int64)
        _copy_all(builder, tree, rv.roots[kept], targets=targets, leaves=leaves)
    aux: dict[str, tuple[str, ...]] = {
        key: (key[len(RESOLVE_PREFIX) :],) for key in dict.fromkeys(aux_of)
    }
    return _finish(
        builder,
        "resolving",
        player,
        subgame=subgame,
        rv=rv,
        aux=aux,
        scale=w.sum(),
        roots=rv.roots[kept],
        root_copy=root_copy,
        leaves=leaves,
    )


def max_margin_gadget(
    q: BlueprintQuantities,
    subgame: Subgame,
    player: int,
    *,
    relax: Mapping[str, float] | None = None,
    leaves: DepthLimitLeaves | None = None,
) -> GadgetGame:
    """The max-margin gadget game of `subgame` for resolving `player` (module docstring).

    With `relax` ({opponent root information set: relax(s_o) >= 0}, e.g.
    `reach_margin.reach_gifts`) it is the reach max-margin gadget (kind 'reach_max_margin'):
    the targets are v_bar(s_o) - relax(s_o) in player i's utility.
    """
    _check_player(q, player)
    _check_leaves(q, subgame, leaves, player)
    kind: GadgetKind = "max_margin" if relax is None else "reach_max_margin"
    builder = _builder(q, subgame, kind, player)
    rv = q.root_values(subgame, player)
    kept = _kept_roots(rv, q.sf.name, subgame.index)
    _check_aux_keys(q, [MAX_MARGIN_KEY])
    targets = np.flatnonzero(rv.weight > 0)
    shift = rv.cfbr.copy()
    if relax is not None:
        missing = [rv.keys[s] for s in targets.tolist() if rv.keys[s] not in relax]
        if missing or any(not relax[rv.keys[s]] >= 0 for s in targets.tolist()):
            raise ValueError(
                f"game {q.sf.name}: relax needs a value >= 0 for every opponent root "
                f"information set of subgame {subgame.index}"
            )
        shift -= rv.sign * np.array([relax.get(k, 0.0) for k in rv.keys])
    tree = q.sf.tree
    first = builder.expand_decision(
        builder.add_root(), 1 - player, MAX_MARGIN_KEY, range(len(targets))
    )
    roots, root_copy = [], []
    for n, s in enumerate(targets.tolist()):
        members = kept[rv.root_infoset[kept] == s]
        w = rv.w[members]
        chance = builder.expand_chance(first + n, range(len(members)), w / w.sum())
        copies = chance + np.arange(len(members), dtype=np.int64)
        # the margin u(z) - target(s_o), player 0's utility
        _copy_all(
            builder, tree, rv.roots[members], targets=copies, leaves=leaves, shift=float(shift[s])
        )
        roots.extend(rv.roots[members].tolist())
        root_copy.extend(copies.tolist())
    aux = {MAX_MARGIN_KEY: tuple(rv.keys[s] for s in targets.tolist())}
    roots_array = np.array(roots, dtype=np.int64)
    return _finish(
        builder,
        kind,
        player,
        subgame=subgame,
        rv=rv,
        aux=aux,
        scale=1.0,
        roots=roots_array,
        root_copy=root_copy,
        leaves=leaves,
    )


def unsafe_subgame(
    q: BlueprintQuantities, subgame: Subgame, leaves: DepthLimitLeaves | None = None
) -> GadgetGame:
    """The unsafe subgame: chance over the roots proportional to P_0 P_1 P_c (Section 2.1).

    It solves both players; with depth-limit `leaves`, only the leaves' player (the other one
    picks among the continuation values).
    """
    player = None if leaves is None else leaves.player
    _check_leaves(q, subgame, leaves, player)
    builder = _builder(q, subgame, "unsafe", player)
    rv = q.root_values(subgame, 0)
    joint = rv.reach.prod(axis=0)
    kept = np.flatnonzero(joint > 0)
    if not len(kept):
        raise ValueError(
            f"game {q.sf.name}: the blueprint never reaches subgame {subgame.index} "
            "(P_0 P_1 P_c = 0 at every root)"
        )
    w = joint[kept]
    first = builder.expand_chance(builder.add_root(), range(len(kept)), w / w.sum())
    tree = q.sf.tree
    targets = first + np.arange(len(kept), dtype=np.int64)
    _copy_all(builder, tree, rv.roots[kept], targets=targets, leaves=leaves)
    root_copy = targets.tolist()
    return _finish(
        builder,
        "unsafe",
        player,
        subgame=subgame,
        rv=None,
        aux={},
        scale=w.sum(),
        roots=rv.roots[kept],
        root_copy=root_copy,
        leaves=leaves,
    )


def start_of_game(tree: GameTree, player: int, leaf_keys: tuple[str, ...] = ()) -> GadgetGame:
    """`tree` itself as the gadget game of its one subgame, rooted at the start of the game.

    It is solved for `player`: the unsafe subgame of the root (Section 2.1), whose chance weights
    are the game's own, so no blueprint is needed, and no gadget either (Brown, Sandholm & Amos
    2018, Proposition 1). For trees built without a compiled full game, e.g. a depth-limited game
    walked from pyspiel states (`depth_limited.sampled.from_states`), whose opponent picks
    among continuation values at `leaf_keys`; the gadget solvers (`ggse.solve`) then solve it
    like any other gadget. The root's information states are the empty ones.
    """
    _check_player_of(tree.name, player)
    tree.check_perfect_recall()
    root = np.zeros(1, dtype=np.int64)
    roots = root_set(tree, Cut.after_moves(0), root, (("",), ("",)))
    return GadgetGame(
        tree=tree,
        sf=TreeSequenceForm(tree),
        kind="unsafe",
        player=player,
        subgame=Subgame(index=0, root_set=roots, root_indices=root),
        root_values=None,
        aux_keys=(),
        aux_targets=types.MappingProxyType({}),
        scale=1.0,
        roots=root,
        root_copy=root,
        leaf_keys=tuple(leaf_keys),
    )


def gadget_game(
    kind: GadgetKind,
    q: BlueprintQuantities,
    subgame: Subgame,
    *,
    player: int | None,
    leaves: DepthLimitLeaves | None = None,
) -> GadgetGame:
    """`resolving_gadget`, `max_margin_gadget` or `unsafe_subgame` by name.

    `player` is ignored by 'unsafe', which solves both players, or with `leaves` the leaves'
    player.
    """
    if kind == "resolving" and player is not None:
        return resolving_gadget(q, subgame, player, leaves)
    if kind == "max_margin" and player is not None:
        return max_margin_gadget(q, subgame, player, leaves=leaves)
    if kind == "reach_max_margin" and player is not None:
        relax = reach_margin.reach_gifts(q, subgame.root_set, player)
        return max_margin_gadget(q, subgame, player, relax=relax, leaves=leaves)
    if kind == "unsafe":
        return unsafe_subgame(q, subgame, leaves)
    raise ValueError(
        f"game {q.sf.name}: unknown gadget kind {kind!r} (or no resolving player given); "
        "kinds: resolving, max_margin, reach_max_margin, unsafe"
    )
