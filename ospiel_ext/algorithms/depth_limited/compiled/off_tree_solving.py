"""Depth-limited solving after an off-tree action, and safe subgame solving beyond its limit.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1 and Figure 2: the responder i answers the opponent o's off-tree action
(`off_tree.OffTree`) by solving, rather than by action translation (`off_tree.rpat_profile`):

* `depth_limited_response`: depth-limited solving of the subgame after the off-tree action. Its
  leaves are the states at the depth limit (`cut`); each leaf's K values are "the average of
  the two corresponding value vectors" of its counterparts in the abstraction
  (`off_tree.transferred_leaves`), computed there by any strategy set (the paper:
  self-generative). The subgame is a resolving (or max-margin) gadget (Kubíček, Lisý &
  Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in Imperfect-Information
  Games", Section 2.1) whose alternative payoff at each of o's root information sets is o's
  counterfactual best-response value of its best in-abstraction action there - Section 5's
  goal that the off-tree action pay o no more than "an action already in the abstraction"
  (`with_in_abstraction_alternatives`); beyond the limit the translated strategy plays;
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
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pyspiel

from ospiel_ext import arrays, constraints, policies, tree_values
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited.compiled import solving
from ospiel_ext.algorithms.depth_limited.compiled.off_tree import (
    OffTree,
    region,
    rpat_profile,
    transferred_leaves,
)
from ospiel_ext.algorithms.subgames import ggse
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.tree import GameTree

FIXED = 1 - 1e-7  # lower bounds must sum below 1: a fixed strategy is bounded at this share


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
    q: ss.BlueprintQuantities,
    leaves: leaves_lib.MultiValuedLeaves,
    off: OffTree,
    continuations: Sequence[policies.Behavioural] = (),
) -> ss.BlueprintQuantities:
    """`q` with the values the depth-limited game promised the opponent at its leaf states.

    `q` is of the depth-limited solution; the responder's node values at the leaf states
    after the off-tree action are replaced by the values the depth-limited game promised the
    opponent: at each of its leaf information sets J the continuation n* it would pick
    against the solution (the best of sum_h P_i(h) P_c(h) v(h, n) over n), v(h, n*) at every h
    in J. The resolving gadgets below the limit then keep the opponent at those values
    (nested solving, Section 5) instead of at its best response to the translated strategy.

    Leaves at chance nodes (a limit before the public cards, `Cut.before_public_chance`):
    the subgames below start at their children (the cards dealt), whose targets are
    continuation n*'s values there, each the mean of its counterparts' in the abstraction
    under the replacements (as `transferred_leaves` averages the leaves'):
    `continuations` are the K continuation profiles of the abstraction whose values
    `leaves` holds.

    Raises:
      ValueError: leaves at chance nodes without their K continuation profiles.
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
    tree = off.game.tree
    chance = tree.player[nodes[mine]] == pyspiel.PlayerId.CHANCE
    if np.any(chance):
        if len(continuations) != leaves.num_values:
            raise ValueError(
                f"game {off.game.name}: leaves at chance nodes need their "
                f"{leaves.num_values} continuation profiles for the targets below them"
            )
        parents = nodes[mine][chance]
        kids = np.concatenate(
            [tree.child_start[n] + np.arange(tree.num_children[n]) for n in parents]
        )
        parent_pick = np.repeat(pick[index][chance], tree.num_children[parents])
        values[kids] = _counterpart_values(off, continuations, kids)[
            parent_pick, np.arange(len(kids))
        ]
    new = list(q.values)
    new[i] = values
    return dataclasses.replace(q, values=(new[0], new[1]))


def _counterpart_values(
    off: OffTree, continuations: Sequence[policies.Behavioural], nodes: IntArray
) -> FloatArray:
    """Each continuation's player-0 value at `nodes` of `off.game` (K, nodes).

    The mean of its values at their counterparts in the abstraction.
    """
    abstract = off.abstract
    found = np.stack([m[nodes] for m in off.maps])  # (replacements, nodes), -1: none
    count = (found >= 0).sum(axis=0)
    if np.any(count == 0):
        raise ValueError(f"game {off.game.name}: a state below the limit has no counterpart")
    out = np.empty((len(continuations), len(nodes)))
    for k, profile in enumerate(continuations):
        v = tree_values.node_values(abstract.tree, abstract.tree_profile(profile))
        out[k] = np.where(found >= 0, v[np.maximum(found, 0)], 0.0).sum(axis=0) / count
    return out


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
    continuations: Sequence[policies.Behavioural] = (),
) -> policies.Behavioural:
    """Every subgame beyond the depth limit after the off-tree action, resolved for the responder.

    Each is resolved with `gadget` ('resolving' or 'max_margin'), whose alternatives are
    `targets`: 'promised' (`with_leaf_value_targets`; with leaves at chance nodes, from the
    abstraction's K `continuations`) or 'translated' (the opponent's best response to the
    depth-limited solution with the translated strategy beyond).
    """
    if gadget not in GADGETS or targets not in TARGETS:
        raise ValueError(
            f"game {off.game.name}: gadget must be one of {GADGETS} and targets one of "
            f"{TARGETS}, got {gadget!r}, {targets!r}"
        )
    q = ss.BlueprintQuantities.compute(off.game, depth_limited)
    if targets == "promised":
        q = with_leaf_value_targets(q, leaves, off, continuations)
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
    continuations: Sequence[policies.Behavioural] = (),
) -> OffTreeSolution:
    """Section 6.1's response to the off-tree action.

    `depth_limited_response`, then `resolve_below` (the paper's "safe subgame solving" of the
    rest of the game; `continuations` as there).
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
        continuations=continuations,
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
    free = region(tree, roots)
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
