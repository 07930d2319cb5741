"""Responding to an off-tree action: action translation against depth-limited solving.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1 and Figure 2. The blueprint is solved in an action abstraction; the opponent o then
takes an action the abstraction lacks (the off-tree action; the paper's 0.75x pot bet between
the abstraction's 0.5x and 1x). Two compiled trees describe the experiment:

* `abstract`: the blueprint's game (the action abstraction);
* `game`: the same abstraction plus the off-tree action (`walk.game_tree` with an
  action filter); the responder i's exploitability is measured in it.

`OffTree` holds both and the counterpart maps (`translation.map_region`) from the histories
after the off-tree action to those after each in-abstraction replacement. Then:

* `rpat_profile`: the blueprint, with i's strategy after the off-tree action given by
  randomized pseudo-harmonic action translation (`translation.translate_strategy`);
* `depth_limited_response`: depth-limited solving of the subgame after the off-tree action. Its
  leaves are the states at the depth limit (`cut`); each leaf's K values are "the average of
  the two corresponding value vectors" of its counterparts in the abstraction
  (`translation.transfer_leaf_values`), computed there by any strategy set (the paper:
  self-generative). The subgame is a resolving (or max-margin) gadget (Kubíček, Lisý &
  Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in Imperfect-Information
  Games", Section 2.1) whose alternative payoff at each of o's root information sets is o's
  counterfactual best-response value of its best in-abstraction action there - Section 5's
  goal that the off-tree action pay o no more than "an action already in the abstraction";
* `resolve_below`: beyond the limit the paper "solved the remaining game using safe subgame
  solving". Every subgame of `cut` after the off-tree action is resolved with a resolving or
  max-margin gadget whose alternatives are the values the depth-limited game promised o at
  its leaf information sets (`with_leaf_value_targets`; nested solving, Section 5) or o's
  best response to the translated strategy there;
* `best_continuation`: a CFR+ bound on what any solving beyond the limit can reach, given
  the depth-limited solution above it.

`solve_off_tree` runs the first two steps.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext import arrays, constraints, policies
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited.compiled import solving, translation
from ospiel_ext.algorithms.subgames import ggse
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.arrays import IntArray
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree

FIXED = 1 - 1e-7  # lower bounds must sum below 1: a fixed strategy is bounded at this share


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
        return translation.region(self.game.tree, self.roots)

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
    translate: translation.Translate,
) -> OffTree:
    """The off-tree roots and their counterpart maps.

    The off-tree roots are the children of the opponent's nodes by an action that `game` has
    at an information set and `abstract` lacks at the same one. For the counterpart maps,
    `replacements(state)` gives the in-abstraction actions of `abstract` that stand for the
    off-tree action at its parent state (in `weights`' order), `translate` matches the
    actions after it (`translation.map_region`).
    """
    tree, twin = game.tree, abstract.tree
    o = 1 - player
    if len(weights) < 1 or not np.isclose(sum(weights), 1.0) or min(weights) < 0:
        raise ValueError(f"game {tree.name}: replacement weights must be >= 0 and sum to 1")
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
                m = translation.map_region(
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
    lifted[i] = translation.translate_strategy(
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
    and depth limit); other leaf states get 0 (they are outside every subgame `solve_off_tree`
    builds).
    """
    if abstract_leaves.player != off.player:
        raise ValueError("the abstraction's leaves are for the other player")
    limit = leaves_lib.depth_limit(off.game.tree, cut)
    values = np.zeros((len(limit.nodes), abstract_leaves.num_values))
    mine = np.flatnonzero(off.inside[limit.nodes])
    values[mine] = translation.transfer_leaf_values(
        abstract_leaves.values, limit.nodes[mine], off.maps, abstract_leaves.row
    )
    return leaves_lib.MultiValuedLeaves(
        limit=limit, player=off.player, values=values, labels=abstract_leaves.labels
    )


def with_in_abstraction_alternatives(
    q: ss.BlueprintQuantities, off: OffTree
) -> ss.BlueprintQuantities:
    """`q` with the responder's node values at the off-tree roots set to in-abstraction values.

    The values are replaced by the opponent's counterfactual best-response value of its best
    in-abstraction action at the root's parent information set, so the resolving gadget's
    alternative payoff is that value.
    """
    tree, i, o = off.game.tree, off.player, off.opponent
    values = np.array(q.values[i], dtype=np.float64)
    parents = tree.parent[off.roots]
    infosets = tree.infoset[parents]
    uniq, index = np.unique(infosets, return_inverse=True)
    weight = q.reaches.player(i)[parents] * q.reaches.chance[parents]
    best = np.full(len(uniq), -np.inf)
    sign = 1.0 if o == 0 else -1.0
    num_children = int(tree.num_children[parents[0]])
    for k in range(num_children):
        kids = tree.child_start[parents] + k
        if np.any(off.inside[kids]):
            continue  # the off-tree action itself
        cfv = arrays.weighted_bincount(index, weight * values[kids], len(uniq))
        den = arrays.weighted_bincount(index, weight, len(uniq))
        best = np.maximum(best, sign * np.divide(cfv, den, out=np.zeros(len(uniq)), where=den > 0))
    values[off.roots] = sign * best[index]
    new = list(q.values)
    new[i] = values
    return dataclasses.replace(q, values=(new[0], new[1]))


def with_leaf_value_targets(
    q: ss.BlueprintQuantities, leaves: leaves_lib.MultiValuedLeaves, off: OffTree
) -> ss.BlueprintQuantities:
    """`q` with the values the depth-limited game promised the opponent at its leaf states.

    `q` is of the depth-limited solution; the responder's node values at the leaf states
    after the off-tree action are replaced by the values the depth-limited game promised the
    opponent: at each of its leaf information sets J the continuation n* it would pick
    against the solution (the best of sum_h P_i(h) P_c(h) v(h, n) over n), v(h, n*) at every h
    in J. The resolving gadgets below the limit then keep the opponent at those values
    (nested solving, Section 5) instead of at its best response to the translated strategy.
    """
    i, o = off.player, off.opponent
    nodes = leaves.nodes
    mine = np.flatnonzero(off.inside[nodes])
    keys = [leaves.limit.keys[o][k] for k in mine]
    uniq, index = np.unique(np.array(keys, dtype=object), return_inverse=True)
    w = q.reaches.player(i)[nodes[mine]] * q.reaches.chance[nodes[mine]]
    totals = np.stack(
        [
            arrays.weighted_bincount(index, w * leaves.values[mine, n], len(uniq))
            for n in range(leaves.num_values)
        ],
        axis=1,
    )
    pick = (totals.argmax if o == 0 else totals.argmin)(axis=1)
    values = np.array(q.values[i], dtype=np.float64)
    values[nodes[mine]] = leaves.values[mine, pick[index]]
    new = list(q.values)
    new[i] = values
    return dataclasses.replace(q, values=(new[0], new[1]))


@dataclasses.dataclass(frozen=True, eq=False)
class OffTreeSolution:
    """Depth-limited solving after the off-tree action.

    Attributes:
      depth_limited: the profile after solving the depth-limited subgame (the translated
        strategy beyond the limit).
      behavioural: the same with every subgame beyond the limit resolved safely.
    """

    depth_limited: policies.Behavioural
    behavioural: policies.Behavioural


GADGETS = ("resolving", "max_margin")
TARGETS = ("promised", "translated")


def depth_limited_response(
    off: OffTree,
    blueprint: policies.Behavioural,
    cut: ss.Cut,
    *,
    abstract_leaves: leaves_lib.MultiValuedLeaves,
    method: ggse.Method = "lp",
    iterations: int = ggse.DEFAULT_ITERATIONS,
    gadget: GadgetKind = "resolving",
) -> tuple[policies.Behavioural, leaves_lib.MultiValuedLeaves]:
    """The depth-limited subgame after the off-tree action, solved, and its leaves.

    The subgame (module docstring) is solved and spliced into the translated profile; its
    transferred leaves are returned too. `gadget`: 'resolving' or 'max_margin', its
    alternatives the opponent's best in-abstraction values.
    """
    if gadget not in GADGETS:
        raise ValueError(f"game {off.game.name}: gadget must be one of {GADGETS}, got {gadget!r}")
    start = rpat_profile(off, blueprint)
    q = with_in_abstraction_alternatives(ss.BlueprintQuantities.compute(off.game, start), off)
    tree = off.game.tree
    first = subgames_after(off, ss.Cut.after_moves(_moves_before(tree, off)))
    if len(first) != 1 or set(first[0].roots.tolist()) != set(off.roots.tolist()):
        raise ValueError(f"game {tree.name}: the off-tree action does not start one public state")
    leaves = transferred_leaves(off, cut, abstract_leaves)
    dl = solving.solve_depth_limited(
        q, first, leaves, gadget=gadget, prior="none", method=method, iterations=iterations
    ).behavioural
    return dl, leaves


def subgames_after(off: OffTree, cut: ss.Cut) -> list[ss.Subgame]:
    """The subgames of `cut` (e.g. the depth limit) after the off-tree action."""
    return [s for s in ss.subgames(off.game.tree, cut) if np.all(off.inside[s.roots])]


def resolve_below(
    off: OffTree,
    depth_limited: policies.Behavioural,
    cut: ss.Cut,
    *,
    leaves: leaves_lib.MultiValuedLeaves,
    method: ggse.Method = "lp",
    iterations: int = ggse.DEFAULT_ITERATIONS,
    gadget: GadgetKind = "resolving",
    targets: Literal["promised", "translated"] = "promised",
) -> policies.Behavioural:
    """Every subgame beyond the depth limit after the off-tree action, resolved for the responder.

    Each is resolved with `gadget` ('resolving' or 'max_margin'), whose alternatives are
    `targets`: 'promised' (`with_leaf_value_targets`) or 'translated' (the opponent's best
    response to the depth-limited solution with the translated strategy beyond).
    """
    if gadget not in GADGETS or targets not in TARGETS:
        raise ValueError(
            f"game {off.game.name}: gadget must be one of {GADGETS} and targets one of "
            f"{TARGETS}, got {gadget!r}, {targets!r}"
        )
    q = ss.BlueprintQuantities.compute(off.game, depth_limited)
    if targets == "promised":
        q = with_leaf_value_targets(q, leaves, off)
    below = subgames_after(off, cut)
    return ss.resolve(
        q, below, gadget, prior="none", method=method, players=[off.player], iterations=iterations
    ).behavioural


def solve_off_tree(
    off: OffTree,
    blueprint: policies.Behavioural,
    cut: ss.Cut,
    *,
    abstract_leaves: leaves_lib.MultiValuedLeaves,
    method: ggse.Method = "lp",
    iterations: int = ggse.DEFAULT_ITERATIONS,
    gadget: GadgetKind = "resolving",
    gadget_below: GadgetKind = "resolving",
    targets: Literal["promised", "translated"] = "promised",
) -> OffTreeSolution:
    """Section 6.1's response to the off-tree action.

    `depth_limited_response`, then `resolve_below` (the paper's "safe subgame solving" of the
    rest of the game).
    """
    dl, leaves = depth_limited_response(
        off,
        blueprint,
        cut,
        abstract_leaves=abstract_leaves,
        method=method,
        iterations=iterations,
        gadget=gadget,
    )
    resolved = resolve_below(
        off,
        dl,
        cut,
        leaves=leaves,
        method=method,
        iterations=iterations,
        gadget=gadget_below,
        targets=targets,
    )
    return OffTreeSolution(dl, resolved)


def best_continuation(
    off: OffTree, behavioural: policies.Behavioural, cut: ss.Cut, iterations: int = 3000
) -> policies.Behavioural:
    """A bound on what any solving beyond the depth limit can reach.

    The responder's strategy is fixed everywhere except in the subgames of `cut` after the
    off-tree action (behavioural lower bounds of (1 - 1e-7) x its probabilities,
    `constraints`), and CFR+ (`iterations`) finds the best continuation there against a
    best-responding opponent. Returns CFR+'s average profile.
    """
    tree, sf = off.game.tree, off.game
    roots = np.concatenate([s.roots for s in subgames_after(off, cut)])
    free = translation.region(tree, roots)
    free_infosets = set(np.unique(tree.infoset[free & (tree.player == off.player)]).tolist())
    tp = sf.treeplexes[off.player]
    b = np.asarray(behavioural[off.player], dtype=np.float64)
    fixed = {}
    for local, infoset in enumerate(tp.infoset_ids.tolist()):
        if infoset not in free_infosets:
            start, n = int(tp.seq_start[local]), int(tp.num_actions[local])
            fixed[tree.infoset_key[infoset]] = np.clip(b[start : start + n], 0, None) * FIXED
    solver = cfr_variants.CFRVariantSolver(
        sf,
        cfr_variants.CFR_PLUS,
        lower_bounds=constraints.BehaviouralLowerBounds(per_infoset=fixed),
    )
    solver_lib.run(solver, iterations)
    return solver.average_behavioural()


def _moves_before(tree: GameTree, off: OffTree) -> int:
    """Player moves on the path to the off-tree roots (all the same for one public state)."""
    r = int(off.roots[0])
    return sum(1 for n in _path(tree, r) if tree.player[tree.parent[n]] in (0, 1))


def _path(tree: GameTree, node: int) -> list[int]:
    out = []
    while tree.parent[node] >= 0:
        out.append(node)
        node = int(tree.parent[node])
    return out
